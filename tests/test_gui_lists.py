"""Exercises chosen outside the program: the patient's own items first, a summary at the list's end.

Issue 25: standalone repetition did not offer the patient's own sentences
although the program tab says it does; the end of a naming list restarted
it silently.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import Qt  # noqa: E402

from therapy_app.naming.bank import NamingBank, default_bank  # noqa: E402
from therapy_app.practice import naming_plan  # noqa: E402
from therapy_app.practice.events import Feedback, ItemPresented, ListFinished, State  # noqa: E402

pytest_plugins = ("gui_fixtures",)
pytestmark = [pytest.mark.gui, pytest.mark.slow]

FAMILY = "Ma fille s'appelle Julie."
TIMEOUT_MS = 60_000


def test_repetition_chosen_outside_the_program_starts_with_the_patients_sentences(
    open_window, patient, repository
):
    repository.programs.add_custom_item(patient.id, "sentence", FAMILY, "famille")
    driver = open_window()
    driver.wait_screen("chooser")
    driver.wait_ready()
    with driver.qtbot.waitSignal(driver.window.program_ready, timeout=TIMEOUT_MS):
        driver.window.load_program()  # the list is read with the program (no program set)
    driver.key(Qt.Key.Key_2)
    driver.wait_screen("repetition")
    driver.wait_state(State.AWAITING_REPETITION)
    assert driver.screen.sentence.text() == FAMILY
    driver.key(Qt.Key.Key_S)
    driver.qtbot.waitUntil(lambda: driver.screen.sentence.text() == "Bonjour.", timeout=10_000)


def _three_pictures() -> NamingBank:
    full = default_bank()
    words = ("oreille", "avocat", "bière")  # heard clearly in the app's voice
    return replace(full, items=tuple(i for i in full.items if i.word in words))


def test_the_end_of_a_naming_list_shows_a_summary_then_starts_again_when_asked(
    open_window, patient, spoken
):
    bank = _three_pictures()
    first = naming_plan.teaching_order(bank)[0]
    driver = open_window(naming_bank=bank)
    screen = driver.open_exercise(Qt.Key.Key_4, "naming")
    qtbot = driver.qtbot
    driver.wait_state(State.AWAITING_REPETITION)
    assert screen.counter.text() == "Image 1 sur 3"
    spoken.say_clip(driver.window.services.synthesizer.synthesize(first.indefinite))
    driver.key(Qt.Key.Key_Space)
    qtbot.waitUntil(lambda: bool(driver.of_type(Feedback)), timeout=TIMEOUT_MS)
    assert driver.of_type(Feedback)[-1].success
    for _ in range(3):  # on past the second and the third picture
        qtbot.waitUntil(screen.next_button.isEnabled, timeout=TIMEOUT_MS)
        driver.key(Qt.Key.Key_S)
    qtbot.waitUntil(lambda: bool(driver.of_type(ListFinished)), timeout=10_000)

    assert len(driver.of_type(ItemPresented)) == 3  # not the first picture again, silently
    assert screen.summary.isVisible() and not screen.prompt_card.isVisible()
    assert screen.summary_title.text() == "Bravo, vous avez fini la liste !"
    assert screen.summary_text.text() == "Images réussies : 1 sur 3."
    assert screen.restart_button.isVisible() and screen.restart_button.hasFocus()
    assert screen.status.text().startswith("Entrée : recommencer")
    assert not screen.record_button.isVisible() and not screen.next_button.isEnabled()
    assert not screen.controller.can_record and not screen.replay_button.isEnabled()

    driver.key(Qt.Key.Key_Return)  # the patient chooses to start again
    driver.wait_state(State.AWAITING_REPETITION)
    assert len(driver.of_type(ItemPresented)) == 4
    assert driver.of_type(ItemPresented)[-1].target == first.word
    assert screen.counter.text() == "Image 1 sur 3"
    assert not screen.summary.isVisible() and screen.prompt_card.isVisible()
    assert screen.record_button.isVisible() and screen.record_button.isEnabled()
