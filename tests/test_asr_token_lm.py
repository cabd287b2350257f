"""The token n-gram model tried on the recogniser's beam: smoothing and reranking."""

from __future__ import annotations

import numpy as np
import pytest
from test_asr_decoding import CROSS, EOT, NO_SPEECH, PROMPT, A, B, ScriptedDecoder, X, trap_table

from models.asr import lm_build
from therapy_app.asr.decoding import SearchSettings, beam_search
from therapy_app.asr.token_lm import TokenLM

VOCAB = 51865


def _tiny_lm(tmp_path, sequences: list[list[int]], min_count: int = 1) -> TokenLM:
    arrays = lm_build.build(sequences, VOCAB, 4, min_count, np.arange(VOCAB, dtype=np.int32))
    path = tmp_path / "lm.npz"
    np.savez_compressed(path, **arrays)
    return TokenLM(path)


@pytest.mark.parametrize("history", [[], [1], [1, 2], [1, 2, 3], [7, 1, 2], [9, 9]])
def test_unpruned_model_is_a_distribution(tmp_path, history):
    lm = _tiny_lm(tmp_path, [[1, 2, 3], [1, 2, 4], [1, 2, 3, 5], [7, 1, 2, 3], [9]])
    everything = np.arange(VOCAB)
    total = float(np.exp(lm.logprobs(history, everything).astype(np.float64)).sum())
    assert total == pytest.approx(1.0, abs=1e-4)


def test_counts_decide_what_follows(tmp_path):
    lm = _tiny_lm(tmp_path, [[1, 2, 3]] * 5 + [[1, 2, 4]])
    three, four, unseen = lm.logprobs([1, 2], np.asarray([3, 4, 8]))
    assert three > four > unseen
    assert lm.sentence_logprob([1, 2, 3]) > lm.sentence_logprob([1, 2, 4])


def test_reranking_prefers_what_the_language_model_knows(tmp_path):
    # Acoustically [B, W] wins (0.38 against 0.21 for [A, X], see trap_table);
    # a language model that has only ever seen "A X" turns the choice round.
    lm = _tiny_lm(tmp_path, [[A, X]] * 20)
    plain = SearchSettings(eot=EOT, beam_size=3)
    with_lm = SearchSettings(eot=EOT, beam_size=3, lm=lm, lm_weight=1.0)
    assert (
        beam_search(ScriptedDecoder(trap_table), CROSS, PROMPT, 0, NO_SPEECH, plain).best.tokens[0]
        == B
    )
    best = beam_search(ScriptedDecoder(trap_table), CROSS, PROMPT, 0, NO_SPEECH, with_lm).best
    assert best.tokens == [A, X]
    # The transcript's confidence stays the acoustic one.
    assert best.sum_logprob == pytest.approx(np.log(0.6 * 0.35), abs=1e-4)
