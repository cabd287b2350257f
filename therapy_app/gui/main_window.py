"""The application shell: header, navigation between screens, model loading, therapist area."""

from __future__ import annotations

import functools
import importlib
import logging
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QRect, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QCloseEvent, QKeySequence, QShortcut, QShowEvent
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QMainWindow,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from therapy_app.audio.recorder import Recorder
from therapy_app.exercises import ExerciseContent
from therapy_app.gui import theme
from therapy_app.gui.loading import ServicesLoader
from therapy_app.gui.patient.chooser import ExerciseChooser
from therapy_app.gui.patient.completion import CompletionScreen
from therapy_app.gui.patient.free_speech import FreeSpeechScreen
from therapy_app.gui.patient.naming import NamingScreen
from therapy_app.gui.patient.practice_screen import PracticeScreen
from therapy_app.gui.patient.profiles import ProfileScreen
from therapy_app.gui.patient.repetition import RepetitionScreen
from therapy_app.gui.patient.script import ScriptScreen
from therapy_app.gui.patient.todays_program import PROGRAM_DONE as PROGRAM_DONE
from therapy_app.gui.patient.todays_program import TodaysProgram
from therapy_app.gui.tasks import TaskRunner
from therapy_app.gui.widgets import Avatar, Banner, ElidedLabel, big_button, label
from therapy_app.naming.bank import NamingBank
from therapy_app.practice.controller import PracticeController, PracticeSettings
from therapy_app.practice.events import ExerciseDone, ExerciseKind, PracticeEvent, french_message
from therapy_app.practice.program import PlannedExercise
from therapy_app.speech.loading import LOAD_STEPS, LoadStep, with_personal_voice
from therapy_app.speech.services import AudioOutput, SpeechServices
from therapy_app.storage import Patient, SessionRepository
from therapy_app.voice.store import personal_model

if TYPE_CHECKING:  # imported on first use (open_therapist_area)
    from therapy_app.gui.therapist.area import TherapistArea

_LOGGER = logging.getLogger(__name__)

FINISH_LIMIT_S = 10.0
"""How long closing the app waits for the try the patient made just before to be stored.

Hearing and scoring one take about a second on two cores, a long recording
a few; past this something is stuck, and a window that will not close is
worse (the patient would kill it, and lose more).
"""

SCREENS: dict[ExerciseKind, type[PracticeScreen]] = {
    ExerciseKind.FREE_SPEECH: FreeSpeechScreen,
    ExerciseKind.REPETITION: RepetitionScreen,
    ExerciseKind.COMPLETION: CompletionScreen,
    ExerciseKind.NAMING: NamingScreen,
    ExerciseKind.SCRIPT: ScriptScreen,
}
PRACTICE_SCREENS = tuple(kind.value for kind in SCREENS)
APP_TITLE = "Entraînement à la parole"
APP_NAME = "Orthophonie"
"""The application's (display) name."""
WINDOW_TITLE = f"{APP_TITLE} — {APP_NAME}"
PREFERRED_SIZE = QSize(1280, 860)
# How often queued attempts are retried, and how long each try waits for the lock.
QUEUE_RETRY_MS = 60_000
QUEUE_RETRY_WAIT_MS = 200
"""The window's size on a large screen; smaller screens get what they have room for."""
FRAME_ALLOWANCE = QSize(16, 48)
"""Room left for a window manager's frame and title bar before the window is mapped
(its real size is only known afterwards: then the window is moved back inside)."""
THERAPIST_SOON = (
    "L'espace thérapeute sera bientôt disponible. "
    "Il permettra de suivre les progrès et de corriger les transcriptions."
)


class MainWindow(QMainWindow):
    """Profiles → exercise chooser → exercise screens, with a header bar.

    Args:
        repository: the patient data.
        runner: the task runner (created and owned when None).
        recorder_factory: recorders for the exercises (None: the microphone).
        player: the voice output (None: the speaker).
        load_steps: engines to load (tests pass preloaded ones).
        content: exercise lists (None: the bundled ones).
        settings: practice limits.
        naming_bank: naming pictures (None: the bundled bank).

    Signals:
        screen_changed(str): the name of the screen now shown ("profiles",
            "chooser", "free_speech", "repetition", "completion", "naming", "script",
            "therapist").
        services_ready(): the speech engines are loaded.
        program_ready(): the chosen patient's program was read (offered if set).
    """

    screen_changed = Signal(str)
    services_ready = Signal()
    program_ready = Signal()

    def __init__(
        self,
        repository: SessionRepository,
        runner: TaskRunner | None = None,
        recorder_factory: Callable[[], Recorder] | None = None,
        player: AudioOutput | None = None,
        load_steps: Sequence[LoadStep] = LOAD_STEPS,
        content: ExerciseContent | None = None,
        settings: PracticeSettings | None = None,
        naming_bank: NamingBank | None = None,
    ) -> None:
        super().__init__()
        # Qt appends the application's display name to a title that does not
        # end with it: ending with it shows the name once.
        self.setWindowTitle(WINDOW_TITLE)
        self._placed = False
        self.resize(PREFERRED_SIZE)
        self.repository = repository
        self.runner = runner if runner is not None else TaskRunner(self)
        self.runner.error_handler = self._show_error
        self.content = content
        self.naming_bank = naming_bank
        self.settings = settings
        self.patient: Patient | None = None
        self.practice: PracticeScreen | None = None
        self.therapist: TherapistArea | None = None
        self.todays = TodaysProgram(repository, self.runner, settings, self)
        self._auto_skip = True
        # The chosen patient's engines with their personal voice model.
        self._voice: tuple[int, SpeechServices] | None = None
        self._voice_pending = False

        self.loader = ServicesLoader(self.runner, load_steps, recorder_factory, player, self)
        self.profiles = ProfileScreen(repository, self.runner)
        self.chooser = ExerciseChooser()
        self.stack = QStackedWidget()
        self.stack.addWidget(self.profiles)
        self.stack.addWidget(self.chooser)
        self.banner = Banner()

        self.back_button = big_button(
            theme.ICON_BACK, "Retour", tooltip="Touche Échap", key="Échap"
        )
        # Never focused (Escape does it, shown on it): a key meant for the
        # exercise must not leave it while the exercise's own buttons are
        # disabled (Space on "Retour" while the engines worked).
        self.back_button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.title = label("", "title", wrap=False)
        self.patient_box = QHBoxLayout()
        # A long name is cut with "…" (whole in the tooltip), never widening the window.
        self.patient_name = ElidedLabel("", max_width=340)
        self.change_patient = big_button("", "Changer")
        self.therapist_button = big_button(theme.ICON_THERAPIST, "Espace thérapeute")
        self.avatar: Avatar | None = None
        header = QFrame()
        header.setObjectName("header")
        bar = QHBoxLayout(header)
        bar.setContentsMargins(16, 8, 16, 8)
        bar.addWidget(self.back_button)
        bar.addSpacing(12)
        bar.addWidget(self.title)
        bar.addStretch(1)
        bar.addLayout(self.patient_box)
        self.patient_box.addWidget(self.patient_name)
        bar.addWidget(self.change_patient)
        bar.addSpacing(12)
        bar.addWidget(self.therapist_button)

        central = QWidget()
        layout = QVBoxLayout(central)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(header)
        layout.addWidget(self.banner)
        layout.addWidget(self.stack, 1)
        self.setCentralWidget(central)

        self._escape = QShortcut(QKeySequence(Qt.Key.Key_Escape), self)
        self._escape.setContext(Qt.ShortcutContext.WindowShortcut)
        self._escape.activated.connect(self.go_back)
        self.back_button.clicked.connect(self.go_back)
        self.change_patient.clicked.connect(self.show_profiles)
        self.therapist_button.clicked.connect(self.open_therapist_area)
        self.profiles.patients_loaded.connect(self._patients_loaded)
        self.profiles.patient_chosen.connect(self.select_patient)
        self.chooser.chosen.connect(lambda kind: self.start_exercise(ExerciseKind(kind)))
        self.chooser.program_chosen.connect(self.start_program)
        self.todays.loaded.connect(self._program_loaded)
        self.todays.patient_gone.connect(self._patient_gone)
        self.chooser.retry_requested.connect(self.loader.start)
        self.loader.progress.connect(self.chooser.show_progress)
        self.loader.ready.connect(self._services_loaded)
        self.loader.failed.connect(self.chooser.show_error)

        self._show(self.profiles, "profiles", APP_TITLE)
        self.profiles.reload()
        self.loader.start()
        # Storage notices (read-only data folder) concern the patient too: they
        # are told before practising that nothing new will be kept.
        if repository.notices:
            self.banner.show_notice(" ".join(repository.notices))
        # Attempts queued while another program held the database are written
        # as soon as it is free, not only at the next save or start-up.
        self._retry = QTimer(self)
        self._retry.setInterval(QUEUE_RETRY_MS)
        self._retry.timeout.connect(self.retry_pending)
        self._retry.start()

    def retry_pending(self) -> None:
        """Write queued attempts in the background when there are any (timer, every minute)."""
        if self.repository.read_only or not self.repository.queue.queued_attempt_count():
            return
        self.runner.submit(
            self.repository.queue.replay_pending,
            wait_ms=QUEUE_RETRY_WAIT_MS,
            on_done=lambda report: _LOGGER.info("queue replayed: %s", report),
            on_error=lambda exc: _LOGGER.warning("queue not replayed: %r", exc),
            pool="db",
            group="queue-retry",
        )

    # ----- size -------------------------------------------------------------------
    def fit_to_screen(self) -> None:
        """Size the window to the screen's free area: 1280×860 at most, all of it visible.

        On a 1366×768 or 1280×800 laptop the preferred size would put the
        bottom row (Réécouter / Ma voix / Suivant) under the screen's edge.
        """
        screen = self.screen()
        if screen is None:
            return
        free = screen.availableGeometry()
        width = min(PREFERRED_SIZE.width(), free.width() - FRAME_ALLOWANCE.width())
        height = min(PREFERRED_SIZE.height(), free.height() - FRAME_ALLOWANCE.height())
        self.resize(max(width, self.minimumSizeHint().width()), height)
        frame = self.frameGeometry()
        frame.moveCenter(free.center())
        self.move(frame.topLeft())

    def keep_inside_screen(self) -> None:
        """Once the frame is known: shrink and move the window so that all of it shows."""
        screen = self.screen()
        if screen is None:
            return
        free = screen.availableGeometry()
        frame = self.frameGeometry()
        extra = QSize(frame.width() - self.width(), frame.height() - self.height())
        if free.contains(frame):
            return
        width = min(self.width(), free.width() - extra.width())
        height = min(self.height(), free.height() - extra.height())
        self.resize(width, height)
        inside = QRect(frame.topLeft(), QSize(width, height) + extra)
        inside.moveLeft(min(max(inside.left(), free.left()), free.right() - inside.width() + 1))
        inside.moveTop(min(max(inside.top(), free.top()), free.bottom() - inside.height() + 1))
        self.move(inside.topLeft())

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 - Qt API
        if not self._placed:
            self._placed = True
            self.fit_to_screen()
            # The window manager adds its frame after mapping the window (a
            # slow one later still: look again after a second).
            QTimer.singleShot(200, self.keep_inside_screen)
            QTimer.singleShot(1000, self.keep_inside_screen)
        super().showEvent(event)

    # ----- state ----------------------------------------------------------------
    @property
    def services(self) -> SpeechServices | None:
        """The loaded engines (None while loading or after a failure)."""
        return self.loader.services

    @property
    def current_screen(self) -> str:
        """Name of the screen shown (see :attr:`screen_changed`)."""
        widget = self.stack.currentWidget()
        return "" if widget is None else str(widget.property("screen_name") or "")

    def _show(self, widget: QWidget, name: str, title: str) -> None:
        widget.setProperty("screen_name", name)
        self.stack.setCurrentWidget(widget)
        self.title.setText(title)
        self.back_button.setVisible(name not in ("profiles",))
        on_patient_screens = name == "chooser" or name in PRACTICE_SCREENS
        self.change_patient.setVisible(name == "chooser" and len(self.profiles.patients) > 1)
        self.patient_name.setVisible(on_patient_screens and self.patient is not None)
        if self.avatar is not None:
            self.avatar.setVisible(on_patient_screens)
        self.therapist_button.setVisible(name != "therapist")
        self.banner.clear_message()
        QTimer.singleShot(0, self.focus_screen)
        self.screen_changed.emit(name)

    def focus_screen(self) -> None:
        """Give the keyboard focus to the current screen's main control.

        Qt would otherwise focus the first header button when the window is
        shown or activated, and Enter would open the therapist area.
        """
        widget = self.stack.currentWidget()
        focus = getattr(widget, "focus_default", None)
        if callable(focus):
            focus()

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt API
        super().changeEvent(event)
        if event.type() == QEvent.Type.ActivationChange and self.isActiveWindow():
            focused = self.focusWidget()
            if focused is None or not self.stack.isAncestorOf(focused):
                QTimer.singleShot(0, self.focus_screen)

    def _show_error(self, exc: BaseException) -> None:
        _LOGGER.warning("error shown to the user: %r", exc)
        self.banner.show_error(french_message(exc))

    # ----- profiles -------------------------------------------------------------
    def _patients_loaded(self, count: int) -> None:
        # A single patient at home: straight to the exercises, once, at start-up.
        if self._auto_skip and count == 1:
            self.select_patient(self.profiles.patients[0])
        self._auto_skip = False

    def show_profiles(self) -> None:
        """Back to "Qui êtes-vous ?"."""
        self._leave_practice()
        self._show(self.profiles, "profiles", APP_TITLE)
        self.profiles.reload()

    def select_patient(self, patient: Patient) -> None:
        """Practise as ``patient``."""
        self.patient = patient
        if self.avatar is not None:
            self.patient_box.removeWidget(self.avatar)
            self.avatar.deleteLater()
        self.avatar = Avatar(patient.initials, patient.avatar_colour, 48)
        self.patient_box.insertWidget(0, self.avatar)
        self.patient_name.set_full_text(patient.display_name)
        self.chooser.greet(patient.display_name)
        self._load_patient_voice()
        self.show_chooser()
        self.load_program()

    # ----- today's program ----------------------------------------------------------
    @property
    def program_plan(self) -> list[PlannedExercise]:
        """Today's program of the chosen patient (empty when none is set or read yet)."""
        return self.todays.plan

    def load_program(self) -> None:
        """Read the patient's program and lists (database worker), then offer the program."""
        self.chooser.set_program(None)
        if self.patient is not None:
            self.todays.load(self.patient)

    def _program_loaded(self, patient: Patient, summary: str | None) -> None:
        if self.patient is None or patient.id != self.patient.id:
            return
        self.patient = patient
        self.chooser.set_program(summary)
        self.program_ready.emit()

    def _patient_gone(self) -> None:
        # Deleted or archived by the therapist meanwhile: off the start screen.
        self.patient = None
        self.show_profiles()

    def start_program(self) -> PracticeScreen | None:
        """ "Programme du jour": the therapist's exercises one after the other."""
        planned = self.todays.start()
        if planned is None:
            return None
        return self._open_exercise(
            planned.kind, planned.settings, self.todays.announcement(planned)
        )

    def _on_practice_event(self, event: PracticeEvent) -> None:
        if not isinstance(event, ExerciseDone):
            return
        # Leave the finished screen from the event loop, not from inside its own callback.
        QTimer.singleShot(0, self._next_program_exercise)

    def _next_program_exercise(self) -> None:
        planned = self.todays.next()
        if planned is not None:
            # Shown and said before its first item (the switch was silent).
            self._open_exercise(planned.kind, planned.settings, self.todays.announcement(planned))
            return
        self.show_chooser()
        self.banner.show_notice(PROGRAM_DONE)

    def show_chooser(self) -> None:
        """The three exercises."""
        self._leave_practice()
        self._show(self.chooser, "chooser", "Choisir un exercice")
        self.chooser.set_ready(self._practice_services() is not None)
        if self.loader.error:
            self.chooser.show_error(self.loader.error)
        self.chooser.focus_first()

    def _services_loaded(self, services: SpeechServices) -> None:
        self._load_patient_voice()
        self.chooser.set_ready(self._practice_services() is not None)
        if services.corrector is None:
            _LOGGER.info("free speech without correction")
        if services.notices:
            # The same French notice as `therapy-app loop` prints (a missing or damaged corrector).
            self.banner.show_notice(" ".join(services.notices))
        self.services_ready.emit()

    # ----- the patient's personal voice -----------------------------------
    def _practice_services(self) -> SpeechServices | None:
        """The engines a session of the chosen patient uses (None until they are ready)."""
        services = self.services
        if services is None or self._voice_pending:
            return None
        if self._voice is not None and self.patient is not None:
            patient_id, personal = self._voice
            if patient_id == self.patient.id:
                return personal
        return services

    def _load_patient_voice(self) -> None:
        """Load the chosen patient's adopted personal voice model, off the UI thread."""
        self._voice, self._voice_pending = None, False
        services, patient = self.services, self.patient
        if services is None or patient is None:
            return
        personal = personal_model(self.repository.data_dir, patient.id)
        if personal is None:
            return
        self._voice_pending = True
        self.chooser.set_ready(False)
        self.runner.submit(
            with_personal_voice,
            services,
            personal,
            on_done=functools.partial(self._patient_voice_ready, patient.id),
            on_error=functools.partial(self._patient_voice_failed, patient.id),
            group="patient-voice",
        )

    def _patient_voice_ready(self, patient_id: int, services: SpeechServices) -> None:
        if self.patient is None or self.patient.id != patient_id:
            return
        self._voice, self._voice_pending = (patient_id, services), False
        self.chooser.set_ready(True)

    def _patient_voice_failed(self, patient_id: int, exc: BaseException) -> None:
        # A damaged or mismatched adapter: the patient practises with the generic model.
        _LOGGER.warning("personal voice of patient %d not loaded: %s", patient_id, exc)
        if self.patient is None or self.patient.id != patient_id:
            return
        self._voice_pending = False
        self.chooser.set_ready(True)

    # ----- exercises --------------------------------------------------------------
    def start_exercise(self, kind: ExerciseKind) -> PracticeScreen | None:
        """Open the exercise screen for ``kind`` (engines and patient needed)."""
        if self.patient is None:
            return None
        self.todays.stop()
        # The patient's own pause tolerance ends their recordings;
        # the program's voice rate applies to every exercise, and the patient's
        # own words and sentences come first there too.
        return self._open_exercise(kind, self.todays.settings_for(self.patient, kind))

    def _open_exercise(
        self, kind: ExerciseKind, settings: PracticeSettings, announcement: str = ""
    ) -> PracticeScreen | None:
        services = self._practice_services()
        if services is None or self.patient is None:
            return None
        self._leave_practice()
        controller = PracticeController(
            kind,
            services,
            self.repository,
            self.patient.id,
            self.runner,
            self.content,
            settings,
            self.naming_bank,
        )
        screen = SCREENS[kind](controller)
        screen.event_received.connect(self._on_practice_event)
        self.practice = screen
        self.stack.addWidget(screen)
        self._show(screen, kind.value, screen.title)
        screen.start(announcement)
        return screen

    def _leave_practice(self) -> None:
        screen, self.practice = self.practice, None
        if screen is None:
            return
        screen.leave()
        self.stack.removeWidget(screen)
        screen.deleteLater()

    def go_back(self) -> None:
        """Escape / "Retour": exercise → chooser → profiles."""
        name = self.current_screen
        if name in PRACTICE_SCREENS:
            self.todays.stop()  # leaving an exercise leaves today's program
            self.show_chooser()
        elif name == "chooser":
            self.show_profiles()
        elif name == "therapist" and self.therapist is not None:
            self.therapist.go_back()  # an attempt -> the history; else lock and leave

    # ----- therapist area -----------------------------------------------------------
    def open_therapist_area(self) -> None:
        """The therapist's area (its own login), or a "bientôt disponible" message."""
        self._leave_practice()
        try:
            module = importlib.import_module("therapy_app.gui.therapist")
            area_class = module.TherapistArea
        except (ImportError, AttributeError) as exc:
            _LOGGER.info("therapist area not available: %r", exc)
            self.banner.show_notice(THERAPIST_SOON)
            return
        if self.therapist is None:
            self.therapist = area_class(self.repository, self.runner)
            self.therapist.closed.connect(self.close_therapist_area)
            self.stack.addWidget(self.therapist)
        self._show(self.therapist, "therapist", "Espace thérapeute")

    def close_therapist_area(self) -> None:
        """Back to the patient screens when the therapist leaves."""
        area, self.therapist = self.therapist, None
        if area is not None:
            self.stack.removeWidget(area)
            area.deleteLater()
        if self.patient is not None:
            self.show_chooser()
            self.load_program()  # the therapist may have changed it
        else:
            self.show_profiles()

    # ----- shutdown -------------------------------------------------------------------
    def shutdown(self) -> None:
        """End the exercise, store what the patient said in it, and stop the workers.

        A try still being recorded, heard or scored is stored once its job
        delivers (``PracticeController.finishing``): the workers wait for it,
        up to :data:`FINISH_LIMIT_S`.
        """
        screen = self.practice
        self._leave_practice()
        if screen is not None:
            controller = screen.controller
            if not self.runner.deliver_while(lambda: controller.finishing, FINISH_LIMIT_S):
                # Its recording is written with its attempt, once judged: until
                # then it is only in memory, and it goes with the process.
                _LOGGER.error(
                    "closing: what the patient said last was still being heard after %g s:"
                    " it is not stored",
                    FINISH_LIMIT_S,
                )
        self.runner.shutdown(wait=True)

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 - Qt API
        self.shutdown()
        super().closeEvent(event)
