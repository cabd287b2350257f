"""The therapist's view of the phrase book: sources, agreement, « Retirer » asks, « Remettre »."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import QPoint, QRect  # noqa: E402
from PySide6.QtWidgets import QWidget  # noqa: E402
from therapist_fixtures import SIGNAL_TIMEOUT_MS  # noqa: E402

from therapy_app.gui.therapist.area import TAB_LIST, TAB_PROGRAM  # noqa: E402
from therapy_app.phrases.book import patient_book  # noqa: E402
from therapy_app.phrases.model import Gender, ScriptTurn, Speaker  # noqa: E402
from therapy_app.storage import SessionRepository  # noqa: E402

if TYPE_CHECKING:
    from therapy_app.gui.therapist import TherapistArea

pytestmark = pytest.mark.gui

CHOSEN = "Hier, je suis allé à la boulangerie."  # chosen in the seeded free-speech session
BAKERY = (
    ScriptTurn(Speaker.PARTNER, "Bonjour, vous désirez ?"),
    ScriptTurn(Speaker.PATIENT, "Une baguette, s'il vous plaît."),
)


def _list_tab(qtbot, area: TherapistArea):  # noqa: ANN001, ANN202
    book = area.custom_lists.phrase_book
    with qtbot.waitSignal(book.entries_loaded, timeout=SIGNAL_TIMEOUT_MS):
        area.tabs.setCurrentIndex(TAB_LIST)  # shown: read again
    return book


def test_every_source_is_shown_and_follows_the_list(
    qtbot, unlocked_area: TherapistArea, therapist_repo: SessionRepository, seeded_history
) -> None:
    patient = seeded_history.patient.id
    therapist_repo.scripts.save(patient, "À la boulangerie", BAKERY)
    book = _list_tab(qtbot, unlocked_area)
    assert book.texts() == [
        f"{CHOSEN} — Choisie en parole libre",
        "Une baguette, s'il vous plaît. — Script : À la boulangerie",
    ]
    assert book.gender_note.text().startswith("Accords non précisés")
    lists = unlocked_area.custom_lists
    lists.kind.setCurrentIndex(lists.kind.findData("sentence"))
    lists.text.setText("Je voudrais un café.")
    with qtbot.waitSignal(book.entries_loaded, timeout=SIGNAL_TIMEOUT_MS):
        lists.add_button.click()
    assert book.texts()[0] == "Je voudrais un café. — Liste personnelle"

    # The other patient has nothing of Jeanne's.
    with qtbot.waitSignal(book.entries_loaded, timeout=SIGNAL_TIMEOUT_MS):
        unlocked_area.select_patient(seeded_history.other.id)
    assert book.texts() == [] and book.status.text() == "Aucune phrase pour l'instant."
    assert not book.remove_button.isEnabled() and not book.restore_button.isEnabled()


def test_the_gender_setting_agrees_the_sentences(
    qtbot, unlocked_area: TherapistArea, therapist_repo: SessionRepository, seeded_history
) -> None:
    patient = seeded_history.patient.id
    unlocked_area.tabs.setCurrentIndex(TAB_PROGRAM)
    settings = unlocked_area.patient_settings
    assert settings.gender.isVisible() and settings.gender.currentText().startswith("non précisé")
    assert "je suis allé" in settings.gender.toolTip()
    with qtbot.waitSignal(settings.saved, timeout=SIGNAL_TIMEOUT_MS) as saved:
        settings.gender.setCurrentIndex(settings.gender.findData("f"))
        settings.gender.activated.emit(settings.gender.currentIndex())
    assert saved.args[0].gender is Gender.FEMININE
    assert therapist_repo.patients.get(patient).gender is Gender.FEMININE
    assert settings.status.text() == "Enregistré."

    book = _list_tab(qtbot, unlocked_area)
    assert book.texts() == ["Hier, je suis allée à la boulangerie. — Choisie en parole libre"]
    assert book.gender_note.text().startswith("Accordées au féminin")
    # Another patient and back: the setting shows what is stored.
    unlocked_area.select_patient(seeded_history.other.id)
    assert settings.gender.currentData() == ""
    unlocked_area.select_patient(patient)
    assert settings.gender.currentData() == "f"


def test_retirer_asks_then_remettre_gives_back(
    qtbot, unlocked_area: TherapistArea, therapist_repo: SessionRepository, seeded_history
) -> None:
    patient = seeded_history.patient.id
    therapist_repo.programs.add_custom_item(patient, "sentence", "Je voudrais un café.")
    book = _list_tab(qtbot, unlocked_area)
    assert len(book.texts()) == 2
    assert not book.remove_button.isEnabled()  # nothing selected
    book.list.setCurrentRow(1)
    assert book.remove_button.isEnabled() and not book.restore_button.isEnabled()

    book.remove_button.click()
    box = book.confirm_box
    assert box is not None and box.isVisible()
    assert f"Retirer « {CHOSEN} » des phrases de Jeanne Dupont ?" in box.text()
    box.reject()  # « Annuler »: nothing removed
    assert book.confirm_box is None
    assert therapist_repo.phrases.removals(patient) == []

    book.remove_button.click()
    box = book.confirm_box
    assert box is not None
    with qtbot.waitSignal(book.entries_loaded, timeout=SIGNAL_TIMEOUT_MS):
        next(b for b in box.buttons() if b.text() == "Retirer").click()
    assert book.texts()[1] == f"{CHOSEN} — Choisie en parole libre · retirée"
    assert book.list.item(1).font().italic()
    assert [p.text for p in patient_book(therapist_repo, patient).phrases] == [
        "Je voudrais un café."
    ]
    # The history keeps it: the attempt is not rewritten.
    chosen = [a.record.chosen_sentence for a in therapist_repo.attempts.all(patient_id=patient)]
    assert CHOSEN in chosen
    assert book.list.currentRow() == 1  # the place is kept
    assert book.restore_button.isEnabled() and not book.remove_button.isEnabled()

    with qtbot.waitSignal(book.entries_loaded, timeout=SIGNAL_TIMEOUT_MS):
        book.restore_button.click()
    assert book.texts()[1] == f"{CHOSEN} — Choisie en parole libre"
    assert therapist_repo.phrases.removals(patient) == []
    assert len(patient_book(therapist_repo, patient)) == 2


def test_the_list_file_carries_scripts_and_removals(
    qtbot,
    unlocked_area: TherapistArea,
    therapist_repo: SessionRepository,
    seeded_history,
    tmp_path: Path,
) -> None:
    jeanne, paul = seeded_history.patient.id, seeded_history.other.id
    therapist_repo.scripts.save(jeanne, "À la boulangerie", BAKERY)
    therapist_repo.phrases.remove(jeanne, CHOSEN, "claire")
    lists = unlocked_area.custom_lists
    _list_tab(qtbot, unlocked_area)
    file = tmp_path / "liste.json"
    lists.export_to(file)
    qtbot.waitUntil(lambda: lists.status.text().endswith(f"dans {file}."), timeout=5000)
    assert lists.status.text().startswith("0 élément(s) et 1 script(s) exporté(s)")
    assert json.loads(file.read_text(encoding="utf-8"))["phrase_removals"] == [CHOSEN]

    with qtbot.waitSignal(lists.phrase_book.entries_loaded, timeout=SIGNAL_TIMEOUT_MS):
        unlocked_area.select_patient(paul)
    assert lists.phrase_book.texts() == []
    lists.import_from(file)
    qtbot.waitUntil(lambda: bool(lists.phrase_book.texts()), timeout=SIGNAL_TIMEOUT_MS)
    assert lists.status.text() == (
        "0 élément(s) ajouté(s). 1 script(s) ajouté(s). 1 phrase(s) retirée(s) de ses phrases."
    )
    assert lists.phrase_book.texts() == [
        "Une baguette, s'il vous plaît. — Script : À la boulangerie"
    ]
    assert therapist_repo.phrases.removals(paul) == [CHOSEN]


def _whole(widget: QWidget, window: QWidget) -> bool:
    where = QRect(widget.mapTo(window, QPoint(0, 0)), widget.size())
    return widget.isVisible() and QRect(QPoint(0, 0), window.size()).contains(where)


def test_the_list_tab_fits_a_laptop_screen(
    qtbot, unlocked_area: TherapistArea, therapist_repo: SessionRepository, seeded_history
) -> None:
    patient = seeded_history.patient.id
    for number in range(40):
        therapist_repo.programs.add_custom_item(
            patient, "sentence", f"Phrase numéro {number} de Jeanne."
        )
    unlocked_area.resize(1256, 600)  # the area in the window on a 1366x768 screen
    book = _list_tab(qtbot, unlocked_area)
    for _ in range(3):
        qtbot.wait(10)
    scroll = unlocked_area.list_scroll
    assert scroll.horizontalScrollBar().maximum() == 0, scroll.widget().minimumSizeHint()
    assert scroll.verticalScrollBar().maximum() == 0  # the lists scroll, not the page
    lists = unlocked_area.custom_lists
    for widget in (
        book.remove_button,
        book.restore_button,
        book.list,
        lists.import_button,
        lists.add_button,
    ):
        assert _whole(widget, unlocked_area), widget
    assert book.list.verticalScrollBar().maximum() > 0  # 41 sentences: the list scrolls
