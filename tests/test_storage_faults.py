"""Storage faults of issue 11, item 7: foreign files, damaged rows and pages, odd folders."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from storage_fixtures import FakeClock, make_clip, make_record

from therapy_app.exports import export_attempts_csv
from therapy_app.storage import (
    DatabaseCorruptError,
    ForeignDatabaseError,
    SessionRepository,
    StorageUnavailableError,
)
from therapy_app.storage.repository import DB_FILENAME

PROJECT = Path(__file__).resolve().parent.parent


def _file_state(path: Path) -> tuple[bytes, int, list[str]]:
    """Bytes, mode and companion files: what 'left untouched' means."""
    companions = sorted(
        p.name
        for p in path.parent.iterdir()
        if p.name.startswith(path.name) and not p.name.endswith(".lock")  # the app's own
    )
    return path.read_bytes(), path.stat().st_mode, companions


@pytest.mark.parametrize("user_version", [0, 7])
def test_another_programs_sqlite_file_is_refused_and_left_untouched(
    tmp_path: Path, user_version: int
) -> None:
    db = tmp_path / DB_FILENAME
    other = sqlite3.connect(db)
    other.execute("CREATE TABLE contacts (name TEXT, phone TEXT)")
    other.execute("INSERT INTO contacts VALUES ('Dr House', '0102030405')")
    other.execute(f"PRAGMA user_version = {user_version}")
    other.commit()
    other.close()
    db.chmod(0o644)
    before = _file_state(db)
    assert before[0][18:20] == b"\x01\x01"  # rollback journal, not WAL
    with pytest.raises(ForeignDatabaseError) as caught:
        SessionRepository(tmp_path)
    # A user_version of 7 is not "a newer version of the app": it is not ours.
    assert "autre programme" in caught.value.user_message
    assert "pas modifié" in caught.value.user_message
    after = _file_state(db)
    assert after[0] == before[0]  # header byte 18/19 included: never switched to WAL
    assert after[1] == before[1]  # not even made private
    assert after[2] == [DB_FILENAME]  # no -wal / -shm left behind


def test_recordings_folder_replaced_by_a_file_is_a_french_error(tmp_path: Path) -> None:
    with SessionRepository(tmp_path, clock=FakeClock()) as repo:
        patient = repo.patients.create("Jeanne")
        session = repo.sessions.start(patient.id, "repetition")
        (tmp_path / "recordings").write_text("pas un dossier")
        with pytest.raises(StorageUnavailableError) as caught:
            repo.attempts.add(make_record(session.id), make_clip())
        assert "dossier" in caught.value.user_message
        # Nothing else broken: an attempt without a recording is still stored.
        assert repo.attempts.add(make_record(session.id)) > 0


def test_database_path_that_is_a_folder_is_a_french_error(tmp_path: Path) -> None:
    (tmp_path / DB_FILENAME).mkdir()
    with pytest.raises(StorageUnavailableError) as caught:
        SessionRepository(tmp_path)
    assert "dossier" in caught.value.user_message


def _damage(db_path: Path, sql: str, params: tuple[object, ...]) -> None:
    conn = sqlite3.connect(db_path)
    with conn:
        conn.execute(sql, params)
    conn.close()


def test_a_row_with_bad_json_or_a_bad_date_does_not_hide_the_history(tmp_path: Path) -> None:
    clock = FakeClock()
    with SessionRepository(tmp_path, clock=clock) as repo:
        patient = repo.patients.create("Jeanne")
        sessions, ids = [], []
        for _ in range(3):
            session = repo.sessions.start(patient.id, "repetition")
            sessions.append(session.id)
            for _ in range(2):
                clock.advance(minutes=1)
                ids.append(repo.attempts.add(make_record(session.id), make_clip()))
            clock.advance(days=1)
    # Another tool (or a disk error) wrote values the app cannot read.
    _damage(
        tmp_path / DB_FILENAME, "UPDATE attempts SET timings = ? WHERE id = ?", ("{cassé", ids[0])
    )
    _damage(
        tmp_path / DB_FILENAME,
        "UPDATE attempts SET correction_alternatives = ?, model_versions = ? WHERE id = ?",
        ('[{"texte": 1}]', "[1, 2]", ids[1]),
    )
    _damage(
        tmp_path / DB_FILENAME, "UPDATE attempts SET created_at = ? WHERE id = ?", ("hier", ids[2])
    )
    _damage(
        tmp_path / DB_FILENAME,
        "UPDATE sessions SET started_at = ? WHERE id = ?",
        ("31/02/2025", sessions[2]),
    )
    with SessionRepository(tmp_path, clock=clock) as repo:
        listed = repo.attempts.all(patient_id=patient.id)
        # The bad-date row is left out; the bad-JSON rows are kept and flagged.
        assert [a.id for a in listed] == [i for i in ids if i != ids[2]]
        flagged = {a.id: a.damaged for a in listed if a.damaged}
        assert flagged == {
            ids[0]: ("timings",),
            ids[1]: ("correction_alternatives", "model_versions"),
        }
        first = repo.attempts.get(ids[0])
        assert first.record.timings is None and first.transcript == "le chat dort"
        with pytest.raises(DatabaseCorruptError) as caught:
            repo.attempts.get(ids[2])
        assert "endommagé" in caught.value.user_message
        # History and progress show the readable sessions.
        assert [s.session_id for s in repo.history.summaries(patient.id)] == sessions[1::-1]
        assert len(repo.history.progress(patient.id, "wer")) == 2
        assert len(repo.sessions.all(patient.id)) == 2
        csv_path = tmp_path / "export.csv"
        assert export_attempts_csv(repo, csv_path, patient.id) == len(ids)  # all, as stored
        assert "31/02/2025" in csv_path.read_text(encoding="utf-8")
        damaged = {(d.table, d.row_id, d.column) for d in repo.maintenance.damaged_rows()}
        assert damaged == {
            ("attempts", ids[0], "timings"),
            ("attempts", ids[2], "created_at"),
            ("sessions", sessions[2], "started_at"),
        }


def _corrupt_a_page(db_path: Path) -> None:
    """Write garbage over the last page (a leaf of the attempts table)."""
    conn = sqlite3.connect(db_path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    conn.close()
    with db_path.open("r+b") as raw:
        raw.seek((pages - 1) * page_size)
        raw.write(bytes(range(256)) * (page_size // 256))


def test_page_level_corruption_is_found_at_start_up(tmp_path: Path) -> None:
    with SessionRepository(tmp_path, clock=FakeClock()) as repo:
        patient = repo.patients.create("Jeanne")
        session = repo.sessions.start(patient.id, "repetition")
        with repo.transaction():
            for index in range(300):
                repo.attempts.add(make_record(session.id, raw_transcript=f"essai {index} " * 5))
        assert repo.maintenance.integrity_check() == ["ok"]
    db = tmp_path / DB_FILENAME
    _corrupt_a_page(db)
    before = db.read_bytes()
    with pytest.raises(DatabaseCorruptError) as caught:
        SessionRepository(tmp_path)
    assert "endommagée" in caught.value.user_message
    assert "sauvegarde" in caught.value.hint and "restore" in caught.value.hint
    assert db.read_bytes() == before  # not migrated, not written over


_VIEWER = textwrap.dedent(
    """
    import json, sys
    from pathlib import Path
    from therapy_app.storage import SessionRepository, StorageUnavailableError
    from therapy_app.storage.opening import READ_ONLY_NOTICE
    out = {}
    with SessionRepository(Path(sys.argv[1])) as repo:
        out["read_only"] = repo.read_only
        out["notices"] = repo.notices
        patient = repo.patients.all()[0]
        out["patient"] = patient.display_name
        out["attempts"] = len(repo.attempts.all(patient_id=patient.id))
        out["history"] = len(repo.history.summaries(patient.id))
        out["login"] = repo.accounts.verify("ortho", "bon mot de passe")
        try:
            repo.patients.create("Nouveau")
        except StorageUnavailableError as exc:
            out["write_refused"] = exc.user_message
    print(json.dumps(out))
    """
)


def _run_viewer_on_read_only(data_dir: Path) -> dict[str, object]:
    """Open ``data_dir`` made read-only for real: a read-only bind mount as root, else chmod."""
    env = {**os.environ, "PYTHONPATH": str(PROJECT)}
    command = [sys.executable, "-c", _VIEWER, str(data_dir)]
    if os.geteuid() == 0:
        if shutil.which("unshare") is None:
            pytest.skip("root without unshare: cannot make a read-only folder")
        # A private mount namespace: the read-only bind mount is seen by the
        # viewer only, and disappears with it.
        script = (
            'mount --bind "$2" "$2" && mount -o remount,bind,ro "$2" && exec "$1" -c "$VIEWER" "$2"'
        )
        env["VIEWER"] = _VIEWER
        done = subprocess.run(
            ["unshare", "-m", "sh", "-c", script, "sh", sys.executable, str(data_dir)],
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
            check=False,
        )
        if done.returncode != 0 and "mount" in done.stderr and "Traceback" not in done.stderr:
            pytest.skip(f"no read-only bind mount here: {done.stderr.strip()}")
    else:
        data_dir.chmod(0o500)
        for path in data_dir.iterdir():
            if path.is_file():
                path.chmod(0o400)
        try:
            done = subprocess.run(
                command, capture_output=True, text=True, env=env, timeout=60, check=False
            )
        finally:
            data_dir.chmod(0o700)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_read_only_data_folder_can_still_be_viewed(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    with SessionRepository(data_dir) as repo:
        patient = repo.patients.create("Jeanne")
        session = repo.sessions.start(patient.id, "repetition")
        repo.attempts.add(make_record(session.id), make_clip())
        repo.accounts.create("ortho", "bon mot de passe")
    before = {p.name for p in data_dir.iterdir()}
    seen = _run_viewer_on_read_only(data_dir)
    assert seen["read_only"] is True
    assert seen["patient"] == "Jeanne" and seen["attempts"] == 1 and seen["history"] == 1
    assert seen["login"] is True
    assert "lecture seule" in str(seen["write_refused"])
    notices = seen["notices"]
    assert isinstance(notices, list) and "consulter" in notices[0]
    assert "branché" not in notices[0]  # not the "is the disk plugged in" message
    assert {p.name for p in data_dir.iterdir()} == before


def test_read_only_folder_without_data_says_so(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root ignores folder permissions; the bind-mount test covers read-only")
    tmp_path.chmod(0o500)
    try:
        with pytest.raises(StorageUnavailableError) as caught:
            SessionRepository(tmp_path)
    finally:
        tmp_path.chmod(0o700)
    assert "lecture seule" in caught.value.user_message
