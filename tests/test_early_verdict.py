"""Early verdicts: a known answer judged at a settled pause is the whole recording's verdict.

The rule (issue 25, item 3): a try at a known target is heard and scored at
each settled pause while the microphone stays open; an accepted answer ends
the recording there, anything else waits for the pause tolerance; speech
resuming voids the pause. These tests check the promise that makes it safe
(audio up to a settled pause is heard exactly as the finished recording),
the scoring shortcut (the encoder once per distinct clip, same numbers), and
the recorder and listening loop on real models, fed in real time.
"""

from __future__ import annotations

import threading
import time
from dataclasses import replace

import numpy as np
import pytest
from asr_fixtures import synthesize
from practice_fixtures import SPEECH_DIR, shared_engines

from therapy_app.asr.recognizer import SpeechRecognizer
from therapy_app.asr.utterance import hear
from therapy_app.audio.clip import SAMPLE_RATE, AudioClip
from therapy_app.audio.recorder import FileAudioSource, Recorder, RecorderSettings, StopReason
from therapy_app.audio.wavio import read_wav
from therapy_app.exercises import default_content
from therapy_app.naming.bank import default_bank
from therapy_app.practice.early import AnswerJudge, listen
from therapy_app.practice.events import ExerciseKind
from therapy_app.practice.items import ExerciseItem
from therapy_app.practice.judging import item_for, judge
from therapy_app.practice.scoring import EncodeOnce, score_heard
from therapy_app.vad.silero import WINDOW, EndOfSpeechDetector, segments_from_probabilities

HUMAN_DIR = SPEECH_DIR.parent / "human"
TOLERANCE_MS = 3500  # the default pause tolerance
LEAD_IN_S = 0.5


def _engines() -> tuple:
    engines = shared_engines()
    return engines["recognizer"], engines["vad"]


def _item(exercise: ExerciseKind, target: str) -> ExerciseItem:
    return item_for(exercise, target, default_content(), default_bank())[0]


def _settled_points(detector: EndOfSpeechDetector, samples: np.ndarray) -> list[int]:
    """Every settled pause the detector reports, fed window by window."""
    points: list[int] = []
    for start in range(0, len(samples), WINDOW):
        detector.feed(samples[start : start + WINDOW])
        settled = detector.settled_samples
        if settled is not None and (not points or points[-1] != settled):
            points.append(settled)
    return points


# ----- the promise, on window probabilities -------------------------------------------------
class _ScriptedVad:
    def __init__(self, probabilities: np.ndarray) -> None:
        self._next = iter(probabilities.tolist())

    def window_probability(self, window: np.ndarray, state: object) -> float:
        return float(next(self._next))


def test_segments_up_to_a_settled_pause_are_those_of_any_quiet_continuation() -> None:
    # Random speech probabilities: at each settled pause, the segments found in
    # the audio so far (speech and pauses) are those of the whole recording,
    # provided no later window reaches the threshold, and the trimming pad
    # (300 ms after the last segment) is already captured.
    rng = np.random.default_rng(253)
    levels = np.array([0.0, 0.05, 0.2, 0.34, 0.36, 0.45, 0.49, 0.5, 0.6, 0.9, 1.0])
    pad_windows = 0.3 * SAMPLE_RATE / WINDOW
    checked = 0
    for _ in range(400):
        middle = rng.choice(levels, size=int(rng.integers(5, 80)))
        quiet = rng.choice(levels[:7], size=int(rng.integers(0, 40)))  # never >= 0.5
        probabilities = np.concatenate([np.zeros(3), middle, quiet, np.full(120, 0.02)])
        detector = EndOfSpeechDetector(_ScriptedVad(probabilities), trailing_silence_ms=60_000)  # type: ignore[arg-type]
        previous = None
        for index in range(len(probabilities)):
            detector.feed(np.zeros(WINDOW, np.float32))
            settled = detector.settled_samples
            fresh = settled is not None and settled != previous
            previous = settled
            if settled is None or not fresh:
                continue
            windows = settled // WINDOW
            assert windows == index + 1
            if np.any(probabilities[windows:] >= 0.5):
                continue  # speech resumes later: that pause is voided, not promised
            for min_silence_ms in (300, 250):  # trimming segments, pause segments
                prefix = segments_from_probabilities(
                    probabilities[:windows], 0.5, 250, min_silence_ms
                )
                whole = segments_from_probabilities(probabilities, 0.5, 250, min_silence_ms)
                assert prefix == whole, probabilities.round(2).tolist()
            if whole:
                assert windows - whole[-1][1] / WINDOW >= pad_windows
            checked += 1
    assert checked > 100


def test_speech_resuming_voids_a_settled_pause() -> None:
    probabilities = np.array([0.0] * 3 + [0.9] * 10 + [0.1] * 12 + [0.9] * 10 + [0.1] * 12)
    detector = EndOfSpeechDetector(_ScriptedVad(probabilities), trailing_silence_ms=60_000)  # type: ignore[arg-type]
    seen: list[int | None] = []
    for _ in probabilities:
        detector.feed(np.zeros(WINDOW, np.float32))
        seen.append(detector.settled_samples)
    # Settled 10 windows after the first window below 0.35, voided by the next speech.
    assert seen[22] is None and seen[23] == 24 * WINDOW
    assert seen[25] is None and seen[34] is None
    assert seen[-1] == (len(probabilities) - 1) * WINDOW


# ----- the promise, on real speech --------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize(
    "clip_name", ["speech/word_04.wav", "speech/telegraphic_02.wav", "human/jeudi.wav"]
)
def test_a_settled_pause_is_heard_exactly_as_the_finished_recording(clip_name: str) -> None:
    recognizer, vad = _engines()
    speech = read_wav(SPEECH_DIR.parent / clip_name)
    recording = AudioClip.concatenate(
        [AudioClip.silence(LEAD_IN_S), speech, AudioClip.silence(TOLERANCE_MS / 1000 + 0.1)]
    )
    points = _settled_points(vad.end_of_speech_detector(TOLERANCE_MS), recording.samples)
    assert points
    last = points[-1]
    assert last / SAMPLE_RATE < LEAD_IN_S + speech.duration + 0.6  # a few hundred ms after
    early = hear(recognizer, vad, recording.slice(0, last / SAMPLE_RATE))
    whole = hear(recognizer, vad, recording)
    assert early is not None and whole is not None
    assert np.array_equal(early.clip.samples, whole.clip.samples)
    assert np.array_equal(early.asr_clip.samples, whole.asr_clip.samples)
    assert early.pause_ratio == whole.pause_ratio
    assert early.transcript.text == whole.transcript.text
    assert early.transcript.token_logprobs == whole.transcript.token_logprobs


# ----- the scoring shortcut -----------------------------------------------------------------
@pytest.mark.slow
def test_hearing_and_scoring_share_one_encoder_run_and_keep_every_number() -> None:
    recognizer, vad = _engines()
    halting = "moi aller boulangerie hier"
    cases = [
        (ExerciseKind.REPETITION, "Bonjour.", read_wav(SPEECH_DIR / "word_04.wav"), 1),
        (ExerciseKind.REPETITION, "Bonjour.", read_wav(SPEECH_DIR / "word_01.wav"), 1),
        (ExerciseKind.COMPLETION, "jeudi", read_wav(HUMAN_DIR / "jeudi.wav"), 1),
        (ExerciseKind.NAMING, "chapeau", synthesize("un chapeau"), 1),
        # Pauses longer than 0.3 s are shortened for the transcription, and scoring
        # listens to that clip too: one encoding.
        (ExerciseKind.REPETITION, halting, synthesize(halting, telegraphic=True), 1),
    ]
    for exercise, target, clip, encodings in cases:
        item = _item(exercise, target)
        plain = judge(recognizer, vad, clip, item)
        once = EncodeOnce(recognizer)
        heard = hear(once, vad, clip)  # type: ignore[arg-type]
        assert heard is not None and plain.result is not None
        result = score_heard(once, item, heard)
        assert once.encodings == encodings, target
        assert heard.transcript.text == plain.heard
        assert replace(result, seconds=0.0) == replace(plain.result, seconds=0.0), target
        judged = AnswerJudge(recognizer, vad, item, 0)(clip)
        assert judged.result is not None
        assert replace(judged.result, seconds=0.0) == replace(plain.result, seconds=0.0)


@pytest.mark.slow
def test_an_item_prepared_before_the_try_waits_for_the_try_s_own_work_only() -> None:
    shared, vad = _engines()
    recognizer = SpeechRecognizer.load()  # its own prior cache: nothing scored yet
    steps = 0
    step = recognizer.model.step

    def counted(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202 - a pass-through
        nonlocal steps
        steps += 1
        return step(*args, **kwargs)

    recognizer.model.step = counted  # type: ignore[method-assign]
    item = _item(ExerciseKind.REPETITION, "Bonjour.")
    clip = read_wav(SPEECH_DIR / "word_04.wav")
    judge_ = AnswerJudge(recognizer, vad, item, 0)
    judge_.prepare()
    before = steps
    first = judge_(clip)
    first_steps = steps - before
    before = steps
    again = judge_(clip)  # everything the item needs was already there
    assert first_steps == steps - before
    # The priors computed beforehand are those scoring computes: the same numbers.
    plain = judge(shared, vad, clip, item)
    assert first.result is not None and again.result is not None and plain.result is not None
    assert replace(first.result, seconds=0.0) == replace(plain.result, seconds=0.0)
    assert replace(again.result, seconds=0.0) == replace(plain.result, seconds=0.0)


# ----- the recorder and the listening loop, in real time ------------------------------------
def _recorder(vad, speech: AudioClip, trailing_s: float) -> Recorder:
    recording = AudioClip.concatenate([AudioClip.silence(LEAD_IN_S), speech])
    recorder = Recorder(FileAudioSource(recording, realtime=True, trailing_silence_s=trailing_s))
    recorder.start(vad.end_of_speech_detector(TOLERANCE_MS), RecorderSettings(30.0, 8.0))
    return recorder


def _speech_end(vad, clip: AudioClip) -> float:
    return LEAD_IN_S + vad.speech_segments(clip, pad_ms=0)[-1].end_s


@pytest.mark.slow
def test_an_accepted_answer_ends_the_recording_at_its_first_settled_pause() -> None:
    recognizer, vad = _engines()
    speech = read_wav(SPEECH_DIR / "word_04.wav")  # "bonjour"
    item = _item(ExerciseKind.REPETITION, "Bonjour.")
    recorder = _recorder(vad, speech, trailing_s=TOLERANCE_MS / 1000 + 1.0)
    listened = listen(recorder, AnswerJudge(recognizer, vad, item, 0))

    assert listened.reason is StopReason.AT_PAUSE
    assert listened.judged is not None and listened.judged.accepted
    (verdict,) = listened.early
    spoke_until = _speech_end(vad, speech)
    assert verdict.samples / SAMPLE_RATE - spoke_until < 0.6  # the pause, not the tolerance
    # Recording went on while it was judged, and ended well before the tolerance.
    assert listened.clip.duration < spoke_until + TOLERANCE_MS / 1000 - 0.3
    # The verdict is the one the whole recording gets, had the patient stopped there.
    silence = AudioClip.silence(TOLERANCE_MS / 1000)
    whole = judge(recognizer, vad, AudioClip.concatenate([listened.clip, silence]), item)
    assert whole.result is not None
    assert replace(listened.judged.result, seconds=0.0) == replace(whole.result, seconds=0.0)
    stored = hear(recognizer, vad, listened.clip)  # what is stored: the clip that was scored
    assert listened.judged.heard is not None and stored is not None
    assert np.array_equal(listened.judged.heard.clip.samples, stored.clip.samples)


@pytest.mark.slow
def test_a_wrong_answer_waits_for_the_pause_tolerance_and_keeps_its_verdict() -> None:
    recognizer, vad = _engines()
    speech = read_wav(SPEECH_DIR / "word_01.wav")  # "pomme"
    item = _item(ExerciseKind.REPETITION, "Bonjour.")
    recorder = _recorder(vad, speech, trailing_s=TOLERANCE_MS / 1000 + 1.0)
    listened = listen(recorder, AnswerJudge(recognizer, vad, item, 0))

    assert listened.reason is StopReason.END_OF_SPEECH
    spoke_until = _speech_end(vad, speech)
    assert listened.clip.duration == pytest.approx(spoke_until + TOLERANCE_MS / 1000, abs=0.3)
    assert listened.early and not listened.early[0].judged.accepted
    # Nothing was said after the pause: its verdict is the recording's, not heard again.
    assert listened.judged is listened.early[-1].judged
    whole = judge(recognizer, vad, listened.clip, item)
    assert whole.result is not None and listened.judged.result is not None
    assert replace(listened.judged.result, seconds=0.0) == replace(whole.result, seconds=0.0)


@pytest.mark.slow
def test_a_pause_mid_answer_is_not_cut_off() -> None:
    recognizer, vad = _engines()
    # Searching for the word: "Je voudrais" ... 2 s ... "un café".
    first, second = synthesize("Je voudrais"), synthesize("un café")
    speech = AudioClip.concatenate([first, AudioClip.silence(2.0), second])
    item = _item(ExerciseKind.REPETITION, "Je voudrais un café.")
    recorder = _recorder(vad, speech, trailing_s=TOLERANCE_MS / 1000 + 1.0)
    listened = listen(recorder, AnswerJudge(recognizer, vad, item, 0))

    assert len(listened.early) >= 2
    resumed_at = LEAD_IN_S + first.duration + 2.0
    before = [v for v in listened.early if v.samples / SAMPLE_RATE < resumed_at]
    assert before and not any(v.judged.accepted for v in before)
    assert listened.clip.duration > _speech_end(vad, speech)  # the whole answer was recorded
    assert listened.judged is not None and listened.judged.heard is not None
    assert "café" in listened.judged.heard.transcript.text.lower()


@pytest.mark.slow
def test_the_recorder_refuses_to_stop_at_a_pause_once_speech_resumed() -> None:
    _, vad = _engines()
    word = read_wav(SPEECH_DIR / "word_04.wav")
    speech = AudioClip.concatenate([word, AudioClip.silence(1.2), word])
    recorder = _recorder(vad, speech, trailing_s=TOLERANCE_MS / 1000 + 1.0)
    first = recorder.next_pause(timeout=10.0)
    assert first is not None
    resumed = threading.Event()

    def watch() -> None:
        while recorder.settled == first:
            time.sleep(0.01)
        resumed.set()

    threading.Thread(target=watch, daemon=True).start()
    assert resumed.wait(timeout=10.0)  # the second word voided the pause
    assert not recorder.stop_at_pause(first)
    assert recorder.is_recording
    second = recorder.next_pause(first, timeout=10.0)
    assert second is not None and second > first
    assert recorder.stop_at_pause(second)
    clip = recorder.stop()
    assert recorder.stop_reason is StopReason.AT_PAUSE
    assert len(clip.samples) >= second
    assert recorder.settled == second  # nothing said after it: the promise holds
