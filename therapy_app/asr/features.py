"""Whisper's log-mel input features, computed with numpy only."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt

_LOGGER = logging.getLogger(__name__)


@dataclass(frozen=True)
class MelSettings:
    """Front-end settings the model was trained with (read from the sidecar).

    Attributes:
        sample_rate: input rate in Hz.
        n_fft: STFT window and FFT size in samples (25 ms).
        hop_length: STFT hop in samples (10 ms).
        n_mels: mel bands.
        chunk_seconds: the encoder's fixed input length; shorter audio is zero-padded.
    """

    sample_rate: int = 16_000
    n_fft: int = 400
    hop_length: int = 160
    n_mels: int = 80
    chunk_seconds: int = 30

    @property
    def n_samples(self) -> int:
        """Samples in one chunk (480 000)."""
        return self.chunk_seconds * self.sample_rate

    @property
    def n_frames(self) -> int:
        """Mel frames in one chunk (3000)."""
        return self.n_samples // self.hop_length

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MelSettings:
        """Build from the sidecar's ``mel`` section (unknown keys ignored)."""
        known = {k: int(v) for k, v in data.items() if k in cls.__dataclass_fields__}
        return cls(**known)

    def to_dict(self) -> dict[str, int]:
        """The sidecar's ``mel`` section."""
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


# Slaney's mel scale: linear (200/3 Hz a mel) below 1 kHz, logarithmic above.
_HZ_PER_MEL = 200.0 / 3
_MIN_LOG_HZ = 1000.0
_MIN_LOG_MEL = _MIN_LOG_HZ / _HZ_PER_MEL
_LOG_STEP = np.log(6.4) / 27.0


def hz_to_mel(freqs: npt.ArrayLike) -> np.ndarray:
    """Slaney's auditory mel scale: linear below 1 kHz, logarithmic above."""
    freqs = np.asarray(freqs, dtype=np.float64)
    linear = freqs / _HZ_PER_MEL
    safe = np.maximum(freqs, _MIN_LOG_HZ)  # keeps log() finite on the linear part
    return np.where(
        freqs >= _MIN_LOG_HZ, _MIN_LOG_MEL + np.log(safe / _MIN_LOG_HZ) / _LOG_STEP, linear
    )


def mel_to_hz(mels: npt.ArrayLike) -> np.ndarray:
    """Inverse of :func:`hz_to_mel`."""
    mels = np.asarray(mels, dtype=np.float64)
    return np.where(
        mels >= _MIN_LOG_MEL,
        _MIN_LOG_HZ * np.exp(_LOG_STEP * (mels - _MIN_LOG_MEL)),
        _HZ_PER_MEL * mels,
    )


@lru_cache(maxsize=4)
def mel_filterbank(sample_rate: int = 16_000, n_fft: int = 400, n_mels: int = 80) -> np.ndarray:
    """Triangular mel filters [n_mels, n_fft/2+1] with Slaney area normalisation.

    Equal to ``librosa.filters.mel(sr, n_fft, n_mels)`` (htk=False, norm="slaney"),
    which is what Whisper's ``mel_filters.npz`` holds.
    """
    fft_freqs = np.fft.rfftfreq(n_fft, 1.0 / sample_rate)
    mel_points = mel_to_hz(np.linspace(hz_to_mel(0.0), hz_to_mel(sample_rate / 2.0), n_mels + 2))
    widths = np.diff(mel_points)
    ramps = mel_points[:, None] - fft_freqs[None, :]
    lower = -ramps[:-2] / widths[:-1, None]
    upper = ramps[2:] / widths[1:, None]
    weights = np.maximum(0.0, np.minimum(lower, upper))
    # Slaney normalisation: each triangle has unit area in Hz.
    weights *= (2.0 / (mel_points[2:] - mel_points[:-2]))[:, None]
    return np.asarray(weights, dtype=np.float32)


@lru_cache(maxsize=4)
def _hann(n_fft: int) -> np.ndarray:
    # Periodic Hann window, as torch.hann_window(n_fft) used by Whisper.
    return (0.5 - 0.5 * np.cos(2.0 * np.pi * np.arange(n_fft) / n_fft)).astype(np.float32)


def pad_or_trim(samples: np.ndarray, length: int) -> np.ndarray:
    """Zero-pad or cut a 1-D signal to exactly ``length`` samples."""
    if len(samples) >= length:
        return samples[:length]
    return np.pad(samples, (0, length - len(samples)))


def log_mel_spectrogram(samples: np.ndarray, settings: MelSettings | None = None) -> np.ndarray:
    """Whisper's normalised log-mel features for one 30 s chunk.

    The signal is zero-padded (or cut) to the chunk length, then: centred STFT with
    reflect padding and a periodic Hann window, power spectrum, mel filters,
    ``log10(max(x, 1e-10))``, floor at (max - 8), then ``(x + 4) / 4``.

    Args:
        samples: mono float samples at ``settings.sample_rate``.
        settings: front-end settings; Whisper's defaults when None.

    Returns:
        float32 array [n_mels, n_frames] (80 x 3000).
    """
    s = settings or MelSettings()
    audio = pad_or_trim(np.asarray(samples, dtype=np.float32), s.n_samples)
    half = s.n_fft // 2
    padded = np.pad(audio, (half, half), mode="reflect")
    # Frame n starts at n*hop in the padded signal; the last frame is dropped like Whisper.
    frames = np.lib.stride_tricks.sliding_window_view(padded, s.n_fft)[:: s.hop_length]
    frames = frames[: s.n_frames]
    spectrum = np.fft.rfft(frames * _hann(s.n_fft), axis=-1)
    power = (spectrum.real**2 + spectrum.imag**2).astype(np.float32)
    mel = mel_filterbank(s.sample_rate, s.n_fft, s.n_mels) @ power.T
    log_spec = np.log10(np.maximum(mel, 1e-10))
    log_spec = np.maximum(log_spec, log_spec.max() - 8.0)
    return np.asarray((log_spec + 4.0) / 4.0, dtype=np.float32)
