"""Scores a naming try: the picture's name in every determiner form against its competitors.

The practice applies the app's one verdict rule (:func:`therapy_app.verdict.decide`,
with ``NAMING_RANK_MARGIN``) through :func:`therapy_app.practice.scoring.score_try`,
with the answer forms of :mod:`therapy_app.naming.candidates` as the accepted and scored forms and
the competitors' forms as distractors. :func:`rank_answer` is the ranking
alone (no transcript), for the benchmark: is the best answer form above every
competitor form?
"""

from __future__ import annotations

from dataclasses import dataclass

from therapy_app.asr.recognizer import EncodedAudio, SpeechRecognizer
from therapy_app.audio.clip import AudioClip
from therapy_app.naming.bank import NamingItem
from therapy_app.naming.candidates import Competitors, accepted_answers, answer_forms
from therapy_app.practice.scoring import ScoreResult, score_try
from therapy_app.verdict import NAMING_RANK_MARGIN, evidence
from therapy_app.written import as_sentence


@dataclass(frozen=True)
class NamingRank:
    """Where the answer ranks among the competitors for one recording.

    Attributes:
        top1: an answer form scores above every competitor form.
        answer: the best answer form.
        answer_score: its evidence (:func:`therapy_app.verdict.evidence`).
        rival: the best competitor form.
        rival_score: its evidence.
    """

    top1: bool
    answer: str
    answer_score: float
    rival: str
    rival_score: float

    @property
    def margin(self) -> float:
        """``answer_score - rival_score`` (positive when the answer wins)."""
        return self.answer_score - self.rival_score


def rank_answer(
    recognizer: SpeechRecognizer,
    audio: AudioClip | EncodedAudio,
    item: NamingItem,
    competitors: Competitors,
    with_determiners: bool = True,
) -> NamingRank:
    """Score the answer forms and the competitor forms on one recording.

    Args:
        recognizer: the loaded recogniser.
        audio: the recording, or its encoder output (to score it several ways).
        item: the picture.
        competitors: its competitors.
        with_determiners: score determiner forms (else bare words only).
    """
    forms = [as_sentence(f) for f in answer_forms(item, with_determiners)]
    rivals = [
        c for c in (as_sentence(f) for f in competitors.forms(with_determiners)) if c not in forms
    ]
    candidates = list(dict.fromkeys([*forms, *rivals]))
    scores = {
        s.text: evidence(s.logprob_per_token, s.prior_per_token)
        for s in recognizer.score(audio, candidates, priors_for=len(candidates))
    }
    answer = max(forms, key=lambda f: scores[f])
    rival = max(rivals, key=lambda f: scores[f])
    return NamingRank(scores[answer] > scores[rival], answer, scores[answer], rival, scores[rival])


def score_naming(
    recognizer: SpeechRecognizer,
    clip: AudioClip,
    heard: str,
    item: NamingItem,
    competitors: Competitors,
    cue_level: int = 0,
) -> ScoreResult:
    """The verdict on one naming try (the practice's rule, naming's candidates).

    Args:
        recognizer: the loaded recogniser.
        clip: the trimmed recording.
        heard: its transcript.
        item: the picture.
        competitors: its competitors.
        cue_level: help given before the try (stars only).
    """
    return score_try(
        recognizer,
        clip,
        heard,
        accepted_answers(item),
        competitors.forms(),
        cue_level,
        answer_forms(item),
        rank_margin=NAMING_RANK_MARGIN,
    )
