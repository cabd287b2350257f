"""Acoustic perturbations: tape-speed change (speed and pitch), room reverberation, noise."""

from __future__ import annotations

import numpy as np

from therapy_app.audio.clip import SAMPLE_RATE


def tape_speed(samples: np.ndarray, factor: float) -> np.ndarray:
    """Play ``factor`` times faster: pitch and tempo move together (Kaldi's speed perturbation).

    Linear interpolation is enough for factors near 1 (0.85..1.15).
    """
    if abs(factor - 1.0) < 1e-6 or len(samples) < 2:
        return samples
    n_out = int(round(len(samples) / factor))
    positions = np.arange(n_out, dtype=np.float64) * factor
    return np.interp(positions, np.arange(len(samples)), samples).astype(np.float32)


def room_impulse(
    rng: np.random.Generator, rt60_s: float, sample_rate: int = SAMPLE_RATE
) -> np.ndarray:
    """A synthetic room response: direct path plus exponentially decaying diffuse noise."""
    length = int(rt60_s * sample_rate)
    t = np.arange(length) / sample_rate
    # 60 dB of decay over rt60 seconds.
    tail = rng.standard_normal(length) * np.exp(-6.9078 * t / rt60_s)
    tail[: int(0.003 * sample_rate)] = 0.0  # first reflections arrive after ~3 ms
    ir = 0.35 * tail / (np.sqrt(np.sum(tail**2)) + 1e-9)
    ir[0] = 1.0
    return ir.astype(np.float32)


def reverberate(samples: np.ndarray, ir: np.ndarray) -> np.ndarray:
    """Convolve with an impulse response (FFT), same length and peak as the input."""
    n = len(samples) + len(ir) - 1
    size = 1 << (n - 1).bit_length()
    wet = np.fft.irfft(np.fft.rfft(samples, size) * np.fft.rfft(ir, size), size)[: len(samples)]
    peak_in = float(np.max(np.abs(samples))) or 1.0
    peak_out = float(np.max(np.abs(wet))) or 1.0
    return (wet * (peak_in / peak_out)).astype(np.float32)


def room_noise(rng: np.random.Generator, n: int, colour: str) -> np.ndarray:
    """Unit-RMS background noise: "white", "pink" (1/f) or "brown" (1/f^2, hum-like rooms)."""
    white = rng.standard_normal(n)
    if colour == "white":
        noise = white
    else:
        spectrum = np.fft.rfft(white)
        f = np.arange(len(spectrum), dtype=np.float64)
        f[0] = 1.0
        power = 0.5 if colour == "pink" else 1.0
        noise = np.fft.irfft(spectrum / f**power, n)
    return (noise / (np.sqrt(np.mean(noise**2)) + 1e-12)).astype(np.float32)


def add_noise(
    samples: np.ndarray, rng: np.random.Generator, snr_db: float, colour: str
) -> np.ndarray:
    """Add noise at ``snr_db`` relative to the speech level (RMS of the voiced part)."""
    loud = np.abs(samples) > 0.02
    speech_rms = float(np.sqrt(np.mean(samples[loud] ** 2))) if loud.any() else 0.1
    noise = room_noise(rng, len(samples), colour) * speech_rms * 10 ** (-snr_db / 20)
    out = samples + noise
    peak = float(np.max(np.abs(out)))
    return (out * (0.9 / peak) if peak > 0.9 else out).astype(np.float32)
