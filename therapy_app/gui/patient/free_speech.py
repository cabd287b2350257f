"""Free speech: say something, see what was heard and the corrected sentence, repeat it."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QPushButton, QVBoxLayout, QWidget

from therapy_app.gui import theme
from therapy_app.gui.patient.choices import ChoiceButton
from therapy_app.gui.patient.practice_screen import PracticeScreen
from therapy_app.gui.patient.sentence_view import sentence_html
from therapy_app.gui.widgets import DIGIT_KEYS, big_button, label
from therapy_app.practice.controller import PracticeController
from therapy_app.practice.events import Corrected, Heard, ItemPresented, Proposal, State
from therapy_app.speech.chain import PHRASE

INVITATION = "Dites une phrase, comme elle vient."
KEY_LISTEN = Qt.Key.Key_E
"""Hear the proposal that has the focus (left hand; Tab moves between proposals)."""
LISTEN_SHEET = "QPushButton { min-height: 56px; padding: 4px 16px; }"
NO_CORRECTION = "(La correction automatique n'est pas installée : voici ce que j'ai entendu.)"


class FreeSpeechScreen(PracticeScreen):
    """Free speech: record, "J'ai entendu", "Vouliez-vous dire… ?" (1/2/3), repeat."""

    title = "Parler librement"

    def __init__(self, controller: PracticeController, parent: QWidget | None = None) -> None:
        super().__init__(controller, parent)
        self.invitation = label(INVITATION, "title")
        self.invitation.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.heard_text = label("", "muted")
        self.heard_text.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.question = label("Vouliez-vous dire… ?", "title", wrap=False)
        self.note = label(NO_CORRECTION, "muted")
        self.choices_box = QVBoxLayout()
        self.choices_box.setSpacing(8)
        self.chosen = label("", "huge")
        self.chosen.setTextFormat(Qt.TextFormat.RichText)
        self.chosen.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.choices: list[ChoiceButton] = []
        self.listen_buttons: list[QPushButton] = []
        self._choice_rows: list[QWidget] = []
        self._chosen_proposal: Proposal | None = None
        # The question and what was heard share a line: with three proposals
        # the record button still shows on a 768-pixel screen.
        top = QHBoxLayout()
        top.setSpacing(24)
        top.addWidget(self.question)
        top.addWidget(self.heard_text, 1)
        self.prompt_area.addWidget(self.invitation)
        self.prompt_area.addLayout(top)
        self.prompt_area.addWidget(self.note)
        self.prompt_area.addLayout(self.choices_box)
        self.prompt_area.addWidget(self.chosen)
        for number in (1, 2, 3):
            for key in DIGIT_KEYS[number]:
                self._add_shortcut(key, self._picker(number - 1))
        self._add_shortcut(KEY_LISTEN, self._listen_key)
        self._show_invitation()

    def _picker(self, index: int) -> Callable[[], bool]:
        return lambda: self.controller.choose(index)

    def _show_invitation(self) -> None:
        self.invitation.show()
        self.heard_text.hide()
        self.question.hide()
        self.note.hide()
        self.chosen.hide()
        self._set_choices([])

    def _listener(self, index: int) -> Callable[[], bool]:
        return lambda: self.controller.hear_proposal(index)

    def _set_choices(self, proposals: list[Proposal]) -> None:
        for row in self._choice_rows:
            self.choices_box.removeWidget(row)
            row.deleteLater()
        self._choice_rows = []
        self.choices = []
        self.listen_buttons = []
        for number, proposal in enumerate(proposals, start=1):
            button = ChoiceButton(number, proposal)
            button.clicked.connect(self._picker(number - 1))
            # Many patients read slowly: each sentence can be heard before choosing
            # (Tab reaches it right after its choice; Enter plays it).
            listen = big_button(
                theme.ICON_PLAY,
                "Écouter",
                tooltip=f"Écouter la phrase {number} (touche E quand elle est choisie avec Tab)",
                key="E",
            )
            listen.setAccessibleName(f"Écouter la phrase {number}")
            # As low as its proposal (three rows and the record button on a laptop).
            listen.setMinimumHeight(0)
            listen.setStyleSheet(LISTEN_SHEET)
            listen.clicked.connect(self._listener(number - 1))
            row = QWidget()
            row_layout = QHBoxLayout(row)
            row_layout.setContentsMargins(0, 0, 0, 0)
            row_layout.addWidget(button, 1)
            row_layout.addWidget(listen)
            self.choices_box.addWidget(row)
            row.show()  # shown now, so that the choice can take the focus now
            self._choice_rows.append(row)
            self.choices.append(button)
            self.listen_buttons.append(listen)

    def _focused_row(self) -> int:
        """The proposal whose choice or "Écouter" has the focus (else the first)."""
        focused = self.focusWidget()
        for index, (choice, listen) in enumerate(
            zip(self.choices, self.listen_buttons, strict=True)
        ):
            if focused in (choice, listen):
                return index
        return 0

    def _listen_key(self) -> None:
        if self.choices:
            self.controller.hear_proposal(self._focused_row())

    def _continue(self) -> None:
        # Enter on a focused proposal or its "Écouter" acts on that button (the
        # screen-wide Enter would take proposal 1 whatever has the focus).
        focused = self.focusWidget()
        if isinstance(focused, QPushButton) and (
            focused in self.choices or focused in self.listen_buttons
        ):
            focused.click()
            return
        super()._continue()

    # ----- events -----------------------------------------------------------
    def on_heard(self, event: Heard) -> None:
        if event.is_repetition:
            return
        self.invitation.hide()
        self.chosen.hide()
        self._set_choices([])
        self.heard_text.setText(f"Vous avez dit : «\u00a0{event.text}\u00a0»" if event.text else "")
        self.heard_text.setVisible(bool(event.text))

    def on_corrected(self, event: Corrected) -> None:
        # A sentence of the patient's own (phrase book) is proposed like a
        # correction: the patient sees no word about where it came from.
        own = any(p.source == PHRASE for p in event.proposals)
        offered = event.corrected or own
        self.question.setText("Vouliez-vous dire… ?" if offered else "Est-ce bien cela ?")
        self.question.show()
        # Say why nothing was corrected, rather than propose an invented sentence.
        self.note.setText(
            f"(Je n'ai pas corrigé cette phrase : {event.refusal})"
            if event.refusal
            else NO_CORRECTION
        )
        self.note.setVisible(not event.corrected and (bool(event.refusal) or not own))
        self._set_choices(event.proposals)
        self.focus_default()

    def focus_default(self) -> None:
        """The first proposal while choosing (Enter takes it), else the record button."""
        if self.choices and self.isVisible():
            self.choices[0].setFocus()
        else:
            super().focus_default()

    def on_item(self, event: ItemPresented) -> None:
        # The chosen sentence: shown big, restored words still highlighted.
        proposal = next((p for p in self.controller.proposals if p.text == event.target), None)
        self._chosen_proposal = proposal
        self.question.hide()
        self.note.hide()
        self._set_choices([])
        html = sentence_html(event.target, proposal.diff if proposal else [])
        self.chosen.setText(html)
        self.chosen.show()

    def refresh_extra(self, state: State) -> None:
        new_cycle = not self.controller.proposals and self.controller.item is None
        if new_cycle and state in (State.IDLE, State.RECORDING):
            # A new utterance (the patient may record one straight from the
            # proposals or a verdict): back to the invitation, the last result cleared.
            self._show_invitation()
            self._clear_feedback()

    def status_text(self, state: State) -> str:
        if state is State.REVIEWING:
            count = len(self.choices)
            keys = " / ".join(str(n) for n in range(1, count + 1))
            return f"Choisissez la phrase (touche {keys}).  E\u00a0: l'écouter.  S\u00a0: aucune."
        if state is State.AWAITING_REPETITION:
            return "À vous ! Appuyez sur le bouton rouge et répétez la phrase."
        return super().status_text(state)

    def next_enabled(self, state: State) -> bool:
        # On "Vouliez-vous dire… ?" "Suivant" takes none of the sentences: the
        # patient says another one; Enter or 1/2/3 takes one.
        choosing = bool(self.controller.proposals) and state in (State.REVIEWING, State.SPEAKING)
        repeating = self.controller.item is not None and state in (
            State.AWAITING_REPETITION,
            State.SPEAKING,
        )
        return choosing or repeating
