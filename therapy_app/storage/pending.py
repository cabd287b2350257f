"""A durable on-disk queue for what could not be written while the database was locked.

Another program (a backup tool, a second copy of the app, an antivirus) can
hold the SQLite write lock longer than the busy timeout. The attempt must not
be thrown away then: its recording is already on disk, and
a small JSON journal file is written beside the others in
``<data dir>/pending/``, atomically (temporary file, fsync, rename, fsync of
the folder), 0600. The queue is replayed when the database is free again and
at every start-up; each journal carries a UUID stored in the row's
``client_uuid`` (unique), so a replay interrupted between the commit and the
removal of the file writes nothing twice.

Files: ``session-<uuid>.json`` (a session that could not be started, or its
end time), ``attempt-<uuid>.json`` (one attempt, with its session's id or
UUID).
"""

from __future__ import annotations

import json
import logging
import time
import uuid
from dataclasses import asdict, dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from therapy_app import atomic
from therapy_app.domain.attempt_record import AttemptRecord, Candidate, StepTimings
from therapy_app.paths import ensure_private_dir
from therapy_app.storage.row_codec import from_db_time, to_db_time

_LOGGER = logging.getLogger(__name__)

PENDING_DIR = "pending"
FORMAT = 1


def new_uuid() -> str:
    """A fresh random id for a session or an attempt."""
    return uuid.uuid4().hex


def pending_dir(data_dir: Path) -> Path:
    """The queue folder (not created)."""
    return data_dir / PENDING_DIR


def write_json_atomically(path: Path, content: dict[str, Any]) -> None:
    """Write ``content`` to ``path`` so that it is either absent, old, or complete.

    Raises:
        OSError: the folder cannot be written (disk full, read-only).
    """
    ensure_private_dir(path.parent)
    data = json.dumps(content, ensure_ascii=False, sort_keys=True).encode("utf-8")
    atomic.write_bytes(path, data)  # a 0600 temporary file, fsync, rename, fsync of the folder


def record_to_json(record: AttemptRecord) -> dict[str, Any]:
    """An AttemptRecord as plain JSON values (times as UTC ISO text)."""
    out = asdict(record)
    out["created_at"] = to_db_time(record.created_at) if record.created_at else None
    return out


def record_from_json(data: dict[str, Any]) -> AttemptRecord:
    """Inverse of :func:`record_to_json`."""
    fields = dict(data)
    fields["correction_alternatives"] = [
        Candidate(**c) for c in fields.get("correction_alternatives") or []
    ]
    timings = fields.get("timings")
    fields["timings"] = StepTimings(**timings) if timings is not None else None
    fields["created_at"] = from_db_time(fields.get("created_at"))
    return AttemptRecord(**fields)


@dataclass(frozen=True)
class QueuedSession:
    """A session whose row is not in the database yet (or whose end is not).

    Attributes:
        uuid: its ``client_uuid``.
        patient_id: who practises (None for an end-only entry).
        exercise_kind: the exercise (None for an end-only entry).
        exercise_id: the catalogue exercise, if any.
        started_at: when it started (None for an end-only entry).
        ended_at: when it ended, once known.
    """

    uuid: str
    patient_id: int | None
    exercise_kind: str | None
    exercise_id: int | None
    started_at: datetime | None
    ended_at: datetime | None = None

    @property
    def end_only(self) -> bool:
        """Only the end time is queued: the row exists already."""
        return self.started_at is None


@dataclass(frozen=True)
class QueuedAttempt:
    """An attempt waiting for the database.

    Attributes:
        uuid: its ``client_uuid``.
        record: the complete record, its recording already on disk
            (``record.session_id`` is 0 while only ``session_uuid`` is known).
        created_at: when it was made.
        session_uuid: the session's ``client_uuid``, when its id was not known.
        queued_ns: wall-clock nanoseconds when it was queued (keeps the order
            of attempts made within the same clock tick).
    """

    uuid: str
    record: AttemptRecord
    created_at: datetime
    session_uuid: str | None = None
    queued_ns: int = 0


def _session_file(data_dir: Path, session_uuid: str) -> Path:
    return pending_dir(data_dir) / f"session-{session_uuid}.json"


def _attempt_file(data_dir: Path, attempt_uuid: str) -> Path:
    return pending_dir(data_dir) / f"attempt-{attempt_uuid}.json"


def queue_session(data_dir: Path, session: QueuedSession) -> Path:
    """Write (or rewrite, with its end time) a session's journal.

    An end-only entry never replaces a queued start: the end time is merged in.

    Raises:
        OSError: it cannot be written.
    """
    path = _session_file(data_dir, session.uuid)
    if session.end_only:
        existing = read_session(path) if path.exists() else None
        if existing is not None:
            session = replace(existing, ended_at=session.ended_at)
    write_json_atomically(
        path,
        {
            "format": FORMAT,
            "uuid": session.uuid,
            "patient_id": session.patient_id,
            "exercise_kind": session.exercise_kind,
            "exercise_id": session.exercise_id,
            "started_at": to_db_time(session.started_at) if session.started_at else None,
            "ended_at": to_db_time(session.ended_at) if session.ended_at else None,
        },
    )
    return path


def queue_attempt(data_dir: Path, attempt: QueuedAttempt) -> Path:
    """Write an attempt's journal (its recording must already be on disk).

    Raises:
        OSError: it cannot be written.
    """
    path = _attempt_file(data_dir, attempt.uuid)
    write_json_atomically(
        path,
        {
            "format": FORMAT,
            "uuid": attempt.uuid,
            "session_uuid": attempt.session_uuid,
            "created_at": to_db_time(attempt.created_at),
            "queued_ns": attempt.queued_ns or time.time_ns(),
            "record": record_to_json(attempt.record),
        },
    )
    return path


def read_session(path: Path) -> QueuedSession | None:
    """A session journal, or None when it is unreadable (logged, file kept)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return QueuedSession(
            uuid=str(data["uuid"]),
            patient_id=data["patient_id"],
            exercise_kind=data["exercise_kind"],
            exercise_id=data.get("exercise_id"),
            started_at=from_db_time(data["started_at"]),
            ended_at=from_db_time(data.get("ended_at")),
        )
    except (OSError, ValueError, KeyError, TypeError):
        _LOGGER.exception("unreadable queued session %s", path)
        return None


def read_attempt(path: Path) -> QueuedAttempt | None:
    """An attempt journal, or None when it is unreadable (logged, file kept)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        created_at = from_db_time(data["created_at"])
        if created_at is None:
            raise ValueError("no created_at")
        return QueuedAttempt(
            uuid=str(data["uuid"]),
            record=record_from_json(data["record"]),
            created_at=created_at,
            session_uuid=data.get("session_uuid"),
            queued_ns=int(data.get("queued_ns") or 0),
        )
    except (OSError, ValueError, KeyError, TypeError):
        _LOGGER.exception("unreadable queued attempt %s", path)
        return None


def queued_sessions(data_dir: Path) -> list[tuple[Path, QueuedSession]]:
    """Readable session journals, oldest first."""
    folder = pending_dir(data_dir)
    if not folder.is_dir():
        return []
    found = [(p, read_session(p)) for p in sorted(folder.glob("session-*.json"))]
    ok = [(p, s) for p, s in found if s is not None]
    return sorted(ok, key=lambda item: (item[1].started_at is None, item[1].started_at or 0))


def queued_attempts(data_dir: Path) -> list[tuple[Path, QueuedAttempt]]:
    """Readable attempt journals, oldest first."""
    folder = pending_dir(data_dir)
    if not folder.is_dir():
        return []
    found = [(p, read_attempt(p)) for p in sorted(folder.glob("attempt-*.json"))]
    ok = [(p, a) for p, a in found if a is not None]
    return sorted(ok, key=lambda item: (item[1].created_at, item[1].queued_ns))


def queued_count(data_dir: Path) -> int:
    """Attempt journals waiting (readable or not)."""
    folder = pending_dir(data_dir)
    return len(list(folder.glob("attempt-*.json"))) if folder.is_dir() else 0


def queued_recordings(data_dir: Path) -> set[str]:
    """Recording paths that queued attempts refer to (not orphans)."""
    return {
        a.record.recording_path for _, a in queued_attempts(data_dir) if a.record.recording_path
    }


def remove(path: Path) -> None:
    """Delete a replayed journal (its row is committed)."""
    path.unlink(missing_ok=True)
    try:
        atomic.fsync_dir(path.parent)
    except OSError:
        _LOGGER.debug("cannot fsync %s", path.parent, exc_info=True)
