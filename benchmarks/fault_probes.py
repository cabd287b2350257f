"""Issue-24 probes: how one is described, set up, run and judged (the list: fault_catalogue).

Each probe is one command (the ``therapy-app`` command line, or a short Python
script over the API where the app has no command) run in its own box
(:mod:`benchmarks.fault_sandbox`), after setup steps that are not measured,
and judged on its exit status, its stderr (a French ``Erreur : `` line for
status 2, no traceback, no English warning) and, where data is at stake, a
check of what is on disk afterwards (``lost`` counts what is gone).
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
import sys
import textwrap
import wave
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks import hostile_files as hostile
from benchmarks.fault_results import Result, judge
from benchmarks.fault_sandbox import CLI, PRELUDE, ROOT, Box, Outcome, Runner, read_only_prefix

DB_NAME = "therapy_app.sqlite3"
ARCHIVE = "archive.therapy-backup"
CORRECTOR = ROOT / "resources" / "models" / "corrector-fr"

Step = Callable[[Runner, Box], object]
Verify = Callable[[Runner, Box, Outcome], tuple[bool, int, str]]


@dataclass(frozen=True)
class Check:
    """What must hold on disk after a probe.

    Attributes:
        text: the expectation, in a few words.
        verify: returns (holds, items lost, detail).
    """

    text: str
    verify: Verify


@dataclass(frozen=True)
class Probe:
    """One hostile input and what the app must do with it.

    Attributes:
        name: what is tried.
        argv: ``therapy-app`` arguments, or the Python script's arguments when ``script`` is set
            (``{data}``, ``{in}``, ``{box}``, ``{speech}`` are expanded).
        codes: accepted exit statuses (2 also needs its ``Erreur : `` line).
        setup: steps run before, not measured.
        check: what must hold afterwards.
        script: a Python body (after the common prelude) instead of the command line.
        timeout: seconds before it counts as a hang.
        data: the data folder, relative to the box.
        outputs: what it may write besides its data folder (globs, relative to the box).
        env: extra environment variables (values expanded like ``argv``).
        inner: a wrapper run around the command (``prlimit``, a umask).
        read_only: the data folder is mounted read-only (root only).
    """

    name: str
    argv: tuple[str, ...]
    codes: frozenset[int] = frozenset({2})
    setup: tuple[Step, ...] = ()
    check: Check | None = None
    script: str | None = None
    timeout: float = 60.0
    data: str = "data"
    outputs: tuple[str, ...] = ("out",)
    env: tuple[tuple[str, str], ...] = ()
    inner: tuple[str, ...] = ()
    read_only: bool = False

    @property
    def expected(self) -> str:
        """The expectation in one line (exit statuses, then the check)."""
        codes = "/".join(str(c) for c in sorted(self.codes))
        french = " with « Erreur : »" if self.codes == {2} else " (2 with « Erreur : »)"
        text = f"exit {codes}" + (french if 2 in self.codes else "")
        return text + (f"; {self.check.text}" if self.check else "")


# -- setup steps ----------------------------------------------------------------------


def filled(count: int) -> Step:
    """The data folder holds one patient with ``count`` attempts and their recordings."""
    return lambda runner, box: runner.python(f"fill({count})", box)


def hostile_file(name: str) -> Step:
    """The hostile file ``name`` (``hostile_files.FILES``) in the box's inputs."""
    return lambda runner, box: hostile.build(name, box.inputs)


def crafted_backup(variant: str) -> Step:
    """``{in}/archive.therapy-backup``: the reference backup crafted (see ``hostile.BACKUPS``)."""
    return lambda runner, box: hostile.BACKUPS[variant](
        reference_backup(runner), box.inputs / ARCHIVE
    )


def reference_backup(runner: Runner) -> Path:
    """A sound backup of two attempts, made once per run by the app itself."""
    if "backup" not in runner.cache:
        box = runner.box("reference backup")
        filled(2)(runner, box)
        runner.cache["backup"] = _backed_up(runner, box, "reference.therapy-backup")
    return runner.cache["backup"]


def _backed_up(runner: Runner, box: Box, name: str) -> Path:
    """``therapy-app backup {in}/<name>`` (a setup step: it must succeed)."""
    target = box.inputs / name
    done = runner.quiet([*CLI, "backup", str(target)], box)
    if done.returncode != 0:
        raise RuntimeError(f"backup for the setup: {done.stderr.decode(errors='replace')}")
    return target


def copied_reference(runner: Runner, box: Box) -> None:
    """``{in}/archive.therapy-backup``: the reference backup as the app made it."""
    shutil.copy(reference_backup(runner), box.inputs / ARCHIVE)


_TWO_MORE = """
    with SessionRepository(DATA) as repo:
        sid = repo._db.execute("SELECT MAX(id) FROM sessions").fetchone()[0]
        for i in range(2):
            repo.attempts.add(AttemptRecord(session_id=sid, kind="repetition",
                             raw_transcript=f"après {i}"), clip(10 + i))
"""


def backed_up_then_two_more(runner: Runner, box: Box) -> None:
    """Three attempts, ``backup {in}/kept.therapy-backup``, then two attempts more."""
    filled(3)(runner, box)
    _backed_up(runner, box, "kept.therapy-backup")
    runner.python(_TWO_MORE, box)
    box.notes["wavs"] = _wavs(box.data)


def database_moved_away(runner: Runner, box: Box) -> None:
    """Three attempts, then the database (and its journals) moved to ``{in}/moved``."""
    filled(3)(runner, box)
    (box.inputs / "moved").mkdir()
    for path in box.data.glob(DB_NAME + "*"):
        path.rename(box.inputs / "moved" / path.name)
    box.notes["wavs"] = _wavs(box.data)


def precious(name: str) -> Step:
    """``{box}/out/<name>`` exists already, with content that must survive."""

    def make(runner: Runner, box: Box) -> None:
        path = box.root / "out" / name
        path.write_bytes(b"contenu precieux\n")
        box.notes["precious"] = (path, _sha(path))

    return make


def shared_folder(runner: Runner, box: Box) -> None:
    """The data folder exists, shared by everyone like /tmp (mode 1777)."""
    box.data.mkdir()
    box.data.chmod(0o1777)


def dangling_link(runner: Runner, box: Box) -> None:
    """The database is a link to a file that does not exist, in ``{box}/elsewhere``."""
    box.data.mkdir()
    (box.root / "elsewhere").mkdir()
    (box.data / DB_NAME).symlink_to(box.root / "elsewhere" / "cible.sqlite3")


def damaged_corrector(damage: str) -> Step:
    """``{box}/models/corrector-fr``: the corrector with a damaged ``model.json``."""
    return lambda runner, box: hostile.damaged_model(
        CORRECTOR, box.root / "models" / CORRECTOR.name, damage
    )


def a_file_at(relative: str) -> Step:
    """A regular file at ``relative`` (in the box), where a folder may be expected."""
    return lambda runner, box: (box.root / relative).write_text("un fichier\n")


# -- checks ---------------------------------------------------------------------------


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _wavs(data: Path) -> int:
    return sum(1 for _ in (data / "recordings").rglob("*.wav")) if data.is_dir() else 0


def _rows(db: Path, query: str) -> list[tuple[Any, ...]]:
    """Rows of ``query`` in ``db``, or none when it is not a readable database."""
    if not db.is_file():
        return []
    try:
        conn = sqlite3.connect(db)
        try:
            return conn.execute(query).fetchall()
        finally:
            conn.close()
    except sqlite3.DatabaseError:
        return []


def attempts(db: Path) -> int:
    """Attempts in the database file ``db`` (0 when missing or unreadable)."""
    rows = _rows(db, "SELECT COUNT(*) FROM attempts")
    return int(rows[0][0]) if rows else 0


def database_kept(count: int) -> Check:
    """The data folder's database still holds its ``count`` attempts."""

    def verify(runner: Runner, box: Box, outcome: Outcome) -> tuple[bool, int, str]:
        found = attempts(box.data / DB_NAME)
        return found == count, max(count - found, 0), f"{found}/{count} attempts in place"

    return Check(f"the database keeps its {count} attempts", verify)


def kept_database_recordings(runner: Runner, box: Box, outcome: Outcome) -> tuple[bool, int, str]:
    """After one more start-up, every recording the set-aside database names is on disk."""
    runner.quiet([*CLI, "backup", "--status"], box)  # one more start-up and its clean-up
    asides = sorted(box.data.glob("avant-restauration-*/" + DB_NAME))
    if not asides:
        return False, 5, "no avant-restauration-* database"
    paths = _rows(asides[0], "SELECT recording_path FROM attempts WHERE recording_path NOT NULL")
    gone = [
        p for (p,) in paths if not any((f / str(p)).is_file() for f in (box.data, asides[0].parent))
    ]
    detail = f"{len(paths) - len(gone)}/{len(paths)} recordings of the kept database found"
    return not gone, len(gone), f"{detail}; WAV files {box.notes['wavs']} -> {_wavs(box.data)}"


def recordings_kept(runner: Runner, box: Box, outcome: Outcome) -> tuple[bool, int, str]:
    """No WAV file of the data folder was deleted."""
    before, after = int(box.notes["wavs"]), _wavs(box.data)
    return after >= before, max(before - after, 0), f"WAV files {before} -> {after}"


def two_asides(runner: Runner, box: Box, outcome: Outcome) -> tuple[bool, int, str]:
    """One set-aside database still holds the five attempts of the data before both restores."""
    counts = [attempts(db) for db in box.data.glob("avant-restauration-*/" + DB_NAME)]
    best = max(counts, default=0)
    return best == 5, 5 - best, f"kept databases hold {sorted(counts)} attempts"


def precious_kept(runner: Runner, box: Box, outcome: Outcome) -> tuple[bool, int, str]:
    """The file made by :func:`precious` has its content still."""
    path, digest = box.notes["precious"]
    kept = path.is_file() and _sha(path) == digest
    return kept, 0 if kept else 1, "existing file kept" if kept else "existing file replaced"


def mode_is(relative: str, mode: int) -> Check:
    """``relative`` (in the box) still has mode ``mode``."""

    def verify(runner: Runner, box: Box, outcome: Outcome) -> tuple[bool, int, str]:
        found = (box.root / relative).stat().st_mode & 0o7777
        return found == mode, 0, f"mode {found:04o}"

    return Check(f"{relative} keeps mode {mode:04o}", verify)


def absent(relative: str, what: str) -> Check:
    """Nothing at ``relative`` (in the box), not even a link."""

    def verify(runner: Runner, box: Box, outcome: Outcome) -> tuple[bool, int, str]:
        path = box.root / relative
        there = path.exists() or path.is_symlink()
        return not there, 0, f"{relative} {'created' if there else 'absent'}"

    return Check(f"no {what}", verify)


def no_file_named_newdir(runner: Runner, box: Box, outcome: Outcome) -> tuple[bool, int, str]:
    """``backup newdir/`` wrote no file named ``newdir`` (a folder, or nothing)."""
    wrong = (box.cwd / "newdir").is_file()
    return not wrong, 0, "a file named newdir" if wrong else "no file named newdir"


def private_answers(runner: Runner, box: Box, outcome: Outcome) -> tuple[bool, int, str]:
    """``loop --output-dir`` made a folder neither its group nor others can write."""
    folder = box.root / "out" / "reponses"
    mode = folder.stat().st_mode & 0o777 if folder.is_dir() else 0
    return mode & 0o022 == 0, 0, f"answers folder mode {mode:03o}"


def pending_handled(runner: Runner, box: Box, outcome: Outcome) -> tuple[bool, int, str]:
    """Refused with the database kept, or restored with no file where the queue folder goes."""
    if outcome.returncode == 2:
        return database_kept(2).verify(runner, box, outcome)
    again = runner.quiet([*CLI, "backup", "--status"], box)
    ok = not (box.data / "pending").is_file() and again.returncode in (0, 1)
    return ok, 0, f"restored; next start-up exits {again.returncode}"


def _duration(path: Path) -> float:
    with wave.open(str(path)) as clip:
        return clip.getnframes() / clip.getframerate()


def spoken_like(reference: str) -> Check:
    """Refused, or as long as ``reference`` spoken (a tag read aloud makes it far longer)."""

    def verify(runner: Runner, box: Box, outcome: Outcome) -> tuple[bool, int, str]:
        if outcome.returncode != 0:
            return True, 0, "refused"
        runner.quiet([*CLI, "speak", reference, "-o", "{box}/out/reference.wav"], box)
        ratio = _duration(box.root / "out/tags.wav") / _duration(box.root / "out/reference.wav")
        return 0.7 <= ratio <= 1.4, 0, f"{ratio:.2f} x the length of « {reference} »"

    return Check(f"if spoken, as long as « {reference} » (±40 %)", verify)


def stored_items(text: str, accepted: Callable[[list[list[str]]], bool]) -> Check:
    """Refused, or the imported items (the script's stdout) pass ``accepted``."""

    def verify(runner: Runner, box: Box, outcome: Outcome) -> tuple[bool, int, str]:
        if outcome.returncode != 0:
            return True, 0, "refused"
        stored = json.loads(outcome.stdout.decode().splitlines()[-1])
        return accepted(stored), 0, f"{len(stored)} item(s) imported"

    return Check(text, verify)


_API = """
try:
{body}
except TherapyAppError as exc:
    print(f"Erreur : {{exc.french()}}", file=sys.stderr)
    sys.exit(2)
"""


def command(probe: Probe) -> list[str | bytes]:
    """The probe's command line: ``therapy-app ...``, or its script as the CLI would end."""
    if probe.script is None:
        return [*CLI, *probe.argv]
    body = textwrap.indent(textwrap.dedent(probe.script).strip(), "    ")
    return [sys.executable, "-c", PRELUDE + _API.format(body=body), "{data}", *probe.argv]


def run_probe(runner: Runner, probe: Probe, category: str) -> Result | None:
    """Set up, run and judge ``probe`` in a fresh box (None: it cannot run on this machine)."""
    box = runner.box(probe.name, probe.data, probe.outputs)
    (box.root / "out").mkdir()
    prefix = read_only_prefix(box.data) if probe.read_only else None
    if probe.read_only and prefix is None:
        print(f"skipped (needs root and unshare): {probe.name}", file=sys.stderr)
        return None
    try:
        for step in probe.setup:
            step(runner, box)
    except (RuntimeError, OSError) as exc:  # the app failed before the probe could start
        detail = f"setup failed: {(str(exc).strip().splitlines() or [repr(exc)])[-1][:200]}"
        return Result(probe.name, category, True, 0, 0, 0, 0.0, detail, expected=probe.expected)
    env = {key: str(box.expand(value)) for key, value in probe.env}
    outcome = runner.run(
        command(probe), box, probe.timeout, prefix=prefix, inner=list(probe.inner), env=env
    )
    crashed, detail = judge(outcome, set(probe.codes), warnings=True)
    lost = 0
    if probe.check is not None:
        try:
            holds, lost, said = probe.check.verify(runner, box, outcome)
        except (OSError, ValueError, IndexError, wave.Error) as exc:
            holds, said = False, f"check failed: {exc!r}"
        if not (holds or crashed or outcome.hung):
            crashed, detail = True, f"unexpected: {said}"
        else:
            detail = f"{detail}; {said}".strip("; ")
    return Result.measured(
        probe.name, category, outcome, crashed, detail[:240], lost=lost,
        expected=probe.expected,
    )  # fmt: skip
