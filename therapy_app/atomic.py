"""Atomic file writes: after a crash a file is absent, old or complete, never half written."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

TEMP_SUFFIX = ".tmp"


def writer_prefix(path: Path) -> str:
    """``.<name>.<pid>.``: the start of a temporary name beside ``path``.

    The writer's process id lets a start-up clean-up tell a file left by a
    killed process (its writer is gone) from one another copy of the app is
    writing right now.
    """
    return f".{path.name}.{os.getpid()}."


def fsync_dir(folder: Path) -> None:
    """Make a rename in ``folder`` durable (POSIX; on Windows NTFS journals the rename)."""
    if os.name != "posix":
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@contextlib.contextmanager
def atomic_path(path: Path, *, prefix: str | None = None) -> Iterator[Path]:
    """A private (0600) temporary file beside ``path`` for the caller to fill.

    On a clean exit the file is flushed to disk, renamed over ``path`` and the
    rename made durable; on an error it is removed and ``path`` is untouched.

    Args:
        path: the file to create or replace (its folder must exist).
        prefix: start of the temporary name (default :func:`writer_prefix`).

    Raises:
        OSError: the folder cannot be written.
    """
    path = Path(path)
    fd, name = tempfile.mkstemp(
        prefix=prefix or writer_prefix(path), suffix=TEMP_SUFFIX, dir=path.parent
    )
    os.close(fd)
    temporary = Path(name)
    try:
        yield temporary
        with open(temporary, "rb") as handle:
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    fsync_dir(path.parent)


def write_bytes(path: Path, data: bytes, *, prefix: str | None = None) -> Path:
    """Write ``data`` to ``path`` atomically (see :func:`atomic_path`); returns ``path``."""
    with atomic_path(path, prefix=prefix) as temporary:
        temporary.write_bytes(data)
    return Path(path)
