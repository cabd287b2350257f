"""The one success rule of a try: the words heard, or the recogniser's score of the target.

Every verdict the app shows or stores comes from :func:`decide`: the practice
scoring (:mod:`therapy_app.practice.scoring`) calls it with every measure,
storage calls it with the WER alone when an attempt arrives without a verdict,
and the therapist's history and charts only read stored verdicts.

1. **Words.** ``WER <= WER_SUCCESS`` (0.25: one word in four may be wrong),
   the WER taken on :func:`therapy_app.analysis.metrics.words` of both texts,
   **unless the sound contradicts the words**: a transcript that is not word
   for word the target (WER > 0) does not pass when the recogniser scores the
   target more than ``TRANSCRIPT_SLACK`` below that transcript (the patient
   said "Demain mardi sept septembre" for "Demain mardi sept avril": WER 0.25,
   but the audio says "septembre"); and no transcript passes when both the
   decoder's scores and the phonemes clearly hear one distractor instead
   (:func:`another_answer_heard`).
2. **Sound.** The best accepted form beats the best distractor by at least
   ``RANK_MARGIN`` nats per token of :func:`evidence` (``NAMING_RANK_MARGIN``
   when naming a picture) **and** is within ``TRANSCRIPT_SLACK`` of the
   recogniser's own free transcript (plain scores: the prior would reward an
   odd transcript; so an unrelated utterance cannot pass just because every
   distractor is worse). Needs the audio: storage cannot apply it.
3. **Phonemes.** The phone reader (:mod:`therapy_app.asr.phone_reader`) reads
   the same encoder frames as phonemes, with no language habit: the best
   accepted form fits the try at least ``PHONE_FIT`` (against the best
   phoneme string of any kind, so another word fits no candidate) and beats
   the best distractor's fit by ``PHONE_MARGIN``. A garbled transcript does
   not veto it; a transcript that is word for word one of the distractors
   does (a clear hearing of another answer is not overruled by a score).
   Needs the audio and the reader.
4. **Near variants.** A sentence to repeat is also scored with each word left
   out and each content word said as a phonological neighbour ("mardi six
   novembre" for "mardi dix novembre"): the sound rule fails when the decoder
   gives one of them more total evidence than the target (``NEAR_MARGIN``),
   the phone rule when the phonemes fit one better (``PHONE_NEAR_MARGIN``), and
   a transcript that is not word for word the target fails with the decoder.

**Calibration.** ``PRIOR_WEIGHT``, ``RANK_MARGIN``, ``NAMING_RANK_MARGIN`` and
``TRANSCRIPT_SLACK`` were chosen together by ``benchmarks/verdict_calibration.py``
on the calibration half of ``benchmarks/verdicts.py`` (Armelle's telephone
words from Debian ``asterisk-prompt-fr-armelle`` said right, cut, swapped and
sound-alike; two synthetic voices naming pictures and repeating words, right,
sound-alike and same-category): least 3 x false accepts + false rejects (a
"Bravo" for a wrong answer is the worst error). The blind half is only
reported (docs/decisions/0023-verdict-prior.md; figures in docs/figures.md).
``PHONE_FIT`` and ``PHONE_MARGIN`` were chosen the same way with the others fixed
(docs/decisions/0029-phone-reader.md).
Her telephone-band recordings are hard for Whisper base, so most correct human
tries still fail every rule at any setting that keeps false accepts low, and on
her blind words the phonemes took some sound-alikes for the target (0029).
"""

from __future__ import annotations

from dataclasses import dataclass

WER_SUCCESS = 0.25
PRIOR_WEIGHT = 0.75
"""How much of the decoder's expectation with no speech is taken off each score
(:func:`evidence`)."""
RANK_MARGIN = 1.0
TRANSCRIPT_SLACK = 0.5
NAMING_RANK_MARGIN = 0.6
"""``RANK_MARGIN`` for a one-word target (a picture's name, a word to repeat, a
completion answer): one or two words against competitors chosen to be
confusable (same category, phonological neighbours), so the same evidence gives
a smaller margin than a sentence against other sentences."""


PHONE_FIT = -0.7
"""Least fit of the target's phonemes to the try, against any phoneme string
(:meth:`therapy_app.asr.phone_reader.PhoneScores.fit`)."""
PHONE_MARGIN = 0.8
"""Least lead of the target's phoneme fit over the best distractor's."""
NEAR_MARGIN = 0.0
"""Least lead of a sentence's total evidence (nats) over its best near variant
(a word left out or said as a sound-alike: :mod:`therapy_app.practice.variants`).
Totals, not means per token: the variants differ from the target by one word,
and its log-likelihood ratio is diluted by the sentence's length in a mean.
0 with ``PHONE_NEAR_MARGIN``: the target merely preferred to every variant; the
calibration grid's least cost (3.0 and 0.15) rejected most right sentences,
the app's own voice included (docs/decisions/0036-sentence-near-variants.md)."""
PHONE_NEAR_MARGIN = 0.0
"""Least lead of a sentence's phoneme fit over its best near variant's."""


def evidence(per_token: float, prior_per_token: float | None) -> float:
    """How much the audio, rather than the decoder's habits, supports a candidate text.

    Whisper's decoder scores some texts high whatever it hears: on Armelle's
    short telephone words, "Aujourd'hui." beat the word she said for most of
    them. Subtracting ``PRIOR_WEIGHT`` times the candidate's score on silence
    (a pointwise mutual information when the weight is 1) put the right word
    first among her 23 calibration words 12 times instead of 6 (Pico 20
    instead of 17, espeak-ng 13 instead of 6).

    Args:
        per_token: the candidate's mean log-probability per token given the audio.
        prior_per_token: the same given silence; None leaves ``per_token`` as is.
    """
    return per_token if prior_per_token is None else per_token - PRIOR_WEIGHT * prior_per_token


@dataclass(frozen=True)
class Verdict:
    """The outcome of the rule for one try.

    Attributes:
        by_words: the WER rule holds.
        by_sound: the score rule holds.
        by_phones: the phone rule holds.
    """

    by_words: bool
    by_sound: bool
    by_phones: bool = False

    @property
    def success(self) -> bool:
        """The try counts as right: any rule holds."""
        return self.by_words or self.by_sound or self.by_phones


def decide(
    wer: float | None,
    margin: float | None = None,
    transcript_gap: float | None = None,
    *,
    rank_margin: float = RANK_MARGIN,
    transcript_slack: float = TRANSCRIPT_SLACK,
    phone_fit: float | None = None,
    phone_margin: float | None = None,
    heard_distractor: bool = False,
    phone_fit_min: float = PHONE_FIT,
    phone_margin_min: float = PHONE_MARGIN,
    near_margin: float | None = None,
    phone_near_margin: float | None = None,
    near_margin_min: float = NEAR_MARGIN,
    phone_near_margin_min: float = PHONE_NEAR_MARGIN,
) -> Verdict:
    """Apply the rule.

    Args:
        wer: lowest WER against the accepted forms; None when nothing was heard.
        margin: target score minus the best distractor's (nats per token);
            None when the sound was not scored.
        transcript_gap: target score minus the free transcript's; None when
            there is no transcript to compare with (or the transcript is an
            accepted form).
        rank_margin: ``RANK_MARGIN``; ``NAMING_RANK_MARGIN`` for picture naming
            (other values only for calibration).
        transcript_slack: ``TRANSCRIPT_SLACK`` (other values only for calibration).
        phone_fit: the best accepted form's phoneme fit (None without the reader).
        phone_margin: its fit less the best distractor's (None without one).
        heard_distractor: the free transcript is, word for word, one of the
            distractors: a clear hearing of another answer that the phonemes
            must not overrule.
        phone_fit_min: ``PHONE_FIT`` (other values only for calibration).
        phone_margin_min: ``PHONE_MARGIN`` (other values only for calibration).
        near_margin: a sentence's total evidence less its best near variant's
            (None: no variants, a single word).
        phone_near_margin: its phoneme fit less its best near variant's.
        near_margin_min: ``NEAR_MARGIN`` (other values only for calibration).
        phone_near_margin_min: ``PHONE_NEAR_MARGIN`` (other values only for calibration).

    Returns:
        Which rule(s) hold.
    """
    contradicted = transcript_gap is not None and transcript_gap < -transcript_slack
    # The decoder, or the phonemes, prefer the sentence with a word left out or
    # said as a sound-alike: that error is what the try most likely was.
    near_heard = near_margin is not None and near_margin < near_margin_min
    near_phones = phone_near_margin is not None and phone_near_margin < phone_near_margin_min
    by_words = (
        wer is not None
        and wer <= WER_SUCCESS
        and (wer == 0.0 or not (contradicted or near_heard))
        and not another_answer_heard(margin, phone_margin, rank_margin, phone_margin_min)
    )
    by_sound = margin is not None and margin >= rank_margin and not contradicted and not near_heard
    by_phones = (
        phone_fit is not None
        and phone_margin is not None
        and phone_fit >= phone_fit_min
        and phone_margin >= phone_margin_min
        and not heard_distractor
        and not near_phones
    )
    return Verdict(by_words=by_words, by_sound=by_sound, by_phones=by_phones)


def another_answer_heard(
    margin: float | None,
    phone_margin: float | None,
    rank_margin: float = RANK_MARGIN,
    phone_margin_min: float = PHONE_MARGIN,
) -> bool:
    """Both scores put one distractor clearly ahead of the target: the words do not pass.

    The free transcript comes from the decoder with its halting-speech adapters,
    which lean towards words they were trained on: the app's voice saying « un
    éléphant » was transcribed « un téléphone » (word for word the target),
    while the plain decoder scored « Un éléphant. » 2.4 nats per token above it
    and the phonemes 1.6 above. A clear hearing of another answer by the
    sounds overrules the transcript, as a clear transcript of another answer
    overrules the phonemes (``heard_distractor``). "Clearly": the distractor
    leads by the margins that would accept the target the other way round.
    """
    return (
        margin is not None
        and phone_margin is not None
        and margin <= -rank_margin
        and phone_margin <= -phone_margin_min
    )


def transcript_agrees(verdict: Verdict, wer: float | None, transcript_gap: float | None) -> bool:
    """Whether the free transcript may be shown to the patient next to ``verdict``.

    The screen says "J'ai entendu : «…»" under the verdict; a transcript that
    contradicts it ("Bravo !" next to "mais finement j'ai une plume")
    confuses the patient more than no transcript. So it is shown only when it
    supports the verdict:

    * a success: only when the words themselves passed (``by_words``): a
      success by sound alone means the transcript was not the target.
    * a miss: only when the recogniser prefers its transcript to the target
      (``transcript_gap < 0``, or no gap was measured): then what was heard is
      the recogniser's best account of a different attempt. When the target
      scores at least as well as the transcript, the transcript is not
      evidence of the miss and is not shown.

    Args:
        verdict: the outcome of :func:`decide` for the try.
        wer: lowest WER against the accepted forms; None when nothing was heard.
        transcript_gap: target score minus the free transcript's; None when
            not measured.

    Returns:
        True when the transcript may be shown.
    """
    if wer is None:
        return False
    if verdict.success:
        return verdict.by_words
    if wer == 0.0:  # the target itself, overruled by the sounds: not evidence of the miss
        return False
    return transcript_gap is None or transcript_gap < 0.0
