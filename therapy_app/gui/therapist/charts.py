"""Progress charts (Qt Charts): MLU, function words, speech rate, accuracy; the scripts' table."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import UTC, datetime

from PySide6.QtCharts import (
    QChart,
    QChartView,
    QDateTimeAxis,
    QLineSeries,
    QValueAxis,
    QXYSeries,
)
from PySide6.QtCore import QDateTime, QLocale, QMargins, Qt, QTime, Signal
from PySide6.QtGui import QColor, QFont, QPainter, QPen
from PySide6.QtWidgets import QComboBox, QGridLayout, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from therapy_app.exports.labels import CHART_METRICS, EXERCISE_LABELS, ChartMetric
from therapy_app.gui.repository_widget import RepositoryWidget
from therapy_app.gui.therapist.context import TherapistContext
from therapy_app.gui.therapist.failures import error_text
from therapy_app.gui.therapist.script_progress_table import ScriptProgressTable
from therapy_app.gui.therapist.style import SERIES_COLOURS
from therapy_app.storage import ProgressPoint, SessionRepository
from therapy_app.storage.script_progress import ScriptSessionStats, script_progress

_LOGGER = logging.getLogger(__name__)

ALL_EXERCISES = "Tous les exercices"
SCRIPTS_GROUP = "therapist-progress-scripts"
"""The runner group of the scripts' table (the area cancels it when it locks)."""


def _msecs(point: ProgressPoint) -> float:
    return point.started_at.timestamp() * 1000.0


def _nice_ceiling(value: float) -> float:
    """Smallest 1-2-5 step value >= ``value`` (an axis that ends on a round number)."""
    if value <= 0:
        return 1.0
    step = 10.0 ** len(str(int(value)))
    for candidate in (step / 10, step / 5, step / 2, step):
        if candidate >= value:
            return candidate
    return step


MAX_DAY_TICKS = 5  # three charts side by side on a laptop: dates stay readable


def day_ticks(first: datetime, last: datetime) -> tuple[QDateTime, QDateTime, int]:
    """An axis range and tick count whose ticks fall on distinct days, at noon.

    Six evenly spaced ticks over a few days used to fall several times on
    the same date ("14/03 14/03 15/03…"). Here the range starts at
    noon the day before the first session and spans a whole number of days
    per tick interval; noon keeps each tick on its day across a DST change.

    Returns:
        The range's start and end (local time) and the number of ticks.
    """
    first_day = QDateTime.fromMSecsSinceEpoch(int(first.timestamp() * 1000)).date()
    last_day = QDateTime.fromMSecsSinceEpoch(int(last.timestamp() * 1000)).date()
    start_day = first_day.addDays(-1)
    days = start_day.daysTo(last_day) + 1  # a day of margin after the last session
    step = max(1, -(-days // (MAX_DAY_TICKS - 1)))  # ceiling: days per interval
    intervals = -(-days // step)
    noon = QTime(12, 0)
    start = QDateTime(start_day, noon)
    end = QDateTime(start_day.addDays(step * intervals), noon)
    return start, end, intervals + 1


def build_chart(
    metric: ChartMetric,
    points: Sequence[ProgressPoint],
    *,
    colour: str = SERIES_COLOURS[0],
    point_size: int = 11,
) -> QChart:
    """A line chart of one metric's session means over time.

    Used on screen and, rendered through a ``QGraphicsScene``, in the PDF report.

    Args:
        metric: what is drawn (title, unit, whether it is a ratio).
        points: session means, oldest first.
        colour: line colour.
        point_size: base font size of titles and labels.
    """
    chart = QChart()
    chart.setAnimationOptions(QChart.AnimationOption.NoAnimation)
    chart.setLocale(QLocale(QLocale.Language.French, QLocale.Country.France))
    chart.setLocalizeNumbers(True)
    chart.legend().hide()
    chart.setMargins(QMargins(4, 4, 4, 4))
    title_font = QFont()
    title_font.setPointSize(point_size + 1)
    title_font.setBold(True)
    chart.setTitleFont(title_font)
    # On a line of its own: appended, it cut the title short with "...".
    suffix = "" if points else "<br>aucune donnée"
    chart.setTitle(metric.title + suffix)

    series = QLineSeries()
    series.setName(metric.title)
    pen = QPen(QColor(colour))
    pen.setWidthF(2.5)
    series.setPen(pen)
    series.setPointsVisible(True)
    scale = 100.0 if metric.percent else 1.0
    for point in points:
        series.append(_msecs(point), point.value * scale)
    chart.addSeries(series)

    label_font = QFont()
    label_font.setPointSize(point_size - 1)
    x_axis = QDateTimeAxis()
    x_axis.setFormat("dd/MM")
    x_axis.setLabelsFont(label_font)
    if points:
        first, last = points[0].started_at, points[-1].started_at
    else:
        first = last = datetime.now(UTC)
    start, end, ticks = day_ticks(first, last)
    x_axis.setRange(start, end)
    x_axis.setTickCount(ticks)
    y_axis = QValueAxis()
    y_axis.setLabelsFont(label_font)
    y_axis.setTitleText(metric.axis)
    y_axis.setTitleFont(label_font)
    if metric.percent:
        y_axis.setRange(0.0, 100.0)
        # Localized labels accept floating formats only ("%d" draws nothing).
        y_axis.setLabelFormat("%.0f")
    else:
        top = _nice_ceiling(max((p.value for p in points), default=1.0) * 1.1)
        y_axis.setRange(0.0, top)
        # Six ticks over 0..top: whole numbers from top = 5 up.
        y_axis.setLabelFormat("%.0f" if top >= 5 else "%.1f")
    y_axis.setTickCount(6)
    chart.addAxis(x_axis, Qt.AlignmentFlag.AlignBottom)
    chart.addAxis(y_axis, Qt.AlignmentFlag.AlignLeft)
    series.attachAxis(x_axis)
    series.attachAxis(y_axis)
    return chart


def chart_point_count(view: QChartView) -> int:
    """Points drawn in a chart view (its first series)."""
    series = view.chart().series()
    return series[0].count() if series and isinstance(series[0], QXYSeries) else 0


def load_series(
    repository: SessionRepository, patient_id: int, exercise_kind: str | None
) -> dict[str, list[ProgressPoint]]:
    """Every chart's points for a patient (database worker)."""
    return {
        metric.name: repository.history.progress(patient_id, metric.name, exercise_kind)
        for metric in CHART_METRICS
    }


class ProgressPanel(RepositoryWidget):
    """The progress charts with an exercise filter, and the dialogue scripts' table under them.

    Signals:
        charts_updated(int): the charts now show the patient id's data.
        scripts_updated(int): the scripts' table now shows the patient id's.
        failed(str): French message of a failed query.
    """

    charts_updated = Signal(int)
    scripts_updated = Signal(int)
    failed = Signal(str)

    def __init__(self, context: TherapistContext, parent: QWidget | None = None) -> None:
        super().__init__(context.repository, context.runner, parent)
        self._patient_id: int | None = None
        self.series: dict[str, list[ProgressPoint]] = {}

        self.exercise = QComboBox()
        self.exercise.addItem(ALL_EXERCISES, None)
        for kind, label in EXERCISE_LABELS.items():
            self.exercise.addItem(label, kind)
        self.exercise.setAccessibleName("Exercice")
        self.views: dict[str, QChartView] = {}
        grid = QGridLayout()
        grid.setSpacing(8)
        for i, metric in enumerate(CHART_METRICS):
            view = QChartView(build_chart(metric, [], colour=SERIES_COLOURS[i]))
            view.setRenderHint(QPainter.RenderHint.Antialiasing)
            view.setMinimumSize(280, 180)
            self.views[metric.name] = view
            # Three per row: six charts in two rows fit a laptop's height.
            grid.addWidget(view, i // 3, i % 3)
        note = QLabel("Une valeur par séance : la moyenne de ses essais.")
        note.setProperty("role", "muted")
        # Wrapping keeps the panel inside 1280 px under the patient theme's larger type.
        note.setWordWrap(True)
        top = QHBoxLayout()
        top.addWidget(QLabel("Exercice :"))
        top.addWidget(self.exercise)
        top.addStretch(1)
        top.addWidget(note)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addLayout(grid, 1)
        # Per script: tries and success rate over the sessions.
        self.scripts = ScriptProgressTable()
        layout.addWidget(self.scripts)
        self.exercise.currentIndexChanged.connect(lambda _i: self.reload())

    @property
    def exercise_kind(self) -> str | None:
        """The selected exercise kind, None for all."""
        kind = self.exercise.currentData()
        return kind if isinstance(kind, str) else None

    def set_exercise_kind(self, kind: str | None) -> None:
        """Select an exercise in the filter (reloads the charts)."""
        self.exercise.setCurrentIndex(max(0, self.exercise.findData(kind)))

    def load_patient(self, patient_id: int) -> None:
        """Draw the charts of ``patient_id``, and fill the scripts' table."""
        self._patient_id = patient_id
        self.reload()

    def clear(self) -> None:
        """Forget the patient (the area locks)."""
        self._patient_id = None
        self._runner.cancel_stale("therapist-progress")
        self._runner.cancel_stale(SCRIPTS_GROUP)
        self._show({})
        self.scripts.show_stats([])

    def reload_scripts(self) -> None:
        """Re-read the scripts' progress of the current patient (whatever the filter)."""
        if self._patient_id is None:
            return
        patient_id = self._patient_id
        self._runner.submit(
            script_progress,
            self._repository,
            patient_id,
            on_done=lambda stats: self._on_scripts(patient_id, stats),
            on_error=self._on_error,
            pool="db",
            group=SCRIPTS_GROUP,
        )

    def _on_scripts(self, patient_id: int, stats: list[ScriptSessionStats]) -> None:
        if patient_id != self._patient_id:
            return
        self.scripts.show_stats(stats)
        self.scripts_updated.emit(patient_id)

    def reload(self) -> None:
        """Re-read the series for the current patient and filter, and the scripts' table."""
        if self._patient_id is None:
            return
        self.reload_scripts()
        patient_id, kind = self._patient_id, self.exercise_kind
        self._runner.submit(
            load_series,
            self._repository,
            patient_id,
            kind,
            on_done=lambda series: self._on_series(patient_id, kind, series),
            on_error=self._on_error,
            pool="db",
            group="therapist-progress",
        )

    def _on_series(
        self, patient_id: int, kind: str | None, series: dict[str, list[ProgressPoint]]
    ) -> None:
        if patient_id != self._patient_id or kind != self.exercise_kind:
            return
        self._show(series)
        self.charts_updated.emit(patient_id)

    def _show(self, series: dict[str, list[ProgressPoint]]) -> None:
        self.series = series
        for i, metric in enumerate(CHART_METRICS):
            view = self.views[metric.name]
            old = view.chart()
            view.setChart(
                build_chart(metric, series.get(metric.name, []), colour=SERIES_COLOURS[i])
            )
            # setChart does not take ownership of the old chart away from us.
            old.deleteLater()

    def _on_error(self, exc: BaseException) -> None:
        self.failed.emit(error_text(exc, "Lecture des progrès impossible.", "progress query"))
