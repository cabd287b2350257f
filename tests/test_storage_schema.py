"""Schema migrations, version refusal, connection settings and environment errors."""

from __future__ import annotations

import errno
import sqlite3
from pathlib import Path

import pytest
from storage_fixtures import FakeClock, make_clip, make_record

from therapy_app import pause_tolerance
from therapy_app.errors import TherapyAppError
from therapy_app.storage import (
    SCHEMA_VERSION,
    DatabaseCorruptError,
    DatabaseVersionError,
    SessionRepository,
    StorageUnavailableError,
    database,
    recording_files,
    schema,
)
from therapy_app.storage.repository import DB_FILENAME


def _build_old_database(path: Path, version: int) -> None:
    """A database at schema ``version``, made with the real migrations up to it."""
    db = database.connect(path)
    stop = schema.MIGRATION_NAMES[version] if version < SCHEMA_VERSION else None
    if version > 0:
        assert schema.migrate(db, stop_before=stop) == version
    db.close()


def _insert_v1_rows(path: Path) -> None:
    """Rows written the way v1 code wrote them (v1 columns only)."""
    conn = sqlite3.connect(path)
    with conn:
        conn.execute(
            "INSERT INTO patients VALUES (1, 'Marie Curie', 'MC', '#123456',"
            " '2024-01-02T10:00:00.000000+00:00')"
        )
        conn.execute(
            "INSERT INTO sessions (id, patient_id, exercise_kind, started_at, ended_at)"
            " VALUES (7, 1, 'free_speech', '2024-01-02T10:01:00.000000+00:00', NULL)"
        )
        conn.execute(
            "INSERT INTO attempts (id, session_id, created_at, kind, raw_transcript,"
            " chosen_sentence, repetition_transcript, wer, accuracy, success,"
            " success_derived, word_count, function_word_ratio, verb_count,"
            " correction_alternatives, model_versions, timings)"
            " VALUES (42, 7, '2024-01-02T10:02:00.000000+00:00', 'free_speech',"
            " 'le chat', 'le chat dort', 'le chat dort', 0.0, 1.0, 1, 1, 2, 0.5, 0,"
            ' \'[{"text":"le chat dort","score":-1.0}]\', \'{"whisper-base":"1"}\','
            ' \'{"asr_s":0.5,"correct_s":null,"tts_s":null}\')'
        )
    conn.close()


def test_new_file_is_migrated_to_latest(tmp_path: Path) -> None:
    with SessionRepository(tmp_path) as repository:
        assert repository.schema_version == SCHEMA_VERSION
        db = sqlite3.connect(repository.db_path)
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        assert {
            "patients",
            "therapists",
            "exercises",
            "sessions",
            "attempts",
            "transcript_edits",
            "_sqlite_migrations",
        } <= tables
        db.close()
        assert [e.kind for e in repository.sessions.exercises()] == [
            "free_speech",
            "repetition",
            "completion",
            "naming",
            "script",
        ]


def test_at_least_two_schema_versions_exist() -> None:
    assert SCHEMA_VERSION >= 2
    assert len(schema.MIGRATION_NAMES) == SCHEMA_VERSION


@pytest.mark.parametrize("version", range(SCHEMA_VERSION + 1))
def test_migrates_from_every_earlier_version(tmp_path: Path, version: int) -> None:
    path = tmp_path / "old.sqlite3"
    _build_old_database(path, version)
    check = sqlite3.connect(path)
    assert check.execute("PRAGMA user_version").fetchone()[0] == version
    check.close()
    with SessionRepository(tmp_path, db_path=path) as repository:
        assert repository.schema_version == SCHEMA_VERSION
        assert repository.maintenance.integrity_check() == ["ok"]
        # The migrated schema is fully usable.
        patient = repository.patients.create("Nouveau Patient")
        session = repository.sessions.start(patient.id, "repetition")
        attempt_id = repository.attempts.add(make_record(session.id), make_clip())
        assert repository.attempts.get(attempt_id).metrics.accuracy == 1.0


def test_v1_data_survives_migration_to_latest(tmp_path: Path) -> None:
    path = tmp_path / "v1.sqlite3"
    _build_old_database(path, 1)
    _insert_v1_rows(path)
    with SessionRepository(tmp_path, db_path=path, clock=FakeClock()) as repository:
        assert repository.schema_version == SCHEMA_VERSION
        assert repository.patients.get(1).display_name == "Marie Curie"
        attempt = repository.attempts.get(42)
        assert attempt.transcript == "le chat"
        assert attempt.record.chosen_sentence == "le chat dort"
        assert attempt.edited_transcript is None
        assert attempt.success is True
        assert attempt.record.correction_alternatives[0].text == "le chat dort"
        assert attempt.record.timings is not None and attempt.record.timings.asr_s == 0.5
        assert [s.attempt_count for s in repository.history.summaries(1)] == [1]
        # v3: an existing patient gets the generous default pause tolerance.
        assert repository.patients.get(1).pause_tolerance_ms == pause_tolerance.DEFAULT_MS
        # v2 features work on v1 rows.
        edited = repository.attempts.edit_transcript(42, "transcript", "le chat noir", "ortho")
        assert edited.record.raw_transcript == "le chat"
        assert len(repository.attempts.transcript_edits(42)) == 1


def test_newer_database_is_refused_in_french_and_left_untouched(tmp_path: Path) -> None:
    path = tmp_path / "future.sqlite3"
    SessionRepository(tmp_path, db_path=path).close()
    conn = sqlite3.connect(path)
    # A rollback-journal file shows whether opening it rewrote even its header.
    assert conn.execute("PRAGMA journal_mode = DELETE").fetchone()[0] == "delete"
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    before = path.read_bytes()
    with pytest.raises(DatabaseVersionError) as caught:
        SessionRepository(tmp_path, db_path=path)
    error = caught.value
    assert isinstance(error, TherapyAppError)
    assert "version plus récente" in error.user_message
    assert "dernière version" in error.hint
    assert error.found == SCHEMA_VERSION + 1
    assert path.read_bytes() == before


def test_unknown_migration_in_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "future.sqlite3"
    SessionRepository(tmp_path, db_path=path).close()
    conn = sqlite3.connect(path)
    with conn:
        conn.execute(
            "INSERT INTO _sqlite_migrations (migration_set, name, applied_at)"
            " VALUES ('therapy_app', 'm999_from_the_future', 'x')"
        )
    conn.close()
    with pytest.raises(DatabaseVersionError):
        SessionRepository(tmp_path, db_path=path)


def test_every_connection_has_wal_foreign_keys_and_busy_timeout(tmp_path: Path) -> None:
    for _ in range(2):
        with SessionRepository(tmp_path) as repository:
            db = repository._db  # noqa: SLF001 - the connection settings are the point
            assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
            assert db.execute("PRAGMA foreign_keys").fetchone()[0] == 1
            assert db.execute("PRAGMA busy_timeout").fetchone()[0] == database.BUSY_TIMEOUT_MS
            assert db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    # WAL is a property of the file: a plain connection sees it too.
    plain = sqlite3.connect(tmp_path / "therapy_app.sqlite3")
    assert plain.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert plain.execute("PRAGMA foreign_keys").fetchone()[0] == 0  # hence per connection
    plain.close()


def test_foreign_keys_are_enforced(repo: SessionRepository) -> None:
    with pytest.raises(sqlite3.IntegrityError):
        repo.sessions.start(999, "repetition")
    db = database.connect(repo.db_path)
    with pytest.raises(sqlite3.IntegrityError):
        with database.transaction(db):
            db.execute(
                "INSERT INTO attempts (session_id, created_at, kind)"
                " VALUES (12345, 'x', 'repetition')"
            )
    db.close()


def test_transaction_rolls_back_on_error(repo: SessionRepository) -> None:
    with pytest.raises(RuntimeError):
        with repo.transaction():
            repo.patients.create("Annulé")
            raise RuntimeError("boom")
    assert repo.patients.all() == []


def test_locked_database_is_an_environment_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(database, "BUSY_TIMEOUT_MS", 100)
    with SessionRepository(tmp_path) as repository:
        other = sqlite3.connect(repository.db_path, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")
        try:
            with pytest.raises(StorageUnavailableError) as caught:
                repository.patients.create("Bloqué")
            assert "occupée" in caught.value.user_message
        finally:
            other.execute("ROLLBACK")
            other.close()
        assert repository.patients.create("Débloqué").display_name == "Débloqué"


def test_not_a_database_is_reported_as_corrupt(tmp_path: Path) -> None:
    path = tmp_path / "garbage.sqlite3"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(DatabaseCorruptError) as caught:
        SessionRepository(tmp_path, db_path=path)
    assert "endommagée" in caught.value.user_message


def test_disk_full_while_writing_a_recording_is_an_environment_error(
    repo: SessionRepository,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def full_disk(path: Path, clip: object) -> Path:
        from therapy_app.errors import AudioInputError

        try:
            raise OSError(errno.ENOSPC, "No space left on device")
        except OSError as exc:
            raise AudioInputError("Impossible d'enregistrer.", "", str(exc)) from exc

    monkeypatch.setattr(recording_files, "write_wav", full_disk)
    patient = repo.patients.create("Disque Plein")
    session = repo.sessions.start(patient.id, "repetition")
    with pytest.raises(StorageUnavailableError) as caught:
        repo.attempts.add(make_record(session.id), make_clip())
    assert "disque est plein" in caught.value.user_message
    assert repo.attempts.all(session_id=session.id) == []


def test_bugs_are_not_disguised_as_environment_errors(repo: SessionRepository) -> None:
    with pytest.raises(sqlite3.OperationalError):
        with repo.transaction():
            repo._db.execute("SELECT no_such_column FROM patients")  # noqa: SLF001


def test_m005_naming_widens_the_kinds_and_keeps_v4_rows(tmp_path: Path) -> None:
    """A v4 database with attempts, edits and audits takes naming sessions after m005_naming."""
    path = tmp_path / "data" / DB_FILENAME
    path.parent.mkdir(parents=True)
    _build_old_database(path, 4)
    conn = sqlite3.connect(path)
    with conn:
        conn.execute(
            "INSERT INTO patients (id, display_name, initials, avatar_colour, created_at)"
            " VALUES (1, 'Marie Curie', 'MC', '#123456', '2024-01-02T10:00:00.000000+00:00')"
        )
        conn.execute(
            "INSERT INTO sessions (id, patient_id, exercise_kind, started_at)"
            " VALUES (7, 1, 'repetition', '2024-01-02T10:01:00.000000+00:00')"
        )
        conn.execute(
            "INSERT INTO attempts (id, session_id, created_at, kind, raw_transcript)"
            " VALUES (42, 7, '2024-01-02T10:02:00.000000+00:00', 'repetition', 'le chat')"
        )
        conn.execute(
            "INSERT INTO transcript_edits (attempt_id, field, old_text, new_text, editor,"
            " edited_at) VALUES (42, 'transcript', 'le chat', 'le chat dort', 'ortho',"
            " '2024-01-03T10:00:00.000000+00:00')"
        )
        with pytest.raises(sqlite3.IntegrityError):
            conn.execute(
                "INSERT INTO sessions (patient_id, exercise_kind, started_at)"
                " VALUES (1, 'naming', '2024-01-04T10:00:00.000000+00:00')"
            )
    conn.close()
    with SessionRepository(path.parent) as repository:
        assert repository.schema_version == SCHEMA_VERSION
        session = repository.sessions.start(1, "naming")
        attempt_id = repository.attempts.add(
            make_record(session.id, kind="naming", target_text="chat", cue_level=2)
        )
        stored = repository.attempts.get(attempt_id)
        assert stored.record.kind == "naming" and stored.record.cue_level == 2
        assert [a.id for a in repository.attempts.all(session_id=7)] == [42]
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA foreign_keys = ON")
    assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
    with pytest.raises(sqlite3.IntegrityError):  # the constraint still holds
        conn.execute(
            "INSERT INTO sessions (patient_id, exercise_kind, started_at)"
            " VALUES (1, 'dictation', '2024-01-04T10:00:00.000000+00:00')"
        )
    with pytest.raises(sqlite3.IntegrityError):  # and so do the foreign keys
        conn.execute(
            "INSERT INTO attempts (session_id, created_at, kind) VALUES (999,"
            " '2024-01-04T10:00:00.000000+00:00', 'naming')"
        )
    assert ("naming",) in conn.execute("SELECT kind FROM exercises").fetchall()
    conn.close()
