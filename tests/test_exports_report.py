"""Report data: the period filters sessions and chart points by local day, inclusive."""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING

import pytest

from therapy_app.exports import build_report_data
from therapy_app.storage import SessionRepository

if TYPE_CHECKING:
    from therapist_fixtures import SeededHistory


def test_period_is_inclusive_and_filters_everything(
    therapist_repo: SessionRepository, seeded_history: SeededHistory
) -> None:
    sessions = therapist_repo.sessions.all(seeded_history.patient.id)
    first_day = sessions[0].started_at.astimezone().date()
    last_day = sessions[-1].started_at.astimezone().date()
    full = build_report_data(therapist_repo, seeded_history.patient.id, first_day, last_day)
    assert [s.session_id for s in full.sessions] == seeded_history.session_ids  # oldest first
    assert full.attempt_count == len(seeded_history.attempt_ids)
    lengths = {name: len(points) for name, points in full.series.items()}
    # Three sessions, none of them naming: the naming charts are empty.
    assert lengths.pop("naming_accuracy") == lengths.pop("naming_cue_level") == 0
    assert set(lengths.values()) == {3}
    assert full.patient.display_name == "Jeanne Dupont"

    later = build_report_data(
        therapist_repo, seeded_history.patient.id, first_day + timedelta(days=1), last_day
    )
    assert [s.session_id for s in later.sessions] == seeded_history.session_ids[1:]
    assert len(later.series["word_count"]) == 2

    repetition = build_report_data(
        therapist_repo, seeded_history.patient.id, first_day, last_day, exercise_kind="repetition"
    )
    assert len(repetition.sessions) == 3  # the table keeps every exercise
    assert len(repetition.series["accuracy"]) == 2


def test_period_must_not_end_before_it_starts(
    therapist_repo: SessionRepository, seeded_history: SeededHistory
) -> None:
    day = seeded_history.patient.created_at.date()
    with pytest.raises(ValueError):
        build_report_data(therapist_repo, seeded_history.patient.id, day, day - timedelta(days=1))
