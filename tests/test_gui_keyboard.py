"""Left-hand keys for every action, shown on the buttons; focus kept off "Retour" while waiting."""

from __future__ import annotations

import threading

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from therapy_app.practice.events import Feedback, ItemPresented, State  # noqa: E402
from therapy_app.speech.loading import LoadStep  # noqa: E402

pytest_plugins = ("gui_fixtures",)
pytestmark = [pytest.mark.gui, pytest.mark.slow]

# Keys a left hand reaches on both AZERTY and QWERTY (Qt names the character
# typed: on AZERTY the 1/2/3 keys give & é " without Shift).
LEFT_HAND = {
    Qt.Key.Key_Space, Qt.Key.Key_Escape, Qt.Key.Key_Tab,
    Qt.Key.Key_1, Qt.Key.Key_2, Qt.Key.Key_3,
    Qt.Key.Key_Ampersand, Qt.Key.Key_Eacute, Qt.Key.Key_QuoteDbl,
    Qt.Key.Key_A, Qt.Key.Key_Z, Qt.Key.Key_E, Qt.Key.Key_R, Qt.Key.Key_T,
    Qt.Key.Key_Q, Qt.Key.Key_S, Qt.Key.Key_D, Qt.Key.Key_F, Qt.Key.Key_G,
    Qt.Key.Key_W, Qt.Key.Key_X, Qt.Key.Key_C, Qt.Key.Key_V, Qt.Key.Key_B,
}  # fmt: skip
ENTER = {Qt.Key.Key_Return, Qt.Key.Key_Enter}


def _shortcut_keys(screen) -> set[Qt.Key]:  # noqa: ANN001
    keys = set()
    for shortcut in screen._shortcuts:
        combination = shortcut.key()[0]
        keys.add(combination.key())
    return keys


def test_every_exercise_action_has_a_left_hand_key_shown_on_its_button(
    open_window, patient, spoken, silent_player, repository
):
    driver = open_window()
    window = driver.window
    driver.wait_screen("chooser")
    driver.wait_ready()
    assert "(Échap)" in window.back_button.text()
    driver.key(Qt.Key.Key_Eacute)  # the "2" key of an AZERTY keyboard
    driver.wait_screen("repetition")
    driver.follow()
    screen = driver.screen
    driver.wait_state(State.AWAITING_REPETITION)
    assert screen.counter.text().startswith("Phrase 1 sur")
    first_sentence = screen.sentence.text()

    # Every key the exercise listens to is on the left, Enter aside (a second way).
    assert _shortcut_keys(screen) - ENTER <= LEFT_HAND
    for button, key in (
        (screen.replay_button, "(R)"),
        (screen.my_voice_button, "(V)"),
        (screen.next_button, "(S)"),
        (screen.level_buttons[2], "(2)"),
    ):
        assert button.text().endswith(key), button.text()
    assert screen.record_key.text() == "(Espace)" and screen.record_key.isVisible()

    # While the patient is expected to speak, Enter does nothing: the tooltip says so.
    assert "Entrée" not in screen.next_button.toolTip()
    driver.key(Qt.Key.Key_Return)
    assert screen.counter.text().startswith("Phrase 1 sur")
    assert not screen.my_voice_button.isEnabled()  # nothing recorded yet

    played = len(silent_player.played)
    driver.key(Qt.Key.Key_R)  # R: hear the sentence again
    driver.qtbot.waitUntil(lambda: len(silent_player.played) == played + 1, timeout=10_000)
    driver.wait_state(State.AWAITING_REPETITION)

    spoken.say("word_04.wav")  # "bonjour"
    driver.key(Qt.Key.Key_Space)
    driver.wait_state(State.FEEDBACK)
    assert driver.of_type(Feedback)[-1].success
    assert "Entrée" in screen.next_button.toolTip()  # now Enter goes on too
    played = len(silent_player.played)
    driver.key(Qt.Key.Key_V)  # V: my voice
    driver.qtbot.waitUntil(lambda: len(silent_player.played) == played + 1, timeout=10_000)

    driver.key(Qt.Key.Key_S)  # S: next sentence
    driver.qtbot.waitUntil(lambda: screen.counter.text().startswith("Phrase 2"), timeout=10_000)
    # "Ma voix" on a new sentence: not the previous sentence's recording.
    assert not screen.controller.has_recording
    assert not screen.my_voice_button.isEnabled()
    driver.wait_state(State.AWAITING_REPETITION)  # the new sentence has been said
    played = len(silent_player.played)
    driver.key(Qt.Key.Key_V)
    QApplication.processEvents()
    assert len(silent_player.played) == played  # no recording of this sentence to play
    assert screen.controller.state is State.AWAITING_REPETITION

    driver.wait_state(State.AWAITING_REPETITION)
    driver.key(Qt.Key.Key_QuoteDbl)  # the "3" key of an AZERTY keyboard: long sentences
    driver.qtbot.waitUntil(lambda: screen.controller.level == 3, timeout=10_000)
    assert screen.level_buttons[3].isChecked() and screen.level_buttons[3].text().startswith("✔")
    assert not screen.level_buttons[1].text().startswith("✔")
    driver.key(Qt.Key.Key_Escape)
    driver.wait_screen("chooser")
    assert first_sentence == "Bonjour."


def test_repetition_resumes_after_the_last_sentence_worked_on(
    open_window, patient, spoken, repository
):
    driver = open_window()
    driver.open_exercise(Qt.Key.Key_2, "repetition")
    driver.wait_state(State.AWAITING_REPETITION)
    screen = driver.screen
    assert driver.of_type(ItemPresented)[0].index == 0  # nothing practised yet
    spoken.say("word_04.wav")  # "bonjour": sentence 1 done
    with driver.qtbot.waitSignal(screen.attempt_saved, timeout=60_000):
        driver.key(Qt.Key.Key_Space)
    driver.wait_state(State.FEEDBACK)
    second = screen.controller.all_items[1].target
    driver.key(Qt.Key.Key_Escape)
    driver.wait_screen("chooser")

    driver.key(Qt.Key.Key_2)  # back the next day, or after a pause
    driver.wait_screen("repetition")
    driver.follow()
    driver.wait_state(State.AWAITING_REPETITION)
    assert driver.screen.sentence.text() == second
    assert driver.screen.counter.text().startswith("Phrase 2 sur")

    # A sentence left half-way (a miss, cues still to come) is presented again.
    spoken.say("word_01.wav")  # "pomme"
    with driver.qtbot.waitSignal(driver.screen.attempt_saved, timeout=60_000):
        driver.key(Qt.Key.Key_Space)
    driver.wait_state(State.AWAITING_REPETITION)
    driver.key(Qt.Key.Key_Escape)
    driver.wait_screen("chooser")
    driver.key(Qt.Key.Key_2)
    driver.wait_screen("repetition")
    driver.wait_state(State.AWAITING_REPETITION)
    assert driver.screen.sentence.text() == second


def test_focus_stays_off_the_header_while_the_engines_work(open_window, patient, spoken):
    from gui_fixtures import MODEL_TIMEOUT_MS, preloaded_steps

    release = threading.Event()
    steps = preloaded_steps()
    first = steps[0]

    def slow_load():  # noqa: ANN202
        assert release.wait(MODEL_TIMEOUT_MS / 1000)
        return first.load()

    steps[0] = LoadStep(first.key, first.label, slow_load)
    driver = open_window(steps=steps)
    window = driver.window
    driver.wait_screen("chooser")
    header = (window.back_button, window.change_patient, window.therapist_button)
    try:
        # Loading: the exercises are disabled; a key pressed now lands on no button.
        driver.qtbot.waitUntil(lambda: window.focusWidget() is window.chooser, timeout=5000)
        for key in (Qt.Key.Key_Space, Qt.Key.Key_Return):
            driver.key(key)
            assert window.current_screen == "chooser"
    finally:
        release.set()
    driver.wait_ready()
    driver.qtbot.waitUntil(
        lambda: window.focusWidget() is window.chooser.buttons[next(iter(window.chooser.buttons))]
    )

    driver.key(Qt.Key.Key_2)
    driver.wait_screen("repetition")
    screen = driver.screen
    driver.wait_state(State.AWAITING_REPETITION)
    seen: list[tuple[State, object]] = []
    screen.event_received.connect(
        lambda _e: seen.append((screen.controller.state, window.focusWidget()))
    )
    spoken.say("word_01.wav")
    driver.key(Qt.Key.Key_Space)
    driver.qtbot.waitUntil(
        lambda: any(state is State.FEEDBACK for state, _ in seen), timeout=60_000
    )
    driver.wait_state(State.AWAITING_REPETITION)
    busy = [focus for state, focus in seen if state.busy]
    assert busy, "the engines never worked"
    for focus in busy:
        assert focus not in header
        assert focus is screen or screen.isAncestorOf(focus)
    assert window.focusWidget() is screen.record_button  # back once they are done


def test_free_speech_proposals_are_heard_and_taken_with_the_left_hand(
    open_window, patient, spoken, silent_player
):
    from therapy_app.practice.events import Speaking

    driver = open_window()
    # Key_Ampersand: the "1" key of an AZERTY keyboard.
    screen = driver.open_proposals(spoken, Qt.Key.Key_Ampersand)
    assert _shortcut_keys(screen) - ENTER <= LEFT_HAND
    assert all(b.text().endswith("(E)") for b in screen.listen_buttons)
    # Enter takes the proposal in focus; "Suivant" (S) takes none (issue 25).
    assert screen.next_button.toolTip() == "Touche S"
    last = len(screen.choices) - 1
    for _ in range(2 * last):
        driver.key(Qt.Key.Key_Tab)  # choice 1, its "Écouter", choice 2...
    assert screen.choices[last].hasFocus()
    played = len(silent_player.played)
    driver.key(Qt.Key.Key_E)  # E: hear the proposal in focus
    driver.qtbot.waitUntil(lambda: len(silent_player.played) == played + 1, timeout=10_000)
    driver.wait_state(State.REVIEWING)
    assert driver.of_type(Speaking)[-1].text == screen.choices[last].proposal.text
    chosen = screen.choices[last].proposal.text
    driver.key(Qt.Key.Key_Return)  # Enter: take it
    driver.wait_state(State.AWAITING_REPETITION)
    assert driver.of_type(ItemPresented)[-1].target == chosen
