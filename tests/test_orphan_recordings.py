"""Recordings without an attempt: described from their path, listed by ``recordings --orphans``."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

from cli_fixtures import assert_one_french_error, run_cli
from restore_fixtures import fill, recordings
from storage_fixtures import T0, FakeClock, make_clip, make_record

from therapy_app.storage import SessionRepository
from therapy_app.storage.orphans import orphan_recordings
from therapy_app.storage.repository import DB_FILENAME


def _attempt_and_stray(repo: SessionRepository) -> tuple[int, str]:
    """One stored attempt and one recording written as if its row never came: (patient, path)."""
    patient = repo.patients.create("Paul")
    session = repo.sessions.start(patient.id, "repetition")
    repo.attempts.add(make_record(session.id), make_clip())
    return patient.id, repo.attempts.save_recording(make_clip(seed=3), patient.id).relative_path


def test_an_orphan_is_described_from_its_path_and_file(repo: SessionRepository) -> None:
    patient_id, stray = _attempt_and_stray(repo)
    [orphan] = orphan_recordings(repo)
    assert orphan.relative_path == stray
    assert orphan.patient_folder == patient_id
    assert orphan.month == f"{T0:%Y-%m}"  # the repository's clock names the month folder
    assert orphan.path == repo.data_dir / stray
    written = datetime.fromtimestamp(orphan.path.stat().st_mtime, UTC)
    assert orphan.written_at == written


def test_files_being_written_are_left_out_and_odd_paths_kept_as_they_are(
    repo: SessionRepository,
) -> None:
    _patient_id, stray = _attempt_and_stray(repo)
    folder = (repo.data_dir / stray).parent
    # Another copy of the app writing right now (this process is alive: never removed).
    being_written = folder / f".x.wav.{os.getpid()}.ab12.tmp"
    being_written.write_bytes(b"RIFF")
    odd = repo.data_dir / "recordings" / "copie.wav"
    odd.write_bytes(b"RIFF")
    listed = orphan_recordings(repo)
    assert [o.relative_path for o in listed] == sorted(["recordings/copie.wav", stray])
    by_path = {o.relative_path: o for o in listed}
    assert by_path["recordings/copie.wav"].patient_folder is None
    assert by_path["recordings/copie.wav"].month is None
    assert being_written.exists() and odd.exists()  # listing deletes nothing


def test_recordings_orphans_prints_one_path_per_line_and_deletes_nothing(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    with SessionRepository(data_dir, clock=FakeClock()) as repo:
        _patient_id, stray = _attempt_and_stray(repo)
    before = recordings(data_dir)
    done = run_cli("recordings", "--orphans", data_dir=data_dir)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [stray]
    assert f"1 enregistrement(s) sans essai dans « {data_dir} »" in done.stderr
    assert recordings(data_dir) == before


def test_recordings_orphans_prints_nothing_for_a_clean_data_folder(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    fill(data_dir, 2)  # every recording has its attempt
    done = run_cli("recordings", "--orphans", data_dir=data_dir)
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""
    assert done.stderr.strip().endswith("Aucun enregistrement sans essai.")
    # A data folder that was never used stays unused: no database is created to say so.
    empty = tmp_path / "jamais-servi"
    done = run_cli("recordings", "--orphans", data_dir=empty)
    assert (done.returncode, done.stdout) == (0, "")
    assert not (empty / DB_FILENAME).exists()


def test_recordings_without_what_to_list_is_one_french_error(tmp_path: Path) -> None:
    assert_one_french_error(run_cli("recordings", data_dir=tmp_path / "data"), "--orphans")
