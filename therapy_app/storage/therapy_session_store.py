"""Therapy sessions: the exercise catalogue, opening and closing a patient's sittings."""

from __future__ import annotations

from datetime import datetime

from therapy_app.domain.attempt_record import EXERCISE_KINDS
from therapy_app.storage import row_codec
from therapy_app.storage.database import fetch_all, fetch_one
from therapy_app.storage.row_types import Exercise, TherapySession
from therapy_app.storage.store_base import Store


class TherapySessionStore(Store):
    """The ``sessions`` and ``exercises`` tables: one sitting of one exercise kind."""

    def exercises(self, kind: str | None = None) -> list[Exercise]:
        """The exercise catalogue, optionally of one kind."""
        with self._repository.connection("listing exercises") as db:
            if kind is None:
                found = fetch_all(db, "SELECT * FROM exercises ORDER BY level, id")
            else:
                found = fetch_all(
                    db, "SELECT * FROM exercises WHERE kind = ? ORDER BY level, id", (kind,)
                )
            return [row_codec.exercise_from_row(r) for r in found]

    def start(
        self,
        patient_id: int,
        exercise_kind: str,
        *,
        exercise_id: int | None = None,
        client_uuid: str | None = None,
        started_at: datetime | None = None,
    ) -> TherapySession:
        """Open a session (ended by :meth:`end`).

        Args:
            patient_id: who practises.
            exercise_kind: one of ``EXERCISE_KINDS``.
            exercise_id: the catalogue exercise, if any.
            client_uuid: the id the caller gave the session before its row
                existed (see :meth:`QueueStore.queue_session`).
            started_at: when it started (default now).
        """
        if exercise_kind not in EXERCISE_KINDS:
            raise ValueError(f"unknown exercise kind {exercise_kind!r}")
        when = started_at or self._repository.now()
        with self._repository.transaction("starting a session") as db:
            new_id = db.execute(
                "INSERT INTO sessions (patient_id, exercise_kind, exercise_id, started_at,"
                " client_uuid) VALUES (?, ?, ?, ?, ?)",
                (patient_id, exercise_kind, exercise_id, row_codec.to_db_time(when), client_uuid),
            ).lastrowid
        return self.get(int(new_id))  # type: ignore[arg-type]

    def end(self, session_id: int) -> TherapySession:
        """Close a session; closing it again keeps the first end time."""
        with self._repository.transaction("ending a session") as db:
            db.execute(
                "UPDATE sessions SET ended_at = COALESCE(ended_at, ?) WHERE id = ?",
                (row_codec.to_db_time(self._repository.now()), session_id),
            )
        return self.get(session_id)

    def get(self, session_id: int) -> TherapySession:
        """Raises KeyError for an unknown id."""
        with self._repository.connection("reading a session") as db:
            return row_codec.session_from_row(
                fetch_one(db, "SELECT * FROM sessions WHERE id = ?", (session_id,), "session")
            )

    def all(self, patient_id: int) -> list[TherapySession]:
        """The patient's sessions, oldest first."""
        with self._repository.connection("listing sessions") as db:
            return row_codec.readable_rows(
                db,
                "SELECT * FROM sessions WHERE patient_id = ? ORDER BY started_at, id",
                (patient_id,),
                row_codec.session_from_row,
                "session",
            )
