"""Sentence completion: a written and spoken cue with a blank; the patient says the missing word."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QWidget

from therapy_app.gui.patient.practice_screen import PracticeScreen
from therapy_app.gui.widgets import label
from therapy_app.practice.controller import PracticeController
from therapy_app.practice.events import CueGiven, ItemPresented, State


class CompletionScreen(PracticeScreen):
    """The cue with its blank; on a miss: slower, first sounds, then the answer to repeat."""

    title = "Compléter la phrase"
    items_name = "Questions"

    def __init__(self, controller: PracticeController, parent: QWidget | None = None) -> None:
        super().__init__(controller, parent)
        top = QHBoxLayout()
        top.addWidget(label("Trouvez le mot qui manque.", "muted", wrap=False))
        top.addStretch(1)
        self.counter = label("", "muted", wrap=False)
        top.addWidget(self.counter)
        self.cue_text = label("", "huge")
        self.cue_text.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.prompt_area.addLayout(top)
        self.prompt_area.addWidget(self.cue_text)

    def on_item(self, event: ItemPresented) -> None:
        self.cue_text.setText(event.prompt)
        self.counter.setText(f"Question {event.number} sur {event.total}")

    def on_cue(self, event: CueGiven) -> None:
        super().on_cue(event)
        self.cue_text.setText(event.cue.display)

    def status_text(self, state: State) -> str:
        if state is State.AWAITING_REPETITION:
            if self.controller.cue.level >= 3:
                return "À vous ! Appuyez sur le bouton rouge et répétez le mot."
            return "À vous ! Appuyez sur le bouton rouge et dites le mot."
        return super().status_text(state)
