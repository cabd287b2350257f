"""The scripts' progress in the therapist's « Progrès » tab: one row per script and session."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from therapy_app.gui.therapist import formatting as fmt
from therapy_app.gui.therapist.style import section_label, set_role
from therapy_app.storage.script_progress import ScriptSessionStats, title_key

TITLE = "Scripts de dialogue"
EMPTY = "Aucun dialogue pratiqué pour l'instant."
HEADERS = ("Script", "Séance", "Essais", "Réussite", "Répliques réussies")
NOTE = (
    "Réussite : essais réussis sur tous les essais des répliques du patient. "
    "Répliques réussies : répliques dites juste au moins une fois, avec ou sans aide."
)


def rows_by_script(stats: list[ScriptSessionStats]) -> list[ScriptSessionStats]:
    """Each script's sessions together, oldest first (scripts by title)."""
    return sorted(stats, key=lambda s: (title_key(s.title), s.started_at, s.session_id))


def row_texts(stats: ScriptSessionStats) -> tuple[str, ...]:
    """The table's cells for one script in one session (French)."""
    return (
        stats.title,
        fmt.short_datetime(stats.started_at),
        str(stats.tries),
        fmt.percent(stats.success_rate),
        f"{stats.lines_succeeded} sur {stats.lines}",
    )


class ScriptProgressTable(QWidget):
    """Tries and success rate of each script, session after session (a table, not a chart).

    A chart per script would multiply the charts by the patient's scripts; a
    table reads well for a handful of sessions and goes into the report as is.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.stats: list[ScriptSessionStats] = []
        title = section_label(TITLE)
        self.empty = QLabel(EMPTY)
        set_role(self.empty, "muted")
        self.note = QLabel(NOTE)
        set_role(self.note, "muted")
        self.note.setWordWrap(True)
        self.table = QTableWidget(0, len(HEADERS))
        self.table.setHorizontalHeaderLabels(list(HEADERS))
        self.table.setAccessibleName(TITLE)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.verticalHeader().hide()
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in range(1, len(HEADERS)):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 8, 0, 0)
        layout.addWidget(title)
        layout.addWidget(self.empty)
        layout.addWidget(self.table)
        layout.addWidget(self.note)
        self.show_stats([])

    def show_stats(self, stats: list[ScriptSessionStats]) -> None:
        """Show ``stats`` (the patient's; empty: « Aucun dialogue pratiqué »)."""
        self.stats = rows_by_script(stats)
        self.table.setRowCount(len(self.stats))
        for row, entry in enumerate(self.stats):
            for column, text in enumerate(row_texts(entry)):
                item = QTableWidgetItem(text)
                if column >= 2:
                    item.setTextAlignment(
                        Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
                    )
                self.table.setItem(row, column, item)
        shown = bool(self.stats)
        self.empty.setVisible(not shown)
        self.table.setVisible(shown)
        self.note.setVisible(shown)
        # As tall as its rows (the tab scrolls, not the table).
        height = self.table.horizontalHeader().height() + 2 * self.table.frameWidth()
        height += sum(self.table.rowHeight(r) for r in range(self.table.rowCount()))
        self.table.setFixedHeight(height + 2)

    def cell(self, row: int, column: int) -> str:
        """The text shown in a cell (tests, accessibility)."""
        item = self.table.item(row, column)
        return item.text() if item is not None else ""
