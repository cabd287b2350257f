"""Gender agreement of first-person sentences: what changes, and what must never change."""

from __future__ import annotations

import pytest

from therapy_app.phrases.agreement import agree, feminine, masculine
from therapy_app.phrases.model import Gender

F, M, U = Gender.FEMININE, Gender.MASCULINE, Gender.UNSAID

# (as written, feminine, masculine)
AGREED = [
    ("Je suis allé au marché.", "Je suis allée au marché.", "Je suis allé au marché."),
    ("je suis content", "je suis contente", "je suis content"),
    ("Je suis fatigué.", "Je suis fatiguée.", "Je suis fatigué."),
    ("Je me suis levé tôt.", "Je me suis levée tôt.", "Je me suis levé tôt."),
    ("Je suis tombé dans l'escalier.", "Je suis tombée dans l'escalier.", None),
    ("Je ne suis pas encore prêt.", "Je ne suis pas encore prête.", None),
    ("je suis pas content", "je suis pas contente", None),
    ("J'étais fatigué hier.", "J'étais fatiguée hier.", None),
    ("Je serai heureux de venir.", "Je serai heureuse de venir.", None),
    ("J’ai été opéré du genou.", "J’ai été opérée du genou.", None),
    ("Je n'ai pas été invité.", "Je n'ai pas été invitée.", None),
    ("Je me sens fatigué.", "Je me sens fatiguée.", None),
    ("Je suis un peu nerveux.", "Je suis un peu nerveuse.", None),
    ("Je suis content et fier.", "Je suis contente et fière.", None),
    ("Je suis tout seul.", "Je suis toute seule.", None),
    ("Je suis né à Lyon.", "Je suis née à Lyon.", None),
    ("Moi, je suis parti.", "Moi, je suis partie.", None),
    ("Je me suis endormi.", "Je me suis endormie.", None),
    ("Je suis hospitalisé.", "Je suis hospitalisée.", None),  # rare: a regular -é participle
    ("Je suis gentil, je suis vieux.", "Je suis gentille, je suis vieille.", None),
    ("JE SUIS ALLÉ", "JE SUIS ALLÉE", None),
    # Written markers: resolved for a known gender.
    ("Je suis allé(e) chez le médecin.", "Je suis allée chez le médecin.",
     "Je suis allé chez le médecin."),
    ("Je suis heureux(se) de vous voir.", "Je suis heureuse de vous voir.",
     "Je suis heureux de vous voir."),
    ("Je suis prêt·e.", "Je suis prête.", "Je suis prêt."),
    # A feminine sentence for a man (a list written for another patient).
    ("Je suis allée au marché.", "Je suis allée au marché.", "Je suis allé au marché."),
    ("Je suis contente et fière.", None, "Je suis content et fier."),
    ("Je suis toute seule.", None, "Je suis tout seul."),
    ("Je suis partie hier.", None, "Je suis parti hier."),
]  # fmt: skip

UNCHANGED = [
    "Il est allé au marché.",  # not first person
    "Tu es fatigué ?",
    "J'ai mangé une pomme.",  # avoir
    "Je suis malade.",  # invariable
    "Je suis triste.",
    "Je suis calme.",
    "Je suis médecin.",  # a noun
    "Je suis d'accord.",
    "Je suis en retard.",
    "Je suis là.",
    "Je suis une femme.",
    "Je me suis cassé la jambe.",  # reflexive with its object after
    "Je me suis lavé les mains.",
    "Je me suis fait mal.",
    "Je me suis trompé de bus.",
    "Je me suis rendu compte.",
    "Je voudrais un café.",
    "Je suis zorbulé.",  # unknown word: left as it is
    "",
]


@pytest.mark.parametrize(("written", "female", "male"), AGREED)
def test_first_person_attributes_agree(written: str, female: str | None, male: str | None) -> None:
    if female is not None:
        assert agree(written, F) == female
    if male is not None:
        assert agree(written, M) == male
    assert agree(written, U) == written  # never invents a gender, "(e)" kept


@pytest.mark.parametrize("written", UNCHANGED)
@pytest.mark.parametrize("gender", list(Gender))
def test_what_does_not_agree_stays(written: str, gender: Gender) -> None:
    assert agree(written, gender) == written


def test_word_forms() -> None:
    assert [feminine(w) for w in ("allé", "heureux", "premier", "actif", "beau", "mort")] == [
        "allée",
        "heureuse",
        "première",
        "active",
        "belle",
        "morte",
    ]
    assert feminine("malade") is None and feminine("allée") is None and feminine("zorbul") is None
    assert [masculine(w) for w in ("allée", "heureuse", "belle", "sortie")] == [
        "allé",
        "heureux",
        "beau",
        "sorti",
    ]
    assert masculine("malade") is None and masculine("allé") is None and masculine("une") is None


def test_agreement_is_idempotent() -> None:
    for written, *_ in AGREED:
        for gender in Gender:
            once = agree(written, gender)
            assert agree(once, gender) == once
