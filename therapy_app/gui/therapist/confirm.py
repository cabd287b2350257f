"""The question a therapist panel asks before it removes, archives or drops something."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QWidget


def ask_first(
    parent: QWidget,
    title: str,
    text: str,
    act: str,
    on_answer: Callable[[bool], None],
    keep: str = "Annuler",
) -> QMessageBox:
    """Open a question whose safe answer ``keep`` is the default; ``on_answer(confirmed)`` after.

    The box is window-modal without blocking (the event loop goes on); Enter
    or Escape by mistake choose ``keep``. Its text is plain: it quotes names
    and sentences people typed, never markup. It deletes itself once answered.

    Args:
        parent: the panel asking.
        title: the box's title.
        text: the question.
        act: the button that goes ahead (destructive).
        on_answer: called with True when ``act`` was clicked, False otherwise.
        keep: the button that changes nothing.

    Returns:
        The open box (panels show it as ``confirm_box`` until it is answered).
    """
    box = QMessageBox(
        QMessageBox.Icon.Question, title, text, QMessageBox.StandardButton.NoButton, parent
    )
    box.setTextFormat(Qt.TextFormat.PlainText)
    yes = box.addButton(act, QMessageBox.ButtonRole.DestructiveRole)
    safe = box.addButton(keep, QMessageBox.ButtonRole.RejectRole)
    box.setDefaultButton(safe)
    box.setEscapeButton(safe)

    def answered(_result: int) -> None:
        confirmed = box.clickedButton() is yes
        box.deleteLater()
        on_answer(confirmed)

    box.finished.connect(answered)
    box.open()
    return box
