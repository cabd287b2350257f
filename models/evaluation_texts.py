"""The texts of the hand-written evaluation sets, which no training data may contain."""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path

from therapy_app.asr.verbatim import verbatim_text

ROOT = Path(__file__).resolve().parents[1]


@lru_cache(maxsize=1)
def evaluation_texts() -> frozenset[str]:
    """Normalised sources and references of every hand-written evaluation set."""
    texts = set()
    for path in (ROOT / "tests" / "data").glob("aphasia_eval*.jsonl"):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                for text in [row["src"], *row["refs"]]:
                    texts.add(verbatim_text(text))
    return frozenset(texts)


def is_evaluation_pair(src: str, tgt: str, banned: frozenset[str]) -> bool:
    """Whether a corpus pair's source or target is a text of ``evaluation_texts()``."""
    return verbatim_text(src) in banned or verbatim_text(tgt) in banned


def training_pairs(path: Path) -> Iterator[tuple[str, str]]:
    """(source, target) of each corpus row in a JSONL split, evaluation pairs left out."""
    banned = evaluation_texts()
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            if not is_evaluation_pair(row["src"], row["tgt"], banned):
                yield row["src"], row["tgt"]
