"""The practice state machine's transition table: every legal move, illegal ones refused."""

from __future__ import annotations

import logging
from collections import deque
from types import SimpleNamespace

import pytest
from practice_fixtures import HeldInference

from therapy_app.errors import AudioInputError
from therapy_app.practice.events import ExerciseKind, Feedback, State, StateChanged
from therapy_app.practice.flow import Parts, PracticeFlow
from therapy_app.practice.machine import (
    TRANSITIONS,
    IllegalTransition,
    PracticeMachine,
    Trigger,
)
from therapy_app.practice.scheduling import InlineScheduler
from therapy_app.practice.tries import Verdict

S, T = State, Trigger

# The specification, written out: (from, trigger, to). The table must be exactly this.
LEGAL = {
    (S.IDLE, T.SPEAK, S.SPEAKING),
    (S.IDLE, T.RECORD, S.RECORDING),
    (S.IDLE, T.REST, S.IDLE),
    (S.SPEAKING, T.SPEAK, S.SPEAKING),
    (S.SPEAKING, T.AWAIT_TRY, S.AWAITING_REPETITION),
    (S.SPEAKING, T.RECORD, S.RECORDING),
    (S.SPEAKING, T.SHOW_VERDICT, S.FEEDBACK),
    (S.SPEAKING, T.OFFER_PROPOSALS, S.REVIEWING),
    (S.SPEAKING, T.REST, S.IDLE),
    (S.AWAITING_REPETITION, T.SPEAK, S.SPEAKING),
    (S.AWAITING_REPETITION, T.AWAIT_TRY, S.AWAITING_REPETITION),
    (S.AWAITING_REPETITION, T.RECORD, S.RECORDING),
    (S.AWAITING_REPETITION, T.REST, S.IDLE),
    (S.RECORDING, T.RECOGNISE, S.RECOGNISING),
    (S.RECORDING, T.AWAIT_TRY, S.AWAITING_REPETITION),
    (S.RECORDING, T.REST, S.IDLE),
    (S.RECOGNISING, T.SCORE, S.SCORING),
    (S.RECOGNISING, T.CORRECT, S.CORRECTING),
    (S.RECOGNISING, T.AWAIT_TRY, S.AWAITING_REPETITION),
    (S.RECOGNISING, T.REST, S.IDLE),
    (S.SCORING, T.SHOW_VERDICT, S.FEEDBACK),
    (S.SCORING, T.AWAIT_TRY, S.AWAITING_REPETITION),
    (S.FEEDBACK, T.SPEAK, S.SPEAKING),
    (S.FEEDBACK, T.AWAIT_TRY, S.AWAITING_REPETITION),
    (S.FEEDBACK, T.RECORD, S.RECORDING),
    (S.FEEDBACK, T.REST, S.IDLE),
    (S.CORRECTING, T.OFFER_PROPOSALS, S.REVIEWING),
    (S.CORRECTING, T.REST, S.IDLE),
    (S.REVIEWING, T.SPEAK, S.SPEAKING),
    (S.REVIEWING, T.RECORD, S.RECORDING),
    (S.REVIEWING, T.REST, S.IDLE),
} | {(state, T.END, S.IDLE) for state in S}  # the patient may leave from anywhere

ILLEGAL = sorted({(state, trigger) for state in S for trigger in T} - {(a, t) for a, t, _ in LEGAL})


def _machine(strict: bool = True) -> tuple[PracticeMachine, list[object]]:
    machine = PracticeMachine(ExerciseKind.REPETITION, InlineScheduler(), strict=strict)
    events: list[object] = []
    machine.subscribe(events.append)
    return machine, events


def _path_to(state: State) -> list[Trigger]:
    """The shortest triggers from IDLE to ``state`` through the table."""
    seen: dict[State, list[Trigger]] = {S.IDLE: []}
    queue = deque([S.IDLE])
    while queue:
        current = queue.popleft()
        for trigger, target in TRANSITIONS[current].items():
            if target not in seen:
                seen[target] = [*seen[current], trigger]
                queue.append(target)
    return seen[state]


def _at(state: State, strict: bool = True) -> tuple[PracticeMachine, list[object]]:
    machine, events = _machine(strict)
    for trigger in _path_to(state):
        machine.move(trigger)
    assert machine.state is state
    events.clear()
    return machine, events


def test_the_table_is_the_specification() -> None:
    table = {(a, t, b) for a, moves in TRANSITIONS.items() for t, b in moves.items()}
    assert table == LEGAL


@pytest.mark.parametrize(("start", "trigger", "target"), sorted(LEGAL))
def test_every_legal_transition_is_taken_and_reported(
    start: State, trigger: Trigger, target: State
) -> None:
    machine, events = _at(start)
    assert machine.move(trigger) is target
    assert machine.state is target
    # A move to where the machine already is reports nothing.
    expected = [] if target is start else [StateChanged(target, start)]
    assert events == expected


@pytest.mark.parametrize(("start", "trigger"), ILLEGAL)
def test_an_illegal_transition_is_refused_in_tests(start: State, trigger: Trigger) -> None:
    machine, events = _at(start)
    with pytest.raises(IllegalTransition, match=f"from '{start.value}' on '{trigger.value}'"):
        machine.move(trigger)
    assert machine.state is start and not events


def test_an_illegal_transition_is_logged_and_the_patient_goes_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    machine, events = _at(S.SCORING, strict=False)
    with caplog.at_level(logging.ERROR, logger="therapy_app.practice.machine"):
        machine.move(T.RECORD)  # a bug, but the session must not stop there
    assert machine.state is S.RECORDING
    assert events == [StateChanged(S.RECORDING, S.SCORING)]
    assert "illegal transition" in caplog.text and "'scoring' on 'record'" in caplog.text


def test_strict_under_pytest_by_default() -> None:
    assert PracticeMachine(ExerciseKind.NAMING, InlineScheduler()).strict


def test_every_state_is_reached_from_idle() -> None:
    for state in S:
        _at(state)


def test_a_try_that_misses_goes_through_a_real_feedback_then_its_next_cue() -> None:
    machine, events = _machine()
    path = [
        (T.SPEAK, S.SPEAKING),  # the item's cue
        (T.AWAIT_TRY, S.AWAITING_REPETITION),
        (T.RECORD, S.RECORDING),
        (T.RECOGNISE, S.RECOGNISING),  # end of speech
        (T.SCORE, S.SCORING),  # heard
        (T.SHOW_VERDICT, S.FEEDBACK),  # judged, stored, reported
        (T.SPEAK, S.SPEAKING),  # the next cue
        (T.AWAIT_TRY, S.AWAITING_REPETITION),
    ]
    for trigger, state in path:
        assert machine.move(trigger) is state
    assert [e.state for e in events if isinstance(e, StateChanged)] == [s for _, s in path]


def test_nothing_is_said_or_recorded_while_the_engines_work() -> None:
    for state in (S.RECORDING, *(s for s in S if s.busy)):
        assert T.SPEAK not in TRANSITIONS[state]
        assert T.RECORD not in TRANSITIONS[state]


def test_a_verdict_is_stored_before_the_state_moves() -> None:
    """Even when the move to FEEDBACK is a bug, the recording is already queued for storage."""
    machine, _ = _at(S.RECOGNISING)  # SHOW_VERDICT is illegal from here
    saved: list[object] = []
    store = SimpleNamespace(save=lambda build, clip: saved.append(clip))
    parts = Parts(machine, store, *[SimpleNamespace()] * 6)  # type: ignore[arg-type]
    flow = PracticeFlow(ExerciseKind.REPETITION, SimpleNamespace(), SimpleNamespace(), parts)  # type: ignore[arg-type]
    clip = object()
    outcome = SimpleNamespace(analysis=SimpleNamespace(clip=clip))
    feedback = Feedback(True, 3, "Bravo !", "bonjour", "Bonjour.", 0.0, True)
    with pytest.raises(IllegalTransition):
        flow._judged(Verdict(outcome, feedback, None))  # type: ignore[arg-type]  # noqa: SLF001
    assert saved == [clip]


def test_leaving_drops_every_job_but_the_hearing_of_what_the_patient_said() -> None:
    jobs = HeldInference()
    machine = PracticeMachine(ExerciseKind.REPETITION, jobs)
    delivered: list[str] = []
    machine.submit(lambda: "cue said", on_done=delivered.append)
    machine.submit(lambda: "try heard", on_done=delivered.append, outlives_end=True)
    machine.drop_jobs()
    jobs.run_all()
    assert delivered == ["try heard"]


def test_the_machine_is_finishing_until_what_was_said_before_leaving_is_heard() -> None:
    jobs = HeldInference()
    machine = PracticeMachine(ExerciseKind.REPETITION, jobs)
    scored: list[str] = []

    def heard(text: str) -> None:  # the hearing submits the scoring, as a try does
        machine.submit(lambda: f"{text}: scored", on_done=scored.append, outlives_end=True)

    machine.submit(lambda: "try heard", on_done=heard, outlives_end=True)
    assert not machine.finishing  # still in the exercise: nothing to finish yet
    machine.drop_jobs()
    assert machine.finishing
    jobs.run_next()  # heard: its scoring is under way
    assert machine.finishing and jobs.waiting
    jobs.run_next()
    assert scored == ["try heard: scored"] and not machine.finishing


def test_a_failed_hearing_after_leaving_ends_the_finishing() -> None:
    jobs = HeldInference()
    machine = PracticeMachine(ExerciseKind.REPETITION, jobs)

    def unreadable() -> None:
        raise AudioInputError("corrupt clip")

    delivered: list[object] = []
    machine.submit(unreadable, on_done=delivered.append, outlives_end=True)
    machine.submit(lambda: "cue said", on_done=delivered.append)  # dropped: not waited for
    machine.drop_jobs()
    assert machine.finishing
    jobs.run_next()  # its error is logged
    assert not machine.finishing and not delivered


def test_a_hearing_failing_after_leaving_is_logged_not_reported(
    caplog: pytest.LogCaptureFixture,
) -> None:
    jobs = HeldInference()
    machine = PracticeMachine(ExerciseKind.REPETITION, jobs)
    events: list[object] = []
    machine.subscribe(events.append)
    recovered: list[bool] = []
    machine.recover_with(lambda: recovered.append(True))

    def unreadable() -> None:
        raise AudioInputError("corrupt clip")

    machine.submit(unreadable, on_done=events.append, outlives_end=True)
    machine.drop_jobs()
    with caplog.at_level(logging.ERROR, logger="therapy_app.practice.machine"):
        jobs.run_all()
    assert not events and not recovered  # the patient has left: nobody to tell
    assert "could not be heard" in caplog.text and "corrupt clip" in caplog.text
