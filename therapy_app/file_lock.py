"""Non-blocking exclusive OS locks on an open file (flock on POSIX, msvcrt on Windows).

The OS drops the lock when its holder dies, so a crashed process never
leaves a stale lock behind (removing lock files instead races).
"""

from __future__ import annotations

import os
import sys

if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
    import msvcrt

    def try_lock(fd: int) -> bool:
        """Take the lock on the first byte of ``fd`` if free; False when another holds it."""
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True

    def unlock(fd: int) -> None:
        """Release a lock taken by :func:`try_lock`."""
        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def try_lock(fd: int) -> bool:
        """Take the lock on ``fd`` if free; False when another holds it."""
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

    def unlock(fd: int) -> None:
        """Release a lock taken by :func:`try_lock`."""
        fcntl.flock(fd, fcntl.LOCK_UN)
