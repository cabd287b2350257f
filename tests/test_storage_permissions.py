"""Health data on disk is private: folders 0700, database, journals, recordings, exports 0600."""

from __future__ import annotations

import os
import sqlite3
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from sqlite_utils import Database

from therapy_app.exports import export_attempts_csv, export_patient_chat
from therapy_app.storage import SessionRepository, schema
from therapy_app.storage.repository import DB_FILENAME

if TYPE_CHECKING:
    from therapist_fixtures import SeededHistory

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture(autouse=True)
def permissive_umask() -> Iterator[None]:
    """The usual desktop umask (022), under which files used to come out 0644."""
    previous = os.umask(0o022)
    yield
    os.umask(previous)


def test_fresh_data_folder_database_and_journals_are_private(
    tmp_path: Path, seeded_history: SeededHistory, therapist_repo: SessionRepository
) -> None:
    data_dir = therapist_repo.data_dir
    assert data_dir == tmp_path / "data"
    assert mode(data_dir) == 0o700
    db = therapist_repo.db_path
    # While the connection is open after writes, WAL keeps both journal files.
    journals = [db.with_name(db.name + s) for s in ("-wal", "-shm")]
    assert all(p.exists() for p in journals)
    assert {p.name: mode(p) for p in [db, *journals]} == {p.name: 0o600 for p in [db, *journals]}
    recordings = [p for p in data_dir.rglob("*") if p.suffix == ".wav"]
    assert len(recordings) == len(seeded_history.attempt_ids) + 1
    folders = {p for rec in recordings for p in rec.relative_to(data_dir).parents if str(p) != "."}
    assert folders  # recordings/<patient>/<month>
    assert {str(f): mode(data_dir / f) for f in folders} == {str(f): 0o700 for f in folders}
    assert {mode(p) for p in recordings} == {0o600}


def test_folder_and_files_of_an_older_version_are_made_private(tmp_path: Path) -> None:
    data_dir = tmp_path / "old"
    data_dir.mkdir(mode=0o755)
    db = data_dir / DB_FILENAME
    # What the previous release left: a WAL database with 0644 files, still open.
    other = sqlite3.connect(db, isolation_level=None)
    other.execute("PRAGMA journal_mode=WAL")
    schema.migrate(Database(other), stop_before=schema.MIGRATION_NAMES[1])  # a v1 database
    files = [db, db.with_name(db.name + "-wal"), db.with_name(db.name + "-shm")]
    assert {mode(p) for p in files} == {0o644} and mode(data_dir) == 0o755
    other.close()
    # Journal files removed at close come back with the database's new mode.
    with SessionRepository(data_dir) as repo:
        repo.patients.create("Jeanne")
        assert mode(data_dir) == 0o700
        assert {p.name: mode(p) for p in files if p.exists()} == {
            p.name: 0o600 for p in files if p.exists()
        }
        assert db.with_name(db.name + "-wal").exists()


def test_csv_and_chat_exports_are_private(
    tmp_path: Path, seeded_history: SeededHistory, therapist_repo: SessionRepository
) -> None:
    csv_path = tmp_path / "essais.csv"
    export_attempts_csv(therapist_repo, csv_path)
    assert mode(csv_path) == 0o600
    chat_dir = tmp_path / "exports" / "jeanne_CHAT"
    written = export_patient_chat(therapist_repo, seeded_history.patient.id, chat_dir)
    assert written
    assert mode(chat_dir) == 0o700
    files = list(chat_dir.iterdir())
    assert any(p.suffix == ".wav" for p in files) and any(p.suffix == ".cha" for p in files)
    assert {mode(p) for p in files} == {0o600}


@pytest.mark.gui
def test_pdf_report_is_private_and_replaced_atomically(
    qtbot, tmp_path: Path, seeded_history: SeededHistory, therapist_repo: SessionRepository
) -> None:
    pytest.importorskip("PySide6")
    from therapy_app.exports import build_report_data
    from therapy_app.gui.therapist.report_pdf import write_report_pdf

    sessions = therapist_repo.sessions.all(seeded_history.patient.id)
    start = min(s.started_at for s in sessions).date()
    end = max(s.started_at for s in sessions).date()
    data = build_report_data(therapist_repo, seeded_history.patient.id, start, end)
    path = tmp_path / "rapport.pdf"
    path.write_bytes(b"old report")
    path.chmod(0o644)
    assert write_report_pdf(data, path) >= 1
    assert path.read_bytes().startswith(b"%PDF-")
    assert mode(path) == 0o600
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []
