"""Issue 24, items 2 and 3: a restore is all or nothing, and never reuses an aside folder."""

from __future__ import annotations

import errno
import os
import shutil
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from restore_fixtures import attempt_count, cli, craft_backup, fill, folder_state, recordings
from storage_fixtures import FakeClock

from therapy_app.errors import TherapyAppError
from therapy_app.storage import SessionRepository
from therapy_app.storage.backup import ASIDE_PREFIX, create_backup, restore_backup
from therapy_app.storage.repository import DB_FILENAME


def _data_and_backup(tmp_path: Path) -> tuple[Path, Path]:
    """A data folder with 4 attempts and a backup of its first 2."""
    data_dir = tmp_path / "data"
    clock = FakeClock()
    fill(data_dir, 2, clock)
    with SessionRepository(data_dir, clock=clock) as repo:
        archive = create_backup(repo, tmp_path / "b.therapy-backup").path
    fill(data_dir, 2, clock)
    return data_dir, archive


def _asides(data_dir: Path) -> list[Path]:
    return sorted(p for p in data_dir.iterdir() if p.name.startswith(ASIDE_PREFIX))


def test_a_file_named_like_the_recordings_folder_is_refused_before_any_change(
    tmp_path: Path,
) -> None:
    data_dir, genuine = _data_and_backup(tmp_path)

    def recordings_as_a_file(manifest: dict[str, Any], members: dict[str, bytes]) -> None:
        for name in [n for n in members if n.startswith("recordings/")]:
            del members[name], manifest["files"][name]
        members["recordings"] = b"not a folder"
        manifest["files"]["recordings"] = ""

    crafted = craft_backup(genuine, tmp_path / "crafted.therapy-backup", recordings_as_a_file)
    before = folder_state(data_dir)
    done = cli(data_dir, "restore", str(crafted), "--yes")
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("Erreur : ") and "Traceback" not in done.stderr
    assert folder_state(data_dir) == before
    assert attempt_count(data_dir / DB_FILENAME) == 4  # the next start finds the same data


def _fail_at(step: int, calls: list[str], after: bool) -> Callable[[Callable[..., Any]], Any]:
    """Wrap an ``os`` function so that its ``step``-th call (all wrapped ones counted) fails."""

    def wrap(real: Callable[..., Any]) -> Callable[..., Any]:
        def faulty(*args: Any, **kwargs: Any) -> Any:
            calls.append(real.__name__)
            if len(calls) != step:
                return real(*args, **kwargs)
            if after:  # done, then reported as failed (e.g. an I/O error on the folder)
                real(*args, **kwargs)
            raise OSError(errno.EIO, "injected fault")

        return faulty

    return wrap


@pytest.mark.parametrize("after", [False, True], ids=["fails", "done-then-fails"])
def test_a_fault_at_any_step_leaves_the_previous_data_in_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, after: bool
) -> None:
    template, archive = _data_and_backup(tmp_path)
    # One of the backup's recordings differs on disk: the switch must also move it aside.
    with zipfile.ZipFile(archive) as zf:
        changed = sorted(n for n in zf.namelist() if n.endswith(".wav"))[0]
    assert changed in recordings(template)
    (template / changed).write_bytes(b"RIFF another recording at the same path")
    before = folder_state(template)
    step = 0
    while True:
        step += 1
        data_dir = tmp_path / f"try-{step}"
        shutil.copytree(template, data_dir)
        calls: list[str] = []
        wrap = _fail_at(step, calls, after)
        with monkeypatch.context() as patch:
            patch.setattr(os, "replace", wrap(os.replace))
            if not after:
                patch.setattr(os, "mkdir", wrap(os.mkdir))
            try:
                restore_backup(archive, data_dir, clock=FakeClock())
            except TherapyAppError:
                failed = True
            else:
                failed = False
        if not failed:
            break
        assert folder_state(data_dir) == before, f"step {step} ({calls[-1]})"
        assert attempt_count(data_dir / DB_FILENAME) == 4
        shutil.rmtree(data_dir)
    # Each step was tried: the previous recording and database aside, the new ones in.
    assert calls.count("replace") >= 4 and step > calls.count("replace")
    assert attempt_count(data_dir / DB_FILENAME) == 2
    [aside] = _asides(data_dir)
    assert attempt_count(aside / DB_FILENAME) == 4
    assert (aside / changed).read_bytes() == b"RIFF another recording at the same path"


def test_two_restores_in_the_same_second_keep_both_previous_databases(tmp_path: Path) -> None:
    data_dir, archive = _data_and_backup(tmp_path)
    clock = FakeClock()  # it does not move: both restores happen "in the same second"
    restore_backup(archive, data_dir, clock=clock)
    fill(data_dir, 1, clock)  # 3 attempts now
    restore_backup(archive, data_dir, clock=clock)
    asides = _asides(data_dir)
    assert len(asides) == 2
    assert sorted(attempt_count(a / DB_FILENAME) for a in asides) == [3, 4]
    assert attempt_count(data_dir / DB_FILENAME) == 2
