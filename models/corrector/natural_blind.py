"""Builds, once, the corrector's blind test from natural sentences no training ever saw.

    python -m models.corrector.natural_blind [--fetch-dir build/fr_corpus]

Sentences come from the blind pool of npm fr-corpus (one in ten, by the hash
that ships with each sentence; `models.corrector.corpus.natural` never lets
them into a corpus), not from the generator's templates nor from the
hand-written sets. 150 of at most 10 words are degraded by the corpus rules (agrammatic inputs),
50 are given as they are (correct inputs, to stay unchanged). Written to
``tests/data/aphasia_eval_natural.jsonl`` in the hand-written sets' format
and frozen by ``benchmarks/blind/corrector_natural.sha256``. Nothing here
prints an item; nobody reads the file item by item, and no setting is ever
chosen on it: only aggregates are reported (`benchmarks/correction.py`).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
from pathlib import Path

from models.corrector.corpus.natural import (
    BLIND_POOL,
    fetch,
    plausible,
    read_sentences,
    tag_sentences,
)
from models.corrector.corpus.realise import load_french
from models.corrector.corpus.severity import degrade
from models.corrector.corpus.tokens import normalize

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "tests" / "data" / "aphasia_eval_natural.jsonl"
FROZEN = ROOT / "benchmarks" / "blind" / "corrector_natural.sha256"
AGRAMMATIC, CORRECT = 150, 50
# Patients' sentences are short: longer pool sentences are left to the statistics.
MAX_WORDS = 10
# Moderate and severe only: a mild profile often changes one letter of a long sentence.
SEVERITIES = (("moderate", 0.5), ("severe", 0.5))


def _order(text: str) -> str:
    return hashlib.sha256(("natural-blind:" + text).encode("utf-8")).hexdigest()


def build(fetch_dir: Path) -> list[dict]:
    """The blind items, deterministic for the package and the code."""
    load_french()
    pool = [
        s for s in read_sentences(fetch(fetch_dir)) if s.pool == BLIND_POOL and plausible(s.text)
    ]
    pool.sort(key=lambda s: _order(s.text))
    items: list[dict] = []
    seen: set[str] = set()
    for sentence, tokens in zip(pool, tag_sentences(s.text for s in pool), strict=True):
        if tokens is None or sentence.text in seen or len(sentence.text.split()) > MAX_WORDS:
            continue
        seen.add(sentence.text)
        n_agr = sum(1 for it in items if "correct" not in it["phenomena"])
        if n_agr < AGRAMMATIC:
            rng = random.Random(_order(sentence.text))
            severity = rng.choices([s for s, _ in SEVERITIES], [w for _, w in SEVERITIES])[0]
            try:
                result = degrade(tokens, severity, rng)
            except Exception:  # a tagging slip the rules cannot take
                continue
            if result.src == normalize(sentence.text) or not result.src.strip():
                continue
            items.append(
                {"src": result.src, "refs": [sentence.text], "phenomena": list(result.rules)}
            )
        elif len(items) - n_agr < CORRECT:
            items.append({"src": sentence.text, "refs": [sentence.text], "phenomena": ["correct"]})
        else:
            break
    return [{"id": f"n{i + 1:03d}", **item} for i, item in enumerate(items)]


def main(argv: list[str] | None = None) -> int:
    """Entry point: refuses to overwrite a frozen set."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fetch-dir", type=Path, default=ROOT / "build" / "fr_corpus")
    args = parser.parse_args(argv)
    if FROZEN.exists():
        raise SystemExit(f"{FROZEN} exists: the blind set is built once")
    items = build(args.fetch_dir)
    text = "".join(json.dumps(it, ensure_ascii=False) + "\n" for it in items)
    OUT.write_text(text, encoding="utf-8")
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    n_correct = sum("correct" in it["phenomena"] for it in items)
    FROZEN.write_text(
        f"{digest}  {len(items)} items ({len(items) - n_correct} agrammatic, {n_correct} correct) "
        f"of {OUT.relative_to(ROOT)}\n",
        encoding="utf-8",
    )
    print(f"{len(items)} items written, sha256 {digest[:16]}…")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
