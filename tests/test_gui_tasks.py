"""TaskRunner: results on the main thread, stale results dropped, errors routed to one handler."""

from __future__ import annotations

import threading

import pytest

pytest.importorskip("PySide6")

from therapy_app.gui.tasks import TaskError, TaskRunner  # noqa: E402

pytestmark = pytest.mark.gui


@pytest.fixture
def runner(qtbot):
    runner = TaskRunner()
    yield runner
    runner.shutdown()


def test_result_is_delivered_on_the_main_thread(qtbot, runner):
    seen: list[tuple[int, bool]] = []
    main = threading.get_ident()

    def work(a, b):
        return a + b, threading.get_ident() != main

    with qtbot.waitSignal(runner.finished, timeout=5000):
        runner.submit(
            work,
            2,
            3,
            on_done=lambda r: seen.append((r[0], r[1] and threading.get_ident() == main)),
        )
    assert seen == [(5, True)]


def test_errors_go_to_the_handler(qtbot, runner):
    errors: list[BaseException] = []
    runner.error_handler = errors.append

    def boom():
        raise ValueError("bad")

    with qtbot.waitSignal(runner.finished, timeout=5000):
        runner.submit(boom, pool="db")
    assert isinstance(errors[0], ValueError)


def test_newer_job_of_a_group_drops_the_older_result(qtbot, runner):
    gate = threading.Event()
    results: list[str] = []

    def slow():
        gate.wait(5)
        return "old"

    first = runner.submit(slow, on_done=results.append, group="g")
    second = runner.submit(lambda: "new", on_done=results.append, group="g")
    assert not runner.is_pending(first)
    gate.set()
    qtbot.waitUntil(lambda: not runner.is_pending(second), timeout=5000)
    assert results == ["new"]


def test_deliver_while_runs_callbacks_until_nothing_is_pending(runner):
    stored: list[str] = []

    def heard(text: str) -> None:  # a result that submits the next job, as a try's hearing does
        runner.submit(lambda: f"{text}, stored", on_done=stored.append, pool="db")

    runner.submit(lambda: "heard", on_done=heard)
    assert runner.deliver_while(lambda: not stored, limit_s=30)
    assert stored == ["heard, stored"]


def test_deliver_while_gives_up_at_its_limit(runner):
    gate = threading.Event()
    delivered: list[str] = []
    runner.submit(lambda: gate.wait(30) and "late", on_done=delivered.append)
    try:
        assert not runner.deliver_while(lambda: not delivered, limit_s=0.1)
    finally:
        gate.set()
    assert delivered == []


def test_submit_after_shutdown_raises(runner):
    runner.shutdown()
    with pytest.raises(TaskError):
        runner.submit(lambda: None)


def test_emitting_signals_keeps_the_bool_refcount(qtbot):
    # PySide6 6.12 drops a reference to True per emit(); pyside_fixes gives it back.
    import sys

    from PySide6.QtCore import QObject, Signal

    class Emitter(QObject):
        ping = Signal(int)

    emitter = Emitter()
    emitter.ping.connect(lambda value: None)
    before = sys.getrefcount(True)
    for i in range(500):
        emitter.ping.emit(i)
    assert sys.getrefcount(True) - before > -10
