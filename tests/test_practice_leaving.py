"""Leaving an exercise while what the patient said is still heard: it is stored, shown to nobody."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from practice_fixtures import HeldInference, SpokenClips, clear_naming_bank, make_services

from therapy_app.naming.bank import NamingBank
from therapy_app.practice import naming_plan
from therapy_app.practice.controller import PracticeController
from therapy_app.practice.events import AttemptSaved, ExerciseKind, Heard, State, StateChanged
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
        patient = repository.create_patient("Jeanne Martin")
        self.controller = PracticeController(
            kind, self.services, repository, patient.id, self.jobs, bank=bank
        )
        # A try is then heard once its recording ends, as when the patient ends
        # it with Space or no pause of theirs settled: the hearing takes a while.
        self.controller.early_verdicts = False
        self.events: list[object] = []
        self.controller.subscribe(self.events.append)
        self.controller.begin()
        self.jobs.run_all()  # the first cue is said

    def record(self) -> None:
        """Space, then the recording ends: its hearing waits on the inference worker."""
        assert self.controller.start_recording()
        assert self.jobs.waiting == ["listen"]
        self.jobs.run_next()
        assert self.controller.state is State.RECOGNISING

    def leave(self) -> list[object]:
        """Escape now, then let the engines finish; returns the events reported from then on."""
        left_at, ended = len(self.events), StateChanged(State.IDLE, self.controller.state)
        in_flight, ran = self.jobs.waiting, len(self.jobs.ran)
        self.controller.end()
        # The exercise ends at once: no waiting for the engines.
        assert ended in self.events[left_at:]
        session = self.repository.get_session(self.controller.session_id)
        assert session.ended_at is not None
        self.jobs.run_all()
        assert self.jobs.ran[ran:] == in_flight  # nothing new: no cue, no correction
        return [e for e in self.events[left_at:] if e != ended]

    def stored(self) -> list[Attempt]:
        return self.repository.list_attempts(session_id=self.controller.session_id)


@pytest.fixture
def exercise() -> Iterator[Callable[..., Session]]:
    """Starts an exercise: ``exercise(kind, bank=None)``."""
    repository = SessionRepository()
    yield lambda kind, bank=None: Session(kind, repository, bank)
    repository.close()


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
    stored = session.stored()
    assert len(stored) == 1
    record = stored[0].record
    assert record.kind == "repetition" and record.target_text == "Bonjour."
    assert "onjour" in record.raw_transcript and record.cue_level == 0
    # Judged by the item's rule, as in the exercise: a success counts as one (a try
    # stored before it was heard would have read as a failure in the progress).
    assert stored[0].success is True and record.target_logprob is not None
    assert session.repository.verify_recording(stored[0])


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
    assert session.repository.verify_recording(stored[0])


def _free_speech_stored_alone(session: Session) -> Attempt:
    """The utterance is stored once, with no proposal (none was offered) and no verdict."""
    stored = session.stored()
    assert len(stored) == 1
    record = stored[0].record
    assert record.kind == "free_speech" and record.raw_transcript.strip()
    assert record.correction_alternatives == [] and record.correction_best is None
    assert record.chosen_sentence is None and stored[0].success is None
    assert session.repository.verify_recording(stored[0])
    return stored[0]


def test_a_free_speech_utterance_heard_when_the_patient_leaves_is_stored(
    exercise: Callable[..., Session],
) -> None:
    session = exercise(ExerciseKind.FREE_SPEECH)
    session.spoken.say("telegraphic_02.wav")  # "femme manger pomme"
    session.record()
    assert session.jobs.waiting == ["hear"]

    after = session.leave()

    _shown_to_nobody(session, after)  # no correction starts after leaving
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
    assert _free_speech_stored_alone(session).record.raw_transcript == heard.text
