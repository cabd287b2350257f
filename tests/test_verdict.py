"""One success rule: practice scoring and storage give the same verdict for the same words."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from storage_fixtures import make_record

from therapy_app.analysis.answers import best_wer
from therapy_app.storage import SessionRepository
from therapy_app.verdict import (
    NEAR_MARGIN,
    PHONE_FIT,
    PHONE_MARGIN,
    PHONE_NEAR_MARGIN,
    PRIOR_WEIGHT,
    RANK_MARGIN,
    TRANSCRIPT_SLACK,
    decide,
    evidence,
)


@pytest.fixture
def repo(tmp_path: Path) -> Iterator[SessionRepository]:
    repository = SessionRepository(tmp_path / "data")
    yield repository
    repository.close()


def test_words_or_sound_decide():
    assert decide(0.2).success and decide(0.2).by_words and not decide(0.2).by_sound
    assert not decide(0.5).success
    assert not decide(None).success
    close = -TRANSCRIPT_SLACK / 2  # the target nearly as likely as the transcript
    assert decide(1.0, RANK_MARGIN + 0.05, close).by_sound
    assert not decide(1.0, RANK_MARGIN - 0.05, close).success  # distractor too close
    # The patient said something else: the transcript is far likelier.
    assert not decide(1.0, 3.0, -TRANSCRIPT_SLACK - 0.05).success


def test_the_phonemes_decide_when_they_fit_the_target_and_beat_its_rivals() -> None:
    fit, lead = PHONE_FIT + 0.05, PHONE_MARGIN + 0.05
    # A garbled transcript and a small decoder margin: the phonemes still accept.
    heard = decide(1.0, 0.1, -2.0, phone_fit=fit, phone_margin=lead)
    assert heard.success and heard.by_phones and not heard.by_sound
    # The try fits another phoneme string far better than the target (a different word).
    assert not decide(1.0, 0.1, None, phone_fit=PHONE_FIT - 0.05, phone_margin=lead).success
    # A sound-alike fits nearly as well: not clearly the target.
    assert not decide(1.0, 0.1, None, phone_fit=fit, phone_margin=PHONE_MARGIN - 0.05).success
    # No reader, no pronunciation, or no rival with one: the phone rule says nothing.
    assert not decide(1.0, 0.1, None, phone_fit=fit, phone_margin=None).success
    assert not decide(1.0, 0.1, None, phone_fit=None, phone_margin=lead).success
    assert not decide(1.0).by_phones


def test_the_decoders_own_expectation_is_taken_off() -> None:
    # Two candidates equally likely given the audio: the one the decoder would
    # have said anyway (higher score on silence) has less evidence.
    assert evidence(-2.0, -1.0) < evidence(-2.0, -4.0)
    assert evidence(-2.0, -4.0) - evidence(-2.0, -1.0) == pytest.approx(3 * PRIOR_WEIGHT)
    assert evidence(-2.0, None) == -2.0  # no prior measured: the score as is


def test_the_sound_can_withdraw_a_word_success():
    # "Demain mardi sept septembre" heard word for word for "Demain mardi sept
    # avril": WER 0.25, but the audio is far likelier as said (issue 10).
    assert not decide(0.25, 2.15, -2.0).success
    assert decide(0.25, 2.15, -0.5).by_words  # a misheard word, not contradicted
    assert decide(0.0, None, -3.0).by_words  # word for word the target: nothing to contradict
    assert decide(0.25).by_words  # storage has no sound: the words alone decide


def test_both_scores_hearing_another_answer_overrule_the_words() -> None:
    # « un éléphant » transcribed « un téléphone » for the picture « téléphone »:
    # the decoder's plain scores and the phonemes both put « éléphant » far ahead.
    assert not decide(0.0, -2.43, None, rank_margin=0.6, phone_margin=-1.64).success
    # One score alone, or a distractor only slightly ahead, does not overrule them.
    assert decide(0.0, -2.43, None, rank_margin=0.6, phone_margin=0.5).by_words
    assert decide(0.0, 0.2, None, rank_margin=0.6, phone_margin=-1.64).by_words
    assert decide(0.0, -0.55, None, rank_margin=0.6, phone_margin=-PHONE_MARGIN - 0.1).by_words
    assert decide(0.0, -2.43, None, phone_margin=-PHONE_MARGIN + 0.05).by_words
    assert decide(0.0, -2.43, None).by_words  # no phone reader: the words decide


def test_a_sentence_must_beat_its_near_variants() -> None:
    # « mardi six novembre » for « mardi dix novembre »: far ahead of other
    # sentences, and the phonemes fit it well, but the decoder gives « Mardi six
    # novembre. » more evidence, and the phonemes fit it better.
    fit, lead = PHONE_FIT + 0.5, PHONE_MARGIN + 2.0
    said_right = decide(1.0, 3.1, -0.3, phone_fit=fit, phone_margin=lead)
    assert said_right.by_sound and said_right.by_phones
    below, above = NEAR_MARGIN - 0.5, NEAR_MARGIN + 0.5
    alike = decide(1.0, 3.1, -0.3, phone_fit=fit, phone_margin=lead, near_margin=below)
    assert alike.by_phones and not alike.by_sound  # the phonemes still accept on their own
    phones_too = decide(
        1.0, 3.1, -0.3, phone_fit=fit, phone_margin=lead, near_margin=below,
        phone_near_margin=PHONE_NEAR_MARGIN - 0.1,
    )  # fmt: skip
    assert not phones_too.success
    kept = decide(
        1.0, 3.1, -0.3, phone_fit=fit, phone_margin=lead, near_margin=above,
        phone_near_margin=PHONE_NEAR_MARGIN + 0.1,
    )  # fmt: skip
    assert kept.by_sound and kept.by_phones
    # A transcript one word off passes by words only when the decoder does not
    # prefer a near variant; word for word the target, it passes anyway.
    assert decide(0.25, near_margin=above).by_words
    assert not decide(0.25, near_margin=below).success
    assert decide(0.0, near_margin=below).by_words


@pytest.mark.parametrize(
    ("heard", "success"),
    [
        ("le chien dort bien", True),  # one word in four wrong: WER 0.25
        ("le chien mange bien", False),  # two in four: WER 0.5
    ],
)
def test_storage_derives_the_practice_verdict(
    repo: SessionRepository, heard: str, success: bool
) -> None:
    target = "le chat dort bien"
    wer, _ = best_wer(heard, [target])
    assert decide(wer).success is success  # what the patient is told
    patient = repo.patients.create("Paul")
    session = repo.sessions.start(patient.id, "repetition")
    stored = repo.attempts.get(
        repo.attempts.add(make_record(session.id, target_text=target, raw_transcript=heard))
    )
    # Before: storage said accuracy >= 0.8, so 0.75 was a failure here and a
    # success on the patient's screen.
    assert stored.metrics.wer == pytest.approx(wer)
    assert stored.success is success
    assert repo.history.summaries(patient.id)[0].success_rate == float(success)


def test_an_edit_is_judged_by_the_same_rule(repo: SessionRepository) -> None:
    patient = repo.patients.create("Paul")
    session = repo.sessions.start(patient.id, "repetition")
    attempt_id = repo.attempts.add(
        make_record(session.id, target_text="le chat dort bien", raw_transcript="rien")
    )
    assert repo.attempts.get(attempt_id).success is False
    repo.attempts.edit_transcript(attempt_id, "transcript", "le chien dort bien", "ortho")
    assert repo.attempts.get(attempt_id).success is True


def test_naming_accepts_a_smaller_margin_than_sentences() -> None:
    # One word against confusable competitors (benchmarks/verdict_calibration.py).
    from therapy_app.verdict import NAMING_RANK_MARGIN, RANK_MARGIN

    assert 0.0 < NAMING_RANK_MARGIN < RANK_MARGIN
    between = (NAMING_RANK_MARGIN + RANK_MARGIN) / 2
    assert not decide(1.0, between, -0.2).success
    assert decide(1.0, between, -0.2, rank_margin=NAMING_RANK_MARGIN).success
    # The transcript check still applies: far below its own transcript is no success.
    assert not decide(1.0, between, -2.0, rank_margin=NAMING_RANK_MARGIN).success
