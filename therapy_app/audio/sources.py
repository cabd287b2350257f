"""Where recorded blocks come from: a microphone (sounddevice) or a clip (tests, demos)."""

from __future__ import annotations

import logging
import queue
import time
from typing import Any, Protocol, runtime_checkable

import numpy as np

from therapy_app.audio import devices
from therapy_app.audio.clip import SAMPLE_RATE, AudioClip
from therapy_app.errors import AudioDeviceError

_LOGGER = logging.getLogger(__name__)

BLOCK_SAMPLES = 512  # 32 ms at 16 kHz: one Silero VAD window per block


@runtime_checkable
class AudioSource(Protocol):
    """A stream of mono float32 blocks.

    Attributes:
        sample_rate: rate of the delivered blocks in Hz (the recorder resamples).
    """

    sample_rate: int

    def start(self) -> None:
        """Begin delivering blocks."""

    def read(self, timeout: float) -> np.ndarray | None:
        """The next block, or None when none arrived within ``timeout`` seconds
        or the source is exhausted (see :attr:`exhausted`).

        Raises:
            AudioDeviceError: the device failed while recording.
        """

    @property
    def exhausted(self) -> bool:
        """True once a finite source has delivered everything."""

    def stop(self) -> None:
        """Stop delivering blocks; blocks already captured stay readable."""


class SoundDeviceSource:
    """Microphone input through a sounddevice ``InputStream``.

    Opens the device at 16 kHz when it accepts it, otherwise at its own default
    rate (the recorder then resamples).

    Args:
        device: PortAudio index or name; None for the system default.
        block_samples: frames per callback at 16 kHz (scaled for other rates).
        latency: input buffer in seconds; deeper than PortAudio's "high" preset
            (~64 ms on ALSA/PulseAudio), which overflowed on a busy machine.
    """

    def __init__(
        self,
        device: int | str | None = None,
        block_samples: int = BLOCK_SAMPLES,
        latency: float = 0.2,
    ):
        self._device = device
        self._latency = latency
        self._block_samples = block_samples
        self._queue: queue.Queue[np.ndarray] = queue.Queue()
        self._stream: Any = None
        self._stopped = True
        self.sample_rate = SAMPLE_RATE
        self.overflows = 0  # callbacks that reported lost input

    def _callback(self, indata: np.ndarray, frames: int, time_info: Any, status: Any) -> None:
        # Runs on PortAudio's real-time thread: copy and return, nothing else.
        if status:
            self.overflows += 1
        self._queue.put_nowait(indata[:, 0].copy())

    def _choose_rate(self, sd: Any, device: Any) -> int:
        try:
            sd.check_input_settings(
                device=device, samplerate=SAMPLE_RATE, channels=1, dtype="float32"
            )
            return SAMPLE_RATE
        except Exception as exc:  # noqa: BLE001 - PortAudioError or ValueError
            native = int(sd.query_devices(device, "input")["default_samplerate"])
            _LOGGER.info(
                "input device refuses %d Hz (%s); recording at %d Hz", SAMPLE_RATE, exc, native
            )
            return native

    def start(self) -> None:
        """Open and start the input stream.

        Raises:
            AudioDeviceError: no sound system, no microphone, or the device refused.
        """
        sd = devices.sounddevice()
        device = devices.resolve(self._device, want_input=True)
        try:
            self.sample_rate = self._choose_rate(sd, device.index)
            block = max(64, round(self._block_samples * self.sample_rate / SAMPLE_RATE))
            self._stream = sd.InputStream(
                samplerate=self.sample_rate,
                channels=1,
                dtype="float32",
                blocksize=block,
                latency=self._latency,
                device=device.index,
                callback=self._callback,
            )
            self._stream.start()
        except AudioDeviceError:
            raise
        except Exception as exc:  # noqa: BLE001 - PortAudioError carries no useful type
            self._close()
            raise devices.portaudio_error(exc, f"open input {device.name!r}") from exc
        self._stopped = False
        _LOGGER.info("recording from %r at %d Hz", device.name, self.sample_rate)

    def read(self, timeout: float) -> np.ndarray | None:
        """Next captured block (see :class:`AudioSource`)."""
        try:
            return self._queue.get(timeout=timeout)
        except queue.Empty:
            pass
        stream = self._stream
        if not self._stopped and stream is not None and not stream.active:
            # PortAudio ended the stream on its own: device unplugged or failed.
            raise AudioDeviceError(
                "Le micro s'est arrêté pendant l'enregistrement.",
                "Vérifiez le branchement du micro puis réessayez.",
                "input stream became inactive while recording",
            )
        return None

    @property
    def exhausted(self) -> bool:
        """A microphone is exhausted only once stopped and drained."""
        return self._stopped and self._queue.empty()

    def stop(self) -> None:
        """Stop the stream; queued blocks remain readable."""
        self._stopped = True
        self._close()

    def _close(self) -> None:
        stream, self._stream = self._stream, None
        if stream is None:
            return
        try:
            stream.stop()
            stream.close()
        except Exception as exc:  # noqa: BLE001 - closing a failed device must not raise
            _LOGGER.warning("closing the input stream failed: %s", exc)
        if self.overflows:
            _LOGGER.warning("input overflowed %d times (audio lost)", self.overflows)


class FileAudioSource:
    """Delivers a clip's samples in blocks, like a microphone would.

    Used by GUI and recorder tests to run the real recording code without a
    sound card.

    Args:
        clip: the audio to deliver.
        realtime: pace blocks at the clip's rate (True) or as fast as read.
        trailing_silence_s: digital silence appended after the clip, as if the
            speaker had stopped talking but the microphone stayed open.
        block_samples: samples per block.
    """

    def __init__(
        self,
        clip: AudioClip,
        realtime: bool = False,
        trailing_silence_s: float = 0.0,
        block_samples: int = BLOCK_SAMPLES,
    ) -> None:
        pad = np.zeros(int(round(trailing_silence_s * clip.sample_rate)), np.float32)
        self._samples = np.concatenate([clip.samples, pad])
        self.sample_rate = clip.sample_rate
        self._realtime = realtime
        self._block = block_samples
        self._pos = 0
        self._t0 = 0.0
        self._running = False

    def start(self) -> None:
        """Rewind and start delivering."""
        self._pos = 0
        self._t0 = time.monotonic()
        self._running = True

    def read(self, timeout: float) -> np.ndarray | None:
        """Next block; in realtime mode waits until it would have been captured."""
        if not self._running or self._pos >= len(self._samples):
            return None
        end = min(self._pos + self._block, len(self._samples))
        if self._realtime:
            due = self._t0 + end / self.sample_rate
            wait = due - time.monotonic()
            if wait > timeout:
                time.sleep(max(0.0, timeout))
                return None
            if wait > 0:
                time.sleep(wait)
        block = self._samples[self._pos : end].copy()
        self._pos = end
        return block

    @property
    def exhausted(self) -> bool:
        """True when every sample was delivered or the source was stopped."""
        return not self._running or self._pos >= len(self._samples)

    def stop(self) -> None:
        """Stop delivering."""
        self._running = False
