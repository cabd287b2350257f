"""Picture naming: a large picture, the patient names it; on a miss, ever stronger cues."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtSvgWidgets import QSvgWidget
from PySide6.QtWidgets import QHBoxLayout, QVBoxLayout, QWidget

from therapy_app.gui.patient.practice_screen import PracticeScreen
from therapy_app.gui.widgets import label
from therapy_app.practice.controller import PracticeController
from therapy_app.practice.events import CueGiven, ItemPresented, State
from therapy_app.practice.naming_cues import SPOKEN_MODEL, WRITTEN

PICTURE_SIZE = QSize(250, 250)
"""Large enough to recognise at arm's length, small enough for a 1366x768 laptop."""


class NamingScreen(PracticeScreen):
    """The picture; the cues shown beside it as they come (meaning, first sound, word)."""

    title = "Nommer des images"
    items_name = "Images"

    def __init__(self, controller: PracticeController, parent: QWidget | None = None) -> None:
        super().__init__(controller, parent)
        self.picture = QSvgWidget()
        self.picture.setFixedSize(PICTURE_SIZE)
        self.picture.setAccessibleName("Image à nommer")
        self.counter = label("", "muted", wrap=False)
        self.instruction = label("Dites le nom de l'image.", "muted")
        self.cue_message = label("", "status")
        self.cue_text = label("", "title")
        self.cue_text.setStyleSheet("color: #0b4f9c;")
        side = QVBoxLayout()
        side.setSpacing(8)
        side.addWidget(self.counter, 0, Qt.AlignmentFlag.AlignRight)
        side.addWidget(self.instruction)
        side.addStretch(1)
        side.addWidget(self.cue_message)
        side.addWidget(self.cue_text)
        side.addStretch(1)
        row = QHBoxLayout()
        row.setSpacing(32)
        row.addWidget(self.picture, 0, Qt.AlignmentFlag.AlignVCenter)
        row.addLayout(side, 1)
        self.prompt_area.addLayout(row)
        self._clear_cue()

    def _clear_cue(self) -> None:
        self.cue_message.hide()
        self.cue_text.clear()
        self.cue_text.hide()

    def on_item(self, event: ItemPresented) -> None:
        self.picture.load(event.picture)
        self.picture.setToolTip("")  # the name must not show on hover
        self.counter.setText(f"Image {event.number} sur {event.total}")
        self._clear_cue()

    def on_cue(self, event: CueGiven) -> None:
        # The cue is shown beside the picture, not again under the feedback.
        cue = event.cue
        self.cue_message.setText(cue.message)
        self.cue_message.setVisible(bool(cue.message))
        self.cue_text.setText(cue.display)
        self.cue_text.setVisible(bool(cue.display))

    def on_feedback_shown(self, success: bool) -> None:
        if success:
            self._clear_cue()

    def status_text(self, state: State) -> str:
        if state is State.AWAITING_REPETITION:
            level = self.controller.cue.level
            if level >= SPOKEN_MODEL:
                return "À vous ! Appuyez sur Espace et répétez le mot."
            if level == WRITTEN:
                return "À vous ! Appuyez sur Espace et lisez le mot."
            return "À vous ! Appuyez sur Espace et dites le nom de l'image."
        return super().status_text(state)
