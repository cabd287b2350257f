"""The exercise's state machine: its state, its observers, and jobs dropped when it ends."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from therapy_app.practice.events import (
    ErrorOccurred,
    ExerciseKind,
    Notice,
    PracticeEvent,
    State,
    StateChanged,
    french_message,
)
from therapy_app.practice.scheduling import Scheduler

_LOGGER = logging.getLogger(__name__)


class PracticeMachine:
    """State, events and scheduling shared by the parts of one exercise session.

    Args:
        kind: which exercise (for logs).
        scheduler: runs slow steps (the GUI's TaskRunner, or ``InlineScheduler``).
    """

    def __init__(self, kind: ExerciseKind, scheduler: Scheduler) -> None:
        self.kind = kind
        self._scheduler = scheduler
        self._listeners: list[Callable[[PracticeEvent], None]] = []
        self._state = State.IDLE
        # Where a step that failed or heard nothing leaves the patient.
        self.rest_state = State.IDLE
        self._epoch = 0  # bumped when the session ends: late results are dropped
        self._on_failure: list[Callable[[], None]] = []

    # ----- observation -----------------------------------------------------------
    def subscribe(self, listener: Callable[[PracticeEvent], None]) -> None:
        """Call ``listener(event)`` for every event, on the controller's thread."""
        self._listeners.append(listener)

    def unsubscribe(self, listener: Callable[[PracticeEvent], None]) -> None:
        """Stop calling ``listener`` (a closed screen must not receive late events)."""
        if listener in self._listeners:
            self._listeners.remove(listener)

    def emit(self, event: PracticeEvent) -> None:
        """Report ``event`` to every observer."""
        for listener in list(self._listeners):
            listener(event)

    @property
    def state(self) -> State:
        """Current state."""
        return self._state

    def set_state(self, state: State) -> None:
        """Move to ``state`` and report it (nothing when already there)."""
        if state is self._state:
            return
        previous, self._state = self._state, state
        _LOGGER.debug("%s: %s -> %s", self.kind.value, previous.value, state.value)
        self.emit(StateChanged(state, previous))

    @property
    def waiting_for_engines(self) -> bool:
        """True while recording or while the engines work: intents are refused then."""
        return self._state.busy or self._state is State.RECORDING

    def rest(self, message: str | None = None) -> None:
        """Say ``message`` (if any) and go back to the rest state."""
        if message:
            self.emit(Notice(message))
        self.set_state(self.rest_state)

    # ----- jobs --------------------------------------------------------------------
    def submit(
        self,
        fn: Callable[..., Any],
        *args: Any,
        on_done: Callable[[Any], None],
        pool: str = "inference",
        on_error: Callable[[BaseException], None] | None = None,
    ) -> None:
        """Run ``fn(*args)`` on ``pool``; results arriving after :meth:`drop_jobs` are ignored.

        Errors go to ``on_error``, else to :meth:`fail`.
        """
        epoch = self._epoch

        def done(result: Any) -> None:
            if epoch == self._epoch:
                on_done(result)

        def failed(exc: BaseException) -> None:
            if epoch == self._epoch:
                (on_error or self.fail)(exc)

        self._scheduler.submit(fn, *args, on_done=done, on_error=failed, pool=pool)

    def drop_jobs(self) -> None:
        """Ignore the results of every job submitted so far (the session ends)."""
        self._epoch += 1

    def on_failure(self, cleanup: Callable[[], None]) -> None:
        """Call ``cleanup()`` whenever a step fails, before the error is reported."""
        self._on_failure.append(cleanup)

    def fail(self, exc: BaseException) -> None:
        """A step failed: tell the patient in French and go back to the rest state."""
        _LOGGER.warning("practice step failed: %r", exc)
        for cleanup in self._on_failure:
            cleanup()
        self.emit(ErrorOccurred(french_message(exc), exc))
        self.set_state(self.rest_state)
