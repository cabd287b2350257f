"""The app changes no folder but its own (issue 24, items 2, 3 and 6).

``THERAPY_APP_DATA_DIR`` pointed at a shared folder used to make it 0700 and
drop its sticky bit; a database file that is a dangling link made SQLite
create the database elsewhere; ``doctor`` created ``~/.config/pulse``.
The real console script in a subprocess, real folders, real SQLite.
"""

from __future__ import annotations

import os
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from cli_fixtures import assert_one_french_error, run_cli

from therapy_app.storage import SessionRepository
from therapy_app.storage.repository import DB_FILENAME

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def folder(path: Path, folder_mode: int, *files: str) -> Path:
    """``path`` created with exactly ``folder_mode`` (no umask), holding someone's ``files``."""
    path.mkdir()
    path.chmod(folder_mode)
    for name in files:
        (path / name).write_text("à quelqu'un d'autre")
    return path


@pytest.mark.parametrize(
    ("folder_mode", "reason"),
    [(0o1777, "dossier partagé"), (0o777, "tous les utilisateurs")],
    ids=["sticky-like-tmp", "everyone-may-write"],
)
def test_a_folder_others_may_write_is_refused_and_left_as_it_was(
    tmp_path: Path, folder_mode: int, reason: str
) -> None:
    shared = folder(tmp_path / "partage", folder_mode, "fichier-d-un-autre.txt")
    result = run_cli("backup", "--status", data_dir=shared)
    assert_one_french_error(result, reason)
    assert mode(shared) == folder_mode
    assert sorted(p.name for p in shared.iterdir()) == ["fichier-d-un-autre.txt"]


def test_the_home_folder_itself_is_refused(tmp_path: Path) -> None:
    home = folder(tmp_path / "maison", 0o755)
    result = run_cli("backup", "--status", data_dir=home, env={"HOME": str(home)})
    assert_one_french_error(result, "dossier personnel")
    assert mode(home) == 0o755 and list(home.iterdir()) == []


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs chown")
def test_someone_elses_folder_is_refused(tmp_path: Path) -> None:
    theirs = folder(tmp_path / "autre", 0o755)
    os.chown(theirs, 4242, 4242)
    result = run_cli("backup", "--status", data_dir=theirs)
    assert_one_french_error(result, "autre utilisateur")
    assert mode(theirs) == 0o755 and list(theirs.iterdir()) == []


def test_the_root_folder_is_refused_before_anything_is_changed(monkeypatch) -> None:
    from therapy_app import paths

    def must_not_run(*_: object) -> None:
        raise AssertionError("the root folder would have been changed")

    monkeypatch.setattr(paths, "make_private", must_not_run)
    monkeypatch.setattr(Path, "mkdir", must_not_run)
    with pytest.raises(paths.UnsuitableFolderError, match="racine"):
        paths.ensure_data_dir(Path("/"))


def test_a_folder_with_other_files_is_used_but_not_changed(tmp_path: Path) -> None:
    documents = folder(tmp_path / "Documents", 0o755, "lettre.odt")
    result = run_cli("backup", "--status", data_dir=documents)
    assert result.returncode == 0, result.stderr
    assert mode(documents) == 0o755
    assert mode(documents / DB_FILENAME) == 0o600  # the health data itself is private


def test_an_empty_folder_of_ours_and_an_older_versions_folder_are_made_private(
    tmp_path: Path,
) -> None:
    empty = folder(tmp_path / "vide", 0o755)
    assert run_cli("backup", "--status", data_dir=empty).returncode == 0
    assert mode(empty) == 0o700
    empty.chmod(0o775)  # an older version under umask 002, with its database
    assert run_cli("backup", "--status", data_dir=empty).returncode == 0
    assert mode(empty) == 0o700


def test_backup_beside_a_folder_of_someone_else_does_not_change_it(tmp_path: Path) -> None:
    with SessionRepository(tmp_path / "donnees") as repository:
        repository.patients.create("Jeanne")
    usb = folder(tmp_path / "cle-usb", 0o1777)
    result = run_cli("backup", str(usb / "copie.therapy-backup"), data_dir=tmp_path / "donnees")
    assert result.returncode == 0, result.stderr
    assert mode(usb) == 0o1777  # create_backup used to make it 0700


@pytest.mark.parametrize("dangling", [True, False], ids=["dangling", "to-a-database"])
def test_a_database_file_that_is_a_link_is_refused(tmp_path: Path, dangling: bool) -> None:
    data = tmp_path / "donnees"
    data.mkdir(mode=0o700)
    elsewhere = tmp_path / "ailleurs"
    elsewhere.mkdir()
    target = elsewhere / "base.sqlite3"
    if not dangling:
        with SessionRepository(elsewhere, db_path=target) as repository:
            repository.patients.create("Jeanne")
    before = sorted(p.name for p in elsewhere.iterdir())
    (data / DB_FILENAME).symlink_to(target)
    result = run_cli("backup", "--status", data_dir=data)
    assert_one_french_error(result, "lien")
    assert sorted(p.name for p in elsewhere.iterdir()) == before  # no database, journal, WAL
    assert sorted(p.name for p in data.iterdir()) == [DB_FILENAME]  # not even a lock file
    if not dangling:
        with sqlite3.connect(target) as conn:
            assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_doctor_creates_nothing_in_the_home_folder(tmp_path: Path) -> None:
    home = tmp_path / "maison"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("XDG_RUNTIME_DIR", "PULSE_SERVER")}
    env.pop("XDG_CONFIG_HOME", None)
    env.pop("PULSE_RUNTIME_PATH", None)
    result = subprocess.run(
        [sys.executable, "-m", "therapy_app.cli", "doctor", "--no-hash"],
        capture_output=True,
        text=True,
        timeout=300,
        env={**env, "HOME": str(home), "THERAPY_APP_DATA_DIR": str(tmp_path / "donnees")},
        check=False,
    )
    assert "Traceback" not in result.stderr, result.stderr
    assert "audio" in result.stdout
    assert sorted(str(p.relative_to(home)) for p in home.rglob("*")) == []


def test_the_names_the_data_folder_check_knows_are_the_storage_modules_names() -> None:
    from therapy_app import paths
    from therapy_app.storage import backup, pending, recording_files, restore, startup_lock
    from therapy_app.voice.model import VOICE_FOLDER

    own = [
        DB_FILENAME,
        startup_lock.lock_path(Path(DB_FILENAME)).name,
        f"{DB_FILENAME}-wal",
        recording_files.RECORDINGS_DIR,
        pending.PENDING_DIR,
        VOICE_FOLDER,
        f"{backup.ASIDE_PREFIX}2025-03-14-093000",
        f"{restore.WORK_PREFIX}abc",
        ".sauvegarde-abc",  # create_backup's work folder beside a backup file
    ]
    assert [name for name in own if not name.startswith(paths.APP_DATA_PREFIXES)] == []
