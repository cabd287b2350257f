"""The selected patient's practice settings: how long a pause may last before recording stops."""

from __future__ import annotations

import logging

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QDoubleSpinBox, QHBoxLayout, QLabel, QWidget

from therapy_app import pause_tolerance
from therapy_app.gui.tasks import TaskRunner
from therapy_app.gui.therapist.style import set_role
from therapy_app.storage import Patient, SessionRepository

_LOGGER = logging.getLogger(__name__)

PAUSE_LABEL = "Silence qui termine l'enregistrement"
PAUSE_HELP = (
    "Durée de silence après laquelle l'enregistrement s'arrête seul. Plus long si le "
    "patient cherche ses mots ; il peut toujours arrêter avec Espace ou le bouton."
)
SAVE_FAILED = "Réglage non enregistré."


class PatientSettings(QWidget):
    """A seconds field for the patient's pause tolerance, saved when edited.

    Signals:
        saved(Patient): the setting is stored (the patient as now stored).
    """

    saved = Signal(object)

    def __init__(
        self, repository: SessionRepository, runner: TaskRunner, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self._repository = repository
        self._runner = runner
        self._patient: Patient | None = None
        title = QLabel(PAUSE_LABEL + " :")
        self.pause = QDoubleSpinBox()
        self.pause.setRange(pause_tolerance.MIN_MS / 1000, pause_tolerance.MAX_MS / 1000)
        self.pause.setSingleStep(0.5)
        self.pause.setDecimals(1)
        self.pause.setSuffix(" s")
        self.pause.setToolTip(PAUSE_HELP)
        self.pause.setAccessibleName(PAUSE_LABEL)
        title.setBuddy(self.pause)
        self.status = QLabel()
        set_role(self.status, "muted")
        self.pause.setMaximumWidth(160)
        # One line: the program tab fits a 768-pixel screen (issue 25).
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(title)
        layout.addWidget(self.pause)
        layout.addWidget(self.status, 1)
        self.pause.editingFinished.connect(self._save)
        self.setEnabled(False)

    def set_patient(self, patient: Patient | None) -> None:
        """Show ``patient``'s settings (None: nothing selected)."""
        self._patient = patient
        self.setEnabled(patient is not None)
        self.status.clear()
        if patient is not None:
            self.pause.blockSignals(True)
            self.pause.setValue(patient.pause_tolerance_ms / 1000)
            self.pause.blockSignals(False)

    def _save(self) -> None:
        patient = self._patient
        milliseconds = round(self.pause.value() * 1000)
        if patient is None or milliseconds == patient.pause_tolerance_ms:
            return
        self._runner.submit(
            self._repository.set_pause_tolerance,
            patient.id,
            milliseconds,
            on_done=self._on_saved,
            on_error=self._on_error,
            pool="db",
        )

    def _on_saved(self, patient: Patient) -> None:
        if self._patient is not None and self._patient.id == patient.id:
            self._patient = patient
            self.status.setText("Enregistré.")
        self.saved.emit(patient)

    def _on_error(self, exc: BaseException) -> None:
        _LOGGER.error("saving a patient setting failed", exc_info=exc)
        self.status.setText(SAVE_FAILED)
