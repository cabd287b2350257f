"""Issue 24, item 1: start-up and restore never delete a finished recording."""

from __future__ import annotations

import shutil
import sqlite3
from dataclasses import replace
from pathlib import Path

from restore_fixtures import add_attempts_in_another_process, cli, recordings
from storage_fixtures import FakeClock, make_clip, make_record

from therapy_app.storage import SessionRepository, pending
from therapy_app.storage.backup import ASIDE_PREFIX, create_backup, restore_backup
from therapy_app.storage.recording_files import file_sha256
from therapy_app.storage.repository import DB_FILENAME


def _referenced(db: Path) -> dict[str, str]:
    conn = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True)
    try:
        return dict(
            conn.execute(
                "SELECT recording_path, recording_sha256 FROM attempts"
                " WHERE recording_path IS NOT NULL"
            ).fetchall()
        )
    finally:
        conn.close()


def _attempts_verified(data_dir: Path) -> list[bool]:
    with SessionRepository(data_dir) as repo:
        [patient] = repo.patients.all()
        return [repo.attempts.verify_recording(a) for a in repo.attempts.all(patient_id=patient.id)]


def test_a_start_without_the_database_deletes_no_recording(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    add_attempts_in_another_process(data_dir, 3)
    before = recordings(data_dir)
    assert len(before) == 3
    # The database moved away by hand (or lost): any command opens a new, empty one.
    (data_dir / DB_FILENAME).rename(tmp_path / "elsewhere.sqlite3")
    status = cli(data_dir, "backup", "--status")
    assert status.returncode == 0, status.stderr
    assert recordings(data_dir) == before
    with SessionRepository(data_dir) as repo:
        # Still reported for a maintenance view, never deleted.
        assert repo.maintenance.orphan_recordings() == sorted(before)
    assert recordings(data_dir) == before


def test_restore_keeps_every_recording_and_a_usable_earlier_state(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    usb = tmp_path / "cle-usb"
    usb.mkdir()
    add_attempts_in_another_process(data_dir, 2)
    done = cli(data_dir, "backup", str(usb))
    assert done.returncode == 0, done.stderr
    [archive] = usb.iterdir()
    add_attempts_in_another_process(data_dir, 2)
    before = recordings(data_dir)
    previous_db = _referenced(data_dir / DB_FILENAME)
    assert len(before) == 4 and set(previous_db) == set(before)

    restored = cli(data_dir, "restore", str(archive), "--yes")
    assert restored.returncode == 0, restored.stderr
    assert recordings(data_dir) == before
    # Start-up after the restore: still every recording, byte for byte.
    assert cli(data_dir, "backup", "--status").returncode == 0
    assert recordings(data_dir) == before
    [aside] = [p for p in data_dir.iterdir() if p.name.startswith(ASIDE_PREFIX)]
    assert aside.name in restored.stdout  # where the previous data is, exactly
    assert _attempts_verified(data_dir) == [True, True]

    # The database kept aside finds each of its recordings, unchanged.
    kept = _referenced(aside / DB_FILENAME)
    assert kept == previous_db
    for relative, digest in kept.items():
        found = aside / relative if (aside / relative).exists() else data_dir / relative
        assert file_sha256(found) == digest, relative

    # Going back as the aside folder's note says: its content over the data folder.
    assert (aside / "LISEZ-MOI.txt").is_file()
    for path in sorted(aside.rglob("*")):
        if path.is_file() and path.name != "LISEZ-MOI.txt":
            target = data_dir / path.relative_to(aside)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target)
    assert _attempts_verified(data_dir) == [True] * 4


def test_a_queued_attempt_is_backed_up_and_restored_with_its_recording(tmp_path: Path) -> None:
    clock = FakeClock()
    data_dir = tmp_path / "data"
    with SessionRepository(data_dir, clock=clock) as repo:
        patient = repo.patients.create("Jeanne Dupont")
        session = repo.sessions.start(patient.id, "repetition")
        # An attempt queued while another program held the database: a file, no row yet.
        saved = repo.attempts.save_recording(make_clip(seed=7), patient.id)
        record = replace(
            make_record(session.id, raw_transcript="en attente"),
            recording_path=saved.relative_path,
            recording_sha256=saved.sha256,
        )
        pending.queue_attempt(data_dir, pending.QueuedAttempt(pending.new_uuid(), record, clock()))
        info = create_backup(repo, tmp_path / "b.therapy-backup")
    assert info.file_count == 2 and info.missing == ()  # the journal and its recording
    restored = tmp_path / "restored"
    assert restore_backup(info.path, restored).aside is None  # nothing there to keep aside
    with SessionRepository(restored) as repo:  # opening replays the queue
        [attempt] = repo.attempts.all(session_id=session.id)
        assert attempt.record.raw_transcript == "en attente"
        assert repo.attempts.verify_recording(attempt)
