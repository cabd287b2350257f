"""A correction may restore words around what the patient said, never drop what was said."""

from __future__ import annotations

import pytest

from therapy_app.correction.preserve import preservation


@pytest.mark.parametrize(
    ("said", "written"),
    [
        ("moi mal dos", "J'ai mal au dos."),  # tonic pronoun -> clitic, words added
        ("moi aller boulanzerie hier", "Je suis allé à la boulangerie hier."),  # repaired
        ("euh ma fille euh venir demain", "Ma fille viendra demain."),  # fillers, irregular
        ("les fleurs est belles", "Les fleurs sont belles."),  # function word swapped
        ("mon chien mon chien malade", "Mon chien est malade."),  # restart said once
        ("ma voisine elle est gentil", "Ma voisine est gentille."),  # dislocation
        ("donne moi verre d'eau", "Donne-moi un verre d'eau."),  # hyphens split
        ("Moi, allez au marché.", "Je vais au marché."),  # two forms of "aller"
    ],
)
def test_faithful_corrections_keep_every_said_word(said: str, written: str) -> None:
    assert preservation(said, written).kept, preservation(said, written)


@pytest.mark.parametrize(
    ("said", "written", "lost"),
    [
        ("il y a trop de monde au supermarché", "Il y a trop monde au supermarché.", ("de",)),
        ("le bus passe toutes les vingt minutes", "Le bus passe aux minutes.",
         ("toutes", "vingt")),
        ("docteur demain dix heures", "Le docteur sera à dix heures.", ("demain",)),
        ("je me lève tôt le matin", "Je me lève l'ôt le matin.", ("tôt",)),
    ],
)  # fmt: skip
def test_a_rewrite_that_drops_a_said_word_is_not_faithful(said, written, lost) -> None:
    result = preservation(said, written)
    assert not result.kept
    assert result.lost == lost
