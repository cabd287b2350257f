"""Phonological neighbours of any frequent French word: what a phonemic paraphasia turns it into.

Read from ``resources/lexicon/fr-phon.tsv.gz`` (made by ``models/naming/sound_alikes.py``
from Lexique 3.83). A neighbour differs by one phoneme
("six" / "dix", "chameau" / "chapeau"); homophones ("vert" / "verre") are
never neighbours: the recogniser cannot tell them apart and neither can a listener.
"""

from __future__ import annotations

import gzip
from dataclasses import dataclass
from functools import lru_cache

from therapy_app.analysis.edit_distance import edit_distance
from therapy_app.paths import resources_dir

LEXICON = ("lexicon", "fr-phon.tsv.gz")
NEIGHBOURS = 4


@dataclass(frozen=True)
class Form:
    """A word form of the lexicon.

    Attributes:
        text: its spelling.
        phon: its phonemes (Lexique's code).
        category: Lexique's grammatical category ("NOM", "VER", "ADJ:num"...).
        frequency: occurrences per million words (films).
    """

    text: str
    phon: str
    category: str
    frequency: float


@dataclass(frozen=True)
class _Lexicon:
    by_text: dict[str, Form]
    by_phon: dict[str, Form]  # the most frequent spelling of each pronunciation
    by_deletion: dict[str, frozenset[str]]  # phon with one phoneme deleted -> phons


def _deletions(phon: str) -> set[str]:
    return {phon[:i] + phon[i + 1 :] for i in range(len(phon))}


@lru_cache(maxsize=1)
def _lexicon() -> _Lexicon:
    path = resources_dir().joinpath(*LEXICON)
    by_text: dict[str, Form] = {}
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        for line in handle:
            if line.startswith("#"):
                continue
            text, phon, category, frequency = line.rstrip("\n").split("\t")
            by_text[text] = Form(text, phon, category, float(frequency))
    by_phon: dict[str, Form] = {}
    for form in by_text.values():
        if form.phon not in by_phon or form.frequency > by_phon[form.phon].frequency:
            by_phon[form.phon] = form
    index: dict[str, set[str]] = {}
    for phon in by_phon:
        for key in {phon, *_deletions(phon)}:
            index.setdefault(key, set()).add(phon)
    return _Lexicon(by_text, by_phon, {k: frozenset(v) for k, v in index.items()})


def form_of(word: str) -> Form | None:
    """The lexicon's entry for ``word`` (lowercase spelling), or None."""
    return _lexicon().by_text.get(word.strip().lower())


def neighbours(word: str, count: int = NEIGHBOURS) -> tuple[str, ...]:
    """Up to ``count`` words one phoneme away from ``word``, the likeliest slips first.

    One phoneme substituted, added or dropped ("dix" -> "six", "chapeau" ->
    "chameau"): found through a one-deletion index, so a lookup costs a few
    dictionary reads. Empty when ``word`` is not a frequent form of the lexicon.
    """
    lexicon = _lexicon()
    own = form_of(word)
    if own is None:
        return ()
    found: set[str] = set()
    for key in {own.phon, *_deletions(own.phon)}:
        found |= lexicon.by_deletion.get(key, frozenset())
    near = [
        lexicon.by_phon[phon]
        for phon in found
        if phon != own.phon and edit_distance(own.phon, phon, bound=1) == 1
    ]
    # Word of the same kind first ("six" for "dix", not "dire"), then a swapped
    # phoneme (the commonest paraphasia) before one added or dropped, then frequency.
    near.sort(
        key=lambda f: (f.category != own.category, len(f.phon) != len(own.phon), -f.frequency)
    )
    return tuple(f.text for f in near[:count])
