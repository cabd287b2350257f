"""The trainer process (``therapy_voice adapt``): its manifest, its start, its progress, its stop.

``therapy_app`` never imports torch: the adapter is trained by a separate
Python process (started as :func:`therapy_app.voice_pack.find_trainer` says:
from the voice pack, or the app's own Python) that reports progress as JSON
lines on its stderr (the fields of :class:`~therapy_app.voice.model.AdaptProgress`),
stops on SIGTERM or when a ``cancel`` file appears in its work folder, and
resumes when started again with the same work folder.
"""

from __future__ import annotations

import collections
import json
import logging
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, get_args, get_type_hints

from therapy_app import atomic, model_store, paths
from therapy_app.errors import TherapyAppError
from therapy_app.voice.model import AdaptProgress, VoiceSample

_LOGGER = logging.getLogger(__name__)

EXIT_DONE = 0
EXIT_FAILED = 1
EXIT_BAD_INPUT = 2
EXIT_CANCELLED = 3
CANCEL_FILE = "cancel"
ADAPTER_FILE = "adapter.npz"
TRAIN_REPORT = "train.json"
NICENESS = 10
"""Practice on the same PC stays responsive while the trainer runs (POSIX nice value)."""
CANCEL_GRACE_S = 20.0
"""Windows has no SIGTERM: the trainer gets this long to see the cancel file, then is killed."""
LOG_TAIL_LINES = 20

MANIFEST_VERSION = 1
HALTING_ADAPTER = "halting-fr.npz"
ADAPTER_ROLE = "adapter"

_STAGES = frozenset(get_args(get_type_hints(AdaptProgress)["stage"]))


@dataclass(frozen=True)
class TrainerCommand:
    """One run of the trainer.

    Attributes:
        manifest: the JSON list of recordings and texts to learn.
        work: the resumable work folder (the same folder resumes a run).
        weights: the training weights folder; None lets the trainer use its default.
        minutes: training time budget; None uses the trainer's.
        max_steps: stop after this many steps (tests); None uses the trainer's.
        threads: CPU threads the trainer may use.
        program: what starts the trainer, before its arguments
            (:meth:`therapy_app.voice_pack.TrainerLaunch.argv`; tests put a
            stand-in script there).
        env: the trainer's environment (the voice pack's folders); None inherits ours.
    """

    manifest: Path
    work: Path
    weights: Path | None = None
    minutes: float | None = None
    max_steps: int | None = None
    threads: int = 2
    program: tuple[str, ...] = (sys.executable, "-m", "therapy_voice")
    env: Mapping[str, str] | None = field(default=None, repr=False)

    def argv(self) -> list[str]:
        """The command line: ``program adapt --manifest … --work … --threads …``."""
        argv = [*self.program, "adapt"]
        argv += ["--manifest", str(self.manifest), "--work", str(self.work)]
        argv += ["--threads", str(self.threads)]
        if self.weights is not None:
            argv += ["--weights", str(self.weights)]
        if self.minutes is not None:
            argv += ["--minutes", f"{self.minutes:g}"]
        if self.max_steps is not None:
            argv += ["--max-steps", str(self.max_steps)]
        return argv


@dataclass(frozen=True)
class TrainerOutcome:
    """How a trainer run ended.

    Attributes:
        returncode: the process's exit status (0 done, 3 cancelled, 2 bad input, 1 other).
        adapter: the trained adapter when the run finished, else None.
        last: the last progress line it reported.
        log_tail: its last lines of stderr that were not progress (for the log).
    """

    returncode: int
    adapter: Path | None
    last: AdaptProgress | None
    log_tail: tuple[str, ...] = field(default=(), repr=False)

    @property
    def cancelled(self) -> bool:
        """The run stopped because it was asked to (it resumes when started again)."""
        return self.returncode == EXIT_CANCELLED or (
            self.last is not None and self.last.stage == "cancelled"
        )


def halting_adapter(weights: Path) -> Path | None:
    """The halting-speech adapter built into the decoder graph: the personal adapter's start.

    The voice pack ships it in its training weights folder (role ``adapter`` of
    ``whisper-base-train/model.json``); a source checkout also has it in
    ``models/asr/adapters``. None when neither does: the personal adapter then
    starts from zero (and loses what the halting one learnt).

    Args:
        weights: the training weights folder the trainer will use.
    """
    candidates = []
    try:
        meta = model_store.read_sidecar(weights, weights.name)
        entry = (meta.get("files") or {}).get(ADAPTER_ROLE) or {}
        candidates.append(weights / Path(str(entry.get("path") or HALTING_ADAPTER)).name)
    except TherapyAppError as exc:
        _LOGGER.warning("training weights sidecar unreadable: %s", exc.detail)
    candidates.append(paths.project_root() / "models" / "asr" / "adapters" / HALTING_ADAPTER)
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    _LOGGER.warning("no halting-speech adapter found: the personal adapter starts from zero")
    return None


def write_manifest(
    path: Path, train: Sequence[VoiceSample], init: Path | None, seed: int = 0
) -> Path:
    """Write the trainer's manifest atomically (private, like every file of the voice folder)."""
    manifest: dict[str, Any] = {
        "version": MANIFEST_VERSION,
        "items": [{"audio": str(Path(s.audio).resolve()), "text": s.text} for s in train],
        "init": None if init is None else str(init.resolve()),
        "seed": seed,
    }
    text = json.dumps(manifest, ensure_ascii=False, indent=1) + "\n"
    return atomic.write_bytes(path, text.encode("utf-8"))


def parse_progress(line: str) -> AdaptProgress | None:
    """One stderr line as progress, or None when it is something else (a log line)."""
    text = line.strip()
    if not text.startswith("{"):
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if not isinstance(data, dict) or data.get("stage") not in _STAGES:
        return None
    try:
        eta = data.get("eta_s")
        return AdaptProgress(
            stage=data["stage"],
            done=int(data.get("done", 0)),
            total=int(data.get("total", 0)),
            eta_s=None if eta is None else float(eta),
            message=str(data.get("message", "")),
        )
    except (TypeError, ValueError):
        return None


def _lower_priority(pid: int) -> None:
    if hasattr(os, "setpriority"):
        try:
            os.setpriority(os.PRIO_PROCESS, pid, NICENESS)
        except OSError as exc:  # already gone, or not allowed: it only runs faster
            _LOGGER.debug("trainer priority unchanged: %s", exc)


class TrainerProcess:
    """The trainer as a child process: start, relay its progress, cancel.

    Args:
        command: what to run.
        on_progress: called with every progress line, in the thread that calls :meth:`wait`.
    """

    def __init__(
        self, command: TrainerCommand, on_progress: Callable[[AdaptProgress], None] | None = None
    ) -> None:
        self.command = command
        self._on_progress = on_progress
        self._process: subprocess.Popen[str] | None = None
        self._cancelled = threading.Event()

    def start(self) -> None:
        """Start the process (a cancel file left by an earlier run is removed first)."""
        (self.command.work / CANCEL_FILE).unlink(missing_ok=True)
        flags = 0
        if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
            flags = subprocess.BELOW_NORMAL_PRIORITY_CLASS | subprocess.CREATE_NO_WINDOW
        argv = self.command.argv()
        _LOGGER.info("starting the trainer: %s", " ".join(argv))
        self._process = subprocess.Popen(  # noqa: S603 - our own interpreter and module
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            errors="replace",
            creationflags=flags,
            env=None if self.command.env is None else dict(self.command.env),
        )
        _lower_priority(self._process.pid)
        if self._cancelled.is_set():  # cancelled before it started
            self.cancel()

    @property
    def pid(self) -> int | None:
        """The trainer's process id once started."""
        return None if self._process is None else self._process.pid

    def wait(self) -> TrainerOutcome:
        """Relay progress until the process ends; returns how it ended."""
        process = self._process
        if process is None:
            raise RuntimeError("start() first")
        last: AdaptProgress | None = None
        tail: collections.deque[str] = collections.deque(maxlen=LOG_TAIL_LINES)
        stream: IO[str] | None = process.stderr
        assert stream is not None
        for line in stream:
            progress = parse_progress(line)
            if progress is None:
                if line.strip():
                    tail.append(line.rstrip())
                    _LOGGER.debug("trainer: %s", line.rstrip())
                continue
            last = progress
            if self._on_progress is not None:
                self._on_progress(progress)
        returncode = process.wait()
        adapter = self.command.work / ADAPTER_FILE
        done = returncode == EXIT_DONE and adapter.is_file()
        if returncode != EXIT_DONE:
            _LOGGER.info("trainer ended with %d: %s", returncode, " | ".join(tail))
        return TrainerOutcome(returncode, adapter if done else None, last, tuple(tail))

    def cancel(self) -> None:
        """Ask the trainer to stop (it keeps what it has learnt; a new start resumes).

        Safe from any thread, before or after :meth:`start`.
        """
        self._cancelled.set()
        process = self._process
        if process is None or process.poll() is not None:
            return
        try:
            (self.command.work / CANCEL_FILE).touch()
        except OSError as exc:
            _LOGGER.warning("cannot write the cancel file: %s", exc)
        if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
            timer = threading.Timer(CANCEL_GRACE_S, self._kill_if_running)
            timer.daemon = True
            timer.start()
        else:
            process.send_signal(signal.SIGTERM)

    def _kill_if_running(self) -> None:
        process = self._process
        if process is not None and process.poll() is None:
            process.kill()

    @property
    def cancel_requested(self) -> bool:
        """Whether :meth:`cancel` was called."""
        return self._cancelled.is_set()


def run_trainer(
    command: TrainerCommand,
    on_progress: Callable[[AdaptProgress], None] | None = None,
    on_start: Callable[[TrainerProcess], None] | None = None,
) -> TrainerOutcome:
    """Run the trainer to its end in the calling thread.

    Args:
        command: what to run.
        on_progress: called with each progress report.
        on_start: given the started process (to cancel it from another thread).
    """
    process = TrainerProcess(command, on_progress)
    process.start()
    if on_start is not None:
        on_start(process)
    return process.wait()
