"""The therapist's dialogue scripts for a patient: list, write, listen to a line, archive.

Script training: short everyday dialogues (4 to 8 lines) the
patient practises in « Dialogues ». Each line is said by the « Interlocuteur »
(the app's voice says it) or the « Patient » (judged like a sentence to
repeat). « Ajouter un exemple » gives the patient a copy of a bundled
dialogue to adapt. Storage and validation are ``storage.script_store``'s;
its French messages are shown as they are.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from therapy_app.errors import TherapyAppError
from therapy_app.gui.therapist.confirm import ask_first
from therapy_app.gui.therapist.context import TherapistContext
from therapy_app.gui.therapist.style import set_role, show_status, status_label
from therapy_app.phrases.model import Script, ScriptTurn, Speaker
from therapy_app.practice import cues
from therapy_app.speech.services import AudioOutput
from therapy_app.storage import Patient
from therapy_app.storage.script_store import (
    MAX_TURN_TEXT,
    MAX_TURNS,
    SUGGESTED_TURNS,
    bundled_examples,
)
from therapy_app.tts.options import SynthesisOptions
from therapy_app.tts.synthesizer import SpeechSynthesizer

_LOGGER = logging.getLogger(__name__)

GROUP = "therapist-scripts"
LIST_HEIGHT = 150
"""The scripts' list: five titles, then it scrolls."""
VOICE_GROUP = "therapist-script-voice"
SPEAKER_LABELS = {Speaker.PARTNER: "Interlocuteur", Speaker.PATIENT: "Patient"}
HELP = (
    "Un dialogue de la vie quotidienne (à la boulangerie, chez le médecin, au téléphone) "
    f"de {SUGGESTED_TURNS[0]} à {SUGGESTED_TURNS[1]} répliques. Dans « Dialogues », la voix "
    "dit les répliques de l'interlocuteur ; le patient dit les siennes, jugées comme une "
    "phrase à répéter, avec les mêmes aides."
)
NEW_TITLE = "Nouveau script"
NO_SCRIPT = "Aucun script pour ce patient : il s'entraîne sur les exemples de l'application."
SAVED = "Script enregistré."
UNSAVED = "Modifications non enregistrées."
NO_VOICE = "La voix n'a pas pu lire la réplique : "
ALREADY = "Ce patient a déjà un script « {title} »."
EXAMPLE_ADDED = "Exemple ajouté : adaptez-le au patient, puis enregistrez."


@dataclass(frozen=True)
class LineVoice:
    """What « Écouter » needs: the app's French voice and a speaker."""

    synthesizer: SpeechSynthesizer
    player: AudioOutput

    def say(self, text: str) -> None:
        """Say ``text`` at the cues' usual pace, to the end (worker thread).

        Raises:
            SpeechSynthesisError: the voice failed.
            AudioDeviceError: no speaker.
        """
        clip = self.synthesizer.synthesize(text, SynthesisOptions(rate_wpm=cues.NORMAL_RATE_WPM))
        self.player.play(clip, blocking=True)


class TurnRow(QWidget):
    """One line of the dialogue: who says it, the line, « Écouter », move and delete buttons.

    Signals:
        changed(): the speaker or the text changed.
    """

    changed = Signal()

    def __init__(self, turn: ScriptTurn | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.speaker = QComboBox()
        for speaker, text in SPEAKER_LABELS.items():
            self.speaker.addItem(text, speaker.value)
        self.speaker.setAccessibleName("Qui dit la réplique")
        self.text = QLineEdit()
        self.text.setMaxLength(MAX_TURN_TEXT + 50)  # the store says why a longer one is refused
        self.text.setAccessibleName("Réplique")
        self.listen = QPushButton("Écouter")
        self.listen.setToolTip("La voix de l'application lit la réplique")
        self.up = QPushButton("↑")
        self.up.setToolTip("Monter la réplique")
        self.up.setAccessibleName("Monter la réplique")
        self.down = QPushButton("↓")
        self.down.setToolTip("Descendre la réplique")
        self.down.setAccessibleName("Descendre la réplique")
        self.delete = QPushButton("Supprimer")
        self.delete.setToolTip("Supprimer la réplique")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.speaker)
        layout.addWidget(self.text, 1)
        for button in (self.listen, self.up, self.down, self.delete):
            layout.addWidget(button)
        if turn is not None:
            self.set_turn(turn)
        self.speaker.currentIndexChanged.connect(lambda _i: self.changed.emit())
        self.text.textChanged.connect(lambda _t: self.changed.emit())

    def set_turn(self, turn: ScriptTurn) -> None:
        """Show ``turn``."""
        self.speaker.setCurrentIndex(max(0, self.speaker.findData(Speaker(turn.speaker).value)))
        self.text.setText(turn.text)

    def turn(self) -> ScriptTurn:
        """The line as written (the store cleans and checks it)."""
        return ScriptTurn(Speaker(self.speaker.currentData()), self.text.text())


class ScriptEditor(QGroupBox):
    """The selected patient's dialogue scripts.

    Args:
        context: the data, the task runner (storage on its database worker, the
            voice on its inference worker) and the app's loaded voice and speaker
            (« Écouter »; None, or a provider returning None, loads the voice on
            first use).
        parent: Qt parent.

    Signals:
        scripts_loaded(int): the patient's scripts are listed (count).
        saved(int): a script was stored (its id).
        spoken(str): « Écouter » finished saying a line.
        failed(str): French message.
    """

    scripts_loaded = Signal(int)
    saved = Signal(int)
    spoken = Signal(str)
    failed = Signal(str)

    def __init__(self, context: TherapistContext, parent: QWidget | None = None) -> None:
        super().__init__("Scripts de dialogue", parent)
        self._repository = context.repository
        self._store = context.repository.scripts
        self._runner = context.runner
        self._audio = context.audio
        self._loaded_voice: LineVoice | None = None
        self._patient: Patient | None = None
        self._scripts: list[Script] = []
        self._editing: int | None = None  # the script shown (None: a new one)
        self._dirty = False
        self._loading = False  # the form is being filled: no change to report
        self.confirm_box: QMessageBox | None = None
        self.examples = bundled_examples()

        help_label = QLabel(HELP)
        help_label.setWordWrap(True)
        set_role(help_label, "muted")
        self.list = QListWidget()
        self.list.setAccessibleName("Scripts du patient")
        self.list.setFixedHeight(LIST_HEIGHT)
        self.new_button = QPushButton("Nouveau script")
        self.example = QComboBox()
        self.example.setAccessibleName("Exemple à ajouter")
        for example in self.examples:
            self.example.addItem(example.title)
        self.add_example_button = QPushButton("Ajouter un exemple")
        self.add_example_button.setToolTip("Donne au patient une copie de l'exemple choisi")
        self.archive_button = QPushButton("Archiver")
        self.archive_button.setToolTip(
            "Le script n'est plus proposé ; ses essais restent dans les progrès"
        )

        self.title_edit = QLineEdit()
        self.title_edit.setAccessibleName("Titre du script")
        self.title_edit.setPlaceholderText("À la boulangerie")
        self.rows: list[TurnRow] = []
        self.rows_box = QVBoxLayout()
        self.rows_box.setSpacing(4)
        self.add_turn_button = QPushButton("Ajouter une réplique")
        self.count = QLabel()
        set_role(self.count, "muted")
        self.save_button = QPushButton("Enregistrer")
        set_role(self.save_button, "primary")
        self.status = status_label()

        # The scripts above the form: the lines get the page's width (a sentence
        # shows whole in its field on a 1366-pixel screen).
        actions = QVBoxLayout()
        for widget in (self.new_button, self.archive_button, self.example):
            actions.addWidget(widget)
        actions.addWidget(self.add_example_button)
        actions.addStretch(1)
        top = QHBoxLayout()
        top.addWidget(self.list, 1)
        top.addLayout(actions)
        title_row = QHBoxLayout()
        title_row.addWidget(QLabel("Titre :"))
        title_row.addWidget(self.title_edit, 1)
        bottom = QHBoxLayout()
        bottom.addWidget(self.add_turn_button)
        bottom.addWidget(self.count)
        bottom.addStretch(1)
        bottom.addWidget(self.save_button)
        layout = QVBoxLayout(self)
        layout.addWidget(help_label)
        layout.addLayout(top)
        layout.addLayout(title_row)
        layout.addLayout(self.rows_box)
        layout.addLayout(bottom)
        layout.addWidget(self.status)
        layout.addStretch(1)

        self.list.currentItemChanged.connect(self._selected)
        self.new_button.clicked.connect(self.new_script)
        self.add_example_button.clicked.connect(self.add_example)
        self.archive_button.clicked.connect(self.archive_selected)
        self.add_turn_button.clicked.connect(self._add_turn_clicked)
        self.save_button.clicked.connect(self.save)
        self.title_edit.textChanged.connect(lambda _t: self._touched())
        self._show_form(None)
        self.set_patient(None)

    # -- patient -------------------------------------------------------------------

    @property
    def dirty(self) -> bool:
        """True when the form holds changes not saved."""
        return self._dirty

    def set_patient(self, patient: Patient | None) -> None:
        """Show ``patient``'s scripts (None: nobody, everything cleared)."""
        self._patient = patient
        self._runner.cancel_stale(GROUP)
        self._scripts = []
        self.list.blockSignals(True)
        self.list.clear()
        self.list.blockSignals(False)
        self._show_form(None)
        self._show_status("")
        self.setEnabled(patient is not None)
        if patient is not None:
            self.reload()

    def reload(self, select: int | None = None, message: tuple[str, str] = ("", "")) -> None:
        """Re-read the patient's scripts; then show ``select`` (or the first) and ``message``.

        Args:
            select: the script to show.
            message: (French text, role) for the status line once listed.
        """
        patient = self._patient
        if patient is None:
            return
        self._runner.submit(
            self._store.all,
            patient.id,
            on_done=lambda found: self._listed(patient.id, found, select, message),
            on_error=self._failed,
            pool="db",
            group=GROUP,
        )

    def _listed(
        self,
        patient_id: int,
        scripts: list[Script],
        select: int | None,
        message: tuple[str, str] = ("", ""),
    ) -> None:
        if self._patient is None or self._patient.id != patient_id:
            return
        self._scripts = scripts
        self.list.blockSignals(True)
        self.list.clear()
        for script in scripts:
            item = QListWidgetItem(f"{script.title} ({len(script.turns)} répliques)")
            item.setData(Qt.ItemDataRole.UserRole, script.id)
            self.list.addItem(item)
        self.list.blockSignals(False)
        ids = [s.id for s in scripts]
        if select in ids:
            self.list.setCurrentRow(ids.index(select))
        elif scripts:
            self.list.setCurrentRow(0)
        else:
            self._show_form(None)
            message = message if message[0] else (NO_SCRIPT, "muted")
        if message[0]:
            self._show_status(*message)
        self.archive_button.setEnabled(bool(scripts))
        self.scripts_loaded.emit(len(scripts))

    @property
    def titles(self) -> list[str]:
        """The patient's scripts as listed."""
        return [s.title for s in self._scripts]

    # -- the form ------------------------------------------------------------------

    def _selected(self, current: QListWidgetItem | None, previous: QListWidgetItem | None) -> None:
        if current is None:
            return
        script_id = current.data(Qt.ItemDataRole.UserRole)
        if script_id == self._editing:
            return

        def show() -> None:
            script = next((s for s in self._scripts if s.id == script_id), None)
            self._show_form(script)
            self._show_status("")
            self._select(script_id)

        def keep() -> None:
            self._select(self._editing)

        self._unless_dirty(show, keep)

    def _select(self, script_id: int | None) -> None:
        """Select ``script_id`` in the list without reacting to it (None: no selection)."""
        ids = [s.id for s in self._scripts]
        self.list.blockSignals(True)
        self.list.setCurrentRow(ids.index(script_id) if script_id in ids else -1)
        self.list.blockSignals(False)

    def _unless_dirty(
        self, go: Callable[[], None], stay: Callable[[], None] = lambda: None
    ) -> None:
        """``go()`` now, or once the therapist agreed to lose the unsaved changes (else ``stay()``).

        The question is window-modal without blocking (the event loop goes on).
        """
        if not self._dirty:
            go()
            return

        def answered(discard: bool) -> None:
            self.confirm_box = None
            (go if discard else stay)()

        self.confirm_box = ask_first(
            self,
            "Modifications non enregistrées",
            "Le script en cours a des modifications non enregistrées. Les abandonner ?",
            "Abandonner",
            answered,
            keep="Continuer l'édition",
        )

    def _show_form(self, script: Script | None) -> None:
        """``script`` in the form (None: an empty new script with a suggested start)."""
        self._loading = True
        try:
            self._editing = script.id if script is not None else None
            self.title_edit.setText(script.title if script is not None else "")
            for row in self.rows:
                self.rows_box.removeWidget(row)
                row.deleteLater()
            self.rows = []
            turns = script.turns if script is not None else _SUGGESTED_START
            for turn in turns:
                self._append_row(turn)
        finally:
            self._loading = False
        self._dirty = False
        self._update_buttons()

    def new_script(self) -> None:
        """« Nouveau script »: an empty dialogue to write (unsaved changes: asked first)."""

        def start() -> None:
            self._select(None)
            self._show_form(None)
            self.title_edit.setFocus()
            self._show_status("")

        self._unless_dirty(start)

    def _append_row(self, turn: ScriptTurn) -> TurnRow:
        row = TurnRow(turn)
        row.changed.connect(self._touched)
        row.listen.clicked.connect(lambda _=False, r=row: self.listen(self.rows.index(r)))
        row.up.clicked.connect(lambda _=False, r=row: self.move_turn(self.rows.index(r), -1))
        row.down.clicked.connect(lambda _=False, r=row: self.move_turn(self.rows.index(r), 1))
        row.delete.clicked.connect(lambda _=False, r=row: self.remove_turn(self.rows.index(r)))
        self.rows_box.addWidget(row)
        self.rows.append(row)
        return row

    def add_turn(self, speaker: Speaker | None = None, text: str = "") -> TurnRow | None:
        """A new line at the end (the other speaker than the last line's by default)."""
        if len(self.rows) >= MAX_TURNS:
            self._show_status(f"Un script a au plus {MAX_TURNS} répliques.", "error")
            return None
        if speaker is None:
            last = self.rows[-1].turn().speaker if self.rows else Speaker.PATIENT
            speaker = Speaker.PATIENT if last is Speaker.PARTNER else Speaker.PARTNER
        row = self._append_row(ScriptTurn(speaker, text))
        self._touched()
        return row

    def _add_turn_clicked(self) -> None:
        row = self.add_turn()
        if row is not None:
            row.text.setFocus()

    def remove_turn(self, index: int) -> None:
        """Delete line ``index`` of the form (saved with « Enregistrer »)."""
        row = self.rows.pop(index)
        self.rows_box.removeWidget(row)
        row.deleteLater()
        self._touched()

    def move_turn(self, index: int, step: int) -> None:
        """Move line ``index`` up (-1) or down (+1)."""
        target = index + step
        if not 0 <= target < len(self.rows):
            return
        first, second = self.rows[index].turn(), self.rows[target].turn()
        self.rows[index].set_turn(second)
        self.rows[target].set_turn(first)
        self.rows[target].text.setFocus()
        self._touched()

    def turns(self) -> list[ScriptTurn]:
        """The lines as written in the form."""
        return [row.turn() for row in self.rows]

    def _touched(self) -> None:
        if self._loading:
            return
        self._dirty = True
        self._update_buttons()
        if self._patient is not None:
            self._show_status(UNSAVED, "muted")

    def _update_buttons(self) -> None:
        count = len(self.rows)
        low, high = SUGGESTED_TURNS
        advice = "" if low <= count <= high else f" (conseillé : {low} à {high})"
        self.count.setText(f"{count} réplique{'s' if count > 1 else ''}{advice}")
        self.add_turn_button.setEnabled(count < MAX_TURNS)
        for index, row in enumerate(self.rows):
            row.up.setEnabled(index > 0)
            row.down.setEnabled(index < count - 1)

    # -- storing -------------------------------------------------------------------

    def save(self) -> None:
        """« Enregistrer »: the store checks the script (French message if refused)."""
        patient = self._patient
        if patient is None:
            return
        title, turns, script_id = self.title_edit.text(), self.turns(), self._editing
        self._runner.submit(
            self._store.save,
            patient.id,
            title,
            turns,
            script_id,
            on_done=lambda new_id: self._stored(patient.id, new_id, SAVED),
            on_error=self._failed,
            pool="db",
            group=GROUP,
        )

    def _stored(self, patient_id: int, script_id: int, message: str) -> None:
        if self._patient is None or self._patient.id != patient_id:
            return
        self._dirty = False
        self._editing = None  # the list's selection shows it again, as stored
        self.reload(select=script_id, message=(message, "success"))
        self.saved.emit(script_id)

    def add_example(self) -> None:
        """« Ajouter un exemple »: a copy of the chosen bundled dialogue for this patient."""
        patient = self._patient
        index = self.example.currentIndex()
        if patient is None or not 0 <= index < len(self.examples):
            return
        example = self.examples[index]
        if example.title.casefold() in (t.casefold() for t in self.titles):
            self._show_status(ALREADY.format(title=example.title), "error")
            return
        self._unless_dirty(lambda: self._copy_example(patient, example))

    def _copy_example(self, patient: Patient, example: Script) -> None:
        self._runner.submit(
            self._store.save,
            patient.id,
            example.title,
            list(example.turns),
            on_done=lambda new_id: self._stored(patient.id, new_id, EXAMPLE_ADDED),
            on_error=self._failed,
            pool="db",
            group=GROUP,
        )

    def archive_selected(self) -> None:
        """« Archiver » the selected script, after a confirmation naming it."""
        patient, item = self._patient, self.list.currentItem()
        if patient is None or item is None:
            return
        script_id = item.data(Qt.ItemDataRole.UserRole)
        title = next((s.title for s in self._scripts if s.id == script_id), item.text())

        def answered(confirmed: bool) -> None:
            self.confirm_box = None
            if confirmed:
                self._archive(patient.id, script_id)

        self.confirm_box = ask_first(
            self,
            "Archiver le script",
            f"Archiver « {title} » ?\nIl ne sera plus proposé au patient ; "
            "ses essais restent dans les progrès.",
            "Archiver",
            answered,
        )

    def _archive(self, patient_id: int, script_id: int) -> None:
        self._runner.submit(
            self._store.archive,
            script_id,
            on_done=lambda _: self._archived(patient_id),
            on_error=self._failed,
            pool="db",
            group=GROUP,
        )

    def _archived(self, patient_id: int) -> None:
        self._dirty = False
        self._editing = None
        if self._patient is not None and self._patient.id == patient_id:
            self.reload(message=("Script archivé.", "muted"))

    # -- the voice -----------------------------------------------------------------

    def listen(self, index: int) -> None:
        """« Écouter »: the app's voice says line ``index`` (worker thread)."""
        text = self.rows[index].text.text().strip()
        if not text:
            return
        # The window's loaded engines are looked up here, on the GUI thread.
        audio = self._audio() if self._audio is not None else None
        voice = LineVoice(audio.synthesizer, audio.player) if audio is not None else None
        self._runner.submit(
            self._say,
            voice,
            text,
            on_done=lambda _: self.spoken.emit(text),
            on_error=lambda exc: self._show_status(NO_VOICE + _french(exc), "error"),
            group=VOICE_GROUP,
        )

    def _say(self, voice: LineVoice | None, text: str) -> None:
        if voice is None:
            voice = self._loaded_voice or _load_voice()
            self._loaded_voice = voice
        voice.say(text)

    # -- messages ------------------------------------------------------------------

    def _failed(self, exc: BaseException) -> None:
        if not isinstance(exc, TherapyAppError | KeyError):
            _LOGGER.error("script editing failed", exc_info=exc)
        message = _french(exc)
        self._show_status(message, "error")
        self.failed.emit(message)

    def _show_status(self, text: str, role: str = "muted") -> None:
        show_status(self.status, text, role)


_SUGGESTED_START = (
    ScriptTurn(Speaker.PARTNER, ""),
    ScriptTurn(Speaker.PATIENT, ""),
    ScriptTurn(Speaker.PARTNER, ""),
    ScriptTurn(Speaker.PATIENT, ""),
)
"""A new script starts with four empty lines, the partner first (4 to 8 suggested)."""


def _french(exc: BaseException) -> str:
    if isinstance(exc, TherapyAppError):
        return exc.french()
    if isinstance(exc, KeyError):
        return "Ce script ou ce patient n'existe plus : la liste est relue."
    return "L'opération n'a pas abouti. Réessayez."


def _load_voice() -> LineVoice:
    """The app's voice and the speaker, when the exercises' engines are not loaded."""
    from therapy_app.audio.player import Player

    return LineVoice(SpeechSynthesizer.load(), Player())
