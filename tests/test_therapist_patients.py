"""Therapist area: patient management (rename, archive, restore, delete) and custom list files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

pytest.importorskip("PySide6")

from therapist_fixtures import SIGNAL_TIMEOUT_MS  # noqa: E402

from therapy_app.gui.therapist.area import ARCHIVED_SUFFIX, TAB_EXPORTS, TAB_PATIENT  # noqa: E402
from therapy_app.storage import SessionRepository  # noqa: E402

if TYPE_CHECKING:
    from therapy_app.gui.therapist import TherapistArea

pytestmark = pytest.mark.gui


def _profiles(qtbot, repo: SessionRepository, runner) -> list[str]:  # noqa: ANN001
    """Names on the patient start screen (the real ProfileScreen)."""
    from therapy_app.gui.patient.profiles import ProfileScreen

    screen = ProfileScreen(repo, runner)
    qtbot.addWidget(screen)
    with qtbot.waitSignal(screen.patients_loaded, timeout=SIGNAL_TIMEOUT_MS):
        screen.reload()
    return [p.display_name for p in screen.patients]


def test_rename_archive_restore_are_audited_and_reach_the_start_screen(
    qtbot, unlocked_area: TherapistArea, therapist_repo: SessionRepository, seeded_history
) -> None:
    panel = unlocked_area.patient_panel
    unlocked_area.tabs.setCurrentIndex(TAB_PATIENT)
    patient = seeded_history.patient
    assert panel.name.text() == "Jeanne Dupont"

    panel.name.setText("Jeanne Martin")
    with qtbot.waitSignal(panel.changes_loaded, timeout=SIGNAL_TIMEOUT_MS):
        panel.rename_button.click()
    assert therapist_repo.patients.get(patient.id).display_name == "Jeanne Martin"
    assert unlocked_area.patient_names()[0] == "Jeanne Martin"
    assert unlocked_area.exports.patient_label.text() == "Exports pour Jeanne Martin"

    with qtbot.waitSignal(panel.changes_loaded, timeout=SIGNAL_TIMEOUT_MS):
        panel.archive_button.click()
    assert therapist_repo.patients.get(patient.id).archived
    # Still in the therapist's list (history kept), marked; gone from the start screen.
    assert unlocked_area.patient_names()[0] == "Jeanne Martin" + ARCHIVED_SUFFIX
    assert _profiles(qtbot, therapist_repo, unlocked_area.runner) == ["Paul Martin"]
    assert len(therapist_repo.sessions.all(patient.id)) == 3
    assert panel.archive_button.text() == "Restaurer"

    with qtbot.waitSignal(panel.changes_loaded, timeout=SIGNAL_TIMEOUT_MS):
        panel.archive_button.click()
    assert _profiles(qtbot, therapist_repo, unlocked_area.runner) == [
        "Jeanne Martin",
        "Paul Martin",
    ]
    shown = [panel.changes.item(i).text() for i in range(panel.changes.count())]
    assert "Restauré (claire)" in shown[0] and "Archivé (claire)" in shown[1]
    assert "Renommé : Jeanne Dupont → Jeanne Martin (claire)" in shown[2]


def test_delete_needs_the_name_typed_and_offers_the_export_first(
    qtbot, unlocked_area: TherapistArea, therapist_repo: SessionRepository, seeded_history
) -> None:
    panel = unlocked_area.patient_panel
    unlocked_area.tabs.setCurrentIndex(TAB_PATIENT)
    patient = seeded_history.patient
    panel.delete_button.click()
    assert panel.confirm_frame.isVisible() and not panel.confirm_button.isEnabled()
    # The export is offered first: it opens the existing exports tab.
    panel.export_first_button.click()
    assert unlocked_area.tabs.currentIndex() == TAB_EXPORTS
    assert unlocked_area.exports.csv_button.isEnabled()
    unlocked_area.tabs.setCurrentIndex(TAB_PATIENT)

    panel.confirm_name.setText("Paul Martin")  # the wrong patient's name
    assert not panel.confirm_button.isEnabled()
    assert therapist_repo.patients.get(patient.id)  # still there

    panel.confirm_name.setText("Jeanne Dupont")
    assert panel.confirm_button.isEnabled()
    with qtbot.waitSignal(panel.patient_deleted, timeout=SIGNAL_TIMEOUT_MS) as deleted:
        panel.confirm_button.click()
    assert deleted.args == [patient.id]
    with pytest.raises(KeyError):
        therapist_repo.patients.get(patient.id)
    assert unlocked_area.patient_names() == ["Paul Martin"]
    [change] = therapist_repo.patients.changes(patient.id)
    assert (change.action, change.editor) == ("delete", "claire")


def test_custom_list_export_then_import_never_overwrites(
    qtbot,
    unlocked_area: TherapistArea,
    therapist_repo: SessionRepository,
    seeded_history,
    tmp_path: Path,
) -> None:
    lists = unlocked_area.custom_lists
    lists.kind.setCurrentIndex(lists.kind.findData("word"))
    lists.text.setText("couscous")
    lists.theme.setText("repas")
    with qtbot.waitSignal(lists.items_loaded, timeout=SIGNAL_TIMEOUT_MS):
        lists.add_button.click()
    lists.text.setText("Couscous")
    with qtbot.waitSignal(lists.items_loaded, timeout=SIGNAL_TIMEOUT_MS):
        lists.add_button.click()
    assert lists.status.text() == "« Couscous » est déjà dans la liste."
    assert lists.texts() == ["Mot · couscous (repas)"]

    file = tmp_path / "liste.json"
    lists.export_to(file)
    qtbot.waitUntil(file.exists, timeout=SIGNAL_TIMEOUT_MS)
    data = json.loads(file.read_text(encoding="utf-8"))
    data["items"].append({"kind": "sentence", "text": "J'habite rue des Lilas.", "category": ""})
    file.write_text(json.dumps(data), encoding="utf-8")

    with qtbot.waitSignal(unlocked_area.history.attempts_loaded, timeout=SIGNAL_TIMEOUT_MS):
        unlocked_area.select_patient(seeded_history.other.id)
    assert lists.texts() == []
    lists.import_from(file)
    qtbot.waitUntil(
        lambda: lists.texts() == ["Mot · couscous (repas)", "Phrase · J'habite rue des Lilas."],
        timeout=SIGNAL_TIMEOUT_MS,
    )
    assert lists.status.text() == "2 élément(s) ajouté(s)."
    lists.import_from(file)  # again: nothing doubled, nothing replaced
    qtbot.waitUntil(lambda: "déjà" in lists.status.text(), timeout=SIGNAL_TIMEOUT_MS)
    assert lists.status.text().startswith("0 élément(s) ajouté(s). 2 déjà dans la liste")
    assert len(therapist_repo.programs.custom_items(seeded_history.other.id)) == 2

    bad = tmp_path / "mauvais.json"
    bad.write_text('{"format": "therapy-app-custom-list", "version": 9, "items": []}')
    with qtbot.waitSignal(lists.failed, timeout=SIGNAL_TIMEOUT_MS) as failed:
        lists.import_from(bad)
    assert failed.args[0].startswith("Ce fichier vient d'une version plus récente")


def test_the_program_tab_fits_a_laptop_screen_without_sideways_scrolling(
    qtbot, unlocked_area
) -> None:
    # Five exercises (dialogues too) with their difficulty and theme; the own list has its tab.
    unlocked_area.resize(1256, 600)  # the area in the window on a 1366x768 screen
    unlocked_area.tabs.setCurrentWidget(unlocked_area.program_scroll)
    qtbot.waitUntil(lambda: unlocked_area.program.rows and unlocked_area.program.isVisible())
    for _ in range(3):
        qtbot.wait(10)
    scroll = unlocked_area.program_scroll
    assert len(unlocked_area.program.rows) == 5
    assert scroll.horizontalScrollBar().maximum() == 0, scroll.widget().minimumSizeHint()
    unlocked_area.tabs.setCurrentWidget(unlocked_area.list_scroll)
    qtbot.waitUntil(unlocked_area.custom_lists.isVisible)
    assert unlocked_area.list_scroll.horizontalScrollBar().maximum() == 0
    assert unlocked_area.custom_lists.visibleRegion().boundingRect().width() == (
        unlocked_area.custom_lists.width()
    )
