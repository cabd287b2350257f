"""Leaving an exercise while what the patient said is recorded or heard: stored, shown to nobody."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np
import pytest
from practice_fixtures import HeldInference, SpokenClips, clear_naming_bank, make_services

from therapy_app.audio.clip import SAMPLE_RATE, AudioClip
from therapy_app.naming.bank import NamingBank
from therapy_app.practice import naming_plan
from therapy_app.practice.controller import PracticeController
from therapy_app.practice.events import AttemptSaved, ExerciseKind, Heard, State, StateChanged
from therapy_app.speech import chain
from therapy_app.speech.services import SilentPlayer
from therapy_app.storage import Attempt, SessionRepository

pytestmark = pytest.mark.slow


class Session:
    """One exercise with real engines and storage; its inference jobs run when the test says.

    Args:
        kind: the exercise.
        repository: where it is stored.
        bank: the naming pictures (None: the bundled bank).
    """

    def __init__(
        self, kind: ExerciseKind, repository: SessionRepository, bank: NamingBank | None = None
    ) -> None:
        self.spoken = SpokenClips()
        self.services = make_services(self.spoken, SilentPlayer())
        self.jobs = HeldInference()
        self.repository = repository
        patient = repository.patients.create("Jeanne Martin")
        self.controller = PracticeController(
            kind, self.services, repository, patient.id, self.jobs, bank=bank
        )
        # A try is then heard once its recording ends, as when the patient ends
        # it with Space or no pause of theirs settled: the hearing takes a while.
        self.controller.early_verdicts = False
        self.events: list[object] = []
        self.finishing_when_left = False
        """``controller.finishing`` right after leaving (something to store was in flight)."""
        self.controller.subscribe(self.events.append)
        self.controller.begin()
        self.jobs.run_all()  # the first cue is said

    def record(self) -> None:
        """Space, then the recording ends: its hearing waits on the inference worker."""
        assert self.controller.start_recording()
        assert self.jobs.waiting == ["listen"]
        self.jobs.run_next()
        assert self.controller.state is State.RECOGNISING

    def leave(self, then: tuple[str, ...] = ()) -> list[object]:
        """Escape now, then let the engines finish; returns the events reported from then on.

        Args:
            then: the jobs expected after those in flight (a recording stopped
                by leaving is heard): nothing else, no cue, no correction.
        """
        left_at, ended = len(self.events), StateChanged(State.IDLE, self.controller.state)
        in_flight, ran = self.jobs.waiting, len(self.jobs.ran)
        self.controller.end()
        # The exercise ends at once: no waiting for the engines.
        assert ended in self.events[left_at:]
        session = self.repository.sessions.get(self.controller.session_id)
        assert session.ended_at is not None
        self.finishing_when_left = self.controller.finishing
        self.jobs.run_all()
        assert self.jobs.ran[ran:] == [*in_flight, *then]
        assert not self.controller.finishing
        return [e for e in self.events[left_at:] if e != ended]

    def stored(self) -> list[Attempt]:
        return self.repository.attempts.all(session_id=self.controller.session_id)


@pytest.fixture
def exercise() -> Iterator[Callable[..., Session]]:
    """Starts an exercise: ``exercise(kind, bank=None)``."""
    repository = SessionRepository()
    yield lambda kind, bank=None: Session(kind, repository, bank)
    repository.close()


def _recording(session: Session) -> None:
    """Space: the microphone is open, the patient has spoken and not yet paused long enough."""
    assert session.controller.start_recording()
    assert session.controller.state is State.RECORDING
    assert session.jobs.waiting == ["listen"]


def _shown_to_nobody(session: Session, after: list[object]) -> None:
    """Only the save is reported after leaving: no verdict, no cue, no next item, no move."""
    assert [type(e) for e in after] == [AttemptSaved]
    assert session.controller.state is State.IDLE


def test_a_repetition_try_heard_when_the_patient_leaves_is_stored_with_its_verdict(
    exercise: Callable[..., Session],
) -> None:
    session = exercise(ExerciseKind.REPETITION)
    session.spoken.say("word_04.wav")  # "bonjour", the first sentence
    session.record()
    assert session.jobs.waiting == ["AnswerJudge"]  # heard and scored in one job

    after = session.leave()

    _shown_to_nobody(session, after)
    assert session.finishing_when_left
    stored = session.stored()
    assert len(stored) == 1
    record = stored[0].record
    assert record.kind == "repetition" and record.target_text == "Bonjour."
    assert "onjour" in record.raw_transcript and record.cue_level == 0
    # Judged by the item's rule, as in the exercise: a success counts as one (a try
    # stored before it was heard would have read as a failure in the progress).
    assert stored[0].success is True and record.target_logprob is not None
    assert session.repository.attempts.verify_recording(stored[0])


def test_a_naming_try_heard_when_the_patient_leaves_is_stored_with_its_verdict(
    exercise: Callable[..., Session],
) -> None:
    bank = clear_naming_bank()
    first = naming_plan.teaching_order(bank)[0]
    session = exercise(ExerciseKind.NAMING, bank)
    session.spoken.say_clip(session.services.synthesizer.synthesize(first.indefinite or first.word))
    session.record()

    after = session.leave()

    _shown_to_nobody(session, after)
    stored = session.stored()
    assert [(a.record.kind, a.record.target_text, a.success) for a in stored] == [
        ("naming", first.word, True)
    ]
    assert stored[0].record.cue_level == 0 and stored[0].record.matched_text
    assert session.repository.attempts.verify_recording(stored[0])


def _free_speech_stored_alone(session: Session) -> Attempt:
    """The utterance is stored once, with no proposal (none was offered) and no verdict."""
    stored = session.stored()
    assert len(stored) == 1
    record = stored[0].record
    assert record.kind == "free_speech" and record.raw_transcript.strip()
    assert record.correction_alternatives == [] and record.correction_best is None
    assert record.chosen_sentence is None and stored[0].success is None
    assert session.repository.attempts.verify_recording(stored[0])
    return stored[0]


@pytest.mark.parametrize("recording", [False, True], ids=["heard", "recorded"])
def test_a_free_speech_utterance_heard_or_recorded_when_the_patient_leaves_is_stored(
    exercise: Callable[..., Session], recording: bool
) -> None:
    session = exercise(ExerciseKind.FREE_SPEECH)
    # "femme manger pomme"; recorded: Escape before the pause ends the recording.
    session.spoken.say("telegraphic_02.wav", stay_open=recording)
    if recording:
        _recording(session)
    else:
        session.record()
        assert session.jobs.waiting == ["hear"]

    after = session.leave(then=("hear",) if recording else ())

    _shown_to_nobody(session, after)  # no correction starts after leaving
    assert session.finishing_when_left
    assert "femme" in _free_speech_stored_alone(session).record.raw_transcript


def test_a_free_speech_utterance_corrected_when_the_patient_leaves_is_stored(
    exercise: Callable[..., Session],
) -> None:
    session = exercise(ExerciseKind.FREE_SPEECH)
    session.spoken.say("telegraphic_02.wav")
    session.record()
    session.jobs.run_next()  # heard: its proposals are being sought
    assert session.controller.state is State.CORRECTING
    assert session.jobs.waiting == ["partial"]  # the correction (with the phrase book)
    heard = next(e for e in session.events if isinstance(e, Heard))

    after = session.leave()

    _shown_to_nobody(session, after)  # the proposals found meanwhile are not offered
    assert not session.finishing_when_left  # stored at once: nothing to wait for
    assert _free_speech_stored_alone(session).record.raw_transcript == heard.text


def test_a_try_being_recorded_when_the_patient_leaves_is_heard_and_stored(
    exercise: Callable[..., Session],
) -> None:
    session = exercise(ExerciseKind.REPETITION)
    session.spoken.say("word_04.wav", stay_open=True)  # "bonjour", Escape before the pause ends
    _recording(session)

    after = session.leave(then=("AnswerJudge",))  # ended as if by the pause, then heard

    _shown_to_nobody(session, after)
    assert session.finishing_when_left
    stored = session.stored()
    assert [(a.record.target_text, a.success) for a in stored] == [("Bonjour.", True)]
    assert "onjour" in stored[0].record.raw_transcript
    assert session.repository.attempts.verify_recording(stored[0])


def test_silence_being_recorded_when_the_patient_leaves_is_not_stored(
    exercise: Callable[..., Session],
) -> None:
    session = exercise(ExerciseKind.REPETITION)
    session.spoken.say_clip(AudioClip(np.zeros(SAMPLE_RATE, np.float32)), stay_open=True)
    _recording(session)

    after = session.leave(then=("AnswerJudge",))  # the VAD finds no speech in it

    assert after == [] and session.controller.state is State.IDLE
    assert session.stored() == []  # as in the exercise: nothing said, nothing kept


def test_a_free_speech_utterance_whose_correction_fails_is_stored(
    exercise: Callable[..., Session], monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("corrector crashed")

    monkeypatch.setattr(chain, "correct", broken)
    session = exercise(ExerciseKind.FREE_SPEECH)
    session.spoken.say("telegraphic_02.wav")
    session.record()
    session.jobs.run_next()  # heard: its proposals are being sought
    heard = next(e for e in session.events if isinstance(e, Heard))

    session.jobs.run_next()  # the correction fails

    assert _free_speech_stored_alone(session).record.raw_transcript == heard.text
    session.controller.end()  # leaving afterwards stores nothing twice
    assert len(session.stored()) == 1
