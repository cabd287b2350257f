"""Therapist area, "Sauvegarde" tab: a reminder when no backup is recent, and a working button."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

pytest.importorskip("PySide6")
pytest.register_assert_rewrite("therapist_fixtures")

from therapist_fixtures import SIGNAL_TIMEOUT_MS  # noqa: E402

from therapy_app.storage.backup import restore_backup  # noqa: E402

if TYPE_CHECKING:
    from therapy_app.gui.therapist import TherapistArea

pytestmark = [
    pytest.mark.gui,
    pytest.mark.qt_log_ignore(r"This plugin does not support propagateSizeHints\(\)"),
]
pytest_plugins = ("therapist_fixtures",)


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
