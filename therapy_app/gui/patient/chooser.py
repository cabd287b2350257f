"""Exercise chooser: three big buttons, and the model loading progress until they can be used."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QProgressBar, QPushButton, QVBoxLayout, QWidget

from therapy_app.gui import theme
from therapy_app.gui.widgets import Banner, big_button, label, set_role
from therapy_app.practice.events import ExerciseKind

EXERCISES: tuple[tuple[ExerciseKind, str, str, str], ...] = (
    (ExerciseKind.FREE_SPEECH, "✎", "Parler librement", "Dites une phrase, je vous aide."),
    (ExerciseKind.REPETITION, theme.ICON_REPLAY, "Répéter", "Écoutez une phrase et répétez-la."),
    (ExerciseKind.COMPLETION, "…", "Compléter", "Trouvez le mot qui manque."),
)


class ExerciseChooser(QWidget):
    """ "Que voulez-vous faire ?": free speech, repetition, completion (keys 1, 2, 3).

    Signals:
        chosen(str): the ``ExerciseKind`` value picked.
        retry_requested(): "Réessayer" after a loading error.
    """

    chosen = Signal(str)
    retry_requested = Signal()

    title = "Choisir un exercice"

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.greeting = label("Que voulez-vous faire ?", "huge")
        self.greeting.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.buttons: dict[ExerciseKind, QPushButton] = {}
        self.progress = QProgressBar()
        self.progress.setTextVisible(False)
        self.progress_label = label("", "muted")
        self.progress_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.banner = Banner()
        self.retry_button = big_button(theme.ICON_REPLAY, "Réessayer", "primary")
        self.retry_button.hide()

        layout = QVBoxLayout(self)
        layout.setContentsMargins(160, 24, 160, 24)
        layout.setSpacing(18)
        layout.addWidget(self.greeting)
        for number, (kind, icon, name, hint) in enumerate(EXERCISES, start=1):
            button = big_button("", f"{number}   {icon}   {name}\n         {hint}", "exercise")
            button.setAccessibleName(name)
            button.setToolTip(f"Touche {number}")
            button.clicked.connect(lambda _=False, k=kind: self._choose(k))
            layout.addWidget(button)
            self.buttons[kind] = button
            shortcut = QShortcut(QKeySequence(str(number)), self)
            shortcut.setContext(Qt.ShortcutContext.WindowShortcut)
            shortcut.activated.connect(lambda k=kind: self._choose(k))
        layout.addSpacing(8)
        layout.addWidget(self.progress_label)
        layout.addWidget(self.progress)
        layout.addWidget(self.banner)
        layout.addWidget(self.retry_button, 0, Qt.AlignmentFlag.AlignHCenter)
        layout.addStretch(1)
        self.retry_button.clicked.connect(self._retry)
        self.set_ready(False)

    def greet(self, name: str) -> None:
        """ "Bonjour Jeanne ! Que voulez-vous faire ?"."""
        self.greeting.setText(f"Bonjour {name} !\nQue voulez-vous faire ?")

    def _choose(self, kind: ExerciseKind) -> None:
        if self.buttons[kind].isEnabled() and self.isVisible():
            self.chosen.emit(kind.value)

    def _retry(self) -> None:
        self.banner.clear_message()
        self.retry_button.hide()
        self.retry_requested.emit()

    # ----- loading state ----------------------------------------------------
    def set_ready(self, ready: bool) -> None:
        """Enable the exercises once the engines are loaded."""
        for button in self.buttons.values():
            button.setEnabled(ready)
        self.progress.setVisible(not ready and self.banner.isHidden())
        self.progress_label.setVisible(not ready and self.banner.isHidden())
        if ready:
            self.banner.clear_message()
            self.retry_button.hide()
            self.focus_first()

    def focus_first(self) -> None:
        """Put the keyboard focus on the first exercise (or "Réessayer" after an error)."""
        first = self.buttons[ExerciseKind.FREE_SPEECH]
        if first.isEnabled():
            first.setFocus()
        elif self.retry_button.isVisible():
            self.retry_button.setFocus()

    focus_default = focus_first

    def show_progress(self, done: int, total: int, step: str) -> None:
        """ "Préparation : Reconnaissance vocale (2 sur 4)…"."""
        self.progress.setRange(0, total)
        self.progress.setValue(done)
        self.progress_label.setText(
            f"Préparation : {step} ({done + 1} sur {total})…" if step else "Prêt."
        )
        self.progress.setVisible(True)
        self.progress_label.setVisible(True)

    def show_error(self, message: str) -> None:
        """A loading failure in French, with "Réessayer"."""
        self.progress.hide()
        self.progress_label.hide()
        self.banner.show_error(message)
        self.retry_button.show()
        set_role(self.retry_button, "primary")
