"""Opening the database removes half-written temporary recordings of dead writers, nothing else."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from therapy_app.audio.clip import AudioClip
from therapy_app.audio.wavio import temporary_writer_pid, write_wav
from therapy_app.domain.attempt_record import AttemptRecord
from therapy_app.storage import SessionRepository
from therapy_app.storage.recording_files import RECORDINGS_DIR, STALE_TEMP_AGE_S

# A child that writes a recording with the real write_wav and is killed after
# the temporary file is complete but before the rename.
_CHILD = textwrap.dedent(
    """
    import os, sys, time
    import numpy as np
    from therapy_app.audio.clip import AudioClip
    from therapy_app.audio import wavio

    def stuck(src, dst):
        print("written", flush=True)
        time.sleep(600)

    os.replace = stuck
    clip = AudioClip(np.zeros(16000, np.float32), 16000)
    wavio.write_wav(sys.argv[1], clip)
    """
)


def _killed_writer_leaves_a_temp_file(target: Path) -> Path:
    proc = subprocess.Popen(
        [sys.executable, "-c", _CHILD, str(target)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "written"
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    (temp,) = target.parent.glob(".*.tmp")
    assert temporary_writer_pid(temp.name) == proc.pid
    return temp


SILENCE = AudioClip(np.zeros(8000, np.float32), 16000)


def _one_attempt(repo: SessionRepository) -> tuple[int, int]:
    """Jeanne's repetition session with one attempt recorded: (patient id, session id)."""
    patient = repo.patients.create("Jeanne")
    session = repo.sessions.start(patient.id, "repetition")
    repo.attempts.add(
        AttemptRecord(session_id=session.id, kind="repetition", raw_transcript="pomme"), SILENCE
    )
    return patient.id, session.id


@pytest.mark.skipif(os.name != "posix", reason="SIGKILL and process ids")
def test_temp_file_of_a_killed_writer_is_removed_at_opening(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    with SessionRepository(data_dir) as repo:
        patient_id, session_id = _one_attempt(repo)
    month = next((data_dir / RECORDINGS_DIR / str(patient_id)).iterdir())
    killed = _killed_writer_leaves_a_temp_file(month / "killed.wav")
    # A write in progress in a live process (this one) must survive.
    live = month / f".live.wav.{os.getpid()}.abc123.tmp"
    live.write_bytes(b"RIFF")
    # An old temp file from before process ids were in the name.
    old = month / ".old.wav.k2j3h4.tmp"
    old.write_bytes(b"RIFF")
    hour_ago = time.time() - STALE_TEMP_AGE_S - 60
    os.utime(old, (hour_ago, hour_ago))
    recent_unknown = month / ".recent.wav.q9w8e7.tmp"
    recent_unknown.write_bytes(b"RIFF")

    with SessionRepository(data_dir) as repo:
        rel = {p: p.relative_to(data_dir).as_posix() for p in (killed, old)}
        assert repo.removed_temporary_files == sorted(rel.values())
        assert not killed.exists() and not old.exists()
        assert live.exists() and recent_unknown.exists()
        assert repo.maintenance.orphan_recordings() == sorted(
            p.relative_to(data_dir).as_posix() for p in (live, recent_unknown)
        )
        (attempt,) = repo.attempts.all(session_id=session_id)
        assert repo.attempts.verify_recording(attempt)  # complete recordings are never touched


def test_write_wav_names_its_temp_file_after_the_writer(tmp_path: Path, monkeypatch) -> None:  # noqa: ANN001
    seen: list[str] = []
    real_replace = os.replace

    def spy(src: str, dst: str) -> None:
        seen.append(Path(src).name)
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", spy)
    write_wav(tmp_path / "a.wav", AudioClip(np.zeros(100, np.float32), 16000))
    assert len(seen) == 1 and temporary_writer_pid(seen[0]) == os.getpid()
    assert temporary_writer_pid(".a.wav.k2j3h4.tmp") is None
    assert temporary_writer_pid("a.wav") is None


def test_recording_of_a_writer_killed_before_its_commit_is_kept_and_reported(
    tmp_path: Path,
) -> None:
    """Issue 24, item 1: a complete recording is never deleted at opening, row or not.

    Issue 11, item 9 deleted those of dead writers; but a database moved away,
    or one restored from an older backup, has no row for recordings that are
    the clinical record. They are listed by ``orphan_recordings`` instead.
    """
    data_dir = tmp_path / "data"
    with SessionRepository(data_dir) as repo:
        patient_id, session_id = _one_attempt(repo)
        kept = repo.attempts.save_recording(SILENCE, patient_id)
    month = next((data_dir / RECORDINGS_DIR / str(patient_id)).iterdir())
    child = subprocess.Popen(["true"])  # a writer that has exited
    child.wait()
    dead_writer = month / f"{'a' * 32}-{child.pid}.wav"
    dead_writer.write_bytes(b"RIFF complete but never committed")
    legacy = month / f"{'b' * 32}.wav"  # named before the writer was in the name
    legacy.write_bytes(b"RIFF")
    with SessionRepository(data_dir) as repo:
        assert repo.removed_temporary_files == []
        assert dead_writer.exists() and legacy.exists() and (data_dir / kept.relative_path).exists()
        assert repo.maintenance.orphan_recordings() == sorted(
            [p.relative_to(data_dir).as_posix() for p in (dead_writer, legacy)]
            + [kept.relative_path]
        )
        (attempt,) = repo.attempts.all(session_id=session_id)
        assert repo.attempts.verify_recording(attempt)


def test_a_referenced_file_that_looks_temporary_is_kept(tmp_path: Path) -> None:
    """A restored database may name a recording like a temporary file: it is still its own."""
    data_dir = tmp_path / "data"
    with SessionRepository(data_dir) as repo:
        patient_id, session_id = _one_attempt(repo)
        (attempt,) = repo.attempts.all(session_id=session_id)
        current = repo.attempts.recording_path(attempt)
        assert current is not None
        odd = current.with_name(".odd.wav.k2j3h4.tmp")
        current.rename(odd)
        repo._db.execute(  # noqa: SLF001 - a row as another tool or version wrote it
            "UPDATE attempts SET recording_path = ?", (odd.relative_to(data_dir).as_posix(),)
        )
        repo._db.conn.commit()  # noqa: SLF001
    hour_ago = time.time() - STALE_TEMP_AGE_S - 60
    os.utime(odd, (hour_ago, hour_ago))
    with SessionRepository(data_dir) as repo:
        assert repo.removed_temporary_files == []
        (attempt,) = repo.attempts.all(session_id=session_id)
        assert repo.attempts.verify_recording(attempt)
