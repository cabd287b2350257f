"""Exercise content: counts, levels, completion items, validation errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from therapy_app.errors import TherapyAppError
from therapy_app.exercises import (
    BLANK,
    display_word_count,
    load_content,
)


def test_repetition_has_100_sentences_in_three_graded_levels():
    content = load_content()
    assert [lv.level for lv in content.levels] == [1, 2, 3]
    assert len(content.all_sentences()) >= 100
    bounds = {1: (1, 4), 2: (5, 7), 3: (8, 12)}
    for level in content.levels:
        assert len(level.sentences) >= 20
        low, high = bounds[level.level]
        for sentence in level.sentences:
            assert low <= display_word_count(sentence) <= high, sentence
            assert sentence[-1] in ".!?", sentence
    assert "Je voudrais un café." in content.all_sentences()


def test_completion_has_40_items_with_one_blank_and_answers():
    items = load_content().completion
    assert len(items) >= 40
    assert len({item.id for item in items}) == len(items)
    for item in items:
        assert item.cue.count(BLANK) == 1
        assert item.answer and item.accepted[0] == item.answer
        assert BLANK not in item.completed()
    cafe = next(i for i in items if i.answer == "café")
    assert cafe.cue == "Le matin, je bois un …"
    assert cafe.completed() == "Le matin, je bois un café."
    eau = next(i for i in items if i.answer == "eau")
    assert eau.completed() == "Les poissons vivent dans l'eau."


def test_word_count_keeps_elisions_and_hyphens_as_one_word():
    assert display_word_count("J'ai mal à la tête.") == 5
    assert display_word_count("Pouvez-vous fermer la fenêtre ?") == 4


def _write(folder: Path, repetition: dict, completion: dict) -> None:
    (folder / "repetition.json").write_text(json.dumps(repetition), encoding="utf-8")
    (folder / "completion.json").write_text(json.dumps(completion), encoding="utf-8")


def test_a_sentence_too_long_for_its_level_is_refused(tmp_path: Path):
    level = {"level": 1, "title": "Courtes", "min_words": 1, "max_words": 2}
    _write(
        tmp_path,
        {"format_version": 1, "levels": [{**level, "sentences": ["Je vais au marché."]}]},
        {"format_version": 1, "items": [{"id": "a", "cue": "Un …", "answer": "deux"}]},
    )
    with pytest.raises(TherapyAppError) as info:
        load_content(tmp_path)
    assert "exercices" in info.value.french()


def test_a_missing_file_gives_a_french_error(tmp_path: Path):
    with pytest.raises(TherapyAppError) as info:
        load_content(tmp_path)
    assert info.value.french().startswith("Les exercices")
