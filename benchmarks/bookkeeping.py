"""What a benchmark keeps on disk: the frozen hash of its blind set and its JSON report."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path


def frozen_digest(listing: object, path: Path, note: str, what: str = "the blind set") -> str:
    """SHA-256 of ``listing`` as JSON; written to ``path`` once, then every run must find it.

    A blind set that changed after its first run would make the figures
    incomparable (and could have been tuned on): the benchmark stops instead.

    Args:
        listing: the set (JSON-serialisable), in a fixed order.
        path: the ``benchmarks/blind/*.sha256`` file.
        note: what the set is, written after the hash the first time.
        what: the set in the refusal message.

    Raises:
        SystemExit: the set differs from the frozen one.
    """
    digest = hashlib.sha256(json.dumps(listing, ensure_ascii=False).encode()).hexdigest()
    if path.is_file():
        frozen = path.read_text(encoding="utf-8").split()[0]
        if frozen != digest:
            raise SystemExit(f"{what} changed ({digest} != frozen {frozen}): refusing")
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"{digest}  {note}\n", encoding="utf-8")
    return digest


def write_report(path: Path, report: object) -> None:
    """Write ``report`` to ``path`` as indented UTF-8 JSON, making its folder if needed."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
