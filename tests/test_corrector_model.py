"""The shipped corrector-fr model: keeps correct sentences, fixes typical agrammatism."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from therapy_app import paths
from therapy_app.correction import Corrector
from therapy_app.correction.diff import KEPT
from therapy_app.correction.normalize import normalize_text

SHIPPED = paths.resources_dir() / "models" / "corrector-fr"

# Already grammatical (as the speech recogniser writes them): must come back unchanged.
CORRECT = [
    "je vais bien",
    "il fait beau aujourd'hui",
    "je voudrais un verre d'eau",
    "mon fils vient dimanche",
    "nous avons mangé au restaurant",
    "elle est allée chez le médecin",
    "le chat dort sur le canapé",
    "j'aime beaucoup le chocolat",
    "il fait froid dehors",
    "je ne comprends pas",
    "ma fille habite à lyon",
    "on va au marché demain",
    "j'ai mal au dos",
    "les enfants jouent dans le jardin",
    "je prends le bus tous les matins",
    "nous allons au cinéma ce soir",
    "il est allé au cinéma",
    "ce n'est pas grave",
    "je lis le journal le matin",
    "elle fait les courses",
    "je suis content",
    "tu veux du café",
]

# Telegraphic utterances and the corrections accepted for each.
FIXES = {
    "moi content": ["Je suis content.", "Je suis contente."],
    "je veux pas": ["Je ne veux pas."],
    "moi pas comprendre": ["Je ne comprends pas.", "Je n'ai pas compris."],
    "il faut acheté du pain": ["Il faut acheter du pain."],
    "ils mange du pain": ["Ils mangent du pain."],
}


# Cases the shipped model gets wrong, kept visible rather than removed: strict
# xfail, so a retrained model that fixes one makes the test say so. Limitations
# are discussed in resources/models/corrector-fr/MODEL_CARD.md.
# "moi pas comprendre" (the futur proche guessed) was one until the unsaid-meaning
# order (decision 0028).
KNOWN_FAILURES: dict[str, str] = {}


def _cases(values: list[str] | list[tuple[str, list[str]]]) -> list[object]:
    out: list[object] = []
    for value in values:
        key = value if isinstance(value, str) else value[0]
        reason = KNOWN_FAILURES.get(key)
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        out.append(
            pytest.param(value, marks=marks)
            if isinstance(value, str)
            else pytest.param(*value, marks=marks)
        )
    return out


@pytest.fixture(scope="module")
def corrector() -> Corrector:
    if not (SHIPPED / "model.json").is_file():
        pytest.fail(f"the shipped model is missing: {SHIPPED}")
    return Corrector.load(provider="cpu", model_dir=SHIPPED)


def _same(a: str, b: str) -> bool:
    return normalize_text(a) == normalize_text(b)


def test_shipped_model_files_match_their_sidecar():
    from therapy_app.model_store import load_model

    bundle = load_model("corrector-fr")
    assert bundle.verify() == []
    total = sum(entry["bytes"] for entry in bundle.meta["files"].values())
    assert total < 25_000_000, "the shipped corrector must stay small enough to commit"


@pytest.mark.parametrize("sentence", _cases(CORRECT))
def test_correct_sentences_come_back_unchanged(corrector: Corrector, sentence: str):
    result = corrector.correct(sentence, beam_size=1)
    assert _same(result.best, sentence), result.best
    assert result.best[0].isupper() and result.best[-1] in ".?!"
    assert all(op.kind == KEPT for op in result.diff)


@pytest.mark.parametrize(("utterance", "references"), _cases(sorted(FIXES.items())))
def test_typical_agrammatism_is_fixed(corrector: Corrector, utterance: str, references: list[str]):
    result = corrector.correct(utterance, beam_size=3)
    assert any(_same(result.best, ref) for ref in references), result.best


def test_beam_gives_distinct_ranked_alternatives(corrector: Corrector):
    result = corrector.correct("moi aller boulangerie hier", beam_size=3)
    texts = [a.text for a in result.alternatives]
    assert result.best == texts[0] and 1 <= len(texts) <= 3
    assert len({normalize_text(t) for t in texts}) == len(texts)
    assert all(a.score <= 0 for a in result.alternatives)


def test_output_length_is_bounded(corrector: Corrector):
    # Stutter-like input must not make the decoder run away.
    result = corrector.correct("euh " * 30 + "pain pain pain pain pain", beam_size=3)
    assert len(result.best.split()) <= 40


def test_empty_input_gives_an_empty_correction(corrector: Corrector):
    for text in ("", "   ", "?!"):
        result = corrector.correct(text)
        assert result.best == "" and result.alternatives == [] and result.diff == []


def test_load_through_the_model_store(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    # The app finds the model by name; an override folder without it must not be used.
    monkeypatch.setenv("THERAPY_APP_MODELS_DIR", str(tmp_path))
    corrector = Corrector.load(provider="cpu")
    assert corrector.correct("je vais bien").best


def test_unchanged_input_is_written_the_way_the_model_writes_sentences(corrector: Corrector):
    question = corrector.unchanged("est-ce que tu viens demain")
    assert question.text == "Est-ce que tu viens demain ?"
    assert question.score > corrector.score(
        "est-ce que tu viens demain", "Est-ce que tu viens demain."
    )
    assert normalize_text(corrector.unchanged("hier je suis allé au marché").text) == (
        "hier je suis allé au marché"
    )


# Inputs on which the model, held to the patient's words, wrote marks as fillers
# ("Je vais peut. ? ? être venir.", "Vous allez ? ? Douanez.").
MARK_PRONE = ["je vais peut être venir", "vous allez douanez", "docteur demain dix heures",
              "rendez-vous orthophoniste lundi dix heures", "je me lève tôt le matin",
              "beaucoup travail aujourd'hui"]  # fmt: skip


@pytest.mark.parametrize("utterance", MARK_PRONE)
def test_every_choice_reads_as_one_sentence(corrector: Corrector, utterance: str):
    result = corrector.correct(utterance, beam_size=3)
    unchanged = corrector.unchanged(utterance)
    for text in [unchanged.text, *(a.text for a in result.alternatives)]:
        body, end = text[:-1], text[-1]
        assert text[0].isupper(), text
        assert end in ".?!", text
        # Inside the sentence only commas; never two marks in a row.
        assert not re.search(r"[.?!;:](?=\s)", body), text
        assert not re.search(r"[,.?!;:]\s*[,.?!;:]", text), text
        assert not re.search(r"\s,", text), text
        assert not body.rstrip(" ").endswith(("-", "'")), text
    assert normalize_text(unchanged.text) == normalize_text(utterance)


def test_marks_between_words_are_tidied_for_display():
    from therapy_app.correction.corrector import _tidy_marks

    assert _tidy_marks("Je me lève ? ? Tôt le matin.") == "Je me lève tôt le matin."
    assert _tidy_marks("rendez-vous , orthophoniste lundi. ? dix heures.") == (
        "Rendez-vous, orthophoniste lundi dix heures."
    )
    assert _tidy_marks("quel temps, ? fait-il aujourd'hui ?") == "Quel temps, fait-il aujourd'hui ?"
    assert _tidy_marks("Hier, il vient.") == "Hier, il vient."
    assert _tidy_marks("Est-ce que tu viens ?") == "Est-ce que tu viens ?"
    assert _tidy_marks("? moi venir") == "Moi venir."


def test_a_rewrite_that_drops_a_said_word_never_comes_first(corrector: Corrector):
    # The model's own first choice here is "Il y a trop monde au supermarché."
    result = corrector.correct("il y a trop de monde au supermarché", beam_size=3)
    assert _same(result.best, "Il y a trop de monde au supermarché.")
    # An agrammatic utterance is still corrected when the rewrite keeps its words.
    fixed = corrector.correct("moi mal dos", beam_size=3)
    assert _same(fixed.best, "J'ai mal au dos."), fixed.best


def test_input_it_cannot_read_is_not_turned_into_an_invented_sentence(corrector: Corrector):
    arabic = corrector.correct("مرحبا كيف حالك")
    assert arabic.best == "" and arabic.refusal == "elle n'est pas écrite en français."
    emoji = corrector.correct("moi content 😀")
    assert emoji.best == "" and "émojis" in emoji.refusal
    # A time is kept, in words, instead of being lost.
    appointment = corrector.correct("rendez-vous demain 15h30", beam_size=3)
    assert appointment.refusal is None
    assert "quinze heures trente" in appointment.best.lower(), appointment.best
