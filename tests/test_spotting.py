"""Spotting phoneme strings in posteriors: a word anywhere, a sentence's words in order."""

from __future__ import annotations

import numpy as np
import pytest

from therapy_app.asr.phones import INVENTORY
from therapy_app.asr.spotting import fit_sequences, spot

SURE = np.log(0.98)
OTHER = np.log(0.02 / len(INVENTORY))


def frames(reading: str) -> np.ndarray:
    """Posteriors that read ``reading`` frame by frame ("_" for the blank), each frame sure."""
    logp = np.full((len(reading), 1 + len(INVENTORY)), OTHER)
    for t, symbol in enumerate(reading):
        logp[t, 0 if symbol == "_" else 1 + INVENTORY.index(symbol)] = SURE
    return logp


def test_a_word_said_anywhere_costs_nothing_and_one_not_said_costs():
    logp = frames("__ab__kafe___dl__")
    found = spot(logp, ["kafe", "ab", "kafi", "tRu"])
    assert found[0] == pytest.approx(0.0) and found[1] == pytest.approx(0.0)
    # One phoneme wrong: one frame read against its best class.
    assert found[2] == pytest.approx(OTHER - SURE)
    assert found[3] < 3 * (OTHER - SURE) + 1e-6


def test_a_repeated_phoneme_needs_a_blank_between():
    assert spot(frames("_a_a_"), ["aa"])[0] == pytest.approx(0.0)
    # "aa" read as one "a": the second needs a frame against the first.
    assert spot(frames("__a__"), ["aa"])[0] < OTHER - SURE + 1e-6


def test_words_in_order_fit_better_than_the_same_words_reversed():
    logp = frames("_mwa__kafe__")
    cost = fit_sequences(logp, [[("mwa", -15.0), ("kafe", -20.0)]], unexplained=2.0).costs
    reversed_ = fit_sequences(logp, [[("kafe", -20.0), ("mwa", -15.0)]], unexplained=2.0).costs
    assert cost[0] == pytest.approx(0.0)
    # Reversed, one of the two is left out and its speech is unexplained.
    assert reversed_[0] == pytest.approx(max(-15.0 - 3 * 2.0, -20.0 - 4 * 2.0))


def test_a_word_left_out_costs_its_price_and_speech_no_word_explains_costs_a_frame():
    logp = frames("_kafe__sil__")
    sequences = [
        [("vudRe", -25.0), ("kafe", -20.0)],  # "vudRe" not said: left out
        [("kafe", -20.0)],  # "sil" said and explained by nothing: 3 frames
        [("kafe", -20.0), ("sil", -15.0)],
    ]
    found = fit_sequences(logp, sequences, unexplained=2.0).costs
    assert found[0] == pytest.approx(-25.0 - 3 * 2.0)
    assert found[1] == pytest.approx(-3 * 2.0)
    assert found[2] == pytest.approx(0.0)
    # Nothing costs for speech when unexplained speech is free.
    assert fit_sequences(logp, sequences[1:2], unexplained=0.0).costs[0] == pytest.approx(0.0)


def test_a_word_ending_on_the_last_frame_is_complete():
    found = fit_sequences(frames("__kafe"), [[("kafe", -20.0)]], unexplained=2.0).costs
    assert found[0] == pytest.approx(0.0)


def test_sequences_of_different_lengths_are_scored_together_as_alone():
    logp = frames("_ZE_mal_o_do__")
    sequences = [[("mal", -15.0), ("do", -10.0)], [("kafe", -20.0)], [("Z", 0.0), ("o", -5.0)]]
    together = fit_sequences(logp, sequences, unexplained=1.5).costs
    alone = [fit_sequences(logp, [s], unexplained=1.5).costs[0] for s in sequences]
    assert together == pytest.approx(alone)
    assert fit_sequences(logp, [], unexplained=1.5).costs.shape == (0,)


def test_the_speech_outside_the_words_is_counted_on_the_best_path():
    logp = frames("_mwa_2_kafe__sil__")  # "moi euh café cil"
    fits = fit_sequences(
        logp,
        [[("mwa", -15.0), ("kafe", -20.0)], [("kafe", -20.0)], [("vudRe", -25.0), ("kafe", -20.0)]],
        unexplained=2.0,
    )
    assert fits.speech == len("mwa2kafesil")
    # "euh" and "sil" are said outside the first sequence's words; "moi" too for the others.
    assert fits.unexplained.tolist() == [4, 7, 7]
    assert fits.costs[0] == pytest.approx(-4 * 2.0)
    assert fits.costs[2] == pytest.approx(-25.0 - 7 * 2.0)
