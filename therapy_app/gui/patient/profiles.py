"""Profile picker: initials circles and names; a simple form creates the first profile."""

from __future__ import annotations

import logging

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from therapy_app.gui import theme
from therapy_app.gui.repository_widget import RepositoryWidget
from therapy_app.gui.tasks import TaskRunner
from therapy_app.gui.widgets import Avatar, Banner, big_button, label, set_role
from therapy_app.practice.events import french_message
from therapy_app.storage import Patient, SessionRepository

_LOGGER = logging.getLogger(__name__)


class ProfileButton(QPushButton):
    """A big button: initials circle and the patient's name."""

    def __init__(self, patient: Patient, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.patient = patient
        set_role(self, "profile")
        self.setAutoDefault(True)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setAccessibleName(patient.display_name)
        avatar = Avatar(patient.initials, patient.avatar_colour, 72)
        name = QLabel(patient.display_name)
        name.setTextFormat(Qt.TextFormat.PlainText)  # typed by anyone: never rich text
        name.setStyleSheet(f"font-size:{theme.LARGE_POINT_SIZE}pt; background:transparent;")
        for child in (avatar, name):
            child.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(16, 8, 16, 8)
        layout.setSpacing(20)
        layout.addWidget(avatar)
        layout.addWidget(name, 1)
        self.setMinimumHeight(96)


class NewProfileForm(QWidget):
    """First name (or any name) and a big "Commencer" button.

    Signals:
        submitted(str): the name typed.
        cancelled(): "Annuler" (only when other profiles exist).
    """

    submitted = Signal(str)
    cancelled = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.heading = label("Bienvenue !", "huge")
        self.heading.setAlignment(Qt.AlignmentFlag.AlignCenter)
        question = label("Comment vous appelez-vous ?", "title")
        question.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.name = QLineEdit()
        self.name.setPlaceholderText("Votre prénom")
        self.name.setMaxLength(40)
        self.name.setAccessibleName("Prénom")
        self.name.setMinimumWidth(480)
        self.error = Banner()
        self.create_button = big_button(theme.ICON_CHECK, "Commencer", "primary")
        self.cancel_button = big_button(theme.ICON_BACK, "Annuler")
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.cancel_button)
        buttons.addWidget(self.create_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addStretch(1)
        layout.addWidget(self.heading)
        layout.addWidget(question)
        layout.addWidget(self.name, 0, Qt.AlignmentFlag.AlignHCenter)
        layout.addWidget(self.error)
        layout.addLayout(buttons)
        layout.addStretch(2)
        self.create_button.clicked.connect(self._submit)
        self.name.returnPressed.connect(self._submit)
        self.cancel_button.clicked.connect(self.cancelled)

    def reset(self, first_run: bool) -> None:
        """Empty the form; "Annuler" only when there is somewhere to go back to."""
        self.name.clear()
        self.error.clear_message()
        self.heading.setText("Bienvenue !" if first_run else "Nouveau profil")
        self.cancel_button.setVisible(not first_run)

    def _submit(self) -> None:
        name = self.name.text().strip()
        if not name:
            self.error.show_error("Écrivez votre prénom, puis appuyez sur « Commencer ».")
            self.name.setFocus()
            return
        self.submitted.emit(name)


class ProfileScreen(RepositoryWidget):
    """Who is practising? One button per patient, plus "Nouveau profil".

    Signals:
        patient_chosen(object): the :class:`Patient` picked or created.
        patients_loaded(int): the list was read (count), e.g. to skip a lone profile.
    """

    patient_chosen = Signal(object)
    patients_loaded = Signal(int)

    title = "Qui êtes-vous ?"

    def __init__(
        self, repository: SessionRepository, runner: TaskRunner, parent: QWidget | None = None
    ) -> None:
        super().__init__(repository, runner, parent)
        self.patients: list[Patient] = []
        self.buttons: list[ProfileButton] = []
        self.banner = Banner()
        self.list_page = QWidget()
        self._list = QVBoxLayout()
        self._list.setSpacing(12)
        heading = label("Qui êtes-vous ?", "huge")
        heading.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.add_button = big_button(theme.ICON_ADD, "Nouveau profil")
        page_layout = QVBoxLayout(self.list_page)
        page_layout.setContentsMargins(160, 24, 160, 24)
        page_layout.addWidget(heading)
        page_layout.addLayout(self._list)
        page_layout.addSpacing(12)
        page_layout.addWidget(self.add_button, 0, Qt.AlignmentFlag.AlignHCenter)
        page_layout.addStretch(1)
        self.form = NewProfileForm()
        self.pages = QStackedWidget()
        self.pages.addWidget(self.list_page)
        self.pages.addWidget(self.form)
        layout = QVBoxLayout(self)
        layout.addWidget(self.banner)
        layout.addWidget(self.pages, 1)
        self.add_button.clicked.connect(lambda: self._show_form(first_run=False))
        self.form.submitted.connect(self._create)
        self.form.cancelled.connect(lambda: self.pages.setCurrentWidget(self.list_page))

    def reload(self) -> None:
        """Read the patients (database worker) and show them, or the form on first run."""
        self._runner.submit(
            self._repository.patients.all,
            pool="db",
            group="profiles",
            on_done=self._show_patients,
            on_error=self._failed,
        )

    def _show_patients(self, patients: list[Patient]) -> None:
        self.patients = patients
        for button in self.buttons:
            self._list.removeWidget(button)
            button.deleteLater()
        self.buttons = []
        for patient in patients:
            button = ProfileButton(patient)
            button.clicked.connect(lambda _=False, p=patient: self.patient_chosen.emit(p))
            self._list.addWidget(button)
            self.buttons.append(button)
        if patients:
            self.pages.setCurrentWidget(self.list_page)
            self.focus_default()
        else:
            self._show_form(first_run=True)
        self.patients_loaded.emit(len(patients))

    def focus_default(self) -> None:
        """Focus the first profile, or the name field of the form."""
        if not self.isVisible():
            return
        if self.pages.currentWidget() is self.form:
            self.form.name.setFocus()
        elif self.buttons:
            self.buttons[0].setFocus()

    def _show_form(self, first_run: bool) -> None:
        self.form.reset(first_run)
        self.pages.setCurrentWidget(self.form)
        self.focus_default()

    def _create(self, name: str) -> None:
        self._runner.submit(
            self._repository.patients.create,
            name,
            pool="db",
            on_done=self.patient_chosen.emit,
            on_error=self._failed,
        )

    def _failed(self, exc: BaseException) -> None:
        self.banner.show_error(french_message(exc))
