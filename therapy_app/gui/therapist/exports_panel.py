"""The exports tab: attempts CSV, CHAT transcripts and the PDF report of the selected patient."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from PySide6.QtCore import QDate, QStandardPaths, Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDateEdit,
    QFileDialog,
    QFrame,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLayout,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from therapy_app.exports import build_report_data, export_attempts_csv, export_patient_chat
from therapy_app.exports.labels import EXERCISE_LABELS
from therapy_app.exports.report_data import ReportData
from therapy_app.gui.therapist.charts import ALL_EXERCISES
from therapy_app.gui.therapist.context import TherapistContext
from therapy_app.gui.therapist.failures import error_text
from therapy_app.gui.therapist.report_pdf import write_report_pdf
from therapy_app.gui.therapist.style import set_role, show_status, status_label
from therapy_app.storage import Patient

_LOGGER = logging.getLogger(__name__)

DEFAULT_PERIOD_DAYS = 90


def file_slug(name: str) -> str:
    """A patient name made safe for a file name ("Jeanne Dupont" -> "Jeanne_Dupont")."""
    slug = re.sub(r"[^\w-]+", "_", name.strip(), flags=re.UNICODE).strip("_")
    return slug or "patient"


def documents_folder() -> Path:
    """The user's Documents folder ("Documents" in French too), else the home folder."""
    location = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation)
    folder = Path(location) if location else Path.home()
    return folder if folder.is_dir() else Path.home()


def chat_folder_name(patient: Patient, today: date) -> str:
    """``patient<id>_CHAT_<AAAAMMJJ>``: the files inside are anonymised, so is their folder."""
    return f"patient{patient.id}_CHAT_{today:%Y%m%d}"


def _to_date(value: QDate) -> date:
    return date(value.year(), value.month(), value.day())


def _export_box(
    title: str, help_text: str, *line: QWidget, settings: QLayout | None = None
) -> QGroupBox:
    """One kind of export: what it holds, its ``settings``, then its button and options."""
    box = QGroupBox(title)
    layout = QVBoxLayout(box)
    help_label = QLabel(help_text)
    help_label.setWordWrap(True)
    set_role(help_label, "muted")
    layout.addWidget(help_label)
    if settings is not None:
        layout.addLayout(settings)
    row = QHBoxLayout()
    for widget in line:
        row.addWidget(widget)
    row.addStretch(1)
    layout.addLayout(row)
    return box


class ExportPanel(QWidget):
    """Buttons that write the selected patient's data to files chosen by the therapist.

    The ``export_*`` methods take the destination directly (tests and scripts);
    the buttons ask for it with a file dialog first.

    Args:
        context: the data and the task runner (queries and files on its workers).
        today: the current date (the default period ends on it; the chat folder is
            named after it).

    Signals:
        export_finished(str, str): (kind "csv" | "chat" | "pdf", written path).
        export_failed(str): French message.
    """

    export_finished = Signal(str, str)
    export_failed = Signal(str)

    def __init__(
        self,
        context: TherapistContext,
        *,
        today: Callable[[], date] = date.today,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._repository = context.repository
        self._runner = context.runner
        self._today = today
        self._patient: Patient | None = None
        self._folder: Path | None = None  # the last folder written to, this session

        self.patient_label = QLabel()
        self.patient_label.setTextFormat(Qt.TextFormat.PlainText)  # holds the patient's name
        set_role(self.patient_label, "section")

        self.csv_button = QPushButton("Exporter les essais (CSV)…")
        self.csv_everyone = QCheckBox("Inclure tous les patients")
        csv_box = _export_box(
            "Tableau des essais",
            "Un essai par ligne, avec les transcriptions et les scores. "
            "S'ouvre directement dans Excel ou LibreOffice (séparateur « ; »).",
            self.csv_button,
            self.csv_everyone,
        )

        self.chat_button = QPushButton("Exporter les transcriptions CHAT…")
        self.chat_media = QCheckBox("Joindre les enregistrements")
        self.chat_media.setChecked(True)
        chat_box = _export_box(
            "Transcriptions CHAT (CLAN)",
            "Un fichier .cha par séance, anonymisé (locuteur PAR), à ouvrir dans CLAN. "
            "Avec les enregistrements, chaque énoncé est relié à son extrait sonore.",
            self.chat_button,
            self.chat_media,
        )

        self.start_date = QDateEdit()
        self.end_date = QDateEdit()
        for editor in (self.start_date, self.end_date):
            editor.setCalendarPopup(True)
            editor.setDisplayFormat("dd/MM/yyyy")
        self.report_exercise = QComboBox()
        self.report_exercise.addItem(ALL_EXERCISES, None)
        for kind, label in EXERCISE_LABELS.items():
            self.report_exercise.addItem(label, kind)
        self.pdf_button = QPushButton("Créer le rapport PDF…")
        # Period and charts on one line: the button shows without scrolling
        # on a 1366x768 screen.
        grid = QGridLayout()
        grid.addWidget(QLabel("Du :"), 0, 0)
        grid.addWidget(self.start_date, 0, 1)
        grid.addWidget(QLabel("Au :"), 0, 2)
        grid.addWidget(self.end_date, 0, 3)
        grid.addWidget(QLabel("Graphiques :"), 0, 4)
        grid.addWidget(self.report_exercise, 0, 5)
        grid.setColumnStretch(6, 1)
        pdf_box = _export_box(
            "Rapport PDF",
            "Résumé, tableau des séances et graphiques de progrès pour la période choisie.",
            self.pdf_button,
            settings=grid,
        )

        self.status = status_label()
        content = QWidget()
        inner = QVBoxLayout(content)
        inner.setContentsMargins(0, 4, 4, 0)
        inner.setSpacing(6)
        inner.addWidget(csv_box)
        inner.addWidget(chat_box)
        inner.addWidget(pdf_box)
        inner.addStretch(1)
        # Wrapped help texts grow tall on a narrow window: scroll rather than
        # forcing the whole area to a minimum height.
        self.scroll_area = QScrollArea()
        self.scroll_area.setWidgetResizable(True)
        self.scroll_area.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll_area.setWidget(content)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.patient_label)
        # Above the scrolled boxes: the confirmation is seen whatever the
        # screen's height (it was below the fold on a 768-pixel laptop).
        layout.addWidget(self.status)
        layout.addWidget(self.scroll_area, 1)

        self.csv_button.clicked.connect(self._choose_csv)
        self.chat_button.clicked.connect(self._choose_chat)
        self.pdf_button.clicked.connect(self._choose_pdf)
        self.set_period(self._today() - timedelta(days=DEFAULT_PERIOD_DAYS), self._today())
        self.set_patient(None)

    # -- state ------------------------------------------------------------------

    def set_patient(self, patient: Patient | None) -> None:
        """Export this patient's data (None disables the buttons)."""
        self._patient = patient
        self.patient_label.setText(
            f"Exports pour {patient.display_name}" if patient else "Choisissez un patient."
        )
        for button in (self.csv_button, self.chat_button, self.pdf_button):
            button.setEnabled(patient is not None)
        self._show_status("")

    def set_period(self, start: date, end: date) -> None:
        """Set the report's date range."""
        self.start_date.setDate(QDate(start.year, start.month, start.day))
        self.end_date.setDate(QDate(end.year, end.month, end.day))

    @property
    def period(self) -> tuple[date, date]:
        """The report's first and last day."""
        return _to_date(self.start_date.date()), _to_date(self.end_date.date())

    def _show_status(self, text: str, role: str = "muted") -> None:
        show_status(self.status, text, role)

    # -- dialogs ----------------------------------------------------------------

    @property
    def folder(self) -> Path:
        """Where the file dialogs open: the last folder used, else Documents."""
        if self._folder is not None and self._folder.is_dir():
            return self._folder
        return documents_folder()

    def _remember(self, path: Path) -> None:
        self._folder = path.parent

    def _suggested(self, suffix: str) -> str:
        name = file_slug(self._patient.display_name) if self._patient else "patient"
        return str(self.folder / f"{name}{suffix}")

    def _choose_csv(self) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self, "Exporter les essais", self._suggested("_essais.csv"), "CSV (*.csv)"
        )
        if path:
            self._remember(Path(path))
            self.export_csv(Path(path))

    def _choose_chat(self) -> None:
        folder = QFileDialog.getExistingDirectory(
            self, "Dossier des transcriptions CHAT", str(self.folder)
        )
        if folder and self._patient is not None:
            target = Path(folder) / chat_folder_name(self._patient, self._today())
            self._remember(target)
            self.export_chat(target)

    def _choose_pdf(self) -> None:
        start, end = self.period
        path, _ = QFileDialog.getSaveFileName(
            self,
            "Enregistrer le rapport",
            self._suggested(f"_rapport_{start:%Y%m%d}-{end:%Y%m%d}.pdf"),
            "PDF (*.pdf)",
        )
        if path:
            self._remember(Path(path))
            self.export_pdf(Path(path))

    # -- exports ----------------------------------------------------------------

    def export_csv(self, path: Path) -> None:
        """Write the attempts CSV (this patient's, or everyone's when ticked)."""
        if self._patient is None:
            return
        patient_id = None if self.csv_everyone.isChecked() else self._patient.id
        self._start(
            "csv",
            export_attempts_csv,
            self._repository,
            path,
            patient_id,
            done=lambda count: f"{count} essai(s) exporté(s) dans {path}.",
            path=path,
        )

    def export_chat(self, folder: Path) -> None:
        """Write one ``.cha`` file per session into ``folder``."""
        if self._patient is None:
            return
        self._start(
            "chat",
            export_patient_chat,
            self._repository,
            self._patient.id,
            folder,
            with_media=self.chat_media.isChecked(),
            done=lambda paths: f"{len(paths)} transcription(s) CHAT écrite(s) dans {folder}.",
            path=folder,
        )

    def export_pdf(self, path: Path) -> None:
        """Gather the period's data (database worker), then draw the PDF (GUI thread)."""
        if self._patient is None:
            return
        start, end = self.period
        if end < start:
            self._show_status("La date de fin est avant la date de début.", "error")
            self.export_failed.emit("La date de fin est avant la date de début.")
            return
        kind = self.report_exercise.currentData()
        self._busy(True)
        self._show_status("Préparation du rapport…")
        self._runner.submit(
            build_report_data,
            self._repository,
            self._patient.id,
            start,
            end,
            exercise_kind=kind,
            on_done=lambda data: self._draw_pdf(data, path),
            on_error=self._on_error,
            pool="db",
            group="therapist-export",
        )

    def _draw_pdf(self, data: ReportData, path: Path) -> None:
        # Qt Charts are graphics widgets: they are built and painted on this thread.
        try:
            pages = write_report_pdf(data, path)
        except Exception as exc:  # noqa: BLE001 - reported to the therapist, then logged
            self._on_error(exc)
            return
        self._finish("pdf", path, f"Rapport de {pages} page(s) enregistré dans {path}.")

    def _start(
        self,
        kind: str,
        fn: Callable[..., Any],
        *args: Any,
        done: Callable[[Any], str],
        path: Path,
        **kwargs: Any,
    ) -> None:
        self._busy(True)
        self._show_status("Export en cours…")
        self._runner.submit(
            fn,
            *args,
            **kwargs,
            on_done=lambda result: self._finish(kind, path, done(result)),
            on_error=self._on_error,
            pool="db",
            group="therapist-export",
        )

    def _finish(self, kind: str, path: Path, message: str) -> None:
        self._busy(False)
        self._show_status(message, "success")
        self.export_finished.emit(kind, str(path))

    def _busy(self, busy: bool) -> None:
        for button in (self.csv_button, self.chat_button, self.pdf_button):
            button.setEnabled(not busy and self._patient is not None)

    def _on_error(self, exc: BaseException) -> None:
        self._busy(False)
        message = error_text(
            exc, "L'export a échoué à cause d'une erreur inattendue.", "export", writes_file=True
        )
        self._show_status(message, "error")
        self.export_failed.emit(message)
