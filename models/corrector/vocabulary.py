"""Writes the French words the corrector was trained to write, for its input check.

The corrector can only restore sentences made of words it has seen. Its input
check (``therapy_app.correction.input_check``) refuses an utterance in which
most words are outside this list (another language, noise heard as words)
rather than let the model invent a fluent sentence. Built from the target side
of the training corpus, words seen at least twice::

    python -m models.corrector.vocabulary --corpus build/corpus_v5 \\
        --out resources/lexicon/fr-words.txt
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from therapy_app.correction.input_check import words_of

MIN_COUNT = 2


def count_words(train: Path) -> Counter[str]:
    """Word counts over the ``tgt`` side of a corpus split."""
    counts: Counter[str] = Counter()
    with train.open(encoding="utf-8") as handle:
        for line in handle:
            counts.update(words_of(json.loads(line)["tgt"]))
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    counts = count_words(args.corpus / "train.jsonl")
    words = sorted(w for w, n in counts.items() if n >= MIN_COUNT)
    manifest = json.loads((args.corpus / "MANIFEST.json").read_text(encoding="utf-8"))
    header = [
        "# Words of the corrector's training targets seen at least twice.",
        f"# Corpus {args.corpus.name} ({manifest.get('name', '?')}); "
        "made by models/corrector/vocabulary.py.",
    ]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(header + words) + "\n", encoding="utf-8")
    print(f"{len(words)} words -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
