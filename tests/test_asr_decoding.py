"""Beam search, guards and scoring on a scripted decoder (no model needed)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from therapy_app.asr.decoding import (
    SearchSettings,
    beam_search,
    log_softmax,
    repetition_start,
    score_sequences,
)
from therapy_app.asr.onnx_whisper import CrossAttention, KVCache

V = 12
EOT, A, B, X, Y, Z, W, LOOP = 0, 1, 2, 3, 4, 5, 6, 7
SOT, LANG, NO_SPEECH = 9, 10, 11
PROMPT = [SOT, LANG]
CROSS = CrossAttention([np.zeros(1, np.float32)], [np.zeros(1, np.float32)])


def _logits(probs: dict[int, float]) -> np.ndarray:
    out = np.full(V, -1e4, np.float32)
    for token, p in probs.items():
        out[token] = np.log(p)
    return out


class ScriptedDecoder:
    """Logits depend on the token history, which travels in the KV cache itself.

    Storing the history in the cache checks that the search reorders and expands
    the cache rows correctly: a wrong row would read someone else's history.
    """

    def __init__(self, table: Callable[[tuple[int, ...]], dict[int, float]]) -> None:
        self.table = table
        self.calls = 0

    def empty_cache(self, batch: int = 1) -> KVCache:
        empty = np.zeros((batch, 1, 0, 1), np.float32)
        return KVCache([empty], [empty.copy()])

    def step(self, tokens: np.ndarray, cache: KVCache, cross: CrossAttention):
        self.calls += 1
        assert tokens.shape[0] == cache.batch
        new = tokens[:, None, :, None].astype(np.float32)
        history = np.concatenate([cache.keys[0], new], 2)
        logits = np.zeros((tokens.shape[0], tokens.shape[1], V), np.float32)
        for b in range(tokens.shape[0]):
            seq = tuple(int(t) for t in history[b, 0, :, 0])
            for s in range(tokens.shape[1]):
                upto = seq[: cache.length + s + 1]
                logits[b, s] = _logits(
                    self.table(upto[len(PROMPT) :]) if upto[:2] == (SOT, LANG) else {EOT: 1.0}
                )
        return logits, KVCache([history], [history.copy()])


def trap_table(generated: tuple[int, ...]) -> dict[int, float]:
    """Greedy takes A (0.6) then finds a flat tail; B (0.4) leads to a sure W."""
    if not generated:
        return {A: 0.6, B: 0.4}
    if generated == (A,):
        return {X: 0.35, Y: 0.35, Z: 0.3}
    if generated == (B,):
        return {W: 0.95, X: 0.05}
    return {EOT: 1.0}


def settings(**kw) -> SearchSettings:
    return SearchSettings(eot=EOT, **kw)


def test_greedy_takes_the_locally_best_token():
    result = beam_search(
        ScriptedDecoder(trap_table), CROSS, PROMPT, 0, NO_SPEECH, settings(beam_size=1)
    )
    assert result.best.tokens[0] == A
    assert result.best.stop == "eot"


def test_beam_search_finds_the_more_likely_sequence():
    model = ScriptedDecoder(trap_table)
    result = beam_search(model, CROSS, PROMPT, 0, NO_SPEECH, settings(beam_size=3))
    assert result.best.tokens == [B, W]
    assert result.best.sum_logprob == pytest.approx(np.log(0.4 * 0.95), abs=1e-4)
    assert result.best.token_logprobs == pytest.approx([np.log(0.4), np.log(0.95)], abs=1e-4)
    assert result.steps == model.calls


def test_suppressed_tokens_are_never_produced():
    result = beam_search(
        ScriptedDecoder(trap_table),
        CROSS,
        PROMPT,
        0,
        NO_SPEECH,
        settings(beam_size=3, suppress=np.array([B])),
    )
    assert B not in result.best.tokens


def test_end_of_text_is_not_allowed_first():
    def eager_end(generated):
        return {EOT: 0.9, A: 0.1} if not generated else {EOT: 1.0}

    begin = np.array([EOT])
    result = beam_search(
        ScriptedDecoder(eager_end),
        CROSS,
        PROMPT,
        0,
        NO_SPEECH,
        settings(beam_size=2, suppress_begin=begin),
    )
    assert result.best.tokens == [A]


def test_repetition_loop_is_cut_and_kept_once():
    def stuck(generated):
        return {LOOP: 0.9, EOT: 0.1}

    result = beam_search(
        ScriptedDecoder(stuck),
        CROSS,
        PROMPT,
        0,
        NO_SPEECH,
        settings(beam_size=1, repetition_limit=4, max_new_tokens=50),
    )
    assert result.best.tokens == [LOOP]
    assert result.best.stop == "repetition"


def test_token_cap_stops_generation():
    def stuck(generated):
        return {LOOP: 0.9, EOT: 0.1}

    model = ScriptedDecoder(stuck)
    result = beam_search(
        model,
        CROSS,
        PROMPT,
        0,
        NO_SPEECH,
        settings(beam_size=2, repetition_limit=None, max_new_tokens=7),
    )
    assert len(result.best.tokens) <= 7
    assert model.calls <= 7


def test_no_speech_probability_is_read_at_the_sot_position():
    def table(generated):
        return {EOT: 1.0}

    class NoSpeechDecoder(ScriptedDecoder):
        def step(self, tokens, cache, cross):
            logits, new_cache = super().step(tokens, cache, cross)
            if cache.length == 0:
                logits[0, 0] = _logits({NO_SPEECH: 0.7, A: 0.3})
            return logits, new_cache

    result = beam_search(NoSpeechDecoder(table), CROSS, PROMPT, 0, NO_SPEECH, settings())
    assert result.no_speech_prob == pytest.approx(0.7, abs=1e-4)


def test_score_sequences_teacher_forces_every_token():
    sequences = [[B, W, EOT], [A, X, EOT], [A, EOT], [EOT]]
    scores = score_sequences(ScriptedDecoder(trap_table), CROSS, PROMPT, sequences, batch_size=3)
    expected = [
        [np.log(0.4), np.log(0.95), 0.0],
        [np.log(0.6), np.log(0.35), 0.0],
        [np.log(0.6), np.log(1e-4) - np.log(1.0)],
        [None],
    ]
    for got, want in zip(scores[:2], expected[:2], strict=True):
        assert got == pytest.approx(want, abs=1e-3)
    assert scores[2][1] < -8  # A then immediate end is very unlikely
    assert scores[3][0] < -8  # nothing at all is very unlikely
    totals = [sum(s) for s in scores]
    assert int(np.argmax(totals)) == 0


@pytest.mark.parametrize(
    ("tokens", "limit", "expected"),
    [
        ([1, 2, 3], 4, None),
        ([5, 5, 5, 5], 4, 1),
        ([9, 5, 5, 5], 4, None),
        ([9, 1, 2, 1, 2, 1, 2, 1, 2], 4, 3),
        ([1, 2, 1, 2, 1, 2], 3, 2),
        ([5, 5, 5, 5], None, None),
    ],
)
def test_repetition_start(tokens, limit, expected):
    assert repetition_start(tokens, limit) == expected


def test_log_softmax_handles_minus_infinity():
    row = np.array([[0.0, -np.inf, 1.0]], np.float32)
    out = log_softmax(row)
    assert np.exp(out).sum() == pytest.approx(1.0)
    assert out[0, 1] == -np.inf
