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

import numpy as np

from therapy_app.asr.phones import indices

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
    n, s = len(states), max(len(x) for x in states)
    cls = np.zeros((n, s), np.int64)
    valid = np.zeros((n, s), bool)
    for row, x in enumerate(states):
        cls[row, : len(x)] = x
        valid[row, : len(x)] = True
    skip = np.zeros((n, s), bool)
    skip[:, 2:] = (cls[:, 2:] != 0) & (cls[:, 2:] != cls[:, :-2]) & valid[:, 2:]
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


def spot_sequences(
    logp: np.ndarray, sequences: Sequence[Sequence[tuple[str, float]]], unexplained: float
) -> np.ndarray:
    """Per sequence of (label, cost of leaving it out), the best cost of saying it in order.

    Before, between and after the words the frames are free, but every frame
    whose best class is a phoneme costs ``unexplained`` there: speech the
    sequence does not account for. A word may be left out (its cost, ≤ 0).
    All sequences advance together, one numpy step per frame.

    Args:
        logp: log posteriors [T, 1 + phonemes] (blank first).
        sequences: per candidate, its words' labels in order (empty labels are
            not allowed) with the cost of leaving each out.
        unexplained: cost (≥ 0) of one speech frame outside the words.
    """
    if not sequences:
        return np.zeros(0)
    free = _relative(logp)
    voiced = (logp.argmax(axis=1) != 0).astype(np.float64)
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

    def leave_out(alpha: np.ndarray) -> None:
        # G_i may be reached from G_j (j < i) by leaving words j+1..i out:
        # a running maximum along the gaps once their costs are taken off.
        along = np.maximum.accumulate(alpha[rows, gap_a] - cum, axis=1) + cum
        alpha[rows, gap_a] = along

    alpha = np.full((n, s), _NEG)
    alpha[:, 0] = 0.0
    leave_out(alpha)
    pad = np.full((n, 2), _NEG)
    for t in range(free.shape[0]):
        emit = np.where(state == 1, free[t][cls_a], -unexplained * voiced[t])
        emit = np.where(state == 0, _NEG, emit)
        shifted = np.concatenate([pad, alpha], axis=1)
        prev = np.maximum(alpha, shifted[:, 1:-1])
        prev = np.maximum(prev, np.where(skip, shifted[:, :-2], _NEG))
        alpha = prev + emit
        leave_out(alpha)
    last = gap_a[:, -1]
    flat = np.arange(n)
    # The last word may end on the last frame, without a free frame after it.
    ending = np.where((last > 0) & (state[flat, last - 1] == 1), alpha[flat, last - 1], _NEG)
    final: np.ndarray = np.maximum(alpha[flat, last], ending)
    return final
