"""The selected patient's practice settings: the pause that ends a recording, the agreement."""

from __future__ import annotations

import logging

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QDoubleSpinBox, QHBoxLayout, QLabel, QWidget

from therapy_app import pause_tolerance
from therapy_app.gui.repository_widget import RepositoryWidget
from therapy_app.gui.therapist.context import TherapistContext
from therapy_app.gui.therapist.failures import error_text
from therapy_app.gui.therapist.style import set_role
from therapy_app.phrases.model import Gender
from therapy_app.storage import Patient

_LOGGER = logging.getLogger(__name__)

PAUSE_LABEL = "Silence qui termine l'enregistrement"
PAUSE_HELP = (
    "Durée de silence après laquelle l'enregistrement s'arrête seul. Plus long si le "
    "patient cherche ses mots ; il peut toujours arrêter avec Espace ou le bouton."
)
SAVE_FAILED = "Réglage non enregistré."
GENDER_LABEL = "Accords"
GENDER_CHOICES = (
    (Gender.FEMININE, "au féminin (je suis allée)"),
    (Gender.MASCULINE, "au masculin (je suis allé)"),
    (Gender.UNSAID, "non précisé (je suis allé(e))"),
)
GENDER_HELP = (
    "Accord des phrases à la première personne proposées au patient, en parole libre "
    "et dans ses phrases : « je suis allée » ou « je suis allé ». Non précisé : les "
    "phrases restent telles qu'elles sont écrites."
)


class PatientSettings(RepositoryWidget):
    """The patient's pause tolerance (seconds) and agreement, each saved when changed.

    Args:
        context: the data, the task runner and the logged-in therapist (an
            agreement change is audited).

    Signals:
        saved(Patient): the setting is stored (the patient as now stored).
    """

    saved = Signal(object)

    def __init__(self, context: TherapistContext, parent: QWidget | None = None) -> None:
        super().__init__(context.repository, context.runner, parent)
        self._editor = context.editor
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
        # The agreement of the sentences proposed to the patient.
        gender_title = QLabel(GENDER_LABEL + " :")
        self.gender = QComboBox()
        for gender, label in GENDER_CHOICES:
            self.gender.addItem(label, gender.value)
        self.gender.setToolTip(GENDER_HELP)
        self.gender.setAccessibleName(GENDER_LABEL)
        self.gender.setAccessibleDescription(GENDER_HELP)
        gender_title.setBuddy(self.gender)
        gender_title.setToolTip(GENDER_HELP)
        # One line: the program tab fits a 768-pixel screen.
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(title)
        layout.addWidget(self.pause)
        layout.addSpacing(16)
        layout.addWidget(gender_title)
        layout.addWidget(self.gender)
        layout.addWidget(self.status, 1)
        self.pause.editingFinished.connect(self._save)
        self.gender.activated.connect(self._save_gender)
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
            self.gender.setCurrentIndex(self.gender.findData(patient.gender.value))

    def _save(self) -> None:
        patient = self._patient
        milliseconds = round(self.pause.value() * 1000)
        if patient is None or milliseconds == patient.pause_tolerance_ms:
            return
        self._runner.submit(
            self._repository.patients.set_pause_tolerance,
            patient.id,
            milliseconds,
            on_done=self._on_saved,
            on_error=self._on_error,
            pool="db",
        )

    def _save_gender(self) -> None:
        patient, gender = self._patient, Gender(self.gender.currentData())
        if patient is None or gender is patient.gender:
            return
        repository, editor = self._repository, self._editor()

        def run() -> Patient:
            repository.phrases.set_gender(patient.id, gender, editor)
            return repository.patients.get(patient.id)

        self._runner.submit(run, on_done=self._on_saved, on_error=self._on_error, pool="db")

    def _on_saved(self, patient: Patient) -> None:
        if self._patient is not None and self._patient.id == patient.id:
            self._patient = patient
            self.status.setText("Enregistré.")
        self.saved.emit(patient)

    def _on_error(self, exc: BaseException) -> None:
        reason = error_text(exc, "", "saving a patient setting")
        self.status.setText(f"{SAVE_FAILED} {reason}".rstrip())
        if self._patient is not None:  # the field shows what is stored, not the refused choice
            self.gender.setCurrentIndex(self.gender.findData(self._patient.gender.value))
