"""Greedy and beam search on a scripted fake decoder (no model needed)."""

from __future__ import annotations

import numpy as np
import pytest

from therapy_app.correction.search import (
    SearchOptions,
    beam_search,
    constrained_greedy,
    greedy,
)

BOS, EOS, VOCAB = 2, 3, 10
OPTIONS = SearchOptions(bos_id=BOS, eos_id=EOS, max_len=12)


class ScriptedModel:
    """A decoder whose next-token distribution depends only on the last token.

    ``table[t]`` gives the probabilities after token ``t``; the cache just
    counts positions so that cache reordering is exercised.
    """

    def __init__(self, table: dict[int, dict[int, float]]) -> None:
        self.table = table
        self.steps = 0

    def encode(self, src_ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        cross = np.zeros((1, 1, 1, src_ids.shape[1], 1), dtype=np.float32)
        return cross, cross

    def step(self, tokens, self_k, self_v, cross_k, cross_v, src_mask):
        self.steps += 1
        assert tokens.shape[0] == self_k.shape[1] == cross_k.shape[1] == src_mask.shape[0]
        probs = np.full((tokens.shape[0], VOCAB), 1e-9)
        for row, tok in enumerate(tokens[:, 0]):
            for nxt, p in self.table.get(int(tok), {EOS: 1.0}).items():
                probs[row, nxt] = p
        new = np.concatenate([self_k, np.zeros_like(self_k[:, :, :, :1])], axis=3)
        return np.log(probs / probs.sum(1, keepdims=True)), new, new

    def empty_cache(self, batch: int) -> np.ndarray:
        return np.zeros((1, batch, 1, 0, 1), dtype=np.float32)


SRC = np.array([[5, 6, EOS]], dtype=np.int64)


def test_greedy_follows_the_most_likely_path():
    model = ScriptedModel({BOS: {5: 0.6, 6: 0.4}, 5: {7: 0.9, EOS: 0.1}, 7: {EOS: 1.0}})
    hyp = greedy(model, SRC, OPTIONS)
    assert hyp.tokens == [5, 7] and hyp.finished
    assert hyp.score == pytest.approx(np.log([0.6, 0.9, 1.0]).sum() / 3)


def test_beam_finds_a_better_sequence_than_greedy():
    # Greedy takes 5 (0.6) then is stuck with a 0.3 continuation; 6 leads to a sure end.
    table = {BOS: {5: 0.6, 6: 0.4}, 5: {7: 0.3, 8: 0.3, 9: 0.4}, 6: {EOS: 1.0}, 9: {EOS: 1.0}}
    model = ScriptedModel(table)
    assert greedy(model, SRC, OPTIONS).tokens == [5, 9]
    hyps = beam_search(model, SRC, OPTIONS, beam_size=3)
    assert hyps[0].tokens == [6]
    assert len({tuple(h.tokens) for h in hyps}) == len(hyps)
    assert [h.score for h in hyps] == sorted((h.score for h in hyps), reverse=True)


def test_repeated_ngrams_are_blocked():
    # A model that loops "5 6 7 5 6 7 ..." forever.
    table = {BOS: {5: 1.0}, 5: {6: 0.9, EOS: 0.1}, 6: {7: 0.9, EOS: 0.1}, 7: {5: 0.9, EOS: 0.1}}
    hyp = greedy(ScriptedModel(table), SRC, SearchOptions(BOS, EOS, max_len=30, no_repeat_ngram=3))
    assert hyp.finished
    assert hyp.tokens == [5, 6, 7, 5, 6]  # "7" would repeat "5 6 7": EOS wins instead


def test_length_cap_marks_runaway_output_unfinished():
    model = ScriptedModel({BOS: {5: 1.0}, 5: {5: 1.0}})
    hyp = greedy(model, SRC, SearchOptions(BOS, EOS, max_len=6, no_repeat_ngram=0))
    assert not hyp.finished and len(hyp.tokens) == 6
    hyps = beam_search(model, SRC, SearchOptions(BOS, EOS, max_len=6, no_repeat_ngram=0), 2)
    assert hyps and not hyps[0].finished


def test_beam_size_one_is_greedy():
    model = ScriptedModel({BOS: {5: 0.6, 6: 0.4}, 5: {EOS: 1.0}})
    assert beam_search(model, SRC, OPTIONS, beam_size=1)[0].tokens == [5]


def test_constrained_greedy_takes_the_best_allowed_token_at_each_step():
    # The model prefers 7 after 5, but only outputs made of 5, 6 and 9 are allowed.
    table = {
        BOS: {5: 0.6, 6: 0.4},
        5: {7: 0.7, 9: 0.2, EOS: 0.1},
        9: {6: 0.5, EOS: 0.5},
        6: {EOS: 1.0},
    }
    allowed = {5, 6, 9}
    hyp = constrained_greedy(
        ScriptedModel(table),
        SRC,
        OPTIONS,
        accept=lambda toks: set(toks) <= allowed,
        may_end=lambda toks: toks[-1:] == [6],
    )
    assert hyp is not None and hyp.finished
    assert hyp.tokens == [5, 9, 6]  # EOS after 9 is likelier but not allowed there
    assert hyp.score == pytest.approx(np.log([0.6, 0.2, 0.5, 1.0]).sum() / 4)


def test_constrained_greedy_gives_up_when_nothing_is_allowed():
    table = {BOS: {5: 1.0}, 5: {7: 1.0}}
    hyp = constrained_greedy(
        ScriptedModel(table),
        SRC,
        SearchOptions(BOS, EOS, max_len=5),
        accept=lambda toks: False,
        may_end=lambda toks: False,
    )
    assert hyp is None
