"""Exercise chooser: today's program first, then one big button per exercise, and the loading."""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from therapy_app.gui import theme
from therapy_app.gui.widgets import DIGIT_KEYS, Banner, big_button, label, set_role
from therapy_app.practice.catalogue import CATALOGUE
from therapy_app.practice.events import ExerciseKind

EXERCISES: tuple[tuple[ExerciseKind, str, str, str], ...] = tuple(
    (entry.kind, entry.icon, entry.name, entry.hint) for entry in CATALOGUE
)
"""The exercise buttons, from the catalogue (a new kind there gets its button)."""
PROGRAM_NAME = "Programme du jour"
PROGRAM_KEY = "P"


class ExerciseButton(QPushButton):
    """Key number, symbol, bold name and a plain one-line hint, on one big button."""

    def __init__(self, number: int | str, icon: str, name: str, hint: str) -> None:
        super().__init__()
        set_role(self, "exercise")
        self.setAutoDefault(True)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setAccessibleName(name)
        self.setAccessibleDescription(hint)
        self.setToolTip(f"Touche {number}")
        key = QLabel(str(number))
        key.setFixedSize(52, 52)
        key.setAlignment(Qt.AlignmentFlag.AlignCenter)
        key.setStyleSheet(
            f"background:{theme.ACCENT}; color:white; border-radius:26px; font-weight:bold;"
        )
        symbol = QLabel(icon)
        symbol.setFixedWidth(56)
        symbol.setAlignment(Qt.AlignmentFlag.AlignCenter)
        symbol.setStyleSheet(f"font-size:{theme.HUGE_POINT_SIZE}pt; color:{theme.ACCENT};")
        self.name = QLabel(name)
        self.name_point_size = theme.LARGE_POINT_SIZE
        self.name.setStyleSheet(f"font-size:{theme.LARGE_POINT_SIZE}pt; font-weight:bold;")
        self.hint = QLabel(hint)
        self.hint.setStyleSheet(f"color:{theme.MUTED};")
        texts = QVBoxLayout()
        texts.setSpacing(2)
        texts.addWidget(self.name)
        texts.addWidget(self.hint)
        row = QHBoxLayout(self)
        row.setContentsMargins(20, 10, 20, 10)
        row.setSpacing(18)
        row.addWidget(key)
        row.addWidget(symbol)
        row.addLayout(texts, 1)
        for child in (key, symbol, self.name, self.hint):
            child.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
            child.setStyleSheet(child.styleSheet() + " background: transparent;")
        key.setStyleSheet(
            f"background:{theme.ACCENT}; color:white; border-radius:26px; font-weight:bold;"
        )
        self.setMinimumHeight(100)

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt API
        super().changeEvent(event)
        if event.type() == event.Type.EnabledChange:
            # Child labels do not grey out with the button: dim them by hand.
            colour = theme.TEXT if self.isEnabled() else theme.DISABLED_TEXT
            self.name.setStyleSheet(
                f"font-size:{self.name_point_size}pt; font-weight:bold; color:{colour};"
                " background: transparent;"
            )


class ExerciseChooser(QWidget):
    """ "Que voulez-vous faire ?": one big button per exercise of the catalogue (keys 1 to 5).

    Above them, when the therapist set one, a larger "Programme du jour"
    button (key P) runs today's program.

    Signals:
        chosen(str): the ``ExerciseKind`` value picked.
        program_chosen(): "Programme du jour".
        retry_requested(): "Réessayer" after a loading error.
    """

    chosen = Signal(str)
    program_chosen = Signal()
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

        page = QWidget()
        layout = QVBoxLayout(page)
        layout.setContentsMargins(160, 16, 160, 16)
        layout.setSpacing(12)
        layout.addWidget(self.greeting)
        self.program_button = ExerciseButton(PROGRAM_KEY, "★", PROGRAM_NAME, "")
        # Taller than the exercises (the theme's min-height decides a button's height).
        self.program_button.setStyleSheet("QPushButton { min-height: 96px; }")
        self.program_button.name_point_size = theme.LARGE_POINT_SIZE + 4
        self.program_button.name.setStyleSheet(
            f"font-size:{theme.LARGE_POINT_SIZE + 4}pt; font-weight:bold; background: transparent;"
        )
        self.program_button.clicked.connect(self._choose_program)
        self.program_button.hide()
        layout.addWidget(self.program_button)
        shortcut = QShortcut(QKeySequence(Qt.Key.Key_P), self)
        shortcut.setContext(Qt.ShortcutContext.WindowShortcut)
        shortcut.activated.connect(self._choose_program)
        self.others_label = label("Ou choisissez un exercice :", "muted")
        self.others_label.hide()
        layout.addWidget(self.others_label)
        for number, (kind, icon, name, hint) in enumerate(EXERCISES, start=1):
            button = ExerciseButton(number, icon, name, hint)
            button.clicked.connect(lambda _=False, k=kind: self._choose(k))
            layout.addWidget(button)
            self.buttons[kind] = button
            for key in DIGIT_KEYS.get(number, ()):
                shortcut = QShortcut(QKeySequence(key), self)
                shortcut.setContext(Qt.ShortcutContext.WindowShortcut)
                shortcut.activated.connect(lambda k=kind: self._choose(k))
        layout.addSpacing(8)
        layout.addWidget(self.progress_label)
        layout.addWidget(self.progress)
        layout.addWidget(self.banner)
        layout.addWidget(self.retry_button, 0, Qt.AlignmentFlag.AlignHCenter)
        layout.addStretch(1)
        # A loading error's explanation can be long: on a 768-pixel screen the
        # page scrolls rather than cutting it.
        scroll = QScrollArea()
        scroll.setWidget(page)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(scroll)
        self.retry_button.clicked.connect(self._retry)
        self.set_ready(False)

    def greet(self, name: str) -> None:
        """ "Bonjour Jeanne ! Que voulez-vous faire ?"."""
        self.greeting.setText(f"Bonjour {name} !\nQue voulez-vous faire ?")

    @property
    def has_program(self) -> bool:
        """True when today's program is offered."""
        return not self.program_button.isHidden()

    def set_program(self, summary: str | None) -> None:
        """Offer today's program (``summary``: its exercises, in plain words) or hide it."""
        self.program_button.setVisible(summary is not None)
        self.others_label.setVisible(summary is not None)
        if summary is not None:
            self.program_button.hint.setText(summary)
            self.program_button.setAccessibleDescription(summary)
        self.focus_first()

    def _choose_program(self) -> None:
        if self.has_program and self.program_button.isEnabled() and self.isVisible():
            self.program_chosen.emit()

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
        for button in (*self.buttons.values(), self.program_button):
            button.setEnabled(ready)
        self.progress.setVisible(not ready and self.banner.isHidden())
        self.progress_label.setVisible(not ready and self.banner.isHidden())
        if ready:
            self.banner.clear_message()
            self.retry_button.hide()
            self.focus_first()

    def focus_first(self) -> None:
        """Put the keyboard focus on the first exercise (or "Réessayer" after an error).

        While the engines load, the page itself holds the focus: a key pressed
        meanwhile lands on no button (Space on "Retour").
        """
        if not self.isVisible():
            return  # a hidden page taking the focus would take it from the page shown
        first = self.program_button if self.has_program else self.buttons[EXERCISES[0][0]]
        if first.isEnabled():
            first.setFocus()
        elif self.retry_button.isVisible():
            self.retry_button.setFocus()
        else:
            self.setFocus(Qt.FocusReason.OtherFocusReason)

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
        self.banner.show_error(
            f"Les exercices ne peuvent pas démarrer. {message}\n"
            "Si vous ne savez pas quoi faire, demandez de l'aide à votre thérapeute."
        )
        self.retry_button.show()
        set_role(self.retry_button, "primary")
        self.focus_first()  # Space or Enter tries again
