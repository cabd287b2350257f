"""The texts of the hand-written evaluation sets, which no training data may contain."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FILLERS = {"euh", "heu", "hum"}


def verbatim_target(spoken: str) -> str:
    """What a verbatim transcript of ``spoken`` should read (the recogniser's style)."""
    text = spoken.lower().replace("’", "'")
    text = re.sub(r"[.,;:!?…«»\"()\[\]]", " ", text)
    return " ".join(w for w in text.split() if w not in FILLERS)


@lru_cache(maxsize=1)
def evaluation_texts() -> frozenset[str]:
    """Normalised sources and references of every hand-written evaluation set."""
    texts = set()
    for path in (ROOT / "tests" / "data").glob("aphasia_eval*.jsonl"):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                for text in [row["src"], *row["refs"]]:
                    texts.add(verbatim_target(text))
    return frozenset(texts)


def is_evaluation_pair(src: str, tgt: str, banned: frozenset[str]) -> bool:
    """Whether a corpus pair's source or target is a text of ``evaluation_texts()``."""
    return verbatim_target(src) in banned or verbatim_target(tgt) in banned


def training_pairs(path: Path) -> Iterator[tuple[str, str]]:
    """(source, target) of each corpus row in a JSONL split, evaluation pairs left out."""
    banned = evaluation_texts()
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            if not is_evaluation_pair(row["src"], row["tgt"], banned):
                yield row["src"], row["tgt"]
