"""Saving that never throws an attempt away: now, or through the on-disk queue, replayed later."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, NamedTuple

from therapy_app.audio.clip import AudioClip
from therapy_app.domain.attempt_record import EXERCISE_KINDS, AttemptRecord
from therapy_app.storage import attempt_writes, database, pending
from therapy_app.storage.errors import StorageUnavailableError, translate_os_error
from therapy_app.storage.replay import ReplayReport, replay, session_id_for
from therapy_app.storage.store_base import Store

if TYPE_CHECKING:
    from therapy_app.storage.repository import SessionRepository

_LOGGER = logging.getLogger(__name__)


class SavedAttempt(NamedTuple):
    """Where :meth:`QueueStore.save_attempt` put an attempt.

    Attributes:
        attempt_id: its id, None while it waits in the on-disk queue.
        queued: True when the database was busy and it waits on disk.
    """

    attempt_id: int | None
    queued: bool


class QueueStore(Store):
    """Attempts and sessions saved now, or queued on disk while the database is locked."""

    def __init__(self, repository: SessionRepository) -> None:
        super().__init__(repository)
        self.replayed = ReplayReport(written=0, remaining=0)
        """What the last :meth:`replay_pending` did (at opening: the queue of earlier runs)."""

    def queue_session(
        self,
        patient_id: int,
        exercise_kind: str,
        client_uuid: str,
        *,
        exercise_id: int | None = None,
    ) -> pending.QueuedSession:
        """Record on disk a session that could not be started in the database.

        Its row is written by :meth:`replay_pending`, with ``client_uuid``;
        attempts saved meanwhile with ``session_uuid=client_uuid`` join it.

        Raises:
            StorageUnavailableError: the journal cannot be written either.
        """
        if exercise_kind not in EXERCISE_KINDS:
            raise ValueError(f"unknown exercise kind {exercise_kind!r}")
        self._repository.require_writable("queueing a session")
        session = pending.QueuedSession(
            client_uuid, patient_id, exercise_kind, exercise_id, self._repository.now()
        )
        self._write_journal(lambda: pending.queue_session(self._repository.data_dir, session))
        return session

    def end_session_or_queue(self, session_id: int | None, client_uuid: str) -> bool:
        """End a session now, or queue its end time when the database is busy.

        Returns:
            True when it was written now, False when queued.
        """
        if session_id is None:
            session_id = self.session_id_for(client_uuid)
        if session_id is not None:
            try:
                self._repository.sessions.end(session_id)
                return True
            except StorageUnavailableError as exc:
                if self._repository.read_only:
                    raise
                _LOGGER.warning("queueing the end of session %s: %s", session_id, exc.detail)
        end = pending.QueuedSession(client_uuid, None, None, None, None, self._repository.now())
        self._write_journal(lambda: pending.queue_session(self._repository.data_dir, end))
        return False

    def session_id_for(self, client_uuid: str) -> int | None:
        """The id of the session started (or replayed) with ``client_uuid``, if its row exists."""
        with self._repository.connection("finding a session") as db:
            return session_id_for(db, client_uuid)

    def save_attempt(
        self,
        record: AttemptRecord,
        clip: AudioClip | None = None,
        *,
        session_uuid: str | None = None,
        patient_id: int | None = None,
        queue_only: bool = False,
    ) -> SavedAttempt:
        """Store an attempt now, or queue it durably when the database is busy.

        The recording is written first (atomically). Then the row, unless
        ``queue_only`` (its session is itself queued: waiting for the lock
        again would only make the patient wait). When the database is locked
        past the busy timeout, a journal is written beside the recording
        (:mod:`therapy_app.storage.pending`) and replayed by
        :meth:`replay_pending`: nothing is lost.

        Args:
            record: the attempt; its ``session_id`` is ignored when
                ``session_uuid`` is given and the session has no row yet.
            clip: its recording.
            session_uuid: the session's ``client_uuid``.
            patient_id: the patient (needed with a queued session, for the
                recording's folder).
            queue_only: do not try the database now.

        Returns:
            The attempt id, or None and ``queued=True``.

        Raises:
            StorageUnavailableError: neither the database nor the queue could
                take it (disk full, read-only).
        """
        if record.kind not in EXERCISE_KINDS:
            raise ValueError(f"unknown exercise kind {record.kind!r}")
        self._repository.require_writable("saving an attempt")
        client_uuid = pending.new_uuid()
        created_at = record.created_at or self._repository.now()
        if not queue_only and session_uuid is not None:
            try:
                known = self.session_id_for(session_uuid)
            except StorageUnavailableError:
                known = None
            if known is None:
                queue_only = True
            else:
                record = replace(record, session_id=known)
        if patient_id is None:
            if queue_only:
                raise ValueError("patient_id is needed to queue an attempt")
            patient_id = self._repository.sessions.get(record.session_id).patient_id
        attempts = self._repository.attempts
        record, saved = attempts.attach_recording(record, clip, patient_id, created_at)
        if not queue_only:
            try:
                with self._repository.transaction("adding an attempt") as db:
                    attempt_id = attempt_writes.insert_attempt(db, record, created_at, client_uuid)
                return SavedAttempt(attempt_id, queued=False)
            except StorageUnavailableError as exc:
                # Locked past the busy timeout (or another failure of the
                # database alone): the recording is safe, the row waits on disk.
                _LOGGER.warning("database unavailable, queueing the attempt: %s", exc.detail)
            except BaseException:
                attempts.forget_recording(saved)
                raise
        queued = pending.QueuedAttempt(
            client_uuid, replace(record, created_at=created_at), created_at, session_uuid
        )
        try:
            self._write_journal(lambda: pending.queue_attempt(self._repository.data_dir, queued))
        except BaseException:
            attempts.forget_recording(saved)
            raise
        return SavedAttempt(None, queued=True)

    def _write_journal(self, write: Callable[[], object]) -> None:
        try:
            write()
        except OSError as exc:
            translated = translate_os_error(exc, "writing the queue")
            if translated is exc:
                raise
            raise translated from exc

    def replay_pending(self, *, wait_ms: int | None = None) -> ReplayReport:
        """Write the queued sessions and attempts into the database (best effort).

        Called at start-up, and by the practice after a save while anything
        waits. A database still locked leaves the rest queued.

        Args:
            wait_ms: how long to wait for the lock this time (default: the
                usual busy timeout); a short wait keeps the practice responsive.

        Returns:
            How many attempts were written and how many still wait.
        """
        data_dir = self._repository.data_dir
        if self._repository.read_only or not pending.pending_dir(data_dir).is_dir():
            return ReplayReport(written=0, remaining=pending.queued_count(data_dir))
        with self._repository.connection("replaying the queue") as db:
            conn = db.conn
            if wait_ms is not None:
                conn.execute(f"PRAGMA busy_timeout = {int(wait_ms)}")
            try:
                self.replayed = replay(db, data_dir)
            except StorageUnavailableError as exc:
                _LOGGER.warning("queue not replayed yet: %s", exc.detail)
                self.replayed = ReplayReport(written=0, remaining=pending.queued_count(data_dir))
            finally:
                if wait_ms is not None:
                    conn.execute(f"PRAGMA busy_timeout = {database.BUSY_TIMEOUT_MS}")
        return self.replayed

    def queued_attempt_count(self) -> int:
        """Attempts waiting in the on-disk queue."""
        return pending.queued_count(self._repository.data_dir)
