"""Opens the practice session and stores each finished attempt, in order, on the database worker."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from therapy_app.audio.clip import AudioClip
from therapy_app.domain.attempt_record import AttemptRecord
from therapy_app.practice.events import (
    AttemptSaved,
    ErrorOccurred,
    Notice,
    PracticeEvent,
    french_message,
)
from therapy_app.practice.scheduling import Scheduler
from therapy_app.storage.errors import StorageUnavailableError
from therapy_app.storage.pending import new_uuid
from therapy_app.storage.queue_store import SavedAttempt
from therapy_app.storage.repository import SessionRepository

_LOGGER = logging.getLogger(__name__)

SESSION_WAIT_S = 10.0
QUICK_WAIT_MS = 200
"""How long a save waits for the lock while earlier work is queued (then it queues too)."""

QUEUED_MESSAGE = (
    "Votre essai est bien gardé : il sera enregistré dès que possible. Rien n'est perdu."
)
"""Told to the patient when the database is busy and the attempt waits on disk."""


class SessionStore:
    """The database side of one exercise session.

    Every call queues a job on the scheduler's single database worker, so the
    session is created before any attempt is written and attempts commit in
    the order they were made. Saving never depends on the screen still being
    open: leaving an exercise must not lose the patient's last try.

    When the database is locked longer than its busy timeout (another program
    holds it), nothing is thrown away: the session and the
    attempts go to the repository's on-disk queue and are written when the
    database is free again (the next save, the end of the session, or the
    next start-up). While anything of this session waits, a save waits for
    the lock only :data:`QUICK_WAIT_MS`, so a failed start does not make
    every later save block for the full timeout.

    Args:
        repository: the data.
        patient_id: who practises.
        kind: the exercise kind (storage value).
        scheduler: runs the jobs ("db" pool).
        emit: receives :class:`AttemptSaved`, :class:`Notice` (queued) and
            :class:`ErrorOccurred`.
    """

    def __init__(
        self,
        repository: SessionRepository,
        patient_id: int,
        kind: str,
        scheduler: Scheduler,
        emit: Callable[[PracticeEvent], None],
    ) -> None:
        self._repository = repository
        self._patient_id = patient_id
        self._kind = kind
        self._scheduler = scheduler
        self._emit = emit
        self._ready = threading.Event()
        self._session_uuid = new_uuid()
        self._degraded = False  # something of this session waits in the queue
        self.session_id: int | None = None

    @property
    def session_uuid(self) -> str:
        """The session's ``client_uuid`` (known before its row exists)."""
        return self._session_uuid

    def open(self) -> None:
        """Start the session (database worker)."""
        self._scheduler.submit(self._start, pool="db", on_error=self._failed)

    def _start(self) -> int | None:
        try:
            session = self._repository.sessions.start(
                self._patient_id, self._kind, client_uuid=self._session_uuid
            )
        except StorageUnavailableError as exc:
            if self._repository.read_only:
                self._ready.set()
                raise
            _LOGGER.warning("session start queued: %s", exc.detail)
            try:
                self._repository.queue.queue_session(
                    self._patient_id, self._kind, self._session_uuid
                )
            finally:
                self._degraded = True
                self._ready.set()
            return None
        self.session_id = session.id  # set on the worker: later jobs there see it
        self._ready.set()
        return session.id

    def close(self) -> None:
        """End the session (after the attempts queued before).

        A try still being heard when the patient left is saved after it, in
        this session all the same.
        """
        self._scheduler.submit(self._end, pool="db", on_error=self._failed)

    def _end(self) -> None:
        self._catch_up()
        if self.session_id is None and not self._degraded:
            return
        self._repository.queue.end_session_or_queue(self.session_id, self._session_uuid)
        if self._degraded:
            self._repository.queue.replay_pending()

    def _catch_up(self) -> None:
        """Try the queue briefly; learn the session id once its row is written."""
        if not self._degraded:
            return
        report = self._repository.queue.replay_pending(wait_ms=QUICK_WAIT_MS)
        if self.session_id is None:
            self.session_id = self._repository.queue.session_id_for(self._session_uuid)
        if report.remaining == 0 and self.session_id is not None:
            self._degraded = False

    def save(self, build: Callable[[int], AttemptRecord], clip: AudioClip | None) -> None:
        """Store the record ``build(session_id)`` with its recording, or queue it.

        Args:
            build: makes the record once the session id is known (0 while
                the session itself waits in the queue).
            clip: the recording to store with it.
        """

        def job() -> tuple[SavedAttempt, bool | None]:
            # FIFO on one worker makes the session exist already; the wait
            # only guards a scheduler that would not be FIFO.
            self._ready.wait(SESSION_WAIT_S)
            self._catch_up()
            if self.session_id is None and not self._degraded:
                raise RuntimeError("no session to store the attempt in")
            record = build(self.session_id if self.session_id is not None else 0)
            saved = self._repository.queue.save_attempt(
                record,
                clip,
                session_uuid=self._session_uuid,
                patient_id=self._patient_id,
                # Earlier work waits: this one waits behind it, without blocking.
                queue_only=self._degraded,
            )
            if saved.queued:
                self._degraded = True
            return saved, record.success

        self._scheduler.submit(job, pool="db", on_done=self._saved, on_error=self._failed)

    def _saved(self, outcome: tuple[SavedAttempt, bool | None]) -> None:
        saved, success = outcome
        if saved.queued:
            self._emit(Notice(QUEUED_MESSAGE))
        else:
            self._emit(AttemptSaved(saved.attempt_id, success))  # type: ignore[arg-type]

    def _failed(self, exc: BaseException) -> None:
        _LOGGER.error("storing the practice failed: %r", exc)
        self._emit(ErrorOccurred(french_message(exc), exc))
