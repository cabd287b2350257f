"""What every exercise screen shares: record button, level meter, status, feedback, keyboard."""

from __future__ import annotations

import logging

from PySide6.QtCore import QEvent, QObject, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QApplication,
    QFrame,
    QHBoxLayout,
    QProgressBar,
    QScrollArea,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from therapy_app.gui import theme
from therapy_app.gui.widgets import (
    Banner,
    LevelMeter,
    Stars,
    big_button,
    label,
    set_role,
)
from therapy_app.practice.controller import PracticeController
from therapy_app.practice.events import (
    Announced,
    AttemptSaved,
    Corrected,
    CueGiven,
    ErrorOccurred,
    ExerciseKind,
    Feedback,
    Heard,
    ItemPresented,
    ListFinished,
    Notice,
    PracticeEvent,
    ScriptLine,
    ScriptsOffered,
    Speaking,
    State,
    StateChanged,
)

_LOGGER = logging.getLogger(__name__)

LEVEL_POLL_MS = 100

# Keys (left hand), shown on the buttons.
KEY_REPLAY = Qt.Key.Key_R
KEY_MY_VOICE = Qt.Key.Key_V
KEY_NEXT = Qt.Key.Key_S
RECORD_TEXT = f"{theme.ICON_RECORD}\nParler"
STOP_TEXT = f"{theme.ICON_STOP}\nArrêter"
LIST_FINISHED = "Bravo, vous avez fini la liste !"
RESTART_TEXT = "Recommencer la liste"

# What the patient is told in each state (short, plain French).
STATUS = {
    State.IDLE: "Appuyez sur le bouton rouge, puis parlez.",
    State.RECORDING: "Je vous écoute…",
    State.RECOGNISING: "J'écoute ce que vous avez dit…",
    State.CORRECTING: "Je cherche la phrase…",
    State.REVIEWING: "Vouliez-vous dire… ?",
    State.SPEAKING: "Écoutez…",
    State.AWAITING_REPETITION: "À vous ! Appuyez sur le bouton rouge et répétez.",
    State.SCORING: "Je vérifie…",
    State.FEEDBACK: "",
}


class _PromptScroll(QScrollArea):
    """Scrolls the prompt only when the screen is too short; otherwise exactly its height.

    QScrollArea asks for a bounded guess; this asks for what the page needs at
    its width, so the record row sits right under the prompt.
    """

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt API
        hint = super().sizeHint()
        page = self.widget()
        if page is None:
            return hint
        width = self.viewport().width() or page.sizeHint().width()
        layout = page.layout()
        if layout is not None and layout.hasHeightForWidth():
            height = layout.totalHeightForWidth(width)
        else:
            height = page.sizeHint().height()
        return QSize(hint.width(), height + 2 * self.frameWidth())

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt API
        # The page changed (proposals shown, a cue): the screen lays out again.
        if watched is self.widget() and event.type() == QEvent.Type.LayoutRequest:
            self.updateGeometry()
        return super().eventFilter(watched, event)


class PracticeScreen(QWidget):
    """Base of the exercise screens; subclasses fill :attr:`prompt_area`.

    The screen observes its :class:`PracticeController`: buttons and keys
    send intents, events redraw the widgets. Every action has a key on the
    left of the keyboard (right hemiplegia is common with aphasia; Enter is
    far right), shown on its button: Space record/stop, R replay, V my voice,
    S next (what "Suivant" does; Enter only validates), Escape back.

    Signals:
        event_received(object): every controller event, after the redraw.
        state_changed(str): the controller's new state (``State`` value).
        attempt_saved(int): an attempt id, once committed.
    """

    event_received = Signal(object)
    state_changed = Signal(str)
    attempt_saved = Signal(int)

    title = ""
    items_name = "Éléments"
    """What the list's summary counts ("Images réussies : 12 sur 20.")."""

    def __init__(self, controller: PracticeController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.controller = controller
        self._feedback: Feedback | None = None

        self.status = label(STATUS[State.IDLE], "status")
        # A program's next exercise says what it is before its first item.
        self.announcement = label("", "status")
        self.announcement.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.announcement.setAccessibleName("Nouvel exercice")
        self.announcement.hide()
        self.banner = Banner()
        self.prompt_area = QVBoxLayout()
        self.prompt_area.setSpacing(12)

        self.record_button = big_button(theme.ICON_RECORD, "Parler", "record")
        self.record_button.setText(RECORD_TEXT)
        self.record_button.setToolTip("Espace : commencer ou arrêter l'enregistrement")
        # The round button has no room for its key: it is written under it.
        self.record_key = label("(Espace)", "muted", wrap=False)
        self.record_key.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.meter = LevelMeter()
        self.busy = QProgressBar()
        self.busy.setRange(0, 0)  # indeterminate: the engines give no progress
        self.busy.setTextVisible(False)
        self.busy.setFixedWidth(320)
        # The key, the level meter while recording and the progress while the
        # engines work take turns under the button: one row of height, no jump.
        self.under_record = QStackedWidget()
        for widget in (self.record_key, self.meter, self.busy):
            self.under_record.addWidget(widget)
        self.under_record.setFixedSize(
            max(self.meter.minimumWidth(), self.busy.width(), self.record_key.sizeHint().width()),
            max(self.meter.minimumHeight(), self.busy.sizeHint().height()),
        )

        self.feedback_title = label("", "success")
        self.feedback_title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.stars = Stars()
        self.heard = label("", "muted")
        self.heard.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.cue_label = label("", "status")
        self.cue_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        feedback_box = QVBoxLayout()
        feedback_box.setContentsMargins(0, 0, 0, 0)
        feedback_box.setSpacing(4)
        for widget in (self.feedback_title, self.stars, self.cue_label, self.heard):
            feedback_box.addWidget(widget)
            widget.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        self.feedback_panel = QWidget()
        self.feedback_panel.setLayout(feedback_box)
        self.feedback_panel.hide()  # hidden until a verdict
        self._clear_feedback()

        self.replay_button = big_button(theme.ICON_REPLAY, "Réécouter", tooltip="Touche R", key="R")
        self.my_voice_button = big_button(
            theme.ICON_PLAY, "Ma voix", tooltip="Touche V : réécouter mon enregistrement", key="V"
        )
        self.next_button = big_button(theme.ICON_NEXT, "Suivant", "primary", "Touche S", key="S")

        self.record_panel = QWidget()
        record_column = QVBoxLayout(self.record_panel)
        record_column.setContentsMargins(0, 0, 0, 0)
        record_column.setAlignment(Qt.AlignmentFlag.AlignHCenter)
        record_column.setSpacing(4)
        record_column.addWidget(self.record_button, 0, Qt.AlignmentFlag.AlignHCenter)
        record_column.addWidget(self.under_record, 0, Qt.AlignmentFlag.AlignHCenter)

        buttons = QHBoxLayout()
        buttons.addStretch(1)
        for button in (self.replay_button, self.my_voice_button, self.next_button):
            buttons.addWidget(button)
        buttons.addStretch(1)

        self.prompt_card = prompt_card = QFrame()
        set_role(prompt_card, "card")
        prompt_card.setLayout(self.prompt_area)

        # The end of the list (outside a program): a summary, then the patient
        # chooses to start again (it restarted silently).
        self.summary = QFrame()
        set_role(self.summary, "card")
        self.summary_title = label(LIST_FINISHED, "success")
        self.summary_title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.summary_text = label("", "title")
        self.summary_text.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.restart_button = big_button(
            theme.ICON_REPLAY, RESTART_TEXT, "primary", "Touche Entrée", key="Entrée"
        )
        summary_layout = QVBoxLayout(self.summary)
        summary_layout.setSpacing(16)
        summary_layout.addWidget(self.summary_title)
        summary_layout.addWidget(self.summary_text)
        summary_layout.addWidget(self.restart_button, 0, Qt.AlignmentFlag.AlignHCenter)
        self.summary.hide()

        body = QWidget()
        body_layout = QVBoxLayout(body)
        body_layout.setContentsMargins(32, 10, 32, 4)
        body_layout.setSpacing(8)
        body_layout.addWidget(self.announcement)
        body_layout.addWidget(self.banner)
        body_layout.addWidget(prompt_card)
        body_layout.addWidget(self.summary)
        body_layout.addStretch(1)
        # Only what is read scrolls, when a long prompt needs it on a small
        # screen (1366x768 laptops): the record button, what to do and the
        # buttons below always show ("Parler" went below the fold).
        self.prompt_scroll = scroll = _PromptScroll()
        scroll.setWidget(body)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        # What to do and the result, beside the button just pressed.
        side = QVBoxLayout()
        side.setSpacing(6)
        side.addStretch(1)
        side.addWidget(self.feedback_panel)
        side.addWidget(self.status)
        side.addStretch(1)
        middle = QHBoxLayout()
        middle.setContentsMargins(64, 0, 32, 0)
        middle.setSpacing(40)
        middle.addWidget(self.record_panel)
        middle.addLayout(side, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 12)
        layout.setSpacing(8)
        layout.addWidget(scroll)  # its content's height, less when space is short
        layout.addLayout(middle)
        layout.addStretch(1)
        layout.addLayout(buttons)

        self._poll = QTimer(self)
        self._poll.setInterval(LEVEL_POLL_MS)
        self._poll.timeout.connect(self._poll_level)

        self.record_button.clicked.connect(self._toggle_recording)
        self.replay_button.clicked.connect(self._replay)
        self.my_voice_button.clicked.connect(self._play_my_voice)
        self.next_button.clicked.connect(self._next_clicked)
        self.restart_button.clicked.connect(self._restart)
        self._shortcuts: list[QShortcut] = []
        self._add_shortcut(Qt.Key.Key_Space, self._toggle_recording)
        self._add_shortcut(Qt.Key.Key_Return, self._continue)
        self._add_shortcut(Qt.Key.Key_Enter, self._continue)
        self._add_shortcut(KEY_REPLAY, self._replay)
        self._add_shortcut(KEY_MY_VOICE, self._play_my_voice)
        self._add_shortcut(KEY_NEXT, self._next_key)
        controller.subscribe(self._on_event)

    # ----- keyboard -----------------------------------------------------------
    def _add_shortcut(self, key: Qt.Key, slot: object) -> QShortcut:
        shortcut = QShortcut(QKeySequence(key), self)
        shortcut.setContext(Qt.ShortcutContext.WindowShortcut)
        shortcut.setAutoRepeat(False)  # a held key must not start and stop a recording
        shortcut.activated.connect(slot)
        self._shortcuts.append(shortcut)
        return shortcut

    # ----- intents ------------------------------------------------------------
    def start(self, announcement: str = "") -> None:
        """Begin the exercise (the controller opens the session and says the first item).

        Args:
            announcement: a program's "Exercice 2 sur 3 : …", shown and said first.
        """
        self.controller.begin(announcement)
        self._refresh()

    def focus_default(self) -> None:
        """Focus the record button (Space works anywhere on the screen anyway)."""
        if not self.isVisible():
            return
        if self.summary.isVisible():
            self.restart_button.setFocus()
        elif self.record_button.isEnabled():
            self.record_button.setFocus()
        else:  # nothing to record yet: no button holds the keys meanwhile
            self.setFocus(Qt.FocusReason.OtherFocusReason)

    def leave(self) -> None:
        """End the exercise (Escape or the back button)."""
        self._poll.stop()
        self.controller.end()
        # Saves still running report after the screen is gone: stop listening.
        self.controller.unsubscribe(self._on_event)

    def _toggle_recording(self) -> None:
        self.banner.clear_message()
        self.controller.toggle_recording()

    def _replay(self) -> None:
        self.controller.replay()

    def _play_my_voice(self) -> None:
        self.controller.play_recording()

    def _continue(self) -> None:
        # Enter only validates: skipping an item on a stray key press would be unkind.
        if self.controller.list_finished:
            self._restart()
            return
        self.controller.confirm()

    def _restart(self) -> None:
        self.controller.restart()

    def _next_key(self) -> None:
        # S does what "Suivant" does, only when the button can be used.
        if self.next_button.isEnabled():
            self._next_clicked()

    def _next_clicked(self) -> None:
        # "Suivant" always moves on: after a verdict, while a cue is said, and on
        # "Vouliez-vous dire… ?", where it takes none of the sentences;
        # a sentence is taken with its number or Enter.
        if self.controller.state is State.FEEDBACK:
            self.controller.confirm()
        else:
            self.controller.next_item()

    # ----- events ---------------------------------------------------------------
    def _on_event(self, event: PracticeEvent) -> None:
        if isinstance(event, StateChanged):
            self._on_state(event.state)
        elif isinstance(event, ItemPresented):
            self._clear_feedback()
            self._show_summary(None)
            self.on_item(event)
        elif isinstance(event, Announced):
            self.announcement.setText(event.text)
            self.announcement.show()
            # No empty card while it is said: the item comes right after.
            self.prompt_card.setVisible(self.controller.kind is ExerciseKind.FREE_SPEECH)
        elif isinstance(event, ListFinished):
            self._clear_feedback()
            self._show_summary(event)
        elif isinstance(event, ScriptsOffered | ScriptLine):
            # Script practice: the dialogues to pick from, or the dialogue's next line.
            self._clear_feedback()
            self._show_summary(None)
            self.on_script(event)
        elif isinstance(event, Heard):
            self.on_heard(event)
        elif isinstance(event, Corrected):
            self.on_corrected(event)
        elif isinstance(event, Speaking):
            pass
        elif isinstance(event, CueGiven):
            self.on_cue(event)
        elif isinstance(event, Feedback):
            self._show_feedback(event)
        elif isinstance(event, AttemptSaved):
            self.attempt_saved.emit(event.attempt_id)
        elif isinstance(event, Notice):
            self.banner.show_notice(event.message)
        elif isinstance(event, ErrorOccurred):
            self.banner.show_error(event.message)
        self._refresh()
        self.event_received.emit(event)

    def _on_state(self, state: State) -> None:
        if state is State.RECORDING:
            self._clear_feedback()
            self.announcement.hide()  # seen: the patient answers now
            self._poll.start()
        else:
            self._poll.stop()
            self.meter.set_level(0.0)
        self.state_changed.emit(state.value)

    def _poll_level(self) -> None:
        self.meter.set_level(self.controller.input_level)

    def _show_summary(self, finished: ListFinished | None) -> None:
        """The end-of-list summary (None: back to the exercise)."""
        shown = finished is not None
        if finished is not None:
            title, text = self.summary_texts(finished)
            self.summary_title.setText(title)
            self.summary_text.setText(text)
        self.summary.setVisible(shown)
        self.prompt_card.setVisible(not shown)
        self.record_panel.setVisible(not shown)
        if shown:
            self.focus_default()

    def _clear_feedback(self) -> None:
        self._feedback = None
        for widget in (self.feedback_title, self.stars, self.cue_label, self.heard):
            widget.hide()
        self.feedback_panel.hide()

    def _show_feedback(self, feedback: Feedback) -> None:
        self._feedback = feedback
        if feedback.success:
            set_role(self.feedback_title, "success")
            self.feedback_title.setText(f"{theme.ICON_CHECK}  {feedback.message}")
            self.stars.set_count(feedback.stars)
            self.stars.show()
        else:
            set_role(self.feedback_title, "encourage")
            self.feedback_title.setText(feedback.message)
            self.stars.hide()
        self.feedback_title.show()
        self.feedback_panel.show()
        # ``heard`` is empty when the transcript would contradict the verdict
        # (therapy_app.verdict.transcript_agrees): then no transcript is shown.
        if feedback.heard:
            self.heard.setText(f"J'ai entendu : «\u00a0{feedback.heard}\u00a0»")
            self.heard.show()
        else:
            self.heard.clear()
            self.heard.hide()
        self.cue_label.hide()
        self.on_feedback_shown(feedback.success)

    # ----- redraw -------------------------------------------------------------
    def _refresh(self) -> None:
        state = self.controller.state
        recording = state is State.RECORDING
        self.record_button.setText(STOP_TEXT if recording else RECORD_TEXT)
        self.record_button.setProperty("recording", "true" if recording else "false")
        self.record_button.style().unpolish(self.record_button)
        self.record_button.style().polish(self.record_button)
        # Nothing is recorded before an item is on screen.
        can_record = self.controller.can_record
        if not can_record:
            self._hold_focus()
        self.record_button.setEnabled(can_record)
        shown = self.meter if recording else self.busy if state.busy else self.record_key
        self.under_record.setCurrentWidget(shown)
        if can_record:
            self._keep_focus()
        self.replay_button.setEnabled(self.controller.can_replay)
        self.my_voice_button.setEnabled(
            self.controller.has_recording and not state.busy and not recording
        )
        finished = self._feedback is not None and self._feedback.item_finished
        validates = state is State.FEEDBACK and finished
        self.next_button.setEnabled(validates or self.next_enabled(state))
        # The tooltip names Enter only when Enter does what the button does.
        self.next_button.setToolTip("Touche S ou Entrée" if validates else "Touche S")
        self.status.setText(self.status_text(state))
        self.refresh_extra(state)

    def _hold_focus(self) -> None:
        # Disabling the focused record button would pass the focus on to the
        # next button; the screen holds it instead, so that no key meant for
        # the exercise lands on another button while the engines work.
        focused = QApplication.focusWidget()
        if focused is not None and (focused is self or self.isAncestorOf(focused)):
            if focused is self.record_button:
                self.setFocus(Qt.FocusReason.OtherFocusReason)

    def _keep_focus(self) -> None:
        # Disabling the focused record button (while the engines work) sends the
        # focus to the next widget, the header's "Retour": bring it back.
        focused = QApplication.focusWidget()
        held = focused is self  # held by the screen while the engines worked
        if self.isVisible() and (focused is None or held or not self.isAncestorOf(focused)):
            self.focus_default()

    def status_text(self, state: State) -> str:
        """The instruction line for ``state`` (subclasses may adapt it)."""
        if self.controller.list_finished:
            return "Entrée : recommencer la liste.   Échap : choisir un autre exercice."
        if state is State.FEEDBACK:
            if self._feedback is not None and self._feedback.item_finished:
                return "S ou Entrée : continuer.   Espace : recommencer."
            return ""
        return STATUS[state]

    # ----- hooks for subclasses -------------------------------------------------
    def next_enabled(self, state: State) -> bool:
        """Whether "Suivant" is usable outside the feedback (skip an item, even while said)."""
        skippable = (State.AWAITING_REPETITION, State.IDLE, State.SPEAKING)
        return state in skippable and self.controller.item is not None

    def summary_texts(self, finished: ListFinished) -> tuple[str, str]:
        """The summary's title and line at the end of the list (subclasses may adapt them)."""
        return LIST_FINISHED, (
            f"{self.items_name} réussies : {finished.succeeded} sur {finished.items}."
        )

    def on_item(self, event: ItemPresented) -> None:
        """A new item: show its prompt."""

    def on_script(self, event: ScriptsOffered | ScriptLine) -> None:
        """Script practice: the dialogues offered, or the dialogue's next line."""

    def on_heard(self, event: Heard) -> None:
        """The transcript of the last recording."""

    def on_corrected(self, event: Corrected) -> None:
        """Free speech proposals."""

    def on_cue(self, event: CueGiven) -> None:
        """Help after a failed try: shown under the feedback."""
        self.cue_label.setText(event.cue.message)
        self.cue_label.show()
        self.feedback_panel.show()

    def on_feedback_shown(self, success: bool) -> None:
        """The verdict is on screen."""

    def refresh_extra(self, state: State) -> None:
        """Update the subclass's own widgets."""
