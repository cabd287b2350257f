"""The one way to run work off the UI thread: two executors, results back on the main thread.

Public API (used by every screen, the therapist area included)::

    from therapy_app.gui.tasks import TaskRunner, TaskError

    runner = TaskRunner(parent=app)            # one per application (MainWindow owns it)
    runner.error_handler = show_error          # fallback for jobs without on_error
    request = runner.submit(
        fn, *args,                             # fn(*args) runs on a worker thread
        on_done=lambda result: ...,            # called on the main thread
        on_error=lambda exc: ...,              # main thread; default: runner.error_handler
        pool="inference",                      # "inference" (1 worker) or "db" (1 worker)
        group="history",                       # optional: newer jobs of a group supersede older
        **kwargs,
    )
    runner.cancel(request)                     # drop that job's result (and skip it if not started)
    runner.cancel_stale("history")             # drop every pending result of the group
    runner.is_pending(request)                 # True until its callback ran or it was dropped
    runner.deliver_while(pending, limit_s=10)  # at exit: let results in while pending()
    runner.shutdown()                          # at exit: drop inference jobs, finish db jobs

Rules:

* ``fn`` must not touch widgets; it may use the repository and the engines.
* Results are delivered through a queued Qt signal, so callbacks always run on
  the main thread, in completion order.
* With ``group``, submitting a new job marks earlier pending jobs of the same
  group stale: their callbacks are never called (the user moved on).
* An exception in ``fn`` goes to ``on_error``, else to ``runner.error_handler``,
  else it is logged. ``TherapyAppError`` carries French text (``exc.french()``).
* Signals: ``started(int)`` and ``finished(int)`` (request ids) for busy
  indicators; ``busy_changed(bool)`` when the number of pending jobs goes
  from or to zero.
"""

from __future__ import annotations

import itertools
import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Literal

from PySide6.QtCore import QEventLoop, QObject, QTimer, Signal, Slot

_LOGGER = logging.getLogger(__name__)

Pool = Literal["inference", "db"]
POOLS: tuple[str, ...] = ("inference", "db")

CHECK_MS = 20
"""How often :meth:`TaskRunner.deliver_while` asks whether to stop waiting."""


@dataclass
class _Job:
    """Bookkeeping for one submitted request (main thread only, except ``cancelled``)."""

    request_id: int
    on_done: Callable[[Any], None] | None
    on_error: Callable[[BaseException], None] | None
    group: str | None
    cancelled: threading.Event = field(default_factory=threading.Event)
    future: Future[Any] | None = None


class TaskError(RuntimeError):
    """Raised by :meth:`TaskRunner.submit` after :meth:`TaskRunner.shutdown`."""


class TaskRunner(QObject):
    """Runs callables on a single inference worker or a single database worker.

    One worker per pool: inference jobs would otherwise fight for the two CPU
    cores, and the repository's SQLite connection is used from one thread at a
    time anyway.

    Args:
        parent: owning QObject (the main window), for lifetime only.
    """

    started = Signal(int)
    finished = Signal(int)
    busy_changed = Signal(bool)
    # (request_id, ok, payload): emitted from worker threads, received on the
    # main thread because the connection is queued.
    _delivered = Signal(int, bool, object)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._pools: dict[str, ThreadPoolExecutor] = {
            name: ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"task-{name}")
            for name in POOLS
        }
        self._ids = itertools.count(1)
        self._jobs: dict[int, _Job] = {}
        self._closed = False
        self.error_handler: Callable[[BaseException], None] | None = None
        self._delivered.connect(self._deliver)

    # ----- public -----------------------------------------------------------
    def submit(
        self,
        fn: Callable[..., Any],
        *args: Any,
        on_done: Callable[[Any], None] | None = None,
        on_error: Callable[[BaseException], None] | None = None,
        pool: str = "inference",
        group: str | None = None,
        **kwargs: Any,
    ) -> int:
        """Run ``fn(*args, **kwargs)`` on a worker; see the module docstring.

        Returns:
            The request id (for :meth:`cancel` and :meth:`is_pending`).

        Raises:
            TaskError: the runner was shut down.
            ValueError: unknown pool name.
        """
        if self._closed:
            raise TaskError("TaskRunner is shut down")
        if pool not in self._pools:
            raise ValueError(f"unknown pool {pool!r}; expected one of {POOLS}")
        if group is not None:
            self.cancel_stale(group)
        request_id = next(self._ids)
        job = _Job(request_id, on_done, on_error, group)
        was_idle = not self._jobs
        self._jobs[request_id] = job
        job.future = self._pools[pool].submit(self._run, job, fn, args, kwargs)
        self.started.emit(request_id)
        if was_idle:
            self.busy_changed.emit(True)
        return request_id

    def cancel(self, request_id: int) -> None:
        """Drop the job's result; a job not started yet does not run at all."""
        job = self._jobs.pop(request_id, None)
        if job is None:
            return
        job.cancelled.set()
        if job.future is not None:
            job.future.cancel()
        self.finished.emit(request_id)
        if not self._jobs:
            self.busy_changed.emit(False)

    def cancel_stale(self, group: str) -> None:
        """Cancel every pending job of ``group`` (a newer request replaces them)."""
        for request_id in [rid for rid, job in self._jobs.items() if job.group == group]:
            self.cancel(request_id)

    def is_pending(self, request_id: int) -> bool:
        """True until the job's callback has run or the job was cancelled."""
        return request_id in self._jobs

    @property
    def busy(self) -> bool:
        """True while any job is pending."""
        return bool(self._jobs)

    def deliver_while(self, pending: Callable[[], bool], limit_s: float) -> bool:
        """Run the event loop, so results are delivered, while ``pending()`` holds.

        For the exit: jobs whose callbacks still store something get them
        before :meth:`shutdown` drops every callback. Not used elsewhere: the
        screens stay responsive without it.

        Args:
            pending: True while a callback is still awaited.
            limit_s: seconds to wait at most.

        Returns:
            True when ``pending()`` became False (or was already), False at the limit.
        """
        if not pending() or self._closed:
            return not pending()
        deadline = time.monotonic() + limit_s
        loop = QEventLoop()

        def check() -> None:
            if not pending() or time.monotonic() >= deadline:
                loop.quit()

        timer = QTimer()
        timer.timeout.connect(check)
        timer.start(CHECK_MS)
        loop.exec()
        timer.stop()
        return not pending()

    def shutdown(self, wait: bool = True) -> None:
        """Stop the workers: queued inference jobs are dropped, queued database jobs still run.

        No callback runs after this call. Database jobs (saving an attempt,
        closing a session) are never dropped: losing the patient's work is
        worse than a slower exit.
        """
        if self._closed:
            return
        self._closed = True
        for job in self._jobs.values():
            job.on_done = job.on_error = None
        self._jobs.clear()
        self._pools["inference"].shutdown(wait=wait, cancel_futures=True)
        self._pools["db"].shutdown(wait=wait, cancel_futures=False)

    # ----- worker side ------------------------------------------------------
    def _run(
        self, job: _Job, fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> None:
        if job.cancelled.is_set():
            return
        try:
            result = fn(*args, **kwargs)
        except BaseException as exc:  # noqa: BLE001 - handed to the main thread's handler
            ok, payload = False, exc
        else:
            ok, payload = True, result
        if not job.cancelled.is_set() and not self._closed:
            self._delivered.emit(job.request_id, ok, payload)
        elif not ok:
            _LOGGER.warning("dropped background task %d failed: %r", job.request_id, payload)

    # ----- main thread side -------------------------------------------------
    @Slot(int, bool, object)
    def _deliver(self, request_id: int, ok: bool, payload: object) -> None:
        job = self._jobs.pop(request_id, None)
        if job is None:  # cancelled or stale: the user moved on
            _LOGGER.debug("dropping stale result of request %d", request_id)
            return
        self.finished.emit(request_id)
        if not self._jobs:
            self.busy_changed.emit(False)
        if ok:
            if job.on_done is not None:
                job.on_done(payload)
            return
        assert isinstance(payload, BaseException)
        handler = job.on_error or self.error_handler
        if handler is None:
            _LOGGER.error("background task %d failed", request_id, exc_info=payload)
            return
        _LOGGER.info("background task %d failed: %r", request_id, payload)
        handler(payload)
