"""The therapist's say on an attempt's verdict: success, failure, or the rule's; with its audit."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QPushButton, QVBoxLayout, QWidget

from therapy_app.gui.therapist import formatting as fmt
from therapy_app.gui.therapist.transcript_editor import value_label
from therapy_app.storage import Attempt, VerdictChange

_CAUSES = {
    "transcript_edit": "recalculé après une correction",
    "override": "décidé par le thérapeute",
    "override_removed": "rendu au calcul automatique",
}


def verdict_word(success: bool | None) -> str:
    """« réussi », « échoué » or « sans verdict »."""
    if success is None:
        return "sans verdict"
    return "réussi" if success else "échoué"


def change_line(change: VerdictChange) -> str:
    """``14/03/2025 10:40 — claire — décidé par le thérapeute : réussi → échoué (note)``."""
    line = (
        f"{fmt.short_datetime(change.changed_at)} — {change.editor} — "
        f"{_CAUSES.get(change.cause, change.cause)} : "
        f"{verdict_word(change.old_success)} → {verdict_word(change.new_success)}"
    )
    return f"{line} ({change.reason})" if change.reason else line


class VerdictOverride(QWidget):
    """Shows where the verdict comes from and lets the therapist decide it.

    Signals:
        override_requested(object): True, False, or None (back to the rule).
    """

    override_requested = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = value_label()
        # Short words on the buttons, the whole action in their names: the
        # row fits beside the scores on a 1366-pixel screen.
        self.success_button = QPushButton("✔ Réussi")
        self.failure_button = QPushButton("✘ Échoué")
        self.automatic_button = QPushButton("↺ Calcul automatique")
        for button, action in (
            (self.success_button, "Compter comme réussi"),
            (self.failure_button, "Compter comme échoué"),
            (self.automatic_button, "Revenir au calcul automatique"),
        ):
            button.setAccessibleName(action)
            button.setToolTip(action)
        self.history = value_label()
        buttons = QHBoxLayout()
        for button in (self.success_button, self.failure_button, self.automatic_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.state)
        layout.addLayout(buttons)
        layout.addWidget(self.history)
        self.success_button.clicked.connect(lambda: self.override_requested.emit(True))
        self.failure_button.clicked.connect(lambda: self.override_requested.emit(False))
        self.automatic_button.clicked.connect(lambda: self.override_requested.emit(None))

    def show_attempt(self, attempt: Attempt, changes: list[VerdictChange]) -> None:
        """Say whose verdict is in force and list its audited changes, newest first."""
        computed = verdict_word(attempt.computed_success)
        if attempt.verdict_override is None:
            self.state.setText(f"Verdict : {computed} (calcul automatique).")
        else:
            self.state.setText(
                f"Verdict : {verdict_word(attempt.verdict_override)}, décidé par le "
                f"thérapeute (calcul automatique : {computed})."
            )
        self.success_button.setEnabled(attempt.verdict_override is not True)
        self.failure_button.setEnabled(attempt.verdict_override is not False)
        self.automatic_button.setEnabled(attempt.verdict_override is not None)
        self.history.setText("\n".join(change_line(c) for c in reversed(changes)))
        self.history.setVisible(bool(changes))
