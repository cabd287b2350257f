"""The program tab: the exercises of the daily program, their difficulty, items and pace."""

from __future__ import annotations

import logging

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from therapy_app.domain.programs import (
    DEFAULT_ITEMS,
    MAX_ITEMS,
    MAX_RATE_PERCENT,
    MIN_ITEMS,
    MIN_RATE_PERCENT,
    Program,
    ProgramStep,
)
from therapy_app.exercises import ExerciseContent, default_content
from therapy_app.gui.repository_widget import RepositoryWidget
from therapy_app.gui.therapist.context import TherapistContext
from therapy_app.gui.therapist.failures import error_text
from therapy_app.gui.therapist.patient_settings import PatientSettings
from therapy_app.gui.therapist.style import set_role, show_status, status_label
from therapy_app.practice import catalogue
from therapy_app.storage import Patient

_LOGGER = logging.getLogger(__name__)

ALL_THEMES = "Tous les thèmes"
ARROW_SHEET = "QPushButton { min-height: 24px; padding: 2px 8px; }"
NO_STEP = "Cochez au moins un exercice."


class StepRow(QWidget):
    """One exercise of the catalogue: in the program or not, its difficulty and theme."""

    moved = Signal(object, int)

    def __init__(self, entry: catalogue.ExerciseInfo, content: ExerciseContent) -> None:
        super().__init__()
        self.entry = entry
        self.included = QCheckBox(entry.therapist_name)
        # Never squeezed below its text ("Complétion" was cut at 1366 px).
        self.included.setSizePolicy(QSizePolicy.Policy.Minimum, QSizePolicy.Policy.Fixed)
        self.difficulty = QComboBox()
        for choice in catalogue.difficulties(entry.kind.value, content):
            self.difficulty.addItem(choice.label, choice.level)
        self.difficulty.setAccessibleName(f"Difficulté : {entry.therapist_name}")
        self.theme = QComboBox()
        for name in catalogue.categories(entry.kind.value, content):
            self.theme.addItem(name or ALL_THEMES, name)
        self.theme.setVisible(entry.has_categories)
        self.theme.setAccessibleName(f"Thème : {entry.therapist_name}")
        for combo in (self.difficulty, self.theme):
            combo.setSizeAdjustPolicy(
                QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
            )
            combo.setMinimumContentsLength(8)
        self.difficulty.setMinimumContentsLength(14)
        self.up = QPushButton("↑")
        self.down = QPushButton("↓")
        for button, label in ((self.up, "Plus tôt"), (self.down, "Plus tard")):
            button.setFixedWidth(52)
            button.setStyleSheet(ARROW_SHEET)  # as low as the drop-downs beside it
            button.setToolTip(label)
            button.setAccessibleName(f"{label} : {entry.therapist_name}")
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.up)
        row.addWidget(self.down)
        row.addWidget(self.included)
        row.addWidget(self.difficulty, 2)
        row.addWidget(self.theme, 1)
        if not entry.has_categories:
            row.addStretch(1)
        self.difficulty.setEnabled(self.difficulty.count() > 1)
        self.up.clicked.connect(lambda: self.moved.emit(self, -1))
        self.down.clicked.connect(lambda: self.moved.emit(self, 1))

    def step(self) -> ProgramStep:
        """The step as set on screen."""
        category = self.theme.currentData() if self.entry.has_categories else ""
        return ProgramStep(self.entry.kind.value, self.difficulty.currentData(), category or "")

    def show_step(self, step: ProgramStep | None) -> None:
        """Tick and fill the row from ``step`` (None: not in the program, defaults)."""
        self.included.setChecked(step is not None)
        level = step.level if step is not None else None
        self.difficulty.setCurrentIndex(max(self.difficulty.findData(level), 0))
        category = step.category if step is not None else ""
        self.theme.setCurrentIndex(max(self.theme.findData(category), 0))


class ProgramPanel(RepositoryWidget):
    """Edits the selected patient's program; "Enregistrer le programme" stores it.

    Args:
        context: the data, the task runner and the logged-in therapist (for the audit).

    Attributes:
        patient_settings: the patient's pause tolerance and agreement, shown in
            this tab and saved on their own (the area follows their ``saved``).

    Signals:
        program_loaded(object): the patient's program (or None) is on screen.
        program_saved(object): the stored ``Program``.
        failed(str): French message.
    """

    program_loaded = Signal(object)
    program_saved = Signal(object)
    failed = Signal(str)

    def __init__(self, context: TherapistContext, parent: QWidget | None = None) -> None:
        super().__init__(context.repository, context.runner, parent)
        self._editor = context.editor
        self._patient: Patient | None = None
        content = default_content()

        self.patient_label = QLabel()
        self.patient_label.setTextFormat(Qt.TextFormat.PlainText)
        set_role(self.patient_label, "section")
        intro = QLabel(
            "Le programme du jour apparaît en premier sur l'écran du patient : un grand "
            "bouton « Programme du jour » enchaîne les exercices cochés, dans cet ordre. "
            "Les autres exercices restent accessibles."
        )
        intro.setWordWrap(True)
        set_role(intro, "muted")
        self.rows: list[StepRow] = [StepRow(entry, content) for entry in catalogue.CATALOGUE]
        steps_box = QGroupBox("Exercices, dans l'ordre")
        self._steps_layout = QVBoxLayout(steps_box)
        for row in self.rows:
            row.moved.connect(self._move)
            self._steps_layout.addWidget(row)

        self.items = QSpinBox()
        self.items.setRange(MIN_ITEMS, MAX_ITEMS)
        self.items.setValue(DEFAULT_ITEMS)
        self.items.setSuffix(" par exercice")
        self.items.setAccessibleName("Nombre d'éléments par exercice")
        self.items.setMaximumWidth(260)
        self.rate = QSpinBox()
        self.rate.setRange(MIN_RATE_PERCENT, MAX_RATE_PERCENT)
        self.rate.setSingleStep(5)
        self.rate.setValue(100)
        self.rate.setSuffix(" %")
        self.rate.setAccessibleName("Débit de la voix")
        self.rate.setMaximumWidth(260)
        self.rate.setToolTip("100 % : le débit habituel des exercices ; moins : plus lent.")
        self.use_custom = QCheckBox("Commencer par les mots et phrases du patient")
        self.use_custom.setChecked(True)
        form = QFormLayout()
        form.addRow("Éléments :", self.items)
        form.addRow("Débit de la voix :", self.rate)
        form.addRow("", self.use_custom)
        self.patient_settings = PatientSettings(context)
        form.addRow(self.patient_settings)

        self.save_button = QPushButton("Enregistrer le programme")
        set_role(self.save_button, "primary")
        self.status = status_label()
        # "Enregistrer" beside the title: on a 1366x768 screen it shows without
        # scrolling, whatever the form's length.
        header = QHBoxLayout()
        header.addWidget(self.patient_label, 1)
        header.addWidget(self.save_button)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(header)
        layout.addWidget(self.status)
        layout.addWidget(intro)
        layout.addWidget(steps_box)
        layout.addLayout(form)
        layout.addStretch(1)
        self.save_button.clicked.connect(self.save)
        self.set_patient(None)

    # -- state ------------------------------------------------------------------

    def set_patient(self, patient: Patient | None) -> None:
        """Show ``patient``'s program (read on the database worker)."""
        self._patient = patient
        self._show_status("")
        self.setEnabled(patient is not None)
        self._runner.cancel_stale("therapist-program")
        if patient is None:
            self.patient_label.setText("Choisissez un patient.")
            self._show_program(None)
            return
        self.patient_label.setText(f"Programme de {patient.display_name}")
        self._runner.submit(
            self._repository.programs.get,
            patient.id,
            on_done=self._on_loaded,
            on_error=self._on_error,
            pool="db",
            group="therapist-program",
        )

    def _on_loaded(self, program: Program | None) -> None:
        self._show_program(program)
        self.program_loaded.emit(program)

    def _show_program(self, program: Program | None) -> None:
        steps = list(program.steps) if program is not None else []
        kinds = [s.kind for s in steps]
        # Chosen exercises first, in the program's order; the others after.
        self.rows.sort(
            key=lambda r: kinds.index(r.entry.kind.value) if r.entry.kind.value in kinds else 99
        )
        for row in self.rows:
            self._steps_layout.removeWidget(row)
            self._steps_layout.addWidget(row)
            row.show_step(next((s for s in steps if s.kind == row.entry.kind.value), None))
        self.items.setValue(program.items_per_session if program else DEFAULT_ITEMS)
        self.rate.setValue(program.speech_rate_percent if program else 100)
        self.use_custom.setChecked(program.use_custom_items if program else True)

    def _move(self, row: StepRow, delta: int) -> None:
        index = self.rows.index(row)
        target = index + delta
        if not 0 <= target < len(self.rows):
            return
        self.rows[index], self.rows[target] = self.rows[target], self.rows[index]
        for each in self.rows:
            self._steps_layout.removeWidget(each)
            self._steps_layout.addWidget(each)

    def program(self) -> Program | None:
        """The program as set on screen (None: no patient or no exercise ticked)."""
        if self._patient is None:
            return None
        steps = tuple(row.step() for row in self.rows if row.included.isChecked())
        if not steps:
            return None
        return Program(
            self._patient.id,
            steps,
            items_per_session=self.items.value(),
            speech_rate_percent=self.rate.value(),
            use_custom_items=self.use_custom.isChecked(),
        )

    # -- saving -------------------------------------------------------------------

    def save(self) -> None:
        """Store the program shown (off the UI thread)."""
        program = self.program()
        if program is None:
            if self._patient is not None:
                self._show_status(NO_STEP, "error")
            return
        editor = self._editor()
        self.save_button.setEnabled(False)
        self._runner.submit(
            self._repository.programs.save,
            program,
            editor,
            on_done=self._on_saved,
            on_error=self._on_error,
            pool="db",
            group="therapist-program",
        )

    def _on_saved(self, program: Program) -> None:
        self.save_button.setEnabled(True)
        self._show_status("Programme enregistré.", "success")
        self.program_saved.emit(program)

    def _on_error(self, exc: BaseException) -> None:
        self.save_button.setEnabled(True)
        message = error_text(exc, "Le programme n'a pas pu être enregistré.", "program panel")
        self._show_status(message, "error")
        self.failed.emit(message)

    def _show_status(self, text: str, role: str = "muted") -> None:
        show_status(self.status, text, role)
