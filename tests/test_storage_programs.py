"""Programs, custom lists and patient management in the database (real SQLite files)."""

from __future__ import annotations

import sqlite3

import pytest
from storage_fixtures import make_clip, make_record

from therapy_app.domain.programs import Program, ProgramStep
from therapy_app.storage import SessionRepository, schema


def test_migration_version_is_its_place_in_the_list(repo: SessionRepository) -> None:
    names = schema.MIGRATION_NAMES
    assert names.index("m006_programs") + 1 == 6  # after m005_naming from the other branch
    assert names.index("m007_custom_pictures") + 1 == 7
    assert schema.SCHEMA_VERSION >= 7
    assert repo.schema_version == schema.SCHEMA_VERSION


def test_program_round_trip_and_audit(repo: SessionRepository) -> None:
    patient = repo.patients.create("Jeanne")
    assert repo.programs.get(patient.id) is None
    program = Program(
        patient.id,
        (ProgramStep("repetition", 2), ProgramStep("completion", 1, "repas")),
        items_per_session=4,
        speech_rate_percent=80,
    )
    repo.programs.save(program, "claire")
    stored = repo.programs.get(patient.id)
    assert stored is not None
    assert stored.steps == program.steps
    assert (stored.items_per_session, stored.speech_rate_percent) == (4, 80)
    repo.programs.save(Program(patient.id, (ProgramStep("free_speech"),)), "claire")
    assert repo.programs.get(patient.id).steps == (ProgramStep("free_speech"),)  # type: ignore[union-attr]
    assert [c.action for c in repo.patients.changes(patient.id)] == ["program", "program"]


def test_program_limits(repo: SessionRepository) -> None:
    patient = repo.patients.create("Jeanne")
    with pytest.raises(ValueError):
        Program(patient.id, (ProgramStep("repetition"),), items_per_session=0)
    with pytest.raises(ValueError):
        Program(patient.id, (ProgramStep("repetition"),), speech_rate_percent=200)
    with pytest.raises(ValueError):
        repo.programs.save(Program(patient.id, (ProgramStep("dictée"),)), "claire")
    with pytest.raises(ValueError):
        repo.programs.save(Program(patient.id, ()), "claire")


def test_custom_items_never_duplicate(repo: SessionRepository) -> None:
    patient = repo.patients.create("Jeanne")
    other = repo.patients.create("Paul")
    first = repo.programs.add_custom_item(patient.id, "sentence", "  Ma fille  s'appelle Julie. ")
    assert first is not None and first.text == "Ma fille s'appelle Julie."
    assert (
        repo.programs.add_custom_item(patient.id, "sentence", "ma fille s'appelle julie.") is None
    )
    assert repo.programs.add_custom_item(other.id, "word", "Julie") is not None
    added, skipped = repo.programs.import_custom_items(
        patient.id,
        [
            ("word", "couscous", "repas", ""),
            ("sentence", "MA FILLE S'APPELLE JULIE.", "famille", "chien"),
        ],
        "claire",
    )
    assert (added, skipped) == (1, 1)
    texts = [(i.kind, i.text, i.category) for i in repo.programs.custom_items(patient.id)]
    assert texts == [("sentence", "Ma fille s'appelle Julie.", ""), ("word", "couscous", "repas")]
    # A word may show a picture of the naming set; a sentence never does.
    dog = repo.programs.add_custom_item(patient.id, "word", "Médor", "famille", picture="chien")
    assert dog is not None and dog.picture == "chien"
    pictures = [i.picture for i in repo.programs.custom_items(patient.id)]
    assert pictures == ["", "", "chien"]
    with pytest.raises(ValueError):
        repo.programs.add_custom_item(patient.id, "word", "   ")
    repo.programs.remove_custom_item(first.id)
    assert [i.text for i in repo.programs.custom_items(patient.id)] == ["couscous", "Médor"]


def test_rename_archive_restore(repo: SessionRepository) -> None:
    patient = repo.patients.create("Jeanne Dupont")
    renamed = repo.patients.rename(patient.id, "Jeanne Martin", "claire")
    assert (renamed.display_name, renamed.initials) == ("Jeanne Martin", "JM")
    archived = repo.patients.set_archived(patient.id, True, "claire")
    assert archived.archived
    assert repo.patients.all() == []
    assert [p.id for p in repo.patients.all(include_archived=True)] == [patient.id]
    assert not repo.patients.set_archived(patient.id, False, "claire").archived
    assert [p.id for p in repo.patients.all()] == [patient.id]
    changes = repo.patients.changes(patient.id)
    assert [(c.action, c.old_value, c.new_value, c.editor) for c in changes] == [
        ("rename", "Jeanne Dupont", "Jeanne Martin", "claire"),
        ("archive", None, None, "claire"),
        ("restore", None, None, "claire"),
    ]


def test_delete_removes_everything_of_the_patient_only(repo: SessionRepository) -> None:
    patient = repo.patients.create("Jeanne")
    other = repo.patients.create("Paul")
    kept_session = repo.sessions.start(other.id, "repetition")
    kept = repo.attempts.add(make_record(kept_session.id), make_clip(seed=1))
    session = repo.sessions.start(patient.id, "repetition")
    attempt = repo.attempts.add(make_record(session.id), make_clip())
    repo.attempts.edit_transcript(attempt, "transcript", "le chat dort bien", "claire")
    repo.attempts.override_verdict(attempt, True, "claire")
    repo.programs.save(Program(patient.id, (ProgramStep("repetition"),)), "claire")
    repo.programs.add_custom_item(patient.id, "word", "Julie")
    repo.patients.rename(patient.id, "Jeanne D.", "claire")
    recording = repo.attempts.recording_path(repo.attempts.get(attempt))
    assert recording is not None and recording.is_file()

    assert repo.patients.delete(patient.id, "claire") == 1

    with pytest.raises(KeyError):
        repo.patients.get(patient.id)
    assert not recording.exists()
    db = sqlite3.connect(repo.db_path)
    for table in ("sessions", "programs", "custom_items"):
        assert db.execute(
            f"SELECT COUNT(*) FROM {table} WHERE patient_id = ?", (patient.id,)
        ).fetchone() == (0,)
    assert db.execute("SELECT COUNT(*) FROM attempts").fetchone() == (1,)
    assert db.execute("SELECT COUNT(*) FROM transcript_edits").fetchone() == (0,)
    # The audit keeps that it happened, by whom, and no name.
    [change] = repo.patients.changes(patient.id)
    assert (change.action, change.editor, change.new_value) == ("delete", "claire", "1 séances")
    assert "Jeanne" not in repr(db.execute("SELECT * FROM patient_changes").fetchall())
    db.close()
    assert repo.attempts.verify_recording(repo.attempts.get(kept))


def test_deleting_a_patient_deletes_their_scripts_and_phrase_book_removals(
    repo: SessionRepository,
) -> None:
    gone = repo.patients.create("Jeanne").id
    stays = repo.patients.create("Paul").id
    db = sqlite3.connect(repo.db_path)
    for patient in (gone, stays):
        script = db.execute(
            "INSERT INTO scripts (patient_id, title, created_at, updated_at)"
            " VALUES (?, 'À la boulangerie', 'now', 'now')",
            (patient,),
        ).lastrowid
        db.execute(
            "INSERT INTO script_turns (script_id, position, speaker, text)"
            " VALUES (?, 0, 'patient', 'Une baguette, s''il vous plaît.')",
            (script,),
        )
        db.execute(
            "INSERT INTO phrase_removals (patient_id, text, removed_at)"
            " VALUES (?, 'Je voudrais un café.', 'now')",
            (patient,),
        )
    db.commit()
    repo.patients.delete(gone, "ortho")  # foreign keys: refused before scripts were deleted
    counts = {
        table: db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]  # noqa: S608
        for table in ("scripts", "script_turns", "phrase_removals")
    }
    assert counts == {"scripts": 1, "script_turns": 1, "phrase_removals": 1}
    assert db.execute("SELECT patient_id FROM scripts").fetchone()[0] == stays
    db.close()
