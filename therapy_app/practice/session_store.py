"""Opens the practice session and stores each finished attempt, in order, on the database worker."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from therapy_app.audio.clip import AudioClip
from therapy_app.practice.events import AttemptSaved, ErrorOccurred, PracticeEvent, french_message
from therapy_app.practice.scheduling import Scheduler
from therapy_app.storage.records import AttemptRecord
from therapy_app.storage.repository import SessionRepository

_LOGGER = logging.getLogger(__name__)

SESSION_WAIT_S = 10.0


class SessionStore:
    """The database side of one exercise session.

    Every call queues a job on the scheduler's single database worker, so the
    session is created before any attempt is written and attempts commit in
    the order they were made. Saving never depends on the screen still being
    open: leaving an exercise must not lose the patient's last try.

    Args:
        repository: the data.
        patient_id: who practises.
        kind: the exercise kind (storage value).
        scheduler: runs the jobs ("db" pool).
        emit: receives :class:`AttemptSaved` / :class:`ErrorOccurred`.
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
        self.session_id: int | None = None

    def open(self) -> None:
        """Start the session (database worker)."""
        self._scheduler.submit(self._start, pool="db", on_error=self._failed)

    def _start(self) -> int:
        session = self._repository.start_session(self._patient_id, self._kind)
        self.session_id = session.id  # set on the worker: later jobs there see it
        self._ready.set()
        return session.id

    def close(self) -> None:
        """End the session (after the attempts queued before)."""
        self._scheduler.submit(self._end, pool="db", on_error=self._failed)

    def _end(self) -> None:
        if self.session_id is not None:
            self._repository.end_session(self.session_id)

    def save(self, build: Callable[[int], AttemptRecord], clip: AudioClip | None) -> None:
        """Store the record ``build(session_id)`` with its recording.

        Args:
            build: makes the record once the session id is known.
            clip: the recording to store with it.
        """

        def job() -> tuple[int, bool | None]:
            # FIFO on one worker makes the session exist already; the wait
            # only guards a scheduler that would not be FIFO.
            self._ready.wait(SESSION_WAIT_S)
            if self.session_id is None:
                raise RuntimeError("no session to store the attempt in")
            record = build(self.session_id)
            return self._repository.add_attempt(record, clip), record.success

        self._scheduler.submit(
            job,
            pool="db",
            on_done=lambda saved: self._emit(AttemptSaved(saved[0], saved[1])),
            on_error=self._failed,
        )

    def _failed(self, exc: BaseException) -> None:
        _LOGGER.error("storing the practice failed: %r", exc)
        self._emit(ErrorOccurred(french_message(exc), exc))
