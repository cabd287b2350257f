"""Writes the on-disk queue (``storage.pending``) into the database, each entry exactly once."""

from __future__ import annotations

import logging
import sqlite3
from dataclasses import dataclass, replace
from pathlib import Path

from sqlite_utils import Database

from therapy_app.storage import pending
from therapy_app.storage.attempt_writes import insert_attempt
from therapy_app.storage.database import fetch_all, transaction
from therapy_app.storage.row_codec import to_db_time

_LOGGER = logging.getLogger(__name__)


@dataclass(frozen=True)
class ReplayReport:
    """What one replay did.

    Attributes:
        written: queued attempts now in the database.
        remaining: attempt journals still waiting (locked again, or unusable).
    """

    written: int
    remaining: int


def session_id_for(db: Database, session_uuid: str) -> int | None:
    """The id of the session with this ``client_uuid``, if its row exists."""
    found = fetch_all(db, "SELECT id FROM sessions WHERE client_uuid = ?", (session_uuid,))
    return int(found[0][0]) if found else None


def _replay_session(db: Database, session: pending.QueuedSession) -> None:
    with transaction(db, "replaying a queued session"):
        session_id = session_id_for(db, session.uuid)
        if session_id is None and not session.end_only:
            session_id = db.execute(
                "INSERT INTO sessions (patient_id, exercise_kind, exercise_id, started_at,"
                " client_uuid) VALUES (?, ?, ?, ?, ?)",
                (
                    session.patient_id,
                    session.exercise_kind,
                    session.exercise_id,
                    to_db_time(session.started_at),  # type: ignore[arg-type]
                    session.uuid,
                ),
            ).lastrowid
        if session_id is not None and session.ended_at is not None:
            db.execute(
                "UPDATE sessions SET ended_at = COALESCE(ended_at, ?) WHERE id = ?",
                (to_db_time(session.ended_at), session_id),
            )


def _replay_attempt(db: Database, attempt: pending.QueuedAttempt) -> bool:
    """Insert one queued attempt unless it is in already; False when its session is unknown."""
    with transaction(db, "replaying a queued attempt"):
        if fetch_all(db, "SELECT 1 FROM attempts WHERE client_uuid = ?", (attempt.uuid,)):
            return True  # committed by a replay that died before removing the file
        session_id = (
            session_id_for(db, attempt.session_uuid)
            if attempt.session_uuid is not None
            else attempt.record.session_id
        )
        if session_id is None:
            return False
        record = replace(attempt.record, session_id=session_id)
        insert_attempt(db, record, attempt.created_at, attempt.uuid)
    return True


def replay(db: Database, data_dir: Path) -> ReplayReport:
    """Write every queued session and attempt, oldest first; remove each journal once committed.

    Stops at the first environment failure (the database is locked again:
    the rest waits for the next replay). An entry that cannot be written for
    another reason (its session or patient is gone) is logged and kept.

    Raises:
        StorageError: the database is locked, full or read-only.
    """
    for path, session in pending.queued_sessions(data_dir):
        try:
            _replay_session(db, session)
        except sqlite3.IntegrityError:
            _LOGGER.exception("queued session %s cannot be written; kept", path.name)
            continue
        pending.remove(path)
    written = 0
    for path, attempt in pending.queued_attempts(data_dir):
        try:
            done = _replay_attempt(db, attempt)
        except sqlite3.IntegrityError:
            _LOGGER.exception("queued attempt %s cannot be written; kept", path.name)
            continue
        if not done:
            _LOGGER.error("queued attempt %s: its session is not in the database", path.name)
            continue
        pending.remove(path)
        written += 1
    remaining = pending.queued_count(data_dir)
    if written or remaining:
        _LOGGER.info("replayed %d queued attempt(s), %d still waiting", written, remaining)
    return ReplayReport(written=written, remaining=remaining)
