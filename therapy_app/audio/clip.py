"""The audio clip passed between recorder, VAD, ASR, TTS and storage."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

SAMPLE_RATE = 16_000  # every model in the app works at 16 kHz mono


@dataclass(frozen=True)
class AudioClip:
    """Mono float32 samples in [-1, 1].

    Attributes:
        samples: 1-D float32 array.
        sample_rate: samples per second (16 kHz everywhere inside the app).
    """

    samples: np.ndarray
    sample_rate: int = SAMPLE_RATE

    def __post_init__(self) -> None:
        if self.samples.ndim != 1:
            raise ValueError("AudioClip samples must be 1-D (mono)")
        if self.samples.dtype != np.float32:
            object.__setattr__(self, "samples", self.samples.astype(np.float32))

    @property
    def duration(self) -> float:
        """Length in seconds."""
        return len(self.samples) / float(self.sample_rate)

    @property
    def peak(self) -> float:
        """Largest absolute sample value."""
        return float(np.max(np.abs(self.samples))) if len(self.samples) else 0.0

    def rms_dbfs(self) -> float:
        """Root-mean-square level in dB relative to full scale (-120 for silence)."""
        if not len(self.samples):
            return -120.0
        rms = float(np.sqrt(np.mean(np.square(self.samples, dtype=np.float64))))
        return 20.0 * math.log10(max(rms, 1e-6))

    def slice(self, start_s: float, end_s: float) -> AudioClip:
        """Sub-clip between two times in seconds (clamped to the clip)."""
        a = max(0, int(round(start_s * self.sample_rate)))
        b = min(len(self.samples), int(round(end_s * self.sample_rate)))
        return AudioClip(self.samples[a : max(a, b)].copy(), self.sample_rate)

    @staticmethod
    def silence(seconds: float, sample_rate: int = SAMPLE_RATE) -> AudioClip:
        """A clip of zeros."""
        return AudioClip(np.zeros(int(round(seconds * sample_rate)), np.float32), sample_rate)

    @staticmethod
    def concatenate(clips: list[AudioClip]) -> AudioClip:
        """Join clips of the same rate end to end."""
        if not clips:
            return AudioClip.silence(0.0)
        rates = {c.sample_rate for c in clips}
        if len(rates) != 1:
            raise ValueError("cannot concatenate clips of different sample rates")
        return AudioClip(np.concatenate([c.samples for c in clips]), rates.pop())
