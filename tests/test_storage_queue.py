"""Issue 11, item 3: attempts that meet a locked database wait on disk and are written later."""

from __future__ import annotations

import shutil
import sqlite3
import stat
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from storage_fixtures import FakeClock, make_clip, make_record

from therapy_app.practice.events import AttemptSaved, ErrorOccurred, Notice, PracticeEvent
from therapy_app.practice.scheduling import InlineScheduler
from therapy_app.practice.session_store import QUEUED_MESSAGE, SessionStore
from therapy_app.storage import SessionRepository, database, pending
from therapy_app.storage.recording_files import file_sha256


@pytest.fixture(autouse=True)
def short_busy_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    """The lock is given up after 0.3 s instead of 5 s: the same path, a faster test."""
    monkeypatch.setattr(database, "BUSY_TIMEOUT_MS", 300)


class Locker:
    """Another program holding the write lock (a real second SQLite connection)."""

    def __init__(self, db_path: Path) -> None:
        self.conn = sqlite3.connect(db_path, isolation_level=None)

    def lock(self) -> None:
        self.conn.execute("BEGIN IMMEDIATE")

    def release(self) -> None:
        if self.conn.in_transaction:
            self.conn.execute("ROLLBACK")


@pytest.fixture
def locker(repo: SessionRepository) -> Iterator[Locker]:
    holder = Locker(repo.db_path)
    yield holder
    holder.release()
    holder.conn.close()


def _journals(data_dir: Path) -> list[Path]:
    return sorted(pending.pending_dir(data_dir).glob("*.json"))


def test_locked_database_queues_the_attempt_and_replays_it(
    repo: SessionRepository, locker: Locker
) -> None:
    patient = repo.patients.create("Jeanne")
    session = repo.sessions.start(patient.id, "repetition")
    locker.lock()
    saved = repo.queue.save_attempt(
        make_record(session.id, raw_transcript="le chien dort"), make_clip()
    )
    assert saved.queued and saved.attempt_id is None
    journals = _journals(repo.data_dir)
    assert len(journals) == 1 and stat.S_IMODE(journals[0].stat().st_mode) == 0o600
    queued = pending.read_attempt(journals[0])
    assert queued is not None and queued.record.recording_path is not None
    recording = repo.data_dir / queued.record.recording_path
    assert recording.is_file() and file_sha256(recording) == queued.record.recording_sha256
    assert repo.maintenance.orphan_recordings() == []  # the queue refers to it
    assert repo.queue.queued_attempt_count() == 1
    # Still locked: nothing written, nothing lost.
    assert repo.queue.replay_pending(wait_ms=50).remaining == 1
    locker.release()
    report = repo.queue.replay_pending()
    assert (report.written, report.remaining) == (1, 0)
    assert _journals(repo.data_dir) == []
    [attempt] = repo.attempts.all(session_id=session.id)
    assert attempt.transcript == "le chien dort"
    assert attempt.record.recording_path == queued.record.recording_path
    assert repo.attempts.verify_recording(attempt)
    assert attempt.created_at == queued.created_at


def test_queue_is_replayed_at_next_start_up(tmp_path: Path) -> None:
    with SessionRepository(tmp_path, clock=FakeClock()) as repo:
        patient = repo.patients.create("Jeanne")
        session = repo.sessions.start(patient.id, "repetition")
        locker = Locker(repo.db_path)
        locker.lock()
        assert repo.queue.save_attempt(make_record(session.id), make_clip()).queued
        locker.release()
        locker.conn.close()
    with SessionRepository(tmp_path, clock=FakeClock()) as reopened:
        assert reopened.queue.replayed.written == 1
        assert len(reopened.attempts.all(session_id=session.id)) == 1
        assert reopened.queue.queued_attempt_count() == 0


def test_replay_interrupted_after_its_commit_writes_nothing_twice(
    repo: SessionRepository, locker: Locker, tmp_path: Path
) -> None:
    patient = repo.patients.create("Jeanne")
    session = repo.sessions.start(patient.id, "repetition")
    locker.lock()
    repo.queue.save_attempt(make_record(session.id), make_clip())
    locker.release()
    [journal] = _journals(repo.data_dir)
    copy = tmp_path / "copy.json"
    shutil.copy(journal, copy)
    repo.queue.replay_pending()
    # A kill between the commit and the removal leaves the journal behind.
    shutil.copy(copy, journal)
    assert repo.queue.replay_pending().remaining == 0
    assert len(repo.attempts.all(session_id=session.id)) == 1


class Events:
    def __init__(self) -> None:
        self.seen: list[PracticeEvent] = []

    def __call__(self, event: PracticeEvent) -> None:
        self.seen.append(event)


def _new_store(repo: SessionRepository, kind: str) -> tuple[int, SessionStore, Events]:
    """A new patient's session store, not opened yet: the patient, the store, what it reports."""
    patient = repo.patients.create("Jeanne")
    events = Events()
    return patient.id, SessionStore(repo, patient.id, kind, InlineScheduler(), events), events


def test_failed_session_start_queues_everything_without_blocking_each_save(
    repo: SessionRepository, locker: Locker
) -> None:
    patient_id, store, events = _new_store(repo, "repetition")
    locker.lock()
    store.open()  # waits for the lock once, then queues the session
    assert store.session_id is None
    durations = []
    for index in range(3):
        started = time.monotonic()
        store.save(
            lambda session_id, i=index: make_record(session_id, raw_transcript=f"essai {i}"),
            make_clip(seed=index),
        )
        durations.append(time.monotonic() - started)
    # Each save waited at most the short catch-up wait, never the busy timeout again.
    assert max(durations) < 0.25 + 0.3, durations
    assert [e for e in events.seen if isinstance(e, ErrorOccurred)] == []
    notices = [e.message for e in events.seen if isinstance(e, Notice)]
    assert notices == [QUEUED_MESSAGE] * 3 and "Rien n'est perdu" in QUEUED_MESSAGE
    assert repo.queue.queued_attempt_count() == 3
    locker.release()
    store.close()  # the database is free: everything is written, in order
    assert repo.queue.queued_attempt_count() == 0
    [session] = repo.sessions.all(patient_id)
    assert session.ended_at is not None
    stored = repo.attempts.all(session_id=session.id)
    assert [a.transcript for a in stored] == ["essai 0", "essai 1", "essai 2"]
    assert all(repo.attempts.verify_recording(a) for a in stored)
    assert repo.maintenance.orphan_recordings() == []


def test_save_after_the_lock_is_gone_catches_up_first(
    repo: SessionRepository, locker: Locker
) -> None:
    _, store, events = _new_store(repo, "completion")
    store.open()
    locker.lock()
    store.save(lambda sid: make_record(sid, kind="completion"), make_clip())
    locker.release()
    store.save(lambda sid: make_record(sid, kind="completion"), make_clip(seed=1))
    saved = [e for e in events.seen if isinstance(e, AttemptSaved)]
    assert len(saved) == 1 and repo.queue.queued_attempt_count() == 0
    assert len(repo.attempts.all(session_id=store.session_id)) == 2  # type: ignore[arg-type]
