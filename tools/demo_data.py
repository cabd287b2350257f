"""A demo patient with six weeks of plausible, slowly improving sessions (screenshots, demos).

Transcripts are the target sentences with words dropped the way agrammatic
speech drops them: function words far more often than content words, less
and less as the weeks pass. Storage computes every metric from them, so the
charts show what the real pipeline would. Recordings are a quiet synthetic
hum of the right length: nothing identifiable, but the play button works.
No Qt here.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import numpy as np

from therapy_app.analysis.closed_class import CLOSED_CLASS_WORDS
from therapy_app.analysis.metrics import words
from therapy_app.audio.clip import SAMPLE_RATE, AudioClip
from therapy_app.domain.attempt_record import AttemptRecord, Candidate
from therapy_app.storage import Patient, SessionRepository

DEMO_USERNAME = "orthophoniste"
DEMO_PASSWORD = "demo-orthophonie"
DEMO_START = datetime(2025, 1, 6, 9, 30, tzinfo=UTC)
"""A Monday; the demo spans six weeks from here (fixed, so screenshots are stable)."""
DEMO_WEEKS = 6

_REPETITION = (
    "Le chat dort sur le canapé.",
    "Je prends le train demain.",
    "J'ai mal à la tête.",
    "Il fait beau aujourd'hui.",
    "Ma fille vient déjeuner dimanche.",
    "Je voudrais du pain, s'il vous plaît.",
    "Pouvez-vous fermer la fenêtre ?",
    "Nous allons au marché le samedi.",
    "Le facteur a apporté une lettre.",
    "Je bois un café le matin.",
)
_COMPLETION = (
    "Je mets mes lunettes pour lire.",
    "Il pleut, je prends mon parapluie.",
    "Le soir, je regarde la télévision.",
    "J'ouvre la porte avec la clé.",
    "Le boulanger vend du pain.",
)
_FREE_SPEECH = (
    "Hier, je suis allé à la boulangerie.",
    "Mon fils est venu me voir dimanche.",
    "Je suis allé chez le docteur pour ma tête.",
    "Ma femme a préparé une soupe aux légumes.",
    "Nous avons promené le chien dans le parc.",
)
_NAMING = (
    "chat", "pomme", "chaise", "voiture", "chapeau", "clé", "poisson", "fourchette",
    "lunettes", "vélo", "maison", "chien", "pain", "tasse", "arbre", "montre",
)  # fmt: skip
# Monday to Friday; the kind rotates so that each chart has points.
_WEEKLY = ((0, "repetition"), (2, "free_speech"), (3, "naming"), (4, "completion"))


class DemoClock:
    """A settable clock for the repository while seeding (aware UTC)."""

    def __init__(self, start: datetime = DEMO_START) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now


@dataclass(frozen=True)
class DemoData:
    """What :func:`seed_demo` created.

    Attributes:
        patient: the patient with the full six weeks.
        others: two more patients with a few sessions.
        edited_attempt_id: an attempt whose transcript the therapist corrected.
        start: first session time.
        end: last session time.
    """

    patient: Patient
    others: list[Patient]
    edited_attempt_id: int
    start: datetime
    end: datetime


def _is_function(token: str) -> bool:
    return any(w in CLOSED_CLASS_WORDS for w in words(token))


def agrammatic(sentence: str, skill: float, rng: random.Random) -> str:
    """``sentence`` as a patient of ``skill`` (0 = severe, 1 = fluent) might say it."""
    tokens = sentence.rstrip(".?! ").replace(",", "").split()
    kept = [
        t
        for t in tokens
        if rng.random() < ((0.1 + 0.85 * skill) if _is_function(t) else (0.7 + 0.3 * skill))
    ]
    if not kept:
        kept = [max(tokens, key=len)]
    text = " ".join(kept)
    if rng.random() < 0.5 * (1.0 - skill):
        text = "euh " + text
    return text[0].upper() + text[1:] if rng.random() < 0.5 else text


_SWAPS = {"le": "un", "la": "une", "les": "des", "un": "le", "une": "la", "mon": "le", "ma": "la"}


def _variant(sentence: str) -> str:
    """A near miss the corrector might also propose (another determiner, or a word less)."""
    tokens = sentence.split()
    for i, token in enumerate(tokens):
        if token.lower() in _SWAPS:
            tokens[i] = _SWAPS[token.lower()]
            return " ".join(tokens)
    return " ".join(tokens[:-1]) + "."


def hum(seconds: float, seed: int) -> AudioClip:
    """A quiet syllable-like hum (about 4 syllables a second)."""
    rng = np.random.default_rng(seed)
    t = np.arange(int(seconds * SAMPLE_RATE)) / SAMPLE_RATE
    f0 = 150.0 + 30.0 * rng.random()
    voice = sum(np.sin(2 * np.pi * f0 * k * t) / k for k in (1, 2, 3))
    envelope = np.clip(np.sin(2 * np.pi * 2.0 * t + rng.random()), 0.0, None)
    return AudioClip((0.08 * voice * envelope).astype(np.float32))


def _skill(week_fraction: float, rng: random.Random) -> float:
    return min(0.95, max(0.05, 0.15 + 0.65 * week_fraction + rng.uniform(-0.08, 0.08)))


def _attempt(
    session_id: int,
    kind: str,
    sentence: str,
    skill: float,
    rng: random.Random,
    when: datetime,
) -> tuple[AttemptRecord, float]:
    said = agrammatic(sentence, skill, rng)
    rate = 35.0 + 45.0 * skill + rng.uniform(-5, 5)
    pause = max(0.1, 0.5 - 0.3 * skill + rng.uniform(-0.05, 0.05))
    duration = max(1.0, len(words(said)) / rate * 60.0 / (1.0 - pause))
    alternatives = [Candidate(_variant(sentence), -1.8), Candidate(said, -3.2)]
    if kind == "naming":
        # Named at the level of help the patient's skill allows (0 picture alone .. 4 model).
        level = min(4, max(0, round((1.0 - skill) * 4 + rng.uniform(-1.0, 1.0))))
        success = rng.random() < 0.55 + 0.45 * skill
        record = AttemptRecord(
            session_id=session_id,
            kind="naming",
            raw_transcript=sentence if success else rng.choice(_NAMING),
            target_text=sentence,
            success=success,
            duration_s=1.5,
            cue_level=level,
            created_at=when,
        )
        return record, 1.5
    if kind == "free_speech":
        record = AttemptRecord(
            session_id=session_id,
            kind="free_speech",
            raw_transcript=said,
            correction_best=sentence,
            correction_alternatives=alternatives,
            chosen_sentence=sentence,
            repetition_transcript=agrammatic(sentence, min(1.0, skill + 0.2), rng),
            duration_s=duration,
            pause_ratio=pause,
            cue_level=0,
            created_at=when,
        )
    else:
        record = AttemptRecord(
            session_id=session_id,
            kind=kind,  # type: ignore[arg-type]
            raw_transcript=said,
            target_text=sentence,
            correction_best=sentence,
            correction_alternatives=alternatives,
            target_score=round(0.3 + 0.6 * skill, 2),
            duration_s=duration,
            pause_ratio=pause,
            cue_level=rng.choice((0, 0, 1, 2)) if skill < 0.5 else 0,
            created_at=when,
        )
    return record, duration


def _add_sessions(
    repository: SessionRepository,
    clock: DemoClock,
    patient: Patient,
    plan: list[tuple[datetime, str, float]],
    rng: random.Random,
    attempts_per_session: Callable[[], int],
) -> list[int]:
    attempt_ids: list[int] = []
    pools = {
        "repetition": _REPETITION,
        "completion": _COMPLETION,
        "free_speech": _FREE_SPEECH,
        "naming": _NAMING,
    }
    for when, kind, skill in plan:
        clock.now = when
        session = repository.sessions.start(patient.id, kind)
        for n, sentence in enumerate(rng.sample(pools[kind], attempts_per_session())):
            at = when + timedelta(minutes=1 + 2 * n)
            record, duration = _attempt(session.id, kind, sentence, skill, rng, at)
            clip = hum(min(duration, 6.0), seed=len(attempt_ids) + patient.id * 1000)
            attempt_ids.append(repository.attempts.add(record, clip))
        clock.now = when + timedelta(minutes=20)
        repository.sessions.end(session.id)
    return attempt_ids


def seed_demo(
    repository: SessionRepository,
    clock: DemoClock,
    *,
    with_account: bool = True,
) -> DemoData:
    """Fill an empty repository with the demo patients (and the demo therapist account).

    Args:
        repository: an empty repository whose clock is ``clock``.
        clock: moved to each session's time while seeding.
        with_account: also create ``DEMO_USERNAME`` / ``DEMO_PASSWORD``.
    """
    rng = random.Random(20250106)
    clock.now = DEMO_START - timedelta(days=7)
    patient = repository.patients.create("Jeanne Leroy")
    others = [repository.patients.create(name) for name in ("Marcel Dubois", "Sophie Garnier")]
    plan: list[tuple[datetime, str, float]] = []
    for week in range(DEMO_WEEKS):
        for day, kind in _WEEKLY:
            when = DEMO_START + timedelta(days=7 * week + day, minutes=rng.randint(-20, 40))
            plan.append((when, kind, _skill((7 * week + day) / (7 * DEMO_WEEKS), rng)))
    ids = _add_sessions(repository, clock, patient, plan, rng, lambda: rng.randint(4, 5))
    for i, other in enumerate(others):
        other_plan = [
            (DEMO_START + timedelta(days=7 * w + 1 + i, hours=2), "repetition", 0.3 + 0.1 * w)
            for w in range(3)
        ]
        _add_sessions(repository, clock, other, other_plan, rng, lambda: 3)
    if with_account:
        clock.now = plan[-1][0] + timedelta(hours=2)
        repository.accounts.create(DEMO_USERNAME, DEMO_PASSWORD)
    # The therapist heard the last attempt differently from the recogniser.
    last = repository.attempts.get(ids[-1])
    clock.now = plan[-1][0] + timedelta(hours=3)
    fixed = last.record.target_text or last.record.chosen_sentence or last.transcript
    repository.attempts.edit_transcript(last.id, "transcript", fixed.rstrip("."), DEMO_USERNAME)
    return DemoData(patient, others, last.id, plan[0][0], plan[-1][0])
