"""Beam search (greedy is beam 1) and forced-alignment scoring over the cached decoder."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from therapy_app.asr.onnx_whisper import CrossAttention, KVCache

_LOGGER = logging.getLogger(__name__)

_NEG_INF = np.float32(-np.inf)


class DecoderModel(Protocol):
    """What the search needs from the model (``WhisperOnnx`` or a test double)."""

    def empty_cache(self, batch: int = 1) -> KVCache: ...

    def step(
        self, tokens: np.ndarray, cache: KVCache, cross: CrossAttention
    ) -> tuple[np.ndarray, KVCache]: ...


@dataclass(frozen=True)
class SearchSettings:
    """Resolved per-call search parameters.

    Attributes:
        eot: end-of-text id.
        beam_size: beams kept per step; 1 is greedy decoding.
        patience: finished hypotheses collected = round(beam_size * patience).
        length_penalty: None ranks by log-probability / length (Whisper's default);
            a float ``a`` divides by ((5 + length) / 6) ** a.
        max_new_tokens: hard cap on generated tokens.
        suppress: ids whose logits are set to -inf at every step.
        suppress_begin: ids also forbidden as the first generated token.
        repetition_limit: an n-gram repeated this many times in a row ends the
            hypothesis (kept once); None disables the guard.
    """

    eot: int
    beam_size: int = 5
    patience: float = 1.0
    length_penalty: float | None = None
    max_new_tokens: int = 64
    suppress: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    suppress_begin: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    repetition_limit: int | None = 4


@dataclass
class Hypothesis:
    """One decoded token sequence.

    Attributes:
        tokens: generated text tokens (no prompt, no end-of-text).
        token_logprobs: log-probability of each token in ``tokens``.
        sum_logprob: total log-probability, the end-of-text token's included when it ended so.
        stop: why it ended: "eot", "length" or "repetition".
    """

    tokens: list[int]
    token_logprobs: list[float]
    sum_logprob: float
    stop: str = "eot"

    @property
    def avg_logprob(self) -> float:
        """Whisper's average: sum over (tokens + end-of-text)."""
        return self.sum_logprob / (len(self.tokens) + 1)


@dataclass(frozen=True)
class SearchResult:
    """Best hypothesis and the no-speech probability of the clip.

    Attributes:
        best: the hypothesis ranked first.
        no_speech_prob: P(<|nocaptions|>) at the start-of-transcript position.
        steps: decoder calls made (prompt pass included).
    """

    best: Hypothesis
    no_speech_prob: float
    steps: int


def log_softmax(logits: np.ndarray) -> np.ndarray:
    """Row-wise log-softmax over the last axis, robust to -inf entries."""
    top = np.max(logits, axis=-1, keepdims=True)
    shifted = logits - top
    return np.asarray(shifted - np.log(np.sum(np.exp(shifted), axis=-1, keepdims=True)))


def repetition_start(tokens: list[int], limit: int | None, max_ngram: int = 12) -> int | None:
    """Where the extra copies of a trailing n-gram loop begin, or None.

    A loop is an n-gram repeated ``limit`` times at the end of ``tokens``; the
    returned index keeps its first copy. Whisper falls into such loops on noise
    and on isolated words.
    """
    if not limit or limit < 2:
        return None
    n_tokens = len(tokens)
    for n in range(1, max_ngram + 1):
        if n * limit > n_tokens:
            break
        gram = tokens[n_tokens - n :]
        if all(
            tokens[n_tokens - k * n : n_tokens - (k - 1) * n] == gram for k in range(2, limit + 1)
        ):
            return n_tokens - (limit - 1) * n
    return None


def _rank_score(hyp: Hypothesis, length_penalty: float | None) -> float:
    length = max(1, len(hyp.tokens))
    penalty = length if length_penalty is None else ((5 + length) / 6) ** length_penalty
    return hyp.sum_logprob / penalty


def _filtered_logprobs(logits: np.ndarray, settings: SearchSettings, first: bool) -> np.ndarray:
    logits = logits.astype(np.float32, copy=True)
    if settings.suppress.size:
        logits[:, settings.suppress] = _NEG_INF
    if first and settings.suppress_begin.size:
        logits[:, settings.suppress_begin] = _NEG_INF
    return log_softmax(logits)


def _top_k(row: np.ndarray, k: int) -> np.ndarray:
    k = min(k, row.shape[0])
    part = np.argpartition(-row, k - 1)[:k]
    return part[np.argsort(-row[part], kind="stable")]


def beam_search(
    model: DecoderModel,
    cross: CrossAttention,
    prompt: list[int],
    sot_index: int,
    no_speech_id: int,
    settings: SearchSettings,
) -> SearchResult:
    """Decode one clip with beam search; beam size 1 is greedy decoding.

    The beams run as one decoder batch sharing the clip's cross-attention K/V.
    A hypothesis ends on end-of-text, on a repetition loop, or at the token cap.

    Args:
        model: the decoder.
        cross: the clip's encoder output.
        prompt: prompt tokens (previous-text context, then the SOT sequence).
        sot_index: position of ``<|startoftranscript|>`` in ``prompt``.
        no_speech_id: the ``<|nocaptions|>`` token.
        settings: search parameters.
    """
    logits, cache = model.step(np.asarray([prompt], np.int64), model.empty_cache(1), cross)
    steps = 1
    no_speech_prob = float(np.exp(log_softmax(logits[0, sot_index])[no_speech_id]))
    last = logits[:, -1]
    beams = [Hypothesis([], [], 0.0, "length")]
    finished: list[Hypothesis] = []
    wanted = max(1, round(settings.beam_size * settings.patience))
    for position in range(settings.max_new_tokens):
        logprobs = _filtered_logprobs(last, settings, first=position == 0)
        candidates: list[tuple[float, int, int]] = []
        for row, beam in enumerate(beams):
            for token in _top_k(logprobs[row], settings.beam_size + 1):
                lp = float(logprobs[row, token])
                if lp > -np.inf:
                    candidates.append((beam.sum_logprob + lp, row, int(token)))
        candidates.sort(key=lambda c: -c[0])
        next_beams: list[Hypothesis] = []
        rows: list[int] = []
        for score, row, token in candidates:
            parent = beams[row]
            lp = score - parent.sum_logprob
            if token == settings.eot:
                if len(finished) < wanted:
                    finished.append(Hypothesis(parent.tokens, parent.token_logprobs, score))
                continue
            tokens = [*parent.tokens, token]
            lps = [*parent.token_logprobs, lp]
            cut = repetition_start(tokens, settings.repetition_limit)
            if cut is not None:
                if len(finished) < wanted:
                    kept = lps[:cut]
                    finished.append(Hypothesis(tokens[:cut], kept, float(sum(kept)), "repetition"))
                continue
            next_beams.append(Hypothesis(tokens, lps, score, "length"))
            rows.append(row)
            if len(next_beams) == settings.beam_size:
                break
        if len(finished) >= wanted or not next_beams:
            beams = []
            break
        beams = next_beams
        if position + 1 == settings.max_new_tokens:
            break
        cache = cache.select(np.asarray(rows))
        feed = np.asarray([[b.tokens[-1]] for b in beams], np.int64)
        logits, cache = model.step(feed, cache, cross)
        steps += 1
        last = logits[:, -1]
    if len(finished) < wanted:
        # Token cap reached: unfinished beams compete too, without an end-of-text term.
        finished.extend(beams[: wanted - len(finished)])
    if not finished:
        finished = [Hypothesis([], [], 0.0, "length")]
    best = max(finished, key=lambda h: _rank_score(h, settings.length_penalty))
    return SearchResult(best, no_speech_prob, steps)


def score_sequences(
    model: DecoderModel,
    cross: CrossAttention,
    prompt: list[int],
    sequences: list[list[int]],
    batch_size: int = 8,
) -> list[list[float]]:
    """Per-token log P(sequence | audio, prompt) by teacher forcing, sequences batched.

    The prompt runs once; its cache is shared by every row. Each sequence should
    end with end-of-text so that a prefix of the spoken text is not rewarded.

    Returns:
        For each sequence, the log-probability of each of its tokens.
    """
    logits, cache = model.step(np.asarray([prompt], np.int64), model.empty_cache(1), cross)
    first = log_softmax(logits[0, -1].astype(np.float32))
    results: list[list[float]] = []
    for start in range(0, len(sequences), batch_size):
        chunk = sequences[start : start + batch_size]
        longest = max(len(s) for s in chunk)
        if longest <= 1:
            results.extend([[float(first[s[0]])] if s else [] for s in chunk])
            continue
        feed = np.zeros((len(chunk), longest - 1), np.int64)
        for i, seq in enumerate(chunk):
            # Right padding is harmless: causal attention never looks ahead.
            feed[i, : len(seq) - 1] = seq[:-1]
        rows = np.zeros(len(chunk), np.int64)
        step_logits, _ = model.step(feed, cache.select(rows), cross)
        step_lp = log_softmax(step_logits.astype(np.float32))
        for i, seq in enumerate(chunk):
            if not seq:
                results.append([])
                continue
            lps = [float(first[seq[0]])]
            lps += [float(step_lp[i, t - 1, seq[t]]) for t in range(1, len(seq))]
            results.append(lps)
    return results
