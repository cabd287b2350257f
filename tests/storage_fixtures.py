"""Shared helpers for the storage tests: a fake clock, clips, attempt records, a repository.

Loaded as a plugin by ``conftest.py``: the ``clock`` and ``repo`` fixtures serve
every test module that does not define its own.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest

from therapy_app.audio.clip import AudioClip
from therapy_app.domain.attempt_record import AttemptRecord, Candidate, StepTimings
from therapy_app.storage import SessionRepository

T0 = datetime(2025, 3, 14, 9, 30, tzinfo=UTC)


class FakeClock:
    """A clock the test moves by hand (aware UTC datetimes)."""

    def __init__(self, start: datetime = T0) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **kwargs: float) -> datetime:
        self.now += timedelta(**kwargs)
        return self.now


def make_clip(seconds: float = 0.5, seed: int = 0) -> AudioClip:
    """Deterministic noise-like audio, different per seed."""
    rng = np.random.default_rng(seed)
    return AudioClip((rng.standard_normal(int(seconds * 16000)) * 0.1).astype(np.float32))


def make_record(session_id: int, **overrides: object) -> AttemptRecord:
    """A fully populated repetition attempt; override any field."""
    fields: dict[str, object] = dict(
        session_id=session_id,
        kind="repetition",
        raw_transcript="le chat dort",
        target_text="le chat dort",
        duration_s=2.0,
        token_logprobs=[-0.1, -0.2, -0.3],
        avg_logprob=-0.2,
        correction_best="le chat dort",
        correction_alternatives=[
            Candidate("le chat sort", -1.5),
            Candidate("les chats dorment", -2.0),
        ],
        chosen_sentence=None,
        repetition_transcript=None,
        target_score=0.9,
        target_logprob=-0.4,
        success=None,
        cue_level=1,
        timings=StepTimings(asr_s=0.3, correct_s=0.1, tts_s=0.2),
        provider="CPUExecutionProvider",
        model_versions={"whisper-base": "1.0", "corrector-fr": "0.3"},
        pause_ratio=0.5,
    )
    fields.update(overrides)
    return AttemptRecord(**fields)  # type: ignore[arg-type]


def make_utterance(session_id: int, **overrides: object) -> AttemptRecord:
    """A free-speech attempt: no target sentence to score against; override any field."""
    return make_record(session_id, kind="free_speech", target_text=None, **overrides)


@pytest.fixture
def clock() -> FakeClock:
    """The repository's clock (starts at :data:`T0`); tests move it by hand."""
    return FakeClock()


@pytest.fixture
def repo(tmp_path: Path, clock: FakeClock) -> Iterator[SessionRepository]:
    """An empty repository in ``tmp_path / "data"`` on ``clock``, closed after the test."""
    with SessionRepository(tmp_path / "data", clock=clock) as repository:
        yield repository
