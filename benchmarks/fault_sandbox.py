"""Runs one fault probe in a private sandbox and measures what it did (issue 24).

Each probe gets a *box*: a folder holding its own ``HOME``, ``TMPDIR``, XDG
folders, working folder, inputs and data folder. The box is listed before and
after the probe; a file created, changed or removed anywhere in it except the
data folder and the probe's declared outputs is a **write outside**. Under
``strace`` (when installed) the file calls that write (``openat`` with a write
flag, ``mkdir``, ``rename``, ``unlink``, ``symlink``, ``chmod``...) to an
absolute path outside the box are counted too, except under ``/dev``,
``/proc`` and ``/sys`` (pseudo-files, shared memory of audio libraries).

``XDG_RUNTIME_DIR`` is left unset, as in an ``ssh`` or ``cron`` session: that
is when libraries fall back to writing into ``HOME`` or ``TMPDIR``.

A probe still running after its time limit is killed with its whole process
group and counted as a **hang**. Its **peak memory** is the larger of the
``wait4`` maximum resident size (the largest process of the tree) and the sum
of the tree's resident sizes sampled every 50 ms from ``/proc``; a tree past
``MEMORY_KILL_MB`` is killed at once to protect the shared machine.
"""

from __future__ import annotations

import fnmatch
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CLI = [sys.executable, "-m", "therapy_app.cli"]

DEFAULT_TIMEOUT_S = 60.0
MEMORY_LIMIT_MB = 1024.0
"""A probe whose peak memory passes this fails."""
MEMORY_KILL_MB = 2048.0
_POLL_S = 0.05
_PAGE_MB = os.sysconf("SC_PAGE_SIZE") / 2**20
_UNWATCHED = ("/dev/", "/proc/", "/sys/")
_NETWORK_CALLS = "connect,sendto,sendmsg"
_WRITE_CALLS = (
    "open,openat,creat,truncate,mkdir,mkdirat,rename,renameat,renameat2,unlink,unlinkat,"
    "rmdir,symlink,symlinkat,link,linkat,chmod,fchmodat"
)
_WRITE_SET = frozenset(_WRITE_CALLS.split(","))
_OPEN_WRITES = ("O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC")
_CALL = re.compile(r"^(?:\d+ +)?(\w+)\((.*)\) += (-?\d+)")
_QUOTED = re.compile(r'(?:(AT_FDCWD|\d+<[^>]*>), )?"((?:[^"\\]|\\.)*)"')

PRELUDE = textwrap.dedent(
    """
    import json, os, sqlite3, sys
    from pathlib import Path
    import numpy as np
    from therapy_app.audio.clip import AudioClip
    from therapy_app.errors import TherapyAppError
    from therapy_app.domain.attempt_record import AttemptRecord
    from therapy_app.storage import SessionRepository, database
    from therapy_app.storage.repository import DB_FILENAME

    DATA = Path(sys.argv[1])
    DB = DATA / DB_FILENAME

    def clip(seed=0):
        rng = np.random.default_rng(seed)
        return AudioClip((rng.standard_normal(8000) * 0.1).astype(np.float32))

    def fill(n=3):
        with SessionRepository(DATA) as repo:
            patient = repo.patients.create("Jeanne")
            session = repo.sessions.start(patient.id, "repetition")
            ids = [repo.attempts.add(AttemptRecord(session_id=session.id, kind="repetition",
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
        # Reopen (start-up clean-up), then count lost attempts and the half-written
        # files the clean-up left. A complete recording without a row (a writer
        # killed before its commit) is kept on purpose: never deleted automatically,
        # listed by orphan_recordings() for the therapist; it is not an orphan here.
        with SessionRepository(DATA, check_integrity=False) as repo:
            present = {r[0] for r in repo._db.execute("SELECT id FROM attempts")}
            orphans = sum(
                Path(p).name.startswith(".") and p.endswith(".tmp")
                for p in repo.maintenance.orphan_recordings()
            )
        return len(set(expected_ids) - present), orphans

    def report(ok, lost=0, orphans=0, message=""):
        print(json.dumps({"ok": bool(ok), "lost": lost, "orphans": orphans, "message": message}))
    """
)


@dataclass
class Box:
    """A probe's private world, all under ``root``.

    Attributes:
        root: the box folder (listed before and after the probe).
        data: the data folder (``THERAPY_APP_DATA_DIR``); writes there are the probe's own.
        outputs: glob patterns, relative to ``root``, of the paths the probe may write.
        notes: what a probe's setup wants its check to know (counts before, hashes).
    """

    root: Path
    data: Path
    outputs: tuple[str, ...] = ()
    notes: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def create(cls, root: Path, data: str = "data", outputs: tuple[str, ...] = ()) -> Box:
        """Make the box's folders (the data folder itself is left to the probe)."""
        for name in ("home", "tmp", "cwd", "in"):
            (root / name).mkdir(parents=True, exist_ok=True)
        return cls(root, root / data, outputs)

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def inputs(self) -> Path:
        """Where the setup puts crafted input files."""
        return self.root / "in"

    @property
    def cwd(self) -> Path:
        return self.root / "cwd"

    def environment(self) -> dict[str, str]:
        """The probe's environment: the box's folders instead of the real ones."""
        env = {
            key: value
            for key, value in os.environ.items()
            if key not in ("XDG_RUNTIME_DIR", "THERAPY_APP_BACKUP_PASSPHRASE")
        }
        env.update(
            THERAPY_APP_DATA_DIR=str(self.data),
            PYTHONPATH=str(ROOT),
            PYTHONDONTWRITEBYTECODE="1",
            HOME=str(self.home),
            TMPDIR=str(self.root / "tmp"),
            XDG_CONFIG_HOME=str(self.home / ".config"),
            XDG_CACHE_HOME=str(self.home / ".cache"),
            XDG_DATA_HOME=str(self.home / ".local" / "share"),
            XDG_STATE_HOME=str(self.home / ".local" / "state"),
        )
        return env

    def expand(self, arg: str | bytes) -> str | bytes:
        """``{data}``, ``{in}``, ``{box}`` and ``{speech}`` in an argument, replaced."""
        if isinstance(arg, bytes):
            return arg
        speech = ROOT / "tests" / "data" / "speech"
        for key, value in (
            ("{data}", self.data),
            ("{in}", self.inputs),
            ("{box}", self.root),
            ("{speech}", speech),
        ):
            arg = arg.replace(key, str(value))
        return arg

    def allowed(self) -> list[str]:
        """Patterns (relative to ``root``) of the paths the probe may change."""
        patterns = list(self.outputs)
        if self.data.is_relative_to(self.root):
            patterns.append(self.data.relative_to(self.root).as_posix())
        return patterns


Listing = dict[str, tuple[int, int, int]]


def snapshot(root: Path, allowed: list[str]) -> Listing:
    """Every path under ``root`` but the allowed ones: type and mode, size, mtime.

    A folder's size and mtime are left out: the files in it say what changed.
    """
    found: Listing = {".": (root.lstat().st_mode, 0, 0)}  # a chmod of the box itself
    for folder, dirs, files in os.walk(root):
        kept = []
        for name in dirs + files:
            path = Path(folder, name)
            relative = path.relative_to(root).as_posix()
            if _is_allowed(relative, allowed):
                continue
            try:
                info = path.lstat()
            except OSError:
                continue
            if name in dirs:
                kept.append(name)
                found[relative] = (info.st_mode, 0, 0)
            else:
                found[relative] = (info.st_mode, info.st_size, info.st_mtime_ns)
        dirs[:] = kept
    return found


def _is_allowed(relative: str, allowed: list[str]) -> bool:
    return any(fnmatch.fnmatch(relative, p) or relative.startswith(p + "/") for p in allowed)


def changed(before: Listing, after: Listing) -> list[str]:
    """Paths created, removed or modified between two listings."""
    return sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))


def network_calls(lines: list[str]) -> int:
    """``connect``/``sendto``/``sendmsg`` lines towards an IPv4/IPv6 address or DNS."""
    return sum("AF_INET" in line or "sin_port=htons(53)" in line for line in lines)


def writes_outside(lines: list[str], box: Path) -> list[str]:
    """Absolute paths outside ``box`` that a successful file call wrote (strace ``-y`` lines)."""
    found = []
    for line in lines:
        call = _CALL.match(line)
        if call is None or int(call.group(3)) < 0:
            continue
        name, args = call.group(1), call.group(2)
        if name not in _WRITE_SET:
            continue
        if name in ("open", "openat") and not any(flag in args for flag in _OPEN_WRITES):
            continue
        paths = [_joined(dirfd, path) for dirfd, path in _QUOTED.findall(args)]
        if name.startswith("symlink"):
            paths = paths[-1:]  # the first string is what the link points to
        for path in paths:
            inside = path == str(box) or path.startswith(str(box) + "/")  # listed instead
            if path.startswith("/") and not inside and not path.startswith(_UNWATCHED):
                found.append(f"{name} {path}")
    return sorted(set(found))


def _joined(dirfd: str, path: str) -> str:
    if path.startswith("/") or not dirfd.endswith(">"):
        return path
    return dirfd[dirfd.index("<") + 1 : -1] + "/" + path


@dataclass
class Outcome:
    """What one measured command did.

    Attributes:
        returncode: exit status (negative: killed by that signal).
        stdout: its standard output.
        stderr: its standard error.
        seconds: wall time.
        hung: killed at its time limit.
        peak_mb: peak resident memory of the process tree, MiB.
        network: network calls (``-1`` when strace was not available).
        outside: paths written outside the data folder and declared outputs.
    """

    returncode: int
    stdout: bytes
    stderr: bytes
    seconds: float
    hung: bool = False
    peak_mb: float = 0.0
    network: int = 0
    outside: list[str] = field(default_factory=list)

    @property
    def err(self) -> str:
        return self.stderr.decode("utf-8", "replace")


def _tree_rss_mb(session: int) -> float:
    """Summed resident size of the processes of ``session``, MiB."""
    pages = 0
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as handle:
                stat = handle.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2 :].split()
        if len(fields) > 21 and int(fields[3]) == session:
            pages += int(fields[21])
    return pages * _PAGE_MB


def run_measured(
    command: list[str | bytes],
    env: dict[str, str],
    cwd: Path,
    logs: Path,
    timeout: float = DEFAULT_TIMEOUT_S,
) -> Outcome:
    """Run ``command`` in its own session; time, memory and hang measured, output captured.

    Args:
        command: the full command line.
        env: its environment.
        cwd: its working folder.
        logs: a folder outside any box for its captured output.
        timeout: seconds before the whole process group is killed (a hang).
    """
    logs.mkdir(parents=True, exist_ok=True)
    out_path, err_path = logs / "stdout", logs / "stderr"
    started = time.monotonic()
    with out_path.open("wb") as out, err_path.open("wb") as err:
        proc = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            env=env,
            cwd=cwd,
            start_new_session=True,
        )
        hung, peak = False, 0.0
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            peak = max(peak, _tree_rss_mb(proc.pid))
            over = peak > MEMORY_KILL_MB
            if over or time.monotonic() - started > timeout:
                hung = not over
                _kill_group(proc.pid)
                pid, status, usage = os.wait4(proc.pid, 0)
                break
            time.sleep(_POLL_S)
        proc.returncode = os.waitstatus_to_exitcode(status)
    return Outcome(
        returncode=proc.returncode,
        stdout=out_path.read_bytes(),
        stderr=err_path.read_bytes(),
        seconds=time.monotonic() - started,
        hung=hung,
        peak_mb=max(peak, _own_peak_mb(usage.ru_maxrss)),
    )


def _own_peak_mb(child_maxrss_kb: int) -> float:
    """The child's ``wait4`` peak, or 0 when it may be the launcher's own.

    Linux copies the launching process's high-water mark into the child at
    fork and keeps it across exec: launched from a process holding the models
    (2 GB under pytest), ``python -c pass`` reports 2 GB. A peak no higher
    than the launcher's own is left to the /proc samples.
    """
    launcher_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return child_maxrss_kb / 1024 if child_maxrss_kb > launcher_kb else 0.0


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:
        pass


class Runner:
    """Makes boxes under a work folder and runs measured commands in them.

    Args:
        work: the benchmark's temporary folder.
        use_strace: count network calls and outside writes with strace when installed.
    """

    def __init__(self, work: Path, use_strace: bool) -> None:
        self.work = work
        self.strace = use_strace and shutil.which("strace") is not None
        self._count = 0
        self.cache: dict[str, Path] = {}
        """What several probes share, made once (the reference backup)."""

    def box(self, name: str, data: str = "data", outputs: tuple[str, ...] = ()) -> Box:
        """A fresh box named after the probe (its folder number keeps names unique)."""
        self._count += 1
        slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:40]
        return Box.create(self.work / "boxes" / f"{self._count:03d}-{slug}", data, outputs)

    def run(
        self,
        argv: list[str | bytes],
        box: Box,
        timeout: float = DEFAULT_TIMEOUT_S,
        prefix: list[str] | None = None,
        inner: list[str] | None = None,
        env: dict[str, str] | None = None,
    ) -> Outcome:
        """Run ``argv`` in ``box``, measured.

        Args:
            argv: the command (``{data}``-style placeholders expanded).
            box: where it runs.
            timeout: its time limit.
            prefix: runs strace (e.g. a private mount namespace: ``unshare``).
            inner: runs under strace, around the command (``prlimit``, ``sh -c 'umask 0'``).
            env: extra environment variables.
        """
        self._count += 1
        log = self.work / "logs" / f"strace-{self._count}.log"
        command = (inner or []) + [box.expand(a) for a in argv]
        if self.strace:
            log.parent.mkdir(parents=True, exist_ok=True)
            trace = f"trace={_NETWORK_CALLS},{_WRITE_CALLS}"
            command = ["strace", "-f", "-qq", "-y", "-o", str(log), "-e", trace, *command]
        command = (prefix or []) + command
        allowed = box.allowed()
        before = snapshot(box.root, allowed)
        environment = {**box.environment(), **(env or {})}
        outcome = run_measured(
            command, environment, box.cwd, self.work / "logs" / str(self._count), timeout
        )
        outcome.outside = changed(before, snapshot(box.root, allowed))
        outcome.network = -1
        if log.exists():
            lines = log.read_text(errors="replace").splitlines()
            outcome.network = network_calls(lines)
            outcome.outside += writes_outside(lines, box.root)
            log.unlink()
        return outcome

    def quiet(
        self, argv: list[str | bytes], box: Box, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[bytes]:
        """Run a setup or check command in ``box``, not measured."""
        return subprocess.run(
            [box.expand(a) for a in argv],
            capture_output=True,
            env={**box.environment(), **(env or {})},
            cwd=box.cwd,
            stdin=subprocess.DEVNULL,
            timeout=300,
            check=False,
        )

    def python(self, body: str, box: Box, *args: str) -> subprocess.CompletedProcess[bytes]:
        """Run ``PRELUDE + body`` (a setup step) on the box's data folder, not measured."""
        code = PRELUDE + textwrap.dedent(body)
        done = self.quiet([sys.executable, "-c", code, str(box.data), *args], box)
        if done.returncode != 0:
            raise RuntimeError(f"setup failed: {done.stderr.decode(errors='replace')[-400:]}")
        return done


def read_only_prefix(folder: Path) -> list[str] | None:
    """Runs a command with ``folder`` bind-mounted read-only (root only; None elsewhere).

    Root ignores file permissions, so ``chmod`` cannot make a folder read-only for it.
    """
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        return None
    script = 'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && shift && exec "$@"'
    return ["unshare", "-m", "sh", "-c", script, "sh", str(folder)]
