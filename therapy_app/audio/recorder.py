"""Records one utterance: blocks from an audio source, live level, auto stop at end of speech."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

import numpy as np

from therapy_app.audio.clip import SAMPLE_RATE, AudioClip
from therapy_app.audio.resample import StreamResampler
from therapy_app.audio.sources import AudioSource, FileAudioSource, SoundDeviceSource
from therapy_app.errors import AudioDeviceError

if TYPE_CHECKING:
    from therapy_app.vad.silero import EndOfSpeechDetector

__all__ = [
    "AudioSource",
    "FileAudioSource",
    "Recorder",
    "RecorderSettings",
    "SoundDeviceSource",
    "StopReason",
]

_LOGGER = logging.getLogger(__name__)

_POLL_S = 0.05  # how often the consumer checks for a stop request when no audio arrives


class StopReason(StrEnum):
    """Why a recording ended."""

    MANUAL = "manual"  # stop() was called (button)
    END_OF_SPEECH = "end_of_speech"  # trailing silence after speech
    AT_PAUSE = "at_pause"  # stop_at_pause(): the caller ended it at a settled pause
    NO_SPEECH = "no_speech"  # nothing said before the no-speech timeout
    MAX_DURATION = "max_duration"
    END_OF_INPUT = "end_of_input"  # a finite source ran out
    ERROR = "error"


# Endings after which every block kept went through the detector (but a last
# partial window): a settled pause then still describes the whole clip.
_ANALYSED_TO_THE_END = (StopReason.END_OF_SPEECH, StopReason.AT_PAUSE, StopReason.END_OF_INPUT)


@dataclass(frozen=True)
class RecorderSettings:
    """Limits for :meth:`Recorder.record_utterance`.

    Attributes:
        max_seconds: hard cap on the recording length.
        no_speech_timeout_s: with an end-of-speech detector, give up when no
            speech has started after this long (aphasic speakers may need a
            few seconds to initiate, hence the generous default).
    """

    max_seconds: float = 30.0
    no_speech_timeout_s: float = 8.0


class Recorder:
    """Assembles blocks from an :class:`AudioSource` into a 16 kHz clip.

    The source's callback only queues blocks; a consumer thread owned by the
    recorder resamples, measures the level and feeds the end-of-speech detector.
    ``level`` and ``elapsed`` are safe to poll from the UI thread.

    With a detector, the recorder also reports the speaker's settled pauses
    (:attr:`~therapy_app.vad.silero.EndOfSpeechDetector.settled_samples`):
    another thread may wait for one (:meth:`next_pause`), take the audio up
    to it (:meth:`clip_until`) while recording goes on, and end the recording
    there (:meth:`stop_at_pause`) provided the speaker has said nothing since.

    Args:
        source: where blocks come from; None means the default microphone.
    """

    def __init__(self, source: AudioSource | None = None) -> None:
        self._source: AudioSource = source if source is not None else SoundDeviceSource()
        self._blocks: list[np.ndarray] = []
        self._count = 0
        self._level = 0.0
        self._level_dbfs = -120.0
        self._thread: threading.Thread | None = None
        self._stop_requested = threading.Event()
        self._finished = threading.Event()
        self._error: BaseException | None = None
        self._stop_reason: StopReason | None = None
        self._lock = threading.Lock()  # guards _blocks between consumer and stop()
        self._stop_lock = threading.Lock()
        # Settled pauses and stop_at_pause() requests, between the consumer and one caller.
        self._pause = threading.Condition()
        self._settled: int | None = None
        self._pause_request: int | None = None
        self._pause_answer: bool | None = None
        self._last_clip = AudioClip(np.zeros(0, np.float32))

    # ----- live state -------------------------------------------------------
    @property
    def level(self) -> float:
        """Peak of the last block, 0..1 (for a live meter)."""
        return self._level

    @property
    def level_dbfs(self) -> float:
        """RMS level of the last block in dBFS (-120 for silence)."""
        return self._level_dbfs

    @property
    def elapsed(self) -> float:
        """Seconds of audio captured so far."""
        return self._count / float(SAMPLE_RATE)

    @property
    def is_recording(self) -> bool:
        """True between :meth:`start` and the end of capture."""
        return self._thread is not None and not self._finished.is_set()

    @property
    def stop_reason(self) -> StopReason | None:
        """Why the last recording ended (None while recording)."""
        return self._stop_reason

    @property
    def overflows(self) -> int:
        """Blocks of input the device reported lost (0 for a source that cannot lose any)."""
        return int(getattr(self._source, "overflows", 0))

    def snapshot(self) -> AudioClip:
        """The audio captured so far, while recording continues (e.g. a live waveform)."""
        with self._lock:
            blocks = list(self._blocks)
        return AudioClip(np.concatenate(blocks) if blocks else np.zeros(0, np.float32))

    # ----- settled pauses -----------------------------------------------------
    @property
    def settled(self) -> int | None:
        """Samples up to the speaker's current settled pause; None while speech goes on.

        Also after the recording ended: not None then means nothing was said
        after that point (every window of the recording was analysed, but a
        last partial one, too short to hold speech).
        """
        with self._pause:
            return self._settled

    def next_pause(self, previous: int | None = None, timeout: float | None = None) -> int | None:
        """Wait for a settled pause other than ``previous``; None once the recording ended.

        Args:
            previous: the pause already handled (None: any pause).
            timeout: seconds to wait at most (None: until a pause or the end).

        Returns:
            The pause (samples from the start), or None when the recording
            ended, or on timeout.
        """

        def ready() -> bool:
            fresh = self._settled is not None and self._settled != previous
            return fresh or self._finished.is_set()

        with self._pause:
            self._pause.wait_for(ready, timeout)
            if self._finished.is_set() or self._settled == previous:
                return None
            return self._settled

    def clip_until(self, samples: int) -> AudioClip:
        """The first ``samples`` of the recording (fewer if less was captured)."""
        with self._lock:
            blocks = list(self._blocks)
        audio = np.concatenate(blocks) if blocks else np.zeros(0, np.float32)
        return AudioClip(audio[:samples].copy())

    def stop_at_pause(self, samples: int, timeout: float = 5.0) -> bool:
        """End the recording at the settled pause ``samples`` if nothing was said since.

        The consumer decides between two blocks, so no block it has not
        analysed is kept (:attr:`StopReason.AT_PAUSE`; queued blocks are
        dropped, unlike a manual stop). Collect the clip with :meth:`stop`.

        Returns:
            True when the recording ended there; False when the speaker went
            on (the pause is no longer settled), the recording already
            ended, or the consumer did not answer within ``timeout``.
        """
        with self._pause:
            if self._thread is None or self._finished.is_set() or self._settled != samples:
                return False
            self._pause_request, self._pause_answer = samples, None
            self._pause.wait_for(
                lambda: self._pause_answer is not None or self._finished.is_set(), timeout
            )
            answer = bool(self._pause_answer)
            self._pause_request = self._pause_answer = None
            return answer

    def _answer_pause_request(self) -> bool:
        """In the consumer: True when a stop_at_pause() request is to be granted now."""
        with self._pause:
            request = self._pause_request
            if request is None or self._pause_answer is not None:
                return False
            self._pause_answer = request == self._settled
            self._pause.notify_all()
            return self._pause_answer

    # ----- control ----------------------------------------------------------
    def start(
        self,
        end_of_speech: EndOfSpeechDetector | None = None,
        settings: RecorderSettings | None = None,
        on_level: Callable[[float], None] | None = None,
    ) -> None:
        """Start capturing in the background.

        Args:
            end_of_speech: detector that ends the recording after trailing
                silence; None records until :meth:`stop` or the maximum length.
            settings: limits; None for the defaults (30 s max).
            on_level: called from the consumer thread with each block's peak.

        Raises:
            AudioDeviceError: the microphone cannot be opened.
            RuntimeError: already recording.
        """
        if self._thread is not None:
            raise RuntimeError("Recorder is already recording; call stop() first")
        self._last_clip = AudioClip(np.zeros(0, np.float32))
        settings = settings or RecorderSettings()
        self._blocks, self._count = [], 0
        self._level, self._level_dbfs = 0.0, -120.0
        self._error, self._stop_reason = None, None
        self._stop_requested.clear()
        self._finished.clear()
        with self._pause:
            self._settled = self._pause_request = self._pause_answer = None
        if end_of_speech is not None:
            end_of_speech.reset()
        self._source.start()
        resampler = (
            StreamResampler(self._source.sample_rate, SAMPLE_RATE)
            if self._source.sample_rate != SAMPLE_RATE
            else None
        )
        self._thread = threading.Thread(
            target=self._consume,
            name="recorder-consumer",
            daemon=True,
            args=(resampler, end_of_speech, settings, on_level),
        )
        self._thread.start()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until capture ends on its own (or is stopped); True if it ended."""
        return self._finished.wait(timeout)

    def stop(self) -> AudioClip:
        """End the recording (if still running) and return what was captured.

        Safe to call from any thread and more than once: later calls return the
        same clip.

        Returns:
            The 16 kHz mono clip (possibly empty).

        Raises:
            AudioDeviceError: the device failed during the recording.
        """
        with self._stop_lock:
            thread = self._thread
            if thread is not None:
                self._stop_requested.set()
                # Stop capturing first; the consumer then drains what is queued.
                self._source.stop()
                thread.join()
                self._thread = None
                with self._lock:
                    samples = (
                        np.concatenate(self._blocks) if self._blocks else np.zeros(0, np.float32)
                    )
                self._last_clip = AudioClip(samples.astype(np.float32, copy=False))
                reason = self._stop_reason.value if self._stop_reason else "?"
                _LOGGER.info("recording ended (%s) after %.2f s", reason, self._last_clip.duration)
        if self._error is not None:
            raise self._error
        return self._last_clip

    def record_utterance(
        self,
        max_seconds: float = 30.0,
        end_of_speech: EndOfSpeechDetector | None = None,
        on_level: Callable[[float], None] | None = None,
        no_speech_timeout_s: float = 8.0,
    ) -> AudioClip:
        """Record until end of speech, no speech, the maximum length, or :meth:`stop`.

        Blocking; run it off the UI thread. Calling :meth:`stop` from another
        thread ends it early and the clip captured so far is returned.

        Args:
            max_seconds: hard cap on the length.
            end_of_speech: detector (see :class:`~therapy_app.vad.silero.EndOfSpeechDetector`);
                None records for ``max_seconds``.
            on_level: called with each block's peak level (0..1).
            no_speech_timeout_s: with a detector, stop when nobody spoke for this long.

        Returns:
            The 16 kHz clip; :attr:`stop_reason` says why it ended.

        Raises:
            AudioDeviceError: no microphone, or it failed while recording.
        """
        settings = RecorderSettings(max_seconds, no_speech_timeout_s)
        self.start(end_of_speech, settings, on_level)
        self._finished.wait()
        return self.stop()

    # ----- consumer ---------------------------------------------------------
    def _settle(self, settled: int | None) -> None:
        with self._pause:
            if settled != self._settled:
                self._settled = settled
                self._pause.notify_all()

    def _append(self, block: np.ndarray, resampler: StreamResampler | None) -> np.ndarray:
        if resampler is not None:
            block = resampler.process(block)
        if len(block):
            with self._lock:
                self._blocks.append(block)
            self._count += len(block)
            self._level = float(np.max(np.abs(block)))
            rms = float(np.sqrt(np.mean(np.square(block, dtype=np.float64))))
            self._level_dbfs = 20.0 * np.log10(max(rms, 1e-6))
        return block

    def _consume(
        self,
        resampler: StreamResampler | None,
        detector: EndOfSpeechDetector | None,
        settings: RecorderSettings,
        on_level: Callable[[float], None] | None,
    ) -> None:
        reason = StopReason.MANUAL
        max_samples = int(settings.max_seconds * SAMPLE_RATE)
        try:
            while not self._stop_requested.is_set():
                if self._answer_pause_request():
                    reason = StopReason.AT_PAUSE
                    break
                block = self._source.read(_POLL_S)
                if block is None:
                    if self._source.exhausted:
                        # stop() stops the source right after asking us to stop:
                        # an exhausted microphone then means "manual".
                        if not self._stop_requested.is_set():
                            reason = StopReason.END_OF_INPUT
                        break
                    continue
                block = self._append(block, resampler)
                if on_level is not None:
                    on_level(self._level)
                ended = False
                if detector is not None and len(block):
                    ended = detector.feed(block)
                    self._settle(detector.settled_samples)
                if ended:
                    reason = StopReason.END_OF_SPEECH
                    break
                if self._count >= max_samples:
                    reason = StopReason.MAX_DURATION
                    break
                if (
                    detector is not None
                    and not detector.speech_started
                    and self.elapsed >= settings.no_speech_timeout_s
                ):
                    reason = StopReason.NO_SPEECH
                    break
        except AudioDeviceError as exc:
            self._error, reason = exc, StopReason.ERROR
        except Exception as exc:  # noqa: BLE001 - reported to the caller of stop()
            _LOGGER.exception("recorder consumer failed")
            self._error, reason = exc, StopReason.ERROR
        if reason is StopReason.MANUAL:
            try:  # audio captured before the button press still counts
                while (block := self._source.read(0.0)) is not None:
                    self._append(block, resampler)
            except AudioDeviceError:
                pass
        if resampler is not None:
            tail = resampler.flush()
            if len(tail):
                with self._lock:
                    self._blocks.append(tail)
                self._count += len(tail)
        cut = self._count > max_samples
        if cut:
            with self._lock:
                self._blocks = [np.concatenate(self._blocks)[:max_samples]]
            self._count = max_samples
        self._stop_reason = reason
        with self._pause:
            if cut or reason not in _ANALYSED_TO_THE_END:
                # Audio kept without analysis (drained, cut at the limit): no promise.
                self._settled = None
            self._finished.set()
            self._pause.notify_all()
        # Stop the device right away; stop() may be called much later by the UI.
        if reason is not StopReason.MANUAL:
            self._source.stop()
