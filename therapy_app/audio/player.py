"""Plays clips on a speaker through its own sounddevice OutputStream."""

from __future__ import annotations

import logging
import threading
from typing import Any

import numpy as np

from therapy_app.audio import devices
from therapy_app.audio.clip import AudioClip
from therapy_app.audio.resample import resample

_LOGGER = logging.getLogger(__name__)


class Player:
    """Plays one clip at a time; a new :meth:`play` replaces the current one.

    Each clip gets its own ``OutputStream`` rather than ``sounddevice.play``,
    whose module-level stream is shared with every other caller in the process.

    Args:
        device: PortAudio index or name; None for the system default speaker.
        latency: output buffer in seconds. PortAudio's "high" preset is only
            ~35 ms on ALSA/PulseAudio and underflowed (audible gaps) on a busy
            2-core machine; prompts are not interactive, so a deeper buffer
            costs nothing noticeable.
    """

    def __init__(self, device: int | str | None = None, latency: float = 0.25) -> None:
        self._device = device
        self._latency = latency
        self.underflows = 0  # callbacks that reported an output underflow
        self._stream: Any = None
        self._done = threading.Event()
        self._done.set()
        self._lock = threading.Lock()
        self._samples = np.zeros(0, np.float32)
        self._pos = 0
        self._rate = 1
        self._length = 0
        self._sd: Any = None

    @property
    def is_playing(self) -> bool:
        """True while a clip is being played."""
        return not self._done.is_set()

    @property
    def position(self) -> float:
        """Seconds of the current clip already handed to the device."""
        return min(self._pos, self._length) / float(self._rate)

    def _callback(self, outdata: np.ndarray, frames: int, time_info: Any, status: Any) -> None:
        # PortAudio's real-time thread: copy the next slice, nothing else.
        if status:
            self.underflows += 1
        chunk = self._samples[self._pos : self._pos + frames]
        outdata[: len(chunk), 0] = chunk
        if len(chunk) < frames:
            outdata[len(chunk) :, 0] = 0.0
        self._pos += len(chunk)
        if self._pos >= len(self._samples):
            raise self._sd.CallbackStop

    def _finished(self) -> None:
        self._done.set()

    def play(self, clip: AudioClip, blocking: bool = False) -> None:
        """Start playing ``clip`` (stopping whatever was playing).

        Args:
            clip: mono audio; resampled if the device refuses its rate.
            blocking: return only when playback has finished.

        Raises:
            AudioDeviceError: no sound system, no speaker, or the device refused.
        """
        self.stop()
        sd = devices.sounddevice()
        self._sd = sd
        device = devices.resolve(self._device, want_input=False)
        rate = clip.sample_rate
        try:
            sd.check_output_settings(
                device=device.index, samplerate=rate, channels=1, dtype="float32"
            )
        except Exception as exc:  # noqa: BLE001 - PortAudioError or ValueError
            rate = int(device.default_samplerate)
            _LOGGER.info(
                "output device refuses %d Hz (%s); playing at %d Hz", clip.sample_rate, exc, rate
            )
        samples = (
            clip.samples
            if rate == clip.sample_rate
            else resample(clip.samples, clip.sample_rate, rate)
        )
        with self._lock:
            # PortAudio calls the stream finished once its buffers are handed
            # over, and closing then drops what the sound server still holds:
            # trailing silence as long as the buffer keeps the end audible.
            tail = np.zeros(int((self._latency + 0.1) * rate), np.float32)
            self._samples = np.concatenate([np.clip(samples, -1.0, 1.0), tail]).astype(np.float32)
            self._length = len(samples)
            self._pos = 0
            self._rate = rate
            self.underflows = 0
            self._done.clear()
            try:
                self._stream = sd.OutputStream(
                    samplerate=rate,
                    channels=1,
                    dtype="float32",
                    device=device.index,
                    latency=self._latency,
                    callback=self._callback,
                    finished_callback=self._finished,
                )
                self._stream.start()
            except Exception as exc:  # noqa: BLE001 - PortAudioError carries no useful type
                self._done.set()
                self._close()
                raise devices.portaudio_error(exc, f"open output {device.name!r}") from exc
        _LOGGER.debug("playing %.2f s on %r at %d Hz", clip.duration, device.name, rate)
        if blocking:
            self.wait()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until playback ends; True if it did within ``timeout``."""
        finished = self._done.wait(timeout)
        if finished:
            with self._lock:
                self._close()
        return finished

    def stop(self) -> None:
        """Stop playback now (no-op when idle)."""
        with self._lock:
            self._close()
            self._done.set()

    def _close(self) -> None:
        stream, self._stream = self._stream, None
        if stream is None:
            return
        if self.underflows:
            _LOGGER.warning("playback underflowed %d times (gaps)", self.underflows)
        try:
            stream.abort() if stream.active else stream.stop()
            stream.close()
        except Exception as exc:  # noqa: BLE001 - a vanished device must not crash stop()
            _LOGGER.warning("closing the output stream failed: %s", exc)

    def __enter__(self) -> Player:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()
