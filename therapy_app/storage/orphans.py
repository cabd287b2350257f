"""Recordings that no attempt refers to, with what their path and file tell about them."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath

from therapy_app.atomic import TEMP_SUFFIX
from therapy_app.storage.recording_files import RECORDINGS_DIR, recording_file
from therapy_app.storage.repository import SessionRepository

_MONTH = re.compile(r"[0-9]{4}-[0-9]{2}")
_NUMBER = re.compile(r"[0-9]{1,18}")  # ASCII digits only: "²".isdigit() but int("²") fails


@dataclass(frozen=True)
class OrphanRecording:
    """A finished recording file without an attempt, stored or queued.

    Attributes:
        relative_path: POSIX path under the data folder (as the database would store it).
        patient_folder: the number of the patient folder it lies in
            (``recordings/<n>/<yyyy-mm>/…``); None when the path does not follow
            that layout. After a restore it may be a patient of the previous
            data: the number is what the folder says, not a patient of today's list.
        month: the month folder (``"2025-03"``), None off the layout.
        written_at: when the file was last written (aware UTC), None when it
            cannot be read.
        path: the absolute path, for playing it.
    """

    relative_path: str
    patient_folder: int | None
    month: str | None
    written_at: datetime | None
    path: Path


def orphan_recordings(repository: SessionRepository) -> list[OrphanRecording]:
    """The recordings :meth:`MaintenanceStore.orphan_recordings` lists, described, sorted.

    Files still being written (hidden temporary names of a running copy of
    the app) are left out: they are not recordings yet. Nothing is deleted.
    Reads the database and walks the recordings folder: not on a UI thread.

    Args:
        repository: the open data.

    Returns:
        One entry per file, in path order.
    """
    data_dir = repository.data_dir
    return [
        _describe(relative, recording_file(relative, data_dir))
        for relative in repository.maintenance.orphan_recordings()
        if not PurePosixPath(relative).name.endswith(TEMP_SUFFIX)
    ]


def _describe(relative: str, path: Path) -> OrphanRecording:
    parts = PurePosixPath(relative).parts
    on_layout = (
        len(parts) == 4
        and parts[0] == RECORDINGS_DIR
        and _NUMBER.fullmatch(parts[1]) is not None
        and _MONTH.fullmatch(parts[2]) is not None
    )
    try:
        written_at: datetime | None = datetime.fromtimestamp(path.stat().st_mtime, UTC)
    except OSError:  # removed or unreadable since it was listed
        written_at = None
    return OrphanRecording(
        relative_path=relative,
        patient_folder=int(parts[1]) if on_layout else None,
        month=parts[2] if on_layout else None,
        written_at=written_at,
        path=path,
    )
