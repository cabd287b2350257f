"""Issue 24, item 4: a bad backup or a hostile folder gives one French line, and changes nothing."""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from restore_fixtures import attempt_count, cli, craft_backup, fill, folder_state
from storage_fixtures import FakeClock

from therapy_app.storage import SessionRepository
from therapy_app.storage.backup import BackupFormatError, create_backup, restore_backup
from therapy_app.storage.repository import DB_FILENAME

Edit = Callable[[dict[str, Any], dict[str, bytes]], None]
WAV = "recordings/1/2025-03/" + "c" * 32 + "-1.wav"


@pytest.fixture(scope="module")
def genuine(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A data folder with 3 attempts, and a backup of another one with 2."""
    root = tmp_path_factory.mktemp("genuine")
    clock = FakeClock()
    fill(root / "other", 2, clock)
    with SessionRepository(root / "other", clock=clock) as repo:
        archive = create_backup(repo, root / "b.therapy-backup").path
    fill(root / "data", 3, clock)
    return root / "data", archive


@pytest.fixture
def archive(genuine: tuple[Path, Path]) -> Path:
    """The backup of the other folder (2 attempts)."""
    return genuine[1]


@pytest.fixture
def data_dir(tmp_path: Path, genuine: tuple[Path, Path]) -> Path:
    """This test's copy of the data folder with 3 attempts, to restore over."""
    folder = tmp_path / "data"
    shutil.copytree(genuine[0], folder)
    return folder


def _set(key: str, value: object) -> Edit:
    return lambda manifest, members: manifest.__setitem__(key, value)


def _add(*names: str) -> Edit:
    def edit(manifest: dict[str, Any], members: dict[str, bytes]) -> None:
        for name in names:
            members[name] = b"RIFF...."
            manifest["files"][name] = ""

    return edit


def _nested(text: bytes) -> bytes:
    depth = 100_000
    return b'{"app": "therapy_app", "format": 1, "files": ' + b"[" * depth + b"]" * depth + b"}"


CRAFTED: dict[str, dict[str, Any]] = {
    "made_at not text": {"edit": _set("made_at", 20250314)},
    "made_at not a date": {"edit": _set("made_at", "hier soir")},
    "attempts not a number": {"edit": _set("attempts", "beaucoup")},
    "patients a list": {"edit": _set("patients", [1])},
    "missing not a list": {"edit": _set("missing", 5)},
    "format infinite": {"text": lambda t: t.replace(b'"format": 1', b'"format": 1e999')},
    "deeply nested manifest": {"text": _nested},
    "zip bomb": {"zeros": {WAV: 80 << 20}},
    "name of 300 characters": {"edit": _add("recordings/1/" + "a" * 300 + ".wav")},
    "a file then a folder of the same name": {"edit": _add(WAV, WAV + "/b.wav")},
    "a file named like the queue folder": {"edit": _add("pending")},
}


def _assert_refused(done: subprocess.CompletedProcess[str]) -> None:
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    [line] = done.stderr.strip().splitlines()
    assert line.startswith("Erreur : ")


@pytest.mark.parametrize("case", list(CRAFTED))
def test_a_crafted_backup_is_refused_in_one_french_line(
    tmp_path: Path, data_dir: Path, archive: Path, case: str
) -> None:
    spec = CRAFTED[case]
    crafted = craft_backup(
        archive,
        tmp_path / "crafted.therapy-backup",
        spec.get("edit", lambda manifest, members: None),
        manifest_text=spec.get("text", lambda text: text),
        zeros=spec.get("zeros"),
    )
    before = folder_state(data_dir)
    _assert_refused(cli(data_dir, "restore", str(crafted), "--yes"))
    assert folder_state(data_dir) == before
    assert not (data_dir / "pending").is_file()
    assert attempt_count(data_dir / DB_FILENAME) == 3


def test_a_data_folder_under_a_file(tmp_path: Path, archive: Path) -> None:
    blocker = tmp_path / "pas-un-dossier"
    blocker.write_bytes(b"a file")
    _assert_refused(cli(blocker / "data", "restore", str(archive), "--yes"))
    assert blocker.read_bytes() == b"a file"


@pytest.mark.skipif(os.name != "posix", reason="RLIMIT_FSIZE")
def test_a_file_size_limit(data_dir: Path, archive: Path) -> None:
    before = folder_state(data_dir)

    def small_files() -> None:  # `ulimit -f 32`: writes past 32 KiB fail (EFBIG)
        resource.setrlimit(resource.RLIMIT_FSIZE, (32 << 10, 32 << 10))

    _assert_refused(cli(data_dir, "restore", str(archive), "--yes", preexec_fn=small_files))
    assert folder_state(data_dir) == before


@pytest.mark.skipif(os.name != "posix", reason="mount namespaces, permission bits")
def test_a_read_only_data_folder(data_dir: Path, archive: Path) -> None:
    before = folder_state(data_dir)
    if os.geteuid() == 0:  # root ignores permission bits: a read-only bind mount
        if shutil.which("unshare") is None:
            pytest.skip("root without unshare: cannot make a read-only folder")
        script = 'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" && exec "$@"'
        done = cli(
            data_dir,
            "restore",
            str(archive),
            "--yes",
            wrapper=["unshare", "-m", "sh", "-c", script, str(data_dir)],
        )
        if done.returncode != 2 and "mount" in done.stderr and "Traceback" not in done.stderr:
            pytest.skip(f"no read-only bind mount here: {done.stderr.strip()}")
    else:
        data_dir.chmod(0o500)
        try:
            done = cli(data_dir, "restore", str(archive), "--yes")
        finally:
            data_dir.chmod(0o700)
    _assert_refused(done)
    assert "lecture seule" in done.stderr
    assert folder_state(data_dir) == before


def test_a_member_larger_than_it_declares_is_refused(
    tmp_path: Path, data_dir: Path, archive: Path
) -> None:
    """The declared sizes are checked before unpacking; the real ones while unpacking."""
    crafted = craft_backup(archive, tmp_path / "crafted.therapy-backup", zeros={WAV: 1 << 20})
    # Its central directory entry now says 100 bytes (offset 24: uncompressed size).
    raw = bytearray(crafted.read_bytes())
    entry = raw.index(b"PK\x01\x02")
    while raw[entry + 46 : entry + 46 + len(WAV)] != WAV.encode():
        entry = raw.index(b"PK\x01\x02", entry + 4)
    raw[entry + 24 : entry + 28] = (100).to_bytes(4, "little")
    crafted.write_bytes(bytes(raw))
    before = folder_state(data_dir)
    with pytest.raises(BackupFormatError):
        restore_backup(crafted, data_dir)
    assert folder_state(data_dir) == before


def test_a_file_in_the_data_folder_where_the_backup_needs_a_folder(
    tmp_path: Path, data_dir: Path, archive: Path
) -> None:
    # The current recordings moved elsewhere by hand, a file left in their place.
    shutil.move(data_dir / "recordings", tmp_path / "ailleurs")
    (data_dir / "recordings").write_bytes(b"a note, not a folder")
    before = folder_state(data_dir)
    done = cli(data_dir, "restore", str(archive), "--yes")
    _assert_refused(done)
    assert "recordings" in done.stderr
    assert folder_state(data_dir) == before
