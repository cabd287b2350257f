"""Therapist area, "Sauvegarde" tab: a reminder, a working backup button, and restoring a backup."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

pytest.importorskip("PySide6")

from therapist_fixtures import SIGNAL_TIMEOUT_MS  # noqa: E402

from therapy_app.storage.backup import restore_backup  # noqa: E402

if TYPE_CHECKING:
    from therapy_app.gui.therapist import TherapistArea
    from therapy_app.storage import SessionRepository

pytestmark = pytest.mark.gui


def test_backup_tab_reminds_then_writes_a_backup_that_restores(
    qtbot, unlocked_area: TherapistArea, tmp_path: Path
) -> None:
    panel = unlocked_area.backup
    unlocked_area.tabs.setCurrentWidget(panel)
    # Seeded attempts and never a backup: the therapist is reminded.
    assert panel.reminder.isVisible()
    assert panel.reminder.text().startswith("Aucune sauvegarde des données")
    assert panel.last_label.text() == "Aucune sauvegarde n'a encore été faite."

    folder = tmp_path / "cle-usb"
    folder.mkdir()
    panel.passphrase.setText("correct horse battery")
    with qtbot.waitSignal(panel.backup_written, timeout=SIGNAL_TIMEOUT_MS) as written:
        panel.back_up(folder)
    path = Path(written.args[0])
    assert path.parent == folder and path.is_file()
    assert panel.status.text().startswith(f"Sauvegarde écrite : {path}")
    assert "chiffrée" in panel.status.text()
    assert not panel.reminder.isVisible()
    assert panel.last_label.text().startswith("Dernière sauvegarde : ")
    assert panel.passphrase.text() == ""  # not kept in the widget
    # What was written is a real backup: it restores into an empty folder.
    restored = restore_backup(path, tmp_path / "restored", passphrase="correct horse battery")
    assert restored.attempt_count > 0


def test_a_backup_that_cannot_be_written_says_so_in_french(
    qtbot, unlocked_area: TherapistArea, tmp_path: Path
) -> None:
    panel = unlocked_area.backup
    unlocked_area.tabs.setCurrentWidget(panel)
    panel.passphrase.setText("court")  # under 8 characters
    folder = tmp_path / "cle-usb"
    folder.mkdir()
    panel.back_up(folder)
    qtbot.waitUntil(lambda: panel.button.isEnabled(), timeout=SIGNAL_TIMEOUT_MS)
    assert panel.status.isVisible() and "trop court" in panel.status.text()
    assert list(folder.iterdir()) == []


def test_locking_clears_the_backup_tab(unlocked_area: TherapistArea) -> None:
    unlocked_area.backup.passphrase.setText("secret-secret")
    unlocked_area.lock()
    assert unlocked_area.backup.passphrase.text() == ""
    assert not unlocked_area.backup.reminder.isVisible()


def _backup_of_other_data(tmp_path: Path, passphrase: str | None = None) -> Path:
    """A backup of another data folder: 1 patient, 2 attempts."""
    from restore_fixtures import fill
    from storage_fixtures import FakeClock

    from therapy_app.storage import SessionRepository
    from therapy_app.storage.backup import create_backup

    clock = FakeClock()
    fill(tmp_path / "other", 2, clock)
    with SessionRepository(tmp_path / "other", clock=clock) as repo:
        return create_backup(repo, tmp_path / "b.therapy-backup", passphrase=passphrase).path


def _answer_dialogs(
    monkeypatch: pytest.MonkeyPatch, archive: Path, answer: str, passphrase: str = ""
) -> list[str]:
    """Patch the dialogs: the file chosen, the passphrase typed, every box answered ``answer``."""
    from PySide6.QtWidgets import QFileDialog, QInputDialog, QMessageBox

    shown: list[str] = []

    def message_box(box: QMessageBox) -> QMessageBox.StandardButton:
        shown.append(box.text())
        return getattr(QMessageBox.StandardButton, answer)

    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *args, **kwargs: (str(archive), ""))
    monkeypatch.setattr(
        QInputDialog, "getText", lambda *args, **kwargs: shown.append("mdp") or (passphrase, True)
    )
    monkeypatch.setattr(QMessageBox, "exec", message_box)
    return shown


def test_restore_button_confirms_restores_keeps_the_previous_data_and_closes(
    qtbot, unlocked_area: TherapistArea, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from restore_fixtures import attempt_count, recordings

    from therapy_app.storage.backup import ASIDE_PREFIX

    panel = unlocked_area.backup
    unlocked_area.tabs.setCurrentWidget(panel)
    archive = _backup_of_other_data(tmp_path, "correct horse battery")
    data_dir = tmp_path / "data"
    before = recordings(data_dir)
    shown = _answer_dialogs(monkeypatch, archive, "Yes", "correct horse battery")
    with qtbot.waitSignal(panel.restored, timeout=SIGNAL_TIMEOUT_MS) as done:
        panel.restore_button.click()
    question, information = shown[1:]
    assert shown[0] == "mdp"  # the passphrase was asked
    # What is replaced by what, the backup's date, and that nothing is deleted.
    assert "sauvegarde du 14/03/2025" in question
    assert "1 patient(s) et 2 essai(s)" in question
    assert "2 patient(s) et 7 essai(s)" in question
    assert "avant-restauration-" in question and "Rien n'est effacé" in question
    aside = Path(done.args[0])
    assert aside.parent == data_dir and aside.name.startswith(ASIDE_PREFIX)
    assert str(aside) in information and "relancez" in information
    assert not unlocked_area.isVisible()  # the app closes: it must be restarted
    assert attempt_count(data_dir / "therapy_app.sqlite3") == 2
    assert attempt_count(aside / "therapy_app.sqlite3") == 7
    assert before.items() <= recordings(data_dir).items()  # no recording lost


def test_restore_refused_or_cancelled_changes_nothing_and_the_app_goes_on(
    qtbot,
    unlocked_area: TherapistArea,
    therapist_repo: SessionRepository,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from restore_fixtures import recordings

    panel = unlocked_area.backup
    unlocked_area.tabs.setCurrentWidget(panel)
    data_dir = tmp_path / "data"
    before = recordings(data_dir)
    photo = tmp_path / "photo.jpg"
    photo.write_bytes(b"\xff\xd8\xff" + b"x" * 100)
    _answer_dialogs(monkeypatch, photo, "Yes")
    with qtbot.waitSignal(panel.restore_failed, timeout=SIGNAL_TIMEOUT_MS) as refused:
        panel.restore_button.click()
    assert "pas une sauvegarde" in refused.args[0]
    assert panel.status.text() == refused.args[0] and panel.restore_button.isEnabled()

    archive = _backup_of_other_data(tmp_path)
    shown = _answer_dialogs(monkeypatch, archive, "No")
    panel.restore_button.click()
    qtbot.waitUntil(lambda: len(shown) == 1, timeout=SIGNAL_TIMEOUT_MS)
    assert "Restaurer la sauvegarde" in shown[0]
    assert "annulée" in panel.status.text() and panel.restore_button.isEnabled()
    assert unlocked_area.isVisible()
    panel.refresh()  # the repository is still open and usable
    assert therapist_repo.maintenance.data_counts() == (2, 7)
    assert recordings(data_dir) == before
    assert not [p for p in data_dir.iterdir() if "restauration-" in p.name]


def test_after_a_restore_the_main_window_closes_and_the_next_start_sees_the_backup(
    qtbot,
    seeded_history,  # noqa: ANN001 - fixture: the therapist account and 7 attempts
    therapist_repo: SessionRepository,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from therapist_fixtures import log_in

    from therapy_app.errors import ModelMissingError
    from therapy_app.gui.main_window import MainWindow
    from therapy_app.speech.loading import LoadStep
    from therapy_app.speech.services import SilentPlayer
    from therapy_app.storage import SessionRepository as Repository

    def no_model() -> None:
        raise ModelMissingError("Il manque le modèle.", "", "test without models")

    window = MainWindow(
        therapist_repo, player=SilentPlayer(), load_steps=[LoadStep("asr", "ASR", no_model)]
    )
    qtbot.addWidget(window)
    window.show()
    window.open_therapist_area()
    area = window.therapist
    assert area is not None
    with qtbot.waitSignal(area.login.mode_changed, timeout=SIGNAL_TIMEOUT_MS):
        pass
    log_in(qtbot, area)
    # No patient selected: closing the window from an unlocked area with a
    # patient selected raises TaskError in area.lock() (patient_list.clear()
    # loads the next patient after the runner shut down): a bug of its own,
    # present before restores existed, reported separately.
    area.patient_list.setCurrentRow(-1)
    _answer_dialogs(monkeypatch, _backup_of_other_data(tmp_path), "Yes")
    with qtbot.waitSignal(area.backup.restored, timeout=SIGNAL_TIMEOUT_MS):
        area.backup.restore_button.click()
    qtbot.waitUntil(lambda: not window.isVisible(), timeout=SIGNAL_TIMEOUT_MS)
    with Repository(tmp_path / "data") as restarted:
        assert restarted.maintenance.data_counts() == (1, 2)
