"""Script practice: pick a dialogue, then its lines as a chat; the patient says theirs."""

from __future__ import annotations

import html
from collections.abc import Callable

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from therapy_app.gui import theme
from therapy_app.gui.patient.choices import ChoiceButton
from therapy_app.gui.patient.cued_screen import CuedScreen
from therapy_app.gui.widgets import DIGIT_KEYS, big_button, button_text, label
from therapy_app.phrases.model import Speaker
from therapy_app.practice.controller import PracticeController
from therapy_app.practice.events import (
    ItemPresented,
    ListFinished,
    Proposal,
    ScriptLine,
    ScriptsOffered,
    State,
)

KEY_ANOTHER = Qt.Key.Key_A
"""Another dialogue (left hand)."""
PICK = "Choisissez un dialogue."
EXAMPLES_NOTE = "Votre orthophoniste ne vous a pas encore écrit de dialogue : voici des exemples."
READING = "Je prépare vos dialogues…"
SPEAKERS = {Speaker.PARTNER.value: "Interlocuteur", Speaker.PATIENT.value: "Vous"}
_BUBBLE = {
    Speaker.PARTNER.value: f"background: white; border: 2px solid {theme.BORDER};",
    Speaker.PATIENT.value: f"background: #e8f0fa; border: 3px solid {theme.ACCENT};",
}
_SIZE_NOW = {Speaker.PARTNER.value: theme.LARGE_POINT_SIZE, Speaker.PATIENT.value: 28}
"""The line being said is larger; lines already said stay at the base size."""


def said(successes: int, lines: int) -> str:
    """ "Dialogue terminé : 5 répliques sur 6 réussies" (French singular up to one)."""
    plural = "s" if successes > 1 else ""
    return f"Dialogue terminé : {successes} réplique{plural} sur {lines} réussie{plural}"


class Bubble(QLabel):
    """One line of the dialogue: who says it, then the line; the current one is larger."""

    def __init__(self, event: ScriptLine) -> None:
        super().__init__()
        self.speaker = event.speaker
        self.line = event.text
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.RichText)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.NoTextInteraction)
        self.setAccessibleName(f"{SPEAKERS.get(event.speaker, '')} : {event.text}")
        self.set_current(True)

    def set_current(self, current: bool) -> None:
        """Larger while the line is being said or practised."""
        size = _SIZE_NOW.get(self.speaker, theme.LARGE_POINT_SIZE) if current else None
        who = html.escape(SPEAKERS.get(self.speaker, ""))
        text = html.escape(self.line)
        if size:
            text = f'<span style="font-size:{size}pt; font-weight:bold;">{text}</span>'
        self.setText(f'<span style="color:{theme.MUTED};">{who}</span><br>{text}')
        self.setStyleSheet(
            f"QLabel {{ {_BUBBLE.get(self.speaker, '')} border-radius: 14px; padding: 6px 14px; }}"
        )


class ScriptScreen(CuedScreen):
    """The dialogues to pick (keys 1…9), then the chat: partner lines said, the patient's judged."""

    title = "Dialogues"
    items_name = "Répliques"

    def __init__(self, controller: PracticeController, parent: QWidget | None = None) -> None:
        super().__init__(controller, parent)
        self.script_title = label(PICK, "title")
        self.counter = label("", "muted", wrap=False)
        self.another_button = big_button(
            theme.ICON_BACK, "Autre dialogue", tooltip="Touche A", key="A"
        )
        self.another_button.hide()
        top = QHBoxLayout()
        top.addWidget(self.script_title, 1)
        top.addWidget(self.counter)
        top.addWidget(self.another_button)

        self.note = label(EXAMPLES_NOTE, "muted")
        self.note.hide()
        self.choices: list[ChoiceButton] = []
        self.choices_box = QVBoxLayout()
        self.choices_box.setSpacing(8)

        self.chat = QWidget()
        self.chat_layout = QVBoxLayout(self.chat)
        self.chat_layout.setContentsMargins(0, 0, 0, 0)
        self.chat_layout.setSpacing(6)
        self.bubbles: list[Bubble] = []
        self.chat.hide()

        self.prompt_area.addLayout(top)
        self.prompt_area.addWidget(self.note)
        self.prompt_area.addLayout(self.choices_box)
        self.prompt_area.addWidget(self.chat)
        self.prompt_area.addWidget(self.cue_display)

        # At the dialogue's end: again (Enter), or another one (A).
        self.summary_another = big_button(
            theme.ICON_BACK, "Autre dialogue", tooltip="Touche A", key="A"
        )
        summary_layout = self.summary.layout()
        if summary_layout is not None:
            summary_layout.addWidget(self.summary_another)
            summary_layout.setAlignment(self.summary_another, Qt.AlignmentFlag.AlignHCenter)
        in_program = controller.settings.max_items is not None
        again = "Continuer le programme" if in_program else "Recommencer le dialogue"
        icon = theme.ICON_NEXT if in_program else theme.ICON_REPLAY
        self.restart_button.setText(button_text(icon, again, "Entrée"))
        self.restart_button.setAccessibleName(again)
        self.summary_another.setVisible(not in_program)

        for button in (self.another_button, self.summary_another):
            button.clicked.connect(self._another)
        # The verdict and the cue take height from the chat: the line being said
        # stays in sight whenever the chat's scroll range changes.
        self.prompt_scroll.verticalScrollBar().rangeChanged.connect(
            lambda _low, _high: self._show_current_line()
        )
        self._add_shortcut(KEY_ANOTHER, self._another)
        for number, keys in DIGIT_KEYS.items():
            for key in keys:
                self._add_shortcut(key, self._picker(number - 1))

    # ----- intents ------------------------------------------------------------------
    def _picker(self, index: int) -> Callable[[], None]:
        def pick() -> None:
            if self.controller.choosing_script:
                self.controller.choose_script(index)

        return pick

    def _another(self) -> None:
        # At the end of a program's dialogue the program goes on (Enter), nothing else.
        if self.controller.settings.max_items is None or not self.controller.list_finished:
            self.controller.choose_another_script()

    def _continue(self) -> None:
        # Enter on a focused dialogue takes that one (else the screen's Enter).
        focused = self.focusWidget()
        if isinstance(focused, QPushButton) and focused in self.choices:
            focused.click()
            return
        super()._continue()

    # ----- events -------------------------------------------------------------------
    def on_script(self, event: ScriptsOffered | ScriptLine) -> None:
        if isinstance(event, ScriptsOffered):
            self._offer(event)
        else:
            self._line(event)

    def _offer(self, event: ScriptsOffered) -> None:
        self._clear_chat()
        self.script_title.setText(PICK)
        self.counter.clear()
        self.another_button.hide()
        self.note.setVisible(event.examples)
        self._set_choices(event.titles)
        self.focus_default()

    def _set_choices(self, titles: tuple[str, ...]) -> None:
        for button in self.choices:
            self.choices_box.removeWidget(button)
            button.deleteLater()
        self.choices = []
        for number, title in enumerate(titles, start=1):
            button = ChoiceButton(number, Proposal(title, 0.0))
            button.setAccessibleName(f"Dialogue {number} : {title}")
            if number not in DIGIT_KEYS:
                button.setToolTip("")
            button.clicked.connect(self._picker(number - 1))
            self.choices_box.addWidget(button)
            button.show()
            self.choices.append(button)

    def _line(self, event: ScriptLine) -> None:
        if event.index == 0:
            self._clear_chat()
            self._set_choices(())
            self.note.hide()
            self.script_title.setText(event.title)
            self.chat.show()
            self.another_button.show()
        for bubble in self.bubbles:
            bubble.set_current(False)
        bubble = Bubble(event)
        row = QHBoxLayout()
        # Partner lines on the left, the patient's on the right, as in a chat.
        if event.speaker == Speaker.PATIENT.value:
            row.addStretch(1)
            row.addWidget(bubble, 5)
        else:
            row.addWidget(bubble, 5)
            row.addStretch(1)
        self.chat_layout.addLayout(row)
        self.bubbles.append(bubble)
        self.cue_display.hide()
        if event.speaker == Speaker.PARTNER.value:
            self.counter.clear()
        # The line being said stays in sight when the chat is taller than the screen.
        QTimer.singleShot(0, self._show_current_line)

    def _show_current_line(self) -> None:
        if self.bubbles and self.chat.isVisible():
            self.prompt_scroll.ensureWidgetVisible(self.bubbles[-1], 0, 16)

    def _clear_chat(self) -> None:
        self.bubbles = []
        while self.chat_layout.count():
            row = self.chat_layout.takeAt(0)
            layout = row.layout() if row is not None else None
            if layout is None:
                continue
            while layout.count():
                child = layout.takeAt(0)
                widget = child.widget() if child is not None else None
                if widget is not None:
                    widget.deleteLater()
            layout.deleteLater()
        self.chat.hide()
        self.cue_display.hide()

    def on_item(self, event: ItemPresented) -> None:
        self.counter.setText(f"Votre réplique {event.number} sur {event.total}")
        self.cue_display.hide()

    def summary_texts(self, finished: ListFinished) -> tuple[str, str]:
        script = self.controller.script
        name = f"« {script.title} »" if script is not None else ""
        return said(finished.succeeded, finished.items), name

    # ----- redraw -------------------------------------------------------------------
    def focus_default(self) -> None:
        """The first dialogue while picking (Enter takes it), else as every exercise."""
        if self.controller.choosing_script and self.choices and self.isVisible():
            self.choices[0].setFocus()
        else:
            super().focus_default()

    def refresh_extra(self, state: State) -> None:
        idle = not state.busy and state is not State.RECORDING
        for button in (self.another_button, self.summary_another, *self.choices):
            button.setEnabled(idle)

    def next_enabled(self, state: State) -> bool:
        # A partner line can be skipped too (it is on screen), not the summary.
        going = self.controller.script is not None and not self.controller.list_finished
        return going and state in (State.AWAITING_REPETITION, State.IDLE, State.SPEAKING)

    def status_text(self, state: State) -> str:
        controller = self.controller
        if controller.list_finished:
            if controller.settings.max_items is not None:
                return "Entrée : continuer le programme."
            return "Entrée : recommencer ce dialogue.   A : un autre dialogue."
        if controller.choosing_script:
            count = len(self.choices)
            keys = "1" if count == 1 else f"1 à {min(count, len(DIGIT_KEYS))}"
            return f"Choisissez un dialogue (touche {keys})."
        if controller.script is None and state is State.IDLE:
            return READING
        if state is State.AWAITING_REPETITION:
            return "À vous ! Appuyez sur le bouton rouge et dites votre réplique."
        if state is State.FEEDBACK and self._feedback is not None:
            if self._feedback.item_finished:
                return "S ou Entrée : la suite du dialogue.   Espace : recommencer."
        return super().status_text(state)
