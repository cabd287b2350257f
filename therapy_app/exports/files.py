"""Atomic text-file writing for exports: a crash never leaves half a file behind."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

from therapy_app.atomic import atomic_path


@contextlib.contextmanager
def atomic_text_writer(
    path: Path, *, encoding: str = "utf-8", newline: str = ""
) -> Iterator[TextIO]:
    """Open a temporary file beside ``path``; on success fsync it and rename it over ``path``.

    Args:
        path: the file to create or replace (its folder must exist).
        encoding: text encoding ("utf-8-sig" writes a byte-order mark).
        newline: passed to ``open``; "" writes line endings exactly as given.

    Raises:
        OSError: the folder cannot be written (the target is left untouched).
    """
    with atomic_path(Path(path)) as temporary:
        with open(temporary, "w", encoding=encoding, newline=newline) as handle:
            yield handle
