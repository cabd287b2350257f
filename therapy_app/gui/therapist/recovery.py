"""The recovery code shown once, and "Mot de passe oublié ?": a new password with that code."""

from __future__ import annotations

import logging

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from therapy_app.gui.repository_widget import RepositoryWidget
from therapy_app.gui.therapist import door
from therapy_app.gui.therapist.context import TherapistContext
from therapy_app.gui.therapist.failures import TRY_AGAIN, error_text
from therapy_app.gui.therapist.style import section_label, set_role, show_status, status_label

_LOGGER = logging.getLogger(__name__)

CODE_HELP = (
    "Notez ce code de secours et gardez-le en lieu sûr (pas sur cet ordinateur). "
    "Il permet de choisir un nouveau mot de passe en cas d'oubli ; sans lui, rien "
    "ne peut être récupéré. Il ne sera plus affiché."
)


class RecoveryCodeBox(QFrame):
    """Shows a new recovery code until the therapist says it is noted, then forgets it.

    Signals:
        dismissed(): "J'ai noté le code".
    """

    dismissed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        title = section_label("Code de secours")
        self.help = QLabel(CODE_HELP)
        self.help.setWordWrap(True)
        self.code = QLabel()
        self.code.setTextFormat(Qt.TextFormat.PlainText)
        self.code.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        font = QFont("monospace")
        font.setStyleHint(QFont.StyleHint.Monospace)
        font.setPointSize(font.pointSize() + 6)
        font.setBold(True)
        self.code.setFont(font)
        self.code.setAccessibleName("Code de secours")
        self.noted_button = QPushButton("J'ai noté le code")
        set_role(self.noted_button, "primary")
        row = QHBoxLayout()
        row.addWidget(self.code, 1)
        row.addWidget(self.noted_button)
        layout = QVBoxLayout(self)
        layout.addWidget(title)
        layout.addWidget(self.help)
        layout.addLayout(row)
        self.noted_button.clicked.connect(self._dismiss)
        self.hide()

    def show_code(self, code: str) -> None:
        """Display ``code`` (until dismissed or :meth:`clear`)."""
        self.code.setText(code)
        self.show()
        self.noted_button.setFocus()

    def clear(self) -> None:
        """Forget the code shown."""
        self.code.clear()
        self.hide()

    def _dismiss(self) -> None:
        self.clear()
        self.dismissed.emit()


class NewCodeButton(QPushButton):
    """ "Nouveau code de secours": a new code for the logged-in therapist, shown once.

    Args:
        context: the data, the task runner and the logged-in therapist ("" when locked).
        box: where the new code is shown.

    Signals:
        failed(str): French message.
    """

    failed = Signal(str)

    def __init__(self, context: TherapistContext, box: RecoveryCodeBox) -> None:
        super().__init__("Nouveau code de secours")
        self.setToolTip(
            "Crée un nouveau code de secours pour le mot de passe ; l'ancien ne fonctionne plus."
        )
        self._repository = context.repository
        self._runner = context.runner
        self._username = context.editor
        self._box = box
        self.clicked.connect(self.regenerate)

    def regenerate(self) -> None:
        """Make the new code (database worker); the old one stops working."""
        if not self._username():
            return
        self.setEnabled(False)
        self._runner.submit(
            self._repository.accounts.regenerate_recovery_code,
            self._username(),
            on_done=self._on_code,
            on_error=self._on_error,
            pool="db",
            group="therapist-recovery",
        )

    def _on_code(self, code: str) -> None:
        self.setEnabled(True)
        if self._username():  # not locked meanwhile
            self._box.show_code(code)

    def _on_error(self, exc: BaseException) -> None:
        self.setEnabled(True)
        self.failed.emit(
            error_text(exc, "Le code de secours n'a pas pu être créé.", "recovery code")
        )


def validate_reset(username: str, code: str, password: str, confirmation: str) -> str | None:
    """The French reason a reset is refused before asking storage, or None if fine."""
    if not username.strip() or not code.strip():
        return "Saisissez votre nom d'utilisateur et votre code de secours."
    return door.new_password_problem(password, confirmation, "Le nouveau mot de passe")


class ResetPasswordPage(RepositoryWidget):
    """Username, recovery code and a new password; then the new code, shown once.

    Wrong codes count in the login's per-username throttle (storage side).

    Signals:
        finished(): back to the login page (after a reset or "Retour").
        message_shown(str): every French message the page displays.
        reset_done(): the password was changed.
    """

    finished = Signal()
    message_shown = Signal(str)
    reset_done = Signal()

    def __init__(self, context: TherapistContext, parent: QWidget | None = None) -> None:
        super().__init__(context.repository, context.runner, parent)
        title = QLabel("Mot de passe oublié")
        set_role(title, "title")
        intro = QLabel(
            "Saisissez le code de secours noté à la création du compte, puis choisissez un "
            "nouveau mot de passe. Sans ce code, le mot de passe ne peut pas être changé."
        )
        intro.setWordWrap(True)
        self.username = QLineEdit()
        self.username.setAccessibleName("Nom d'utilisateur")
        self.code = QLineEdit()
        self.code.setAccessibleName("Code de secours")
        self.code.setPlaceholderText("XXXXX-XXXXX-XXXXX-XXXXX")
        self.password = door.password_field("Nouveau mot de passe")
        self.confirmation = door.password_field("Confirmation du nouveau mot de passe")
        self.message = status_label()
        self.code_box = RecoveryCodeBox()
        self.submit_button = QPushButton("Changer le mot de passe")
        set_role(self.submit_button, "primary")
        self.back_button = QPushButton("Retour")
        form = QFormLayout()
        form.addRow("Nom d'utilisateur :", self.username)
        form.addRow("Code de secours :", self.code)
        form.addRow("Nouveau mot de passe :", self.password)
        form.addRow("Confirmez-le :", self.confirmation)
        buttons = door.button_row(self.back_button, self.submit_button)
        door.centre_column(self, title, intro, form, self.message, self.code_box, buttons)
        self.submit_button.clicked.connect(self.submit)
        self.back_button.clicked.connect(self._leave)
        self.code_box.dismissed.connect(self._leave)
        for field in (self.username, self.code, self.password, self.confirmation):
            field.returnPressed.connect(self.submit)

    def start(self, username: str = "") -> None:
        """Empty the form (the username prefilled) before showing it."""
        self.username.setText(username)
        for field in (self.code, self.password, self.confirmation):
            field.clear()
        self.code_box.clear()
        self._show_message("")
        self.submit_button.setEnabled(True)
        (self.code if username else self.username).setFocus()

    def _show_message(self, text: str, role: str = "error") -> None:
        show_status(self.message, text, role)
        if text:
            self.message_shown.emit(text)

    def submit(self) -> None:
        """Check the form, then ask storage (scrypt: off the UI thread)."""
        if not self.submit_button.isEnabled():
            return
        username, code = self.username.text().strip(), self.code.text()
        password = self.password.text()
        problem = validate_reset(username, code, password, self.confirmation.text())
        if problem:
            self._show_message(problem)
            return
        self.submit_button.setEnabled(False)
        self._show_message("Vérification…", "muted")
        self._runner.submit(
            self._repository.accounts.reset_password,
            username,
            code,
            password,
            on_done=self._on_reset,
            on_error=self._on_error,
            pool="db",
            group="therapist-login",
        )

    def _on_reset(self, new_code: str) -> None:
        for field in (self.code, self.password, self.confirmation):
            field.clear()
        _LOGGER.info("therapist password reset from the login page")
        self._show_message(
            "Mot de passe changé. L'ancien code de secours ne fonctionne plus : "
            "notez le nouveau ci-dessous, puis connectez-vous.",
            "success",
        )
        self.code_box.show_code(new_code)
        self.reset_done.emit()

    def _on_error(self, exc: BaseException) -> None:
        self.submit_button.setEnabled(True)
        self.password.clear()
        self.confirmation.clear()
        self._show_message(error_text(exc, TRY_AGAIN, "password reset"))

    def _leave(self) -> None:
        for field in (self.code, self.password, self.confirmation):
            field.clear()
        self.code_box.clear()
        self.finished.emit()
