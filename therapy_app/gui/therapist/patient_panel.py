"""The patient tab: rename, archive or restore, delete after a confirmation, and the audit trail."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from therapy_app.gui.repository_widget import RepositoryWidget
from therapy_app.gui.therapist.context import TherapistContext
from therapy_app.gui.therapist.failures import error_text
from therapy_app.gui.therapist.formatting import short_datetime
from therapy_app.gui.therapist.style import set_role, show_status, status_label
from therapy_app.practice import catalogue
from therapy_app.storage import Patient
from therapy_app.storage.row_types import PatientChange

_LOGGER = logging.getLogger(__name__)

ACTION_LABELS = {
    "rename": "Renommé",
    "archive": "Archivé",
    "restore": "Restauré",
    "delete": "Supprimé",
    "program": "Programme modifié",
    "import": "Liste importée",
}
ARCHIVE_HELP = (
    "Un patient archivé n'apparaît plus sur l'écran d'accueil des patients. Son "
    "historique est conservé ; vous pouvez le restaurer à tout moment."
)
DELETE_WARNING = (
    "La suppression efface définitivement le patient, ses séances, ses enregistrements, "
    "son programme et ses listes. Exportez d'abord ses données si vous devez les garder."
)


def _exercise_name(kind: str) -> str:
    try:
        return catalogue.info(kind).therapist_name
    except KeyError:
        return kind


def change_label(change: PatientChange) -> str:
    """ "14/03/2025 10:30 · Renommé : Jeanne Dupont → Jeanne Martin (claire)"."""
    what = ACTION_LABELS.get(change.action, change.action)
    if change.action == "program" and change.new_value:
        what += " : " + ", ".join(_exercise_name(k) for k in change.new_value.split(", "))
    elif change.old_value and change.new_value:
        what += f" : {change.old_value} → {change.new_value}"
    elif change.new_value:
        what += f" : {change.new_value}"
    return f"{short_datetime(change.changed_at)} · {what} ({change.editor})"


class PatientPanel(RepositoryWidget):
    """Manages the selected patient.

    Args:
        context: the data, the task runner and the logged-in therapist (every
            change is audited).

    Signals:
        patient_changed(object): the patient as now stored (renamed, archived, restored).
        patient_deleted(int): the deleted patient's id.
        export_requested(): "Exporter d'abord" (the area shows its exports tab).
        changes_loaded(int): the audit list is on screen (count).
        failed(str): French message.
    """

    patient_changed = Signal(object)
    patient_deleted = Signal(int)
    export_requested = Signal()
    changes_loaded = Signal(int)
    failed = Signal(str)

    def __init__(self, context: TherapistContext, parent: QWidget | None = None) -> None:
        super().__init__(context.repository, context.runner, parent)
        self._editor = context.editor
        self._patient: Patient | None = None

        self.patient_label = QLabel()
        self.patient_label.setTextFormat(Qt.TextFormat.PlainText)
        set_role(self.patient_label, "section")
        self.name = QLineEdit()
        self.name.setAccessibleName("Nom du patient")
        self.rename_button = QPushButton("Renommer")
        rename_box = QGroupBox("Nom")
        rename_row = QHBoxLayout(rename_box)
        rename_row.addWidget(self.name, 1)
        rename_row.addWidget(self.rename_button)

        self.archive_button = QPushButton()
        archive_help = QLabel(ARCHIVE_HELP)
        archive_help.setWordWrap(True)
        set_role(archive_help, "muted")
        archive_box = QGroupBox("Archivage")
        archive_layout = QVBoxLayout(archive_box)
        archive_layout.addWidget(archive_help)
        archive_layout.addWidget(self.archive_button, 0, Qt.AlignmentFlag.AlignLeft)

        self.delete_button = QPushButton("Supprimer ce patient…")
        self.confirm_frame = QFrame()
        self.confirm_frame.setFrameShape(QFrame.Shape.StyledPanel)
        warning = QLabel(DELETE_WARNING)
        warning.setWordWrap(True)
        self.export_first_button = QPushButton("Exporter d'abord ses données…")
        self.confirm_name = QLineEdit()
        self.confirm_name.setAccessibleName("Nom du patient, pour confirmer")
        self.confirm_prompt = QLabel()
        self.confirm_prompt.setWordWrap(True)
        self.confirm_prompt.setTextFormat(Qt.TextFormat.PlainText)
        self.confirm_button = QPushButton("Supprimer définitivement")
        set_role(self.confirm_button, "primary")
        self.cancel_button = QPushButton("Annuler")
        confirm_layout = QVBoxLayout(self.confirm_frame)
        confirm_layout.addWidget(warning)
        confirm_layout.addWidget(self.export_first_button, 0, Qt.AlignmentFlag.AlignLeft)
        confirm_layout.addWidget(self.confirm_prompt)
        confirm_layout.addWidget(self.confirm_name)
        confirm_row = QHBoxLayout()
        confirm_row.addWidget(self.cancel_button)
        confirm_row.addStretch(1)
        confirm_row.addWidget(self.confirm_button)
        confirm_layout.addLayout(confirm_row)
        self.confirm_frame.hide()
        delete_box = QGroupBox("Suppression")
        delete_layout = QVBoxLayout(delete_box)
        delete_layout.addWidget(self.delete_button, 0, Qt.AlignmentFlag.AlignLeft)
        delete_layout.addWidget(self.confirm_frame)

        self.changes = QListWidget()
        self.changes.setAccessibleName("Historique des modifications")
        self.changes.setWordWrap(True)
        self.changes.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        changes_box = QGroupBox("Historique des modifications")
        QVBoxLayout(changes_box).addWidget(self.changes)

        self.status = status_label()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.patient_label)
        layout.addWidget(self.status)
        columns = QHBoxLayout()
        actions = QVBoxLayout()
        actions.addWidget(rename_box)
        actions.addWidget(archive_box)
        actions.addWidget(delete_box)
        actions.addStretch(1)
        columns.addLayout(actions, 3)
        columns.addWidget(changes_box, 2)
        layout.addLayout(columns, 1)

        self.rename_button.clicked.connect(self.rename)
        self.name.returnPressed.connect(self.rename)
        self.archive_button.clicked.connect(self.toggle_archived)
        self.delete_button.clicked.connect(self.ask_delete)
        self.cancel_button.clicked.connect(self._hide_confirmation)
        self.export_first_button.clicked.connect(self.export_requested.emit)
        self.confirm_name.textChanged.connect(self._update_confirm)
        self.confirm_button.clicked.connect(self.delete)
        self.set_patient(None)

    # -- state ------------------------------------------------------------------

    def set_patient(self, patient: Patient | None) -> None:
        """Manage ``patient`` (None: nothing selected)."""
        self._patient = patient
        self._hide_confirmation()
        self._show_status("")
        self.changes.clear()
        self.setEnabled(patient is not None)
        if patient is None:
            self.patient_label.setText("Choisissez un patient.")
            self.name.clear()
            self.archive_button.setText("Archiver")
            return
        archived = " (archivé)" if patient.archived else ""
        self.patient_label.setText(f"{patient.display_name}{archived}")
        self.name.setText(patient.display_name)
        self.archive_button.setText("Restaurer" if patient.archived else "Archiver")
        self._submit(self._repository.patients.changes, patient.id, on_done=self._show_changes)

    def _show_changes(self, changes: list[PatientChange]) -> None:
        self.changes.clear()
        for change in reversed(changes):  # newest first
            self.changes.addItem(change_label(change))
        self.changes_loaded.emit(len(changes))

    # -- actions ----------------------------------------------------------------

    def rename(self) -> None:
        """Store the typed name."""
        name = " ".join(self.name.text().split())
        if self._patient is None or not name or name == self._patient.display_name:
            return
        self._submit(
            self._repository.patients.rename,
            self._patient.id,
            name,
            self._editor(),
            on_done=self._on_changed,
        )

    def toggle_archived(self) -> None:
        """Archive the patient, or restore an archived one."""
        if self._patient is None:
            return
        self._submit(
            self._repository.patients.set_archived,
            self._patient.id,
            not self._patient.archived,
            self._editor(),
            on_done=self._on_changed,
        )

    def _on_changed(self, patient: Patient) -> None:
        was_archived = self._patient is not None and self._patient.archived
        if patient.archived and not was_archived:
            message = "Patient archivé : il n'apparaît plus sur l'écran d'accueil des patients."
        elif was_archived and not patient.archived:
            message = "Patient restauré : il apparaît de nouveau sur l'écran d'accueil."
        else:
            message = "Nom enregistré."
        self.set_patient(patient)
        self._show_status(message, "success")
        self.patient_changed.emit(patient)

    def ask_delete(self) -> None:
        """Show the confirmation: export offered first, the name to type."""
        if self._patient is None:
            return
        self.confirm_prompt.setText(
            f"Pour confirmer, tapez le nom du patient : {self._patient.display_name}"
        )
        self.confirm_name.clear()
        self.confirm_frame.show()
        self.delete_button.hide()
        self._update_confirm()
        self.export_first_button.setFocus()

    def _update_confirm(self) -> None:
        typed = " ".join(self.confirm_name.text().split())
        self.confirm_button.setEnabled(
            self._patient is not None and typed == self._patient.display_name
        )

    def _hide_confirmation(self) -> None:
        self.confirm_frame.hide()
        self.confirm_name.clear()
        self.delete_button.show()

    def delete(self) -> None:
        """Delete the patient (only once the name was typed)."""
        if self._patient is None or not self.confirm_button.isEnabled():
            return
        patient_id = self._patient.id
        self.confirm_button.setEnabled(False)
        self._submit(
            self._repository.patients.delete,
            patient_id,
            self._editor(),
            on_done=lambda _sessions: self._on_deleted(patient_id),
        )

    def _on_deleted(self, patient_id: int) -> None:
        self.set_patient(None)
        self._show_status("Patient supprimé.", "success")
        self.patient_deleted.emit(patient_id)

    # -- plumbing -----------------------------------------------------------------

    def _submit(
        self, fn: Callable[..., object], *args: object, on_done: Callable[[Any], None]
    ) -> None:
        self._runner.submit(
            fn,
            *args,
            on_done=on_done,
            on_error=self._on_error,
            pool="db",
            group="therapist-patient",
        )

    def _on_error(self, exc: BaseException) -> None:
        message = error_text(
            exc, "La modification n'a pas pu être enregistrée.", "patient management"
        )
        self._update_confirm()
        self._show_status(message, "error")
        self.failed.emit(message)

    def _show_status(self, text: str, role: str = "muted") -> None:
        show_status(self.status, text, role)
