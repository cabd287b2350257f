"""Near variants of a sentence to repeat: the errors the verdict must tell from the target."""

from __future__ import annotations

from therapy_app.exercises import default_content
from therapy_app.naming.bank import default_bank
from therapy_app.practice.events import ExerciseKind
from therapy_app.practice.judging import item_for
from therapy_app.practice.variants import MAX_VARIANTS, sentence_variants


def test_a_word_left_out_and_a_sound_alike_word_are_variants() -> None:
    found = sentence_variants("mardi dix novembre")
    assert {"mardi novembre", "dix novembre", "mardi dix"} <= set(found)
    assert "mardi six novembre" in found
    assert "mardi dix novembre" not in found


def test_function_words_are_left_out_but_not_substituted() -> None:
    found = sentence_variants("Je voudrais un café.")
    assert "Je voudrais café." in found  # the determiner dropped: agrammatism
    assert any(v.endswith("cahier.") or v.endswith("carré.") for v in found)
    assert not any(v.startswith("Me ") or v.startswith("Te ") for v in found)
    # Spoken French drops « ne »: that is no error.
    assert "Je sais pas." not in sentence_variants("Je ne sais pas.")


def test_a_single_word_has_no_sentence_variants_and_long_ones_are_capped() -> None:
    assert sentence_variants("bonjour") == ()
    assert sentence_variants("  Pomme. ") == ()
    long = sentence_variants("Le chat noir dort sur le grand canapé du salon ce matin.")
    assert 0 < len(long) <= MAX_VARIANTS


def test_a_sentence_to_repeat_carries_its_variants_and_a_picture_word_does_not() -> None:
    content, bank = default_content(), default_bank()
    sentence, _ = item_for(ExerciseKind.REPETITION, "mardi dix novembre", content, bank)
    assert "mardi six novembre" in sentence.near
    word, _ = item_for(ExerciseKind.REPETITION, "le chapeau", content, bank)
    assert word.near == ()  # judged against its sound-alikes as a picture name


def test_no_variant_is_listed_twice() -> None:
    # Either « très » left out gives the same sentence: it is scored once.
    found = sentence_variants("Il fait très très froid.")
    assert found.count("Il fait très froid.") == 1
    assert len(found) == len(set(found)), found
