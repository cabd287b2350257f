"""How the controller runs slow steps: a scheduler protocol and an inline one for headless use."""

from __future__ import annotations

import itertools
import logging
from collections.abc import Callable
from typing import Any, Protocol

_LOGGER = logging.getLogger(__name__)


class Scheduler(Protocol):
    """Runs ``fn`` somewhere and calls back on the controller's thread.

    The GUI's ``therapy_app.gui.tasks.TaskRunner`` is one (worker threads,
    callbacks on the Qt main thread); :class:`InlineScheduler` is another.
    """

    def submit(
        self,
        fn: Callable[..., Any],
        *args: Any,
        on_done: Callable[[Any], None] | None = None,
        on_error: Callable[[BaseException], None] | None = None,
        pool: str = "inference",
    ) -> int:
        """Run ``fn(*args)`` on ``pool`` ("inference" or "db"); returns a request id."""


class InlineScheduler:
    """Runs each job at once in the calling thread (command line, tests without Qt).

    Callbacks nest: a whole practice loop runs inside the intent that started
    it, which is what a blocking command-line loop wants.
    """

    def __init__(self) -> None:
        self._ids = itertools.count(1)

    def submit(
        self,
        fn: Callable[..., Any],
        *args: Any,
        on_done: Callable[[Any], None] | None = None,
        on_error: Callable[[BaseException], None] | None = None,
        pool: str = "inference",
    ) -> int:
        """Run ``fn(*args)`` now; exceptions go to ``on_error`` (re-raised without one)."""
        request_id = next(self._ids)
        try:
            result = fn(*args)
        except Exception as exc:
            if on_error is None:
                raise
            _LOGGER.info("inline job %d failed: %r", request_id, exc)
            on_error(exc)
            return request_id
        if on_done is not None:
            on_done(result)
        return request_id
