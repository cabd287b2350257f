"""The keep rule's grammar cues: plain errors are seen, correct French is left alone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from therapy_app.correction.grammar_cues import find_cues, looks_ungrammatical

DATA = Path(__file__).parent / "data"


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("les enfants est partis", "plural_subject_singular_verb"),
        ("mes petits enfants va bien", "plural_subject_singular_verb"),
        ("il manger pomme", "bare_verb_after_subject"),
        ("je tombé escalier", "bare_verb_after_subject"),
        ("il pleuvoir", "bare_verb_after_subject"),
        ("je partir demain", "bare_verb_after_subject"),
        ("elle prendre bus", "bare_verb_after_subject"),
        ("elle parti sans dire au revoir", "bare_verb_after_subject"),
        ("je perdu clés", "bare_verb_after_subject"),
        ("moi aller boulangerie", "tonic_subject"),
        ("j'ai oublié mon parapuie", "deformed_word"),
        ("je voudrais une tasse de socolat", "deformed_word"),
    ],
)
def test_a_plain_error_is_seen(text: str, kind: str):
    assert kind in {cue.kind for cue in find_cues(text)}


@pytest.mark.parametrize(
    "text",
    [
        "Moi, je vais bien.",
        "Moi aussi.",
        "Pour nous aider, il faut venir.",
        "Ces jours-ci il fait froid.",
        "Les enfants sont partis.",
        "Il est né en mai.",
        "Il entre et je montre le chemin.",  # present forms in -re
        "Je sors, il va venir.",
        "Il lui parle, elle aussi.",
        "Elle a bu du thé hier.",
        "Ma sœur habite à Lyon.",  # a ligature, a name the corrector knows
        "Je me lave les mains dans les escaliers.",  # plain words missing from its vocabulary
        "Bonjour Wojciech.",  # a name close to no French word
    ],
)
def test_correct_french_shows_no_cue(text: str):
    assert not looks_ungrammatical(text)


def _references(name: str) -> list[str]:
    lines = (DATA / name).read_text(encoding="utf-8").splitlines()
    return [ref for line in lines if line.strip() for ref in json.loads(line)["refs"]]


def test_no_reference_of_the_hand_written_sets_shows_a_cue():
    # The references are grammatical by construction: a cue on one of them would
    # stop a correct sentence from being kept.
    names = (
        "aphasia_eval.jsonl",
        "aphasia_eval_blind.jsonl",
        "aphasia_eval_heldout.jsonl",
        "aphasia_eval_everyday_dev.jsonl",
    )
    flagged = [ref for name in names for ref in _references(name) if looks_ungrammatical(ref)]
    assert flagged == []


def test_cues_rarely_fire_on_natural_sentences():
    # The natural blind set is never read item by item: a count, never the sentences.
    # Translated text is not ours; at the time it was frozen one reference of 200 had a cue.
    refs = _references("aphasia_eval_natural.jsonl")
    flagged = sum(looks_ungrammatical(ref) for ref in refs)
    assert flagged <= len(refs) // 100, f"{flagged} of {len(refs)} references show a cue"


def test_an_almost_correct_input_is_corrected_not_kept():
    from therapy_app.correction import Corrector

    corrector = Corrector.load()  # committed in resources/, never skipped
    result = corrector.correct("les enfants est partis")
    assert result.best == "Les enfants sont partis."
    # The patient's own words stay offered.
    assert "Les enfants est partis." in [a.text for a in result.alternatives]
