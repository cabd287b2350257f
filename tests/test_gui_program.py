"""Today's program end to end: the therapist sets it in the area, the patient's screen runs it."""

from __future__ import annotations

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import Qt  # noqa: E402

from therapy_app.gui.main_window import PROGRAM_DONE  # noqa: E402
from therapy_app.naming.bank import default_bank  # noqa: E402
from therapy_app.practice.events import ExerciseKind, State  # noqa: E402
from therapy_app.speech.chain import hear  # noqa: E402

pytest_plugins = ("gui_fixtures",)
pytestmark = [
    pytest.mark.gui,
    pytest.mark.slow,
    pytest.mark.qt_log_ignore(r"This plugin does not support propagateSizeHints\(\)"),
]

USERNAME, PASSWORD = "claire", "orthophonie-2025"
FAMILY = "Ma fille s'appelle Julie."
WORD = "le chameau"
PET = "Médor"
TIMEOUT_MS = 60_000


def _set_program(qtbot, area) -> None:
    """Completion (theme all), repetition level 2, naming (animals, frequent words);
    4 items, 80 % rate, 6 s pause, a sentence and a word with its picture."""
    panel = area.program
    rows = {row.entry.kind: row for row in panel.rows}
    for row in panel.rows:
        row.included.setChecked(
            row.entry.kind
            in (ExerciseKind.REPETITION, ExerciseKind.COMPLETION, ExerciseKind.NAMING)
        )
    naming = rows[ExerciseKind.NAMING]
    naming.difficulty.setCurrentIndex(naming.difficulty.findData(2))
    naming.theme.setCurrentIndex(naming.theme.findData("animal"))
    repetition = rows[ExerciseKind.REPETITION]
    repetition.difficulty.setCurrentIndex(repetition.difficulty.findData(2))
    # Completion first: move it above repetition.
    while panel.rows.index(rows[ExerciseKind.COMPLETION]) > panel.rows.index(repetition):
        rows[ExerciseKind.COMPLETION].up.click()
    panel.items.setValue(4)
    panel.rate.setValue(80)
    pause = area.patient_settings.pause
    pause.setValue(6.0)
    with qtbot.waitSignal(area.patient_settings.saved, timeout=TIMEOUT_MS):
        pause.editingFinished.emit()
    lists = area.custom_lists
    lists.kind.setCurrentIndex(lists.kind.findData("sentence"))
    lists.text.setText(FAMILY)
    with qtbot.waitSignal(lists.items_loaded, timeout=TIMEOUT_MS):
        lists.add_button.click()
    lists.kind.setCurrentIndex(lists.kind.findData("word"))
    lists.text.setText(WORD)
    with qtbot.waitSignal(lists.items_loaded, timeout=TIMEOUT_MS):
        lists.add_button.click()
    assert f"Mot · {WORD} · avec image" in lists.texts()  # it will come with its picture
    # A name with a picture of the set chosen for it.
    lists.text.setText(PET)
    lists.picture.setCurrentIndex(lists.picture.findData("chien"))
    with qtbot.waitSignal(lists.items_loaded, timeout=TIMEOUT_MS):
        lists.add_button.click()
    assert f"Mot · {PET} · image : chien" in lists.texts()
    assert lists.picture.currentIndex() == 0  # back to "Sans image" for the next word
    with qtbot.waitSignal(panel.program_saved, timeout=TIMEOUT_MS):
        panel.save_button.click()


def test_therapist_sets_a_program_and_the_patient_runs_it(
    open_window, repository, silent_player
) -> None:
    patient = repository.patients.create("Jeanne Martin")
    repository.accounts.create(USERNAME, PASSWORD)
    driver = open_window()
    window = driver.window
    driver.wait_screen("chooser")
    driver.wait_ready()
    qtbot = driver.qtbot
    qtbot.waitUntil(lambda: window.program_plan == [] and window.patient is not None)
    assert not window.chooser.has_program  # nothing set yet

    window.therapist_button.click()
    driver.wait_screen("therapist")
    area = window.therapist
    with qtbot.waitSignal(area.login.mode_changed, timeout=TIMEOUT_MS):
        pass
    area.login.username.setText(USERNAME)
    area.login.password.setText(PASSWORD)
    with qtbot.waitSignal(area.program.program_loaded, timeout=TIMEOUT_MS):
        area.login.submit_button.click()
    _set_program(qtbot, area)
    with qtbot.waitSignal(window.program_ready, timeout=TIMEOUT_MS):
        area.lock_button.click()
    driver.wait_screen("chooser")

    chooser = window.chooser
    assert chooser.has_program and chooser.program_button.isVisible()
    assert (
        chooser.program_button.hint.text()
        == "Compléter, puis Répéter, puis Nommer des images · 4 à chaque fois"
    )
    assert window.focusWidget() is chooser.program_button  # the first thing offered
    assert all(button.isVisible() for button in chooser.buttons.values())  # the rest stays

    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=5000)
    driver.key(Qt.Key.Key_P)
    driver.wait_screen("completion")
    driver.follow()
    settings = driver.screen.controller.settings
    assert settings.max_items == 4
    assert settings.rate_factor == pytest.approx(0.8)
    assert settings.trailing_silence_ms == 6000
    assert settings.custom_items == (FAMILY, WORD, PET)
    driver.wait_state(State.AWAITING_REPETITION)
    assert driver.screen.controller.item.prompt == "Ma fille s'appelle …"  # the patient's own
    for _ in range(4):
        driver.wait_state(State.AWAITING_REPETITION)
        assert driver.screen.controller.next_item()

    driver.wait_screen("repetition")
    driver.follow()
    controller = driver.screen.controller
    assert controller.settings.repetition_level == 2 and not controller.settings.resume
    driver.wait_state(State.AWAITING_REPETITION)
    assert controller.item.prompt == FAMILY
    # The real voice said the therapist's sentence, at the program's pace.
    said = silent_player.played[-1]
    heard = hear(window.services, said)
    assert heard is not None and "julie" in heard.transcript.text.lower()
    assert controller.next_item()
    driver.wait_state(State.AWAITING_REPETITION)
    assert controller.item.target == WORD  # a word is repeated too
    assert controller.next_item()
    driver.wait_state(State.AWAITING_REPETITION)
    assert controller.item.target == PET
    assert controller.next_item()
    driver.wait_state(State.AWAITING_REPETITION)
    assert controller.item.level == 2  # then the therapist's level
    assert controller.next_item()

    driver.wait_screen("naming")
    driver.follow()
    controller = driver.screen.controller
    assert controller.settings.naming_category == "animal"
    driver.wait_state(State.AWAITING_REPETITION)
    assert controller.item.target == "chameau"  # the patient's own word, with its picture
    assert driver.screen.picture.renderer().isValid()  # its picture is on screen
    assert controller.next_item()
    driver.wait_state(State.AWAITING_REPETITION)
    assert controller.item.target == PET  # named by the word, shown with the dog's picture
    assert controller.item.picture.endswith("chien.svg")
    assert controller.next_item()
    driver.wait_state(State.AWAITING_REPETITION)
    animal = default_bank().by_word(controller.item.target)
    assert animal is not None and animal.category == "animal" and animal.frequency_band <= 2
    assert controller.next_item()
    driver.wait_state(State.AWAITING_REPETITION)
    assert controller.next_item()

    driver.wait_screen("chooser")
    assert window.banner.text() == PROGRAM_DONE
    assert repository.patients.get(patient.id).pause_tolerance_ms == 6000
