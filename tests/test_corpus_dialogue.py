"""Dialogue corpus source: phenomena covered, grammatical outputs, determinism, rules on it."""

from __future__ import annotations

import random
import re
from collections import Counter

import pytest

pytest.importorskip("pyrealb")

from pyrealb import NP, VP, D, N, Pro, Q, S, V  # noqa: E402
from pyrealb.Constituent import PyrealbException  # noqa: E402

from models.corrector.corpus import agrammatism as agr  # noqa: E402
from models.corrector.corpus.dialogue import DialogueGenerator, insert_clitic, join  # noqa: E402
from models.corrector.corpus.realise import load_french, realise  # noqa: E402
from models.corrector.corpus.severity import PROFILES, apply_rules  # noqa: E402
from models.corrector.corpus.sources import WEIGHTS  # noqa: E402
from models.corrector.corpus.tokens import Tag, Token, normalize, render  # noqa: E402


@pytest.fixture(scope="module", autouse=True)
def french():
    load_french()


class _Always(random.Random):
    def random(self) -> float:
        return 0.0


def _sample(seed: int, count: int) -> list:
    generator = DialogueGenerator()
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        try:
            sentence = generator.sample(rng)
        except PyrealbException:  # the Mixture rejects these too
            continue
        if sentence is not None:
            out.append(sentence)
    return out


@pytest.fixture(scope="module")
def sentences() -> list:
    return _sample(5, 1500)


def test_dialogue_source_is_registered_with_a_fifth_of_the_mixture():
    assert WEIGHTS["pyrealb-dialogue"] == pytest.approx(0.20)
    assert sum(WEIGHTS.values()) == pytest.approx(1.0)


def test_every_phenomenon_is_generated(sentences):
    assert len(sentences) > 1400  # pyrealb rejects few of them
    phenomena = Counter(s.meta["phenomenon"] for s in sentences)
    assert set(phenomena) == {
        "subordinate",
        "question",
        "negation",
        "clitic",
        "modal",
        "dialogue",
    }
    assert all(n > 80 for n in phenomena.values()), phenomena
    texts = [s.text for s in sentences]
    low = [normalize(t) for t in texts]
    patterns = {
        "quand": r"^quand (?!est-ce)| quand ",
        "parce que": r"parce qu",
        "si": r"^si |^s'il | si | s'il ",
        "que completive": r"^(je|j'|tu|il|elle|on|nous|vous|ils|elles)\S* "
        r"(pense|crois|espère|sais|dis)\S* qu",
        "relative qui": r"\w qui \w",
        "est-ce que": r"est-ce qu",
        "inversion": r"^\w+-(tu|vous|il|elle|nous|on)\b",
        "où": r"^où ",
        "qui a": r"^qui ",
        "combien": r"combien",
        "ne pas": r"\bn(e|') .*\bpas\b",
        "ne plus": r"\bn(e|') .*\bplus\b",
        "ne jamais": r"\bn(e|') .*\bjamais\b",
        "ne rien": r"\bn(e|') .*\brien\b",
        "ne personne": r"\bpersonne\b",
        "en": r"\b(j'|n'|)en |\ben \w",
        "y": r"\by (vais|va|suis|est|allons|aller|passer|rester|retourner|sont)\b|\bj'y\b",
        "modal + clitic": r"\b(peux|peut|veux|veut|dois|doit|vais|va|vas) (me|te|lui|leur|l'|le)\b",
        "venir de": r"\b(viens|vient|venons|venez|viennent|venais|venait) d",
        "il faut": r"\bil (ne )?(faut|faudra|fallait)\b",
        "merci": r"^merci ",
        "rendez-vous": r"rendez-vous",
    }
    for name, pattern in patterns.items():
        assert any(re.search(pattern, t) for t in low), name


def test_outputs_are_well_formed(sentences):
    for s in sentences:
        text = s.text
        assert text[0].isupper() and text[-1] in ".?", text
        assert text.endswith(" ?") == (s.meta["type"] == "question"), text
        assert render(s.tokens) == normalize(text), text
        low = normalize(text)
        # Elision is redone across joined parts.
        assert not re.search(r"\b(je|que|ne|de|me|te|le|la) (a|e|é|i|o|u|y|en\b)", low), text
        assert not re.search(r"\bsi il", low), text
        assert "[[" not in text and "  " not in text
        # An object clitic is never raised over a modal ("je le veux prendre").
        words = [t for t in s.tokens if t.tag != Tag.PUNCT]
        assert not any(
            a.tag == Tag.CLO and b.tag in (Tag.MODAL, Tag.AUX_FUT)
            for a, b in zip(words, words[1:], strict=False)
        ), text
        # Questions never mix est-ce que with inversion.
        assert not ("est-ce que" in low and re.search(r"\w-(tu|vous)\b", low)), text


def test_agreement_on_fixed_patterns():
    tokens = realise(
        S(Pro("je").pe(1), VP(V("pouvoir"), VP(V("donner"), NP(D("le"), N("sel"))).t("b")))
    )
    assert tokens is not None
    me = Token("me", Tag.CLO, "me", {"pe": "1", "n": "s"})
    out = join([[t for t in tokens.tokens if t.tag != Tag.PUNCT]], "?")
    with_me = join([insert_clitic(out.tokens[:-1], me, before_infinitive=True)], "?")
    assert with_me.text == "Je peux me donner le sel ?"
    aider = realise(S(Pro("je").pe(2), VP(V("vouloir"), VP(V("aider")).t("b"))))
    joined = join([insert_clitic(aider.tokens[:-1], me, before_infinitive=True)], "?")
    assert joined.text == "Tu veux m'aider ?"
    assert render(joined.tokens) == "tu veux m'aider"
    # "n'ai" is unelided when a clitic comes between: "je ne l'ai pas".
    neg = realise(S(Pro("je").pe(1), VP(V("manger"))).t("pc").typ({"neg": True}))
    en = Token("en", Tag.CLO, "en")
    assert join([insert_clitic(neg.tokens[:-1], en, False)]).text == "Je n'en ai pas mangé."
    le = Token("le", Tag.CLO, "le", {"g": "m"})
    assert join([insert_clitic(neg.tokens[:-1], le, False)]).text == "Je ne l'ai pas mangé."


def test_same_seed_same_sentences():
    first = [s.text for s in _sample(11, 200)]
    assert first == [s.text for s in _sample(11, 200)]
    assert first != [s.text for s in _sample(12, 200)]


def test_dialogue_sentences_degrade_into_telegraphic_speech(sentences):
    severe = PROFILES["severe"]
    changed = 0
    for i, s in enumerate(sentences[:300]):
        out, fired = apply_rules(s.tokens, severe, random.Random(i))
        changed += render(out) != render(s.tokens)
    assert changed > 280


def test_questions_negation_and_clitics_follow_the_rules():
    # "Est-ce que tu viens ce soir ?" -> "toi venir ce soir"
    come = realise(S(Pro("je").pe(2), VP(V("venir"))), punct="?")
    estce = join([[Token("est-ce", Tag.QW), Token("que", Tag.QW)], come.tokens[:-1]], "?")
    probs = {"qw_drop": 1.0, "subj_drop": 0.0, "subj_tonic": 1.0, "verb_infinitive": 1.0}
    assert render(apply_rules(estce.tokens, probs, _Always())[0]) == "toi venir"
    # Inverted subject: "Veux-tu du café ?" -> "toi veux du café", never "vouloir tu".
    coffee = realise(
        S(Pro("je").pe(2), VP(V("vouloir"), NP(D("un"), N("café")))).typ({"int": "yon"}), punct="?"
    )
    assert render(coffee.tokens) == "veux-tu un café"
    out, fired = agr.subject_clitic(coffee.tokens, _Always(), 0.0, 1.0)
    assert fired == ["subj_tonic"] and render(out) == "toi veux un café"
    assert render(agr.infinitive(out, _Always(), 1.0)[0]) == "toi vouloir un café"
    # "Je n'ai pas dormi" -> "moi pas dormir".
    slept = realise(S(Pro("je").pe(1), VP(V("dormir"))).t("pc").typ({"neg": True}))
    probs = {"subj_tonic": 1.0, "neg_preverbal": 1.0, "aux_drop": 1.0, "adj_default": 0.0}
    out = apply_rules(slept.tokens, probs, _Always())[0]
    assert render(agr.infinitive(out, _Always(), 1.0)[0]) in ("moi pas dormi", "moi pas dormir")
    # "personne" stays after the verb: "je vois personne", not "je personne vois".
    personne = Q("personne")
    personne.role = Tag.NEG
    nobody = realise(S(Pro("je").pe(1), VP(V("voir"), personne)).typ({"neg": ""}))
    assert render(nobody.tokens) == "je ne vois personne"
    assert agr.preverbal_negation(nobody.tokens, _Always(), 1.0)[1] is False
    # A person clitic tagged human becomes a tonic: "je l'ai vu" -> "j'ai vu lui".
    seen = realise(S(Pro("je").pe(1), VP(V("voir"), Pro("moi").pe(3).g("m").c("acc"))).t("pc"))
    tokens = [t.with_form(t.form, human="1") if t.tag == Tag.CLO else t for t in seen.tokens]
    assert render(agr.object_tonic(tokens, _Always(), 1.0)[0]) == "j'ai vu lui"
    # Without the mark (a thing: "je l'ai mangé"), le/la/les are never tonic.
    assert agr.object_tonic(seen.tokens, _Always(), 1.0)[1] is False
