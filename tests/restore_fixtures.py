"""Restore-test helpers: real data folders written by other processes, crafted backups, the CLI.

Recordings are written by a child process that then exits, as a real session
would: start-up clean-up decides what to delete from the writer's process id,
and a writer that is still alive (this test process) would hide the bugs.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import os
import subprocess
import sys
import textwrap
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

PROJECT = Path(__file__).resolve().parent.parent
MANIFEST = "manifest.json"

_WRITER = textwrap.dedent(
    """
    import sys
    import numpy as np
    from therapy_app.audio.clip import AudioClip
    from therapy_app.domain.attempt_record import AttemptRecord
    from therapy_app.storage import SessionRepository

    data_dir, count = sys.argv[1], int(sys.argv[2])
    with SessionRepository(data_dir) as repo:
        patients = repo.patients.all()
        patient = patients[0] if patients else repo.patients.create("Jeanne Dupont")
        session = repo.sessions.start(patient.id, "repetition")
        done = len(repo.attempts.all(patient_id=patient.id))
        for index in range(done, done + count):
            rng = np.random.default_rng(index)
            clip = AudioClip((rng.standard_normal(8000) * 0.1).astype(np.float32))
            record = AttemptRecord(
                session_id=session.id, kind="repetition", raw_transcript=f"essai {index}"
            )
            repo.attempts.add(record, clip)
    """
)


def _env(data_dir: Path) -> dict[str, str]:
    env = {**os.environ, "THERAPY_APP_DATA_DIR": str(data_dir), "PYTHONPATH": str(PROJECT)}
    env.pop("THERAPY_APP_BACKUP_PASSPHRASE", None)
    return env


def add_attempts_in_another_process(data_dir: Path, count: int) -> None:
    """Add ``count`` attempts with recordings from a child process that then exits."""
    done = subprocess.run(
        [sys.executable, "-c", _WRITER, str(data_dir), str(count)],
        capture_output=True,
        text=True,
        env=_env(data_dir),
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr


def cli(
    data_dir: Path,
    *args: str,
    preexec_fn: Callable[[], None] | None = None,
    wrapper: list[str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """``python -m therapy_app.cli ARGS`` on ``data_dir`` (no terminal, no passphrase)."""
    return subprocess.run(
        [*(wrapper or []), sys.executable, "-m", "therapy_app.cli", *args],
        capture_output=True,
        text=True,
        env=_env(data_dir),
        stdin=subprocess.DEVNULL,
        timeout=120,
        check=False,
        preexec_fn=preexec_fn,  # noqa: PLW1509 - only resource limits, no threads in tests
    )


def folder_state(base: Path) -> dict[str, str]:
    """Every path under ``base``: a file's SHA-256, ``"folder"`` or ``"link"``."""
    if not base.exists():
        return {}
    state: dict[str, str] = {}
    for path in sorted(base.rglob("*")):
        name = path.relative_to(base).as_posix()
        if path.is_symlink():
            state[name] = "link"
        elif path.is_dir():
            state[name] = "folder"
        else:
            state[name] = hashlib.sha256(path.read_bytes()).hexdigest()
    return state


def recordings(base: Path) -> dict[str, str]:
    """The recordings under ``base/recordings``: relative path -> SHA-256."""
    return {k: v for k, v in folder_state(base).items() if k.endswith(".wav")}


def craft_backup(
    genuine: Path,
    target: Path,
    edit: Callable[[dict[str, Any], dict[str, bytes]], None] = lambda manifest, members: None,
    *,
    manifest_text: Callable[[bytes], bytes] = lambda text: text,
    zeros: dict[str, int] | None = None,
) -> Path:
    """A copy of the unencrypted backup ``genuine`` with a defect, hashes made to match.

    Args:
        genuine: a backup written by the app.
        target: the crafted file.
        edit: changes the manifest and the members (name -> bytes) in place;
            every member named in the manifest gets its real SHA-256 afterwards.
        manifest_text: changes the manifest's JSON text.
        zeros: extra members of that many zero bytes, deflated (zip bombs),
            added to the manifest with their hashes.
    """
    with zipfile.ZipFile(genuine) as zf:
        members = {name: zf.read(name) for name in zf.namelist()}
    manifest = json.loads(members.pop(MANIFEST))
    edit(manifest, members)
    files = manifest.get("files")
    if isinstance(files, dict):
        for name, content in members.items():
            if name in files:
                files[name] = hashlib.sha256(content).hexdigest()
    with zipfile.ZipFile(target, "w") as out:
        for name, content in members.items():
            out.writestr(name, content)
        for name, size in (zeros or {}).items():
            digest = hashlib.sha256()
            chunk = bytes(1 << 20)
            info = zipfile.ZipInfo(name)
            info.compress_type = zipfile.ZIP_DEFLATED
            with out.open(info, "w", force_zip64=True) as sink:
                left = size
                while left:
                    piece = chunk[: min(left, len(chunk))]
                    sink.write(piece)
                    digest.update(piece)
                    left -= len(piece)
            manifest["files"][name] = digest.hexdigest()
        text = json.dumps(manifest, ensure_ascii=False, indent=1).encode("utf-8")
        out.writestr(MANIFEST, manifest_text(text))
    return target


def rewrite_backup(
    genuine: Path, target: Path, members: str, change: Callable[[bytes], bytes]
) -> Path:
    """A copy of the unencrypted backup ``genuine``, the members matching ``members`` changed.

    ``members`` is a glob on the member names (``"*.wav"``, :data:`MANIFEST`);
    ``change`` gets and returns a member's bytes. Unlike :func:`craft_backup`, no
    hash is made to match, and each member keeps its zip entry (compression, date).
    Fails when no member was changed.
    """
    changed = 0
    with zipfile.ZipFile(genuine) as source, zipfile.ZipFile(target, "w") as out:
        for item in source.infolist():
            content = source.read(item)
            if fnmatch.fnmatchcase(item.filename, members):
                new = change(content)
                changed += new != content
                content = new
            out.writestr(item, content)
    # A change that missed leaves a sound backup: say so here, not through the restore.
    assert changed, f"no member matching {members!r} was changed"
    return target


def fill(data_dir: Path, attempts: int, clock: Callable[[], Any] | None = None) -> None:
    """Add one patient's ``attempts`` (with recordings) in this process."""
    from storage_fixtures import FakeClock, make_clip, make_record

    from therapy_app.storage import SessionRepository

    with SessionRepository(data_dir, clock=clock or FakeClock()) as repo:
        patients = repo.patients.all()
        patient = patients[0] if patients else repo.patients.create("Jeanne Dupont")
        session = repo.sessions.start(patient.id, "repetition")
        done = len(repo.attempts.all(patient_id=patient.id))
        for index in range(done, done + attempts):
            repo.attempts.add(
                make_record(session.id, raw_transcript=f"essai {index}"), make_clip(seed=index)
            )


def attempt_count(db: Path) -> int:
    """Attempts in a database file, read without changing it."""
    import sqlite3

    conn = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True)
    try:
        return int(conn.execute("SELECT COUNT(*) FROM attempts").fetchone()[0])
    finally:
        conn.close()
