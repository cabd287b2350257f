"""Fault benchmark (issues 11 and 24): replays the catalogue of bad inputs and faults.

Usage: ``python benchmarks/faults.py [--kills 50] [--no-strace] [--only GROUPS]
[--markdown]`` (``--only data-loss,hangs`` runs the groups whose name contains
one of the comma-separated words; ``--markdown`` prints the saved results as
Markdown tables and runs nothing). See docs/faults.md.

Every probe runs in its own process (the ``therapy-app`` command line, or a
short Python script over the API) in a private box (:mod:`benchmarks.fault_sandbox`),
under ``strace`` when it is installed, and is judged on seven counts:

* **crash**: a Python traceback, an exit status other than the expected one,
  an error without its French message, or a check of the data that fails;
* **lost**: attempts reported as saved (or queued) that are not in the
  database afterwards, recordings or files that are gone;
* **orphans**: half-written temporary recordings left after the next
  start-up's clean-up (a complete recording without a row, left by a writer
  killed before its commit, is kept on purpose and listed for the therapist:
  the app never deletes a finished recording);
* **network**: ``connect``/``sendto`` calls to an IPv4/IPv6 address (a DNS
  lookup included); local sockets (audio, X) are not counted;
* **outside**: files created, changed or removed outside the probe's data
  folder and declared outputs (its HOME, TMPDIR, XDG folders, working folder
  and inputs are listed before and after; strace adds absolute paths elsewhere);
* **hang**: still running at the probe's time limit (killed, not a crash);
* **memory**: peak resident memory of the process tree over 1 GiB.

Prints a table and writes ``benchmarks/results/faults.json``.
Target: 0 crashes, 0 lost, 0 orphans, 0 network, 0 outside, 0 hangs, peak < 1 GiB.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

from benchmarks.bookkeeping import write_report  # noqa: E402
from benchmarks.fault_catalogue import CATALOGUE, catalogue_probes  # noqa: E402
from benchmarks.fault_results import Result, judge, markdown, text_table, totals  # noqa: E402
from benchmarks.fault_sandbox import (  # noqa: E402
    CLI,
    MEMORY_LIMIT_MB,
    PRELUDE,
    Box,
    Runner,
    read_only_prefix,
)
from benchmarks.hostile_files import wav as _wav  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results" / "faults.json"
CLI_TIMEOUT_S = 60.0
API_TIMEOUT_S = 120.0


# -- command line -------------------------------------------------------------

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


def _cli_probe(
    runner: Runner, name: str, category: str, args: list[str | bytes], codes: set[int]
) -> Result:
    """One command in a fresh box, judged on its exit status and stderr."""
    box = runner.box(name)
    outcome = runner.run([*CLI, *args], box, CLI_TIMEOUT_S)
    crashed, detail = judge(outcome, codes)
    return Result.measured(name, category, outcome, crashed, detail)


def cli_probes(runner: Runner) -> list[Result]:
    out = [_cli_probe(runner, name, "arguments", args, {2}) for name, args in CLI_PROBES]
    for index, (name, content) in enumerate(AUDIO_PROBES):
        path = runner.work / "audio" / f"{index}.wav"
        path.parent.mkdir(exist_ok=True)
        if content is None:
            path.mkdir()
        else:
            path.write_bytes(content)
        # A readable but empty recording is "no speech" (3), not an error.
        out.append(_cli_probe(runner, name, "audio", ["transcribe", str(path)], {2, 3}))
    return out


# -- storage ------------------------------------------------------------------

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
            msg = french(lambda: repo.attempts.add(
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
            seen = repo.attempts.all(patient_id=pid); repo.history.summaries(pid)
        lost, orphans = left_over(ids)
        report(len(seen) == 3 and seen[0].damaged, lost, orphans)
    """,
    "bad date in one attempt": """
        pid, sid, ids = fill(3)
        sql("UPDATE attempts SET created_at = 'hier' WHERE id = ?", (ids[0],))
        with SessionRepository(DATA) as repo:
            seen = repo.attempts.all(patient_id=pid); history = repo.history.summaries(pid)
        report(len(seen) == 2 and len(history) == 1)
    """,
    "bad date in one session": """
        pid, sid, ids = fill(3)
        sql("UPDATE sessions SET started_at = '31/02' WHERE id = ?", (sid,))
        with SessionRepository(DATA) as repo:
            repo.history.summaries(pid); repo.history.progress(pid, "wer"); repo.sessions.all(pid)
            rows = repo.history.export_rows(pid)
        report(len(rows) == 3)
    """,
    "database locked during a save": """
        pid, sid, ids = fill(1)
        database.BUSY_TIMEOUT_MS = 300
        with SessionRepository(DATA) as repo:
            other = sqlite3.connect(DB, isolation_level=None); other.execute("BEGIN IMMEDIATE")
            saved = repo.queue.save_attempt(AttemptRecord(session_id=sid, kind="repetition",
                                      raw_transcript="pendant le verrou"), clip(9))
            other.execute("ROLLBACK"); other.close()
        with SessionRepository(DATA) as repo:
            n = len(repo.attempts.all(session_id=sid))
            orphans = len(repo.maintenance.orphan_recordings())
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
            n = len(repo.attempts.all(patient_id=pid))
            orphans = len(repo.maintenance.orphan_recordings())
        report(n == 3, 3 - n, orphans)
    """,
    "queue replayed at next start-up": """
        pid, sid, ids = fill(1)
        database.BUSY_TIMEOUT_MS = 300
        repo = SessionRepository(DATA)
        other = sqlite3.connect(DB, isolation_level=None); other.execute("BEGIN IMMEDIATE")
        repo.queue.save_attempt(AttemptRecord(session_id=sid, kind="repetition"), clip(3))
        other.execute("ROLLBACK"); other.close(); repo.close()
        with SessionRepository(DATA) as again:
            n = len(again.attempts.all(session_id=sid))
            orphans = len(again.maintenance.orphan_recordings())
        report(n == 2, 2 - n, orphans)
    """,
    "second therapist account": """
        with SessionRepository(DATA) as repo:
            repo.accounts.create("ortho", "bon mot de passe")
            msg = french(lambda: repo.accounts.create("intrus", "autre mot de passe"))
        report("existe déjà" in msg, message=msg)
    """,
    "lockout of an unknown username": """
        from therapy_app.storage import AccountLockedError
        with SessionRepository(DATA) as repo:
            repo.accounts.create("ortho", "bon mot de passe")
            messages = []
            for name in ("ortho", "inconnu"):
                try:
                    for _ in range(5):
                        repo.accounts.verify(name, "mauvais")
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
                written.append(w.attempts.add(AttemptRecord(session_id=sid, kind="repetition"),
                                             clip(len(written))))
            w.close()
        t = threading.Thread(target=writer); t.start()
        info = create_backup(repo, DATA.parent); stop.set(); t.join(); repo.close()
        restore_backup(info.path, DATA.parent / "restored")
        with SessionRepository(DATA.parent / "restored") as r:
            ok = all(r.attempts.verify_recording(a) for a in r.attempts.all(patient_id=pid))
            n = len(r.attempts.all(patient_id=pid))
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
        n = len(repo.attempts.all(patient_id=1))
        msg = french(lambda: repo.patients.create("x"))
    report(repo.read_only and n == 2 and "lecture seule" in msg, message=repo.notices[0])
"""

DISK_FULL = """
    written = []
    msg = ""
    with SessionRepository(DATA) as repo:
        patient = repo.patients.create("Jeanne")
        session = repo.sessions.start(patient.id, "repetition")
        try:
            for i in range(200):
                written.append(repo.attempts.add(
                    AttemptRecord(session_id=session.id, kind="repetition"), clip(i)))
        except TherapyAppError as exc:
            msg = exc.french()
        assert repo.maintenance.integrity_check() == ["ok"]
    lost, orphans = left_over(written)
    report("plein" in msg or "écrire" in msg, lost, orphans, msg)
"""

START = """
    with SessionRepository(DATA) as repo:
        repo.patients.all()
    report(True)
"""


STORAGE_OUTPUTS = ("b.therapy-backup", "other", "restored", "sauvegarde-*", ".sauvegarde-*")
"""What the storage scripts write beside their data folder."""


def _python(
    runner: Runner, box: Box, name: str, body: str, prefix: list[str] | None = None
) -> Result:
    code = PRELUDE + textwrap.dedent(body)
    outcome = runner.run([sys.executable, "-c", code, "{data}"], box, API_TIMEOUT_S, prefix)
    crashed, detail = judge(outcome, {0})
    lost = orphans = 0
    if not (crashed or outcome.hung):
        try:
            found = json.loads(outcome.stdout.decode().strip().splitlines()[-1])
            lost, orphans = found["lost"], found["orphans"]
            if not found["ok"]:
                crashed, detail = True, f"unexpected behaviour: {found['message']}"[:200]
            else:
                detail = found["message"][:160]
        except (IndexError, ValueError, KeyError) as exc:
            crashed, detail = True, f"no report: {exc!r}"
    return Result.measured(name, "storage", outcome, crashed, detail, lost=lost, orphans=orphans)


def storage_probes(runner: Runner) -> list[Result]:
    out = [
        _python(runner, runner.box(name, outputs=STORAGE_OUTPUTS), name, body)
        for name, body in STORAGE_PROBES.items()
    ]
    # Read-only: a private read-only bind mount as root (root ignores permissions).
    box = runner.box(SHELL_PROBES[0])
    runner.python(READ_ONLY, box)
    prefix = read_only_prefix(box.data)
    if prefix is not None:
        out.append(_python(runner, box, SHELL_PROBES[0], VIEW_READ_ONLY, prefix))
        # Disk full: a 1 MiB file system for the data folder.
        box = runner.box(SHELL_PROBES[1])
        box.data.mkdir()
        script = 'mount -t tmpfs -o size=1m,mode=0700 none "$1" && shift && exec "$@"'
        prefix = ["unshare", "-m", "sh", "-c", script, "sh", str(box.data)]
        out.append(_python(runner, box, SHELL_PROBES[1], DISK_FULL, prefix))
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
        attempt_id = repo.attempts.add(AttemptRecord(session_id=sid, kind="repetition",
                                      raw_transcript=f"essai {i}"), clip(i))
        print(attempt_id, flush=True)
        i += 1
    """
)


def kill_probes(runner: Runner, kills: int, seed: int = 11) -> list[Result]:
    rng = random.Random(seed)
    box = runner.box("kills")
    data = box.data
    setup = _python(runner, box, "setup", "pid, sid, ids = fill(0)\nreport(True)")
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
        box,
        "after kills",
        f"lost, orphans = left_over({committed!r})\nreport(True, lost, orphans)",
    )
    if out:
        out[-1].lost, out[-1].orphans = check.lost, check.orphans
        out[-1].crashed = out[-1].crashed or check.crashed
        out[-1].detail += f"; after restart: {check.detail or 'checked'}"
    return out


def _selected(name: str, only: str | None) -> bool:
    return not only or any(word and word in name for word in only.split(","))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=50, help="SIGKILLs during writing")
    parser.add_argument("--no-strace", action="store_true", help="do not count network calls")
    parser.add_argument(
        "--only", help="comma-separated words: run the groups whose name contains one"
    )
    parser.add_argument(
        "--output", type=Path, help=f"results file (default {RESULTS}; not written with --only)"
    )
    parser.add_argument(
        "--markdown", action="store_true", help="print the saved results as Markdown, run nothing"
    )
    args = parser.parse_args(argv)
    if args.markdown:
        saved = json.loads((args.output or RESULTS).read_text(encoding="utf-8"))
        print(markdown([Result(**probe) for probe in saved["probes"]]))
        return 0
    groups: dict[str, Callable[[Runner], list[Result]]] = {
        "arguments+audio": cli_probes,
        "storage": storage_probes,
        "kill": lambda r: kill_probes(r, args.kills),
        **{name: (lambda r, n=name: catalogue_probes(r, n)) for name in CATALOGUE},
    }
    results: list[Result] = []
    with tempfile.TemporaryDirectory(prefix="faults-") as tmp:
        runner = Runner(Path(tmp), use_strace=not args.no_strace)
        for name, probe in groups.items():
            if _selected(name, args.only):
                results += probe(runner)
        strace = runner.strace
    for r in results:
        if r.failed:
            where = f" [{', '.join(r.outside_paths)}]" if r.outside_paths else ""
            print(f"!! {r.category}/{r.name}: {r.detail}{where}", file=sys.stderr)
    print(text_table(results))
    summary = totals(results)
    print(
        f"target: 0 crashes, 0 lost, 0 writes outside, 0 hangs, peak < {MEMORY_LIMIT_MB:.0f} MiB"
        f" -- got {summary['crashes']} crashes, {summary['lost']} lost, {summary['outside']}"
        f" outside, {summary['hangs']} hangs, peak {summary['peak_mb_max']:.0f} MiB"
    )
    payload = {
        "machine": platform.platform(),
        "python": platform.python_version(),
        "network_counted": strace,
        "memory_limit_mb": MEMORY_LIMIT_MB,
        "totals": summary,
        "probes": [asdict(r) for r in results],
    }
    if args.output or not args.only:
        output = args.output or RESULTS
        write_report(output, payload)
    return 1 if any(r.failed for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
