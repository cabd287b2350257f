"""A practice screen with a written cue under its sentence ("J_ v_ _ _")."""

from __future__ import annotations

from PySide6.QtWidgets import QWidget

from therapy_app.gui.patient.practice_screen import PracticeScreen
from therapy_app.gui.widgets import show_written_cue, written_cue
from therapy_app.practice.controller import PracticeController
from therapy_app.practice.events import CueGiven


class CuedScreen(PracticeScreen):
    """Adds ``cue_display`` for the subclass to place: shown by a cue, hidden on a success."""

    def __init__(self, controller: PracticeController, parent: QWidget | None = None) -> None:
        super().__init__(controller, parent)
        self.cue_display = written_cue()

    def on_cue(self, event: CueGiven) -> None:
        super().on_cue(event)
        show_written_cue(self.cue_display, event.cue.level, event.cue.display)

    def on_feedback_shown(self, success: bool) -> None:
        if success:
            self.cue_display.hide()
