"""The patient's progress report as an A4 PDF: summary, session table, scripts table, charts.

Drawn with QPainter on a ``QPdfWriter``; the charts are the same ``QChart``
objects as on screen, rendered through a ``QGraphicsScene`` so they stay
vector graphics. Must run on the GUI thread (charts are graphics widgets):
gather the data on the database worker first (``exports.build_report_data``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QMarginsF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QPageLayout, QPageSize, QPainter, QPdfWriter, QPen
from PySide6.QtWidgets import QGraphicsScene

from therapy_app.atomic import atomic_path
from therapy_app.exports.labels import CHART_METRICS, exercise_label
from therapy_app.exports.report_data import ReportData
from therapy_app.gui.theme import ACCENT
from therapy_app.gui.therapist import formatting as fmt
from therapy_app.gui.therapist.charts import build_chart
from therapy_app.gui.therapist.script_progress_table import HEADERS as SCRIPT_HEADERS
from therapy_app.gui.therapist.script_progress_table import NOTE as SCRIPT_NOTE
from therapy_app.gui.therapist.script_progress_table import row_texts, rows_by_script
from therapy_app.gui.therapist.style import SERIES_COLOURS
from therapy_app.storage import SessionSummary

_LOGGER = logging.getLogger(__name__)

RESOLUTION = 1200
"""Device units per inch: layout is done in points and converted, fonts are in points."""
MARGIN_MM = 15.0
REPORT_TITLE = "Rapport de suivi orthophonique"
_CHART_SCENE = (820.0, 270.0)
"""Scene size a chart is laid out at before being scaled into the page."""
_ROW_PT = 17.0


@dataclass(frozen=True)
class _TableColumn:
    header: str
    width_pt: float
    text: Callable[[SessionSummary], str]
    right: bool = True


_COLUMNS = (
    _TableColumn("Date", 92, lambda s: fmt.short_datetime(s.started_at), False),
    _TableColumn("Exercice", 128, lambda s: exercise_label(s.exercise_kind), False),
    _TableColumn("Essais", 40, lambda s: str(s.attempt_count)),
    _TableColumn("Réussite", 50, lambda s: fmt.percent(s.success_rate)),
    _TableColumn("LME", 38, lambda s: fmt.number(s.mean_word_count)),
    _TableColumn("Mots gram.", 58, lambda s: fmt.percent(s.mean_function_word_ratio)),
    _TableColumn("Mots/min", 50, lambda s: fmt.number(s.mean_words_per_minute, 0)),
    _TableColumn("Précision", 54, lambda s: fmt.percent(s.mean_accuracy)),
)


def _font(points: float, bold: bool = False) -> QFont:
    font = QFont("DejaVu Sans")
    font.setStyleHint(QFont.StyleHint.SansSerif)
    font.setPointSizeF(points)
    font.setBold(bold)
    return font


class _Page:
    """Layout cursor in points over a QPainter whose device counts RESOLUTION units per inch."""

    def __init__(self, writer: QPdfWriter, painter: QPainter, data: ReportData) -> None:
        self.writer = writer
        self.painter = painter
        self.data = data
        self.unit = RESOLUTION / 72.0
        self.width = writer.width() / self.unit
        self.height = writer.height() / self.unit
        self.y = 0.0
        self.number = 1

    def rect(self, x: float, y: float, w: float, h: float) -> QRectF:
        u = self.unit
        return QRectF(x * u, y * u, w * u, h * u)

    def text(
        self,
        text: str,
        points: float,
        *,
        bold: bool = False,
        colour: str = "#000000",
        x: float = 0.0,
        width: float | None = None,
        align: Qt.AlignmentFlag = Qt.AlignmentFlag.AlignLeft,
        advance: bool = True,
        height: float | None = None,
    ) -> float:
        """Draw wrapped text at the cursor; returns its height in points."""
        self.painter.setFont(_font(points, bold))
        self.painter.setPen(QColor(colour))
        w = self.width - x if width is None else width
        flags = int(align | Qt.AlignmentFlag.AlignVCenter) | int(Qt.TextFlag.TextWordWrap)
        box = self.rect(x, self.y, w, height if height is not None else 1000)
        needed = self.painter.boundingRect(box, flags, text).height() / self.unit
        h = height if height is not None else needed
        self.painter.drawText(self.rect(x, self.y, w, h), flags, text)
        if advance:
            self.y += h
        return h

    def space(self, points: float) -> None:
        self.y += points

    def fits(self, points: float) -> bool:
        return self.y + points <= self.height - 24

    def new_page(self) -> None:
        self.footer()
        self.writer.newPage()
        self.number += 1
        self.y = 0.0

    def footer(self) -> None:
        saved = self.y
        self.y = self.height - 14
        self.text(
            f"{self.data.patient.display_name} — {REPORT_TITLE} — page {self.number}",
            8,
            colour="#666666",
            align=Qt.AlignmentFlag.AlignRight,
            height=14,
        )
        self.y = saved

    def rule(self, colour: str = "#999999", width_pt: float = 0.6) -> None:
        pen = QPen(QColor(colour))
        pen.setWidthF(width_pt * self.unit)
        self.painter.setPen(pen)
        y = self.y * self.unit
        self.painter.drawLine(0, int(y), int(self.width * self.unit), int(y))


def _heading(page: _Page, data: ReportData) -> None:
    page.text(REPORT_TITLE, 20, bold=True, colour=ACCENT)
    page.space(6)
    page.text(f"Patient : {data.patient.display_name}", 13, bold=True)
    page.text(f"Période : du {fmt.long_date(data.start)} au {fmt.long_date(data.end)}", 11)
    kind = exercise_label(data.exercise_kind) if data.exercise_kind else "tous les exercices"
    page.text(
        f"{len(data.sessions)} séance(s), {data.attempt_count} essai(s). Graphiques : {kind}.",
        11,
    )
    page.text(
        f"Généré le {fmt.long_date(data.generated_at)} à {fmt.clock_time(data.generated_at)}.",
        9,
        colour="#666666",
    )
    page.space(8)
    page.rule(ACCENT, 1.2)
    page.space(12)


def _table_header(page: _Page) -> None:
    _header_row(page, [(c.header, c.width_pt, c.right) for c in _COLUMNS])


def _header_row(page: _Page, columns: list[tuple[str, float, bool]]) -> None:
    page.painter.fillRect(page.rect(0, page.y, page.width, _ROW_PT), QColor("#e3ebf5"))
    x = 0.0
    for header, width, right in columns:
        align = Qt.AlignmentFlag.AlignRight if right else Qt.AlignmentFlag.AlignLeft
        page.text(
            header, 8.5, bold=True, x=x + 3, width=width - 6,
            align=align, advance=False, height=_ROW_PT,
        )  # fmt: skip
        x += width
    page.space(_ROW_PT)


_SCRIPT_WIDTHS = (200.0, 92.0, 44.0, 54.0, 100.0)
"""Points per column of the scripts' table (title, session, tries, rate, lines)."""


def _scripts_table(page: _Page, data: ReportData) -> None:
    """Per dialogue script: tries and success rate, session after session."""
    if not data.scripts:
        return
    columns = [
        (header, width, i >= 2)
        for i, (header, width) in enumerate(zip(SCRIPT_HEADERS, _SCRIPT_WIDTHS, strict=True))
    ]
    page.space(12)
    if not page.fits(3 * _ROW_PT + 20):
        page.new_page()
    page.text("Scripts de dialogue", 14, bold=True)
    page.space(6)
    _header_row(page, columns)
    for i, stats in enumerate(rows_by_script(data.scripts)):
        if not page.fits(_ROW_PT):
            page.new_page()
            page.text("Scripts de dialogue (suite)", 14, bold=True)
            page.space(6)
            _header_row(page, columns)
        if i % 2:
            page.painter.fillRect(page.rect(0, page.y, page.width, _ROW_PT), QColor("#f4f4f4"))
        x = 0.0
        for (_header, width, right), text in zip(columns, row_texts(stats), strict=True):
            align = Qt.AlignmentFlag.AlignRight if right else Qt.AlignmentFlag.AlignLeft
            page.text(
                text, 8.5, x=x + 3, width=width - 6, align=align, advance=False, height=_ROW_PT
            )
            x += width
        page.space(_ROW_PT)
    page.space(8)
    page.text(SCRIPT_NOTE, 8.5, colour="#444444")


def _session_table(page: _Page, data: ReportData) -> None:
    page.text("Séances de la période", 14, bold=True)
    page.space(6)
    if not data.sessions:
        page.text("Aucune séance sur cette période.", 11, colour="#666666")
        return
    _table_header(page)
    for i, session in enumerate(data.sessions):
        if not page.fits(_ROW_PT):
            page.new_page()
            page.text("Séances de la période (suite)", 14, bold=True)
            page.space(6)
            _table_header(page)
        if i % 2:
            page.painter.fillRect(page.rect(0, page.y, page.width, _ROW_PT), QColor("#f4f4f4"))
        x = 0.0
        for column in _COLUMNS:
            align = Qt.AlignmentFlag.AlignRight if column.right else Qt.AlignmentFlag.AlignLeft
            page.text(
                column.text(session), 8.5, x=x + 3, width=column.width_pt - 6,
                align=align, advance=False, height=_ROW_PT,
            )  # fmt: skip
            x += column.width_pt
        page.space(_ROW_PT)
    page.space(8)
    notes = (
        "LME : longueur moyenne des énoncés, en mots. Mots gram. : part des mots grammaticaux "
        "(articles, prépositions, pronoms, auxiliaires…). Mots/min : débit hors pauses. "
        "Précision : 1 − taux d'erreur de mots de la répétition par rapport à la cible. "
        "Chaque valeur est la moyenne des essais de la séance."
    )
    page.text(notes, 8.5, colour="#444444")


def _charts(page: _Page, data: ReportData) -> None:
    page.new_page()
    page.text("Évolution", 14, bold=True)
    page.space(8)
    scene_w, scene_h = _CHART_SCENE
    chart_h = min(
        (page.height - page.y - 30) / len(CHART_METRICS) - 6, page.width * scene_h / scene_w
    )
    for i, metric in enumerate(CHART_METRICS):
        chart = build_chart(
            metric, data.series.get(metric.name, []), colour=SERIES_COLOURS[i], point_size=12
        )
        scene = QGraphicsScene()
        scene.addItem(chart)
        chart.setGeometry(QRectF(0, 0, scene_w, scene_h))
        target = page.rect(0, page.y, page.width, chart_h)
        scene.render(page.painter, target, QRectF(0, 0, scene_w, scene_h))
        scene.removeItem(chart)
        chart.deleteLater()
        page.space(chart_h + 6)


def write_report_pdf(data: ReportData, path: Path) -> int:
    """Write the report to ``path`` (replaced if it exists).

    Returns:
        The number of pages.

    Raises:
        OSError: the file cannot be written.
    """
    path = Path(path)
    # Written to a 0600 temporary file beside the target, then renamed: the
    # report is health data (QPdfWriter alone makes it 0644) and a crash
    # never leaves half a PDF.
    with atomic_path(path) as temporary:
        pages = _write(data, temporary)
    _LOGGER.info("wrote a %d-page report for patient %d to %s", pages, data.patient.id, path)
    return pages


def _write(data: ReportData, path: Path) -> int:
    writer = QPdfWriter(str(path))
    writer.setResolution(RESOLUTION)
    writer.setPageSize(QPageSize(QPageSize.PageSizeId.A4))
    writer.setPageMargins(
        QMarginsF(MARGIN_MM, MARGIN_MM, MARGIN_MM, MARGIN_MM), QPageLayout.Unit.Millimeter
    )
    writer.setTitle(f"{REPORT_TITLE} — {data.patient.display_name}")
    writer.setCreator("therapy_app")
    painter = QPainter()
    if not painter.begin(writer):
        raise OSError(f"cannot write the PDF report to {path}")
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    try:
        page = _Page(writer, painter, data)
        _heading(page, data)
        _session_table(page, data)
        _scripts_table(page, data)
        _charts(page, data)
        page.footer()
    finally:
        painter.end()
    return page.number
