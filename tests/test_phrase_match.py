"""Which of my sentences is this? The phrase-book match, alone and in the speech path."""

from __future__ import annotations

import numpy as np
import pytest
from practice_fixtures import SPEECH_DIR, SpokenClips, make_services, shared_engines

from therapy_app.asr.phones import INVENTORY, label_of
from therapy_app.audio.clip import AudioClip
from therapy_app.audio.wavio import read_wav
from therapy_app.correction.diff import RESTORED
from therapy_app.phrases import match
from therapy_app.phrases.content_words import content_words, lemma_key, letters_to_sounds, word
from therapy_app.phrases.model import Gender, Phrase, PhraseBook, PhraseSource
from therapy_app.phrases.phone_match import phone_scores
from therapy_app.speech import chain
from therapy_app.speech.services import SilentPlayer, SpeechServices
from therapy_app.tts import SpeechSynthesizer

EVERYDAY = (
    "Je voudrais un café.",
    "Je voudrais un verre d'eau.",
    "J'ai mal au dos.",
    "Appelle ma fille Mathilde.",
    "Je vais au marché demain.",
    "Il fait froid ce matin.",
    "Le chien mange de la viande.",
    "Ferme la fenêtre, s'il te plaît.",
)


def _book(*texts: str, gender: Gender = Gender.UNSAID) -> PhraseBook:
    return PhraseBook(tuple(Phrase(t, PhraseSource.CUSTOM) for t in texts), gender)


def _ranked(book: PhraseBook, heard: str) -> list[tuple[str, float]]:
    index = match.index_book(book)
    return [(book.phrases[r.sentence].text, r.score) for r in match.lexical_scores(index, heard)]


# ----- words --------------------------------------------------------------------------
def test_content_words_leave_out_the_grammar():
    assert content_words("Je voudrais un café.") == ["voudrais", "café"]
    assert content_words("J'ai mal au dos.") == ["mal", "dos"]
    assert content_words("Il est 15h30.") == ["quinze", "heures", "trente"]


def test_a_deformed_word_matches_the_word_meant():
    # A word the lexicon lacks gets a pronunciation by rule, close to the real one.
    assert letters_to_sounds("boulanzerie") == "bul@z°Ri"
    assert match.similarity(word("boulanzerie"), word("boulangerie")) > 0.8
    assert match.similarity(word("manzer"), word("mange")) >= 0.75
    # Not any word of the same length: another word of the book stays apart.
    assert match.similarity(word("boulanzerie"), word("bouteille")) == 0.0
    # One phoneme apart is too far for short words ("fait" is not "faim").
    assert match.similarity(word("fait"), word("faim")) == 0.0
    ranked = _ranked(_book(*EVERYDAY, "Je suis allé à la boulangerie hier."), "moi boulanzerie")
    assert ranked[0][0] == "Je suis allé à la boulangerie hier."


def test_an_infinitive_matches_the_conjugated_forms_of_its_verb():
    assert lemma_key("vouloir") == lemma_key("voudrais") == lemma_key("veux")
    assert lemma_key("aller") == lemma_key("vais") == lemma_key("allée")
    assert match.similarity(word("manger"), word("mange")) == 1.0
    ranked = _ranked(_book(*EVERYDAY), "moi vouloir eau")
    assert ranked[0] == ("Je voudrais un verre d'eau.", pytest.approx(ranked[0][1]))
    assert ranked[0][1] > ranked[1][1]


def test_a_word_the_recogniser_split_still_matches():
    # Whisper writes a word it does not know as words it knows.
    ranked = _ranked(_book(*EVERYDAY, "Je suis allé à la boulangerie hier."), "boule en gérie")
    assert ranked[0][0] == "Je suis allé à la boulangerie hier."


def test_heard_words_the_sentence_lacks_lower_its_score():
    book = _book(*EVERYDAY)
    alone = dict(_ranked(book, "mal dos"))["J'ai mal au dos."]
    with_extra = dict(_ranked(book, "mal dos voiture garage"))["J'ai mal au dos."]
    assert alone == 1.0 and with_extra < 0.8


def test_an_utterance_sharing_no_word_with_the_book_matches_nothing():
    assert _ranked(_book(*EVERYDAY), "chat dormir canapé") == []


# ----- the decision -------------------------------------------------------------------
def test_a_sure_lexical_match_needs_no_transcript_gap():
    # "moi être heureuse de voir": every content word of the sentence was heard, but
    # the transcript (the decoder's own output) fits the recording far better
    # than the full sentence with the words the patient left out.
    check = match.AcousticCheck(full=(-2.5,), telegraphic=(-2.0,), transcript=-0.3)
    strict = match.MatchSettings(transcript_gap=-0.5, sure_lexical=None)
    assert match.decide([1.0], check, strict)[0] is None
    sure = match.MatchSettings(transcript_gap=-0.5, sure_lexical=0.85)
    assert match.decide([1.0], check, sure)[0] == 0
    # A weaker lexical match still needs the recording's support.
    assert match.decide([0.6], check, sure)[0] is None


def test_the_prior_takes_off_what_a_sentence_scores_on_silence():
    # The second candidate fits the recording slightly better, but it fits
    # silence much better still: a short, common sentence the decoder likes.
    check = match.AcousticCheck(
        full=(-1.2, -1.0),
        telegraphic=(-3.0, -3.0),
        transcript=-1.0,
        prior_full=(-4.0, -1.5),
        prior_telegraphic=(-1.0, -1.0),
    )
    plain = match.MatchSettings(margin=0.1, sure_lexical=None, prior_weight=0.0)
    assert match.decide([0.8, 0.5], check, plain)[0] == 1
    weighed = match.MatchSettings(margin=0.1, sure_lexical=None, prior_weight=0.75)
    clear, margins = match.decide([0.8, 0.5], check, weighed)
    assert clear == 0
    assert margins[0] == pytest.approx((-1.2 + 0.75 * 4.0) - (-1.0 + 0.75 * 1.5))
    # The transcript gap stays on plain scores: a candidate far below it is not clear.
    far = match.AcousticCheck((-2.0, -1.0), (-3.0, -3.0), -0.5, 0.0, (-6.0, -1.5), (-1.0, -1.0))
    assert match.decide([0.8, 0.5], far, weighed)[0] is None


# ----- by phonemes ---------------------------------------------------------------------
def _frames(*words: str) -> np.ndarray:
    """Posteriors that read ``words`` (the lexicon's phonemes), pauses between, each frame sure."""
    reading = "__" + "___".join(label_of(w) or "" for w in words) + "__"
    logp = np.full((len(reading), 1 + len(INVENTORY)), np.log(0.02 / len(INVENTORY)))
    for t, symbol in enumerate(reading):
        logp[t, 0 if symbol == "_" else 1 + INVENTORY.index(symbol)] = np.log(0.98)
    return logp


def test_the_sentence_whose_words_were_said_is_clear_whatever_the_transcript():
    index = match.index_book(_book(*EVERYDAY))
    # "moi… vouloir… café" heard as "mois vous loin qui a fait": the sounds still say it.
    found = match.match_by_phones(
        _frames("moi", "vouloir", "café"), index, "mois vous loin qui a fait"
    )
    assert found[0].phrase.text == "Je voudrais un café." and found[0].clear
    assert found[0].acoustic >= match.DEFAULT_SETTINGS.phone_margin
    assert len(found) == match.DEFAULT_SETTINGS.kept and not any(m.clear for m in found[1:])
    assert all(m.acoustic is not None and m.acoustic <= 0 for m in found[1:])
    # "mal dos": the words of one sentence, in its order.
    found = match.match_by_phones(_frames("mal", "dos"), index, "mal dos")
    assert found[0].phrase.text == "J'ai mal au dos." and found[0].clear


def test_what_telegraphic_speech_says_for_an_auxiliary_or_c_est_is_explained():
    book = (*EVERYDAY, "C'est trop cher.", "J'ai mal à l'épaule.", "Je suis fatigué.")
    index = match.index_book(_book(*book))
    for said, meant in (
        (("avoir", "mal", "épaule"), "J'ai mal à l'épaule."),  # the infinitive for « ai »
        (("ça", "trop", "cher"), "C'est trop cher."),  # « ça » for « c'est »
        (("moi", "être", "fatigué"), "Je suis fatigué."),
    ):
        frames = _frames(*said)
        found = match.match_by_phones(frames, index, "")
        assert found[0].phrase.text == meant and found[0].clear, (said, found[0])
        settings = match.DEFAULT_SETTINGS
        (fit,) = phone_scores(frames, [meant], settings.phone_leave, settings.phone_unexplained)
        assert fit.unexplained == 0.0, said  # every sound is one of the sentence's words


def test_speech_no_book_sentence_explains_is_not_matched():
    index = match.index_book(_book(*EVERYDAY))
    # "café" is in the book, but most of what was said is not.
    found = match.match_by_phones(
        _frames("voiture", "garage", "réparer", "café", "vendredi"), index, ""
    )
    assert not any(m.clear for m in found)


def test_a_book_of_one_sentence_needs_the_sounds_and_the_heard_words():
    index = match.index_book(_book("Je voudrais un café."))
    said = _frames("moi", "vouloir", "café")
    assert match.match_by_phones(said, index, "moi vouloir café")[0].clear
    # No rival sentence: the sounds alone do not make it clear.
    assert not match.match_by_phones(said, index, "mois vous loin")[0].clear
    other = _frames("chat", "dormir", "canapé")
    assert not match.match_by_phones(other, index, "chat dormir canapé")[0].clear


# ----- the speech path --------------------------------------------------------------------
@pytest.fixture(scope="module")
def services() -> SpeechServices:
    return make_services(SpokenClips(), SilentPlayer())


@pytest.mark.slow
def test_telegraphic_moi_cafe_proposes_the_book_sentence_first(services: SpeechServices):
    # The app's eSpeak voice: Whisper base hears Pico's "café" as "qui a fait".
    voice = SpeechSynthesizer.load(prefer="espeak")
    pad = AudioClip.silence(0.3)
    clip = AudioClip.concatenate([pad, voice.synthesize("moi café"), pad])
    result = chain.run_utterance(services, clip, book=_book(*EVERYDAY))
    assert result.text == "moi café"
    first = result.correction.proposals[0]
    assert (first.text, first.source) == ("Je voudrais un café.", chain.PHRASE)
    assert result.correction.matches[0].clear
    # It is the sentence spoken back, and the words put back are highlighted.
    assert result.speech is not None and result.speech.duration > 1.0
    assert "voudrais" in [w for op in first.diff if op.kind == RESTORED for w in op.target]
    assert result.timings["phrases"] > 0
    # The corrector's proposals follow.
    assert [p.source for p in result.correction.proposals[1:]] == [chain.CORRECTOR] * (
        len(result.correction.proposals) - 1
    )


@pytest.mark.slow
def test_a_recording_of_a_book_sentence_comes_back_agreed_and_highlighted(
    services: SpeechServices,
):
    book = _book(*EVERYDAY, "Je suis allée à la boulangerie hier.", gender=Gender.FEMININE)
    clip = read_wav(SPEECH_DIR / "telegraphic_01.wav")  # "moi aller boulangerie hier"
    result = chain.run_utterance(services, clip, book=book)
    proposals = result.correction.proposals
    assert proposals[0].text == "Je suis allée à la boulangerie hier."
    assert proposals[0].source == chain.PHRASE and 0 < proposals[0].score <= 1
    restored = [w for op in proposals[0].diff if op.kind == RESTORED for w in op.target]
    assert "suis" in restored
    # The corrector's proposals follow, agreed with the patient's gender, no sentence twice.
    assert 1 < len(proposals) <= chain.MAX_PROPOSALS
    assert all(p.source == chain.CORRECTOR for p in proposals[1:])
    assert not any(" allé " in f" {p.text} " for p in proposals)
    texts = [p.text.lower().rstrip(".") for p in proposals]
    assert len(set(texts)) == len(texts)


@pytest.mark.slow
def test_an_utterance_outside_the_book_changes_nothing(services: SpeechServices):
    clip = read_wav(SPEECH_DIR / "telegraphic_06.wav")  # "chat dormir canapé"
    without = chain.run_utterance(services, clip)
    book = _book(*EVERYDAY, "Le chat a faim.", "Je dors mal la nuit.")
    with_book = chain.run_utterance(services, clip, book=book)
    assert not any(p.source == chain.PHRASE for p in with_book.correction.proposals)
    assert [p.text for p in with_book.correction.proposals] == [
        p.text for p in without.correction.proposals
    ]
    assert not any(m.clear for m in with_book.correction.matches)


@pytest.mark.slow
def test_the_acoustic_check_reuses_the_encoder_output_of_hearing(monkeypatch):
    services = make_services(SpokenClips(), SilentPlayer())
    recognizer = shared_engines()["recognizer"]
    calls: list[float] = []
    real = recognizer.encode

    def counting(clip):  # noqa: ANN001, ANN202
        if clip.samples.any():  # the silence the priors are scored on is encoded once per run
            calls.append(clip.duration)
        return real(clip)

    monkeypatch.setattr(recognizer, "encode", counting)
    book = _book(*EVERYDAY, "Je suis allé à la boulangerie hier.")
    clip = read_wav(SPEECH_DIR / "telegraphic_01.wav")
    result = chain.run_utterance(services, clip, book=book)
    assert result.correction.matches and result.correction.matches[0].acoustic is not None
    assert len(calls) == 1  # heard and checked on one encoding
    assert services._heard is None  # and it is not kept after the check


@pytest.mark.slow
def test_a_sentence_is_scored_on_silence_once_per_recogniser(monkeypatch):
    recognizer = shared_engines()["recognizer"]
    asked: list[int] = []
    real = recognizer.score

    def spying(audio, candidates, length_normalized=True, priors_for=0):  # noqa: ANN001, ANN202
        asked.append(priors_for)
        return real(audio, candidates, length_normalized, priors_for)

    monkeypatch.setattr(recognizer, "score", spying)
    # Sentences no other test scores: the cache is shared with the session's recogniser.
    book = _book(
        "Le facteur est passé ce matin.", "Ma voisine arrose ses tomates.", "Le bus 21 a du retard."
    )
    index = match.index_book(book)
    clip = read_wav(SPEECH_DIR / "telegraphic_01.wav")
    first = match.acoustic_check(recognizer, clip, index, [0, 1], "moi facteur", priors=True)
    again = match.acoustic_check(recognizer, clip, index, [0, 1], "moi facteur", priors=True)
    assert asked == [4, 0]  # two sentences, two forms each, on silence the first time only
    assert again.prior_full == first.prior_full and again.full == pytest.approx(first.full)
    assert all(p < 0 for p in (*first.prior_full, *first.prior_telegraphic))
    # One more sentence: only its forms are scored on silence.
    match.acoustic_check(recognizer, clip, index, [0, 1, 2], "moi facteur", priors=True)
    assert asked[-1] == 2


def test_no_book_or_an_empty_one_matches_nothing_and_costs_nothing():
    class Refusing:
        phones = None  # a recogniser without its phone reader: the decoder's check

        def score(self, *args, **kwargs):  # noqa: ANN002, ANN003, ANN202
            raise AssertionError("no acoustic check without candidates")

    heard = _FakeHeard("moi café")
    assert match.match_phrases(Refusing(), heard, PhraseBook()) == []  # type: ignore[arg-type]
    assert match.match_phrases(Refusing(), heard, _book("Il pleut.")) == []  # type: ignore[arg-type]


class _FakeHeard:
    """What match_phrases reads of a heard utterance when no sentence shares a word."""

    def __init__(self, text: str) -> None:
        self.transcript = type("T", (), {"text": text})()
        self.asr_clip = None
