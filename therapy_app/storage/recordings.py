"""Patient recordings on disk: atomic 16-bit PCM WAV files under the data dir, with hashes."""

from __future__ import annotations

import hashlib
import io
import logging
import os
import uuid
import wave
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import NamedTuple

import numpy as np

from therapy_app.audio.clip import AudioClip
from therapy_app.errors import AudioInputError
from therapy_app.paths import user_data_dir
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


def _wav_bytes(clip: AudioClip) -> bytes:
    samples = clip.samples
    if not np.all(np.isfinite(samples)):
        raise AudioInputError(
            "L'enregistrement est inutilisable.",
            "Recommencez l'enregistrement.",
            "clip contains NaN or infinite samples",
        )
    pcm = np.round(np.clip(samples, -1.0, 1.0) * 32767.0).astype("<i2")
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(2)
        wav.setframerate(int(clip.sample_rate))
        wav.writeframes(pcm.tobytes())
    return buffer.getvalue()


def _fsync_dir(folder: Path) -> None:
    # Makes the rename itself durable on POSIX; Windows cannot open folders.
    if os.name != "posix":
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_bytes_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so that ``path`` is either absent or complete.

    Temp file in the same folder, fsync, ``os.replace``, fsync of the folder:
    a crash at any point leaves at most a stray ``.tmp`` file.
    """
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
    try:
        with open(tmp, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
        _fsync_dir(path.parent)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def save_recording(
    clip: AudioClip,
    patient_id: int,
    *,
    data_dir: Path | None = None,
    when: datetime | None = None,
) -> SavedRecording:
    """Write ``clip`` as a mono 16-bit PCM WAV, atomically, and hash it.

    The file goes to ``<data dir>/recordings/<patient id>/<yyyy-mm>/<uuid>.wav``.

    Args:
        clip: the audio (float samples in [-1, 1], clipped beyond).
        patient_id: the patient's database id (the folder name: no names on disk).
        data_dir: the data folder; default ``paths.user_data_dir()``.
        when: the month folder's date (UTC now by default).

    Returns:
        The relative path and the SHA-256 of the file.

    Raises:
        AudioInputError: the clip holds NaN or infinite samples.
        StorageUnavailableError: the disk is full or read-only.
    """
    base = Path(data_dir) if data_dir is not None else user_data_dir()
    stamp = (when or datetime.now(UTC)).astimezone(UTC)
    relative = PurePosixPath(
        RECORDINGS_DIR, str(int(patient_id)), f"{stamp:%Y-%m}", f"{uuid.uuid4().hex}.wav"
    )
    data = _wav_bytes(clip)
    target = base.joinpath(*relative.parts)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        write_bytes_atomic(target, data)
    except OSError as exc:
        translated = translate_os_error(exc, f"writing recording {relative}")
        if translated is exc:
            raise
        raise translated from exc
    digest = hashlib.sha256(data).hexdigest()
    _LOGGER.debug("saved recording %s (%d bytes)", relative, len(data))
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
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def remove_recording(relative_path: str, data_dir: Path | None = None) -> None:
    """Delete a recording whose database row was never written (best effort)."""
    try:
        recording_file(relative_path, data_dir).unlink(missing_ok=True)
    except OSError:
        _LOGGER.warning("could not remove orphan recording %s", relative_path, exc_info=True)
