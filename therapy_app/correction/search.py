"""Greedy and beam search over the exported encoder and decoder-step graphs."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import numpy as np

_LOGGER = logging.getLogger(__name__)


class StepModel(Protocol):
    """What the search needs from the model (ONNX sessions in production)."""

    def encode(self, src_ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(1, S) int64 source ids -> cross keys/values (L, 1, H, S, Dh)."""
        ...

    def step(
        self,
        tokens: np.ndarray,
        self_k: np.ndarray,
        self_v: np.ndarray,
        cross_k: np.ndarray,
        cross_v: np.ndarray,
        src_mask: np.ndarray,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(B, 1) tokens -> log-probs (B, V) and the grown caches."""
        ...

    def empty_cache(self, batch: int) -> np.ndarray:
        """A (L, B, H, 0, Dh) float32 cache."""
        ...


@dataclass(frozen=True)
class SearchOptions:
    """Decoding limits shared by greedy and beam search.

    Attributes:
        bos_id: start token.
        eos_id: end token.
        max_len: hard cap on generated tokens (EOS excluded).
        no_repeat_ngram: forbid any token n-gram of this size from occurring
            twice; catches the "de la de la de la" loops of an undertrained
            model while real sentences almost never repeat 4 tokens.
    """

    bos_id: int
    eos_id: int
    max_len: int
    no_repeat_ngram: int = 4


@dataclass(frozen=True)
class Hypothesis:
    """A finished (or cut-off) output.

    Attributes:
        tokens: generated ids, without BOS/EOS.
        score: mean log-probability per generated token, EOS included.
        finished: False when it hit ``max_len`` without producing EOS.
    """

    tokens: list[int]
    score: float
    finished: bool


def _banned(tokens: list[int], n: int) -> set[int]:
    """Tokens that would complete an n-gram already present in ``tokens``."""
    if n <= 0 or len(tokens) < n:
        return set()
    prefix = tuple(tokens[-(n - 1) :]) if n > 1 else ()
    banned = set()
    for i in range(len(tokens) - n + 1):
        if tuple(tokens[i : i + n - 1]) == prefix:
            banned.add(tokens[i + n - 1])
    return banned


def _mask_banned(log_probs: np.ndarray, hyps: list[list[int]], n: int) -> None:
    for row, toks in enumerate(hyps):
        for tok in _banned(toks, n):
            log_probs[row, tok] = -np.inf


def greedy(model: StepModel, src_ids: np.ndarray, options: SearchOptions) -> Hypothesis:
    """Most likely token at each step.

    Args:
        model: the graphs.
        src_ids: (1, S) int64 source ids ending with EOS.
        options: limits and special ids.
    """
    out, total, finished = _decode_one(
        model, src_ids, options, lambda row, _out: int(np.argmax(row))
    )
    return Hypothesis(out, total / (len(out) + 1 if finished else max(len(out), 1)), finished)


def _decode_one(
    model: StepModel,
    src_ids: np.ndarray,
    options: SearchOptions,
    pick: Callable[[np.ndarray, list[int]], int | None],
) -> tuple[list[int], float, bool]:
    """One hypothesis, token by token, ``pick`` choosing from each log-prob row.

    Returns:
        The tokens (no EOS), the summed log-probability of the picked tokens and
        whether EOS was picked; the search stops early when ``pick`` gives None.
    """
    cross_k, cross_v = model.encode(src_ids)
    src_mask = np.ones(src_ids.shape, dtype=bool)
    self_k = self_v = model.empty_cache(1)
    token = np.array([[options.bos_id]], dtype=np.int64)
    out: list[int] = []
    total = 0.0
    for _ in range(options.max_len):
        log_probs, self_k, self_v = model.step(token, self_k, self_v, cross_k, cross_v, src_mask)
        _mask_banned(log_probs, [out], options.no_repeat_ngram)
        nxt = pick(log_probs[0], out)
        if nxt is None:
            break
        total += float(log_probs[0, nxt])
        if nxt == options.eos_id:
            return out, total, True
        out.append(nxt)
        token = np.array([[nxt]], dtype=np.int64)
    return out, total, False


def beam_search(
    model: StepModel, src_ids: np.ndarray, options: SearchOptions, beam_size: int
) -> list[Hypothesis]:
    """Beam search with length-normalised scores.

    The beam is the batch axis of the decoder-step graph: the source is encoded
    once and its keys/values repeated for each live hypothesis.

    Returns:
        Every hypothesis that ended (at least ``beam_size`` unless the length cap
        cut the search), best first; finished ones rank before any cut off at
        ``max_len``. The extra ones let the caller skip near-duplicates.
    """
    if beam_size <= 1:
        return [greedy(model, src_ids, options)]
    cross_k1, cross_v1 = model.encode(src_ids)
    hyps: list[list[int]] = [[]]
    sums = np.zeros(1, dtype=np.float64)
    self_k = self_v = model.empty_cache(1)
    finished: list[Hypothesis] = []
    for _ in range(options.max_len):
        live = len(hyps)
        cross_k = np.repeat(cross_k1, live, axis=1)
        cross_v = np.repeat(cross_v1, live, axis=1)
        src_mask = np.ones((live, src_ids.shape[1]), dtype=bool)
        tokens = np.array([[h[-1] if h else options.bos_id] for h in hyps], dtype=np.int64)
        log_probs, self_k, self_v = model.step(tokens, self_k, self_v, cross_k, cross_v, src_mask)
        _mask_banned(log_probs, hyps, options.no_repeat_ngram)
        candidates = sums[:, None] + log_probs
        flat = candidates.ravel()
        order = np.argsort(-flat, kind="stable")[: 2 * beam_size]
        vocab = log_probs.shape[1]
        keep_rows: list[int] = []
        new_hyps: list[list[int]] = []
        new_sums: list[float] = []
        for index in order:
            score = float(flat[index])
            if not np.isfinite(score):
                break
            row, tok = divmod(int(index), vocab)
            if tok == options.eos_id:
                length = len(hyps[row]) + 1
                finished.append(Hypothesis(hyps[row], score / length, True))
            else:
                keep_rows.append(row)
                new_hyps.append(hyps[row] + [tok])
                new_sums.append(score)
            if len(new_hyps) == beam_size:
                break
        # Stop once enough hypotheses ended: a longer one rarely wins after
        # normalisation and every extra step costs a full decoder pass.
        if len(finished) >= beam_size or not new_hyps:
            break
        rows = np.array(keep_rows, dtype=np.int64)
        self_k, self_v = self_k[:, rows], self_v[:, rows]
        hyps, sums = new_hyps, np.array(new_sums)
    else:
        for toks, total in zip(hyps, sums, strict=True):
            finished.append(Hypothesis(toks, float(total) / max(len(toks), 1), False))
    finished.sort(key=lambda h: (h.finished, h.score), reverse=True)
    return finished


def score_target(
    model: StepModel, src_ids: np.ndarray, target: list[int], options: SearchOptions
) -> float:
    """Mean log-probability per token (EOS included) of a given output.

    Used to ask the model how likely it finds leaving the input as it is,
    compared with the correction it would make.
    """
    cross_k, cross_v = model.encode(src_ids)
    src_mask = np.ones(src_ids.shape, dtype=bool)
    self_k = self_v = model.empty_cache(1)
    total = 0.0
    previous = options.bos_id
    for tok in [*target, options.eos_id]:
        token = np.array([[previous]], dtype=np.int64)
        log_probs, self_k, self_v = model.step(token, self_k, self_v, cross_k, cross_v, src_mask)
        total += float(log_probs[0, tok])
        previous = tok
    return total / (len(target) + 1)


def constrained_greedy(
    model: StepModel,
    src_ids: np.ndarray,
    options: SearchOptions,
    accept: Callable[[list[int]], bool],
    may_end: Callable[[list[int]], bool],
    possible: Callable[[list[int]], np.ndarray] | None = None,
) -> Hypothesis | None:
    """Greedy decoding restricted to outputs that ``accept`` every prefix of.

    At each step the most likely token that keeps the output acceptable is
    taken; EOS only when ``may_end`` holds. Used to let the model write the
    patient's own words its way (capitals, commas, "?"), so that leaving the
    input unchanged is scored fairly against a correction.

    Args:
        possible: optional cheap pre-check, a boolean mask over the vocabulary
            that is False only for tokens ``accept`` would refuse after ``out``;
            it spares calling ``accept`` on thousands of tokens when the one
            the constraint needs is ranked low.

    Returns:
        The hypothesis, or None when no token can continue the output.
    """
    out, total, finished = _decode_one(
        model,
        src_ids,
        options,
        lambda row, out: _first_allowed(row, out, options.eos_id, accept, may_end, possible),
    )
    return Hypothesis(out, total / (len(out) + 1), True) if finished else None


def _first_allowed(
    row: np.ndarray,
    out: list[int],
    eos_id: int,
    accept: Callable[[list[int]], bool],
    may_end: Callable[[list[int]], bool],
    possible: Callable[[list[int]], np.ndarray] | None,
    shortlist: int = 16,
) -> int | None:
    """The most likely allowed token; the full vocabulary is sorted only if the top few fail."""

    def allowed(nxt: int) -> bool:
        return (nxt == eos_id and may_end(out)) or (nxt != eos_id and accept([*out, nxt]))

    shortlist = min(shortlist, row.shape[0] - 1)
    top = np.argpartition(-row, shortlist)[:shortlist]
    top = top[np.argsort(-row[top], kind="stable")]
    for nxt in top:
        if not np.isfinite(row[nxt]):
            return None
        if allowed(int(nxt)):
            return int(nxt)
    rest = np.argsort(-row, kind="stable")
    rest = rest[~np.isin(rest, top)]
    if possible is not None:
        mask = possible(out)
        mask[eos_id] = True
        rest = rest[mask[rest]]
    for nxt in rest:
        if not np.isfinite(row[nxt]):
            return None
        if allowed(int(nxt)):
            return int(nxt)
    return None
