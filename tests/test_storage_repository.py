"""SessionRepository: patients, sessions, attempts, recordings, edits, history, export."""

from __future__ import annotations

import os
import sqlite3
import threading
import wave
from datetime import timedelta
from pathlib import Path

import pytest
from storage_fixtures import FakeClock, make_clip, make_record, make_utterance

from therapy_app import pause_tolerance
from therapy_app.domain.attempt_record import AttemptRecord
from therapy_app.storage import (
    EXPORT_COLUMNS,
    METRIC_NAMES,
    Attempt,
    SessionRepository,
    row_codec,
)
from therapy_app.storage.recording_files import file_sha256


def test_patients(repo: SessionRepository) -> None:
    zoe = repo.patients.create("  Zoé Martin ")
    andre = repo.patients.create("André", initials="AN", avatar_colour="#abcdef")
    assert zoe.display_name == "Zoé Martin" and zoe.initials == "ZM"
    assert zoe.avatar_colour.startswith("#") and len(zoe.avatar_colour) == 7
    assert (andre.initials, andre.avatar_colour) == ("AN", "#abcdef")
    assert [p.display_name for p in repo.patients.all()] == ["André", "Zoé Martin"]
    assert repo.patients.get(zoe.id) == zoe
    with pytest.raises(KeyError):
        repo.patients.get(999)
    with pytest.raises(ValueError):
        repo.patients.create("   ")


def test_pause_tolerance_is_stored_per_patient(repo: SessionRepository) -> None:
    jeanne, paul = repo.patients.create("Jeanne"), repo.patients.create("Paul")
    assert jeanne.pause_tolerance_ms == pause_tolerance.DEFAULT_MS >= 3000
    assert repo.patients.set_pause_tolerance(jeanne.id, 6000).pause_tolerance_ms == 6000
    assert repo.patients.get(jeanne.id).pause_tolerance_ms == 6000
    assert repo.patients.get(paul.id).pause_tolerance_ms == pause_tolerance.DEFAULT_MS
    assert [p.pause_tolerance_ms for p in repo.patients.all()] == [6000, 3500]
    with pytest.raises(ValueError):
        repo.patients.set_pause_tolerance(jeanne.id, 200)  # would cut every patient off
    with pytest.raises(KeyError):
        repo.patients.set_pause_tolerance(999, 4000)
    assert repo.patients.get(jeanne.id).pause_tolerance_ms == 6000


def test_sessions(repo: SessionRepository, clock: FakeClock) -> None:
    patient = repo.patients.create("Paul")
    exercise = repo.sessions.exercises("completion")[0]
    session = repo.sessions.start(patient.id, "completion", exercise_id=exercise.id)
    assert session.ended_at is None and session.started_at == clock.now
    clock.advance(minutes=10)
    ended = repo.sessions.end(session.id)
    assert ended.ended_at == clock.now
    clock.advance(minutes=10)
    assert repo.sessions.end(session.id).ended_at == ended.ended_at  # first end time kept
    assert repo.sessions.all(patient.id) == [ended]
    with pytest.raises(ValueError):
        repo.sessions.start(patient.id, "karaoke")


def test_attempt_round_trip_with_recording(repo: SessionRepository, clock: FakeClock) -> None:
    patient = repo.patients.create("Paul")
    session = repo.sessions.start(patient.id, "repetition")
    record = make_record(session.id, duration_s=None, raw_transcript="le chat dort")
    clip = make_clip(seconds=0.75)
    attempt_id = repo.attempts.add(record, clip)
    attempt = repo.attempts.get(attempt_id)

    stored = attempt.record
    assert stored.recording_path is not None
    folder, _, name = stored.recording_path.rpartition("/")
    assert folder == f"recordings/{patient.id}/2025-03"
    # uuid4 hex, the writer's process id (for the start-up clean-up), ".wav"; no names.
    assert name == f"{name[:32]}-{os.getpid()}.wav" and int(name[:32], 16) >= 0
    assert stored.duration_s == pytest.approx(0.75)
    for field in (
        "raw_transcript",
        "target_text",
        "token_logprobs",
        "avg_logprob",
        "correction_best",
        "correction_alternatives",
        "target_score",
        "target_logprob",
        "cue_level",
        "timings",
        "provider",
        "model_versions",
        "pause_ratio",
        "kind",
        "session_id",
    ):
        assert getattr(stored, field) == getattr(record, field), field
    assert attempt.created_at == clock.now

    path = repo.attempts.recording_path(attempt)
    assert path is not None and path.is_file()
    assert file_sha256(path) == stored.recording_sha256
    assert repo.attempts.verify_recording(attempt)
    with wave.open(str(path)) as wav:
        assert (wav.getnchannels(), wav.getsampwidth(), wav.getframerate()) == (1, 2, 16000)
        assert wav.getnframes() == len(clip.samples)
    assert not list(path.parent.glob("*.tmp"))

    # Metrics: 3 words, target repeated exactly -> derived success.
    assert attempt.metrics.word_count == 3
    assert attempt.metrics.accuracy == 1.0
    assert attempt.success is True and stored.success is None
    # The duration comes from the clip (0.75 s); half of it pause -> 0.375 s of speech.
    assert attempt.metrics.words_per_minute == pytest.approx(3 / 0.375 * 60)


def test_given_success_is_kept(repo: SessionRepository) -> None:
    patient = repo.patients.create("Paul")
    session = repo.sessions.start(patient.id, "repetition")
    attempt_id = repo.attempts.add(make_record(session.id, success=False))
    attempt = repo.attempts.get(attempt_id)
    assert attempt.success is False and attempt.record.success is False
    assert attempt.record.recording_path is None


def test_failed_insert_leaves_no_recording(
    repo: SessionRepository,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    patient = repo.patients.create("Paul")
    session = repo.sessions.start(patient.id, "repetition")

    def broken_columns(*args: object, **kwargs: object) -> dict[str, object]:
        return {"session_id": session.id, "no_such_column": 1}

    monkeypatch.setattr(row_codec, "attempt_columns", broken_columns)
    with pytest.raises(sqlite3.OperationalError):
        repo.attempts.add(make_record(session.id), make_clip())
    assert not [p for p in (repo.data_dir / "recordings").rglob("*") if p.is_file()]
    assert repo.maintenance.orphan_recordings() == []


def test_orphan_recordings(repo: SessionRepository) -> None:
    patient = repo.patients.create("Paul")
    session = repo.sessions.start(patient.id, "repetition")
    repo.attempts.add(make_record(session.id), make_clip())
    assert repo.maintenance.orphan_recordings() == []
    stray = repo.attempts.save_recording(make_clip(seed=3), patient.id)  # as if the row never came
    assert repo.maintenance.orphan_recordings() == [stray.relative_path]


def test_list_attempts_by_session_and_patient(repo: SessionRepository, clock: FakeClock) -> None:
    alice, bob = repo.patients.create("Alice"), repo.patients.create("Bob")
    s1 = repo.sessions.start(alice.id, "repetition")
    s2 = repo.sessions.start(alice.id, "free_speech")
    s3 = repo.sessions.start(bob.id, "repetition")
    ids = []
    for session in (s1, s2, s1, s3):
        clock.advance(seconds=1)
        ids.append(repo.attempts.add(make_record(session.id, kind=session.exercise_kind)))
    assert [a.id for a in repo.attempts.all(session_id=s1.id)] == [ids[0], ids[2]]
    assert [a.id for a in repo.attempts.all(patient_id=alice.id)] == ids[:3]
    with pytest.raises(ValueError):
        repo.attempts.all()


def test_edit_is_audited_original_kept_and_metrics_recomputed(
    repo: SessionRepository,
    clock: FakeClock,
) -> None:
    patient = repo.patients.create("Paul")
    session = repo.sessions.start(patient.id, "repetition")
    attempt_id = repo.attempts.add(
        make_record(session.id, raw_transcript="le chien dort", target_text="le chat dort")
    )
    before = repo.attempts.get(attempt_id)
    assert before.metrics.wer == pytest.approx(1 / 3) and before.success is False

    clock.advance(hours=1)
    after = repo.attempts.edit_transcript(attempt_id, "transcript", "le chat dort", "ortho1")
    assert after.record.raw_transcript == "le chien dort"  # ASR original kept
    assert after.transcript == "le chat dort"
    assert after.metrics.wer == 0.0 and after.success is True  # derived success follows

    clock.advance(hours=1)
    again = repo.attempts.edit_transcript(attempt_id, "transcript", "le chat dort bien", "ortho2")
    assert again.metrics.word_count == 4
    repo.attempts.edit_transcript(
        attempt_id, "transcript", "le chat dort bien", "ortho2"
    )  # no change

    edits = repo.attempts.transcript_edits(attempt_id)
    assert [(e.old_text, e.new_text, e.editor) for e in edits] == [
        ("le chien dort", "le chat dort", "ortho1"),
        ("le chat dort", "le chat dort bien", "ortho2"),
    ]
    assert edits[0].edited_at == before.created_at + timedelta(hours=1)
    assert all(e.field == "transcript" for e in edits)

    rep = repo.attempts.edit_transcript(attempt_id, "repetition_transcript", "le chat", "ortho1")
    assert rep.record.repetition_transcript is None
    assert rep.repetition_transcript == "le chat"
    assert rep.metrics.wer == pytest.approx(1 / 3)  # now the repetition is scored
    assert repo.attempts.transcript_edits(attempt_id)[-1].old_text is None
    with pytest.raises(ValueError):
        repo.attempts.edit_transcript(attempt_id, "target_text", "x", "ortho1")


def test_edit_recomputes_a_given_verdict(repo: SessionRepository) -> None:
    # Issue 10: the therapist's transcript is what was said; the verdict follows it.
    patient = repo.patients.create("Paul")
    session = repo.sessions.start(patient.id, "repetition")
    attempt_id = repo.attempts.add(make_record(session.id, success=True))
    edited = repo.attempts.edit_transcript(attempt_id, "transcript", "rien du tout", "ortho")
    assert edited.metrics.accuracy == 0.0 and edited.success is False
    assert edited.record.success is True  # the verdict given at the time is kept


def _fill_history(repository: SessionRepository, fake_clock: FakeClock) -> tuple[int, list[int]]:
    patient = repository.patients.create("Paul")
    other = repository.patients.create("Autre")
    sessions = []
    # Session 1 (repetition): exact + half right.
    s1 = repository.sessions.start(patient.id, "repetition")
    repository.attempts.add(make_record(s1.id, raw_transcript="le chat dort", pause_ratio=0.5))
    repository.attempts.add(
        make_record(s1.id, raw_transcript="le chien", target_text="le chat", pause_ratio=0.25)
    )
    sessions.append(s1.id)
    fake_clock.advance(days=1)
    # Session 2 (free speech): one attempt with no reference.
    s2 = repository.sessions.start(patient.id, "free_speech")
    repository.attempts.add(make_utterance(s2.id, raw_transcript="pain acheter", pause_ratio=None))
    sessions.append(s2.id)
    fake_clock.advance(days=1)
    # Session 3 (repetition): no attempt yet.
    sessions.append(repository.sessions.start(patient.id, "repetition").id)
    # Another patient's data must not leak in.
    s_other = repository.sessions.start(other.id, "repetition")
    repository.attempts.add(make_record(s_other.id))
    return patient.id, sessions


def test_session_history(repo: SessionRepository, clock: FakeClock) -> None:
    patient_id, (s1, s2, s3) = _fill_history(repo, clock)
    history = repo.history.summaries(patient_id)
    # Newest first; session 3 has no attempt: it is not history.
    assert [h.session_id for h in history] == [s2, s1]
    assert repo.sessions.get(s3).patient_id == patient_id  # still stored
    free, rep = history
    assert free.attempt_count == 1 and free.success_rate is None and free.mean_wer is None
    assert free.mean_word_count == 2.0 and free.mean_function_word_ratio == 0.0
    assert free.mean_verb_count == 1.0
    # Session 1 by hand: words 3 and 2 -> MLU 2.5; WER 0 and 1/2; success 1 of 2;
    # function words 1/3 ("le") and 1/2 ("le"); pause 0.5 and 0.25;
    # wpm 3 words / 1 s and 2 / 1.5 s -> 180 and 80.
    assert rep.attempt_count == 2 and rep.success_count == 1
    assert rep.success_rate == 0.5
    assert rep.mean_word_count == 2.5
    assert rep.mean_wer == pytest.approx(0.25)
    assert rep.mean_accuracy == pytest.approx(0.75)
    assert rep.mean_function_word_ratio == pytest.approx((1 / 3 + 1 / 2) / 2)
    assert rep.mean_pause_ratio == pytest.approx(0.375)
    assert rep.mean_words_per_minute == pytest.approx((180 + 80) / 2)
    assert rep.exercise_kind == "repetition"


def test_free_speech_utterance_is_not_scored_against_the_chosen_sentence(
    repo: SessionRepository,
) -> None:
    patient = repo.patients.create("Paul")
    session = repo.sessions.start(patient.id, "free_speech")

    def stored(record: AttemptRecord) -> Attempt:
        return repo.attempts.get(repo.attempts.add(record))

    utterance = stored(
        make_utterance(
            session.id,
            raw_transcript="femme manger pomme",
            chosen_sentence="La femme mange une pomme.",
        )
    )
    assert utterance.metrics.wer is None and utterance.success is None
    repetition = stored(
        make_record(
            session.id,
            target_text="La femme mange une pomme.",
            raw_transcript="la femme mange une pomme et une poire",
        )
    )
    summary = repo.history.summaries(patient.id)[0]
    # Language measures are the utterance's (3 words), the verdicts the repetition's.
    assert summary.mean_word_count == 3.0 and summary.attempt_count == 2
    assert summary.success_rate == float(repetition.success is True) == 0.0
    assert [p.value for p in repo.history.progress(patient.id, "word_count")] == [3.0]


def test_progress(repo: SessionRepository, clock: FakeClock) -> None:
    patient_id, (s1, s2, _s3) = _fill_history(repo, clock)
    words = repo.history.progress(patient_id, "word_count")
    assert [(p.session_id, p.value, p.attempt_count) for p in words] == [(s1, 2.5, 2), (s2, 2.0, 1)]
    assert words[0].started_at < words[1].started_at
    accuracy = repo.history.progress(patient_id, "accuracy", exercise_kind="repetition")
    assert [(p.session_id, p.value) for p in accuracy] == [(s1, pytest.approx(0.75))]
    assert repo.history.progress(patient_id, "accuracy", exercise_kind="free_speech") == []
    for metric in METRIC_NAMES:
        repo.history.progress(patient_id, metric)
    with pytest.raises(ValueError):
        repo.history.progress(patient_id, "1; DROP TABLE attempts")


def test_export_rows(repo: SessionRepository, clock: FakeClock) -> None:
    patient_id, _ = _fill_history(repo, clock)
    attempt_id = repo.attempts.all(patient_id=patient_id)[0].id
    repo.attempts.edit_transcript(attempt_id, "transcript", "le chat dort bien", "ortho")
    rows = repo.history.export_rows(patient_id)
    assert len(rows) == 3
    assert all(tuple(r) == EXPORT_COLUMNS for r in rows)
    first = rows[0]
    assert first["transcript"] == "le chat dort bien"
    assert first["raw_transcript"] == "le chat dort"
    # One inserted word in three: accuracy 2/3 < 0.8, so the derived success flips.
    assert first["transcript_edited"] is True and first["success"] is False
    assert first["patient_name"] == "Paul"
    assert len(repo.history.export_rows()) == 4


def test_repository_can_be_used_from_a_worker_thread(repo: SessionRepository) -> None:
    patient = repo.patients.create("Paul")
    session = repo.sessions.start(patient.id, "repetition")
    errors: list[BaseException] = []

    def work() -> None:
        try:
            for i in range(5):
                repo.attempts.add(make_record(session.id), make_clip(seed=i))
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(repo.attempts.all(session_id=session.id)) == 15


def test_data_dir_defaults_to_the_user_data_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("THERAPY_APP_DATA_DIR", str(tmp_path / "redirected"))
    with SessionRepository(clock=FakeClock()) as repository:
        assert repository.db_path == tmp_path / "redirected" / "therapy_app.sqlite3"
        assert repository.db_path.is_file()
