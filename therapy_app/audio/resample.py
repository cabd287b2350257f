"""Band-limited sample-rate conversion (polyphase Kaiser-windowed sinc) in numpy."""

from __future__ import annotations

import logging
from functools import lru_cache
from math import gcd

import numpy as np

_LOGGER = logging.getLogger(__name__)

# Filter design. 16 zero crossings with a Kaiser beta of 8.6 keeps images and
# aliases ~80 dB down; the 0.94 roll-off puts the transition band just under
# the new Nyquist so speech up to ~7.5 kHz survives a 48 -> 16 kHz conversion.
_ZERO_CROSSINGS = 16
_KAISER_BETA = 8.6
_ROLLOFF = 0.94
# Entries of one (outputs x taps) temporary per vectorised step: about 4 MB of float32.
_STEP_ENTRIES = 1 << 20
# Largest polyphase table kept in memory (phases x taps). A table has one row
# per output phase, i.e. ``to_rate / gcd`` rows: 1 for 48 -> 16 kHz, but 16,000
# for 384,001 -> 16 kHz (635 MB while it was built). Above
# this size the weights of each step are computed for its outputs only.
_MAX_TABLE_ENTRIES = 1 << 20
MAX_RATE = 768_000
"""Highest rate accepted at all (Hz); ``wavio`` refuses files above 192 kHz earlier."""


def _design(up: int, down: int) -> tuple[float, int]:
    """Cut-off (in cycles per input sample, x2) and half-length in input samples."""
    cutoff = min(1.0, up / down) * _ROLLOFF
    return cutoff, int(np.ceil(_ZERO_CROSSINGS / cutoff))


def _weights(phases: np.ndarray, up: int, cutoff: float, half: int) -> np.ndarray:
    """Filter rows ``[len(phases), 2 * half]`` for the given output phases (float64).

    Output ``m`` sits at input time ``m * down / up``; its fractional part is
    ``phase / up``; tap ``i`` weighs input sample ``i0 + i - half + 1``.
    """
    offsets = np.arange(-half + 1, half + 1, dtype=np.float64)
    frac = phases.astype(np.float64)[:, None] / up
    tau = offsets[None, :] - frac  # input sample time minus output time
    window = np.kaiser(2 * half + 1, _KAISER_BETA)
    # Evaluate the (continuous) Kaiser window at tau by interpolating its samples.
    w = np.interp(tau, np.arange(-half, half + 1, dtype=np.float64), window, left=0.0, right=0.0)
    rows = cutoff * np.sinc(cutoff * tau) * w
    rows /= rows.sum(axis=1, keepdims=True)  # exact unity gain at DC for every phase
    return rows


@lru_cache(maxsize=16)
def _filter_table(up: int, down: int) -> tuple[np.ndarray | None, int]:
    """Polyphase table ``[phase, tap]`` (None when too large to keep) and the half-length."""
    cutoff, half = _design(up, down)
    if up * 2 * half > _MAX_TABLE_ENTRIES:
        return None, half
    return _weights(np.arange(up), up, cutoff, half).astype(np.float32), half


class StreamResampler:
    """Converts a stream of blocks from one rate to another, keeping filter history.

    The one-shot :func:`resample` uses the same code, so streamed and whole-clip
    conversions give identical samples.

    Args:
        from_rate: input sample rate in Hz.
        to_rate: output sample rate in Hz.
    """

    def __init__(self, from_rate: int, to_rate: int) -> None:
        if not (0 < from_rate <= MAX_RATE and 0 < to_rate <= MAX_RATE):
            raise ValueError(f"sample rates must be in 1..{MAX_RATE} Hz: {from_rate}, {to_rate}")
        g = gcd(int(from_rate), int(to_rate))
        self.from_rate = int(from_rate)
        self.to_rate = int(to_rate)
        self._up = self.to_rate // g
        self._down = self.from_rate // g
        self._table, self._half = _filter_table(self._up, self._down)
        self._cutoff = _design(self._up, self._down)[0]
        self._step = max(256, _STEP_ENTRIES // (2 * self._half))
        # Samples before the stream start are zeros: the history starts "full".
        self._buf = np.zeros(self._half, np.float32)
        self._buf_start = -self._half  # absolute input index of _buf[0]
        self._next_out = 0
        self._consumed = 0  # input samples received

    def _produce(self, last_needed_ok: int) -> np.ndarray:
        """Outputs whose filter windows end at or before input index ``last_needed_ok``."""
        up, down, half = self._up, self._down, self._half
        # Largest m with floor(m*down/up) + half <= last_needed_ok.
        limit = last_needed_ok - half
        if limit < 0:
            return np.zeros(0, np.float32)
        # floor(m*down/up) <= limit  <=>  m <= (limit*up + up - 1) // down
        m_end = (limit * up + up - 1) // down + 1  # exclusive
        outputs = []
        taps = np.arange(-half + 1, half + 1, dtype=np.int64)
        m = self._next_out
        while m < m_end:
            ms = np.arange(m, min(m_end, m + self._step), dtype=np.int64)
            pos = ms * down
            i0 = pos // up
            phase = pos % up
            idx = i0[:, None] + taps[None, :] - self._buf_start
            if self._table is not None:
                weights = self._table[phase]
            else:
                weights = _weights(phase, up, self._cutoff, half).astype(np.float32)
            outputs.append(np.einsum("ij,ij->i", self._buf[idx], weights))
            m = int(ms[-1]) + 1
        self._next_out = m
        # Keep only the history the next output still needs.
        next_i0 = (self._next_out * down) // up
        drop = next_i0 - half + 1 - self._buf_start
        if drop > 0:
            self._buf = self._buf[drop:]
            self._buf_start += drop
        if not outputs:
            return np.zeros(0, np.float32)
        return np.concatenate(outputs).astype(np.float32, copy=False)

    def process(self, block: np.ndarray) -> np.ndarray:
        """Feed input samples; returns the output samples that are now complete."""
        block = np.asarray(block, dtype=np.float32).reshape(-1)
        if self._up == self._down:
            self._consumed += len(block)
            self._next_out += len(block)
            return block.copy()
        self._buf = np.concatenate([self._buf, block])
        self._consumed += len(block)
        return self._produce(self._buf_start + len(self._buf) - 1)

    def flush(self) -> np.ndarray:
        """End of stream: returns the remaining outputs (total ≈ input × ratio)."""
        if self._up == self._down:
            return np.zeros(0, np.float32)
        total = -(-self._consumed * self._up // self._down)  # ceil
        self._buf = np.concatenate([self._buf, np.zeros(2 * self._half, np.float32)])
        tail = self._produce(self._buf_start + len(self._buf) - 1)
        keep = max(0, total - (self._next_out - len(tail)))
        return tail[:keep]


def resample(samples: np.ndarray, from_rate: int, to_rate: int) -> np.ndarray:
    """Convert a whole signal to another rate.

    Args:
        samples: 1-D float signal.
        from_rate: its sample rate in Hz.
        to_rate: the wanted sample rate in Hz.

    Returns:
        float32 samples, ``ceil(len * to_rate / from_rate)`` of them.
    """
    samples = np.asarray(samples, dtype=np.float32).reshape(-1)
    if from_rate == to_rate:
        return samples.copy()
    converter = StreamResampler(from_rate, to_rate)
    head = converter.process(samples)
    return np.concatenate([head, converter.flush()])
