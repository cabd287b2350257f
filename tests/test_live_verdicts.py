"""A try played into the microphone during practice gets the verdict of its file (issue 25).

The live test plays recordings (the app's voice, and Armelle's in
``tests/data/human``) into the virtual microphone during real practice
sessions (``benchmarks/live_session.py``: the real controller, recorder on
the default microphone, end-of-speech detector, models and repository) and
checks each step between the file and the verdict: the microphone delivers
the file unchanged after the patient's lead-in, the app scores exactly what it
captured (the captured audio judged as a file gives the same verdict and
margin), the recording it stores is the clip it scored, and the verdict is
the one :func:`therapy_app.practice.judging.judge` gives the played file.

Early verdicts (issue 25, item 3): an answer the rule accepts ends the try at
the patient's first settled pause, well before the pause tolerance; a wrong
one waits for the whole tolerance; a patient who pauses mid-answer is never
cut off.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from asr_fixtures import synthesize
from practice_fixtures import require_models

from benchmarks.live_session import (
    LEAD_IN_S,
    LiveSession,
    LiveTry,
    alignment,
    room_tone,
    speech_span,
    write_clip,
)
from therapy_app.asr.utterance import prepare
from therapy_app.audio.clip import AudioClip
from therapy_app.audio.wavio import read_wav
from therapy_app.practice.events import ExerciseKind
from therapy_app.practice.judging import judge
from therapy_app.practice.settings import PracticeSettings
from therapy_app.speech.loading import load_steps
from therapy_app.vad.silero import WINDOW, EndOfSpeechDetector, segments_from_probabilities

HUMAN_DIR = Path(__file__).resolve().parent / "data" / "human"

MARGIN_NOISE = 0.6
"""How far the live margin may be from the played file's.

Not a loss: the recogniser's margin moves when the same audio starts a few
milliseconds later (measured: "un chapeau" 0.41-0.65 with 0-28 ms of silence
added in 4 ms steps; the captured audio starts at an arbitrary sample of the
VAD's 32 ms windows). The tries below keep at least this far from the rule's
threshold, so that their verdict is not a matter of timing; over 16 offsets
the largest gap measured for them was 0.31 before the prior was taken off the
scores. With it, when the best distractor changes between two close ones the
margin also moves by their difference on silence: her "lundi" for "dimanche"
gave -0.45 live and 0.01 as a file in one clean run (both rejected).
"""

# (exercise, target, who says what): right and wrong answers, away from the threshold.
TRIES = (
    (ExerciseKind.NAMING, "téléphone", "pico:un téléphone"),
    (ExerciseKind.NAMING, "cadeau", "pico:un gâteau"),
    (ExerciseKind.REPETITION, "dimanche", "human:lundi"),
    # Her "onze": its speech probability hovers around the threshold (see below).
    (ExerciseKind.REPETITION, "onze", "human:onze"),
)
TIMING_MARGINS = {"human:onze"}
"""Tries whose decoder margin is a matter of timing, not their verdict: her « onze » is
64 ms above the speech threshold, heard from a few windows since a short word alone is
speech (docs/decisions/0032); its margin moved by 0.90 between live and file in one CI
run, while the phone fit that rejects it (−2.3 as a file) is far from the rule's −0.7."""


def _recording(said: str) -> AudioClip:
    voice, text = said.split(":", 1)
    if voice == "pico":
        return synthesize(text)
    index = json.loads((HUMAN_DIR / "index.json").read_text(encoding="utf-8"))
    (entry,) = [e for e in index if e["text"] == text]
    return read_wav(HUMAN_DIR / entry["file"])


# ----- the microphone listens to what hearing finds --------------------------------------
class _ScriptedVad:
    """A VAD whose window probabilities are given."""

    def __init__(self, probabilities: np.ndarray) -> None:
        self._next = iter(probabilities.tolist())

    def window_probability(self, window: np.ndarray, state: object) -> float:
        return float(next(self._next))


def _started(probabilities: np.ndarray) -> bool:
    detector = EndOfSpeechDetector(_ScriptedVad(probabilities), trailing_silence_ms=60_000)  # type: ignore[arg-type]
    detector.feed(np.zeros(len(probabilities) * WINDOW, np.float32))
    return detector.speech_started


def test_the_microphone_waits_for_speech_only_when_hearing_finds_none() -> None:
    # A window at 0.6 then 0.45 (between the thresholds) for 256 ms: the
    # finished recording holds speech (practice scores it), so the microphone
    # must not keep listening to the no-speech timeout and say it heard nothing.
    hovering = np.array([0.0] * 5 + [0.6] + [0.45] * 8 + [0.1] * 12)
    assert segments_from_probabilities(hovering)
    assert _started(hovering)
    rng = np.random.default_rng(25)
    levels = np.array([0.05, 0.2, 0.34, 0.4, 0.45, 0.49, 0.5, 0.55, 0.7, 0.95])
    for _ in range(500):
        middle = rng.choice(levels, size=int(rng.integers(1, 30)))
        probabilities = np.concatenate([np.zeros(3), middle, np.full(12, 0.05)])
        found = bool(segments_from_probabilities(probabilities))
        assert _started(probabilities) is found, probabilities.round(2).tolist()


# ----- live tries --------------------------------------------------------------------------
@pytest.mark.audio
@pytest.mark.slow
def test_tries_played_into_the_microphone_get_the_verdicts_of_their_files(
    pulse_server: str, tmp_path: Path
) -> None:
    require_models()
    loaded = {step.key: step.load() for step in load_steps(with_corrector=False)}
    recognizer, vad = loaded["recognizer"], loaded["vad"]
    files = {
        said: write_clip(tmp_path, f"try{i}", _recording(said))
        for i, (_, _, said) in enumerate(TRIES)
    }
    with room_tone():
        for kind in (ExerciseKind.NAMING, ExerciseKind.REPETITION):
            tries = [(target, said) for k, target, said in TRIES if k is kind]
            # The targets are the patient's own words: practised first, as in the app.
            settings = PracticeSettings(
                custom_items=tuple(t for t, _ in tries), resume=False, no_speech_timeout_s=6.0
            )
            session = LiveSession(loaded, kind, tmp_path / kind.value, settings)
            try:
                for target, said in tries:
                    played = read_wav(files[said])
                    live = session.attempt(target, files[said])
                    what = (
                        f"{said} for {target!r}: heard {live.heard!r}, {live.notice or 'verdict'}"
                    )

                    # The microphone delivered the file unchanged, after the lead-in.
                    audio = alignment(live.raw, played)
                    assert audio["r"] >= 0.999 and abs(audio["gain"] - 1) <= 0.01, (what, audio)
                    assert audio["overlap"] == 1.0 and audio["lag_s"] >= LEAD_IN_S / 2, (
                        what,
                        audio,
                    )

                    # The app scored exactly what it captured, and stored the clip it scored.
                    captured = judge(recognizer, vad, live.raw, live.item, cue_level=live.cue_level)
                    assert live.success is captured.success, what
                    heard = prepare(vad, live.raw)
                    ended_by_speaker = live.stop_reason in ("end_of_speech", "at_pause")
                    assert ended_by_speaker is (heard is not None), what
                    if live.result is None or captured.result is None:
                        assert live.result is captured.result is None, what
                    else:
                        assert live.result.margin == pytest.approx(captured.result.margin, abs=1e-4)
                        assert heard is not None and live.stored is not None
                        assert len(live.stored.samples) == len(heard[0].samples), what
                        assert np.max(np.abs(live.stored.samples - heard[0].samples)) <= 2 / 32768

                    # ... and the played file gets the same verdict.
                    file = judge(recognizer, vad, played, live.item, cue_level=live.cue_level)
                    assert live.success is file.success, (what, file.heard)
                    if (
                        live.result is not None
                        and file.result is not None
                        and said not in TIMING_MARGINS
                    ):
                        gap = abs(live.result.margin - file.result.margin)
                        assert gap <= MARGIN_NOISE, (what, live.result.margin, file.result.margin)
            finally:
                session.close()


# ----- early verdicts ------------------------------------------------------------------------
TOLERANCE_MS = 6000
"""A long pause tolerance: the early verdict (seconds on a busy 2-core machine) is ready
well before it, so "ended at the pause" is not a matter of load."""


def _spoke_until(live: LiveTry, played: AudioClip) -> float:
    """When the last word of the played file reached the microphone (monotonic seconds)."""
    return live.played[1] - (played.duration - speech_span(played)[1])


@pytest.mark.audio
@pytest.mark.slow
def test_an_accepted_answer_ends_the_try_at_once_and_a_wrong_one_waits_for_the_tolerance(
    pulse_server: str, tmp_path: Path
) -> None:
    require_models()
    loaded = {step.key: step.load() for step in load_steps(with_corrector=False)}
    right, wrong = synthesize("un téléphone"), synthesize("un gâteau")
    settings = PracticeSettings(
        custom_items=("téléphone", "cadeau"),
        resume=False,
        trailing_silence_ms=TOLERANCE_MS,
        no_speech_timeout_s=6.0,
    )
    tolerance_s = TOLERANCE_MS / 1000
    with room_tone():
        session = LiveSession(loaded, ExerciseKind.NAMING, tmp_path / "naming", settings)
        try:
            live = session.attempt("téléphone", write_clip(tmp_path, "right", right))
            assert live.success and live.stop_reason == "at_pause", live
            assert live.recording_ended_at is not None and live.feedback_at is not None
            spoke_until = _spoke_until(live, right)
            # Ended at the pause, once judged: long before the tolerance...
            assert live.recording_ended_at - spoke_until < tolerance_s - 1.5, live.early
            # ... with its verdict ready: shown at once.
            assert live.feedback_at - live.recording_ended_at < 0.5
            # Judged while recording: the microphone kept up (no audio lost).
            audio = alignment(live.raw, right)
            assert audio["r"] >= 0.999 and audio["overlap"] == 1.0 and live.overflows == 0

            live = session.attempt("cadeau", write_clip(tmp_path, "wrong", wrong))
            assert not live.success and live.stop_reason == "end_of_speech", live
            assert live.recording_ended_at is not None and live.feedback_at is not None
            # The patient may still be searching for the word: the whole tolerance.
            waited = live.recording_ended_at - _spoke_until(live, wrong)
            assert waited >= tolerance_s - 0.5, waited
            # Nothing was said after the pause: its verdict is shown without hearing again.
            assert live.reused_early and live.early and not live.early[-1]["accepted"]
            assert live.feedback_at - live.recording_ended_at < 0.5
        finally:
            session.close()


@pytest.mark.audio
@pytest.mark.slow
def test_a_patient_pausing_mid_answer_is_not_cut_off(pulse_server: str, tmp_path: Path) -> None:
    require_models()
    loaded = {step.key: step.load() for step in load_steps(with_corrector=False)}
    recognizer, vad = loaded["recognizer"], loaded["vad"]
    first, second = synthesize("Je voudrais"), synthesize("un café")
    played = AudioClip.concatenate([first, AudioClip.silence(2.0), second])
    target = "Je voudrais un café."
    settings = PracticeSettings(custom_items=(target,), resume=False, no_speech_timeout_s=6.0)
    with room_tone():
        session = LiveSession(loaded, ExerciseKind.REPETITION, tmp_path / "rep", settings)
        try:
            live = session.attempt(target, write_clip(tmp_path, "hesitation", played))
        finally:
            session.close()
    audio = alignment(live.raw, played)
    # The recording holds the whole answer, the words after the pause included.
    assert live.raw.duration - audio["lag_s"] >= speech_span(played)[1], (live.early, audio)
    paused_at = first.duration + audio["lag_s"]
    assert any(e["pause_s"] < paused_at + 1.0 for e in live.early), live.early
    assert not any(e["accepted"] for e in live.early if e["pause_s"] < paused_at + 1.0)
    file = judge(recognizer, vad, played, live.item, cue_level=live.cue_level)
    assert live.success is file.success, (live.heard, file.heard)
    assert "café" in live.heard.lower()
