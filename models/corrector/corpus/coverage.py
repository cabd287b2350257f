"""How much everyday French a corpus covers: lemmas, verb frames, verb–complement pairs.

    python -m models.corrector.corpus.coverage build/corpus build/corpus_v6 \
        [--out benchmarks/results/corpus_coverage.json]

Parser-free, so that a whole train split is measured in a minute: each word of
a distinct target sentence is read as its most frequent Lexique lemma and
category. A verb frame is a verb lemma with what follows it (a preposition,
"direct" for a determiner or noun, "none"); a collocation is a verb lemma with
the first noun after it ("mettre … table"). Coverage of the most frequent
lemmas is the share of Lexique's 5,000 most frequent lemmas used at least once.
"""

from __future__ import annotations

import argparse
import functools
import json
from collections import Counter
from pathlib import Path

from models.corrector.corpus.lexicon import _rows, _to_float
from models.corrector.corpus.tokens import normalize

TOP = 5000
_CATEGORIES = {"NOM": "N", "VER": "V", "ADJ": "A", "ADV": "Adv", "PRE": "P", "ART:def": "D"}
_FUNCTION_SKIP = frozenset("le la les l' un une des du de d' au aux ne n' pas me te se lui".split())


@functools.cache
def lexicon() -> dict[str, tuple[str, str]]:
    """Lowercase form -> (lemma, category) of its most frequent Lexique reading."""
    best: dict[str, tuple[float, str, str]] = {}
    for row in _rows():
        category = _CATEGORIES.get(row["4_cgram"])
        if category is None:
            continue
        freq = _to_float(row["9_freqfilms2"]) + _to_float(row["10_freqlivres"])
        form = row["1_ortho"]
        if form not in best or freq > best[form][0]:
            best[form] = (freq, row["3_lemme"], category)
    return {form: (lemma, cat) for form, (_f, lemma, cat) in best.items()}


@functools.cache
def top_lemmas(count: int = TOP) -> frozenset[str]:
    """The ``count`` most frequent noun, verb, adjective and adverb lemmas."""
    freq: Counter[str] = Counter()
    for row in _rows():
        if row["4_cgram"] in ("NOM", "VER", "ADJ", "ADV"):
            lemma = row["3_lemme"]
            value = max(_to_float(row["7_freqlemfilms2"]), _to_float(row["8_freqlemlivres"]))
            freq[lemma] = max(freq[lemma], value)
    return frozenset(lemma for lemma, _ in freq.most_common(count))


def _split_elisions(words: list[str]) -> list[str]:
    out: list[str] = []
    for word in words:
        head, sep, tail = word.partition("'")
        out.extend([head + sep, tail] if sep and tail else [word])
    return out


def measure(targets: set[str]) -> dict[str, float | int]:
    """Coverage figures of a set of distinct target sentences."""
    lex = lexicon()
    lemmas: set[str] = set()
    frames: set[tuple[str, str]] = set()
    pairs: set[tuple[str, str]] = set()
    for text in targets:
        words = _split_elisions(normalize(text).split())
        read = [lex.get(w, (w, "?")) for w in words]
        for i, (lemma, cat) in enumerate(read):
            if cat in ("N", "V", "A", "Adv"):
                lemmas.add(lemma)
            if cat != "V":
                continue
            after = [r for w, r in zip(words[i + 1 :], read[i + 1 :], strict=True)]
            nxt = after[0] if after else ("", "")
            kind = nxt[0] if nxt[1] == "P" else ("direct" if nxt[1] in ("D", "N") else "none")
            frames.add((lemma, kind))
            rest = [
                r for w, r in zip(words[i + 1 :], after, strict=True) if w not in _FUNCTION_SKIP
            ]
            noun = next((lem for lem, c in rest[:3] if c == "N"), None)
            if noun is not None:
                pairs.add((lemma, noun))
    top = top_lemmas()
    return {
        "sentences": len(targets),
        "lemmas": len(lemmas),
        "verb_frames": len(frames),
        "verb_noun_pairs": len(pairs),
        "top5000_share": len(lemmas & top) / len(top),
    }


def corpus_targets(folder: Path, exclude_source: str | None = None) -> set[str]:
    """Distinct targets of a corpus's train split (optionally without one source)."""
    out: set[str] = set()
    with (folder / "train.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            if exclude_source is None or row.get("source") != exclude_source:
                out.add(row["tgt"])
    return out


def main(argv: list[str] | None = None) -> int:
    """Entry point: one row per corpus, printed and written as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpora", nargs="+", type=Path)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    rows = {}
    for folder in args.corpora:
        rows[str(folder)] = measure(corpus_targets(folder))
        print(folder, json.dumps(rows[str(folder)]))
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
