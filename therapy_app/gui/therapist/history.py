"""A patient's session history table and the attempts of the selected session."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Generic, TypeVar

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
    Signal,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QPushButton,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from therapy_app.exports.labels import exercise_label
from therapy_app.gui.repository_widget import RepositoryWidget
from therapy_app.gui.therapist import formatting as fmt
from therapy_app.gui.therapist.context import TherapistContext
from therapy_app.gui.therapist.failures import error_text
from therapy_app.gui.therapist.style import flush_column, section_label, set_role
from therapy_app.practice.naming_cues import LEVEL_NAMES
from therapy_app.storage import Attempt, SessionSummary

_LOGGER = logging.getLogger(__name__)

Row = TypeVar("Row")
SORT_ROLE = Qt.ItemDataRole.UserRole + 1
ID_ROLE = Qt.ItemDataRole.UserRole + 2


@dataclass(frozen=True)
class Column(Generic[Row]):
    """One table column: French header, display text and sort key of a row."""

    header: str
    text: Callable[[Row], str]
    key: Callable[[Row], Any]
    numeric: bool = True
    tip: str = ""


def _ratio_key(value: float | None) -> float:
    return -1.0 if value is None else float(value)


def _time_key(moment: datetime) -> float:
    # Sort keys must be plain numbers or text: Qt cannot compare Python datetimes.
    return moment.timestamp()


SESSION_COLUMNS: tuple[Column[SessionSummary], ...] = (
    Column(
        "Date", lambda s: fmt.short_datetime(s.started_at), lambda s: _time_key(s.started_at), False
    ),
    Column(
        "Exercice",
        lambda s: exercise_label(s.exercise_kind, short=True),
        lambda s: s.exercise_kind,
        False,
    ),
    Column("Essais", lambda s: str(s.attempt_count), lambda s: s.attempt_count),
    Column("Réussite", lambda s: fmt.percent(s.success_rate), lambda s: _ratio_key(s.success_rate)),
    Column(
        "LME",
        lambda s: fmt.number(s.mean_word_count),
        lambda s: _ratio_key(s.mean_word_count),
        tip="Longueur moyenne des énoncés, en mots",
    ),
    Column(
        "Mots gram.",
        lambda s: fmt.percent(s.mean_function_word_ratio),
        lambda s: _ratio_key(s.mean_function_word_ratio),
        tip="Part des mots grammaticaux (articles, prépositions, pronoms, auxiliaires…)",
    ),
    Column(
        "Mots/min",
        lambda s: fmt.number(s.mean_words_per_minute, 0),
        lambda s: _ratio_key(s.mean_words_per_minute),
        tip="Débit de parole, pauses exclues",
    ),
    Column(
        "Précision",
        lambda s: fmt.percent(s.mean_accuracy),
        lambda s: _ratio_key(s.mean_accuracy),
        tip="Précision de la répétition par rapport à la cible (1 − taux d'erreur de mots)",
    ),
)
"""The history columns the therapist reads, left to right."""


def cue_text(attempt: Attempt) -> str:
    """The help given before the try: its level, named for naming ("2 · premier son")."""
    level = attempt.record.cue_level
    if level is None:
        return fmt.MISSING
    if attempt.record.kind == "naming" and level in LEVEL_NAMES:
        return f"{level} · {LEVEL_NAMES[level]}"
    return str(level)


def _said(attempt: Attempt) -> str:
    text = attempt.transcript or fmt.MISSING
    return text + (" ✎" if attempt.edited_transcript is not None else "")


ATTEMPT_COLUMNS: tuple[Column[Attempt], ...] = (
    Column(
        "Heure", lambda a: fmt.clock_time(a.created_at), lambda a: _time_key(a.created_at), False
    ),
    Column(
        "Cible",
        lambda a: a.record.reference or fmt.MISSING,
        lambda a: a.record.reference or "",
        False,
    ),
    Column("Transcription", _said, lambda a: a.transcript, False),
    Column(
        "Indice",
        cue_text,
        lambda a: -1 if a.record.cue_level is None else a.record.cue_level,
        tip="Aide donnée avant l'essai (0 : aucune). Dénomination : image seule, indice de"
        " sens, premier son, mot écrit, modèle à répéter.",
    ),
    Column("Mots", lambda a: str(a.metrics.word_count), lambda a: a.metrics.word_count),
    Column(
        "Précision",
        lambda a: fmt.percent(a.metrics.accuracy),
        lambda a: _ratio_key(a.metrics.accuracy),
    ),
    Column(
        "Réussite",
        lambda a: fmt.yes_no(a.success),
        lambda a: _ratio_key(None if a.success is None else float(a.success)),
    ),
)
"""The attempt list columns; ✎ marks a transcript the therapist corrected."""


class RecordTableModel(QAbstractTableModel, Generic[Row]):
    """Read-only table of dataclass rows described by :class:`Column` entries."""

    def __init__(
        self,
        columns: Sequence[Column[Row]],
        row_id: Callable[[Row], int],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._columns = list(columns)
        self._row_id = row_id
        self._rows: list[Row] = []

    @property
    def rows(self) -> list[Row]:
        """The rows in model order."""
        return list(self._rows)

    def set_rows(self, rows: Sequence[Row]) -> None:
        """Replace every row."""
        self.beginResetModel()
        self._rows = list(rows)
        self.endResetModel()

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008, N802
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008, N802
        return 0 if parent.isValid() else len(self._columns)

    def headerData(  # noqa: N802 - Qt override
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation != Qt.Orientation.Horizontal:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return self._columns[section].header
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._columns[section].tip or None
        return None

    def data(
        self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if not index.isValid():
            return None
        row = self._rows[index.row()]
        column = self._columns[index.column()]
        if role == Qt.ItemDataRole.DisplayRole:
            return column.text(row)
        if role == Qt.ItemDataRole.ToolTipRole and not column.numeric:
            return column.text(row)
        if role == SORT_ROLE:
            return column.key(row)
        if role == ID_ROLE:
            return self._row_id(row)
        if role == Qt.ItemDataRole.TextAlignmentRole and column.numeric:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None


def _table(
    model: RecordTableModel[Any], stretch_columns: tuple[int, ...]
) -> tuple[QTableView, QSortFilterProxyModel]:
    proxy = QSortFilterProxyModel()
    proxy.setSourceModel(model)
    proxy.setSortRole(SORT_ROLE)
    view = QTableView()
    view.setModel(proxy)
    view.setSortingEnabled(True)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    view.setAlternatingRowColors(True)
    view.setWordWrap(False)
    view.verticalHeader().setVisible(False)
    header = view.horizontalHeader()
    header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    for column in stretch_columns:
        header.setSectionResizeMode(column, QHeaderView.ResizeMode.Stretch)
    return view, proxy


class HistoryPanel(RepositoryWidget):
    """Sessions of one patient (newest first) above the attempts of the selected session.

    Signals:
        history_loaded(int): session rows shown for the patient id.
        attempts_loaded(int): attempt rows shown for the session id.
        attempt_activated(int): the therapist opened an attempt (id).
        failed(str): French message of a failed query.
    """

    history_loaded = Signal(int)
    attempts_loaded = Signal(int)
    attempt_activated = Signal(int)
    failed = Signal(str)

    def __init__(self, context: TherapistContext, parent: QWidget | None = None) -> None:
        super().__init__(context.repository, context.runner, parent)
        self._patient_id: int | None = None
        self._session_id: int | None = None

        self.sessions = RecordTableModel(SESSION_COLUMNS, lambda s: s.session_id, self)
        self.session_view, self._session_proxy = _table(
            # Text columns fit their content; the figures share what is left.
            self.sessions,
            tuple(range(2, len(SESSION_COLUMNS))),
        )
        self.session_view.sortByColumn(0, Qt.SortOrder.DescendingOrder)
        self.attempts = RecordTableModel(ATTEMPT_COLUMNS, lambda a: a.id, self)
        self.attempt_view, self._attempt_proxy = _table(self.attempts, (1, 2))
        self.attempt_view.sortByColumn(0, Qt.SortOrder.AscendingOrder)

        self.empty_label = QLabel("Aucune séance pour ce patient.")
        set_role(self.empty_label, "muted")
        self.attempts_title = section_label("Essais de la séance")
        self.open_button = QPushButton("Voir l'essai")
        set_role(self.open_button, "primary")
        self.open_button.setEnabled(False)

        top, top_layout = flush_column()
        top_layout.addWidget(section_label("Séances"))
        top_layout.addWidget(self.empty_label)
        top_layout.addWidget(self.session_view)
        bottom, bottom_layout = flush_column()
        bottom_layout.addWidget(self.attempts_title)
        bottom_layout.addWidget(self.attempt_view)
        bottom_layout.addWidget(self.open_button, 0, Qt.AlignmentFlag.AlignRight)
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(top)
        splitter.addWidget(bottom)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(splitter)

        self.session_view.selectionModel().currentRowChanged.connect(self._session_selected)
        self.attempt_view.selectionModel().currentRowChanged.connect(
            lambda current, _previous: self.open_button.setEnabled(current.isValid())
        )
        self.attempt_view.doubleClicked.connect(self._open_index)
        self.attempt_view.activated.connect(self._open_index)
        self.open_button.clicked.connect(lambda: self._open_index(self.attempt_view.currentIndex()))

    # -- loading ----------------------------------------------------------------

    def clear(self) -> None:
        """Forget the patient (used when the area locks)."""
        self._patient_id = None
        self._session_id = None
        self._runner.cancel_stale("therapist-history")
        self._runner.cancel_stale("therapist-attempts")
        self.sessions.set_rows([])
        self.attempts.set_rows([])
        self.open_button.setEnabled(False)

    def load_patient(self, patient_id: int) -> None:
        """Show the sessions of ``patient_id`` (query on the database worker)."""
        self.clear()
        self._patient_id = patient_id
        self._runner.submit(
            self._repository.history.summaries,
            patient_id,
            on_done=lambda rows: self._on_history(patient_id, rows),
            on_error=self._on_error,
            pool="db",
            group="therapist-history",
        )

    def reload(self) -> None:
        """Re-read the current patient (after a transcript correction), keeping the selection."""
        if self._patient_id is None:
            return
        session_id = self._session_id
        patient_id = self._patient_id
        self._runner.submit(
            self._repository.history.summaries,
            patient_id,
            on_done=lambda rows: self._on_history(patient_id, rows, session_id),
            on_error=self._on_error,
            pool="db",
            group="therapist-history",
        )

    def _on_history(
        self, patient_id: int, rows: list[SessionSummary], keep_session: int | None = None
    ) -> None:
        if patient_id != self._patient_id:
            return
        self.sessions.set_rows(rows)
        self.empty_label.setVisible(not rows)
        self.session_view.setVisible(bool(rows))
        wanted = (
            keep_session if keep_session is not None else (rows[0].session_id if rows else None)
        )
        if wanted is not None:
            self.select_session(wanted)
        self.history_loaded.emit(patient_id)

    def select_session(self, session_id: int) -> None:
        """Select a session row (its attempts load below)."""
        for row in range(self._session_proxy.rowCount()):
            index = self._session_proxy.index(row, 0)
            if index.data(ID_ROLE) == session_id:
                self.session_view.setCurrentIndex(index)
                self.session_view.selectRow(row)
                return

    def _session_selected(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if not current.isValid():
            return
        self.load_attempts(current.data(ID_ROLE))

    def load_attempts(self, session_id: int) -> None:
        """Show the attempts of a session."""
        self._session_id = session_id
        self._runner.submit(
            lambda: self._repository.attempts.all(session_id=session_id),
            on_done=lambda rows: self._on_attempts(session_id, rows),
            on_error=self._on_error,
            pool="db",
            group="therapist-attempts",
        )

    def _on_attempts(self, session_id: int, rows: list[Attempt]) -> None:
        if session_id != self._session_id:
            return
        self.attempts.set_rows(rows)
        summary = next((s for s in self.sessions.rows if s.session_id == session_id), None)
        if summary is not None:
            self.attempts_title.setText(
                f"Essais de la séance du {fmt.short_datetime(summary.started_at)} "
                f"({exercise_label(summary.exercise_kind)})"
            )
        if rows:
            self.attempt_view.selectRow(0)
        self.attempts_loaded.emit(session_id)

    def _open_index(self, index: QModelIndex) -> None:
        if index.isValid():
            self.attempt_activated.emit(index.data(ID_ROLE))

    def _on_error(self, exc: BaseException) -> None:
        self.failed.emit(error_text(exc, "Lecture de l'historique impossible.", "history query"))
