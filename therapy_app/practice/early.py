"""Early verdicts: a known answer scored at a pause while the microphone stays open.

A try at a known target (repetition, naming, completion, the chosen sentence
of free speech) used to wait for the patient's whole pause tolerance (3.5 s
by default) before it was even heard, then for hearing and scoring (about
1 s on 2 cores). Here, while the recorder keeps listening, each *settled
pause* of the speech (:class:`~therapy_app.vad.silero.EndOfSpeechDetector`:
about 0.35 s after the last word, when the finished recording's last speech
segment is closed and its trimming pad captured) is heard and scored on the
worker that waits for the recording anyway:

* an answer the rule **accepts** (:func:`~therapy_app.practice.scoring.score_heard`,
  the one rule with the item's own margins: nothing looser) ends the
  recording there (:meth:`~therapy_app.audio.recorder.Recorder.stop_at_pause`,
  granted only if nothing was said since) and is shown at once;
* an answer it **rejects** (or nothing heard) changes nothing: the patient
  may still be searching for the word, the recording goes on, and the pause
  tolerance ends it as before. If it ends with nothing said after that
  pause, the verdict already made is the verdict of the whole recording and
  is used as is (no second hearing);
* **speech resuming** voids the pause (the recorder's settled point goes back
  to None); the next settled pause is scored afresh.

Exactness: audio up to a settled pause is heard exactly as any longer
recording whose later windows never reach the speech threshold (see the
detector's docstring), so the verdict of the early clip is the verdict
``judge`` gives the stored recording, and the stored recording is the clip
that was heard (scored with its long pauses capped, as ``judge`` scores it).
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from therapy_app.asr.utterance import HeardUtterance, hear
from therapy_app.audio.clip import SAMPLE_RATE, AudioClip
from therapy_app.audio.recorder import Recorder, StopReason
from therapy_app.practice.scoring import EncodeOnce, ScoreResult, prime_item, score_heard

if TYPE_CHECKING:
    from therapy_app.asr.recognizer import SpeechRecognizer
    from therapy_app.practice.items import ExerciseItem
    from therapy_app.vad.silero import VoiceActivityDetector

_LOGGER = logging.getLogger(__name__)


@dataclass(frozen=True)
class Judged:
    """A recording heard and scored against its item.

    Attributes:
        heard: the trimmed clip and its transcript; None when no speech was found.
        result: the verdict and its numbers; None when no speech was found.
        seconds: time spent hearing and scoring.
    """

    heard: HeardUtterance | None
    result: ScoreResult | None
    seconds: float = 0.0

    @property
    def accepted(self) -> bool:
        """The rule accepts the answer."""
        return self.result is not None and self.result.success


class AnswerJudge:
    """Hears a recording and applies the rule for one item, at one cue level.

    What practice does with a finished try (``hear``, then ``score_heard``)
    in one call, with the encoder run once for both when the clip has no
    long pause (:class:`~therapy_app.practice.scoring.EncodeOnce`).

    Args:
        recognizer: the loaded recogniser.
        vad: the loaded voice activity detector.
        item: the item the try is scored against.
        cue_level: help given before the try (stars only).
    """

    def __init__(
        self,
        recognizer: SpeechRecognizer,
        vad: VoiceActivityDetector,
        item: ExerciseItem,
        cue_level: int,
    ) -> None:
        self.recognizer = recognizer
        self.vad = vad
        self.item = item
        self.cue_level = cue_level

    def prepare(self) -> None:
        """Compute what the item's scoring needs whatever is said (its priors).

        Called while the patient speaks, so that the verdict at the first
        pause waits for the try's own work only.
        """
        prime_item(self.recognizer, self.item)

    def __call__(self, clip: AudioClip) -> Judged:
        """Hear ``clip`` and score it.

        Raises:
            AudioInputError: the clip cannot be recognised (too long, corrupt).
        """
        start = time.perf_counter()
        once = EncodeOnce(self.recognizer)
        # hear() wants a SpeechRecognizer; it only calls transcribe(), which
        # EncodeOnce provides with the same signature.
        heard = hear(cast("SpeechRecognizer", once), self.vad, clip)
        if heard is None:
            return Judged(None, None, time.perf_counter() - start)
        result = score_heard(once, self.item, heard, self.cue_level)
        return Judged(heard, result, time.perf_counter() - start)


@dataclass(frozen=True)
class EarlyVerdict:
    """A verdict made at a settled pause while the recording went on.

    Attributes:
        samples: the recording's length it was made on (the pause).
        judged: the verdict.
        started_s: seconds from the start of listening to the start of scoring.
    """

    samples: int
    judged: Judged
    started_s: float


@dataclass(frozen=True)
class Listened:
    """A finished recording, and its verdict when one was already made.

    Attributes:
        clip: everything captured.
        reason: why the recording ended (``AT_PAUSE``: an early verdict accepted it).
        judged: the verdict of exactly this recording, made at a pause (the
            accepted answer, or a rejection after which nothing more was
            said); None when it is still to be made.
        early: every verdict made at a pause, in order (diagnostics).
    """

    clip: AudioClip
    reason: StopReason | None
    judged: Judged | None
    early: tuple[EarlyVerdict, ...] = ()

    @property
    def silent(self) -> bool:
        """Nothing was said: no speech started before the timeout, or nothing captured."""
        return self.reason is StopReason.NO_SPEECH or self.clip.duration == 0


def listen(recorder: Recorder, judge: AnswerJudge | None = None) -> Listened:
    """Wait for the recording to end, scoring each settled pause with ``judge`` meanwhile.

    Runs on the inference worker (which waits for the recording anyway), so
    early scoring never runs beside another inference job. The item's
    scoring is prepared first (:meth:`AnswerJudge.prepare`), while the
    patient speaks. Without a judge
    it only waits, as :func:`therapy_app.speech.chain.capture` does.

    Args:
        recorder: a started recorder with an end-of-speech detector.
        judge: the try's item and rule; None for an utterance with no known target.

    A verdict that fails (a clip that cannot be recognised) stops the early
    judging: the recording then ends as before and its judging reports the
    error.

    Raises:
        AudioDeviceError: the microphone failed during the recording.
    """
    began = time.perf_counter()
    made: list[EarlyVerdict] = []
    pause: int | None = None
    if judge is not None:
        try:
            judge.prepare()
        except Exception:  # noqa: BLE001 - scoring computes it again, and reports its errors
            _LOGGER.warning("preparing the item's scoring failed", exc_info=True)
    while judge is not None:
        pause = recorder.next_pause(pause)
        if pause is None:
            break
        started = time.perf_counter() - began
        try:
            judged = judge(recorder.clip_until(pause))
        except Exception:  # noqa: BLE001 - the judging after the recording reports it
            _LOGGER.warning("early verdict failed; judging after the recording", exc_info=True)
            break
        made.append(EarlyVerdict(pause, judged, started))
        _LOGGER.info(
            "early verdict at %.2f s (%.2f s to make): %s",
            pause / SAMPLE_RATE,
            judged.seconds,
            "accepted" if judged.accepted else "not accepted",
        )
        if judged.accepted and recorder.stop_at_pause(pause):
            clip = recorder.stop()
            return Listened(clip, recorder.stop_reason, judged, tuple(made))
    recorder.wait()
    clip = recorder.stop()
    return Listened(clip, recorder.stop_reason, _still_valid(recorder, made), tuple(made))


def _still_valid(recorder: Recorder, made: list[EarlyVerdict]) -> Judged | None:
    """The last early verdict when the finished recording is heard exactly as its clip."""
    settled = recorder.settled  # None unless every kept block was analysed
    if not made or settled is None or made[-1].samples != settled:
        return None
    return made[-1].judged
