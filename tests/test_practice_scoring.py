"""Scoring rule, stars and the cueing hierarchy (pure functions, no model)."""

from __future__ import annotations

from therapy_app.analysis.answers import best_wer
from therapy_app.exercises import CompletionItem
from therapy_app.practice.cues import completion_cue, first_sounds, repetition_cue
from therapy_app.practice.items import closest_in_length
from therapy_app.practice.scoring import stars_for
from therapy_app.written import as_sentence


def test_best_wer_takes_the_closest_accepted_form_and_answers_within_sentences():
    wer, form = best_wer("un café", ["café", "un café"])
    assert (wer, form) == (0.0, "un café")
    assert best_wer("c'est une pomme", ["pomme"], allow_within=True) == (0.0, "pomme")
    assert best_wer("c'est une pomme", ["pomme"])[0] > 0.25
    assert best_wer("", ["pomme"])[0] is None


def test_stars():
    assert stars_for(True, 0.0, None, cue_level=0) == 3
    assert stars_for(True, 0.0, None, cue_level=2) == 2
    assert stars_for(False, 0.5, None, cue_level=0) == 1
    assert stars_for(False, None, None, cue_level=0) == 0


def test_candidates_are_written_like_speech_transcripts():
    assert as_sentence("pomme") == "Pomme."
    assert as_sentence("Il pleut !") == "Il pleut !"


def test_repetition_cues_get_stronger():
    sentence = "J'ai mal à la tête."
    levels = [repetition_cue(sentence, level) for level in range(4)]
    assert [c.level for c in levels] == [0, 1, 2, 3]
    assert levels[1].rate_wpm < levels[0].rate_wpm
    assert levels[2].pause_ms > 0 and "·" in levels[2].display
    assert levels[3].spoken == "J'ai" and "J'ai" in levels[3].message


def test_completion_cues_end_with_the_answer():
    item = CompletionItem("pomme", "C'est une …", "pomme")
    assert first_sounds("pomme") == "po"
    assert first_sounds("clé") == "c"
    assert "po…" in completion_cue(item, 2).display
    assert completion_cue(item, 3).spoken == "pomme"


def test_distractors_have_similar_length_and_exclude_the_target():
    pool = ["Bonjour.", "Il pleut.", "Je vais à la pharmacie.", "Merci beaucoup."]
    chosen = closest_in_length("Bonsoir.", pool, 2)
    assert chosen == ["Bonjour.", "Il pleut."]
    assert "Bonjour." not in closest_in_length("Bonjour.", pool)
