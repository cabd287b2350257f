"""Repetition: the app says a sentence from the graded list, the patient repeats it."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QButtonGroup, QHBoxLayout, QPushButton, QWidget

from therapy_app.gui import theme
from therapy_app.gui.patient.cued_screen import CuedScreen
from therapy_app.gui.widgets import DIGIT_KEYS, big_button, button_text, label
from therapy_app.practice.controller import PracticeController
from therapy_app.practice.events import ItemPresented, State

LEVEL_NAMES = {1: "Courtes", 2: "Moyennes", 3: "Longues"}


class RepetitionScreen(CuedScreen):
    """Sentence on screen and spoken; on a miss, slower, word by word, first word given."""

    title = "Répéter des phrases"
    items_name = "Phrases"

    def __init__(self, controller: PracticeController, parent: QWidget | None = None) -> None:
        super().__init__(controller, parent)
        top = QHBoxLayout()
        top.addWidget(label("Phrases :", "muted", wrap=False))
        self.level_group = QButtonGroup(self)
        self.level_buttons = {}
        for level, name in LEVEL_NAMES.items():
            # Keys 1/2/3 (left hand) pick the list; the chosen one is ticked,
            # not only coloured (the focus colour would hide it).
            button = big_button("", name, tooltip=f"Touche {level}", key=str(level))
            button.setCheckable(True)
            button.setChecked(level == controller.level)
            button.setAutoDefault(False)
            button.toggled.connect(lambda on, b=button, n=name, k=level: self._mark(b, n, k, on))
            self._mark(button, name, level, button.isChecked())
            self.level_group.addButton(button, level)
            self.level_buttons[level] = button
            top.addWidget(button)
            for key in DIGIT_KEYS[level]:
                self._add_shortcut(key, lambda k=level: self._level_key(k))
        top.addStretch(1)
        self.counter = label("", "muted", wrap=False)
        top.addWidget(self.counter)
        self.sentence = label("", "huge")
        self.sentence.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.prompt_area.addLayout(top)
        self.prompt_area.addWidget(self.sentence)
        self.prompt_area.addWidget(self.cue_display)
        self.level_group.idClicked.connect(self._level_clicked)

    @staticmethod
    def _mark(button: QPushButton, name: str, level: int, checked: bool) -> None:
        button.setText(button_text(theme.ICON_CHECK if checked else "", name, str(level)))

    def _level_key(self, level: int) -> None:
        button = self.level_buttons[level]
        if button.isEnabled() and level != self.controller.level:
            button.click()

    def _level_clicked(self, level: int) -> None:
        if not self.controller.set_level(level):
            self.level_buttons[self.controller.level].setChecked(True)

    def on_item(self, event: ItemPresented) -> None:
        self.sentence.setText(event.prompt)
        if event.level in self.level_buttons:
            self.level_buttons[event.level].setChecked(True)
        self.counter.setText(f"Phrase {event.number} sur {event.total}")
        self.cue_display.hide()

    def refresh_extra(self, state: State) -> None:
        idle = not state.busy and state is not State.RECORDING
        for button in self.level_buttons.values():
            button.setEnabled(idle)
