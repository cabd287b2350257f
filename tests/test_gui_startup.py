"""The desktop app's ``main()``: expected start-up failures end in a French message box."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import Qt, QTimer  # noqa: E402
from PySide6.QtWidgets import QApplication, QMessageBox  # noqa: E402

from therapy_app.errors import AudioDeviceError  # noqa: E402
from therapy_app.gui import app as gui_app  # noqa: E402
from therapy_app.storage import startup_lock as startup_lock_module  # noqa: E402
from therapy_app.storage.repository import DB_FILENAME  # noqa: E402
from therapy_app.storage.startup_lock import startup_lock  # noqa: E402

pytestmark = pytest.mark.gui


def _run_main_and_read_the_box() -> tuple[int, list[tuple[str, Qt.TextFormat]]]:
    """Run ``main()``; answer its modal box from the event loop and return what it said."""
    seen: list[tuple[str, Qt.TextFormat]] = []
    tries = [0]

    def answer() -> None:
        box = QApplication.activeModalWidget()
        if not isinstance(box, QMessageBox):
            tries[0] += 1
            if tries[0] < 200:  # the box opens within a few event-loop turns
                QTimer.singleShot(25, answer)
            return
        seen.append((box.text(), box.textFormat()))
        box.done(0)

    QTimer.singleShot(0, answer)
    return gui_app.main([]), seen


def test_data_folder_replaced_by_a_file(qtbot, tmp_path: Path, monkeypatch) -> None:  # noqa: ANN001
    not_a_folder = tmp_path / "donnees"
    not_a_folder.write_text("x")
    monkeypatch.setenv("THERAPY_APP_DATA_DIR", str(not_a_folder))
    status, seen = _run_main_and_read_the_box()
    assert status == 1
    assert len(seen) == 1
    text, text_format = seen[0]
    assert "remplacé par un fichier" in text
    assert text_format == Qt.TextFormat.PlainText


def test_another_copy_still_starting(qtbot, user_data_dir: Path, monkeypatch) -> None:  # noqa: ANN001
    monkeypatch.setattr(startup_lock_module, "WAIT_S", 0.2)
    with startup_lock(user_data_dir / DB_FILENAME):
        status, seen = _run_main_and_read_the_box()
    assert status == 1
    assert [text for text, _ in seen] and "Une autre copie" in seen[0][0]


def test_any_expected_error_not_only_storage_ones(qtbot, monkeypatch) -> None:  # noqa: ANN001
    # main() used to catch StorageError only: any other TherapyAppError was a traceback.
    def unusable_audio(*_args: object, **_kwargs: object) -> None:
        raise AudioDeviceError("Aucun système audio n'est disponible.", "Branchez un casque.")

    monkeypatch.setattr(gui_app, "SessionRepository", unusable_audio)
    status, seen = _run_main_and_read_the_box()
    assert status == 1
    assert [text for text, _ in seen] == [
        "Aucun système audio n'est disponible. Branchez un casque."
    ]
