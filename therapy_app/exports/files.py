"""Atomic text-file writing for exports: a crash never leaves half a file behind."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO


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
    path = Path(path)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding=encoding, newline=newline) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp_name, path)
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise
