"""The therapist area: behind a password, the patient list, history, attempts, progress, exports."""

from __future__ import annotations

import logging

from PySide6.QtCore import QEvent, QObject, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QHideEvent, QShowEvent
from PySide6.QtWidgets import (
    QApplication,
    QFrame,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QScrollArea,
    QSplitter,
    QStackedWidget,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from therapy_app.gui.tasks import TaskRunner
from therapy_app.gui.therapist.attempt_detail import AttemptDetail
from therapy_app.gui.therapist.backup_panel import BackupPanel
from therapy_app.gui.therapist.charts import SCRIPTS_GROUP, ProgressPanel
from therapy_app.gui.therapist.context import TherapistContext
from therapy_app.gui.therapist.custom_list_editing import CheckedCustomListPanel
from therapy_app.gui.therapist.exports_panel import ExportPanel
from therapy_app.gui.therapist.failures import error_text
from therapy_app.gui.therapist.history import HistoryPanel
from therapy_app.gui.therapist.login import LoginPage
from therapy_app.gui.therapist.orphan_recordings import LOAD_GROUP as ORPHANS_GROUP
from therapy_app.gui.therapist.orphan_recordings import PLAY_GROUP as ORPHAN_PLAY_GROUP
from therapy_app.gui.therapist.patient_items import ARCHIVED_SUFFIX as ARCHIVED_SUFFIX
from therapy_app.gui.therapist.patient_items import avatar_icon as avatar_icon
from therapy_app.gui.therapist.patient_items import show_patient_item
from therapy_app.gui.therapist.patient_panel import PatientPanel
from therapy_app.gui.therapist.program_panel import ProgramPanel
from therapy_app.gui.therapist.recovery import NewCodeButton, RecoveryCodeBox, ResetPasswordPage
from therapy_app.gui.therapist.script_editor import GROUP as SCRIPT_EDITOR_GROUP
from therapy_app.gui.therapist.script_editor import VOICE_GROUP as SCRIPT_VOICE_GROUP
from therapy_app.gui.therapist.script_editor import ScriptEditor
from therapy_app.gui.therapist.style import apply_style, flush_column, section_label, set_role
from therapy_app.gui.therapist.voice_panel import STATUS_GROUP as VOICE_GROUP
from therapy_app.gui.therapist.voice_panel import VoicePanel
from therapy_app.gui.therapist.voice_recording import AudioProvider, EnrolmentAudio
from therapy_app.gui.widgets import guard_wheel
from therapy_app.speech.services import AudioOutput, SpeechServices
from therapy_app.storage import Patient, SessionRepository

_LOGGER = logging.getLogger(__name__)

IDLE_LOCK_MS = 10 * 60 * 1000
"""Without a click or a key for this long the area locks itself: a patient sitting
down at a computer the therapist left open must not see everyone's results."""
JOB_GROUPS = (
    "therapist-login",
    "therapist-patients",
    "therapist-history",
    "therapist-attempts",
    "therapist-attempt",
    "therapist-playback",
    "therapist-progress",
    "therapist-export",
    "therapist-program",
    "therapist-lists",
    "therapist-phrase-book",
    "therapist-patient",
    "therapist-recovery",
    VOICE_GROUP,
    SCRIPTS_GROUP,
    SCRIPT_EDITOR_GROUP,
    SCRIPT_VOICE_GROUP,
    ORPHANS_GROUP,
    ORPHAN_PLAY_GROUP,
)
"""Every runner group the area's screens submit to (cancelled when the area goes away)."""
_ACTIVITY_EVENTS = frozenset(
    {QEvent.Type.MouseButtonPress, QEvent.Type.KeyPress, QEvent.Type.Wheel}
)
TAB_HISTORY, TAB_PROGRESS, TAB_EXPORTS, TAB_BACKUP, TAB_PROGRAM, TAB_LIST, TAB_PATIENT = range(7)
TAB_VOICE = 7
TAB_SCRIPTS = 8
LIST_MAX_WIDTH = 900
"""The patient's list in its own tab: wide enough for long sentences, not a whole page."""


def _scrolled(page: QWidget) -> QScrollArea:
    """``page`` in a frameless scroll area (a laptop screen may be shorter than the page)."""
    scroll = QScrollArea()
    scroll.setWidgetResizable(True)
    scroll.setFrameShape(QFrame.Shape.NoFrame)
    scroll.setWidget(page)
    return scroll


def _window_audio(widget: QWidget) -> EnrolmentAudio | None:
    """The exercises' loaded voice, detector and devices, when the window has them.

    The main window exposes its loaded :class:`SpeechServices` as ``services``;
    sharing them spares « Enregistrer la voix » a second load of the models.
    """
    services = getattr(widget.window(), "services", None)
    return EnrolmentAudio.from_services(services) if isinstance(services, SpeechServices) else None


def _cancel_groups(runner: TaskRunner) -> None:
    for group in JOB_GROUPS:
        runner.cancel_stale(group)


def _on_destroyed(runner: TaskRunner | None, players: tuple[AudioOutput, ...]) -> None:
    if runner is not None:
        _cancel_groups(runner)
    for player in players:
        try:
            player.stop()
        except Exception as exc:  # noqa: BLE001 - nothing may escape a destroyed() handler
            _LOGGER.warning("stopping playback of a deleted therapist area failed: %s", exc)


class _ActivityWatcher(QObject):
    """Restarts the idle timer on any click, key or wheel anywhere in the application."""

    def __init__(self, timer: QTimer, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._timer = timer

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        if event.type() in _ACTIVITY_EVENTS and self._timer.isActive():
            self._timer.start()
        return False


class TherapistArea(QWidget):
    """Everything the therapist sees, shown only after the password.

    Until :attr:`LoginPage.authenticated` nothing about any patient is read;
    locking (button, idle timeout, :meth:`lock`) clears every table, chart
    and detail so that nothing stays behind in memory or on screen.

    Args:
        repository: the data.
        runner: the application's task runner; one is created (and owned)
            when None, for standalone use.
        audio: the speech path of « Enregistrer la voix »; None uses the main
            window's loaded engines, or loads them when it has none.
        parent: Qt parent.

    Signals:
        closed(): the therapist left the area (the shell shows the patient screens).
        unlocked(str): the therapist logged in (username).
        patients_loaded(int): the patient list is filled (count).
    """

    closed = Signal()
    unlocked = Signal(str)
    patients_loaded = Signal(int)

    def __init__(
        self,
        repository: SessionRepository,
        runner: TaskRunner | None = None,
        parent: QWidget | None = None,
        audio: AudioProvider | None = None,
    ) -> None:
        super().__init__(parent)
        self._repository = repository
        self._runner = runner if runner is not None else TaskRunner(parent=self)
        self._username: str | None = None
        self._patients: dict[int, Patient] = {}
        self._login_stale = False
        apply_style(self)

        # « Enregistrer la voix » and the scripts' « Écouter » use the window's voice.
        context = TherapistContext(
            repository,
            self._runner,
            self._editor_name,
            audio if audio is not None else lambda: _window_audio(self),
        )
        self.login = LoginPage(context)
        self.history = HistoryPanel(context)
        self.detail = AttemptDetail(context)
        self.progress = ProgressPanel(context)
        self.exports = ExportPanel(context)
        self.backup = BackupPanel(context)
        self.program = ProgramPanel(context)
        self.patient_settings = self.program.patient_settings
        self.patient_settings.saved.connect(self._on_patient_saved)
        self.custom_lists = CheckedCustomListPanel(context)
        self.patient_panel = PatientPanel(context)
        self.voice = VoicePanel(context)
        self.scripts = ScriptEditor(context)  # the patient's dialogue scripts
        self.reset_page = ResetPasswordPage(context)
        self.code_box = RecoveryCodeBox()
        self._new_code: str | None = None
        self.new_code_button = NewCodeButton(context, self.code_box)

        self.patient_list = QListWidget()
        self.patient_list.setIconSize(QSize(36, 36))
        self.patient_list.setSpacing(2)
        self.patient_list.setMinimumWidth(200)
        self.patient_list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.patient_list.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.patient_list.setAccessibleName("Patients")
        self.user_label = QLabel()
        self.user_label.setTextFormat(Qt.TextFormat.PlainText)
        set_role(self.user_label, "muted")
        self.lock_button = QPushButton("Verrouiller et quitter")
        self.message = QLabel()
        set_role(self.message, "error")
        self.message.setWordWrap(True)
        self.message.hide()

        self.history_stack = QStackedWidget()
        self.history_stack.addWidget(self.history)
        self.history_stack.addWidget(self.detail)
        self.tabs = QTabWidget()
        self.tabs.addTab(self.history_stack, "Historique")
        # Scrolled rather than growing the window past a 768-pixel screen.
        self.tabs.addTab(_scrolled(self.progress), "Progrès")
        self.tabs.addTab(self.exports, "Exports")
        self.tabs.addTab(self.backup, "Sauvegarde")
        # The program and the patient's list each get a tab: side by side the
        # drop-downs and the list were cut on a 1366-pixel screen.
        self.program_scroll = _scrolled(self.program)
        self.tabs.addTab(self.program_scroll, "Programme")
        self.custom_lists.setMaximumWidth(LIST_MAX_WIDTH)
        list_page = QWidget()
        list_layout = QHBoxLayout(list_page)
        list_layout.setContentsMargins(0, 0, 0, 0)
        list_layout.addWidget(self.custom_lists, 1)
        list_layout.addWidget(self.custom_lists.phrase_book, 1)  # beside the list
        self.list_scroll = _scrolled(list_page)
        self.tabs.addTab(self.list_scroll, "Ses mots")
        patient_scroll = QScrollArea()
        patient_scroll.setWidgetResizable(True)
        patient_scroll.setFrameShape(QFrame.Shape.NoFrame)
        patient_scroll.setWidget(self.patient_panel)
        self.tabs.addTab(patient_scroll, "Patient")
        # The personal voice: figures for the therapist only.
        self.voice_scroll = _scrolled(self.voice)
        self.tabs.addTab(self.voice_scroll, "Voix")
        self.scripts_scroll = _scrolled(self.scripts)
        self.tabs.addTab(self.scripts_scroll, "Scripts")
        self.tabs.setEnabled(False)

        title = QLabel("Espace orthophoniste")
        set_role(title, "title")
        header = QHBoxLayout()
        header.addWidget(title)
        header.addStretch(1)
        header.addWidget(self.user_label)
        header.addSpacing(12)
        header.addWidget(self.new_code_button)
        header.addWidget(self.lock_button)
        patients_box, patients_layout = flush_column()
        patients_layout.addWidget(section_label("Patients"))
        patients_layout.addWidget(self.patient_list, 1)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(patients_box)
        splitter.addWidget(self.tabs)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([230, 1000])
        main = QWidget()
        main_layout = QVBoxLayout(main)
        main_layout.setContentsMargins(0, 0, 0, 0)  # every pixel of height for the tabs
        main_layout.addLayout(header)
        main_layout.addWidget(self.message)
        main_layout.addWidget(self.code_box)
        main_layout.addWidget(splitter, 1)

        self.stack = QStackedWidget()
        self.stack.addWidget(self.login)
        self.stack.addWidget(main)
        self.stack.addWidget(self.reset_page)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 8, 12, 8)
        layout.addWidget(self.stack)
        # Scrolling a tab with the wheel must not change the fields it passes over.
        guard_wheel(self)

        self._idle = QTimer(self)
        self._idle.setSingleShot(True)
        self._idle.setInterval(IDLE_LOCK_MS)
        self._idle.timeout.connect(self._idle_timeout)
        self._watcher = _ActivityWatcher(self._idle, self)

        self.login.authenticated.connect(self._on_authenticated)
        self.login.cancelled.connect(self.leave)
        self.login.recovery_code_created.connect(self._remember_new_code)
        self.login.forgot_requested.connect(self.show_reset_page)
        self.reset_page.finished.connect(self._back_to_login)
        self.new_code_button.failed.connect(self._show_message)
        self.patient_panel.patient_changed.connect(self._on_patient_saved)
        self.patient_panel.patient_deleted.connect(self._on_patient_deleted)
        self.patient_panel.export_requested.connect(lambda: self.tabs.setCurrentIndex(TAB_EXPORTS))
        self.lock_button.clicked.connect(self.leave)
        self.patient_list.currentItemChanged.connect(self._on_patient_changed)
        self.history.attempt_activated.connect(self.open_attempt)
        self.detail.back_requested.connect(self._show_history)
        self.detail.transcript_saved.connect(self._on_transcript_saved)
        self.detail.verdict_saved.connect(
            lambda attempt_id: self._on_transcript_saved(attempt_id, "")
        )
        for failed in (self.history.failed, self.progress.failed):
            failed.connect(self._show_message)
        # The shell may delete the area with jobs in flight or a recording
        # playing: drop the results (an owned runner dies with the area and
        # delivers nothing anyway) and stop the sound. The lambda holds the
        # Python objects it needs, not the dying widget.
        players = (self.detail.player, self.backup.orphans.player)
        shared = runner
        self.destroyed.connect(lambda *_: _on_destroyed(shared, players))
        self.login.refresh()

    # -- state ------------------------------------------------------------------

    @property
    def is_unlocked(self) -> bool:
        """True between a successful login and the next lock."""
        return self._username is not None

    @property
    def username(self) -> str | None:
        """The logged-in therapist."""
        return self._username

    @property
    def idle_lock_ms(self) -> int:
        """Milliseconds without activity before the area locks itself."""
        return self._idle.interval()

    @idle_lock_ms.setter
    def idle_lock_ms(self, value: int) -> None:
        self._idle.setInterval(value)
        if self._idle.isActive():
            self._idle.start()

    @property
    def runner(self) -> TaskRunner:
        """The task runner the area uses."""
        return self._runner

    @property
    def current_patient(self) -> Patient | None:
        """The selected patient."""
        item = self.patient_list.currentItem()
        return self._patients.get(item.data(Qt.ItemDataRole.UserRole)) if item else None

    def patient_names(self) -> list[str]:
        """Names in the patient list, in order."""
        return [self.patient_list.item(i).text() for i in range(self.patient_list.count())]

    # -- login and lock ---------------------------------------------------------

    def _on_authenticated(self, username: str) -> None:
        self._username = username
        self.user_label.setText(f"Connecté·e : {username}")
        self.stack.setCurrentIndex(1)
        app = QApplication.instance()
        if app is not None:
            app.installEventFilter(self._watcher)
        self._idle.start()
        self.backup.refresh()
        if self._new_code is not None:
            # The new account's recovery code: shown once, then forgotten.
            self.code_box.show_code(self._new_code)
            self._new_code = None
        self.unlocked.emit(username)
        self._runner.submit(
            self._repository.patients.all,
            include_archived=True,
            on_done=self._on_patients,
            on_error=lambda exc: self._show_message(
                error_text(exc, "Lecture des patients impossible.", "patient list")
            ),
            pool="db",
            group="therapist-patients",
        )

    def _on_patients(self, patients: list[Patient]) -> None:
        if not self.is_unlocked:
            return
        self._patients = {p.id: p for p in patients}
        self.patient_list.clear()
        for patient in patients:
            item = QListWidgetItem()
            item.setData(Qt.ItemDataRole.UserRole, patient.id)
            show_patient_item(item, patient)
            self.patient_list.addItem(item)
        if not patients:
            self._show_message("Aucun patient pour l'instant.", "muted")
        self.patients_loaded.emit(len(patients))
        if patients:
            self.patient_list.setCurrentRow(0)
        self.patient_list.setFocus()

    def lock(self, *, refresh: bool = True) -> None:
        """Clear everything shown and go back to the password page.

        Args:
            refresh: ask storage again whether an account exists (skipped when
                the area is about to go away; :meth:`showEvent` asks then).
        """
        self.detail.clear()
        self.history.clear()
        self.progress.clear()
        self.exports.set_patient(None)
        self.backup.clear()
        self.patient_settings.set_patient(None)
        self.program.set_patient(None)
        self.custom_lists.set_patient(None)
        self.patient_panel.set_patient(None)
        self.voice.set_patient(None)
        self.scripts.set_patient(None)
        self.code_box.clear()
        self.reset_page.start()
        self._runner.cancel_stale("therapist-patients")
        self._runner.cancel_stale("therapist-export")
        # Clearing moves the current row from patient to patient: nothing is to
        # be read for them now (and the runner may be shut down: the app closes).
        self.patient_list.blockSignals(True)
        self.patient_list.clear()
        self.patient_list.blockSignals(False)
        self._patients = {}
        self.tabs.setEnabled(False)
        self.tabs.setCurrentIndex(TAB_HISTORY)
        self.history_stack.setCurrentWidget(self.history)
        self.message.hide()
        if self._username is not None:
            _LOGGER.info("therapist %r left the therapist area", self._username)
        self._username = None
        self.user_label.clear()
        self._idle.stop()
        app = QApplication.instance()
        if app is not None:
            app.removeEventFilter(self._watcher)
        self.stack.setCurrentWidget(self.login)
        self._login_stale = not refresh
        if refresh:
            self.login.refresh()

    def leave(self) -> None:
        """Lock and tell the shell to show the patient screens again."""
        self.lock(refresh=False)
        _cancel_groups(self._runner)
        self.closed.emit()

    def go_back(self) -> None:
        """Escape or the header's « Retour (Échap) ».

        From an attempt's detail back to the history, from the password
        reset back to the login; anywhere else the area locks and the patient
        screens come back (what the header's button says).
        """
        if self.stack.currentWidget() is self.reset_page:
            self._back_to_login()
        elif (
            self.is_unlocked
            and self.tabs.currentIndex() == TAB_HISTORY
            and (self.history_stack.currentWidget() is self.detail)
        ):
            self._show_history()
            self.history.attempt_view.setFocus()
        else:
            self.leave()

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 - Qt override
        if self._login_stale and not self.is_unlocked:
            self._login_stale = False
            self.login.refresh()
        super().showEvent(event)

    def hideEvent(self, event: QHideEvent) -> None:  # noqa: N802 - Qt override
        # The shell showed another screen: whoever comes back must log in again.
        # A spontaneous hide (window minimised) keeps the session open.
        if not event.spontaneous():
            self.detail.stop_playback()
            if self.is_unlocked:
                self.lock(refresh=False)
        super().hideEvent(event)

    def _idle_timeout(self) -> None:
        _LOGGER.info("therapist area locked after %d min without activity", IDLE_LOCK_MS // 60000)
        self.leave()

    # -- navigation -------------------------------------------------------------

    def select_patient(self, patient_id: int) -> None:
        """Select a patient in the list (loads their history, charts and exports)."""
        for row in range(self.patient_list.count()):
            if self.patient_list.item(row).data(Qt.ItemDataRole.UserRole) == patient_id:
                self.patient_list.setCurrentRow(row)
                return
        raise KeyError(f"no patient {patient_id} in the list")

    def _on_patient_changed(self, current: QListWidgetItem | None, _previous: object) -> None:
        if current is None or not self.is_unlocked:
            return
        patient = self._patients[current.data(Qt.ItemDataRole.UserRole)]
        self.message.hide()
        self.tabs.setEnabled(True)
        self.detail.clear()
        self._show_history()
        self.history.load_patient(patient.id)
        self.progress.load_patient(patient.id)
        self.exports.set_patient(patient)
        self.patient_settings.set_patient(patient)
        self.program.set_patient(patient)
        self.custom_lists.set_patient(patient)
        self.patient_panel.set_patient(patient)
        self.voice.set_patient(patient)
        self.scripts.set_patient(patient)

    def _on_patient_saved(self, patient: Patient) -> None:
        old = self._patients.get(patient.id)
        if old is None:
            return
        self._patients[patient.id] = patient
        for row in range(self.patient_list.count()):
            item = self.patient_list.item(row)
            if item.data(Qt.ItemDataRole.UserRole) == patient.id:
                show_patient_item(item, patient)
        if (old.display_name, old.archived) != (patient.display_name, patient.archived):
            # The other tabs show the name: they follow a rename.
            self.exports.set_patient(patient)
            self.program.set_patient(patient)
            self.voice.set_patient(patient)

    def _on_patient_deleted(self, patient_id: int) -> None:
        self.voice.forget(patient_id)
        self._patients.pop(patient_id, None)
        for row in range(self.patient_list.count()):
            if self.patient_list.item(row).data(Qt.ItemDataRole.UserRole) == patient_id:
                self.patient_list.takeItem(row)
                break
        self.patients_loaded.emit(self.patient_list.count())
        if self.patient_list.count():
            self.patient_list.setCurrentRow(0)
        else:
            self.tabs.setEnabled(False)
            self._show_message("Aucun patient pour l'instant.", "muted")

    # -- recovery code ------------------------------------------------------------

    def _editor_name(self) -> str:
        return self._username or ""

    def _remember_new_code(self, code: str) -> None:
        self._new_code = code

    def show_reset_page(self, username: str = "") -> None:
        """ "Mot de passe oublié ?": the recovery form."""
        self.reset_page.start(username)
        self.stack.setCurrentWidget(self.reset_page)

    def _back_to_login(self) -> None:
        self.stack.setCurrentWidget(self.login)
        self.login.refresh()

    def open_attempt(self, attempt_id: int) -> None:
        """Show one attempt in the history tab."""
        self.tabs.setCurrentIndex(TAB_HISTORY)
        self.history_stack.setCurrentWidget(self.detail)
        self.detail.show_attempt(attempt_id)

    def _show_history(self) -> None:
        self.detail.stop_playback()
        self.history_stack.setCurrentWidget(self.history)

    def _on_transcript_saved(self, _attempt_id: int, _field: str) -> None:
        # Session means and charts depend on the transcript and the verdict: refresh them.
        self.history.reload()
        self.progress.reload()
        self.voice.refresh_later()  # which recordings the personal voice may learn from

    def _show_message(self, text: str, role: str = "error") -> None:
        set_role(self.message, role)
        self.message.setText(text)
        self.message.setVisible(bool(text))
