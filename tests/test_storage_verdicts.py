"""Issue 10: a transcript edit recomputes the verdict, which a therapist may override; audited."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from storage_fixtures import FakeClock, make_record

from therapy_app.storage import SessionRepository, database, schema
from therapy_app.verdict import WER_SUCCESS


def _attempt(repo: SessionRepository, kind: str = "repetition", **fields: object) -> int:
    patient = repo.patients.create("Jeanne")
    session = repo.sessions.start(patient.id, kind)
    return repo.attempts.add(make_record(session.id, kind=kind, **fields))


def test_edit_to_what_was_really_said_turns_a_miss_into_a_success(
    repo: SessionRepository, clock: FakeClock
) -> None:
    # The practice judged "mais finement j'ai une plume" a miss (by words and by sound).
    attempt_id = _attempt(
        repo,
        raw_transcript="mais finement j'ai une plume",
        target_text="Ma femme mange une pomme.",
        success=False,
    )
    assert repo.attempts.get(attempt_id).success is False
    clock.advance(minutes=5)
    edited = repo.attempts.edit_transcript(
        attempt_id, "transcript", "ma femme mange une pomme", "claire"
    )
    assert edited.metrics.wer == 0.0
    assert edited.success is True and edited.computed_success is True
    assert edited.record.success is False  # the verdict given at the time stays on record
    [change] = repo.attempts.verdict_changes(attempt_id)
    assert (change.cause, change.old_success, change.new_success) == (
        "transcript_edit",
        False,
        True,
    )
    assert change.editor == "claire" and change.changed_at == clock.now
    assert len(repo.attempts.transcript_edits(attempt_id)) == 1


def test_edit_that_shows_a_wrong_answer_turns_a_success_into_a_miss(
    repo: SessionRepository,
) -> None:
    attempt_id = _attempt(
        repo, raw_transcript="le chat dort", target_text="le chat dort", success=True
    )
    edited = repo.attempts.edit_transcript(attempt_id, "transcript", "le chien court", "claire")
    assert edited.metrics.wer is not None and edited.metrics.wer > WER_SUCCESS
    assert edited.success is False
    assert [c.new_success for c in repo.attempts.verdict_changes(attempt_id)] == [False]


def test_edit_that_keeps_the_verdict_is_audited_as_an_edit_only(repo: SessionRepository) -> None:
    attempt_id = _attempt(repo, raw_transcript="le chat dort", target_text="le chat dort")
    edited = repo.attempts.edit_transcript(attempt_id, "transcript", "le chat dort.", "claire")
    assert edited.success is True
    assert repo.attempts.verdict_changes(attempt_id) == []
    assert len(repo.attempts.transcript_edits(attempt_id)) == 1


def test_completion_answer_inside_a_longer_utterance_counts(repo: SessionRepository) -> None:
    attempt_id = _attempt(
        repo, kind="completion", raw_transcript="euh", target_text="pomme", success=False
    )
    edited = repo.attempts.edit_transcript(attempt_id, "transcript", "c'est une pomme", "claire")
    assert edited.success is True


def test_free_speech_without_reference_keeps_no_verdict(repo: SessionRepository) -> None:
    attempt_id = _attempt(
        repo, kind="free_speech", raw_transcript="moi aller", target_text=None, success=None
    )
    edited = repo.attempts.edit_transcript(
        attempt_id, "transcript", "moi aller boulangerie", "claire"
    )
    assert edited.success is None and edited.metrics.word_count == 3
    assert repo.attempts.verdict_changes(attempt_id) == []


def test_therapist_override_is_kept_beside_the_rule_and_audited(
    repo: SessionRepository, clock: FakeClock
) -> None:
    attempt_id = _attempt(
        repo, raw_transcript="le chat dort", target_text="le chat dort", success=True
    )
    clock.advance(minutes=1)
    overridden = repo.attempts.override_verdict(attempt_id, False, "claire", "a lu la phrase")
    assert overridden.success is False
    assert overridden.verdict_override is False and overridden.computed_success is True
    # The same decision again records nothing.
    repo.attempts.override_verdict(attempt_id, False, "claire")
    # An edit recomputes the rule's verdict, but the override stays in force.
    clock.advance(minutes=1)
    edited = repo.attempts.edit_transcript(attempt_id, "transcript", "le chien court", "claire")
    assert edited.computed_success is False and edited.success is False
    clock.advance(minutes=1)
    edited = repo.attempts.edit_transcript(attempt_id, "transcript", "le chat dort", "claire")
    assert edited.computed_success is True and edited.success is False
    # Removing the override gives the verdict back to the rule.
    clock.advance(minutes=1)
    released = repo.attempts.override_verdict(attempt_id, None, "marc")
    assert released.success is True and released.verdict_override is None
    changes = repo.attempts.verdict_changes(attempt_id)
    assert [(c.cause, c.old_success, c.new_success, c.editor) for c in changes] == [
        ("override", True, False, "claire"),
        ("override_removed", False, True, "marc"),
    ]
    assert changes[0].reason == "a lu la phrase"
    with pytest.raises(ValueError):
        repo.attempts.override_verdict(attempt_id, True, "  ")


def test_history_counts_the_verdict_in_force(repo: SessionRepository) -> None:
    attempt_id = _attempt(
        repo, raw_transcript="le chat dort", target_text="le chat dort", success=True
    )
    patient_id = repo.patients.all()[0].id
    assert repo.history.summaries(patient_id)[0].success_count == 1
    repo.attempts.override_verdict(attempt_id, False, "claire")
    assert repo.history.summaries(patient_id)[0].success_count == 0
    assert repo.history.progress(patient_id, "success_rate")[0].value == 0.0
    assert repo.history.export_rows(patient_id)[0]["success"] is False


def test_v3_verdicts_survive_the_migration(tmp_path: Path) -> None:
    path = tmp_path / "v3.sqlite3"
    db = database.connect(path)
    schema.migrate(db, stop_before=schema.MIGRATION_NAMES[3])
    db.close()
    conn = sqlite3.connect(path)
    with conn:
        conn.execute(
            "INSERT INTO patients (id, display_name, initials, avatar_colour, created_at)"
            " VALUES (1, 'Marie', 'M', '#123456', '2024-01-02T10:00:00.000000+00:00')"
        )
        conn.execute(
            "INSERT INTO sessions (id, patient_id, exercise_kind, started_at)"
            " VALUES (1, 1, 'repetition', '2024-01-02T10:01:00.000000+00:00')"
        )
        for attempt_id, success, derived in ((1, 1, 0), (2, 0, 1), (3, None, 0)):
            conn.execute(
                "INSERT INTO attempts (id, session_id, created_at, kind, raw_transcript,"
                " target_text, success, success_derived)"
                " VALUES (?, 1, '2024-01-02T10:02:00.000000+00:00', 'repetition', 'le chat',"
                " 'le chat', ?, ?)",
                (attempt_id, success, derived),
            )
    conn.close()
    with SessionRepository(tmp_path, db_path=path) as repository:
        given, derived, unknown = (repository.attempts.get(i) for i in (1, 2, 3))
        assert (given.success, given.computed_success, given.record.success) == (True, True, True)
        assert (derived.success, derived.computed_success, derived.record.success) == (
            False,
            False,
            None,
        )
        assert unknown.success is None and unknown.verdict_override is None
        assert repository.attempts.verdict_changes(1) == []


@pytest.mark.parametrize(
    ("kind", "target", "heard", "matched"),
    [
        ("naming", "chat", "c'est un chat", "un chat"),  # was stored with WER 2.0, accuracy 0 %
        ("naming", "chat", "une chat", None),  # the wrong determiner still names the cat
        ("completion", "café", "je voudrais un café", "café"),  # the answer within a sentence
        ("repetition", "le chapeau", "un chapeau", "un chapeau"),  # an accepted determiner form
    ],
)
def test_a_judged_try_is_stored_with_the_measures_of_the_rule_that_accepted_it(
    repo: SessionRepository, kind: str, target: str, heard: str, matched: str | None
) -> None:
    attempt_id = _attempt(
        repo, kind=kind, raw_transcript=heard, target_text=target, success=True,
        matched_text=matched, margin=1.3,
    )  # fmt: skip
    attempt = repo.attempts.get(attempt_id)
    assert attempt.success is True
    assert (attempt.metrics.wer, attempt.metrics.accuracy) == (0.0, 1.0)
    assert (attempt.record.matched_text, attempt.record.margin) == (matched, 1.3)


def test_a_wrong_answer_keeps_its_error_after_the_rule_measures_it(repo: SessionRepository) -> None:
    attempt_id = _attempt(
        repo, kind="naming", raw_transcript="un chameau", target_text="chapeau", success=False,
        matched_text="un chapeau",
    )  # fmt: skip
    attempt = repo.attempts.get(attempt_id)
    assert attempt.metrics.wer == 0.5  # "chameau" for "chapeau" in "un chapeau"
    assert attempt.metrics.wer > WER_SUCCESS and attempt.success is False
