"""Phonemes of a text and the CTC score of frames against them (numpy, no model)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from therapy_app.asr.phones import (
    INVENTORY,
    best_logprob,
    best_logprobs,
    ctc_logprobs,
    free_logprob,
    greedy,
    indices,
    label_of,
    variants,
)


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("Le chapeau.", "l°Sapo"),
        ("un chameau", "1Samo"),
        ("l'école", "lekOl"),  # elided article split at the apostrophe
        ("aujourd'hui", "oZuRd8i"),  # a word with an apostrophe stays whole
        ("Quatre-vingts.", "katR°v5"),
        ("dis-moi", "dimwa"),  # hyphenated, not in the lexicon: its parts
        ("La théière.", "latejER"),  # a rare word of the picture bank
    ],
)
def test_texts_are_read_as_the_lexicons_phonemes(text: str, label: str) -> None:
    assert label_of(text) == label


def test_a_text_with_an_unknown_word_has_no_pronunciation() -> None:
    assert label_of("le chefau") is None
    assert label_of("") is None
    assert label_of(" . ") is None


def test_every_phoneme_of_a_label_is_in_the_inventory() -> None:
    label = label_of("Je voudrais un pain au chocolat et une baguette, s'il vous plaît.")
    assert label is not None
    assert all(p in INVENTORY for p in label)
    assert indices("Sa") == [INVENTORY.index("S") + 1, INVENTORY.index("a") + 1]


def test_a_schwa_may_be_kept_or_dropped() -> None:
    assert variants("sam°di") == ["sam°di", "samdi"]
    assert variants("Sapo") == ["Sapo"]
    assert len(variants("l°s°m°n°")) <= 8


def _brute_force(logp: np.ndarray, label: str, classes: list[int]) -> float:
    """Sum over every frame-level path whose collapse is the label."""
    target = indices(label)
    total = -math.inf
    for path in itertools.product(classes, repeat=logp.shape[0]):
        collapsed = [c for c, _ in itertools.groupby(path) if c != 0]
        if collapsed == target:
            total = np.logaddexp(total, sum(logp[t, c] for t, c in enumerate(path)))
    return float(total)


@pytest.mark.parametrize("label", ["S", "Sa", "aa", "SaS"])
def test_the_forward_algorithm_sums_every_alignment(label: str) -> None:
    rng = np.random.default_rng(7)
    classes = [0, INVENTORY.index("S") + 1, INVENTORY.index("a") + 1]
    logp = np.full((5, 1 + len(INVENTORY)), -np.inf)
    logp[:, classes] = np.log(rng.dirichlet(np.ones(3), size=5))
    assert ctc_logprobs(logp, [label])[0] == pytest.approx(_brute_force(logp, label, classes))


def test_a_label_longer_than_the_frames_cannot_be_read() -> None:
    logp = np.log(np.full((2, 1 + len(INVENTORY)), 1 / (1 + len(INVENTORY))))
    assert ctc_logprobs(logp, ["aa"]) == [-np.inf]  # a repeated phoneme needs a blank between


def test_frames_that_say_a_word_fit_it_better_than_its_sound_alike() -> None:
    # Frames that plainly say "Sapo" (one phoneme per frame, blanks between).
    said = [0, *[INVENTORY.index(p) + 1 for p in "Sapo"], 0]
    logp = np.full((len(said), 1 + len(INVENTORY)), np.log(0.01 / len(INVENTORY)))
    for t, c in enumerate(said):
        logp[t, c] = np.log(0.99)
    assert greedy(logp) == "Sapo"
    assert best_logprob(logp, "Sapo") > best_logprob(logp, "Samo") + 3
    assert best_logprob(logp, "Sapo") == pytest.approx(free_logprob(logp), abs=0.05)


def test_labels_scored_together_score_as_one_by_one() -> None:
    rng = np.random.default_rng(3)
    logp = np.log(rng.dirichlet(np.full(1 + len(INVENTORY), 0.3), size=60))
    labels = ["l°Sapo", "Samo", "a", "sam°di", "dis", "1pwavR§"]
    together = ctc_logprobs(logp, labels)
    # Padding a short label to the longest one's states changes nothing.
    assert together == pytest.approx([ctc_logprobs(logp, [label])[0] for label in labels])
    assert best_logprobs(logp, labels) == pytest.approx([best_logprob(logp, x) for x in labels])
    assert ctc_logprobs(logp, []) == []
