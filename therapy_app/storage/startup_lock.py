"""A lock file that lets one process at a time open (create, convert, migrate) the database."""

from __future__ import annotations

import contextlib
import logging
import os
import time
from collections.abc import Iterator
from pathlib import Path

from therapy_app.file_lock import try_lock, unlock
from therapy_app.paths import PRIVATE_FILE_MODE
from therapy_app.storage.errors import StorageUnavailableError

_LOGGER = logging.getLogger(__name__)

LOCK_SUFFIX = ".lock"
WAIT_S = 30.0
"""How long a second copy waits for the first one to finish opening the database."""
_POLL_S = 0.05


def lock_path(db_path: Path) -> Path:
    """The lock file beside ``db_path`` (kept on disk: removing lock files races)."""
    return db_path.with_name(db_path.name + LOCK_SUFFIX)


@contextlib.contextmanager
def startup_lock(db_path: Path, wait_s: float | None = None) -> Iterator[None]:
    """Hold the database's start-up lock; other processes wait for it.

    Two copies of the app started at once on a fresh folder both saw the
    schema missing and both created it ("table patients already exists"), or
    one failed to switch the file to WAL while the other was doing it (issue
    11, item 4). Opening, the WAL switch and the migrations run under this
    lock; once open, SQLite's own locking shares the database safely.

    Where the lock file cannot be created (read-only folder) there is nothing
    to migrate either, so the database is opened without it.

    Args:
        db_path: the database file.
        wait_s: how long to wait for another process; None uses :data:`WAIT_S`.

    Raises:
        StorageUnavailableError: another copy held the lock for ``wait_s`` seconds.
    """
    wait_s = WAIT_S if wait_s is None else wait_s
    try:
        fd = os.open(lock_path(db_path), os.O_RDWR | os.O_CREAT, PRIVATE_FILE_MODE)
    except OSError as exc:
        _LOGGER.debug("no start-up lock for %s: %s", db_path, exc)
        yield
        return
    try:
        deadline = time.monotonic() + wait_s
        while not try_lock(fd):
            if time.monotonic() > deadline:
                raise StorageUnavailableError(
                    "Une autre copie de l'application est en train de démarrer et n'a pas terminé.",
                    "Fermez les autres fenêtres de l'application, puis réessayez.",
                    f"start-up lock {lock_path(db_path)} held for more than {wait_s:.0f} s",
                )
            time.sleep(_POLL_S)
        try:
            yield
        finally:
            unlock(fd)
    finally:
        os.close(fd)
