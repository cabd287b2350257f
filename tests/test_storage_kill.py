"""The kill test: a writer killed mid-loop loses nothing it reported as committed."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from storage_fixtures import FakeClock

from therapy_app.storage import SessionRepository
from therapy_app.storage.recording_files import file_sha256

PROJECT_ROOT = Path(__file__).resolve().parent.parent

# The child adds attempts with recordings as fast as it can and prints each id
# only once attempts.add has returned, i.e. once the attempt is committed.
CHILD = textwrap.dedent(
    """
    import sys
    import numpy as np
    from therapy_app.audio.clip import AudioClip
    from therapy_app.domain.attempt_record import AttemptRecord
    from therapy_app.storage import SessionRepository

    data_dir, session_id = sys.argv[1], int(sys.argv[2])
    repo = SessionRepository(data_dir)
    rng = np.random.default_rng(int(sys.argv[3]))
    i = 0
    while True:
        clip = AudioClip((rng.standard_normal(8000 + 40 * i) * 0.1).astype(np.float32))
        record = AttemptRecord(
            session_id=session_id, kind="repetition", raw_transcript=f"le chat dort {i}",
            target_text="le chat dort", pause_ratio=0.2,
        )
        attempt_id = repo.attempts.add(record, clip)
        print(attempt_id, flush=True)
        i += 1
    """
)


def _run_and_kill(
    script: Path, data_dir: Path, session_id: int, kill_after: int, seed: int
) -> list[int]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(PROJECT_ROOT), env.get("PYTHONPATH", "")])
    proc = subprocess.Popen(
        [sys.executable, str(script), str(data_dir), str(session_id), str(seed)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    committed: list[int] = []
    try:
        while len(committed) < kill_after:
            line = proc.stdout.readline()  # type: ignore[union-attr]
            if not line:
                raise AssertionError(f"child died early: {proc.stderr.read()}")  # type: ignore[union-attr]
            committed.append(int(line))
        # Land the kill at a varying point inside the next attempt (file write,
        # fsync, transaction, commit).
        time.sleep(random.Random(seed).uniform(0.0, 0.02))
    finally:
        proc.kill()  # SIGKILL on POSIX: no cleanup, no atexit, no flush
        out, _ = proc.communicate(timeout=30)
    # Lines printed before the kill are committed too.
    committed.extend(int(line) for line in out.split())
    assert proc.returncode != 0
    return committed


def test_killed_writer_loses_no_committed_attempt(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    with SessionRepository(data_dir, clock=FakeClock()) as repo:
        patient = repo.patients.create("Patient Test")
        session_id = repo.sessions.start(patient.id, "repetition").id
    script = tmp_path / "child.py"
    script.write_text(CHILD, encoding="utf-8")

    all_committed: list[int] = []
    for round_no, kill_after in enumerate((3, 11, 25)):
        all_committed += _run_and_kill(script, data_dir, session_id, kill_after, seed=round_no)

        with SessionRepository(data_dir) as repo:
            assert repo.maintenance.integrity_check() == ["ok"]
            stored = {a.id: a for a in repo.attempts.all(session_id=session_id)}
            missing = [i for i in all_committed if i not in stored]
            assert not missing, f"committed attempts lost after kill: {missing}"
            for attempt_id in all_committed:
                attempt = stored[attempt_id]
                path = repo.attempts.recording_path(attempt)
                assert path is not None and path.is_file(), attempt_id
                assert file_sha256(path) == attempt.record.recording_sha256, attempt_id
            # At most the attempt in flight may exist beyond what was printed
            # (committed but killed before the print); its file must be intact too.
            for extra in set(stored) - set(all_committed):
                assert repo.attempts.verify_recording(stored[extra])
            # Each kill may leave at most one file without its row.
            assert len(repo.maintenance.orphan_recordings()) <= round_no + 1
    assert len(all_committed) >= 3 + 11 + 25
