"""What the patient is told must agree with what was heard (issue 10): no Qt, no model."""

from __future__ import annotations

import pytest

from therapy_app.practice.scoring import ScoreResult, best_wer, shown_transcript
from therapy_app.verdict import RANK_MARGIN, Verdict, decide, transcript_agrees


def _result(heard: str, target: str, margin: float | None, gap: float | None) -> ScoreResult:
    wer, matched = best_wer(heard, [target])
    verdict = decide(wer, margin, gap)
    return ScoreResult(
        success=verdict.success,
        stars=3 if verdict.success else 0,
        wer=wer,
        matched=matched,
        target_logprob=None,
        target_per_token=None,
        margin=margin,
        transcript_gap=gap,
        rank=None,
        by_words=verdict.by_words,
        by_sound=verdict.by_sound,
    )


def test_success_by_words_shows_the_transcript():
    result = _result("ma femme mange une pomme", "Ma femme mange une pomme.", 2.5, None)
    assert result.success and result.by_words
    assert shown_transcript(result, " ma femme mange une pomme ") == "ma femme mange une pomme"


def test_success_by_sound_alone_never_shows_a_contradicting_transcript():
    # The reported case: "Bravo ! C'est parfait." next to another sentence.
    result = _result("mais finement j'ai une plume", "Ma femme mange une pomme.", 3.0, 0.4)
    assert result.success and result.by_sound and not result.by_words
    assert shown_transcript(result, "mais finement j'ai une plume") == ""


def test_a_miss_shows_the_transcript_the_recogniser_prefers():
    # "Lundi" said for "Mardi": the transcript is more likely than the target.
    result = _result("Lundi.", "Mardi.", -1.5, -2.0)
    assert not result.success
    assert shown_transcript(result, "Lundi.") == "Lundi."


def test_a_miss_hides_a_transcript_the_target_outscores():
    # The recogniser finds the target at least as likely as its own transcript:
    # the transcript is no evidence that something else was said.
    result = _result(
        "je suis allé à la boulangère",
        "Je suis allé à la boulangerie hier.",
        RANK_MARGIN - 0.2,
        0.3,
    )
    assert not result.success
    assert shown_transcript(result, "je suis allé à la boulangère") == ""


@pytest.mark.parametrize(
    ("verdict", "wer", "gap", "shown"),
    [
        (Verdict(by_words=True, by_sound=False), 0.0, None, True),
        (Verdict(by_words=True, by_sound=True), 0.25, 1.0, True),
        (Verdict(by_words=False, by_sound=True), 0.5, 0.0, False),
        (Verdict(by_words=False, by_sound=True), 1.0, -0.5, False),
        (Verdict(by_words=False, by_sound=False), 0.6, -0.1, True),
        (Verdict(by_words=False, by_sound=False), 0.6, None, True),
        (Verdict(by_words=False, by_sound=False), 0.6, 0.0, False),
        (Verdict(by_words=False, by_sound=False), None, None, False),  # nothing heard
        # The target itself, overruled by the sounds (another answer heard): not shown.
        (Verdict(by_words=False, by_sound=False), 0.0, None, False),
    ],
)
def test_transcript_agrees_table(verdict, wer, gap, shown):
    assert transcript_agrees(verdict, wer, gap) is shown


def test_a_shown_success_transcript_always_passes_the_word_rule():
    # Property over a grid: whenever a success shows its transcript, that
    # transcript alone would have been judged a success.
    for wer in (None, 0.0, 0.2, 0.25, 0.4, 1.0):
        for margin in (None, -1.0, 0.5, 1.0, 3.0):
            for gap in (None, -3.0, -0.5, 0.0, 2.0):
                verdict = decide(wer, margin, gap)
                if verdict.success and transcript_agrees(verdict, wer, gap):
                    assert decide(wer).success
