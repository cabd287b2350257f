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
   but the audio says "septembre").
2. **Sound.** The best accepted form beats the best distractor by at least
   ``RANK_MARGIN`` nats per token (``NAMING_RANK_MARGIN`` when naming a
   picture) **and** is within ``TRANSCRIPT_SLACK`` of the
   recogniser's own free transcript (so an unrelated utterance cannot pass just
   because every distractor is worse). Needs the audio: storage cannot apply it.

**Calibration.** ``benchmarks/verdict_agreement.py`` runs the practice scoring
on human speech (Debian ``asterisk-prompt-fr-armelle``: 2-4 word targets joined
from her recordings) with correct tries and perturbed ones (a wrong word, a
missing word, a different utterance). ``RANK_MARGIN``, ``TRANSCRIPT_SLACK`` and
the sound check of the words were chosen on the calibration half of her targets
(least 3 x false accepts + false rejects: a "Bravo" for a wrong sentence is the
worst error); the other half and the synthetic voice are only reported
(docs/decisions/0018-verdict-calibration.md; current figures in
docs/figures.md). Her telephone-band recordings are hard for Whisper, so most
correct human tries fail both rules at any setting that keeps true reject high.
"""

from __future__ import annotations

from dataclasses import dataclass

WER_SUCCESS = 0.25
RANK_MARGIN = 1.1
TRANSCRIPT_SLACK = 1.5
NAMING_RANK_MARGIN = 0.4
"""``RANK_MARGIN`` for picture naming: one or two words against competitors that are
chosen to be confusable (same category, phonological neighbours), so the same
evidence gives a smaller margin than a sentence against other sentences. Chosen by
``benchmarks/naming.py`` on half of its words (synthetic voices and Armelle's
allowed words; least 3 x false accepts + false rejects;
docs/decisions/0019-naming-margin.md)."""


@dataclass(frozen=True)
class Verdict:
    """The outcome of the rule for one try.

    Attributes:
        by_words: the WER rule holds.
        by_sound: the score rule holds.
    """

    by_words: bool
    by_sound: bool

    @property
    def success(self) -> bool:
        """The try counts as right: either rule holds."""
        return self.by_words or self.by_sound


def decide(
    wer: float | None,
    margin: float | None = None,
    transcript_gap: float | None = None,
    *,
    rank_margin: float = RANK_MARGIN,
    transcript_slack: float = TRANSCRIPT_SLACK,
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

    Returns:
        Which rule(s) hold.
    """
    contradicted = transcript_gap is not None and transcript_gap < -transcript_slack
    by_words = wer is not None and wer <= WER_SUCCESS and (wer == 0.0 or not contradicted)
    by_sound = margin is not None and margin >= rank_margin and not contradicted
    return Verdict(by_words=by_words, by_sound=by_sound)


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
    return transcript_gap is None or transcript_gap < 0.0
