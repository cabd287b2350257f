"""The exercise's state machine: transition table, state, observers, jobs dropped at its end."""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Callable, Mapping
from enum import StrEnum
from typing import Any

from therapy_app.practice.events import (
    ErrorOccurred,
    ExerciseKind,
    PracticeEvent,
    State,
    StateChanged,
    french_message,
)
from therapy_app.practice.scheduling import Scheduler

_LOGGER = logging.getLogger(__name__)


class Trigger(StrEnum):
    """What the controller decided, from an intent or a part's outcome: the table's input."""

    SPEAK = "speak"
    """The voice starts: a cue, a proposal read out, an announcement, a partner's line."""
    AWAIT_TRY = "await_try"
    """The patient's turn at the item: its cue was said, or a try heard nothing or failed."""
    RECORD = "record"
    """The microphone is open."""
    RECOGNISE = "recognise"
    """The recording ended with speech in it: it is heard."""
    SCORE = "score"
    """A try at the item was heard: it is judged."""
    SHOW_VERDICT = "show_verdict"
    """The verdict is reported (again after its cue was said once more)."""
    CORRECT = "correct"
    """A free-speech utterance was heard: sentences are sought for it."""
    OFFER_PROPOSALS = "offer_proposals"
    """The sentences are offered (again after one was read out)."""
    REST = "rest"
    """Nothing to try: free speech waits for an utterance, a list or a dialogue
    ended, the dialogues are offered, an utterance was not heard."""
    END = "end"
    """The patient leaves the exercise."""


_S = State
_T = Trigger

TRANSITIONS: Mapping[State, Mapping[Trigger, State]] = {
    _S.IDLE: {
        _T.SPEAK: _S.SPEAKING,
        _T.RECORD: _S.RECORDING,
        _T.REST: _S.IDLE,
        _T.END: _S.IDLE,
    },
    _S.SPEAKING: {
        _T.SPEAK: _S.SPEAKING,  # another cue or line at once: the voice goes on
        _T.AWAIT_TRY: _S.AWAITING_REPETITION,
        _T.RECORD: _S.RECORDING,  # the patient does not wait for the end of the cue
        _T.SHOW_VERDICT: _S.FEEDBACK,
        _T.OFFER_PROPOSALS: _S.REVIEWING,
        _T.REST: _S.IDLE,
        _T.END: _S.IDLE,
    },
    _S.AWAITING_REPETITION: {
        _T.SPEAK: _S.SPEAKING,
        _T.AWAIT_TRY: _S.AWAITING_REPETITION,  # the microphone could not be opened
        _T.RECORD: _S.RECORDING,
        _T.REST: _S.IDLE,
        _T.END: _S.IDLE,
    },
    _S.RECORDING: {
        _T.RECOGNISE: _S.RECOGNISING,
        _T.AWAIT_TRY: _S.AWAITING_REPETITION,
        _T.REST: _S.IDLE,
        _T.END: _S.IDLE,
    },
    _S.RECOGNISING: {
        _T.SCORE: _S.SCORING,
        _T.CORRECT: _S.CORRECTING,
        _T.AWAIT_TRY: _S.AWAITING_REPETITION,
        _T.REST: _S.IDLE,
        _T.END: _S.IDLE,
    },
    _S.SCORING: {
        _T.SHOW_VERDICT: _S.FEEDBACK,
        _T.AWAIT_TRY: _S.AWAITING_REPETITION,
        _T.END: _S.IDLE,
    },
    _S.FEEDBACK: {
        _T.SPEAK: _S.SPEAKING,
        _T.AWAIT_TRY: _S.AWAITING_REPETITION,  # "recommencer", the microphone not opened
        _T.RECORD: _S.RECORDING,
        _T.REST: _S.IDLE,
        _T.END: _S.IDLE,
    },
    _S.CORRECTING: {
        _T.OFFER_PROPOSALS: _S.REVIEWING,
        _T.REST: _S.IDLE,
        _T.END: _S.IDLE,
    },
    _S.REVIEWING: {
        _T.SPEAK: _S.SPEAKING,
        _T.RECORD: _S.RECORDING,  # another utterance instead of a proposal
        _T.REST: _S.IDLE,
        _T.END: _S.IDLE,
    },
}
"""state × trigger → next state; a pair that is not here is an illegal transition."""

TARGETS: Mapping[Trigger, State] = {
    trigger: target for moves in TRANSITIONS.values() for trigger, target in moves.items()
}
"""Where each trigger leads (one state per trigger, whatever the state it leaves)."""


class IllegalTransition(RuntimeError):
    """The controller asked for a move the transition table does not have (a bug)."""

    def __init__(self, state: State, trigger: Trigger) -> None:
        legal = ", ".join(t.value for t in TRANSITIONS[state])
        super().__init__(
            f"no transition from {state.value!r} on {trigger.value!r} (legal: {legal})"
        )
        self.state = state
        self.trigger = trigger


def next_state(state: State, trigger: Trigger) -> State:
    """The state ``trigger`` leads to from ``state``.

    Raises:
        IllegalTransition: the table has no such move.
    """
    target = TRANSITIONS[state].get(trigger)
    if target is None:
        raise IllegalTransition(state, trigger)
    return target


def strict_by_default() -> bool:
    """Whether an illegal transition raises: under pytest or ``python -X dev``.

    A patient's session only logs it and goes on: stopping there would leave
    the patient stuck, and the try already recorded is stored before any move.
    """
    return sys.flags.dev_mode or "PYTEST_CURRENT_TEST" in os.environ


class PracticeMachine:
    """State, events and scheduling shared by the parts of one exercise session.

    Only the controller moves it (:meth:`move`); the parts read the state,
    report events and run jobs.

    Args:
        kind: which exercise (for logs).
        scheduler: runs slow steps (the GUI's TaskRunner, or ``InlineScheduler``).
        strict: raise :class:`IllegalTransition` (else log it and make the
            move); None: :func:`strict_by_default`.
    """

    def __init__(
        self,
        kind: ExerciseKind,
        scheduler: Scheduler,
        strict: bool | None = None,
    ) -> None:
        self.kind = kind
        self.strict = strict_by_default() if strict is None else strict
        self._scheduler = scheduler
        self._recover: Callable[[], None] = lambda: None
        self._listeners: list[Callable[[PracticeEvent], None]] = []
        self._state = State.IDLE
        self._epoch = 0  # bumped when the session ends: late results are dropped
        self._outliving = 0  # jobs submitted with ``outlives_end`` whose result is not in
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

    def move(self, trigger: Trigger) -> State:
        """Take the table's transition for ``trigger`` and report it (nothing when it stays).

        Raises:
            IllegalTransition: the table has no such move and the machine is
                strict; otherwise the error is logged and the move made.
        """
        previous = self._state
        try:
            state = next_state(previous, trigger)
        except IllegalTransition:
            _LOGGER.error("%s: illegal transition", self.kind.value, exc_info=True)
            if self.strict:
                raise
            state = TARGETS[trigger]
        if state is not previous:
            self._state = state
            _LOGGER.debug("%s: %s -> %s", self.kind.value, previous.value, state.value)
            self.emit(StateChanged(state, previous))
        return state

    @property
    def waiting_for_engines(self) -> bool:
        """True while recording or while the engines work: intents are refused then."""
        return self._state.busy or self._state is State.RECORDING

    # ----- jobs --------------------------------------------------------------------
    def submit(
        self,
        fn: Callable[..., Any],
        *args: Any,
        on_done: Callable[[Any], None],
        pool: str = "inference",
        on_error: Callable[[BaseException], None] | None = None,
        outlives_end: bool = False,
    ) -> None:
        """Run ``fn(*args)`` on ``pool``; results arriving after :meth:`drop_jobs` are ignored.

        Errors go to ``on_error``, else to :meth:`fail`.

        Args:
            fn: the job.
            args: its arguments.
            on_done: receives its result.
            pool: "inference" or "db".
            on_error: receives its error (None: :meth:`fail`).
            outlives_end: the job hears or scores what the patient said: its
                result still comes after :meth:`drop_jobs`, to be stored. Its
                error then is only logged: the patient has left.
        """
        epoch = self._epoch
        self._outliving += outlives_end

        def done(result: Any) -> None:
            try:
                if epoch == self._epoch or outlives_end:
                    on_done(result)
            finally:
                # After ``on_done``: the job it submits next is counted first.
                self._outliving -= outlives_end

        def failed(exc: BaseException) -> None:
            try:
                if epoch == self._epoch:
                    (on_error or self.fail)(exc)
                elif outlives_end:
                    _LOGGER.error(
                        "%s: what the patient said before leaving could not be heard",
                        self.kind.value,
                        exc_info=exc,
                    )
            finally:
                self._outliving -= outlives_end

        self._scheduler.submit(fn, *args, on_done=done, on_error=failed, pool=pool)

    @property
    def finishing(self) -> bool:
        """True after :meth:`drop_jobs` while a job submitted with ``outlives_end`` runs.

        Its result (what the patient said before leaving) is still to be
        stored: the caller keeps the scheduler running until this is False.
        """
        return self._epoch > 0 and self._outliving > 0

    def drop_jobs(self) -> None:
        """Ignore the results of every job submitted so far (the session ends).

        Those submitted with ``outlives_end`` still deliver theirs.
        """
        self._epoch += 1

    def on_failure(self, cleanup: Callable[[], None]) -> None:
        """Call ``cleanup()`` whenever a step fails, before the error is reported."""
        self._on_failure.append(cleanup)

    def recover_with(self, recover: Callable[[], None]) -> None:
        """Call ``recover()`` after a failure is reported: the controller chooses the next state."""
        self._recover = recover

    def report(self, exc: BaseException) -> None:
        """A step failed: clean up and tell the patient in French (the state stays)."""
        _LOGGER.warning("practice step failed: %r", exc)
        for cleanup in self._on_failure:
            cleanup()
        self.emit(ErrorOccurred(french_message(exc), exc))

    def fail(self, exc: BaseException) -> None:
        """A step failed: report it, then let the controller choose where the patient goes on."""
        self.report(exc)
        self._recover()
