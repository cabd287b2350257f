"""Therapist-area test helpers: a repository seeded with real attempts on committed speech clips.

``conftest.py`` loads it as a plugin for every test module; the repository
and its clock are ``storage_fixtures``' own, named ``therapist_repo`` and
``therapist_clock`` here.
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import pytest
from storage_fixtures import FakeClock

from therapy_app.audio.clip import AudioClip
from therapy_app.audio.wavio import read_wav
from therapy_app.domain.attempt_record import AttemptRecord, Candidate
from therapy_app.storage import Patient, SessionRepository

PASSWORD = "orthophonie-2025"
USERNAME = "claire"

# (exercise kind, days after the first session, [(clip, target, transcript, chosen, repetition)])
_PLAN: list[tuple[str, int, list[tuple[str, str | None, str, str | None, str | None]]]] = [
    (
        "repetition",
        0,
        [
            ("telegraphic_06.wav", "Le chat dort sur le canapé.", "chat dormir canapé", None, None),
            ("sentence_04.wav", "Je prends le train demain.", "train demain", None, None),
        ],
    ),
    (
        "free_speech",
        3,
        [
            (
                "telegraphic_01.wav",
                None,
                "moi aller boulangerie hier",
                "Hier, je suis allé à la boulangerie.",
                "hier je suis allé boulangerie",
            ),
        ],
    ),
    (
        "repetition",
        7,
        [
            ("sentence_03.wav", "Le chat dort sur le canapé.", "Le chat dort.", None, None),
            ("sentence_06.wav", "J'ai mal à la tête.", "j'ai mal tête", None, None),
            ("sentence_07.wav", "Il fait beau aujourd'hui.", "Il fait beau.", None, None),
        ],
    ),
]


@dataclass(frozen=True)
class SeededHistory:
    """What :func:`seed_history` created.

    Attributes:
        patient: the patient with three sessions (2 repetition, 1 free speech).
        other: a second patient with one session (to check the patient list).
        session_ids: the patient's sessions, oldest first.
        attempt_ids: the patient's attempts, oldest first.
    """

    patient: Patient
    other: Patient
    session_ids: list[int]
    attempt_ids: list[int]


def seed_history(repo: SessionRepository, clock: FakeClock, speech_dir: Path) -> SeededHistory:
    """Add two patients with real attempts (recordings from ``tests/data/speech``)."""
    start = clock.now
    patient = repo.patients.create("Jeanne Dupont")
    other = repo.patients.create("Paul Martin")
    session_ids: list[int] = []
    attempt_ids: list[int] = []
    for kind, day, attempts in _PLAN:
        clock.now = start + timedelta(days=day)
        session = repo.sessions.start(patient.id, kind)
        session_ids.append(session.id)
        for clip_name, target, transcript, chosen, repetition in attempts:
            clock.advance(minutes=1)
            clip = read_wav(speech_dir / clip_name)
            record = AttemptRecord(
                session_id=session.id,
                kind=kind,  # type: ignore[arg-type]
                raw_transcript=transcript,
                target_text=target,
                correction_best=chosen or target,
                correction_alternatives=[Candidate("Le chat sort du canapé.", -2.1)]
                if target and "chat" in target
                else [],
                chosen_sentence=chosen,
                repetition_transcript=repetition,
                target_score=0.8,
                pause_ratio=0.3,
                cue_level=0,
            )
            attempt_ids.append(repo.attempts.add(record, clip))
        clock.advance(minutes=5)
        repo.sessions.end(session.id)
    clock.now = start + timedelta(days=1)
    other_session = repo.sessions.start(other.id, "repetition")
    repo.attempts.add(
        AttemptRecord(
            session_id=other_session.id,
            kind="repetition",
            raw_transcript="pomme",
            target_text="pomme",
        ),
        read_wav(speech_dir / "word_01.wav"),
    )
    clock.now = start + timedelta(days=10)
    return SeededHistory(patient, other, session_ids, attempt_ids)


def add_patient_with_attempt(
    repo: SessionRepository, name: str, clip: AudioClip, **fields: object
) -> int:
    """A new patient ``name`` with one repetition attempt (``fields``, ``clip``): the attempt id."""
    patient = repo.patients.create(name)
    session = repo.sessions.start(patient.id, "repetition")
    record = AttemptRecord(session_id=session.id, kind="repetition", **fields)  # type: ignore[arg-type]
    return repo.attempts.add(record, clip)


@pytest.fixture
def therapist_clock(clock: FakeClock) -> FakeClock:
    """``storage_fixtures``' ``clock``: the repository's (starts at ``storage_fixtures.T0``)."""
    return clock


@pytest.fixture
def therapist_repo(repo: SessionRepository) -> SessionRepository:
    """``storage_fixtures``' ``repo``: an empty repository on ``therapist_clock``."""
    return repo


@pytest.fixture
def seeded_history(
    therapist_repo: SessionRepository, therapist_clock: FakeClock, speech_dir: Path
) -> SeededHistory:
    """``therapist_repo`` with :func:`seed_history` applied and a therapist account."""
    history = seed_history(therapist_repo, therapist_clock, speech_dir)
    therapist_repo.accounts.create(USERNAME, PASSWORD)
    return history


SIGNAL_TIMEOUT_MS = 15_000
"""Generous: the machine running the suite may be busy (scrypt, SQLite fsyncs)."""


@pytest.fixture
def therapist_runner(qtbot):  # noqa: ANN001, ANN201 - qtbot comes from pytest-qt
    """A real TaskRunner (database and inference workers), shut down after the test."""
    from therapy_app.gui.tasks import TaskRunner

    runner = TaskRunner()
    yield runner
    runner.shutdown()


@pytest.fixture
def therapist_context(therapist_repo, therapist_runner):  # noqa: ANN001, ANN201
    """What the area gives a panel: ``therapist_repo``, ``therapist_runner``, logged in as
    :data:`USERNAME`, no loaded voice (a panel under test alone loads its own)."""
    from therapy_app.gui.therapist.context import TherapistContext

    return TherapistContext(therapist_repo, therapist_runner, lambda: USERNAME)


def open_area(qtbot, repository: SessionRepository, runner, **kwargs):  # noqa: ANN001, ANN201
    """A shown TherapistArea whose login page knows whether an account exists.

    ``kwargs`` go to the area (``audio=``...).
    """
    from therapy_app.gui.therapist import TherapistArea

    area = TherapistArea(repository, runner, **kwargs)
    qtbot.addWidget(area)
    area.resize(1280, 800)
    area.show()
    # The constructor asked storage whether an account exists; the answer comes
    # through the event loop, which only runs inside this wait.
    with qtbot.waitSignal(area.login.mode_changed, timeout=SIGNAL_TIMEOUT_MS):
        pass
    return area


@pytest.fixture
def therapist_area(qtbot, therapist_repo, therapist_runner):  # noqa: ANN001, ANN201
    """:func:`open_area` on ``therapist_repo``."""
    return open_area(qtbot, therapist_repo, therapist_runner)


def log_in(qtbot, area, username: str = USERNAME, password: str = PASSWORD) -> None:  # noqa: ANN001
    """Type the credentials, submit, and wait for the first patient's attempts."""
    area.login.username.setText(username)
    area.login.password.setText(password)
    with qtbot.waitSignal(area.history.attempts_loaded, timeout=SIGNAL_TIMEOUT_MS):
        area.login.submit_button.click()


def open_attempt(qtbot, area, attempt_id: int) -> None:  # noqa: ANN001
    """Open the attempt's detail page and wait until it shows the attempt."""
    with qtbot.waitSignal(area.detail.attempt_loaded, timeout=SIGNAL_TIMEOUT_MS):
        area.open_attempt(attempt_id)


@pytest.fixture
def unlocked_area(qtbot, seeded_history, therapist_area):  # noqa: ANN001, ANN201
    """``therapist_area`` on the seeded history, logged in, first patient selected."""
    log_in(qtbot, therapist_area)
    return therapist_area


@pytest.fixture
def short_attempt(qtbot, unlocked_area, seeded_history) -> int:  # noqa: ANN001
    """The seeded "Le chat dort." (for "Le chat dort sur le canapé."), open in its detail page."""
    attempt_id = seeded_history.attempt_ids[3]
    open_attempt(qtbot, unlocked_area, attempt_id)
    return attempt_id


def pdf_text(path: Path) -> str:
    """The text of a PDF the app wrote, laid out as on the page (skips without pdftotext)."""
    tool = shutil.which("pdftotext")
    if tool is None:
        pytest.skip("pdftotext not installed (apt-get install poppler-utils)")
    done = subprocess.run(
        [tool, "-layout", str(path), "-"], capture_output=True, text=True, timeout=60, check=True
    )
    return done.stdout
