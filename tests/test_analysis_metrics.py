"""Metrics on fixed French examples, with expected values computed by hand."""

from __future__ import annotations

import random

import pytest

from therapy_app.analysis import closed_class, metrics
from therapy_app.analysis.metrics import (
    attempt_metrics,
    function_word_ratio,
    mean_length_of_utterance,
    speech_seconds,
    verb_count,
    word_count,
    word_error_rate,
    word_errors,
    words,
    words_per_minute,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Euh, l'homme m'a dit-il... aujourd'hui",
            ["l'", "homme", "m'", "a", "dit", "il", "aujourd'hui"],
        ),
        ("J\u2019ai mangé une pomme.", ["j'", "ai", "mangé", "une", "pomme"]),
        ("Qu'est-ce que c'est ?", ["qu'", "est", "ce", "que", "c'", "est"]),
        ("A-t-il vu peut-être quelqu'un", ["a", "il", "vu", "peut-être", "quelqu'un"]),
        ("euh euuuh HUM le chien... mmh", ["le", "chien"]),
        ("« Bonjour » 'Paul'", ["bonjour", "paul"]),
        ("", []),
    ],
)
def test_words(text: str, expected: list[str]) -> None:
    assert words(text) == expected


@pytest.mark.parametrize(
    ("text", "count", "ratio", "verbs"),
    [
        # j' ai une = 3 closed of 5; "ai mangé" is one verb (auxiliary + participle).
        ("J'ai mangé une pomme.", 5, 3 / 5, 1),
        # le sur le = 3 of 6; dort.
        ("Le chat dort sur le lit", 6, 3 / 6, 1),
        # je du et de l' = 5 of 10; veux manger boire.
        ("je veux manger du pain et boire de l'eau", 10, 5 / 10, 3),
        # la est = 2 of 4; "porte" is a noun after "la", "est fermée" one verb.
        ("la porte est fermée", 4, 2 / 4, 1),
        # je la = 2 of 3; "la" is a clitic after a subject, "porte" a verb.
        ("je la porte", 3, 2 / 3, 1),
        # il la = 2 of 4; ouvre.
        ("il ouvre la porte", 4, 2 / 4, 1),
        # all six are closed-class; two copulas.
        ("qu'est-ce que c'est", 6, 1.0, 2),
        # il n' a pas = 4 of 6; "n'a pas encore mangé" one verb.
        ("il n'a pas encore mangé", 6, 4 / 6, 1),
        # il s' est = 3 of 5; "levé" after the auxiliary, not in the lexicon.
        ("il s'est levé tôt", 5, 3 / 5, 1),
        # le du = 2 of 5; "boulanger" is a listed noun in -er, "vend" a verb.
        ("le boulanger vend du pain", 5, 2 / 5, 1),
        # the copula alone is a verb.
        ("il est grand", 3, 2 / 3, 1),
        # agrammatic telegraphic speech: no function word, one infinitive.
        ("pain... acheter", 2, 0.0, 1),
        # fillers only: no word at all.
        ("euh... hum", 0, None, 0),
    ],
)
def test_counts_ratio_and_verbs(text: str, count: int, ratio: float | None, verbs: int) -> None:
    assert word_count(text) == count
    if ratio is None:
        assert function_word_ratio(text) is None
    else:
        assert function_word_ratio(text) == pytest.approx(ratio)
    assert verb_count(text) == verbs


def test_closed_class_list_covers_the_documented_categories() -> None:
    for word in [
        "le",
        "une",
        "des",
        "ces",
        "à",
        "dans",
        "et",
        "mais",
        "que",
        "je",
        "lui",
        "y",
        "en",
        "suis",
        "ont",
        "avait",
        "ne",
        "pas",
        "jamais",
        "l'",
        "qu'",
    ]:
        assert word in closed_class.CLOSED_CLASS_WORDS, word
    for content in ["chat", "manger", "trois", "maison", "euh"]:
        assert content not in closed_class.CLOSED_CLASS_WORDS, content


def test_mean_length_of_utterance() -> None:
    assert mean_length_of_utterance([3, 5, 10]) == 6.0
    assert mean_length_of_utterance([]) is None


def test_words_per_minute_uses_speech_time_without_pauses() -> None:
    # 10 s recording, half of it pause -> 5 s of speech; 10 words -> 120 wpm.
    assert speech_seconds(10.0, 0.5) == 5.0
    assert words_per_minute(10, speech_seconds(10.0, 0.5)) == pytest.approx(120.0)
    assert speech_seconds(10.0, None) == 10.0
    assert words_per_minute(10, 0.0) is None
    assert words_per_minute(3, None) is None


@pytest.mark.parametrize(
    ("reference", "hypothesis", "subs", "dels", "ins", "wer", "accuracy"),
    [
        ("le chat dort sur le lit", "le chien dort le lit bleu", 1, 1, 1, 0.5, 0.5),
        ("Le chat, dort.", "le chat dort", 0, 0, 0, 0.0, 1.0),
        ("le chat", "", 0, 2, 0, 1.0, 0.0),
        ("le chat", "un gros chien noir", 2, 0, 2, 2.0, 0.0),
        ("l'eau", "la eau", 1, 0, 0, 0.5, 0.5),
        ("je veux du pain", "euh je veux euh pain", 0, 1, 0, 0.25, 0.75),
    ],
)
def test_word_error_rate(
    reference: str, hypothesis: str, subs: int, dels: int, ins: int, wer: float, accuracy: float
) -> None:
    errors = word_errors(reference, hypothesis)
    assert (errors.substitutions, errors.deletions, errors.insertions) == (subs, dels, ins)
    assert errors.wer == pytest.approx(wer)
    assert errors.accuracy == pytest.approx(accuracy)
    assert metrics.repetition_accuracy(reference, hypothesis) == pytest.approx(accuracy)


def test_word_error_rate_needs_a_reference() -> None:
    with pytest.raises(ValueError):
        word_error_rate("euh", "le chat")


def test_word_error_rate_agrees_with_jiwer() -> None:
    jiwer = pytest.importorskip("jiwer")
    vocabulary = "le la chat chien dort mange pain eau je tu il".split()
    rng = random.Random(4)
    for _ in range(300):
        ref = " ".join(rng.choice(vocabulary) for _ in range(rng.randint(1, 8)))
        hyp = " ".join(rng.choice(vocabulary) for _ in range(rng.randint(0, 8)))
        expected = jiwer.wer(ref, hyp) if hyp else 1.0
        assert word_error_rate(ref, hyp) == pytest.approx(expected), (ref, hyp)


def test_attempt_metrics_scores_repetition_or_utterance() -> None:
    # No repetition: the utterance itself is compared with the reference.
    own = attempt_metrics("le chien dort", 3.0, 0.0, "le chat dort", None)
    assert own.word_count == 3
    assert own.wer == pytest.approx(1 / 3)
    assert own.words_per_minute == pytest.approx(60.0)
    # With a repetition, it is the repetition that is scored.
    rep = attempt_metrics("chat", 1.0, None, "le chat dort", "le chat dort")
    assert rep.wer == 0.0 and rep.accuracy == 1.0
    assert rep.word_count == 1
    # No reference: no WER.
    free = attempt_metrics("le chat", 1.0, None, None, None)
    assert free.wer is None and free.accuracy is None
