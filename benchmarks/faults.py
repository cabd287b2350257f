"""Fault benchmark (issue 11): replays the catalogue of bad inputs and faults.

Usage: ``python benchmarks/faults.py [--kills 50] [--no-strace] [--only TEXT]``.

Every probe runs in its own process (the ``therapy-app`` command line, or a
short Python script over the storage API), under ``strace`` when it is
installed, and is judged on four counts:

* **crash**: a Python traceback, an exit status other than the expected one,
  or an error without its French message;
* **lost**: attempts reported as saved (or queued) that are not in the
  database afterwards;
* **orphans**: recordings or temporary files left that no attempt refers to,
  after the next start-up's clean-up;
* **network**: ``connect``/``sendto`` calls to an IPv4/IPv6 address (a DNS
  lookup included); local sockets (audio, X) are not counted.

Prints a table and writes ``benchmarks/results/faults.json``. Target: 0 / 0 / 0 / 0.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import shutil
import struct
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results" / "faults.json"


@dataclass
class Result:
    """One probe's outcome."""

    name: str
    category: str
    crashed: bool
    lost: int
    orphans: int
    network: int
    seconds: float
    detail: str


class Runner:
    """Runs commands in a private data folder, optionally under strace."""

    def __init__(self, work: Path, use_strace: bool) -> None:
        self.work = work
        self.strace = use_strace and shutil.which("strace") is not None
        self._count = 0

    def run(
        self,
        argv: list[str | bytes],
        data_dir: Path,
        timeout: float = 300,
        prefix: list[str] | None = None,
    ) -> tuple[subprocess.CompletedProcess[bytes], int]:
        """Run ``argv``; returns the process and its count of network calls."""
        env = {
            **os.environ,
            "THERAPY_APP_DATA_DIR": str(data_dir),
            "PYTHONPATH": str(ROOT),
            "PYTHONDONTWRITEBYTECODE": "1",
        }
        self._count += 1
        log = self.work / f"strace-{self._count}.log"
        command = list(argv)
        if self.strace:
            command = [
                "strace", "-f", "-qq", "-o", str(log),
                "-e", "trace=connect,sendto,sendmsg",
            ] + command  # fmt: skip
        command = (prefix or []) + command
        done = subprocess.run(command, capture_output=True, env=env, timeout=timeout, check=False)
        network = 0
        if log.exists():
            for line in log.read_text(errors="replace").splitlines():
                if "AF_INET" in line or "sin_port=htons(53)" in line:
                    network += 1
            log.unlink()
        return done, network


def _crashed(done: subprocess.CompletedProcess[bytes], expected: set[int]) -> tuple[bool, str]:
    err = done.stderr.decode("utf-8", "replace")
    if "Traceback" in err:
        return True, err.strip().splitlines()[-1][:200]
    if done.returncode not in expected:
        return True, f"exit {done.returncode}: {err.strip()[:200]}"
    if done.returncode == 2 and not any(line.startswith("Erreur : ") for line in err.splitlines()):
        return True, f"no French error line: {err.strip()[:200]}"
    return False, (err.strip().splitlines() or [""])[-1][:160]


# -- command line -------------------------------------------------------------

_CLI = [sys.executable, "-m", "therapy_app.cli"]
_SPOKEN = str(ROOT / "tests" / "data" / "speech" / "word_01.wav")

CLI_PROBES: list[tuple[str, list[str | bytes]]] = [
    ("speak --rate 0", ["speak", "bonjour", "--rate", "0"]),
    ("speak --rate nan", ["speak", "bonjour", "--rate", "nan"]),
    ("speak --rate -1", ["speak", "bonjour", "--rate", "-1"]),
    ("speak --rate abc", ["speak", "bonjour", "--rate", "abc"]),
    ("speak --pause -5", ["speak", "bonjour", "--pause", "-5"]),
    ("speak --pause 2500", ["speak", "bonjour", "--pause", "2500"]),
    ("speak empty text", ["speak", ""]),
    ("loop --rate 10000", ["loop", "--rate", "10000", "--once"]),
    ("loop --output-dir file", ["loop", "--output-dir", _SPOKEN, "--once"]),
    ("transcribe --beam 0", ["transcribe", _SPOKEN, "--beam", "0"]),
    ("transcribe --beam -3", ["transcribe", _SPOKEN, "--beam", "-3"]),
    ("transcribe --beam 500", ["transcribe", _SPOKEN, "--beam", "500"]),
    ("transcribe --beam 2.5", ["transcribe", _SPOKEN, "--beam", "2.5"]),
    ("correct Latin-1 byte", ["correct", b"moi aller \xe9cole"]),
    ("correct --beam 0", ["correct", "moi aller", "--beam", "0"]),
    ("unknown command", ["frobnicate"]),
    ("no command", []),
    ("score missing file", ["score", "/nonexistent.wav", "pomme"]),
    ("backup without destination", ["backup"]),
    ("backup into a file's folder", ["backup", _SPOKEN + "/x.therapy-backup"]),
    ("restore missing file", ["restore", "/nonexistent.therapy-backup", "--yes"]),
    ("restore a WAV", ["restore", _SPOKEN, "--yes"]),
    ("backup --max-age-days x", ["backup", "--status", "--max-age-days", "x"]),
]


def _wav(
    rate: int = 16000,
    channels: int = 1,
    bits: int = 16,
    code: int = 1,
    declared: int | None = None,
    payload: bytes = b"\0" * 3200,
    riff: bytes = b"RIFF",
    wave: bytes = b"WAVE",
) -> bytes:
    block = (channels * bits // 8) & 0xFFFF
    fmt = struct.pack("<HHIIHH", code, channels, rate, (rate * block) & 0xFFFFFFFF, block, bits)
    data_len = len(payload) if declared is None else declared
    body = wave + b"fmt " + struct.pack("<I", 16) + fmt + b"data" + struct.pack("<I", data_len)
    return riff + struct.pack("<I", 4 + len(body) - 4 + len(payload)) + body + payload


AUDIO_PROBES: list[tuple[str, bytes | None]] = [
    ("rate 384001 Hz", _wav(rate=384_001)),
    ("rate 10000019 Hz", _wav(rate=10_000_019)),
    ("rate 4294967295 Hz", _wav(rate=4_294_967_295)),
    ("rate 0 Hz", _wav(rate=0)),
    ("rate 1 Hz", _wav(rate=1)),
    ("0 channels", _wav(channels=0)),
    ("9 channels", _wav(channels=9)),
    ("65535 channels", _wav(channels=65535)),
    ("12-bit samples", _wav(bits=12)),
    ("format code 85 (MP3)", _wav(code=85)),
    ("declares 1.8 GB of data", _wav(declared=1_800_000_000)),
    ("odd data length", _wav(payload=b"\0" * 3201)),
    ("no WAVE tag", _wav(wave=b"AVI ")),
    ("RIFX (big-endian)", _wav(riff=b"RIFX")),
    ("truncated header", _wav()[:20]),
    ("empty file", b""),
    ("text file", b"ceci n'est pas un son\n"),
    ("no samples", _wav(payload=b"")),
    ("a folder", None),
]


def cli_probes(runner: Runner) -> list[Result]:
    out = []
    for name, args in CLI_PROBES:
        data = runner.work / "cli-data"
        started = time.perf_counter()
        done, network = runner.run([*_CLI, *args], data)
        crashed, detail = _crashed(done, {2})
        out.append(
            Result(name, "arguments", crashed, 0, 0, network, time.perf_counter() - started, detail)
        )
    for name, content in AUDIO_PROBES:
        path = runner.work / "audio" / f"{len(out)}.wav"
        path.parent.mkdir(exist_ok=True)
        if content is None:
            path.mkdir()
        else:
            path.write_bytes(content)
        started = time.perf_counter()
        done, network = runner.run([*_CLI, "transcribe", str(path)], runner.work / "cli-data")
        # A readable but empty recording is "no speech" (3), not an error.
        crashed, detail = _crashed(done, {2, 3})
        out.append(
            Result(name, "audio", crashed, 0, 0, network, time.perf_counter() - started, detail)
        )
    return out


# -- storage ------------------------------------------------------------------

PRELUDE = textwrap.dedent(
    """
    import json, os, sqlite3, sys
    from pathlib import Path
    import numpy as np
    from therapy_app.audio.clip import AudioClip
    from therapy_app.errors import TherapyAppError
    from therapy_app.storage import AttemptRecord, SessionRepository, database
    from therapy_app.storage.repository import DB_FILENAME

    DATA = Path(sys.argv[1])
    DB = DATA / DB_FILENAME

    def clip(seed=0):
        rng = np.random.default_rng(seed)
        return AudioClip((rng.standard_normal(8000) * 0.1).astype(np.float32))

    def fill(n=3):
        with SessionRepository(DATA) as repo:
            patient = repo.create_patient("Jeanne")
            session = repo.start_session(patient.id, "repetition")
            ids = [repo.add_attempt(AttemptRecord(session_id=session.id, kind="repetition",
                   raw_transcript=f"essai {i}", target_text="essai"), clip(i)) for i in range(n)]
        return patient.id, session.id, ids

    def sql(statement, params=()):
        conn = sqlite3.connect(DB)
        with conn:
            conn.execute(statement, params)
        conn.close()

    def french(call):
        try:
            call()
        except TherapyAppError as exc:
            return exc.french()
        return ""

    def left_over(expected_ids):
        # Reopen (start-up clean-up), then count lost attempts and orphan files.
        with SessionRepository(DATA, check_integrity=False) as repo:
            present = {r[0] for r in repo._db.execute("SELECT id FROM attempts")}
            orphans = len(repo.orphan_recordings())
        return len(set(expected_ids) - present), orphans

    def report(ok, lost=0, orphans=0, message=""):
        print(json.dumps({"ok": bool(ok), "lost": lost, "orphans": orphans, "message": message}))
    """
)

STORAGE_PROBES: dict[str, str] = {
    "another program's SQLite file": """
        DATA.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(DB); conn.execute("CREATE TABLE contacts (n)"); conn.commit()
        conn.close(); before = DB.read_bytes()
        msg = french(lambda: SessionRepository(DATA))
        report("autre programme" in msg and DB.read_bytes() == before, message=msg)
    """,
    "data folder is a regular file": """
        DATA.parent.mkdir(parents=True, exist_ok=True); DATA.write_text("x")
        msg = french(lambda: SessionRepository(DATA))
        report("fichier" in msg, message=msg)
    """,
    "database path is a folder": """
        (DATA / DB_FILENAME).mkdir(parents=True)
        msg = french(lambda: SessionRepository(DATA))
        report("dossier" in msg, message=msg)
    """,
    "recordings folder is a file": """
        pid, sid, ids = fill(1)
        (DATA / "recordings").rename(DATA / "rec-moved"); (DATA / "recordings").write_text("x")
        with SessionRepository(DATA) as repo:
            msg = french(lambda: repo.add_attempt(
                AttemptRecord(session_id=sid, kind="repetition"), clip()))
        report("dossier" in msg, message=msg)
    """,
    "garbage instead of a database": """
        DATA.mkdir(parents=True); DB.write_bytes(b"not sqlite" * 500)
        msg = french(lambda: SessionRepository(DATA))
        report("endommagée" in msg, message=msg)
    """,
    "database zero-filled": """
        pid, sid, ids = fill(1); DB.write_bytes(b"\\0" * DB.stat().st_size)
        for extra in ("-wal", "-shm"):
            Path(str(DB) + extra).unlink(missing_ok=True)
        msg = french(lambda: SessionRepository(DATA))
        report(bool(msg), message=msg)
    """,
    "database cut in half": """
        pid, sid, ids = fill(30)
        c = sqlite3.connect(DB); c.execute("PRAGMA wal_checkpoint(TRUNCATE)"); c.close()
        data = DB.read_bytes(); DB.write_bytes(data[: len(data) // 2])
        msg = french(lambda: SessionRepository(DATA).close())
        report(bool(msg), message=msg)
    """,
    "damaged page (integrity_check)": """
        pid, sid, ids = fill(200)
        c = sqlite3.connect(DB); c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        size = c.execute("PRAGMA page_size").fetchone()[0]
        pages = c.execute("PRAGMA page_count").fetchone()[0]; c.close()
        with DB.open("r+b") as raw:
            raw.seek((pages - 1) * size); raw.write(bytes(range(256)) * (size // 256))
        msg = french(lambda: SessionRepository(DATA))
        report("restore" in msg, message=msg)
    """,
    "newer schema version": """
        pid, sid, ids = fill(1); sql("PRAGMA user_version = 99")
        msg = french(lambda: SessionRepository(DATA))
        report("plus récente" in msg, message=msg)
    """,
    "bad JSON in one attempt": """
        pid, sid, ids = fill(3)
        sql("UPDATE attempts SET timings = '{cassé' WHERE id = ?", (ids[0],))
        with SessionRepository(DATA) as repo:
            seen = repo.list_attempts(patient_id=pid); repo.session_history(pid)
        lost, orphans = left_over(ids)
        report(len(seen) == 3 and seen[0].damaged, lost, orphans)
    """,
    "bad date in one attempt": """
        pid, sid, ids = fill(3)
        sql("UPDATE attempts SET created_at = 'hier' WHERE id = ?", (ids[0],))
        with SessionRepository(DATA) as repo:
            seen = repo.list_attempts(patient_id=pid); history = repo.session_history(pid)
        report(len(seen) == 2 and len(history) == 1)
    """,
    "bad date in one session": """
        pid, sid, ids = fill(3)
        sql("UPDATE sessions SET started_at = '31/02' WHERE id = ?", (sid,))
        with SessionRepository(DATA) as repo:
            repo.session_history(pid); repo.progress(pid, "wer"); repo.list_sessions(pid)
            rows = repo.export_rows(pid)
        report(len(rows) == 3)
    """,
    "database locked during a save": """
        pid, sid, ids = fill(1)
        database.BUSY_TIMEOUT_MS = 300
        with SessionRepository(DATA) as repo:
            other = sqlite3.connect(DB, isolation_level=None); other.execute("BEGIN IMMEDIATE")
            saved = repo.save_attempt(AttemptRecord(session_id=sid, kind="repetition",
                                      raw_transcript="pendant le verrou"), clip(9))
            other.execute("ROLLBACK"); other.close()
        with SessionRepository(DATA) as repo:
            n = len(repo.list_attempts(session_id=sid)); orphans = len(repo.orphan_recordings())
        report(saved.queued and n == 2, 2 - n, orphans)
    """,
    "database locked at session start": """
        from therapy_app.practice.scheduling import InlineScheduler
        from therapy_app.practice.session_store import SessionStore
        pid, sid, ids = fill(0)
        database.BUSY_TIMEOUT_MS = 300
        events = []
        with SessionRepository(DATA) as repo:
            other = sqlite3.connect(DB, isolation_level=None); other.execute("BEGIN IMMEDIATE")
            store = SessionStore(repo, pid, "repetition", InlineScheduler(), events.append)
            store.open()
            for i in range(3):
                store.save(lambda s, i=i: AttemptRecord(session_id=s, kind="repetition",
                           raw_transcript=f"bloqué {i}"), clip(i))
            other.execute("ROLLBACK"); other.close()
            store.close()
        with SessionRepository(DATA) as repo:
            n = len(repo.list_attempts(patient_id=pid)); orphans = len(repo.orphan_recordings())
        report(n == 3, 3 - n, orphans)
    """,
    "queue replayed at next start-up": """
        pid, sid, ids = fill(1)
        database.BUSY_TIMEOUT_MS = 300
        repo = SessionRepository(DATA)
        other = sqlite3.connect(DB, isolation_level=None); other.execute("BEGIN IMMEDIATE")
        repo.save_attempt(AttemptRecord(session_id=sid, kind="repetition"), clip(3))
        other.execute("ROLLBACK"); other.close(); repo.close()
        with SessionRepository(DATA) as again:
            n = len(again.list_attempts(session_id=sid)); orphans = len(again.orphan_recordings())
        report(n == 2, 2 - n, orphans)
    """,
    "second therapist account": """
        with SessionRepository(DATA) as repo:
            repo.create_therapist("ortho", "bon mot de passe")
            msg = french(lambda: repo.create_therapist("intrus", "autre mot de passe"))
        report("existe déjà" in msg, message=msg)
    """,
    "lockout of an unknown username": """
        from therapy_app.storage import AccountLockedError
        with SessionRepository(DATA) as repo:
            repo.create_therapist("ortho", "bon mot de passe")
            messages = []
            for name in ("ortho", "inconnu"):
                try:
                    for _ in range(5):
                        repo.verify_therapist(name, "mauvais")
                except AccountLockedError as exc:
                    messages.append("".join(c for c in exc.french() if not c.isdigit()))
        report(len(messages) == 2 and messages[0] == messages[1], message=messages[-1])
    """,
    "tampered encrypted backup": """
        from therapy_app.storage.backup import create_backup, restore_backup
        pid, sid, ids = fill(2)
        with SessionRepository(DATA) as repo:
            info = create_backup(repo, DATA.parent / "b.therapy-backup", passphrase="x" * 12)
        data = bytearray(info.path.read_bytes()); data[len(data) // 2] ^= 1
        info.path.write_bytes(bytes(data))
        msg = french(lambda: restore_backup(info.path, DATA.parent / "other", passphrase="x" * 12))
        report("abîmé" in msg, message=msg)
    """,
    "backup while writing, restored": """
        import threading
        from therapy_app.storage.backup import create_backup, restore_backup
        pid, sid, ids = fill(2)
        repo = SessionRepository(DATA); stop = threading.Event(); written = []
        def writer():
            w = SessionRepository(DATA)
            while not stop.is_set():
                written.append(w.add_attempt(AttemptRecord(session_id=sid, kind="repetition"),
                                             clip(len(written))))
            w.close()
        t = threading.Thread(target=writer); t.start()
        info = create_backup(repo, DATA.parent); stop.set(); t.join(); repo.close()
        restore_backup(info.path, DATA.parent / "restored")
        with SessionRepository(DATA.parent / "restored") as r:
            ok = all(r.verify_recording(a) for a in r.list_attempts(patient_id=pid))
            n = len(r.list_attempts(patient_id=pid))
        lost, orphans = left_over(ids + written)
        report(ok and n == info.attempt_count, lost, orphans)
    """,
}

SHELL_PROBES = ("read-only data folder", "disk full while recording", "10 copies started at once")

READ_ONLY = """
    pid, sid, ids = fill(2)
"""

VIEW_READ_ONLY = """
    with SessionRepository(DATA) as repo:
        n = len(repo.list_attempts(patient_id=1))
        msg = french(lambda: repo.create_patient("x"))
    report(repo.read_only and n == 2 and "lecture seule" in msg, message=repo.notices[0])
"""

DISK_FULL = """
    written = []
    msg = ""
    with SessionRepository(DATA) as repo:
        patient = repo.create_patient("Jeanne")
        session = repo.start_session(patient.id, "repetition")
        try:
            for i in range(200):
                written.append(repo.add_attempt(
                    AttemptRecord(session_id=session.id, kind="repetition"), clip(i)))
        except TherapyAppError as exc:
            msg = exc.french()
        assert repo.integrity_check() == ["ok"]
    lost, orphans = left_over(written)
    report("plein" in msg or "écrire" in msg, lost, orphans, msg)
"""

START = """
    with SessionRepository(DATA) as repo:
        repo.list_patients()
    report(True)
"""


def _python(runner: Runner, name: str, body: str, data: Path, prefix=None) -> Result:
    started = time.perf_counter()
    code = PRELUDE + textwrap.dedent(body)
    done, network = runner.run([sys.executable, "-c", code, str(data)], data, prefix=prefix)
    crashed, detail = _crashed(done, {0})
    lost = orphans = 0
    if not crashed:
        try:
            found = json.loads(done.stdout.decode().strip().splitlines()[-1])
            lost, orphans = found["lost"], found["orphans"]
            if not found["ok"]:
                crashed, detail = True, f"unexpected behaviour: {found['message']}"[:200]
            else:
                detail = found["message"][:160]
        except (IndexError, ValueError, KeyError) as exc:
            crashed, detail = True, f"no report: {exc!r}"
    return Result(
        name, "storage", crashed, lost, orphans, network, time.perf_counter() - started, detail
    )


def storage_probes(runner: Runner) -> list[Result]:
    out = []
    for index, (name, body) in enumerate(STORAGE_PROBES.items()):
        out.append(_python(runner, name, body, runner.work / f"storage-{index}" / "data"))
    # Read-only: a private read-only bind mount as root (root ignores permissions).
    data = runner.work / "read-only" / "data"
    _python(runner, "fill", READ_ONLY, data)
    if os.geteuid() == 0 and shutil.which("unshare"):
        script = 'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && shift && exec "$@"'
        prefix = ["unshare", "-m", "sh", "-c", script, "sh", str(data)]
        out.append(_python(runner, SHELL_PROBES[0], VIEW_READ_ONLY, data, prefix=prefix))
        # Disk full: a 1 MiB file system for the data folder.
        full = runner.work / "full" / "data"
        full.mkdir(parents=True)
        script = 'mount -t tmpfs -o size=1m none "$1" && shift && exec "$@"'
        prefix = ["unshare", "-m", "sh", "-c", script, "sh", str(full)]
        out.append(_python(runner, SHELL_PROBES[1], DISK_FULL, full, prefix=prefix))
    # Concurrent first start of ten copies.
    fresh = runner.work / "concurrent" / "data"
    started = time.perf_counter()
    code = PRELUDE + textwrap.dedent(START)
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", code, str(fresh)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        for _ in range(10)
    ]
    failures = [p for p in procs if p.wait(timeout=120) != 0]
    detail = failures[0].stderr.read().decode()[-160:] if failures else "10/10 opened"
    for proc in procs:
        proc.stdout.close()  # type: ignore[union-attr]
        proc.stderr.close()  # type: ignore[union-attr]
    out.append(
        Result(
            SHELL_PROBES[2],
            "storage",
            bool(failures),
            0,
            0,
            0,
            time.perf_counter() - started,
            detail,
        )  # fmt: skip
    )
    return out


# -- kills --------------------------------------------------------------------

KILL_CHILD = PRELUDE + textwrap.dedent(
    """
    sid = int(sys.argv[2])
    repo = SessionRepository(DATA)
    i = 0
    while True:
        attempt_id = repo.add_attempt(AttemptRecord(session_id=sid, kind="repetition",
                                      raw_transcript=f"essai {i}"), clip(i))
        print(attempt_id, flush=True)
        i += 1
    """
)


def kill_probes(runner: Runner, kills: int, seed: int = 11) -> list[Result]:
    rng = random.Random(seed)
    data = runner.work / "kills" / "data"
    setup = _python(runner, "setup", "pid, sid, ids = fill(0)\nreport(True)", data)
    if setup.crashed:
        return [Result("kill setup", "kill", True, 0, 0, 0, setup.seconds, setup.detail)]
    script = runner.work / "kill_child.py"
    script.write_text(KILL_CHILD)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = []
    committed: list[int] = []
    for number in range(1, kills + 1):
        started = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, str(script), str(data), "1"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            text=True,
        )
        mine: list[int] = []
        target = rng.randint(1, 6)
        while len(mine) < target:
            line = proc.stdout.readline()  # type: ignore[union-attr]
            if not line:
                break
            mine.append(int(line))
        time.sleep(rng.uniform(0.0, 0.05))  # land anywhere in the next write
        proc.kill()
        rest, err = proc.communicate(timeout=30)
        mine += [int(x) for x in rest.split()]
        committed += mine
        crashed = "Traceback" in err and "KeyboardInterrupt" not in err
        out.append(
            Result(
                f"SIGKILL {number:02d}",
                "kill",
                crashed,
                0,
                0,
                0,
                time.perf_counter() - started,
                f"{len(mine)} committed",
            )  # fmt: skip
        )
    # One start-up after all the kills: lost and orphans are counted once, on the last probe.
    check = _python(
        runner,
        "after kills",
        f"lost, orphans = left_over({committed!r})\n"
        "tmp = len(list((DATA / 'recordings').rglob('*.tmp')))\n"
        "report(True, lost, orphans + tmp)",
        data,
    )
    if out:
        out[-1].lost, out[-1].orphans = check.lost, check.orphans
        out[-1].crashed = out[-1].crashed or check.crashed
        out[-1].detail += f"; after restart: {check.detail or 'checked'}"
    return out


def _table(results: list[Result]) -> str:
    lines = [f"{'category':10} {'probes':>6} {'crashes':>8} {'lost':>5} {'orphans':>8} {'net':>4}"]
    for category in dict.fromkeys(r.category for r in results):
        group = [r for r in results if r.category == category]
        lines.append(
            f"{category:10} {len(group):6d} {sum(r.crashed for r in group):8d} "
            f"{sum(r.lost for r in group):5d} {sum(r.orphans for r in group):8d} "
            f"{sum(r.network for r in group):4d}"
        )
    lines.append(
        f"{'total':10} {len(results):6d} {sum(r.crashed for r in results):8d} "
        f"{sum(r.lost for r in results):5d} {sum(r.orphans for r in results):8d} "
        f"{sum(r.network for r in results):4d}"
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=50, help="SIGKILLs during writing")
    parser.add_argument("--no-strace", action="store_true", help="do not count network calls")
    parser.add_argument("--only", help="run the categories whose name contains this")
    parser.add_argument("--output", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    groups: dict[str, Callable[[Runner], list[Result]]] = {
        "arguments+audio": cli_probes,
        "storage": storage_probes,
        "kill": lambda r: kill_probes(r, args.kills),
    }
    results: list[Result] = []
    with tempfile.TemporaryDirectory(prefix="faults-") as tmp:
        runner = Runner(Path(tmp), use_strace=not args.no_strace)
        for name, probe in groups.items():
            if args.only and args.only not in name:
                continue
            results += probe(runner)
        strace = runner.strace
    for r in results:
        if r.crashed or r.lost or r.orphans or r.network:
            print(f"!! {r.category}/{r.name}: {r.detail}", file=sys.stderr)
    table = _table(results)
    print(table)
    payload = {
        "machine": platform.platform(),
        "python": platform.python_version(),
        "network_counted": strace,
        "totals": {
            "probes": len(results),
            "crashes": sum(r.crashed for r in results),
            "lost": sum(r.lost for r in results),
            "orphans": sum(r.orphans for r in results),
            "network": sum(r.network for r in results),
        },
        "probes": [asdict(r) for r in results],
    }
    if not args.only:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(json.dumps(payload, ensure_ascii=False, indent=1) + "\n")
    bad = payload["totals"]
    return 0 if not (bad["crashes"] or bad["lost"] or bad["orphans"] or bad["network"]) else 1


if __name__ == "__main__":
    sys.exit(main())
