"""Free speech with the patient's phrase book: their sentence first, stored with its source."""

from __future__ import annotations

import json

import pytest
from practice_fixtures import SpokenClips

from therapy_app.correction.diff import RESTORED
from therapy_app.domain.attempt_record import AttemptRecord, Candidate
from therapy_app.phrases.model import Gender
from therapy_app.practice import free_speech
from therapy_app.practice.controller import PracticeController
from therapy_app.practice.events import Corrected, ErrorOccurred, ExerciseKind, State
from therapy_app.practice.scheduling import InlineScheduler
from therapy_app.speech import chain
from therapy_app.speech.services import SpeechServices
from therapy_app.storage import SessionRepository

pytest_plugins = ("gui_fixtures",)

BAKERY = "Je suis allé(e) à la boulangerie hier."
AGREED = "Je suis allée à la boulangerie hier."


def _jeanne(repository: SessionRepository) -> int:
    """A patient whose therapist wrote her sentences; the profile says she is a woman."""
    jeanne = repository.patients.create("Jeanne Martin")
    for text in (BAKERY, "Je voudrais un café.", "J'ai mal au dos."):
        repository.programs.add_custom_item(jeanne.id, "sentence", text)
    repository.phrases.set_gender(jeanne.id, Gender.FEMININE, "test")
    return jeanne.id


# ----- storage --------------------------------------------------------------------------
def test_a_proposal_source_is_stored_and_old_rows_read_as_corrector(repository):
    patient = repository.patients.create("Paul")
    session = repository.sessions.start(patient.id, "free_speech")
    record = AttemptRecord(
        session_id=session.id,
        kind="free_speech",
        raw_transcript="moi café",
        correction_alternatives=[
            Candidate("Je voudrais un café.", 1.0, "phrase"),
            Candidate("Moi, un café.", -0.4),
        ],
    )
    new = repository.attempts.add(record)
    stored = repository.attempts.get(new).record.correction_alternatives
    assert [(c.text, c.source) for c in stored] == [
        ("Je voudrais un café.", "phrase"),
        ("Moi, un café.", "corrector"),
    ]
    # A row written before issue 27 has no source: its proposals were the corrector's.
    old = repository.attempts.add(record)
    with repository.connection("test") as db:
        db.execute(
            "UPDATE attempts SET correction_alternatives = ? WHERE id = ?",
            [json.dumps([{"text": "Moi, un café.", "score": -0.4}]), old],
        )
    assert repository.attempts.get(old).record.correction_alternatives == [
        Candidate("Moi, un café.", -0.4, "corrector")
    ]


# ----- the practice cycle -------------------------------------------------------------------
@pytest.mark.slow
def test_free_speech_proposes_the_patients_sentence_first_and_stores_its_source(
    repository, spoken: SpokenClips, services: SpeechServices
):
    patient_id = _jeanne(repository)
    events: list = []
    controller = PracticeController(
        ExerciseKind.FREE_SPEECH, services, repository, patient_id, InlineScheduler()
    )
    controller.subscribe(events.append)
    controller.begin()  # the book is read on the database worker (here: at once)
    spoken.say("telegraphic_01.wav")  # "moi aller boulangerie hier"
    controller.toggle_recording()
    assert controller.state is State.REVIEWING
    corrected = [e for e in events if isinstance(e, Corrected)][-1]
    first = corrected.proposals[0]
    assert (first.text, first.source) == (AGREED, chain.PHRASE)
    assert "suis" in [w for op in first.diff if op.kind == RESTORED for w in op.target]
    assert len(corrected.proposals) <= 3

    assert controller.confirm()  # Enter: her own sentence
    assert controller.item is not None and controller.item.target == AGREED
    controller.end()
    assert not [e for e in events if isinstance(e, ErrorOccurred)]
    (utterance,) = repository.attempts.all(session_id=controller.session_id)
    assert utterance.record.chosen_sentence == AGREED
    sources = [c.source for c in utterance.record.correction_alternatives]
    assert sources[0] == "phrase" and set(sources[1:]) <= {"corrector"}


@pytest.mark.slow
def test_a_phrase_book_that_cannot_be_read_leaves_free_speech_as_it_was(
    repository, monkeypatch: pytest.MonkeyPatch, spoken: SpokenClips, services: SpeechServices
):
    def broken(*args: object) -> None:
        raise OSError("disk gone")

    monkeypatch.setattr(free_speech, "patient_book", broken)
    events: list = []
    controller = PracticeController(
        ExerciseKind.FREE_SPEECH, services, repository, _jeanne(repository), InlineScheduler()
    )
    controller.subscribe(events.append)
    controller.begin()
    spoken.say("telegraphic_01.wav")
    controller.toggle_recording()
    assert controller.state is State.REVIEWING
    corrected = [e for e in events if isinstance(e, Corrected)][-1]
    assert all(p.source == chain.CORRECTOR for p in corrected.proposals)
    assert not [e for e in events if isinstance(e, ErrorOccurred)]
    controller.end()


# ----- the screens --------------------------------------------------------------------------
TECHNICAL = ("carnet", "correcteur", "phrase du", "source", "score")


@pytest.mark.slow
@pytest.mark.gui
@pytest.mark.qt_log_ignore(r"This plugin does not support propagateSizeHints\(\)")
def test_the_patient_sees_her_own_sentence_first_highlighted_and_no_technical_word(
    open_window, repository, spoken
):
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QLabel

    _jeanne(repository)  # the only patient: the profile picker is skipped
    driver = open_window()
    screen = driver.open_exercise(Qt.Key.Key_1, "free_speech")
    # The book is read on the database worker when the exercise starts.
    driver.qtbot.waitUntil(lambda: screen.controller._free.book is not None, timeout=30_000)
    spoken.say("telegraphic_01.wav")  # "moi aller boulangerie hier"
    driver.key(Qt.Key.Key_Space)
    driver.wait_state(State.REVIEWING)
    first = screen.choices[0]
    assert first.proposal.text == AGREED and first.proposal.source == chain.PHRASE
    assert "<span" in first.sentence.text()  # the words put back are highlighted
    assert screen.question.text() == "Vouliez-vous dire… ?"
    assert not screen.note.isVisible()
    shown = " ".join(
        label.text().lower() for label in screen.findChildren(QLabel) if label.isVisible()
    )
    shown += " " + screen.status.text().lower()
    assert not [word for word in TECHNICAL if word in shown], shown

    driver.key(Qt.Key.Key_1)  # her sentence, to repeat
    driver.wait_state(State.AWAITING_REPETITION)
    assert screen.chosen.isVisible() and "boulangerie" in screen.chosen.text()


@pytest.mark.gui
@pytest.mark.qt_log_ignore(r"This plugin does not support propagateSizeHints\(\)")
def test_the_therapist_sees_where_each_proposal_came_from(
    qtbot, unlocked_area, therapist_repo, seeded_history, speech_dir
):
    from therapist_fixtures import open_attempt

    from therapy_app.audio.wavio import read_wav

    session = therapist_repo.sessions.start(seeded_history.patient.id, "free_speech")
    attempt_id = therapist_repo.attempts.add(
        AttemptRecord(
            session_id=session.id,
            kind="free_speech",
            raw_transcript="moi aller boulangerie hier",
            correction_best="J'allais à la boulangerie hier.",
            correction_alternatives=[
                Candidate(AGREED, 0.92, "phrase"),
                Candidate("J'allais à la boulangerie hier.", -1.21),
            ],
            chosen_sentence=AGREED,
        ),
        read_wav(speech_dir / "telegraphic_01.wav"),
    )
    open_attempt(qtbot, unlocked_area, attempt_id)
    lines = unlocked_area.detail.alternatives.text().splitlines()
    assert lines[0].startswith(f"« {AGREED} »") or AGREED in lines[0]
    assert "phrase du carnet" in lines[0] and "92" in lines[0]
    assert "correcteur" in lines[1] and "1,21" in lines[1]


def test_a_sentence_chosen_in_free_speech_joins_the_book_of_the_same_session(
    repository, spoken: SpokenClips, services: SpeechServices
):
    patient_id = repository.patients.create("Paul Durand").id  # no sentence of his own yet
    controller = PracticeController(
        ExerciseKind.FREE_SPEECH, services, repository, patient_id, InlineScheduler()
    )
    controller.begin()
    spoken.say("telegraphic_01.wav")
    controller.toggle_recording()
    assert controller.state is State.REVIEWING
    cycle = controller._free  # noqa: SLF001 - the book is the cycle's own state
    assert cycle.book is not None and len(cycle.book) == 0
    chosen = cycle.proposals[0].text
    assert controller.confirm()
    assert [(p.text, p.source.value) for p in cycle.book.phrases] == [(chosen, "chosen")]
    controller.end()
