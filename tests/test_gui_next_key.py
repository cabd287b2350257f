"""S ("Suivant") always moves on: while a cue is said, and on « Vouliez-vous dire… ? »."""

from __future__ import annotations

import pytest

pytest.importorskip("PySide6")

from practice_fixtures import HeldSpeaker  # noqa: E402
from PySide6.QtCore import Qt  # noqa: E402

from therapy_app.practice.events import (  # noqa: E402
    AttemptSaved,
    Feedback,
    ItemPresented,
    State,
)

pytest_plugins = ("gui_fixtures",)
pytestmark = [pytest.mark.gui, pytest.mark.slow]


@pytest.fixture
def silent_player() -> HeldSpeaker:
    """The app's speaker: a sentence lasts until the app stops it (or the test lets go)."""
    return HeldSpeaker()


def test_s_while_the_sentence_is_said_shows_the_next_one_and_scores_against_it(
    open_window, patient, spoken, silent_player
):
    driver = open_window()
    driver.wait_screen("chooser")
    driver.wait_ready()
    silent_player.hold()
    driver.key(Qt.Key.Key_2)
    driver.wait_screen("repetition")
    driver.follow()
    screen = driver.screen
    qtbot = driver.qtbot
    qtbot.waitUntil(lambda: silent_player.playing, timeout=30_000)  # "Bonjour." is being said
    assert driver.of_type(ItemPresented)[-1].target == "Bonjour."
    assert screen.controller.state is State.SPEAKING
    assert screen.next_button.isEnabled()

    driver.key(Qt.Key.Key_S)
    qtbot.waitUntil(lambda: len(driver.of_type(ItemPresented)) == 2, timeout=10_000)
    assert silent_player.stopped == 1  # the voice stopped at once
    second = driver.of_type(ItemPresented)[-1]
    assert second.target != "Bonjour."
    assert screen.sentence.text() == second.prompt
    assert screen.counter.text().startswith("Phrase 2 sur")

    silent_player.let_go()
    driver.wait_state(State.AWAITING_REPETITION)
    spoken.say("word_04.wav")  # "bonjour": the sentence no longer on screen
    driver.key(Qt.Key.Key_Space)
    qtbot.waitUntil(lambda: bool(driver.of_type(Feedback)), timeout=60_000)
    feedback = driver.of_type(Feedback)[-1]
    assert feedback.target == second.target
    assert not feedback.success


def test_suivant_on_vouliez_vous_dire_takes_none_of_the_sentences(
    open_window, patient, spoken, repository
):
    driver = open_window()
    screen = driver.open_proposals(spoken)
    assert screen.choices and screen.next_button.isEnabled()
    assert screen.next_button.toolTip() == "Touche S"  # Enter takes a sentence, not S
    assert "S\u00a0: aucune" in screen.status.text()

    with driver.qtbot.waitSignal(screen.attempt_saved, timeout=30_000):
        driver.key(Qt.Key.Key_S)
    driver.wait_state(State.IDLE)
    assert not driver.of_type(ItemPresented)  # no sentence taken
    assert not screen.choices and screen.invitation.isVisible()
    saved = driver.of_type(AttemptSaved)[-1]
    stored = repository.attempts.get(saved.attempt_id)
    assert stored.record.chosen_sentence is None  # kept, without an invented choice

    # "Suivant" (the button) does the same.
    spoken.say("telegraphic_02.wav")
    driver.key(Qt.Key.Key_Space)
    driver.wait_state(State.REVIEWING)
    screen.next_button.click()
    driver.wait_state(State.IDLE)
    assert not driver.of_type(ItemPresented)
