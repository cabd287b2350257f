"""« Enregistrer la voix »: the patient repeats items after the voice, the therapist marks each.

The dialog walks through :func:`therapy_app.voice.enrolment.enrolment_items`.
« Écouter » says the item with the app's voice, « Enregistrer » records the
patient with the app's recorder until their own silence (the end-of-speech
detector, the patient's pause tolerance), then « Juste » (J) or « Faux » (F)
stores the recording with the therapist's mark and moves on. A recording is
stored only once marked; when storing fails it stays in the dialog and can be
marked again, so nothing the therapist marked is lost.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QCloseEvent, QFont, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from therapy_app.audio.clip import AudioClip
from therapy_app.audio.recorder import Recorder, RecorderSettings, StopReason
from therapy_app.errors import (
    AudioDeviceError,
    AudioInputError,
    SpeechSynthesisError,
    TherapyAppError,
)
from therapy_app.gui import theme
from therapy_app.gui.tasks import TaskRunner
from therapy_app.gui.therapist.failures import therapist_text
from therapy_app.gui.therapist.style import apply_style, set_role
from therapy_app.gui.widgets import LevelMeter
from therapy_app.practice import cues
from therapy_app.speech import chain
from therapy_app.speech.services import AudioOutput, SpeechServices
from therapy_app.storage import Patient, SessionRepository
from therapy_app.tts.options import SynthesisOptions
from therapy_app.tts.synthesizer import SpeechSynthesizer
from therapy_app.vad.silero import VoiceActivityDetector
from therapy_app.voice.enrolment import add_enrolment, enrolment_items

_LOGGER = logging.getLogger(__name__)

ITEM_COUNT = 50
LEVEL_POLL_MS = 100
MAX_SECONDS = 25.0
"""Under the 30 s a training recording may last, slow starts included."""
NO_SPEECH_TIMEOUT_S = 15.0
"""Starting to speak is hard in Broca's aphasia: the microphone waits this long for a word."""
SPEAK_GROUP = "therapist-enrolment-voice"
CAPTURE_GROUP = "therapist-enrolment-capture"
LOAD_GROUP = "therapist-enrolment-load"
TEXT_POINT_SIZE = theme.HUGE_POINT_SIZE
BUTTON_POINT_SIZE = theme.BASE_POINT_SIZE

LOADING = "Préparation du micro et de la voix…"
READY = "« Écouter » : la voix dit l'élément. Puis « Enregistrer » : le patient le répète."
RECORDING = "Le patient répète… L'enregistrement s'arrête seul à la fin de la phrase."
JUDGE = "Le patient a-t-il bien répété ? « Juste » (J) ou « Faux » (F)."
NOTHING_HEARD = "Rien n'a été entendu. Appuyez de nouveau sur « Enregistrer »."
NO_SOUND = "Le son ne sort pas : lisez l'élément au patient."
FINISHED = "Séance terminée, merci !"


@dataclass(frozen=True)
class EnrolmentAudio:
    """What the session needs from the speech path.

    Attributes:
        synthesizer: the app's French voice (« Écouter »).
        vad: the voice activity detector (its end-of-speech detector ends a recording).
        recorder_factory: a fresh :class:`Recorder` per recording (the microphone
            in the app; a file source in tests).
        player: plays the voice.
    """

    synthesizer: SpeechSynthesizer
    vad: VoiceActivityDetector
    recorder_factory: Callable[[], Recorder]
    player: AudioOutput

    @classmethod
    def from_services(cls, services: SpeechServices) -> EnrolmentAudio:
        """The engines and devices the exercises already loaded."""
        return cls(services.synthesizer, services.vad, services.recorder_factory, services.player)


def load_enrolment_audio() -> EnrolmentAudio:
    """Load the voice and the detector, with the default microphone and speaker.

    Used when the exercises' engines are not loaded (the therapist area on its own).

    Raises:
        ModelMissingError: the voice activity detector is not installed.
        SpeechSynthesisError: no French voice.
    """
    from therapy_app.audio.player import Player

    return EnrolmentAudio(
        SpeechSynthesizer.load(), VoiceActivityDetector.load(), Recorder, Player()
    )


def say(audio: EnrolmentAudio, text: str) -> None:
    """The voice says ``text`` at the cues' usual pace, to the end (worker thread).

    Raises:
        SpeechSynthesisError: the voice failed.
        AudioDeviceError: no speaker.
    """
    clip = audio.synthesizer.synthesize(text, SynthesisOptions(rate_wpm=cues.NORMAL_RATE_WPM))
    audio.player.play(clip, blocking=True)


AudioProvider = Callable[[], EnrolmentAudio | None]
"""Returns the loaded speech path, or None to let the dialog load its own."""


class Step(Enum):
    """Where the session is."""

    LOADING = "loading"
    READY = "ready"  # the item is shown; listen or record
    SPEAKING = "speaking"
    RECORDING = "recording"
    JUDGING = "judging"  # a recording waits for « Juste » or « Faux »
    SAVING = "saving"
    FINISHED = "finished"
    UNAVAILABLE = "unavailable"  # no voice detector: nothing can be recorded


def _big(button: QPushButton, role: str = "") -> QPushButton:
    button.setMinimumHeight(theme.BUTTON_MIN_HEIGHT)
    button.setCursor(Qt.CursorShape.PointingHandCursor)
    font = QFont(button.font())
    font.setPointSize(BUTTON_POINT_SIZE)
    font.setBold(True)
    button.setFont(font)
    # In the sheet: the therapist sheet's 36-pixel minimum would win over setMinimumHeight().
    button.setStyleSheet(
        f"font-size: {BUTTON_POINT_SIZE}pt; font-weight: bold; "
        f"min-height: {theme.BUTTON_MIN_HEIGHT - 12}px;"
    )
    button.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
    if role:
        set_role(button, role)
    return button


class EnrolmentDialog(QDialog):
    """The « Enregistrer la voix » session for one patient.

    Args:
        repository: the data (recordings go into the patient's voice folder).
        runner: the app's task runner (voice and recording on the inference
            worker, storing on the database worker).
        patient: who repeats.
        audio: the speech path; None or a provider returning None loads the
            voice and the detector in the background.
        items: the texts to repeat; None for :func:`enrolment_items`.
        parent: Qt parent.

    Signals:
        ready(): the voice and the microphone can be used.
        item_stored(int, bool): an item was stored (its index, the therapist's mark).
        recording_done(bool): a recording ended (True: it waits for a mark).
        failed(str): a French message (no microphone, storing failed…).
    """

    ready = Signal()
    item_stored = Signal(int, bool)
    recording_done = Signal(bool)
    failed = Signal(str)

    def __init__(
        self,
        repository: SessionRepository,
        runner: TaskRunner,
        patient: Patient,
        audio: EnrolmentAudio | AudioProvider | None = None,
        items: Sequence[str] | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._repository = repository
        self._runner = runner
        self._patient = patient
        self._items = list(items) if items is not None else enrolment_items(ITEM_COUNT)
        self._index = 0
        self._audio: EnrolmentAudio | None = None
        self._recorder: Recorder | None = None
        self._clip: AudioClip | None = None
        self._step = Step.LOADING
        self._alive = [True]  # read by callbacks that may arrive after the C++ side is gone
        self.right = 0
        self.wrong = 0
        self.setWindowTitle(f"Enregistrer la voix — {patient.display_name}")
        self.setModal(True)
        apply_style(self)

        self.counter = QLabel()
        self.counter.setAccessibleName("Élément")
        set_role(self.counter, "section")
        self.tally = QLabel()
        self.tally.setTextFormat(Qt.TextFormat.PlainText)
        set_role(self.tally, "muted")
        self.text = QLabel()
        self.text.setTextFormat(Qt.TextFormat.PlainText)
        self.text.setWordWrap(True)
        self.text.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.text.setAccessibleName("Texte à répéter")
        self.text.setStyleSheet(f"font-size: {TEXT_POINT_SIZE}pt; font-weight: bold;")
        self.text.setMinimumHeight(2 * TEXT_POINT_SIZE * 2)
        self.status = QLabel()
        self.status.setStyleSheet(f"font-size: {theme.BASE_POINT_SIZE}pt;")
        self.status.setWordWrap(True)
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.status.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.level = LevelMeter()
        self.listen_button = _big(QPushButton(f"{theme.ICON_PLAY}  Écouter  (E)"))
        self.listen_button.setAccessibleName("Écouter")
        self.record_button = _big(QPushButton(), "primary")
        self.record_button.setAccessibleName("Enregistrer")
        self.right_button = _big(QPushButton(f"{theme.ICON_CHECK}  Juste  (J)"), "primary")
        self.right_button.setAccessibleName("Juste")
        self.wrong_button = _big(QPushButton("✘  Faux  (F)"))
        self.wrong_button.setAccessibleName("Faux")
        self.skip_button = QPushButton("Passer cet élément  (P)")
        self.skip_button.setAccessibleName("Passer")
        self.finish_button = QPushButton("Terminer")
        self.finish_button.setAccessibleName("Terminer")

        top = QHBoxLayout()
        top.addWidget(self.counter)
        top.addStretch(1)
        top.addWidget(self.tally)
        listen_row = QHBoxLayout()
        listen_row.addWidget(self.listen_button)
        listen_row.addWidget(self.record_button)
        mark_row = QHBoxLayout()
        mark_row.addWidget(self.right_button)
        mark_row.addWidget(self.wrong_button)
        bottom = QHBoxLayout()
        bottom.addWidget(self.skip_button)
        bottom.addStretch(1)
        bottom.addWidget(self.finish_button)
        layout = QVBoxLayout(self)
        layout.setSpacing(12)
        layout.addLayout(top)
        layout.addWidget(self.text, 1)
        layout.addWidget(self.status)
        layout.addWidget(self.level)
        layout.addLayout(listen_row)
        layout.addLayout(mark_row)
        layout.addLayout(bottom)

        self._poll = QTimer(self)
        self._poll.setInterval(LEVEL_POLL_MS)
        self._poll.timeout.connect(self._poll_level)
        self.listen_button.clicked.connect(self.listen)
        self.record_button.clicked.connect(self.toggle_recording)
        self.right_button.clicked.connect(lambda: self.mark(True))
        self.wrong_button.clicked.connect(lambda: self.mark(False))
        self.skip_button.clicked.connect(self.skip)
        self.finish_button.clicked.connect(self.accept)
        # Letters on the left of the keyboard, as in the exercises (the therapist
        # may have a hand on the mouse); Space records or stops anywhere.
        for key, slot in (
            (Qt.Key.Key_E, self.listen),
            (Qt.Key.Key_Space, self.toggle_recording),
            (Qt.Key.Key_J, lambda: self.mark(True)),
            (Qt.Key.Key_F, lambda: self.mark(False)),
            (Qt.Key.Key_P, self.skip),
        ):
            shortcut = QShortcut(QKeySequence(key), self)
            shortcut.setContext(Qt.ShortcutContext.WindowShortcut)
            shortcut.setAutoRepeat(False)  # a held key must not mark two items
            shortcut.activated.connect(slot)
        alive = self._alive
        self.destroyed.connect(lambda *_: alive.__setitem__(0, False))

        self._show_item()
        given = audio() if callable(audio) and not isinstance(audio, EnrolmentAudio) else audio
        if given is not None:
            self._audio_loaded(given)
        else:
            self._set_step(Step.LOADING, LOADING)
            self._runner.submit(
                load_enrolment_audio,
                on_done=self._guard(self._audio_loaded),
                on_error=self._guard(self._audio_failed),
                group=LOAD_GROUP,
            )

    # -- state --------------------------------------------------------------------

    @property
    def step(self) -> Step:
        """Where the session is."""
        return self._step

    @property
    def index(self) -> int:
        """The item shown (0-based)."""
        return self._index

    @property
    def items(self) -> list[str]:
        """The texts of the session."""
        return list(self._items)

    @property
    def stored(self) -> int:
        """Recordings stored in this session."""
        return self.right + self.wrong

    def _guard(self, callback: Callable[..., None]) -> Callable[..., None]:
        alive = self._alive

        def call(*args: object) -> None:
            if alive[0]:
                callback(*args)

        return call

    def _set_step(self, step: Step, message: str, role: str = "muted") -> None:
        self._step = step
        set_role(self.status, role)
        self.status.setText(message)
        recording = step is Step.RECORDING
        has_item = self._index < len(self._items)
        can_act = step in (Step.READY, Step.JUDGING) and has_item
        self.listen_button.setEnabled(can_act)
        self.record_button.setEnabled((can_act or recording) and self._audio is not None)
        self.record_button.setText(
            f"{theme.ICON_STOP}  Arrêter  (Espace)"
            if recording
            else f"{theme.ICON_RECORD}  Enregistrer  (Espace)"
        )
        self.right_button.setEnabled(step is Step.JUDGING)
        self.wrong_button.setEnabled(step is Step.JUDGING)
        self.skip_button.setEnabled(can_act)
        if recording:
            self._poll.start()
        else:
            self._poll.stop()
            self.level.set_level(0.0)

    def _show_item(self) -> None:
        total = len(self._items)
        if self._index < total:
            self.counter.setText(f"{self._index + 1} / {total}")
            self.text.setText(self._items[self._index])
        else:
            self.counter.setText(f"{total} / {total}")
            self.text.setText(FINISHED)
        self.tally.setText(
            f"{self.stored} enregistré(s) : {self.right} juste(s), {self.wrong} faux"
        )

    def _audio_loaded(self, audio: EnrolmentAudio) -> None:
        self._audio = audio
        self._set_step(Step.READY, READY)
        self.listen_button.setFocus()
        self.ready.emit()

    def _audio_failed(self, exc: BaseException) -> None:
        _LOGGER.warning("enrolment: speech path unavailable: %r", exc)
        self._set_step(Step.UNAVAILABLE, therapist_text(exc), "error")
        self.failed.emit(therapist_text(exc))

    # -- listen -------------------------------------------------------------------

    def listen(self) -> None:
        """« Écouter »: the voice says the item (a recording waiting for a mark is kept)."""
        audio = self._audio
        if audio is None or self._step not in (Step.READY, Step.JUDGING):
            return
        if self._index >= len(self._items):
            return
        back = self._step
        self._set_step(Step.SPEAKING, "Écoutez…")
        self._runner.submit(
            say,
            audio,
            self._items[self._index],
            on_done=self._guard(lambda _s: self._spoken(back)),
            on_error=self._guard(lambda exc: self._not_spoken(exc, back)),
            group=SPEAK_GROUP,
        )

    def _spoken(self, back: Step) -> None:
        if self._step is Step.SPEAKING:
            self._set_step(back, JUDGE if back is Step.JUDGING else READY)

    def _not_spoken(self, exc: BaseException, back: Step) -> None:
        if self._step is not Step.SPEAKING:
            return
        if isinstance(exc, AudioDeviceError | SpeechSynthesisError):
            self._set_step(back, f"{NO_SOUND} {therapist_text(exc)}", "error")
            return
        _LOGGER.error("enrolment: speaking failed", exc_info=exc)
        self._set_step(back, therapist_text(exc), "error")

    # -- record -------------------------------------------------------------------

    def toggle_recording(self) -> None:
        """« Enregistrer » (or « Arrêter » while recording)."""
        if self._step is Step.RECORDING:
            self.stop_recording()
        else:
            self.start_recording()

    def start_recording(self) -> None:
        """Open the microphone; the recording ends at the patient's own silence."""
        audio = self._audio
        if audio is None or self._step not in (Step.READY, Step.JUDGING):
            return
        if self._index >= len(self._items):
            return
        audio.player.stop()
        self._runner.cancel_stale(SPEAK_GROUP)
        limits = RecorderSettings(MAX_SECONDS, NO_SPEECH_TIMEOUT_S)
        try:
            recorder = audio.recorder_factory()
            recorder.start(
                audio.vad.end_of_speech_detector(self._patient.pause_tolerance_ms), limits
            )
        except AudioDeviceError as exc:
            _LOGGER.warning("enrolment: no microphone: %s", exc.detail or exc)
            # A recording waiting for its mark stays: it can still be marked.
            back = Step.JUDGING if self._clip is not None else Step.READY
            self._set_step(back, therapist_text(exc), "error")
            self.failed.emit(therapist_text(exc))
            return
        self._recorder = recorder
        self._clip = None
        self._set_step(Step.RECORDING, RECORDING)
        self._runner.submit(
            chain.capture,
            recorder,
            on_done=self._guard(self._captured),
            on_error=self._guard(self._capture_failed),
            group=CAPTURE_GROUP,
        )

    def stop_recording(self) -> None:
        """End the recording now (the capture job then delivers the clip)."""
        recorder = self._recorder
        if recorder is None or self._step is not Step.RECORDING:
            return
        try:
            recorder.stop()
        except AudioDeviceError:
            pass  # the capture job reports it

    def _poll_level(self) -> None:
        recorder = self._recorder
        self.level.set_level(recorder.level if recorder is not None else 0.0)

    def _captured(self, capture: chain.Capture) -> None:
        self._recorder = None
        if self._step is not Step.RECORDING:
            return
        if capture.reason is StopReason.NO_SPEECH or capture.clip.duration == 0:
            self._set_step(Step.READY, NOTHING_HEARD)
            self.recording_done.emit(False)
            return
        self._clip = capture.clip
        self._set_step(Step.JUDGING, JUDGE)
        self.right_button.setFocus()
        self.recording_done.emit(True)

    def _capture_failed(self, exc: BaseException) -> None:
        self._recorder = None
        _LOGGER.warning("enrolment: recording failed: %r", exc)
        self._set_step(Step.READY, therapist_text(exc), "error")
        self.recording_done.emit(False)
        self.failed.emit(therapist_text(exc))

    # -- mark ---------------------------------------------------------------------

    def mark(self, accepted: bool) -> None:
        """« Juste » or « Faux »: store the recording with the mark, then the next item."""
        clip = self._clip
        if clip is None or self._step is not Step.JUDGING:
            return
        index = self._index
        self._set_step(Step.SAVING, "Enregistrement…")
        # No group: a stored mark is never dropped, even when the dialog closes.
        self._runner.submit(
            add_enrolment,
            self._repository,
            self._patient.id,
            clip,
            self._items[index],
            accepted,
            on_done=self._guard(lambda _sample: self._stored(index, accepted)),
            on_error=self._guard(self._store_failed),
            pool="db",
        )

    def _stored(self, index: int, accepted: bool) -> None:
        if accepted:
            self.right += 1
        else:
            self.wrong += 1
        self._clip = None
        self.item_stored.emit(index, accepted)
        self._next()

    def _store_failed(self, exc: BaseException) -> None:
        _LOGGER.warning("enrolment: storing failed: %r", exc)
        if isinstance(exc, AudioInputError):
            # The recording itself cannot teach (too short, silent): record the item again.
            self._clip = None
            self._set_step(Step.READY, therapist_text(exc), "error")
        else:
            if not isinstance(exc, TherapyAppError):
                _LOGGER.error("enrolment: storing failed", exc_info=exc)
            # Kept in the dialog (full disk…): the therapist may mark it again once fixed.
            self._set_step(Step.JUDGING, therapist_text(exc), "error")
        self.failed.emit(therapist_text(exc))

    def skip(self) -> None:
        """Go to the next item without storing anything for this one."""
        if self._step not in (Step.READY, Step.JUDGING):
            return
        self._clip = None
        self._next()

    def _next(self) -> None:
        self._index += 1
        self._show_item()
        if self._index >= len(self._items):
            self._set_step(Step.FINISHED, self._summary(), "success")
            self.finish_button.setFocus()
            return
        self._set_step(Step.READY, READY)
        self.listen_button.setFocus()

    def _summary(self) -> str:
        return (
            f"{self.stored} enregistrement(s) gardé(s) : {self.right} juste(s), "
            f"{self.wrong} faux. Les justes serviront à la prochaine adaptation."
        )

    # -- closing ------------------------------------------------------------------

    def _stop_everything(self) -> None:
        """Close the microphone and silence the voice (marked items are already stored)."""
        self._poll.stop()
        recorder, self._recorder = self._recorder, None
        if recorder is not None:
            try:
                recorder.stop()
            except AudioDeviceError:
                pass
        if self._audio is not None:
            self._audio.player.stop()
        for group in (SPEAK_GROUP, CAPTURE_GROUP, LOAD_GROUP):
            self._runner.cancel_stale(group)

    def done(self, result: int) -> None:  # noqa: D102 - QDialog override (accept, reject, Échap)
        self._stop_everything()
        super().done(result)

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 - Qt override
        self._stop_everything()
        super().closeEvent(event)
