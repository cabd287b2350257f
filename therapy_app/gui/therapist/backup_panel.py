"""The backup tab: when the data was last saved, a reminder, saving it now, and restoring a backup.

A restore replaces the data the whole app is using. The storage function
checks and unpacks the backup first (the app keeps working meanwhile), then
calls back to close the app's own database connection just before the
switch, which needs the database closed. Every widget holds the repository,
so instead of reopening it under them the app closes itself afterwards and
the therapist restarts it: the simplest behaviour that cannot write to a
closed or replaced database. When the backup is refused before that point,
nothing changed and the app goes on as before.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from therapy_app.gui.repository_widget import RepositoryWidget
from therapy_app.gui.therapist.context import TherapistContext
from therapy_app.gui.therapist.exports_panel import documents_folder
from therapy_app.gui.therapist.failures import therapist_text
from therapy_app.gui.therapist.orphan_recordings import OrphanRecordingsSection
from therapy_app.gui.therapist.style import set_role, show_status, status_label
from therapy_app.storage import SessionRepository, StorageUnavailableError
from therapy_app.storage.backup import (
    BACKUP_SUFFIX,
    BackupInfo,
    RestoredBackup,
    backup_warning,
    create_backup,
    inspect_backup,
    restore_backup,
)
from therapy_app.storage.backup_crypto import is_encrypted

_LOGGER = logging.getLogger(__name__)

RESTART = "L'application va se fermer : relancez-la pour continuer."


@dataclass(frozen=True)
class RestorePreview:
    """What a restore would replace, for the confirmation.

    Attributes:
        patients: patients in the current data (archived ones included).
        attempts: attempts in the current data.
        backup: what the backup holds (read from its manifest).
    """

    patients: int
    attempts: int
    backup: BackupInfo


def read_preview(
    repository: SessionRepository, archive: Path, passphrase: str | None
) -> RestorePreview:
    """Read the backup's manifest and the current counts (database worker)."""
    backup = inspect_backup(archive, repository.data_dir, passphrase=passphrase)
    patients, attempts = repository.maintenance.data_counts()
    return RestorePreview(patients, attempts, backup)


def confirmation_text(preview: RestorePreview) -> str:
    """The French question before a restore: what is replaced by what, and where it goes."""
    backup = preview.backup
    return (
        f"Restaurer la sauvegarde du {backup.made_at.astimezone():%d/%m/%Y à %H:%M} ?\n\n"
        f"Elle contient {backup.patient_count} patient(s) et {backup.attempt_count} essai(s). "
        f"Elle remplacera les données actuelles : {preview.patients} patient(s) et "
        f"{preview.attempts} essai(s).\n\n"
        "Rien n'est effacé : les données actuelles sont mises de côté, avec leurs "
        "enregistrements, dans un dossier « avant-restauration-… » du dossier des données.\n\n"
        "L'application se fermera ensuite : il faudra la relancer."
    )


class BackupPanel(RepositoryWidget):
    """Saves every patient's data (database and recordings) to a folder the therapist picks.

    Signals:
        backup_written(str): a backup file was written (its path).
        restored(str): a backup was restored (the folder holding the previous data);
            the app closes right after.
        restore_failed(str): a restore was refused or failed (the French message).
    """

    backup_written = Signal(str)
    restored = Signal(str)
    restore_failed = Signal(str)

    def __init__(self, context: TherapistContext, parent: QWidget | None = None) -> None:
        super().__init__(context.repository, context.runner, parent)
        # Set on the database worker once the app's connection is closed for the switch.
        self._repository_closed = threading.Event()
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
        self.restore_button = QPushButton("Restaurer une sauvegarde…")
        self.status = status_label()
        self.orphans = OrphanRecordingsSection(context)

        explain = QLabel(
            "Une sauvegarde contient tous les patients, leurs essais et leurs "
            "enregistrements. Écrivez-la sur une clé USB ou un disque externe, et "
            "gardez-la en lieu sûr : ce sont des données de santé. Avec un mot de "
            "passe, elle est chiffrée : notez-le, il sera demandé pour la restaurer."
        )
        explain.setWordWrap(True)
        restore_explain = QLabel(
            "Restaurer une sauvegarde remplace toutes les données par les siennes. Rien "
            "n'est effacé : les données actuelles sont mises de côté dans le dossier des "
            "données. L'application se ferme ensuite et doit être relancée."
        )
        restore_explain.setWordWrap(True)
        set_role(restore_explain, "muted")
        row = QHBoxLayout()
        row.addWidget(self.passphrase, 1)
        row.addWidget(self.button)
        restore_row = QHBoxLayout()
        restore_row.addWidget(restore_explain, 1)
        restore_row.addWidget(self.restore_button)
        layout = QVBoxLayout(self)
        for widget in (explain, self.last_label, self.reminder):
            layout.addWidget(widget)
        layout.addLayout(row)
        layout.addLayout(restore_row)
        layout.addWidget(self.status)
        layout.addSpacing(12)
        layout.addWidget(self.orphans)
        layout.addStretch(1)
        self.button.clicked.connect(self._choose_folder)
        self.restore_button.clicked.connect(self._choose_backup)

    def refresh(self) -> None:
        """Read when the last backup was made and whether to remind the therapist."""
        last = self._repository.maintenance.last_backup_time()
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
        self.orphans.clear()

    def _set_busy(self, busy: bool) -> None:
        self.button.setEnabled(not busy)
        self.restore_button.setEnabled(not busy)

    # -- backup -------------------------------------------------------------------

    def _choose_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(
            self, "Dossier de la sauvegarde", str(documents_folder())
        )
        if folder:
            self.back_up(Path(folder))

    def back_up(self, folder: Path) -> None:
        """Write a backup into ``folder`` in the background; the result shows below."""
        passphrase = self.passphrase.text() or None
        self._set_busy(True)
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
        self._set_busy(False)
        self.passphrase.clear()
        self._show_status(info.summary(), "success")
        self.refresh()
        self.backup_written.emit(str(info.path))

    def _failed(self, exc: BaseException) -> None:
        self._set_busy(False)
        _LOGGER.warning("backup failed: %r", exc)
        self._show_status(therapist_text(exc), "error")

    # -- restore ------------------------------------------------------------------

    def _choose_backup(self) -> None:
        name, _ = QFileDialog.getOpenFileName(
            self,
            "Sauvegarde à restaurer",
            str(documents_folder()),
            f"Sauvegardes (*{BACKUP_SUFFIX});;Tous les fichiers (*)",
        )
        if name:
            self.restore_from(Path(name))

    def restore_from(self, archive: Path) -> None:
        """Ask the passphrase if the backup has one, read it in the background, then confirm."""
        try:
            encrypted = archive.is_file() and is_encrypted(archive)
        except OSError as exc:
            self._restore_refused(
                StorageUnavailableError(
                    "Le fichier de sauvegarde ne peut pas être lu.",
                    "Vérifiez que le support est branché et lisible. Rien n'a été modifié.",
                    str(exc),
                )
            )
            return
        passphrase: str | None = None
        if encrypted:
            text, ok = QInputDialog.getText(
                self,
                "Sauvegarde protégée",
                "Mot de passe de cette sauvegarde :",
                QLineEdit.EchoMode.Password,
            )
            if not ok:
                return
            passphrase = text
        self._set_busy(True)
        self._show_status("Lecture de la sauvegarde…", "muted")
        self._runner.submit(
            read_preview,
            self._repository,
            archive,
            passphrase,
            on_done=lambda preview: self._confirm(archive, passphrase, preview),
            on_error=self._restore_refused,
            pool="db",
            group="therapist-restore",
        )

    def _confirm(self, archive: Path, passphrase: str | None, preview: RestorePreview) -> None:
        buttons = QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No
        answer = self._ask(
            QMessageBox.Icon.Warning,
            "Restaurer une sauvegarde",
            confirmation_text(preview),
            buttons,
        )
        if answer != QMessageBox.StandardButton.Yes:
            self._set_busy(False)
            self._show_status("Restauration annulée : rien n'a été modifié.", "muted")
            return
        self._show_status("Restauration en cours… L'application se fermera ensuite.", "muted")
        self._runner.submit(
            restore_backup,
            archive,
            self._repository.data_dir,
            passphrase=passphrase,
            clock=self._repository.now,
            before_switch=self._close_repository,
            on_done=self._restored,
            on_error=self._restore_failed,
            pool="db",
            group="therapist-restore",
        )

    def _close_repository(self) -> None:
        # On the database worker, after every check: the switch needs the file closed.
        self._repository.close()
        self._repository_closed.set()

    def _restored(self, info: RestoredBackup) -> None:
        # The app's own data folder always held a database: something was kept aside.
        kept = (
            f"Les données précédentes sont gardées dans « {info.aside} » ; aucun "
            "enregistrement n'a été effacé.\n\n"
            if info.aside is not None
            else ""
        )
        text = (
            f"La sauvegarde du {info.made_at.astimezone():%d/%m/%Y à %H:%M} a été restaurée "
            f"({info.patient_count} patient(s), {info.attempt_count} essai(s)).\n\n"
            f"{kept}{RESTART}"
        )
        self._show_status(text, "success")
        self._ask(QMessageBox.Icon.Information, "Sauvegarde restaurée", text)
        self.restored.emit(str(info.aside or ""))
        self._close_app()

    def _restore_failed(self, exc: BaseException) -> None:
        if not self._repository_closed.is_set():
            self._restore_refused(exc)
            return
        # Refused at the switch (another copy of the app open) or undone: the
        # data is as it was, but this window's connection is closed.
        _LOGGER.warning("restore failed after closing the database: %r", exc)
        text = f"{therapist_text(exc)}\n\n{RESTART}"
        self._show_status(text, "error")
        self._ask(QMessageBox.Icon.Critical, "Restauration impossible", text)
        self.restore_failed.emit(therapist_text(exc))
        self._close_app()

    def _restore_refused(self, exc: BaseException) -> None:
        self._set_busy(False)
        _LOGGER.warning("restore refused: %r", exc)
        self._show_status(therapist_text(exc), "error")
        self.restore_failed.emit(therapist_text(exc))

    def _close_app(self) -> None:
        """Close the window (the main window's close shuts the app down)."""
        self._set_busy(True)
        self.window().close()

    def _ask(
        self,
        icon: QMessageBox.Icon,
        title: str,
        text: str,
        buttons: QMessageBox.StandardButton = QMessageBox.StandardButton.Ok,
    ) -> QMessageBox.StandardButton:
        box = QMessageBox(icon, title, text, buttons, self)
        box.setTextFormat(Qt.TextFormat.PlainText)  # paths, never markup
        if buttons & QMessageBox.StandardButton.No:
            box.setDefaultButton(QMessageBox.StandardButton.No)
        return QMessageBox.StandardButton(box.exec())

    def _show_status(self, text: str, role: str) -> None:
        show_status(self.status, text, role)
