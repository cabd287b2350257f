"""Corpus vocabulary fixes: ligatures, plural-only nouns, pyrealb participles, everyday scenes."""

from __future__ import annotations

import random
from collections import Counter

import pytest

pytest.importorskip("pyrealb")

from pyrealb import NP, VP, A, D, N, Pro, S  # noqa: E402
from pyrealb.Constituent import PyrealbException  # noqa: E402

from models.corrector.corpus.everyday import EverydayGenerator  # noqa: E402
from models.corrector.corpus.lexicon import lemmas  # noqa: E402
from models.corrector.corpus.phrases import category, noun_phrase, resolve_noun, verb  # noqa: E402
from models.corrector.corpus.realise import load_french, realise  # noqa: E402


@pytest.fixture(scope="module", autouse=True)
def french():
    load_french()


def test_ligature_words_reach_the_corpus_spelled_with_oe_ligature():
    noun = resolve_noun("sœur")
    assert noun is not None
    realised = realise(S(noun_phrase(random.Random(0), noun, "poss"), VP(verb("venir", False))))
    assert realised.text == "Ma sœur vient."
    assert realised.tokens[1].form == "sœur"
    assert "cœur" in {
        t.form
        for t in realise(S(Pro("je").pe(1), VP(verb("aimer"), NP(D("le"), N("coeur"))))).tokens
    }
    broad = {e.lemma for e in lemmas("N", 1.0)}
    assert {"soeur", "coeur", "oeil"} <= broad  # Lexique's "sœur" maps onto pyrealb's lemma


def test_plural_only_nouns_are_always_plural():
    lunettes = resolve_noun("lunettes")
    assert lunettes is not None and lunettes.plural_only
    realised = realise(
        S(noun_phrase(random.Random(0), lunettes, "poss"), VP(verb("être"), A("cassé")))
    )
    assert realised.text == "Mes lunettes sont cassées."
    realised = realise(
        S(Pro("je").pe(1), VP(verb("chercher"), noun_phrase(random.Random(0), lunettes, "poss")))
    )
    assert realised.text == "Je cherche mes lunettes."


def test_missing_everyday_nouns_were_added_to_the_lexicon():
    for field in ("FAMILY", "ANIMALS", "CLOTHES", "FOOD_COUNT"):
        assert category(field)
    words = {n.word for n in category("FAMILY")} | {n.word for n in category("CLOTHES")}
    assert {"copine", "bébé", "petits-enfants", "pull"} <= words


@pytest.mark.parametrize(("lemma", "expected"), [("sortir", "sortis"), ("partir", "partis")])
def test_masculine_plural_participles_are_fixed(lemma, expected):
    realised = realise(S(Pro("je").pe(3).n("p"), VP(verb(lemma, False))).t("pc"))
    assert realised.text == f"Ils sont {expected}."


def test_everyday_generator_covers_its_scenes():
    generator = EverydayGenerator()
    rng = random.Random(7)
    frames: Counter[str] = Counter()
    texts = []
    for _ in range(600):
        try:
            sentence = generator.sample(rng)
        except PyrealbException:  # an adjective pyrealb lacks: the Mixture rejects it too
            continue
        if sentence is not None:
            frames[sentence.meta["frame"]] += 1
            texts.append(sentence.text)
    assert sum(frames.values()) > 450  # pyrealb rejects few of them
    assert any(
        " mille " in t or t.split()[-1].startswith(("janvier", "mars", "juillet")) for t in texts
    )
    assert set(frames) >= {
        "animal_does",
        "thing_is",
        "clock",
        "age",
        "town",
        "dative",
        "accusative",
    }
    assert any(" heures" in t for t in texts)
    assert any(t.endswith(" ans.") or t.endswith(" ans ?") for t in texts)
    assert all(t[0].isupper() and t[-1] in ".?!" for t in texts)
