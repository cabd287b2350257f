"""What a patient's progress report contains for a period, gathered without Qt."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime

from therapy_app.exports.labels import CHART_METRICS
from therapy_app.storage import Patient, ProgressPoint, SessionRepository, SessionSummary
from therapy_app.storage.script_progress import ScriptSessionStats, script_progress


@dataclass(frozen=True)
class ReportData:
    """A patient's sessions and progress series over a period.

    Attributes:
        patient: whose report.
        start: first day of the period (local date, inclusive).
        end: last day of the period (local date, inclusive).
        exercise_kind: the exercise the charts are restricted to, None for all.
        sessions: the period's sessions with at least one attempt, oldest first.
        series: ``CHART_METRICS`` name -> the period's session means, oldest first.
        generated_at: when the report was made (aware).
        scripts: the period's dialogue scripts, session by session (tries and
            successes of the patient's lines), oldest first.
    """

    patient: Patient
    start: date
    end: date
    exercise_kind: str | None
    sessions: list[SessionSummary]
    series: dict[str, list[ProgressPoint]]
    generated_at: datetime
    scripts: list[ScriptSessionStats] = field(default_factory=list)

    @property
    def attempt_count(self) -> int:
        """Attempts over all the period's sessions."""
        return sum(s.attempt_count for s in self.sessions)


def in_period(moment: datetime, start: date, end: date) -> bool:
    """Whether an aware time falls on a local day from ``start`` to ``end`` inclusive."""
    return start <= moment.astimezone().date() <= end


def build_report_data(
    repository: SessionRepository,
    patient_id: int,
    start: date,
    end: date,
    *,
    exercise_kind: str | None = None,
    clock: Callable[[], datetime] = lambda: datetime.now(UTC),
) -> ReportData:
    """Read everything the report shows for one patient and period.

    The session table lists every exercise kind; ``exercise_kind`` restricts
    the charts only, as in the therapist's progress screen.

    Raises:
        ValueError: ``end`` is before ``start``.
        KeyError: unknown patient.
    """
    if end < start:
        raise ValueError(f"period ends ({end}) before it starts ({start})")
    patient = repository.patients.get(patient_id)
    sessions = [
        s
        for s in reversed(repository.history.summaries(patient_id))
        if s.attempt_count and in_period(s.started_at, start, end)
    ]
    series = {
        metric.name: [
            p
            for p in repository.history.progress(patient_id, metric.name, exercise_kind)
            if in_period(p.started_at, start, end)
        ]
        for metric in CHART_METRICS
    }
    scripts = [
        s for s in script_progress(repository, patient_id) if in_period(s.started_at, start, end)
    ]
    return ReportData(patient, start, end, exercise_kind, sessions, series, clock(), scripts)
