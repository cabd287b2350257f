"""The backup tab: when the data was last saved, a reminder, and a button to save it now."""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from therapy_app.gui.tasks import TaskRunner
from therapy_app.gui.therapist.exports_panel import documents_folder
from therapy_app.gui.therapist.style import set_role
from therapy_app.practice.events import french_message
from therapy_app.storage import SessionRepository
from therapy_app.storage.backup import BackupInfo, backup_warning, create_backup

_LOGGER = logging.getLogger(__name__)


class BackupPanel(QWidget):
    """Saves every patient's data (database and recordings) to a folder the therapist picks.

    Signals:
        backup_written(str): a backup file was written (its path).
    """

    backup_written = Signal(str)

    def __init__(
        self, repository: SessionRepository, runner: TaskRunner, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self._repository = repository
        self._runner = runner
        self.last_label = QLabel()
        self.last_label.setTextFormat(Qt.TextFormat.PlainText)
        self.reminder = QLabel()
        self.reminder.setWordWrap(True)
        self.reminder.setTextFormat(Qt.TextFormat.PlainText)
        set_role(self.reminder, "error")
        self.passphrase = QLineEdit()
        self.passphrase.setEchoMode(QLineEdit.EchoMode.Password)
        self.passphrase.setPlaceholderText("Mot de passe (facultatif, 8 caractères au moins)")
        self.passphrase.setAccessibleName("Mot de passe de la sauvegarde")
        self.button = QPushButton("Sauvegarder toutes les données…")
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.status.setTextFormat(Qt.TextFormat.PlainText)  # holds paths
        self.status.hide()

        explain = QLabel(
            "Une sauvegarde contient tous les patients, leurs essais et leurs "
            "enregistrements. Écrivez-la sur une clé USB ou un disque externe, et "
            "gardez-la en lieu sûr : ce sont des données de santé. Avec un mot de "
            "passe, elle est chiffrée : notez-le, il sera demandé pour la restaurer."
        )
        explain.setWordWrap(True)
        row = QHBoxLayout()
        row.addWidget(self.passphrase, 1)
        row.addWidget(self.button)
        layout = QVBoxLayout(self)
        for widget in (explain, self.last_label, self.reminder):
            layout.addWidget(widget)
        layout.addLayout(row)
        layout.addWidget(self.status)
        layout.addStretch(1)
        self.button.clicked.connect(self._choose_folder)

    def refresh(self) -> None:
        """Read when the last backup was made and whether to remind the therapist."""
        last = self._repository.last_backup_time()
        self.last_label.setText(
            f"Dernière sauvegarde : {last.astimezone():%d/%m/%Y à %H:%M}."
            if last
            else "Aucune sauvegarde n'a encore été faite."
        )
        warning = backup_warning(self._repository)
        self.reminder.setText(warning or "")
        self.reminder.setVisible(bool(warning))

    def clear(self) -> None:
        """Forget what is shown (the area is locked)."""
        self.passphrase.clear()
        self.status.hide()
        self.reminder.hide()
        self.last_label.clear()

    def _choose_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(
            self, "Dossier de la sauvegarde", str(documents_folder())
        )
        if folder:
            self.back_up(Path(folder))

    def back_up(self, folder: Path) -> None:
        """Write a backup into ``folder`` in the background; the result shows below."""
        passphrase = self.passphrase.text() or None
        self.button.setEnabled(False)
        self._show_status("Sauvegarde en cours…", "muted")
        self._runner.submit(
            create_backup,
            self._repository,
            folder,
            passphrase=passphrase,
            on_done=self._done,
            on_error=self._failed,
            pool="db",
            group="therapist-backup",
        )

    def _done(self, info: BackupInfo) -> None:
        self.button.setEnabled(True)
        self.passphrase.clear()
        self._show_status(info.summary(), "success")
        self.refresh()
        self.backup_written.emit(str(info.path))

    def _failed(self, exc: BaseException) -> None:
        self.button.setEnabled(True)
        _LOGGER.warning("backup failed: %r", exc)
        self._show_status(french_message(exc), "error")

    def _show_status(self, text: str, role: str) -> None:
        set_role(self.status, role)
        self.status.setText(text)
        self.status.show()
