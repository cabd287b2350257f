"""Where phoneme strings are said in a try: Viterbi spotting on the phone reader's posteriors."""

# The frames a candidate does not explain are read by the free path (each
# frame's best class, costing nothing) so a word can be found anywhere in a
# halting utterance. Costs are log-posteriors less each frame's best: 0 when
# the frames read exactly the candidate, more negative the worse it fits.
# A sentence is spotted as its words in order, each of which may be left out
# at a price, with a price on speech that no word of it explains (the
# phrase-book match: docs/decisions/0030-phrase-match-phones.md).

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from therapy_app.asr.phones import indices, padded_states

_NEG = -1e9


def _relative(logp: np.ndarray) -> np.ndarray:
    relative: np.ndarray = logp - logp.max(axis=1, keepdims=True)
    return relative


def _ctc_states(label: str) -> list[int]:
    """phone, blank, phone, ..., phone: a word's states once it has started."""
    states: list[int] = []
    for i in indices(label):
        states += [i, 0]
    return states[:-1]


def spot(logp: np.ndarray, labels: Sequence[str]) -> np.ndarray:
    """Per non-empty label, the cost of its best place in the frames (≤ 0).

    Args:
        logp: log posteriors [T, 1 + phonemes] (blank first).
        labels: phoneme strings in the reader's inventory.
    """
    if not labels:
        return np.zeros(0)
    free = _relative(logp)
    states = [_ctc_states(label) for label in labels]
    cls, valid, skip = padded_states(states)
    n, s = cls.shape
    ends = np.asarray([len(x) - 1 for x in states])
    rows = np.arange(n)
    alpha = np.full((n, s), _NEG)
    best = np.full(n, _NEG)
    pad = np.full((n, 2), _NEG)
    for t in range(free.shape[0]):
        emit = np.where(valid, free[t][cls], _NEG)
        shifted = np.concatenate([pad, alpha], axis=1)
        prev = np.maximum(alpha, shifted[:, 1:-1])
        prev = np.maximum(prev, np.where(skip, shifted[:, :-2], _NEG))
        prev[:, 0] = np.maximum(prev[:, 0], 0.0)  # start here, after free frames
        alpha = prev + emit
        best = np.maximum(best, alpha[rows, ends])
    return best


@dataclass(frozen=True)
class SequenceFits:
    """How well each sequence explains a try.

    Attributes:
        costs: per sequence, the cost of its best path (≤ 0).
        unexplained: per sequence, the speech frames outside its words on that path.
        speech: the try's speech frames (best class a phoneme).
    """

    costs: np.ndarray
    unexplained: np.ndarray
    speech: int


def fit_sequences(
    logp: np.ndarray, sequences: Sequence[Sequence[tuple[str, float]]], unexplained: float
) -> SequenceFits:
    """Per sequence of (label, cost of leaving it out), the best path saying it in order.

    Before, between and after the words the frames are free, but every frame
    whose best class is a phoneme costs ``unexplained`` there: speech the
    sequence does not account for. A word may be left out (its cost, ≤ 0).
    All sequences advance together, one numpy step per frame; the path's
    unexplained speech frames are counted along.

    Args:
        logp: log posteriors [T, 1 + phonemes] (blank first).
        sequences: per candidate, its words' labels in order (empty labels are
            not allowed) with the cost of leaving each out.
        unexplained: cost (≥ 0) of one speech frame outside the words.
    """
    voiced = (logp.argmax(axis=1) != 0).astype(np.float64)
    if not sequences:
        return SequenceFits(np.zeros(0), np.zeros(0), int(voiced.sum()))
    free = _relative(logp)
    # Per sequence: states G0, word 1, G1, word 2, G2, ...; Gi = free frames.
    layouts = []
    for words in sequences:
        cls, gaps, leave = [0], [0], [0.0]
        for label, cost in words:
            cls += _ctc_states(label)
            gaps.append(len(cls))
            leave.append(float(cost))
            cls.append(0)
        layouts.append((cls, gaps, leave))
    n = len(layouts)
    s = max(len(c) for c, _, _ in layouts)
    w = max(len(g) for _, g, _ in layouts)
    cls_a = np.zeros((n, s), np.int64)
    state = np.zeros((n, s), np.int8)  # 0 padding, 1 word state, 2 free state
    gap_a = np.zeros((n, w), np.int64)
    cum = np.zeros((n, w))
    for row, (cls, gaps, leave) in enumerate(layouts):
        cls_a[row, : len(cls)] = cls
        state[row, : len(cls)] = 1
        state[row, gaps] = 2
        gap_a[row] = gaps + [gaps[-1]] * (w - len(gaps))
        sums = np.cumsum(leave)
        cum[row] = np.concatenate([sums, np.full(w - len(gaps), sums[-1])])
    skip = np.zeros((n, s), bool)
    skip[:, 2:] = (state[:, 2:] == 1) & (state[:, :-2] == 1) & (cls_a[:, 2:] != 0)
    skip[:, 2:] &= cls_a[:, 2:] != cls_a[:, :-2]
    rows = np.arange(n)[:, None]
    positions = np.arange(w)[None, :]
    is_free = state == 2

    def leave_out(alpha: np.ndarray, count: np.ndarray) -> None:
        # G_i may be reached from G_j (j < i) by leaving words j+1..i out:
        # a running maximum along the gaps once their costs are taken off,
        # and the count of the gap it came from.
        raw = alpha[rows, gap_a] - cum
        best = np.maximum.accumulate(raw, axis=1)
        source = np.maximum.accumulate(np.where(raw >= best, positions, 0), axis=1)
        counts = count[rows, gap_a]
        alpha[rows, gap_a] = best + cum
        count[rows, gap_a] = np.take_along_axis(counts, source, axis=1)

    alpha = np.full((n, s), _NEG)
    alpha[:, 0] = 0.0
    count = np.zeros((n, s))
    leave_out(alpha, count)
    pad = np.full((n, 2), _NEG)
    zeros = np.zeros((n, 2))
    for t in range(free.shape[0]):
        emit = np.where(state == 1, free[t][cls_a], -unexplained * voiced[t])
        emit = np.where(state == 0, _NEG, emit)
        shifted = np.concatenate([pad, alpha], axis=1)
        shifted_count = np.concatenate([zeros, count], axis=1)
        one, two = shifted[:, 1:-1], np.where(skip, shifted[:, :-2], _NEG)
        prev = np.maximum(alpha, one)
        count = np.where(one > alpha, shifted_count[:, 1:-1], count)
        count = np.where(two > prev, shifted_count[:, :-2], count)
        prev = np.maximum(prev, two)
        alpha = prev + emit
        count = count + is_free * voiced[t]
        leave_out(alpha, count)
    last = gap_a[:, -1]
    flat = np.arange(n)
    # The last word may end on the last frame, without a free frame after it.
    ended = (last > 0) & (state[flat, last - 1] == 1) & (alpha[flat, last - 1] > alpha[flat, last])
    costs = np.where(ended, alpha[flat, last - 1], alpha[flat, last])
    frames = np.where(ended, count[flat, last - 1], count[flat, last])
    return SequenceFits(costs, frames, int(voiced.sum()))
