"""Silero VAD: speech probabilities, speech segments, trimming, pause ratio, end of speech."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from therapy_app import model_store, pause_tolerance
from therapy_app.audio.clip import SAMPLE_RATE, AudioClip
from therapy_app.audio.resample import resample
from therapy_app.errors import ModelInvalidError, ModelMissingError
from therapy_app.inference import create_session

_LOGGER = logging.getLogger(__name__)

WINDOW = 512  # samples per model call at 16 kHz (32 ms)
CONTEXT = 64  # samples of the previous window the model expects in front of each window
WINDOW_S = WINDOW / SAMPLE_RATE
# Segmentation of an utterance (Silero's rules): shorter bursts are not speech,
# shorter gaps do not split it. The streaming end-of-speech detector starts an
# utterance by the same rules, so that the microphone never gives up
# on speech that hearing the same recording as a file would find.
MIN_SPEECH_MS = 250
MIN_SILENCE_MS = 300
# ... but a short word said alone is the answer, not a click: Armelle's « six »
# is 224 ms above the threshold, her « onze » 64 ms. When no stretch is longer
# than MIN_SPEECH_MS, stretches longer than this are the speech. Silero keeps
# non-speech below the threshold whatever its length (clicks, knocks, coughs,
# breaths, the freedesktop sound theme's 27 sounds: none reached 0.5 in
# benchmarks/vad_noises.py), so this does not let noise in.
ALONE_SPEECH_MS = 60
# Aphasic speakers pause long between words (word-finding): a short trailing
# silence would cut them off mid-sentence. Each patient's own value is stored
# with the patient (therapy_app.pause_tolerance); this is the default.
DEFAULT_TRAILING_SILENCE_MS = pause_tolerance.DEFAULT_MS


@dataclass(frozen=True)
class SpeechSegment:
    """One stretch of speech.

    Attributes:
        start_s: start time in seconds from the clip start.
        end_s: end time in seconds.
    """

    start_s: float
    end_s: float

    @property
    def duration(self) -> float:
        """Length in seconds."""
        return self.end_s - self.start_s


@dataclass
class VadState:
    """Recurrent state carried from one window to the next.

    Attributes:
        rnn: LSTM state, shape [2, 1, 128].
        context: last 64 samples of the previous window.
    """

    rnn: np.ndarray
    context: np.ndarray

    @staticmethod
    def initial() -> VadState:
        """State at the start of a stream."""
        return VadState(np.zeros((2, 1, 128), np.float32), np.zeros(CONTEXT, np.float32))


def _at_16k(clip: AudioClip) -> np.ndarray:
    if clip.sample_rate == SAMPLE_RATE:
        return clip.samples
    return resample(clip.samples, clip.sample_rate, SAMPLE_RATE)


class VoiceActivityDetector:
    """Silero VAD v6 on ONNX Runtime (one 32 ms window per call).

    Args:
        session: an ``onnxruntime.InferenceSession`` of ``silero_vad.onnx``.
    """

    def __init__(self, session: object) -> None:
        self._session = session
        self._sr = np.array(SAMPLE_RATE, dtype=np.int64)

    @classmethod
    def load(
        cls, model_dir: Path | None = None, provider: str | None = None
    ) -> VoiceActivityDetector:
        """Load the built model (``python -m models.vad.build``).

        Args:
            model_dir: a ``silero-vad`` folder; None resolves it with the model store.
            provider: "auto", "cpu" or "cuda"; the tiny per-window graph is
                fastest on CPU, which is what "auto" picks on most machines.

        Raises:
            ModelMissingError: not built/installed.
            ModelInvalidError: files or sidecar do not match.
        """
        if model_dir is None:
            bundle = model_store.load_model(model_store.VAD_MODEL)
        else:
            sidecar = Path(model_dir) / model_store.SIDECAR
            if not sidecar.is_file():
                raise ModelMissingError(
                    "Il manque le détecteur de parole (Silero VAD).",
                    f"Pour l'installer, lancez : {model_store.BUILD_COMMAND}",
                    f"no {sidecar}",
                )
            bundle = model_store.ModelBundle(
                model_store.VAD_MODEL,
                Path(model_dir),
                model_store.read_sidecar(Path(model_dir), model_store.VAD_MODEL),
            )
        config = bundle.meta.get("vad", {})
        problems = bundle.verify()
        if (
            bundle.meta.get("kind") != "vad"
            or config.get("sample_rate") != SAMPLE_RATE
            or config.get("window_samples") != WINDOW
            or problems
        ):
            raise ModelInvalidError(
                "Le détecteur de parole est endommagé.",
                f"Reconstruisez-le avec « {model_store.BUILD_COMMAND} ».",
                f"{bundle.directory}: unexpected sidecar or files ({problems or config})",
            )
        # One thread: each call is ~0.1 ms, thread hand-offs would cost more than they save.
        session = create_session(bundle.file("model"), provider=provider or "cpu", threads=1)
        return cls(session)

    # ----- core -------------------------------------------------------------
    def window_probability(self, window: np.ndarray, state: VadState) -> float:
        """Speech probability of one 512-sample window; updates ``state`` in place."""
        frame = np.concatenate([state.context, window]).reshape(1, -1)
        out, rnn = self._session.run(  # type: ignore[attr-defined]
            None, {"input": frame, "state": state.rnn, "sr": self._sr}
        )
        state.rnn = rnn
        state.context = frame[0, -CONTEXT:].copy()
        return float(out[0, 0])

    def speech_probabilities(self, clip: AudioClip) -> np.ndarray:
        """Speech probability per 32 ms window (the last window is zero-padded).

        Returns:
            float32 array, one value per ``WINDOW`` samples at 16 kHz.
        """
        return self._probabilities(np.asarray(_at_16k(clip), dtype=np.float32))

    def _probabilities(self, samples: np.ndarray) -> np.ndarray:
        n = -(-len(samples) // WINDOW)
        padded = np.zeros(n * WINDOW, np.float32)
        padded[: len(samples)] = samples
        state = VadState.initial()
        probs = np.empty(n, np.float32)
        for i in range(n):
            probs[i] = self.window_probability(padded[i * WINDOW : (i + 1) * WINDOW], state)
        return probs

    def speech_segments(
        self,
        clip: AudioClip,
        threshold: float = 0.5,
        min_speech_ms: int = MIN_SPEECH_MS,
        min_silence_ms: int = MIN_SILENCE_MS,
        pad_ms: int = 100,
    ) -> list[SpeechSegment]:
        """Stretches of speech (Silero's hysteresis rules).

        Args:
            clip: audio at any rate.
            threshold: probability at or above which a window is speech; speech
                ends below ``threshold - 0.15``.
            min_speech_ms: shorter bursts (clicks, coughs) are dropped.
            min_silence_ms: shorter gaps do not split a segment.
            pad_ms: padding added on each side (halved gaps when segments are close).

        Returns:
            Segments in time order, clamped to the clip.
        """
        samples = np.asarray(_at_16k(clip), dtype=np.float32)
        probs = self._probabilities(samples)
        return speech_segments_in(
            probs, len(samples), threshold, min_speech_ms, min_silence_ms, pad_ms
        )

    def trim(self, clip: AudioClip, pad_ms: int = 200) -> AudioClip:
        """The clip from the first to the last speech, with ``pad_ms`` around it.

        Returns the clip unchanged when no speech is found (the caller decides
        what silence means).
        """
        segments = self.speech_segments(clip, pad_ms=pad_ms)
        if not segments:
            return clip
        return clip.slice(segments[0].start_s, segments[-1].end_s)

    def pause_ratio(self, clip: AudioClip, min_pause_ms: int = 250) -> float:
        """Share of silence between the first and the last speech.

        Clinical use: non-fluent speech has long, frequent pauses. Gaps shorter
        than ``min_pause_ms`` (usual threshold in aphasia research: 200-250 ms)
        are not pauses.

        Returns:
            0.0 (no pause, or less than two speech stretches) to < 1.0.
        """
        return pause_ratio_of(self.speech_segments(clip, min_silence_ms=min_pause_ms, pad_ms=0))

    def end_of_speech_detector(
        self,
        trailing_silence_ms: int = DEFAULT_TRAILING_SILENCE_MS,
        threshold: float = 0.5,
        min_speech_ms: int = MIN_SPEECH_MS,
    ) -> EndOfSpeechDetector:
        """A streaming detector sharing this model (see :class:`EndOfSpeechDetector`)."""
        return EndOfSpeechDetector(self, trailing_silence_ms, threshold, min_speech_ms)


def segments_from_probabilities(
    probs: np.ndarray,
    threshold: float = 0.5,
    min_speech_ms: int = MIN_SPEECH_MS,
    min_silence_ms: int = MIN_SILENCE_MS,
) -> list[tuple[int, int]]:
    """Speech (start, end) sample indices from window probabilities, unpadded.

    The rules follow Silero's ``get_speech_timestamps``: speech starts at a
    window at or above ``threshold``, a candidate end is the first window below
    ``threshold - 0.15``, and the segment closes once the silence lasts
    ``min_silence_ms``; speech resuming earlier cancels the candidate end.
    Stretches not longer than ``min_speech_ms`` are dropped, unless none is
    longer: then those longer than :data:`ALONE_SPEECH_MS` are the speech (a
    short word said alone).
    """
    segments = _stretches(probs, threshold, min_speech_ms, min_silence_ms)
    if not segments and ALONE_SPEECH_MS < min_speech_ms:
        segments = _stretches(probs, threshold, ALONE_SPEECH_MS, min_silence_ms)
    return segments


def _stretches(
    probs: np.ndarray, threshold: float, min_speech_ms: float, min_silence_ms: float
) -> list[tuple[int, int]]:
    neg = max(threshold - 0.15, 0.01)
    min_speech = SAMPLE_RATE * min_speech_ms / 1000
    min_silence = SAMPLE_RATE * min_silence_ms / 1000
    segments: list[tuple[int, int]] = []
    start, temp_end, triggered = 0, 0, False
    for i, p in enumerate(probs):
        pos = i * WINDOW
        if p >= threshold:
            temp_end = 0
            if not triggered:
                triggered, start = True, pos
            continue
        if triggered and p < neg:
            temp_end = temp_end or pos
            if pos - temp_end >= min_silence:
                if temp_end - start > min_speech:
                    segments.append((start, temp_end))
                triggered, temp_end = False, 0
    total = len(probs) * WINDOW
    if triggered and total - start > min_speech:
        segments.append((start, temp_end or total))
    return segments


def speech_segments_in(
    probs: np.ndarray,
    length: int,
    threshold: float = 0.5,
    min_speech_ms: int = MIN_SPEECH_MS,
    min_silence_ms: int = MIN_SILENCE_MS,
    pad_ms: int = 100,
) -> list[SpeechSegment]:
    """:meth:`VoiceActivityDetector.speech_segments` from probabilities already computed.

    Lets one pass of the model over an utterance give both its trimming
    segments and its pauses, instead of running the VAD twice per utterance.

    Args:
        probs: :meth:`VoiceActivityDetector.speech_probabilities` of the clip.
        length: the clip's length in samples at 16 kHz.
        threshold, min_speech_ms, min_silence_ms, pad_ms: as in ``speech_segments``.
    """
    raw = segments_from_probabilities(probs, threshold, min_speech_ms, min_silence_ms)
    return _pad(raw, pad_ms * SAMPLE_RATE // 1000, length)


def pause_ratio_of(segments: list[SpeechSegment]) -> float:
    """Share of silence between the first and the last of unpadded ``segments``.

    Returns:
        0.0 (fewer than two segments) to < 1.0.
    """
    if len(segments) < 2:
        return 0.0
    span = segments[-1].end_s - segments[0].start_s
    speech = sum(s.duration for s in segments)
    return max(0.0, (span - speech) / span) if span > 0 else 0.0


def _pad(raw: list[tuple[int, int]], pad: int, length: int) -> list[SpeechSegment]:
    """Pad segments without overlapping neighbours; convert to seconds."""
    spans = [[s, min(e, length)] for s, e in raw if s < length]
    for i, span in enumerate(spans):
        if i == 0:
            span[0] = max(0, span[0] - pad)
        if i + 1 < len(spans):
            gap = spans[i + 1][0] - span[1]
            share = min(pad, gap // 2)
            span[1] += share
            spans[i + 1][0] -= share
        else:
            span[1] = min(length, span[1] + pad)
    return [SpeechSegment(s / SAMPLE_RATE, e / SAMPLE_RATE) for s, e in spans]


class EndOfSpeechDetector:
    """Streaming end-of-utterance detection for the recorder.

    Feed 16 kHz samples in blocks of any size; once speech has started and
    has been followed by ``trailing_silence_ms`` of non-speech, the utterance
    is over. Speech never "ends" before it started: the recorder applies its
    own no-speech timeout.

    Speech starts by the rules that find it in the finished recording
    (:func:`segments_from_probabilities`, what practice hears and scores):
    a stretch from a window at or above ``threshold`` that lasts more than
    ``min_speech_ms`` (or :data:`ALONE_SPEECH_MS`: a short word alone),
    windows between ``threshold - 0.15`` and ``threshold`` and dips shorter
    than ``min_silence_ms`` included. The windows are those of the whole
    recording, so the probabilities are the same. Counting only
    consecutive windows above ``threshold`` (the old rule) missed
    speech whose probability hovers around it (a soft or telephone-quality
    voice: Armelle's "onze"): the recording then ran to the no-speech timeout
    and the app said it heard nothing, while the same recording judged as a
    file was heard and scored.

    **Settled pauses.** Once speech has started, each time the current
    stretch closes (``min_silence_ms`` below ``threshold - 0.15``, the rule
    that closes a segment of the finished recording) :attr:`settled_samples`
    becomes the length of the audio analysed so far, and it goes back to None
    at the next window at or above ``threshold``. Audio up to a settled pause
    is heard exactly as any longer recording in which no later window reaches
    the threshold (the patient said nothing more): every segment is closed,
    closed segments never change, the trimming pad (300 ms) is already there,
    and no new segment can start without such a window. Practice scores a
    known answer there while the microphone stays open
    (:mod:`therapy_app.practice.early`).

    Args:
        vad: the loaded model.
        trailing_silence_ms: silence after speech that ends the utterance.
        threshold: speech probability threshold (speech resumes at or above it).
        min_speech_ms: the segments' rule (:func:`segments_from_probabilities`):
            a stretch longer than this, or than :data:`ALONE_SPEECH_MS` (a short
            word said alone), starts the utterance.
        min_silence_ms: a shorter dip below ``threshold - 0.15`` does not
            break the stretch.
    """

    def __init__(
        self,
        vad: VoiceActivityDetector,
        trailing_silence_ms: int = DEFAULT_TRAILING_SILENCE_MS,
        threshold: float = 0.5,
        min_speech_ms: int = MIN_SPEECH_MS,
        min_silence_ms: int = MIN_SILENCE_MS,
    ) -> None:
        self._vad = vad
        self.trailing_silence_ms = trailing_silence_ms
        self.threshold = threshold
        self._neg = max(threshold - 0.15, 0.01)
        self.min_speech_ms = min_speech_ms
        self.min_silence_ms = min_silence_ms
        self.reset()

    def reset(self) -> None:
        """Start a new utterance (clears the model state too)."""
        self._state = VadState.initial()
        self._pending = np.zeros(0, np.float32)
        self._windows = 0
        self._start: int | None = None  # window where the current stretch of speech began
        self._temp_end: int | None = None  # window where it may have ended
        self._silence_run = 0  # windows since the last window at or above threshold
        self.speech_started = False
        self.end_of_speech = False
        self.speech_start_s: float | None = None
        self.last_speech_s: float | None = None  # end time of the last speech window
        self.probability = 0.0
        self.settled_samples: int | None = None
        """Samples analysed when the speech last paused for good (see the class docstring)."""

    @property
    def elapsed(self) -> float:
        """Seconds of audio analysed so far."""
        return self._windows * WINDOW_S

    def feed(self, samples: np.ndarray) -> bool:
        """Analyse more 16 kHz audio.

        Every whole window is analysed, also after the end of speech: the
        recorder keeps the whole block, and :attr:`settled_samples` must
        account for all of it (speech resuming in the block's last windows).

        Returns:
            True once the end of speech has been reached (stays True until reset).
        """
        data = np.concatenate([self._pending, np.asarray(samples, np.float32).reshape(-1)])
        n = len(data) // WINDOW
        for i in range(n):
            self._step(data[i * WINDOW : (i + 1) * WINDOW])
        self._pending = data[n * WINDOW :].copy()
        return self.end_of_speech

    def _step(self, window: np.ndarray) -> None:
        p = self._vad.window_probability(window, self._state)
        self.probability = p
        index = self._windows
        self._windows += 1
        window_ms = 1000.0 * WINDOW_S
        # The stretch of speech as segments_from_probabilities tracks it.
        if p >= self.threshold:
            self._temp_end = None
            if self._start is None:
                self._start = index
            self._silence_run = 0
            self.last_speech_s = self.elapsed
            self.settled_samples = None
        else:
            self._silence_run += 1
            if self._start is not None and p < self._neg and self._temp_end is None:
                self._temp_end = index
        if not self.speech_started and self._start is not None:
            end = self._temp_end if self._temp_end is not None else self._windows
            # Hearing finds speech in any stretch longer than this when none is
            # longer than min_speech_ms (segments_from_probabilities).
            if (end - self._start) * window_ms > min(self.min_speech_ms, ALONE_SPEECH_MS):
                self.speech_started = True
                self.speech_start_s = self._start * WINDOW_S
        if (
            self._temp_end is not None
            and p < self._neg
            and (index - self._temp_end) * window_ms >= self.min_silence_ms
        ):
            self._start = self._temp_end = None  # the stretch is over
            if self.speech_started:
                self.settled_samples = self._windows * WINDOW
        if self.speech_started and self._silence_run * window_ms >= self.trailing_silence_ms:
            self.end_of_speech = True
