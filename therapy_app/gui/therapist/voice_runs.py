"""The personal-voice adaptations under way in this process; they outlive the therapist area.

The therapist may start « Adapter la reconnaissance », leave the tab, lock
the area and come back: the run goes on in its background thread (and its
trainer process), kept here by patient, and the « Voix » tab shows it again.
When the application quits every run is stopped; the trainer keeps its work
folder, so the next start resumes where it stopped.
"""

from __future__ import annotations

import atexit
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from PySide6.QtCore import QCoreApplication

from therapy_app.errors import TherapyAppError
from therapy_app.storage import SessionRepository
from therapy_app.voice.model import AdaptProgress, VoiceDecision

_LOGGER = logging.getLogger(__name__)

QUIT_WAIT_S = 15.0
"""At exit, how long a stopped run may take to end its trainer and release its lock."""


class RunHandle(Protocol):
    """What the panel needs of :class:`therapy_app.voice.adaptation.AdaptationHandle`."""

    def poll(self) -> AdaptProgress | None:
        """The newest progress since the last poll."""

    def cancel(self) -> None:
        """Ask the run to stop."""

    @property
    def done(self) -> bool:
        """The run has ended."""

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the end; True when it has ended."""

    def result(self) -> VoiceDecision | None:
        """The decision, once the run succeeded."""

    @property
    def error(self) -> TherapyAppError | None:
        """Why the run ended without a decision."""


StartAdaptation = Callable[[SessionRepository, int], RunHandle]


class AdaptationRuns:
    """The adaptations under way in this process, one per patient; they outlive the therapist area.

    A handle reports each progress once (:meth:`RunHandle.poll`); the last one
    seen is kept here, so that a panel shown later can show it again.
    """

    def __init__(self) -> None:
        self._handles: dict[tuple[str, int], RunHandle] = {}
        self._stopping: set[tuple[str, int]] = set()
        self._latest: dict[tuple[str, int], AdaptProgress] = {}

    @staticmethod
    def _key(data_dir: Path, patient_id: int) -> tuple[str, int]:
        return (str(Path(data_dir).resolve()), patient_id)

    def get(self, data_dir: Path, patient_id: int) -> RunHandle | None:
        """The patient's run (running or ended and not yet shown), or None."""
        return self._handles.get(self._key(data_dir, patient_id))

    def add(self, data_dir: Path, patient_id: int, handle: RunHandle) -> None:
        """Remember a run that just started."""
        key = self._key(data_dir, patient_id)
        self._handles[key] = handle
        self._latest.pop(key, None)
        self._stopping.discard(key)

    def poll(self, data_dir: Path, patient_id: int) -> AdaptProgress | None:
        """The newest progress of the patient's run (kept between polls)."""
        key = self._key(data_dir, patient_id)
        handle = self._handles.get(key)
        if handle is None:
            return None
        progress = handle.poll()
        if progress is not None:
            self._latest[key] = progress
        return self._latest.get(key)

    def last(self, data_dir: Path, patient_id: int) -> AdaptProgress | None:
        """The last progress seen of the patient's run, without polling."""
        return self._latest.get(self._key(data_dir, patient_id))

    def cancel(self, data_dir: Path, patient_id: int) -> bool:
        """Ask the patient's run to stop; False when none is running."""
        key = self._key(data_dir, patient_id)
        handle = self._handles.get(key)
        if handle is None or handle.done:
            return False
        handle.cancel()
        self._stopping.add(key)
        return True

    def stopping(self, data_dir: Path, patient_id: int) -> bool:
        """Whether the patient's run was asked to stop and has not ended yet."""
        return self._key(data_dir, patient_id) in self._stopping

    def discard(self, data_dir: Path, patient_id: int) -> None:
        """Forget the patient's run (its end was shown)."""
        key = self._key(data_dir, patient_id)
        self._handles.pop(key, None)
        self._latest.pop(key, None)
        self._stopping.discard(key)

    def cancel_all(self, wait_s: float = QUIT_WAIT_S) -> None:
        """Stop every run and wait a little for each (the application is closing)."""
        running = [h for h in self._handles.values() if not h.done]
        for handle in running:
            handle.cancel()
        for handle in running:
            if not handle.wait(wait_s):
                _LOGGER.warning("a voice adaptation did not stop within %.0f s", wait_s)
        if running:
            _LOGGER.info(
                "%d voice adaptation(s) stopped at exit; they resume next time", len(running)
            )


_SHARED: AdaptationRuns | None = None


def shared_runs() -> AdaptationRuns:
    """The application's runs, stopped when the application quits."""
    global _SHARED  # noqa: PLW0603 - one registry per process, like the QApplication
    if _SHARED is None:
        runs = AdaptationRuns()
        app = QCoreApplication.instance()
        if app is not None:
            app.aboutToQuit.connect(runs.cancel_all)
        atexit.register(runs.cancel_all)  # a process ending without the event loop
        _SHARED = runs
    return _SHARED
