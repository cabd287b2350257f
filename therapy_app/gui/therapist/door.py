"""What the area's door pages (login, password reset) share: fields, the rule, the layout."""

from __future__ import annotations

from PySide6.QtWidgets import QHBoxLayout, QLayout, QLineEdit, QPushButton, QVBoxLayout, QWidget

from therapy_app.storage.account_store import MIN_PASSWORD_LENGTH

COLUMN_MAX_WIDTH = 620
"""The form stays readable on a wide screen: a column, centred."""


def new_password_problem(
    password: str, confirmation: str, noun: str = "Le mot de passe"
) -> str | None:
    """The French reason a new password is refused before asking storage, or None if fine.

    Args:
        password: the new password.
        confirmation: the same, typed again.
        noun: how the page names it (``"Le nouveau mot de passe"`` on the reset page).
    """
    if len(password) < MIN_PASSWORD_LENGTH:
        return f"{noun} doit contenir au moins {MIN_PASSWORD_LENGTH} caractères."
    if password != confirmation:
        return "Les deux mots de passe ne sont pas identiques."
    return None


def password_field(accessible_name: str) -> QLineEdit:
    """A field whose characters are not shown."""
    field = QLineEdit()
    field.setEchoMode(QLineEdit.EchoMode.Password)
    field.setAccessibleName(accessible_name)
    return field


def button_row(back: QPushButton, *right: QPushButton) -> QHBoxLayout:
    """``back`` on the left, ``right`` (the page's own buttons) on the right."""
    row = QHBoxLayout()
    row.addWidget(back)
    row.addStretch(1)
    for button in right:
        row.addWidget(button)
    return row


def centre_column(page: QWidget, *parts: QWidget | QLayout) -> None:
    """Lay ``parts`` out on ``page``, top to bottom, in a centred column."""
    box = QWidget()
    box.setMaximumWidth(COLUMN_MAX_WIDTH)
    inner = QVBoxLayout(box)
    inner.setSpacing(16)
    for part in parts:
        if isinstance(part, QWidget):
            inner.addWidget(part)
        else:
            inner.addLayout(part)
    outer = QVBoxLayout(page)
    outer.addStretch(1)
    row = QHBoxLayout()
    row.addStretch(1)
    row.addWidget(box, 3)
    row.addStretch(1)
    outer.addLayout(row)
    outer.addStretch(2)
