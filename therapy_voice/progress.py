"""Progress reports on stderr (one JSON object per line) and cancellation by signal or file."""

from __future__ import annotations

import json
import signal
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import TextIO

from therapy_app.voice.model import AdaptProgress

CANCEL_FILE = "cancel"


class Cancelled(Exception):
    """The run was asked to stop (SIGTERM, SIGINT or the cancel file)."""


class ProgressReporter:
    """Writes :class:`AdaptProgress` lines for the app, which reads them as they come.

    Only these lines start with ``{`` on stderr: the log format never does.
    """

    def __init__(self, stream: TextIO | None = None) -> None:
        self._stream = stream
        self.last: AdaptProgress | None = None

    def report(
        self, stage: str, done: int, total: int, eta_s: float | None = None, message: str = ""
    ) -> AdaptProgress:
        """Write one progress line and return it."""
        progress = AdaptProgress(
            stage,  # type: ignore[arg-type]
            done,
            total,
            None if eta_s is None else round(max(0.0, eta_s), 1),
            message,
        )
        stream = self._stream or sys.stderr
        stream.write(json.dumps(asdict(progress), ensure_ascii=False) + "\n")
        stream.flush()
        self.last = progress
        return progress


class Pace:
    """Time left for a stage, from the pace of the units done in this process."""

    def __init__(self, total: int, done: int = 0) -> None:
        self.total = total
        self._first = done
        self._start = time.monotonic()

    def eta(self, done: int) -> float | None:
        """Seconds left after ``done`` units; None before the first unit is timed."""
        timed = done - self._first
        if timed <= 0:
            return None
        return (time.monotonic() - self._start) / timed * (self.total - done)


class CancelWatch:
    """Notices SIGTERM, SIGINT or a ``cancel`` file in the work folder.

    The file is the portable way: on Windows ``Popen.terminate`` kills the
    process at once, with no chance to save a checkpoint.

    Args:
        work: the run's folder.
    """

    def __init__(self, work: Path) -> None:
        self.file = work / CANCEL_FILE
        self._signalled = False

    def install(self) -> None:
        """Route SIGTERM and SIGINT to a flag checked between steps.

        A cancel file left by an earlier run is removed: rerunning means resuming.
        """
        self.file.unlink(missing_ok=True)
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, self._on_signal)

    def _on_signal(self, signum: int, frame: object) -> None:
        self._signalled = True

    @property
    def requested(self) -> bool:
        """Whether the run should stop now."""
        return self._signalled or self.file.exists()

    def check(self) -> None:
        """Raise :class:`Cancelled` when a stop was asked for."""
        if self.requested:
            raise Cancelled()
