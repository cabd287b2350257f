"""Backups and restore (issue 11): consistent while running, encrypted, checked, reversible."""

from __future__ import annotations

import os
import shutil
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from restore_fixtures import MANIFEST, rewrite_backup
from storage_fixtures import FakeClock, make_clip, make_record

from therapy_app.storage import SessionRepository, StorageUnavailableError
from therapy_app.storage.backup import (
    BackupFormatError,
    backup_warning,
    create_backup,
    restore_backup,
)
from therapy_app.storage.backup_crypto import BackupPassphraseError, is_encrypted
from therapy_app.storage.repository import DB_FILENAME

PROJECT = Path(__file__).resolve().parent.parent
PASSPHRASE = "cheval correct agrafe"


def _fill(repo: SessionRepository, clock: FakeClock, attempts: int = 4) -> int:
    patient = repo.patients.create("Jeanne Dupont")
    session = repo.sessions.start(patient.id, "repetition")
    for index in range(attempts):
        clock.advance(minutes=1)
        repo.attempts.add(
            make_record(session.id, raw_transcript=f"essai {index}"), make_clip(seed=index)
        )
    return patient.id


def _one_attempt_backed_up(data_dir: Path, destination: Path) -> Path:
    """The backup file (at ``destination``) of a data folder with one attempt."""
    clock = FakeClock()
    with SessionRepository(data_dir, clock=clock) as repo:
        _fill(repo, clock, attempts=1)
        return create_backup(repo, destination).path


def _summary(data_dir: Path) -> list[tuple[str, bool]]:
    with SessionRepository(data_dir) as repo:
        [patient] = repo.patients.all()
        return [
            (a.transcript, repo.attempts.verify_recording(a))
            for a in repo.attempts.all(patient_id=patient.id)
        ]


def test_backup_while_running_keeps_what_is_only_in_the_wal(tmp_path: Path) -> None:
    clock = FakeClock()
    live = tmp_path / "live"
    repo = SessionRepository(live, clock=clock)
    try:
        repo._db.execute("PRAGMA wal_autocheckpoint = 0")  # noqa: SLF001 - keep it all in the WAL
        _fill(repo, clock)
        assert (live / f"{DB_FILENAME}-wal").stat().st_size > 0
        (tmp_path / "out").mkdir()
        info = create_backup(repo, tmp_path / "out")
        # What a plain file copy would have saved: the WAL's content is missing.
        naive = tmp_path / "naive.sqlite3"
        shutil.copy(live / DB_FILENAME, naive)
        copied = sqlite3.connect(naive)
        naive_count = copied.execute(
            "SELECT COUNT(*) FROM sqlite_master WHERE name = 'attempts'"
        ).fetchone()[0]
        copied.close()
        assert naive_count == 0
    finally:
        repo.close()
    assert info.path.parent == tmp_path / "out" and info.path.suffix == ".therapy-backup"
    assert (info.patient_count, info.attempt_count, info.file_count) == (1, 4, 4)
    assert stat.S_IMODE(info.path.stat().st_mode) == 0o600
    restored = tmp_path / "restored"
    restore_backup(info.path, restored)
    assert _summary(restored) == [(f"essai {i}", True) for i in range(4)]


def test_encrypted_backup_needs_the_passphrase(tmp_path: Path) -> None:
    clock = FakeClock()
    with SessionRepository(tmp_path / "live", clock=clock) as repo:
        _fill(repo, clock, attempts=2)
        with pytest.raises(BackupPassphraseError):
            create_backup(repo, tmp_path / "short.therapy-backup", passphrase="court")
        info = create_backup(repo, tmp_path / "b.therapy-backup", passphrase=PASSPHRASE)
    data = info.path.read_bytes()
    assert info.encrypted and is_encrypted(info.path)
    assert b"PK\x03\x04" not in data[:64] and b"Jeanne" not in data and b"RIFF" not in data
    target = tmp_path / "restored"
    with pytest.raises(BackupPassphraseError) as caught:
        restore_backup(info.path, target)
    assert "mot de passe" in caught.value.user_message
    with pytest.raises(BackupPassphraseError) as caught:
        restore_backup(info.path, target, passphrase="mauvais mot de passe")
    assert "ne correspond pas" in caught.value.user_message
    # One changed byte anywhere is refused, as is a cut-off file.
    tampered = tmp_path / "tampered.therapy-backup"
    changed = bytearray(data)
    changed[len(changed) // 2] ^= 0x01
    tampered.write_bytes(bytes(changed))
    with pytest.raises(BackupPassphraseError):
        restore_backup(tampered, target, passphrase=PASSPHRASE)
    tampered.write_bytes(data[: len(data) - 100])
    with pytest.raises(BackupPassphraseError):
        restore_backup(tampered, target, passphrase=PASSPHRASE)
    assert not (target / DB_FILENAME).exists()
    restore_backup(info.path, target, passphrase=PASSPHRASE)
    assert _summary(target) == [("essai 0", True), ("essai 1", True)]


def test_restore_keeps_the_current_data_aside_and_refuses_a_running_app(tmp_path: Path) -> None:
    clock = FakeClock()
    data_dir = tmp_path / "data"
    with SessionRepository(data_dir, clock=clock) as repo:
        _fill(repo, clock, attempts=2)
        info = create_backup(repo, tmp_path)
        assert backup_warning(repo) is None
        session = repo.sessions.all(1)[0]
        repo.attempts.add(make_record(session.id, raw_transcript="après la sauvegarde"))
        # Restoring under the running app would lose its next writes: refused.
        with pytest.raises(StorageUnavailableError) as caught:
            restore_backup(info.path, data_dir)
        assert "ouverte" in caught.value.user_message
    restore_backup(info.path, data_dir, clock=clock)
    assert [t for t, _ in _summary(data_dir)] == ["essai 0", "essai 1"]
    [aside] = [p for p in data_dir.iterdir() if p.name.startswith("avant-restauration-")]
    kept = sqlite3.connect(aside / DB_FILENAME)
    assert kept.execute("SELECT COUNT(*) FROM attempts").fetchone()[0] == 3
    kept.close()
    with SessionRepository(data_dir) as repo:
        kinds = [r[0] for r in repo._db.execute("SELECT kind FROM backups ORDER BY id")]  # noqa: SLF001
    assert kinds == ["backup", "restore"]  # the restored data knows its backup


def test_restore_repairs_a_damaged_database(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    backup = _one_attempt_backed_up(data_dir, tmp_path)
    (data_dir / DB_FILENAME).write_bytes(b"\0" * 8192)  # the disk ate it
    restore_backup(backup, data_dir)
    assert _summary(data_dir) == [("essai 0", True)]


def test_restore_refuses_what_is_not_a_sound_backup(tmp_path: Path) -> None:
    backup = _one_attempt_backed_up(tmp_path / "live", tmp_path / "good.therapy-backup")
    target = tmp_path / "target"
    not_backup = tmp_path / "photo.jpg"
    not_backup.write_bytes(b"\xff\xd8\xff" + b"x" * 100)
    with pytest.raises(BackupFormatError):
        restore_backup(not_backup, target)
    # A recording changed inside the archive: its hash no longer matches.
    evil = tmp_path / "evil.therapy-backup"
    rewrite_backup(backup, evil, "*.wav", lambda wav: wav[:-4] + b"\0\0\0\0")
    with pytest.raises(BackupFormatError):
        restore_backup(evil, target)
    # A path that climbs out of the data folder.
    rewrite_backup(backup, evil, MANIFEST, lambda m: m.replace(b'"recordings/', b'"../../etc/'))
    with pytest.raises(BackupFormatError):
        restore_backup(evil, target)
    # A manifest that is JSON but not an object (found by mypy, issue 10).
    rewrite_backup(backup, evil, MANIFEST, lambda _: b"[]")
    with pytest.raises(BackupFormatError):
        restore_backup(evil, target)
    assert not (target / DB_FILENAME).exists()


def test_warning_when_the_last_backup_is_old(tmp_path: Path) -> None:
    clock = FakeClock()
    with SessionRepository(tmp_path / "data", clock=clock) as repo:
        assert backup_warning(repo) is None  # nothing to lose yet
        _fill(repo, clock, attempts=1)
        assert "Aucune sauvegarde" in str(backup_warning(repo))
        create_backup(repo, tmp_path)
        clock.advance(days=6)
        assert backup_warning(repo) is None
        clock.advance(days=2)
        warning = str(backup_warning(repo))
        assert "il y a 8 jours" in warning and "therapy-app backup" in warning
        assert backup_warning(repo, max_age_days=10) is None


def _cli(data_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "THERAPY_APP_DATA_DIR": str(data_dir), "PYTHONPATH": str(PROJECT)}
    env.pop("THERAPY_APP_BACKUP_PASSPHRASE", None)
    return subprocess.run(
        [sys.executable, "-m", "therapy_app.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        stdin=subprocess.DEVNULL,
        timeout=120,
        check=False,
    )


def test_backup_and_restore_commands(tmp_path: Path) -> None:
    clock = FakeClock()
    data_dir = tmp_path / "data"
    with SessionRepository(data_dir, clock=clock) as repo:
        _fill(repo, clock, attempts=2)
    secret = tmp_path / "secret.txt"
    secret.write_text(PASSPHRASE + "\n", encoding="utf-8")
    out_dir = tmp_path / "cle-usb"
    out_dir.mkdir()
    status = _cli(data_dir, "backup", "--status")
    assert status.returncode == 1 and "Aucune sauvegarde" in status.stdout
    done = _cli(data_dir, "backup", str(out_dir), "--encrypt", "--passphrase-file", str(secret))
    assert done.returncode == 0, done.stderr
    assert "Sauvegarde écrite" in done.stdout and "chiffrée" in done.stdout
    [archive] = list(out_dir.iterdir())
    assert _cli(data_dir, "backup", "--status").returncode == 0
    # No passphrase and no terminal: one French line, exit 2, nothing changed.
    refused = _cli(tmp_path / "other", "restore", str(archive), "--yes")
    assert refused.returncode == 2 and refused.stderr.startswith("Erreur : ")
    assert "Traceback" not in refused.stderr
    unconfirmed = _cli(
        tmp_path / "other", "restore", str(archive), "--passphrase-file", str(secret)
    )
    assert unconfirmed.returncode == 2 and "--yes" in unconfirmed.stderr
    restored = _cli(
        tmp_path / "other", "restore", str(archive), "--yes", "--passphrase-file", str(secret)
    )
    assert restored.returncode == 0, restored.stderr
    assert "restaurée" in restored.stdout
    assert _summary(tmp_path / "other") == [("essai 0", True), ("essai 1", True)]
    missing = _cli(data_dir, "backup")
    assert missing.returncode == 2 and "Indiquez où" in missing.stderr
