"""Word diff and input normalisation of the corrector (no model needed)."""

from __future__ import annotations

import pytest

from therapy_app.correction.diff import CHANGED, KEPT, REMOVED, RESTORED, display_words, word_diff
from therapy_app.correction.normalize import normalize_text, normalize_word


def _ops(source: str, target: str) -> list[tuple[str, list[str], list[str]]]:
    return [(op.kind, op.source, op.target) for op in word_diff(source, target)]


def test_restored_changed_and_kept_words():
    assert _ops("moi aller boulangerie hier", "Je suis allé à la boulangerie hier.") == [
        (CHANGED, ["moi"], ["Je"]),
        (RESTORED, [], ["suis"]),
        (CHANGED, ["aller"], ["allé"]),
        (RESTORED, [], ["à", "la"]),
        (KEPT, ["boulangerie", "hier"], ["boulangerie", "hier."]),
    ]


def test_paraphasia_is_a_change_and_missing_determiners_are_restored():
    assert _ops("chien manzer viande", "Le chien mange de la viande.") == [
        (RESTORED, [], ["Le"]),
        (KEPT, ["chien"], ["chien"]),
        (CHANGED, ["manzer"], ["mange"]),
        (RESTORED, [], ["de", "la"]),
        (KEPT, ["viande"], ["viande."]),
    ]


def test_fillers_and_repetitions_are_removed():
    assert _ops("euh je je veux euh du pain", "Je veux du pain.") == [
        (REMOVED, ["euh", "je"], []),
        (KEPT, ["je", "veux"], ["Je", "veux"]),
        (REMOVED, ["euh"], []),
        (KEPT, ["du", "pain"], ["du", "pain."]),
    ]


def test_unrelated_words_are_not_paired_as_changes():
    kinds = [op.kind for op in word_diff("chat", "Le chien.")]
    assert CHANGED not in kinds
    assert REMOVED in kinds and RESTORED in kinds


def test_elided_clitic_pairs_with_tonic_pronoun():
    assert _ops("moi manger pain", "J'ai mangé du pain.")[0] == (CHANGED, ["moi"], ["J'ai"])


def test_identical_sentence_is_all_kept_with_display_forms():
    ops = word_diff("il fait beau", "Il fait beau.")
    assert len(ops) == 1 and ops[0].kind == KEPT
    assert ops[0].target == ["Il", "fait", "beau."]


def test_spaced_punctuation_is_glued_to_its_word():
    assert display_words("Tu viens demain ?") == ["Tu", "viens", "demain ?"]
    assert display_words("« Bonjour » !") == ["« Bonjour » !"]
    assert display_words("?") == []
    assert _ops("tu viens", "Tu viens ?") == [(KEPT, ["tu", "viens"], ["Tu", "viens ?"])]


def test_empty_sides():
    assert word_diff("", "") == []
    assert _ops("", "Bonjour.") == [(RESTORED, [], ["Bonjour."])]
    assert _ops("euh", "") == [(REMOVED, ["euh"], [])]


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("Moi, allez au marché.", "moi allez au marché"),
        ("J’ai  mangé\u00a0!", "j'ai mangé"),
        ("Est-ce que tu viens ?", "est-ce que tu viens"),
        ("« Bonjour » - dit-il…", "bonjour dit-il"),
        ("  ?!  ", ""),
        ("CAFÉ", "café"),
        ("cafe\u0301", "café"),  # decomposed accent, as some keyboards send it
        ("Ma soeur a mal au coeur, clin d'oeil", "ma sœur a mal au cœur clin d'œil"),
        ("Le coefficient", "le coefficient"),  # only "oeu"/"oeil" take the ligature
    ],
)
def test_normalize_text_matches_the_corpus_source_side(raw, expected):
    assert normalize_text(raw) == expected


def test_normalize_word_strips_edges_only():
    assert normalize_word("Hier.") == "hier"
    assert normalize_word("aujourd'hui,") == "aujourd'hui"
    assert normalize_word("?") == ""


def test_missing_content_words_counts_lost_words_only():
    from therapy_app.correction.diff import missing_content_words

    assert missing_content_words("ma fille habite à lyon", "Ma fille habite.") == 1
    # Restored grammar, conjugation, paraphasia, tonic pronoun, filler: nothing lost.
    assert (
        missing_content_words("moi aller boulangerie hier", "Je suis allé à la boulangerie hier.")
        == 0
    )
    assert missing_content_words("euh chien manzer viande", "Le chien mange de la viande.") == 0
    assert missing_content_words("pain pain acheter pain", "J'achète du pain.") == 0
    # Irregular forms share few letters with their infinitive: still the same verb.
    assert missing_content_words("moi avoir mal dos", "J'ai mal au dos.") == 0
    assert missing_content_words("moi être fatigué", "Je suis fatigué.") == 0
    assert missing_content_words("moi aller pharmacie", "Je vais à la pharmacie.") == 0
    assert missing_content_words("moi aller pharmacie", "Je vais à la maison.") == 1
