"""Several copies of the app started at once on a fresh data folder (elderly users double-click)."""

from __future__ import annotations

import multiprocessing
import sqlite3
import threading
import time
from pathlib import Path

import pytest

from therapy_app.storage import SessionRepository, StorageUnavailableError
from therapy_app.storage import startup_lock as startup_lock_module
from therapy_app.storage.schema import MIGRATION_NAMES, SCHEMA_VERSION
from therapy_app.storage.startup_lock import startup_lock

OPENERS = 20


def _open_at_once(data_dir: str, barrier, results) -> None:  # noqa: ANN001 - mp proxies
    """One "copy of the app": wait for the others, open the repository, use it."""
    barrier.wait(timeout=60)
    try:
        with SessionRepository(Path(data_dir)) as repo:
            repo.patients.all()
            results.put(("ok", repo.schema_version))
    except BaseException as exc:  # noqa: BLE001 - reported to the test, which fails on it
        results.put(("error", f"{type(exc).__name__}: {exc}"))


@pytest.mark.parametrize(
    "start_method",
    ["fork", pytest.param("spawn", marks=pytest.mark.slow)],  # spawn: 20 fresh interpreters
)
def test_twenty_copies_opening_a_fresh_data_folder_all_succeed(
    tmp_path: Path, start_method: str
) -> None:
    if start_method not in multiprocessing.get_all_start_methods():
        pytest.skip(f"no {start_method} start method here")
    context = multiprocessing.get_context(start_method)
    data_dir = tmp_path / "fresh"  # does not exist yet: every copy creates it
    barrier = context.Barrier(OPENERS)
    results = context.Queue()
    workers = [
        context.Process(target=_open_at_once, args=(str(data_dir), barrier, results))
        for _ in range(OPENERS)
    ]
    for worker in workers:
        worker.start()
    outcomes = [results.get(timeout=120) for _ in workers]
    for worker in workers:
        worker.join(timeout=60)
    errors = [detail for kind, detail in outcomes if kind == "error"]
    assert not errors, errors
    assert outcomes == [("ok", SCHEMA_VERSION)] * OPENERS
    # Each migration ran exactly once.
    db = sqlite3.connect(data_dir / "therapy_app.sqlite3")
    try:
        names = [row[0] for row in db.execute("SELECT name FROM _sqlite_migrations ORDER BY id")]
        exercises = db.execute("SELECT COUNT(*) FROM exercises").fetchone()[0]
    finally:
        db.close()
    assert names == list(MIGRATION_NAMES)
    assert exercises == 5  # one catalogue row per exercise kind (script too), each inserted once


def test_a_second_opener_waits_for_the_start_up_lock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db_path = tmp_path / "data" / "therapy_app.sqlite3"
    db_path.parent.mkdir()
    opened: list[float] = []
    polls: list[float] = []
    polled_twice = threading.Event()

    class _Clock:
        """The lock module's ``time``: counts the opener's polls of the held lock."""

        monotonic = staticmethod(time.monotonic)

        @staticmethod
        def sleep(seconds: float) -> None:
            polls.append(seconds)
            if len(polls) >= 2:
                polled_twice.set()
            time.sleep(seconds)

    monkeypatch.setattr(startup_lock_module, "time", _Clock)

    def open_repository() -> None:
        with SessionRepository(db_path.parent):
            opened.append(time.monotonic())

    with startup_lock(db_path):
        thread = threading.Thread(target=open_repository)
        thread.start()
        # The opener found the lock held and is polling it: a wait, not a guess.
        assert polled_twice.wait(timeout=30), "the opener never waited for the lock"
        assert not opened, "opened while another process was migrating"
        released = time.monotonic()
    thread.join(timeout=30)
    assert opened and opened[0] >= released


def test_a_start_up_lock_held_too_long_gives_a_french_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(startup_lock_module, "WAIT_S", 0.3)
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    with startup_lock(data_dir / "therapy_app.sqlite3"):
        with pytest.raises(StorageUnavailableError) as err:
            SessionRepository(data_dir)
    assert "Une autre copie de l'application" in err.value.french()
    with SessionRepository(data_dir) as repo:  # free again
        assert repo.patients.all() == []


def test_data_folder_replaced_by_a_file_gives_a_french_message(tmp_path: Path) -> None:
    not_a_folder = tmp_path / "therapy_app"
    not_a_folder.write_text("oops")
    for data_dir in (not_a_folder, not_a_folder / "inside"):
        with pytest.raises(StorageUnavailableError) as err:
            SessionRepository(data_dir)
        assert "remplacé par un fichier" in err.value.french()
    assert not_a_folder.read_text() == "oops"
