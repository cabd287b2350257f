"""Sound-alike rivals of one-word targets: the phonemic paraphasias therapy works on."""

from __future__ import annotations

from therapy_app.exercises import default_content
from therapy_app.naming.sound_alikes import form_of, neighbours
from therapy_app.practice import items
from therapy_app.verdict import NAMING_RANK_MARGIN, RANK_MARGIN


def test_neighbours_are_one_phoneme_away_and_of_the_same_kind_first() -> None:
    assert neighbours("dix")[0] == "six"  # a number for a number, not "dire"
    assert {"chameau", "château"} <= set(neighbours("chapeau"))
    for word in ("dix", "chapeau", "pomme", "maison"):
        own = form_of(word)
        assert own is not None
        for near in neighbours(word):
            other = form_of(near)
            assert other is not None and other.phon != own.phon, (word, near)


def test_homophones_and_unknown_words_are_not_rivals() -> None:
    assert not {"verre", "vers", "vert", "ver"} & set(neighbours("vert"))
    assert neighbours("boulanzerie") == ()


def test_a_one_word_target_gets_rivals_in_every_exercise_and_a_sentence_does_not() -> None:
    pool = default_content().all_sentences()
    word = items.repetition_item("dix", pool, 1)
    assert "six" in word.distractors and word.rank_margin == NAMING_RANK_MARGIN
    picture = items.repetition_item("le chapeau", pool, 1)
    assert {"chapeau", "un chapeau", "le chapeau"} <= set(picture.accepted)
    assert "chameau" in picture.distractors and "un chameau" in picture.distractors
    sentence = items.repetition_item("Je voudrais un café.", pool, 2)
    assert sentence.rank_margin == RANK_MARGIN and sentence.accepted == ("Je voudrais un café.",)
    completion = next(c for c in default_content().completion if c.answer == "pomme")
    answers = [c.answer for c in default_content().completion]
    judged = items.completion_item(completion, answers)
    assert judged.rank_margin == NAMING_RANK_MARGIN
    assert all(" " not in d for d in judged.distractors[:3])
