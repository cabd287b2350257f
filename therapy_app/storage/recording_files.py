"""Patient recordings on disk: atomic 16-bit PCM WAV files under the data dir, with hashes."""

from __future__ import annotations

import logging
import os
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import NamedTuple

from therapy_app.audio.clip import AudioClip
from therapy_app.audio.wavio import TEMP_SUFFIX, temporary_writer_pid, write_wav
from therapy_app.errors import AudioInputError
from therapy_app.model_store import sha256_file
from therapy_app.paths import ensure_private_dir, user_data_dir
from therapy_app.storage.errors import translate_os_error

_LOGGER = logging.getLogger(__name__)

RECORDINGS_DIR = "recordings"


class SavedRecording(NamedTuple):
    """Where a recording went and what it contains.

    Attributes:
        relative_path: POSIX path relative to the data dir (stored in the database,
            so the data dir can move between machines and operating systems).
        sha256: hex digest of the file's bytes.
    """

    relative_path: str
    sha256: str


def save_recording(
    clip: AudioClip,
    patient_id: int,
    *,
    data_dir: Path | None = None,
    when: datetime | None = None,
) -> SavedRecording:
    """Write ``clip`` as a mono 16-bit PCM WAV, atomically, and hash it.

    The file goes to ``<data dir>/recordings/<patient id>/<yyyy-mm>/<uuid>-<pid>.wav``
    (the writer's process id tells a maintenance view which writer left a
    file without a row), written by ``audio.wavio.write_wav`` (temp file,
    fsync, ``os.replace``, fsync of the folder), so it is either absent or
    complete after a crash. A complete recording is never deleted
    automatically, even without a row: see ``MaintenanceStore.orphan_recordings``.

    Args:
        clip: the audio (float samples in [-1, 1], clipped beyond).
        patient_id: the patient's database id (the folder name: no names on disk).
        data_dir: the data folder; default ``paths.user_data_dir()``.
        when: the month folder's date (UTC now by default).

    Returns:
        The relative path and the SHA-256 of the file as written.

    Raises:
        StorageUnavailableError: the disk is full or read-only.
        AudioInputError: the file could not be written for another reason.
    """
    base = Path(data_dir) if data_dir is not None else user_data_dir()
    stamp = (when or datetime.now(UTC)).astimezone(UTC)
    relative = PurePosixPath(
        RECORDINGS_DIR,
        str(int(patient_id)),
        f"{stamp:%Y-%m}",
        f"{uuid.uuid4().hex}-{os.getpid()}.wav",
    )
    target = base.joinpath(*relative.parts)
    try:
        ensure_private_dir(target.parent)  # write_wav would create it 0755
        write_wav(target, clip)
        # Hash what is on disk, not what we meant to write.
        digest = file_sha256(target)
    except AudioInputError as exc:
        # write_wav reports every OSError as an audio problem; say "disk full"
        # or "read-only" when that is what happened.
        cause = exc.__cause__
        if isinstance(cause, OSError):
            translated = translate_os_error(cause, f"writing recording {relative}")
            if translated is not cause:
                raise translated from exc
        raise
    except OSError as exc:
        translated = translate_os_error(exc, f"hashing recording {relative}")
        if translated is exc:
            raise
        raise translated from exc
    _LOGGER.debug("saved recording %s", relative)
    return SavedRecording(relative.as_posix(), digest)


def recording_file(relative_path: str, data_dir: Path | None = None) -> Path:
    """Absolute path of a stored recording.

    Raises:
        ValueError: the stored path is absolute or climbs out of the data dir.
    """
    relative = PurePosixPath(relative_path)
    if relative.is_absolute() or ".." in relative.parts:
        raise ValueError(f"recording path must stay inside the data dir: {relative_path!r}")
    base = Path(data_dir) if data_dir is not None else user_data_dir()
    return base.joinpath(*relative.parts)


def file_sha256(path: Path) -> str:
    """Hex SHA-256 of a file, read in chunks."""
    return sha256_file(path)


def remove_recording(relative_path: str, data_dir: Path | None = None) -> None:
    """Delete a recording whose database row was never written (best effort)."""
    try:
        recording_file(relative_path, data_dir).unlink(missing_ok=True)
    except OSError:
        _LOGGER.warning("could not remove orphan recording %s", relative_path, exc_info=True)


STALE_TEMP_AGE_S = 3600.0
"""A temporary recording this old is abandoned even if its writer cannot be checked."""


def _writer_gone(pid: int) -> bool:
    if os.name != "posix":
        return False  # os.kill(pid, 0) would terminate the process on Windows
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False  # alive, someone else's
    return False


def remove_abandoned_temporary_files(
    data_dir: Path | None = None,
    *,
    keep: set[str] | frozenset[str] = frozenset(),
    stale_age_s: float = STALE_TEMP_AGE_S,
) -> list[str]:
    """Delete half-written recordings (``.*.tmp``) whose writer died: nothing else, ever.

    ``write_wav`` writes a temporary file then renames it; a crash or a kill in
    between leaves the temporary file forever. One is
    abandoned when the process id in its name is no longer running (POSIX),
    or when it is older than ``stale_age_s``; another copy of the app may be
    writing the others right now. A finished recording is never deleted here,
    referenced or not (the database may have been moved away or
    restored from a backup, and its recordings must be there when it returns).

    Args:
        data_dir: the data folder.
        keep: relative paths a row or a queued attempt refers to (a restored
            database might refer to a name that looks temporary): never deleted.
        stale_age_s: age past which a temporary file is abandoned whoever wrote it.

    Returns:
        The relative paths removed.
    """
    base = Path(data_dir) if data_dir is not None else user_data_dir()
    root = base / RECORDINGS_DIR
    if not root.is_dir():
        return []
    removed: list[str] = []
    now = time.time()
    for path in root.rglob(f".*{TEMP_SUFFIX}"):
        try:
            if path.relative_to(base).as_posix() in keep or not path.is_file():
                continue
            pid = temporary_writer_pid(path.name)
            old = now - path.stat().st_mtime > stale_age_s
            if old or (pid is not None and _writer_gone(pid)):
                path.unlink()
                removed.append(path.relative_to(base).as_posix())
        except OSError:
            _LOGGER.warning("could not remove temporary recording %s", path, exc_info=True)
    if removed:
        _LOGGER.info("removed %d abandoned temporary recording(s)", len(removed))
    return sorted(removed)


def recording_files(data_dir: Path | None = None) -> set[str]:
    """Relative POSIX paths of every file under ``<data dir>/recordings`` (temp files too)."""
    base = Path(data_dir) if data_dir is not None else user_data_dir()
    root = base / RECORDINGS_DIR
    if not root.is_dir():
        return set()
    return {p.relative_to(base).as_posix() for p in root.rglob("*") if p.is_file()}
