"""Progress charts: one point per session with a value, per exercise filter, ratios in percent."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING

import pytest

pytest.importorskip("PySide6")

from therapist_fixtures import SIGNAL_TIMEOUT_MS  # noqa: E402

from therapy_app.exports.labels import CHART_METRICS  # noqa: E402
from therapy_app.gui.therapist.charts import build_chart, chart_point_count  # noqa: E402
from therapy_app.storage import ProgressPoint, SessionRepository  # noqa: E402

if TYPE_CHECKING:
    from therapist_fixtures import SeededHistory

    from therapy_app.gui.therapist import TherapistArea

pytestmark = pytest.mark.gui


def _counts(area: TherapistArea) -> dict[str, int]:
    return {name: chart_point_count(view) for name, view in area.progress.views.items()}


NAMING_CHARTS = ("naming_accuracy", "naming_cue_level")


def test_six_charts_with_one_point_per_session(
    unlocked_area: TherapistArea, therapist_repo: SessionRepository, seeded_history: SeededHistory
) -> None:
    assert [m.name for m in CHART_METRICS] == [
        "word_count", "function_word_ratio", "words_per_minute", "accuracy", *NAMING_CHARTS,
    ]  # fmt: skip
    expected = {
        m.name: len(therapist_repo.history.progress(seeded_history.patient.id, m.name))
        for m in CHART_METRICS
    }
    assert expected == {
        "word_count": 3, "function_word_ratio": 3, "words_per_minute": 3, "accuracy": 3,
        "naming_accuracy": 0, "naming_cue_level": 0,  # no naming in this history
    }  # fmt: skip
    assert _counts(unlocked_area) == expected
    view = unlocked_area.progress.views["accuracy"]
    series = view.chart().series()[0]
    values = [series.at(i).y() for i in range(series.count())]
    points = therapist_repo.history.progress(seeded_history.patient.id, "accuracy")
    assert values == pytest.approx([p.value * 100 for p in points])
    times = [series.at(i).x() for i in range(series.count())]
    assert times == sorted(times)
    assert view.chart().axes()[0].format() == "dd/MM"


@pytest.mark.parametrize(
    ("kind", "count"), [("repetition", 2), ("free_speech", 1), ("completion", 0), (None, 3)]
)
def test_exercise_filter(qtbot, unlocked_area: TherapistArea, kind: str | None, count: int) -> None:
    progress = unlocked_area.progress
    if kind is not None:
        with qtbot.waitSignal(progress.charts_updated, timeout=SIGNAL_TIMEOUT_MS):
            progress.set_exercise_kind(kind)
    assert progress.exercise_kind == kind
    counts = _counts(unlocked_area)
    assert {n for name, n in counts.items() if name not in NAMING_CHARTS} == {count}
    assert {counts[name] for name in NAMING_CHARTS} == {0}
    title = progress.views["word_count"].chart().title()
    assert title.endswith("aucune donnée") == (count == 0)


def test_naming_charts_show_pictures_named_and_the_help_needed(
    qtbot, unlocked_area: TherapistArea, therapist_repo: SessionRepository, seeded_history
) -> None:
    from storage_fixtures import make_record

    session = therapist_repo.sessions.start(seeded_history.patient.id, "naming")
    for word, level, success in (("chat", 2, True), ("pomme", 4, False), ("vélo", 0, True)):
        therapist_repo.attempts.add(
            make_record(session.id, kind="naming", target_text=word, cue_level=level,
                        success=success, raw_transcript=word)
        )  # fmt: skip
    therapist_repo.sessions.end(session.id)
    progress = unlocked_area.progress
    with qtbot.waitSignal(progress.charts_updated, timeout=SIGNAL_TIMEOUT_MS):
        progress.set_exercise_kind("naming")
    counts = _counts(unlocked_area)
    assert (counts["naming_accuracy"], counts["naming_cue_level"]) == (1, 1)
    # A picture's name is not connected speech: no length of utterance from it.
    assert counts["word_count"] == counts["words_per_minute"] == 0
    named = progress.views["naming_accuracy"].chart().series()[0]
    helped = progress.views["naming_cue_level"].chart().series()[0]
    assert named.at(0).y() == pytest.approx(200 / 3)  # 2 of 3 pictures, in percent
    assert helped.at(0).y() == pytest.approx(1.0)  # (2 + 0) / 2


def test_charts_follow_the_patient(
    qtbot, unlocked_area: TherapistArea, seeded_history: SeededHistory
) -> None:
    with qtbot.waitSignal(unlocked_area.progress.charts_updated, timeout=SIGNAL_TIMEOUT_MS):
        unlocked_area.select_patient(seeded_history.other.id)
    assert _counts(unlocked_area)["word_count"] == 1


def test_single_point_chart_has_a_usable_range(qtbot) -> None:
    point = ProgressPoint(1, datetime(2025, 3, 14, 9, 30, tzinfo=UTC), 3.5, 2)
    chart = build_chart(CHART_METRICS[0], [point])
    x_axis, y_axis = chart.axes()
    assert x_axis.min() < x_axis.max()
    assert y_axis.min() == 0.0 and y_axis.max() >= 3.5


def _tick_labels(axis) -> list[str]:  # noqa: ANN001
    count = axis.tickCount()
    low, high = axis.min().toMSecsSinceEpoch(), axis.max().toMSecsSinceEpoch()
    from PySide6.QtCore import QDateTime

    return [
        QDateTime.fromMSecsSinceEpoch(low + i * (high - low) // (count - 1)).toString("dd/MM")
        for i in range(count)
    ]


@pytest.mark.parametrize(
    "days",
    [[0], [0, 0], [0, 1], [0, 2], [0, 1, 3], [0, 5], [0, 9], [0, 20, 41], [0, 100]],
    ids=lambda d: "-".join(map(str, d)),
)
def test_date_axis_never_repeats_a_date(qtbot, days: list[int]) -> None:
    from datetime import timedelta

    start = datetime(2025, 3, 20, 9, 30, tzinfo=UTC)  # spans the end of March DST change
    points = [
        ProgressPoint(i + 1, start + timedelta(days=d, hours=i), 3.0, 1) for i, d in enumerate(days)
    ]
    chart = build_chart(CHART_METRICS[0], points)
    x_axis = chart.axes()[0]
    labels = _tick_labels(x_axis)
    assert len(labels) == len(set(labels)), labels
    assert 3 <= len(labels) <= 7
    low, high = x_axis.min().toMSecsSinceEpoch(), x_axis.max().toMSecsSinceEpoch()
    assert all(low < p.started_at.timestamp() * 1000 < high for p in points)
