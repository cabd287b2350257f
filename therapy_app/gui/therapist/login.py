"""The door of the therapist area: first-run account creation, then the password, with lockout."""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from datetime import UTC, datetime

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QFormLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QWidget,
)

from therapy_app.gui.therapist import door
from therapy_app.gui.therapist.context import TherapistContext
from therapy_app.gui.therapist.failures import TRY_AGAIN, error_text
from therapy_app.gui.therapist.style import set_role, show_status, status_label
from therapy_app.storage import AccountLockedError
from therapy_app.storage.account_store import MIN_PASSWORD_LENGTH

_LOGGER = logging.getLogger(__name__)


def validate_new_account(username: str, password: str, confirmation: str) -> str | None:
    """The French reason a new account is refused before asking storage, or None if fine."""
    if not username.strip():
        return "Saisissez un nom d'utilisateur."
    return door.new_password_problem(password, confirmation)


def lock_message(seconds_left: int) -> str:
    """French lockout text with the remaining wait (``1 min 05 s`` or ``28 s``)."""
    if seconds_left >= 60:
        wait = f"{seconds_left // 60} min {seconds_left % 60:02d} s"
    else:
        wait = f"{seconds_left} s"
    return f"Trop d'essais incorrects : le compte est bloqué. Réessayez dans {wait}."


class LoginPage(QWidget):
    """Asks for the therapist's credentials; creates the account on first run.

    Checks run on the runner's database worker (scrypt takes tens of
    milliseconds, by design). Nothing about patients is read here.

    Args:
        context: where the account lives, and the task runner.

    Attributes:
        clock: current aware time, for the lockout countdown (tests replace it
            with a fake one).

    Signals:
        authenticated(str): the username, after a right password or a new account.
        cancelled(): the user went back without logging in.
        mode_changed(bool): storage answered whether an account exists (after
            :meth:`refresh`); True when the page asks to create the first one.
        message_shown(str): every French message the page displays.
        recovery_code_created(str): the new account's recovery code, to show
            once (emitted just before ``authenticated``).
        forgot_requested(str): "Mot de passe oublié ?" (the username typed).
    """

    authenticated = Signal(str)
    cancelled = Signal()
    mode_changed = Signal(bool)
    message_shown = Signal(str)
    recovery_code_created = Signal(str)
    forgot_requested = Signal(str)

    def __init__(self, context: TherapistContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._repository = context.repository
        self._runner = context.runner
        self.clock: Callable[[], datetime] = lambda: datetime.now(UTC)
        self._creating = False
        self._busy = False
        self._locked_until: datetime | None = None
        self._countdown = QTimer(self)
        self._countdown.setInterval(1000)
        self._countdown.timeout.connect(self._tick)

        self.title = QLabel("Espace orthophoniste")
        set_role(self.title, "title")
        self.intro = QLabel()
        self.intro.setWordWrap(True)
        self.username = QLineEdit()
        self.username.setAccessibleName("Nom d'utilisateur")
        self.password = door.password_field("Mot de passe")
        self.confirmation = door.password_field("Confirmation du mot de passe")
        self.message = status_label()
        self.submit_button = QPushButton("Se connecter")
        set_role(self.submit_button, "primary")
        self.submit_button.setDefault(True)
        self.back_button = QPushButton("Retour")
        self.forgot_button = QPushButton("Mot de passe oublié ?")
        self.forgot_button.setFlat(True)

        form = QFormLayout()
        form.addRow("Nom d'utilisateur :", self.username)
        form.addRow("Mot de passe :", self.password)
        self._confirm_label = QLabel("Confirmez le mot de passe :")
        form.addRow(self._confirm_label, self.confirmation)
        buttons = door.button_row(self.back_button, self.forgot_button, self.submit_button)
        door.centre_column(self, self.title, self.intro, form, self.message, buttons)

        self.submit_button.clicked.connect(self.submit)
        self.back_button.clicked.connect(self._cancel)
        self.forgot_button.clicked.connect(
            lambda: self.forgot_requested.emit(self.username.text().strip())
        )
        for field in (self.username, self.password, self.confirmation):
            field.returnPressed.connect(self.submit)
        self._set_mode(creating=False, announce=False)

    # -- state ------------------------------------------------------------------

    @property
    def creating(self) -> bool:
        """True when the page creates the first therapist account."""
        return self._creating

    def refresh(self) -> None:
        """Clear the fields and ask storage whether an account exists yet."""
        self.password.clear()
        self.confirmation.clear()
        self._show_message("")
        self._set_busy(True)
        self._runner.submit(
            self._repository.accounts.exists,
            on_done=self._on_has_therapist,
            on_error=self._on_error,
            pool="db",
            group="therapist-login",
        )

    def _on_has_therapist(self, exists: bool) -> None:
        self._set_busy(False)
        self._set_mode(creating=not exists)

    def _set_mode(self, *, creating: bool, announce: bool = True) -> None:
        self._creating = creating
        self.confirmation.setVisible(creating)
        self._confirm_label.setVisible(creating)
        self.forgot_button.setVisible(not creating)
        if creating:
            self.intro.setText(
                "Première utilisation : créez le compte de l'orthophoniste. Ce mot de passe "
                "protège les résultats de tous les patients ; choisissez-en un d'au moins "
                f"{MIN_PASSWORD_LENGTH} caractères."
            )
            self.submit_button.setText("Créer le compte")
        else:
            self.intro.setText(
                "Cet espace est réservé à l'orthophoniste. Saisissez votre mot de passe "
                "pour voir les résultats des patients."
            )
            self.submit_button.setText("Se connecter")
        if announce:
            self.mode_changed.emit(creating)
        (self.username if not self.username.text() else self.password).setFocus()

    def _set_busy(self, busy: bool) -> None:
        self._busy = busy
        self._update_enabled()

    def _update_enabled(self) -> None:
        self.submit_button.setEnabled(not self._busy and self._locked_until is None)

    def _show_message(self, text: str, role: str = "error") -> None:
        show_status(self.message, text, role)  # hidden when empty: the error style draws a box
        if text:
            self.message_shown.emit(text)

    # -- actions ----------------------------------------------------------------

    def submit(self) -> None:
        """Create the account or check the password (off the UI thread)."""
        if self._busy or self._locked_until is not None:
            return
        username = self.username.text().strip()
        password = self.password.text()
        if self._creating:
            problem = validate_new_account(username, password, self.confirmation.text())
            if problem:
                self._show_message(problem)
                return
            self._set_busy(True)
            self._show_message("Création du compte…", "muted")
            self._runner.submit(
                self._repository.accounts.create,
                username,
                password,
                on_done=lambda code: self._on_created(username, code),
                on_error=self._on_error,
                pool="db",
                group="therapist-login",
            )
            return
        if not username or not password:
            self._show_message("Saisissez votre nom d'utilisateur et votre mot de passe.")
            return
        self._set_busy(True)
        self._show_message("Vérification…", "muted")
        self._runner.submit(
            self._verify,
            username,
            password,
            on_done=self._on_verified,
            on_error=self._on_error,
            pool="db",
            group="therapist-login",
        )

    def _on_created(self, username: str, code: str) -> None:
        # Shown once by the area, after the login: only its hash is stored.
        self.recovery_code_created.emit(code)
        self._on_verified(username)

    def _verify(self, username: str, password: str) -> str | None:
        return username if self._repository.accounts.verify(username, password) else None

    def _on_verified(self, username: str | None) -> None:
        self._set_busy(False)
        self.password.clear()
        self.confirmation.clear()
        if username is None:
            self._show_message("Nom d'utilisateur ou mot de passe incorrect.")
            self.password.setFocus()
            return
        _LOGGER.info("therapist %r entered the therapist area", username)
        self._show_message("")
        self.authenticated.emit(username)

    def _on_error(self, exc: BaseException) -> None:
        self._set_busy(False)
        self.password.clear()
        self.confirmation.clear()
        if isinstance(exc, AccountLockedError):
            self._locked_until = exc.locked_until
            self._countdown.start()
            self._tick()
            return
        self._show_message(error_text(exc, TRY_AGAIN, "therapist login"))

    def _tick(self) -> None:
        if self._locked_until is None:
            self._countdown.stop()
            return
        left = math.ceil((self._locked_until - self.clock()).total_seconds())
        if left <= 0:
            self._locked_until = None
            self._countdown.stop()
            self._show_message("Vous pouvez réessayer.", "muted")
            self._update_enabled()
            self.password.setFocus()
            return
        self._show_message(lock_message(left))
        self._update_enabled()

    def _cancel(self) -> None:
        self.password.clear()
        self.confirmation.clear()
        self.cancelled.emit()

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 - Qt override
        if event.key() == Qt.Key.Key_Escape:
            self._cancel()
            return
        super().keyPressEvent(event)
