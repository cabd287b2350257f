"""The real app driven by keyboard only: exercises on real models with committed speech."""

from __future__ import annotations

import logging
import threading

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import Qt, QTimer  # noqa: E402

from therapy_app.gui import main_window  # noqa: E402
from therapy_app.practice.events import (  # noqa: E402
    AttemptSaved,
    Corrected,
    CueGiven,
    ExerciseKind,
    Feedback,
    ItemPresented,
    Speaking,
    State,
    StateChanged,
)

pytest_plugins = ("gui_fixtures",)
pytestmark = [pytest.mark.gui, pytest.mark.slow]


def test_repetition_miss_gives_a_cue_then_success_all_by_keyboard(
    open_window, patient, spoken, repository
):
    driver = open_window()
    screen = driver.open_exercise(Qt.Key.Key_2, "repetition")  # "2  Répéter"
    saved: list[int] = []
    screen.attempt_saved.connect(saved.append)
    driver.wait_state(State.AWAITING_REPETITION)
    assert screen.sentence.text() == "Bonjour."
    assert screen.counter.text().startswith("Phrase 1 sur")

    spoken.say("word_01.wav")  # "pomme": not the sentence
    driver.key(Qt.Key.Key_Space)
    driver.qtbot.waitUntil(lambda: bool(driver.of_type(CueGiven)), timeout=60_000)
    driver.wait_state(State.AWAITING_REPETITION)
    assert driver.of_type(Feedback)[-1].success is False
    assert screen.feedback_title.text() == "Essayons encore."
    assert screen.cue_label.isVisible() and "lentement" in screen.cue_label.text()
    assert screen.feedback_title.property("role") == "encourage"  # not shown as an error

    spoken.say("word_04.wav")  # "bonjour"
    driver.key(Qt.Key.Key_Space)
    driver.wait_state(State.FEEDBACK)
    # Both attempts committed (the first may finish after the cue was spoken).
    driver.qtbot.waitUntil(lambda: len(saved) == 2, timeout=30_000)
    feedback = driver.of_type(Feedback)[-1]
    assert feedback.success and feedback.item_finished
    assert "✔" in screen.feedback_title.text()
    assert screen.stars.isVisible() and screen.stars.count >= 2
    assert "onjour" in screen.heard.text()

    driver.key(Qt.Key.Key_Return)  # Enter: next sentence
    driver.qtbot.waitUntil(lambda: screen.counter.text().startswith("Phrase 2"), timeout=10_000)
    session_id = screen.controller.session_id
    driver.key(Qt.Key.Key_Escape)  # back to the chooser
    driver.wait_screen("chooser")

    attempts = repository.attempts.all(session_id=session_id)
    assert [(a.success, a.record.cue_level) for a in attempts] == [(False, 0), (True, 1)]
    assert attempts[1].record.target_text == "Bonjour."
    assert all(repository.attempts.verify_recording(a) for a in attempts)
    driver.qtbot.waitUntil(
        lambda: repository.sessions.get(session_id).ended_at is not None, timeout=10_000
    )


def test_free_speech_loop_by_keyboard(open_window, patient, spoken, repository):
    driver = open_window()
    screen = driver.open_exercise(Qt.Key.Key_1, "free_speech")
    assert screen.invitation.isVisible()

    spoken.say("telegraphic_01.wav")  # "moi aller boulangerie hier"
    driver.key(Qt.Key.Key_Space)
    assert (
        screen.status.text() == "Je vous écoute…" or screen.controller.state is not State.RECORDING
    )
    driver.wait_state(State.REVIEWING)
    corrected = driver.of_type(Corrected)[-1]
    assert "boulangerie" in corrected.heard.lower()
    assert screen.heard_text.isVisible() and "boulangerie" in screen.heard_text.text().lower()
    assert 1 <= len(screen.choices) <= 3
    assert screen.note.isVisible() is (not corrected.corrected)

    driver.key(Qt.Key.Key_1)  # pick the first sentence
    driver.wait_state(State.AWAITING_REPETITION)
    chosen = driver.of_type(ItemPresented)[-1].target
    assert chosen == corrected.proposals[0].text
    assert screen.chosen.isVisible()

    # The patient repeats the chosen sentence (the real voice stands in for them).
    services = screen.controller.services
    spoken.say_clip(services.synthesizer.synthesize(chosen))
    with driver.qtbot.waitSignal(screen.attempt_saved, timeout=60_000):
        driver.key(Qt.Key.Key_Space)
    driver.wait_state(State.FEEDBACK)
    assert driver.of_type(Feedback)[-1].success
    session_id = screen.controller.session_id

    driver.key(Qt.Key.Key_Return)  # a new sentence
    driver.wait_state(State.IDLE)
    assert screen.invitation.isVisible() and not screen.choices

    driver.qtbot.waitUntil(
        lambda: len(repository.attempts.all(session_id=session_id)) == 2, timeout=10_000
    )
    utterance, repetition = repository.attempts.all(session_id=session_id)
    assert utterance.record.kind == "free_speech" and utterance.record.chosen_sentence == chosen
    assert "boulangerie" in utterance.record.raw_transcript.lower()
    assert utterance.success is None  # the verdict is the repetition's
    assert repetition.record.kind == "repetition" and repetition.record.target_text == chosen
    assert repetition.success is True and repository.attempts.verify_recording(repetition)


def test_a_new_utterance_is_recorded_straight_from_the_proposals(
    open_window, patient, spoken, repository
):
    driver = open_window()
    screen = driver.open_proposals(spoken)
    seen: list[tuple[State, bool, int]] = []
    screen.event_received.connect(
        lambda e: (
            seen.append((e.state, screen.invitation.isVisible(), len(screen.choices)))
            if isinstance(e, StateChanged)
            else None
        )
    )
    spoken.say("telegraphic_02.wav")  # another utterance, none of the sentences taken
    with driver.qtbot.waitSignal(screen.attempt_saved, timeout=60_000):
        driver.key(Qt.Key.Key_Space)
    driver.wait_state(State.REVIEWING)
    # Straight to the microphone (no IDLE passed through), the proposals cleared.
    assert seen[0] == (State.RECORDING, True, 0)
    assert State.IDLE not in [state for state, _, _ in seen]
    first = repository.attempts.get(driver.of_type(AttemptSaved)[0].attempt_id)
    assert first.record.chosen_sentence is None  # the first utterance kept, no choice invented
    assert "boulangerie" in first.record.raw_transcript.lower()
    assert screen.choices and not screen.invitation.isVisible()


def test_completion_item(open_window, patient, spoken, repository):
    driver = open_window()
    screen = driver.open_exercise(Qt.Key.Key_3, "completion")
    driver.wait_state(State.AWAITING_REPETITION)
    assert "…" in screen.cue_text.text()
    # Go to the "bonjour" item (the committed recordings say a few words only).
    controller = screen.controller
    controller.present(controller.index_of("bonjour"))
    driver.wait_state(State.AWAITING_REPETITION)
    assert screen.cue_text.text() == "Quand j'arrive chez mes voisins, je leur dis …"

    spoken.say("word_04.wav")
    with driver.qtbot.waitSignal(screen.attempt_saved, timeout=60_000):
        driver.key(Qt.Key.Key_Space)
    driver.wait_state(State.FEEDBACK)
    assert driver.of_type(Feedback)[-1].success
    attempts = repository.attempts.all(session_id=controller.session_id)
    assert attempts[-1].record.kind == ExerciseKind.COMPLETION.value
    assert attempts[-1].record.target_text == "bonjour" and attempts[-1].success


def test_the_patient_pause_tolerance_ends_their_recordings(open_window, patient, repository):
    repository.patients.set_pause_tolerance(patient.id, 6000)  # set by the therapist
    driver = open_window()
    driver.open_exercise(Qt.Key.Key_1, "free_speech")
    assert driver.screen.controller.settings.trailing_silence_ms == 6000


def test_each_proposal_can_be_heard_by_keyboard_before_choosing(
    open_window, patient, spoken, silent_player
):
    driver = open_window()
    screen = driver.open_proposals(spoken)
    assert len(screen.listen_buttons) == len(screen.choices) >= 1
    assert screen.choices[0].hasFocus()
    played = len(silent_player.played)

    driver.key(Qt.Key.Key_Tab)  # from choice 1 to its "Écouter"
    assert screen.listen_buttons[0].hasFocus()
    driver.key(Qt.Key.Key_Return)
    driver.qtbot.waitUntil(lambda: len(silent_player.played) == played + 1, timeout=10_000)
    driver.wait_state(State.REVIEWING)
    assert driver.of_type(Speaking)[-1].text == screen.choices[0].proposal.text
    assert screen.choices[0].isVisible() and not driver.of_type(ItemPresented)  # not chosen


def test_a_sentence_the_corrector_cannot_read_says_why(open_window, patient):
    from therapy_app.practice.events import Proposal

    driver = open_window()
    screen = driver.open_exercise(Qt.Key.Key_1, "free_speech")
    refusal = "elle n'est pas écrite en français."
    screen.on_corrected(Corrected("hello world", [Proposal("Hello world.", 0.0)], False, refusal))
    assert screen.note.isVisible()
    assert screen.note.text() == f"(Je n'ai pas corrigé cette phrase : {refusal})"
    assert screen.question.text() == "Est-ce bien cela ?"
    # Without a refusal, an uncorrected proposal still explains that no corrector runs.
    screen.on_corrected(Corrected("bonjour", [Proposal("Bonjour.", 0.0)], False))
    assert "n'est pas installée" in screen.note.text()


def _try_heard_while_closing(open_window, spoken, released: threading.Event):
    """Repetition, "bonjour" said; its hearing waits on the worker until ``released``."""
    driver = open_window()
    driver.open_exercise(Qt.Key.Key_2, "repetition")
    controller = driver.screen.controller
    controller.early_verdicts = False  # heard once the recording ends: a job of its own
    driver.wait_state(State.AWAITING_REPETITION)

    def hold(event: object) -> None:
        # Submitted just before the hearing: the one inference worker runs it first.
        if isinstance(event, StateChanged) and event.state is State.RECOGNISING:
            driver.window.runner.submit(released.wait, 10)

    controller.subscribe(hold)
    spoken.say("word_04.wav")
    driver.key(Qt.Key.Key_Space)
    driver.wait_state(State.RECOGNISING)
    return driver, controller


def test_closing_the_app_while_a_try_is_heard_stores_it(open_window, patient, spoken, repository):
    released = threading.Event()
    driver, controller = _try_heard_while_closing(open_window, spoken, released)
    QTimer.singleShot(0, released.set)  # the engines go on once the window is closing

    driver.close()

    assert not controller.finishing
    stored = repository.attempts.all(session_id=controller.session_id)
    assert [(a.record.target_text, a.success) for a in stored] == [("Bonjour.", True)]
    assert repository.attempts.verify_recording(stored[0])
    assert repository.sessions.get(controller.session_id).ended_at is not None


class _OnError(logging.Handler):
    """Calls ``act()`` when an error is logged."""

    def __init__(self, act) -> None:
        super().__init__(logging.ERROR)
        self._act = act

    def emit(self, record: logging.LogRecord) -> None:
        self._act()


def test_closing_the_app_waits_for_a_try_only_so_long(
    open_window, patient, spoken, repository, monkeypatch, caplog
):
    released = threading.Event()
    driver, controller = _try_heard_while_closing(open_window, spoken, released)
    monkeypatch.setattr(main_window, "FINISH_LIMIT_S", 0.05)
    logger = logging.getLogger(main_window.__name__)
    handler = _OnError(released.set)  # stuck engines, freed once the window gave up on them
    logger.addHandler(handler)
    try:
        driver.close()
    finally:
        logger.removeHandler(handler)
        released.set()

    assert "not stored" in caplog.text
    assert repository.attempts.all(session_id=controller.session_id) == []
    assert repository.sessions.get(controller.session_id).ended_at is not None
