"""Picture naming in the real window, by keyboard: right at once, then every cue up to the model."""

from __future__ import annotations

from dataclasses import replace

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import Qt  # noqa: E402

from therapy_app.naming.bank import NamingBank, default_bank  # noqa: E402
from therapy_app.practice import naming_plan  # noqa: E402
from therapy_app.practice.events import CueGiven, Feedback, ItemPresented, State  # noqa: E402

pytest_plugins = ("gui_fixtures",)
pytestmark = [pytest.mark.gui, pytest.mark.slow]

WRONG = "parapluie"
# Frequent pictures the recogniser hears clearly in the app's voice (see
# tests/test_practice_naming.py); the rarer pictures keep the competitors realistic.
CLEAR = ("oreille", "avocat", "bière", "viande")


def _bank() -> NamingBank:
    full = default_bank()
    return replace(
        full, items=tuple(i for i in full.items if i.frequency_band != 1 or i.word in CLEAR)
    )


def _say(driver, spoken, text: str) -> None:
    spoken.say_clip(driver.window.services.synthesizer.synthesize(text))


def _answer(driver, spoken, text: str, feedbacks: int) -> Feedback:
    _say(driver, spoken, text)
    driver.key(Qt.Key.Key_Space)
    driver.qtbot.waitUntil(lambda: len(driver.of_type(Feedback)) >= feedbacks, timeout=60_000)
    return driver.of_type(Feedback)[-1]


def test_naming_right_at_once_then_cues_up_to_the_model_by_keyboard(
    open_window, patient, spoken, silent_player, repository
):
    bank = _bank()
    first, second = naming_plan.teaching_order(bank)[:2]
    driver = open_window(naming_bank=bank)
    driver.wait_screen("chooser")
    driver.wait_ready()
    chooser = driver.window.chooser
    assert chooser.buttons[next(k for k in chooser.buttons if k.value == "naming")].isEnabled()
    driver.key(Qt.Key.Key_4)  # "4  Nommer des images"
    driver.wait_screen("naming")
    driver.follow()
    screen = driver.screen
    driver.wait_state(State.AWAITING_REPETITION)
    assert screen.picture.renderer().isValid() and screen.picture.isVisible()
    assert screen.counter.text() == "Image 1 sur 20"
    assert not screen.cue_text.isVisible()  # the picture alone
    assert first.word not in screen.instruction.text()
    assert "dites le nom" in screen.status.text()

    feedback = _answer(driver, spoken, first.indefinite, 1)
    assert feedback.success and feedback.item_finished
    driver.wait_state(State.FEEDBACK)
    assert screen.feedback_title.property("role") == "success"
    driver.key(Qt.Key.Key_S)  # next picture
    driver.qtbot.waitUntil(lambda: screen.counter.text() == "Image 2 sur 20", timeout=10_000)
    assert driver.of_type(ItemPresented)[-1].target == second.word
    driver.wait_state(State.AWAITING_REPETITION)

    shown = []
    for level in range(1, 5):
        feedback = _answer(driver, spoken, WRONG, 1 + level)
        assert not feedback.success and not feedback.item_finished
        driver.qtbot.waitUntil(lambda n=level: len(driver.of_type(CueGiven)) >= n, timeout=10_000)
        driver.wait_state(State.AWAITING_REPETITION)
        assert screen.cue_message.isVisible() and screen.cue_text.isVisible()
        shown.append(screen.cue_text.text())
        if level == 3:
            assert "lisez" in screen.status.text()
    assert shown[0].startswith("C'est ") and second.semantic_cue in shown[0]
    assert shown[1] == f"{shown[1].split(' ')[0]} {shown[1].split(' ')[1]} {second.first_sounds}…"
    assert shown[2] == second.indefinite == shown[3]
    assert "répétez" in screen.status.text()
    model = silent_player.played[-1]  # the spoken model
    played = len(silent_player.played)
    driver.key(Qt.Key.Key_R)  # hear the model again
    driver.qtbot.waitUntil(lambda: len(silent_player.played) > played, timeout=20_000)
    assert abs(silent_player.played[-1].duration - model.duration) < 0.05

    feedback = _answer(driver, spoken, second.indefinite, 6)
    assert feedback.success and feedback.item_finished
    driver.qtbot.waitUntil(
        lambda: len(repository.attempts.all(session_id=screen.controller.session_id)) == 6,
        timeout=20_000,
    )
    stored = repository.attempts.all(session_id=screen.controller.session_id)
    assert [(a.record.cue_level, a.success) for a in stored] == [
        (0, True),
        (0, False),
        (1, False),
        (2, False),
        (3, False),
        (4, True),
    ]
    assert all(a.record.kind == "naming" for a in stored)
    driver.key(Qt.Key.Key_Escape)
    driver.wait_screen("chooser")
