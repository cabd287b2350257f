"""Reads the manifest of an optional pack installed beside the app (GPU pack, voice pack)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any


def read(folder: Path, name: str, layout: int) -> dict[str, Any]:
    """The pack's manifest ``folder / name``, checked to be of the layout this code reads.

    Args:
        folder: the pack folder.
        name: the manifest's file name.
        layout: the ``format`` value the manifest must have.

    Raises:
        OSError: the manifest cannot be read.
        ValueError: it is not JSON, not a JSON object, or of another format.
    """
    meta = json.loads((folder / name).read_text(encoding="utf-8"))
    if not isinstance(meta, dict) or meta.get("format") != layout:
        got = meta.get("format") if isinstance(meta, dict) else meta
        raise ValueError(f"unknown manifest format {got!r}")
    return meta


def damaged(folder: Path, sizes: Mapping[str, object]) -> list[str]:
    """The files of ``sizes`` (path relative to ``folder`` -> bytes) absent or of another size."""
    return [
        rel
        for rel, size in sorted(sizes.items())
        if not (folder / rel).is_file() or (folder / rel).stat().st_size != size
    ]
