"""Loads the speech engines one by one on the inference worker, reporting progress in French."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

from PySide6.QtCore import QObject, Signal

from therapy_app.audio.recorder import Recorder
from therapy_app.gui.tasks import TaskRunner
from therapy_app.practice.events import french_message
from therapy_app.speech.loading import LOAD_STEPS, LoadStep, assemble
from therapy_app.speech.services import AudioOutput, SpeechServices

_LOGGER = logging.getLogger(__name__)


class ServicesLoader(QObject):
    """Runs :data:`~therapy_app.speech.loading.LOAD_STEPS` in order, off the UI thread.

    Args:
        runner: the application's task runner (steps go to its inference worker).
        steps: what to load; tests pass preloaded engines.
        recorder_factory: passed to the services (None: the microphone).
        player: passed to the services (None: the speaker).

    Signals:
        progress(int, int, str): steps done, steps in all, French label of the next step.
        ready(object): the :class:`SpeechServices`.
        failed(str): French message saying what is missing and what to do.
    """

    progress = Signal(int, int, str)
    ready = Signal(object)
    failed = Signal(str)

    def __init__(
        self,
        runner: TaskRunner,
        steps: Sequence[LoadStep] = LOAD_STEPS,
        recorder_factory: Callable[[], Recorder] | None = None,
        player: AudioOutput | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._runner = runner
        self._steps = list(steps)
        self._recorder_factory = recorder_factory
        self._player = player
        self._loaded: dict[str, Any] = {}
        self.services: SpeechServices | None = None
        self.error: str | None = None
        self.running = False

    def start(self) -> None:
        """Load everything (again, after a failure)."""
        if self.running:
            return
        self.running = True
        self.error = None
        self._loaded = {}
        self._next(0)

    def _next(self, index: int) -> None:
        if index == len(self._steps):
            self._finish()
            return
        step = self._steps[index]
        self.progress.emit(index, len(self._steps), step.label)

        def done(engine: Any) -> None:
            self._loaded[step.key] = engine
            self._next(index + 1)

        self._runner.submit(step.load, on_done=done, on_error=self._failed, group="load-models")

    def _finish(self) -> None:
        try:
            self.services = assemble(self._loaded, self._recorder_factory, self._player)
        except Exception as exc:  # noqa: BLE001 - shown to the user like a step failure
            self._failed(exc)
            return
        self.running = False
        self.progress.emit(len(self._steps), len(self._steps), "")
        _LOGGER.info("speech engines ready (%s)", self.services.model_versions)
        self.ready.emit(self.services)

    def _failed(self, exc: BaseException) -> None:
        _LOGGER.error("loading the speech engines failed: %r", exc)
        self.running = False
        self.error = french_message(exc)
        self.failed.emit(self.error)
