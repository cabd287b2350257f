"""The « Voix » tab: a patient's usable recordings, personal model, last adaptation and its figures.

Only the therapist sees this; the patient's screens say nothing about it.
The adaptation itself (:mod:`therapy_app.voice.adaptation`) trains in a
separate process under a background thread; the panel polls its handle on a
timer and never waits for it.

Leaving the tab, choosing another patient or closing the therapist area does
not stop an adaptation: the handles live in
:class:`~therapy_app.gui.therapist.voice_runs.AdaptationRuns`, which
outlives the area, and the panel picks a run up again when its patient is
shown. Closing the application stops every run (the trainer keeps its work
folder, so « Adapter la reconnaissance » resumes where it stopped); a run
whose decision was already written is not affected.
"""

from __future__ import annotations

import logging
from datetime import datetime

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from therapy_app.gui.therapist.confirm import ask_first
from therapy_app.gui.therapist.context import TherapistContext
from therapy_app.gui.therapist.failures import therapist_text
from therapy_app.gui.therapist.formatting import MISSING, NBSP, number, short_datetime
from therapy_app.gui.therapist.style import set_role
from therapy_app.gui.therapist.voice_recording import EnrolmentDialog
from therapy_app.gui.therapist.voice_runs import (
    AdaptationRuns,
    RunHandle,
    StartAdaptation,
    shared_runs,
)
from therapy_app.storage import Patient
from therapy_app.voice import store
from therapy_app.voice.adaptation import (
    MIN_SAMPLES,
    AdaptationCancelledError,
    start_adaptation,
)
from therapy_app.voice.model import AdaptProgress, VoiceDecision, VoiceFigures, VoiceStatus
from therapy_app.voice.report import progress_line
from therapy_app.voice.samples import SOURCE_ORDER

_LOGGER = logging.getLogger(__name__)

POLL_MS = 500
STATUS_GROUP = "therapist-voice"
PERSONAL = "Modèle personnel"
GENERIC = "Modèle général"
INTRO = (
    "La reconnaissance vocale peut apprendre la façon de parler de ce patient, à partir de "
    "ses enregistrements dont les mots sont sûrs. Le patient ne voit rien de tout cela."
)
STOPPING = "Arrêt de l'adaptation… Ce qui a été appris est gardé."
REVERT_TITLE = "Revenir au modèle général"
SOURCES = {
    "confirmed": ("confirmé par le thérapeute", "confirmés par le thérapeute"),
    "edited": ("transcription corrigée", "transcriptions corrigées"),
    "enrolment": ("de la séance « Enregistrer la voix »",) * 2,
    "imported": ("importé", "importés"),
    "clear_margin": ("réussite nette", "réussites nettes"),
}
"""After a count (one, several), where usable recordings come from (``voice.model.Source``)."""
MEASURES = (
    ("Mots mal reconnus", "wer"),
    ("Mots isolés reconnus", "words_right"),
    ("Réponses justes acceptées", "verdict_true_accept"),
)
"""(French label, VoiceFigures field) of the before/after table; fewer words wrong is better."""
MEASURE_HELP = (
    "Mots mal reconnus : moins, c'est mieux. Mots isolés reconnus et réponses justes "
    "acceptées : plus, c'est mieux."
)


def _count(count: int, one: str, several: str) -> str:
    """ "1 importé", "3 importés" (French: 0 and 1 take the singular)."""
    return f"{count} {one if count <= 1 else several}"


def _when(created_at: str) -> str:
    try:
        return short_datetime(datetime.fromisoformat(created_at))
    except ValueError:
        return created_at


def _share(value: float | None) -> str:
    return MISSING if value is None else f"{round(value * 100)}{NBSP}%"


def usable_text(total: int) -> str:
    """ "37 enregistrements utilisables" in French (none, one, several)."""
    if total == 0:
        return "Aucun enregistrement utilisable pour l'instant"
    if total == 1:
        return "1 enregistrement utilisable"
    return f"{total} enregistrements utilisables"


def sources_text(usable: dict[str, int]) -> str:
    """ "Dont 12 confirmés par le thérapeute, 3 réussites nettes." ("" for none)."""
    order = [s for s in SOURCE_ORDER if s in usable] + [s for s in usable if s not in SOURCE_ORDER]
    parts = [_count(usable[s], *SOURCES.get(s, (s, s))) for s in order if usable[s]]
    return "Dont " + ", ".join(parts) + "." if parts else ""


def decision_text(decision: VoiceDecision) -> str:
    """ "Le 14/03/2025 10:30 : modèle personnel adopté." (or kept generic, or a revert)."""
    if decision.reason == store.REVERT_REASON:
        what = "retour au modèle général"
    elif decision.adopted:
        what = "modèle personnel adopté"
    else:
        what = "modèle personnel non adopté, le modèle général est gardé"
    return f"Le {_when(decision.created_at)} : {what}."


def figures_caption(decision: VoiceDecision) -> str:
    """Where the figures come from, in plain French."""
    held = _count(decision.held_out_items, "enregistrement", "enregistrements")
    taught = _count(decision.train_items, "enregistrement", "enregistrements")
    return (
        f"Mesuré sur {held} du patient mis de côté (jamais appris) ; appris sur {taught} "
        f"en {number(decision.minutes)}{NBSP}min. {MEASURE_HELP}"
    )


def _value(figures: VoiceFigures | None, field: str) -> str:
    if figures is None:
        return MISSING
    value = getattr(figures, field)
    return _share(value if value is None else float(value))


def _label(text: str = "", role: str = "", wrap: bool = True) -> QLabel:
    widget = QLabel(text)
    widget.setTextFormat(Qt.TextFormat.PlainText)
    widget.setWordWrap(wrap)
    if role:
        set_role(widget, role)
    return widget


class VoicePanel(QWidget):
    """The personal voice of the selected patient.

    Args:
        context: the data, the task runner (status reads and reverts on the
            database worker) and the speech path for « Enregistrer la voix »
            (None: the dialog loads its own).
        runs: where adaptations are kept; None for :func:`shared_runs`.
        start: starts an adaptation (:func:`start_adaptation`; tests replace it at
            the process boundary).
        parent: Qt parent.

    Signals:
        status_loaded(object): the :class:`VoiceStatus` shown.
        adaptation_started(int): a run started (patient id).
        adaptation_ended(object): a run ended (its VoiceDecision, or None when
            cancelled or failed).
        reverted(int): the generic model is used again (patient id).
        failed(str): a French message.
    """

    status_loaded = Signal(object)
    adaptation_started = Signal(int)
    adaptation_ended = Signal(object)
    reverted = Signal(int)
    failed = Signal(str)

    def __init__(
        self,
        context: TherapistContext,
        runs: AdaptationRuns | None = None,
        start: StartAdaptation | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._repository = context.repository
        self._runner = context.runner
        self._audio = context.audio
        self._runs = runs if runs is not None else shared_runs()
        self._start: StartAdaptation = start or start_adaptation
        self._patient: Patient | None = None
        self._status: VoiceStatus | None = None
        self._stale = False
        self._starting = False
        self.confirm_box: QMessageBox | None = None
        self.enrolment: EnrolmentDialog | None = None

        self.title = _label(role="section", wrap=False)
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        intro = _label(INTRO, "muted")
        self.model_label = _label()
        self.model_label.setStyleSheet("font-weight: bold;")
        self.revert_button = QPushButton("Revenir au modèle général…")
        self.undo_button = QPushButton("Reprendre le modèle personnel")
        self.undo_button.hide()
        self.usable_label = _label()
        self.sources_label = _label()
        self.needed_label = _label(role="muted")
        self.record_button = QPushButton("Enregistrer la voix…")
        self.decision_label = _label()
        self.reason_label = _label()
        self.figures_box = QWidget()
        grid = QGridLayout(self.figures_box)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setHorizontalSpacing(24)
        grid.addWidget(_label("", wrap=False), 0, 0)
        for column, name in enumerate((GENERIC, PERSONAL), start=1):
            header = _label(name, wrap=False)
            header.setStyleSheet("font-weight: bold;")
            grid.addWidget(header, 0, column)
        self.figure_cells: dict[str, tuple[QLabel, QLabel]] = {}
        for row, (name, field) in enumerate(MEASURES, start=1):
            grid.addWidget(_label(name, wrap=False), row, 0)
            cells = (_label(wrap=False), _label(wrap=False))
            for column, cell in enumerate(cells, start=1):
                cell.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                grid.addWidget(cell, row, column)
            self.figure_cells[field] = cells
        grid.setColumnStretch(3, 1)
        self.figures_caption = _label(role="muted")
        self.progress_label = _label()
        self.progress = QProgressBar()
        self.progress.setTextVisible(False)
        self.progress.setAccessibleName("Avancement de l'adaptation")
        self.adapt_button = QPushButton("Adapter la reconnaissance")
        set_role(self.adapt_button, "primary")
        self.cancel_button = QPushButton("Annuler l'adaptation")
        self.message = _label()
        self.message.hide()

        # The actions and the run's progress first: in view on a 768-pixel screen.
        actions = QHBoxLayout()
        for button in (self.adapt_button, self.record_button, self.revert_button):
            actions.addWidget(button)
        actions.addWidget(self.undo_button)  # instead of the revert button, after a revert
        actions.addStretch(1)
        run_row = QHBoxLayout()
        run_row.addWidget(self.progress, 1)
        run_row.addWidget(self.cancel_button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.title)
        layout.addWidget(intro)
        layout.addLayout(actions)
        layout.addWidget(self.progress_label)
        layout.addLayout(run_row)
        layout.addWidget(self.message)
        layout.addSpacing(8)
        layout.addWidget(self.model_label)
        layout.addWidget(self.usable_label)
        layout.addWidget(self.sources_label)
        layout.addWidget(self.needed_label)
        layout.addSpacing(8)
        layout.addWidget(_label("Dernière adaptation", "section", wrap=False))
        layout.addWidget(self.decision_label)
        layout.addWidget(self.reason_label)
        layout.addWidget(self.figures_box)
        layout.addWidget(self.figures_caption)
        layout.addStretch(1)

        self._timer = QTimer(self)
        self._timer.setInterval(POLL_MS)
        self._timer.timeout.connect(self._tick)
        self.adapt_button.clicked.connect(self.adapt)
        self.cancel_button.clicked.connect(self.cancel)
        self.revert_button.clicked.connect(self.ask_revert)
        self.undo_button.clicked.connect(self.undo_revert)
        self.record_button.clicked.connect(self.open_enrolment)
        self.clear()

    # -- patient ------------------------------------------------------------------

    @property
    def patient(self) -> Patient | None:
        """The patient shown."""
        return self._patient

    @property
    def status(self) -> VoiceStatus | None:
        """The last status read."""
        return self._status

    def set_patient(self, patient: Patient | None) -> None:
        """Show ``patient`` (read when the tab is visible); None clears everything."""
        same = patient is not None and self._patient is not None and patient.id == self._patient.id
        self._patient = patient
        if patient is None:
            self.clear()
            return
        self.title.setText(f"Voix de {patient.display_name}")
        if same:
            return
        self.clear(keep_title=True)
        self._stale = True
        if self.isVisible():
            self.reload()

    def refresh_later(self) -> None:
        """The counts may have changed (a transcript or verdict edit): read again when shown."""
        self._stale = True
        if self.isVisible():
            self.reload()

    def clear(self, keep_title: bool = False) -> None:
        """Forget what is shown (another patient, or the area is locked)."""
        self._runner.cancel_stale(STATUS_GROUP)
        self._timer.stop()
        self._status = None
        if not keep_title:
            self.title.clear()
        for widget in (self.model_label, self.usable_label, self.sources_label):
            widget.clear()
        self.needed_label.hide()
        self.decision_label.setText("")
        self.reason_label.hide()
        self.figures_box.hide()
        self.figures_caption.hide()
        for run_widget in (self.progress, self.progress_label, self.cancel_button):
            run_widget.hide()
        self.message.hide()
        for button in (self.adapt_button, self.revert_button, self.record_button):
            button.setEnabled(False)
        self.undo_button.hide()
        self.revert_button.show()
        if self.confirm_box is not None:
            self.confirm_box.reject()
        if self.enrolment is not None:
            self.enrolment.reject()  # marked items are already stored

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 - Qt override
        super().showEvent(event)
        if self._stale and self._patient is not None:
            self.reload()

    def reload(self) -> None:
        """Read the patient's voice status in the background."""
        patient = self._patient
        if patient is None:
            return
        self._stale = False
        self._runner.submit(
            store.voice_status,
            self._repository,
            patient.id,
            on_done=lambda status: self._show_status(patient.id, status),
            on_error=self._status_failed,
            pool="db",
            group=STATUS_GROUP,
        )

    def _status_failed(self, exc: BaseException) -> None:
        _LOGGER.warning("voice status unreadable: %r", exc)
        self._show_message(therapist_text(exc), "error")
        self.failed.emit(therapist_text(exc))

    def _show_status(self, patient_id: int, status: VoiceStatus) -> None:
        if self._patient is None or self._patient.id != patient_id:
            return
        self._status = status
        self.model_label.setText(f"Modèle utilisé : {PERSONAL if status.active else GENERIC}")
        self.usable_label.setText(usable_text(status.usable_total))
        self.sources_label.setText(sources_text(status.usable))
        self.sources_label.setVisible(bool(self.sources_label.text()))
        missing = MIN_SAMPLES - status.usable_total
        self.needed_label.setText(
            f"Il en faut au moins {MIN_SAMPLES} pour adapter la reconnaissance "
            f"(encore {missing}). « Enregistrer la voix » en ajoute rapidement."
        )
        self.needed_label.setVisible(missing > 0)
        self._show_decision(status.decision)
        set_aside = (
            status.decision is not None
            and status.decision.reason == store.REVERT_REASON
            and not status.active
        )
        self.undo_button.setVisible(set_aside)
        self.revert_button.setVisible(not set_aside)
        self.record_button.setEnabled(True)
        handle = self._runs.get(self._repository.data_dir, patient_id)
        if handle is not None:
            self._show_run(self._runs.last(self._repository.data_dir, patient_id))
            self._timer.start()
            self._tick()
        else:
            self._show_run(None)
            if status.running:
                self._show_message(
                    "Une adaptation est déjà en cours pour ce patient, lancée ailleurs "
                    "(par exemple en ligne de commande).",
                    "muted",
                )
        self._update_buttons()
        self.status_loaded.emit(status)

    def _show_decision(self, decision: VoiceDecision | None) -> None:
        if decision is None:
            self.decision_label.setText("Aucune adaptation n'a encore été faite.")
            self.reason_label.hide()
            self.figures_box.hide()
            self.figures_caption.hide()
            return
        self.decision_label.setText(decision_text(decision))
        self.reason_label.setText(decision.reason)
        self.reason_label.setVisible(bool(decision.reason))
        for field, (generic, personal) in self.figure_cells.items():
            generic.setText(_value(decision.generic, field))
            personal.setText(_value(decision.personal, field))
        self.figures_box.show()
        self.figures_caption.setText(figures_caption(decision))
        self.figures_caption.show()

    def _running(self) -> bool:
        patient = self._patient
        if patient is None:
            return False
        handle = self._runs.get(self._repository.data_dir, patient.id)
        return (handle is not None and not handle.done) or bool(
            self._status is not None and self._status.running and handle is None
        )

    def _update_buttons(self) -> None:
        status = self._status
        running = self._running()
        ready = status is not None and self._patient is not None
        self.adapt_button.setEnabled(ready and not running and not self._starting)
        self.revert_button.setEnabled(bool(ready and status and status.active) and not running)
        self.undo_button.setEnabled(not running)

    # -- adaptation ----------------------------------------------------------------

    def adapt(self) -> None:
        """« Adapter la reconnaissance »: check and start in the background."""
        patient = self._patient
        if patient is None or self._running() or self._starting:
            return
        self._starting = True
        self._update_buttons()
        self._show_message("Vérification des enregistrements…", "muted")
        self._runner.submit(
            self._start,
            self._repository,
            patient.id,
            on_done=lambda handle: self._started(patient.id, handle),
            on_error=self._start_failed,
            pool="db",
        )

    def _started(self, patient_id: int, handle: RunHandle) -> None:
        self._starting = False
        self._runs.add(self._repository.data_dir, patient_id, handle)
        _LOGGER.info("voice adaptation started for patient %d", patient_id)
        self.adaptation_started.emit(patient_id)
        if self._patient is None or self._patient.id != patient_id:
            return
        self._show_message("", "muted")
        self._show_run(AdaptProgress("prepare", 0, 0))
        self._update_buttons()
        self._timer.start()

    def _start_failed(self, exc: BaseException) -> None:
        self._starting = False
        _LOGGER.info("voice adaptation not started: %r", exc)
        self._show_message(therapist_text(exc), "error")
        self._update_buttons()
        self.failed.emit(therapist_text(exc))

    def cancel(self) -> None:
        """« Annuler l'adaptation »: the trainer stops (a new start resumes its work)."""
        patient = self._patient
        if patient is None or not self._runs.cancel(self._repository.data_dir, patient.id):
            return
        self._show_run(self._runs.last(self._repository.data_dir, patient.id))

    def _tick(self) -> None:
        patient = self._patient
        handle = self._runs.get(self._repository.data_dir, patient.id) if patient else None
        if patient is None or handle is None:
            self._timer.stop()
            return
        progress = self._runs.poll(self._repository.data_dir, patient.id)
        if not handle.done:
            self._show_run(progress)
            return
        self._timer.stop()
        self._runs.discard(self._repository.data_dir, patient.id)
        self._ended(handle)

    def _ended(self, handle: RunHandle) -> None:
        decision = handle.result()
        self._show_run(None)
        if decision is not None:
            if decision.adopted:
                text = f"Adaptation terminée : le modèle personnel est adopté. {decision.reason}"
                self._show_message(text, "success")
            else:
                text = f"Adaptation terminée : le modèle général reste utilisé. {decision.reason}"
                self._show_message(text, "muted")
        else:
            error = handle.error
            text = error.french() if error is not None else "L'adaptation s'est arrêtée."
            cancelled = isinstance(error, AdaptationCancelledError)
            self._show_message(text, "muted" if cancelled else "error")
        _LOGGER.info("voice adaptation ended: %s", "decision" if decision else handle.error)
        self.adaptation_ended.emit(decision)
        self.reload()

    def _show_run(self, progress: AdaptProgress | None) -> None:
        patient = self._patient
        handle = self._runs.get(self._repository.data_dir, patient.id) if patient else None
        running = handle is not None and not handle.done
        self.progress.setVisible(running)
        self.progress_label.setVisible(running)
        self.cancel_button.setVisible(running)
        if not running or patient is None:
            return
        stopping = self._runs.stopping(self._repository.data_dir, patient.id)
        self.cancel_button.setEnabled(not stopping)
        if progress is None:
            progress = AdaptProgress("prepare", 0, 0)
        if progress.total > 0:
            self.progress.setRange(0, progress.total)
            self.progress.setValue(min(progress.done, progress.total))
        else:
            self.progress.setRange(0, 0)  # busy: no count yet
        self.progress_label.setText(STOPPING if stopping else progress_line(progress))

    # -- revert -----------------------------------------------------------------------

    def ask_revert(self) -> None:
        """« Revenir au modèle général »: asks first (non-blocking box, :attr:`confirm_box`)."""
        patient, status = self._patient, self._status
        if patient is None or status is None or not status.active or self.confirm_box is not None:
            return
        decision = status.decision
        since = f" depuis le {_when(decision.created_at)}" if decision is not None else ""
        self.confirm_box = ask_first(
            self,
            REVERT_TITLE,
            f"Revenir au modèle général pour {patient.display_name} ?\n\n"
            f"La reconnaissance n'utilisera plus le modèle personnel{since}. Il est mis de "
            "côté : vous pourrez le reprendre, ou lancer une nouvelle adaptation.",
            REVERT_TITLE,
            lambda confirmed: self._revert_answered(confirmed, patient.id),
        )

    def _revert_answered(self, confirmed: bool, patient_id: int) -> None:
        self.confirm_box = None
        if not confirmed or self._patient is None or self._patient.id != patient_id:
            return
        self.revert_button.setEnabled(False)
        self._runner.submit(
            store.revert,
            self._repository.data_dir,
            patient_id,
            on_done=lambda _decision: self._reverted(patient_id),
            on_error=self._change_failed,
            pool="db",
        )

    def _reverted(self, patient_id: int) -> None:
        _LOGGER.info("patient %d back to the generic recogniser", patient_id)
        self._show_message("Le modèle général est de nouveau utilisé.", "success")
        self.reverted.emit(patient_id)
        self.reload()

    def undo_revert(self) -> None:
        """« Reprendre le modèle personnel » set aside by the last revert."""
        patient = self._patient
        if patient is None or self._running():
            return
        self.undo_button.setEnabled(False)
        self._runner.submit(
            store.undo_revert,
            self._repository.data_dir,
            patient.id,
            on_done=lambda _decision: self._undone(),
            on_error=self._change_failed,
            pool="db",
        )

    def _undone(self) -> None:
        self._show_message("Le modèle personnel est de nouveau utilisé.", "success")
        self.reload()

    def _change_failed(self, exc: BaseException) -> None:
        _LOGGER.warning("voice model change failed: %r", exc)
        self._show_message(therapist_text(exc), "error")
        self.failed.emit(therapist_text(exc))
        self.reload()

    # -- enrolment ----------------------------------------------------------------------

    def open_enrolment(self) -> None:
        """« Enregistrer la voix »: the session dialog (window-modal, :attr:`enrolment`)."""
        patient = self._patient
        if patient is None or self.enrolment is not None:
            return
        dialog = EnrolmentDialog(self._repository, self._runner, patient, self._audio, parent=self)
        dialog.finished.connect(lambda _result: self._enrolment_closed(dialog))
        self.enrolment = dialog
        dialog.resize(900, 620)
        dialog.open()

    def _enrolment_closed(self, dialog: EnrolmentDialog) -> None:
        self.enrolment = None
        if dialog.stored:
            self._show_message(
                f"« Enregistrer la voix » : {dialog.stored} enregistrement(s) gardé(s) "
                f"({dialog.right} juste(s), {dialog.wrong} faux).",
                "success",
            )
        dialog.deleteLater()
        self.reload()

    def forget(self, patient_id: int) -> None:
        """The patient was deleted: stop their adaptation, if one runs."""
        self._runs.cancel(self._repository.data_dir, patient_id)

    # -- messages -----------------------------------------------------------------------

    def _show_message(self, text: str, role: str) -> None:
        set_role(self.message, role)
        self.message.setText(text)
        self.message.setVisible(bool(text))
