"""Editing the program tab: the wheel scrolls the page, a "Mot" is a word, "Retirer" asks first.

Issue 25 (walkthrough at 1366×768): the wheel changed the spin boxes while
scrolling the page, a sentence was accepted as a "Mot", and "Retirer" had
no confirmation and sent the list back to its top after each removal.
"""

from __future__ import annotations

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import QPoint, QPointF, Qt  # noqa: E402
from PySide6.QtGui import QWheelEvent  # noqa: E402
from PySide6.QtWidgets import QApplication, QWidget  # noqa: E402
from therapist_fixtures import SIGNAL_TIMEOUT_MS  # noqa: E402

from therapy_app.gui.therapist.area import TAB_LIST, TAB_PROGRAM, TherapistArea  # noqa: E402
from therapy_app.practice.custom import is_one_word, word_problem  # noqa: E402

pytestmark = pytest.mark.gui

FAMILY = "Ma fille s'appelle Julie."


def _wheel(widget: QWidget, steps: int = -1) -> bool:
    """Turn the wheel ``steps`` notches over ``widget`` (negative: down); True if accepted."""
    centre = QPointF(widget.rect().center())
    event = QWheelEvent(
        centre,
        QPointF(widget.mapToGlobal(centre.toPoint())),
        QPoint(0, 0),
        QPoint(0, 120 * steps),
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
        Qt.ScrollPhase.NoScrollPhase,
        False,
    )
    QApplication.sendEvent(widget, event)
    return event.isAccepted()


@pytest.fixture
def program_tab(qtbot, unlocked_area: TherapistArea) -> TherapistArea:
    """The unlocked area on a laptop screen, the program tab shown and loaded."""
    unlocked_area.resize(1366, 480)  # the program's page scrolls
    with qtbot.waitSignal(unlocked_area.program.program_loaded, timeout=SIGNAL_TIMEOUT_MS):
        unlocked_area.program.set_patient(unlocked_area.current_patient)
    unlocked_area.tabs.setCurrentIndex(TAB_PROGRAM)
    unlocked_area.activateWindow()
    qtbot.waitUntil(unlocked_area.isActiveWindow, timeout=5000)
    return unlocked_area


def test_the_wheel_scrolls_the_page_and_changes_a_field_only_when_it_has_the_focus(
    qtbot, program_tab: TherapistArea
) -> None:
    panel = program_tab.program
    page = program_tab.program_scroll.verticalScrollBar()
    qtbot.waitUntil(lambda: page.maximum() > 0, timeout=5000)
    page.setValue(0)
    combo = panel.rows[0].difficulty
    fields = [(panel.items, panel.items.value), (panel.rate, panel.rate.value)]
    fields.append((combo, combo.currentIndex))
    fields.append((program_tab.patient_settings.pause, program_tab.patient_settings.pause.value))
    for field, value in fields:
        assert field.focusPolicy() == Qt.FocusPolicy.StrongFocus  # the wheel does not focus it
        before, scrolled = value(), page.value()
        _wheel(field)
        assert value() == before, field.accessibleName()  # unchanged...
        assert page.value() > scrolled or page.value() == page.maximum()  # ...the page scrolls
        page.setValue(0)

    panel.items.setFocus()
    qtbot.waitUntil(panel.items.hasFocus, timeout=5000)
    before = panel.items.value()
    _wheel(panel.items, 1)  # focused: the wheel is for it
    assert panel.items.value() == before + 1
    assert page.value() == 0


def test_a_sentence_is_refused_as_a_word_in_french(qtbot, program_tab: TherapistArea) -> None:
    program_tab.tabs.setCurrentIndex(TAB_LIST)
    lists = program_tab.custom_lists
    count = lists.list.count()
    lists.kind.setCurrentIndex(lists.kind.findData("word"))
    lists.text.setText(FAMILY)
    lists.add_button.click()
    assert lists.status.isVisible() and lists.status.property("role") == "error"
    assert lists.status.text().startswith(f"« {FAMILY} » n'est pas un mot")
    assert "Phrase" in lists.status.text()
    assert lists.text.text() == FAMILY  # kept, to be changed
    assert lists.list.count() == count  # refused before anything was stored

    lists.text.setText("le chameau")  # one word, with its article
    with qtbot.waitSignal(lists.items_loaded, timeout=SIGNAL_TIMEOUT_MS):
        lists.add_button.click()
    assert "Mot · le chameau · avec image" in lists.texts()


@pytest.mark.parametrize(
    ("text", "one"),
    [
        ("Médor", True),
        ("le chat", True),
        ("l'arbre", True),
        ("de la farine", True),
        ("une pomme de terre", True),
        ("arc-en-ciel", True),
        ("Médor.", True),
        (FAMILY, False),
        ("le chat dort", False),
        ("je mange", False),
        ("bonjour, madame", False),
    ],
)
def test_what_counts_as_one_word(text: str, one: bool) -> None:
    assert is_one_word(text) is one
    assert (word_problem(text) is None) is one
    assert is_one_word("un feu rouge", known={"feu rouge"})  # a picture's name


def test_retirer_asks_naming_the_item_and_keeps_the_place(
    qtbot, program_tab: TherapistArea
) -> None:
    program_tab.tabs.setCurrentIndex(TAB_LIST)
    lists = program_tab.custom_lists
    lists.kind.setCurrentIndex(lists.kind.findData("sentence"))
    for number in range(1, 13):
        lists.text.setText(f"Phrase numéro {number} de Jeanne.")
        with qtbot.waitSignal(lists.items_loaded, timeout=SIGNAL_TIMEOUT_MS):
            lists.add_button.click()
    scroll = lists.list.verticalScrollBar()
    qtbot.waitUntil(lambda: scroll.maximum() > 0, timeout=5000)
    lists.list.setCurrentRow(8)
    lists.list.scrollToItem(lists.list.currentItem())
    where = scroll.value()
    assert where > 0

    lists.remove_button.click()
    box = lists.confirm_box
    assert box is not None and box.isVisible()
    assert "Retirer « Phrase numéro 9 de Jeanne. » de la liste de Jeanne Dupont ?" in box.text()
    box.reject()  # "Annuler": nothing removed
    assert lists.confirm_box is None and lists.list.count() == 12

    lists.remove_button.click()
    box = lists.confirm_box
    assert box is not None
    with qtbot.waitSignal(lists.items_loaded, timeout=SIGNAL_TIMEOUT_MS):
        next(b for b in box.buttons() if b.text() == "Retirer").click()
    assert lists.list.count() == 11
    assert "Phrase numéro 9 de Jeanne." not in " ".join(lists.texts())
    # The neighbour is selected where the removed item was; the list did not jump.
    assert lists.list.currentRow() == 8
    assert lists.list.currentItem().text().endswith("Phrase numéro 10 de Jeanne.")
    assert scroll.value() == where
