"""Where a repetition exercise resumes, read from the stored attempts (no Qt, no model)."""

from __future__ import annotations

from pathlib import Path

from storage_fixtures import FakeClock, make_record

from therapy_app.exercises import default_content
from therapy_app.practice.resume import ResumePoint, repetition_resume_point
from therapy_app.storage import SessionRepository


def test_a_missed_sentence_stored_without_cue_level_is_presented_again(tmp_path: Path) -> None:
    # cue_level is optional in storage (NULL in the row); mypy found the
    # comparison with the cue maximum that raised TypeError on it (issue 10).
    content = default_content()
    first_list = content.levels[0]
    target = first_list.sentences[1]
    with SessionRepository(tmp_path, clock=FakeClock()) as repo:
        patient = repo.patients.create("Jeanne")
        session = repo.sessions.start(patient.id, "repetition")
        repo.attempts.add(
            make_record(session.id, target_text=target, success=False, cue_level=None)
        )
        point = repetition_resume_point(repo, patient.id, content)
    assert point == ResumePoint(first_list.level, 1)
