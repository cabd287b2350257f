"""The real Whisper model: French recognition, scoring, silence, input errors."""

from __future__ import annotations

import numpy as np
import pytest
from asr_fixtures import (
    require_model,
    shared_recognizer,
    speech_items,
    synthesize,
    word_error_rate,
)

from therapy_app.asr.recognizer import DecodeOptions, SpeechRecognizer
from therapy_app.audio.clip import AudioClip
from therapy_app.errors import AudioInputError, ModelInvalidError
from therapy_app.inference import cuda_driver_present
from therapy_app.model_store import ASR_MODEL, load_model

# Corpus WER ceilings per category, about two words above what the int8 model
# scores on the committed clips (0.09, 0.32, 0.25): int8 kernels differ between
# CPUs. Halting speech and isolated words are Whisper base's weak spots
# (benchmarks/asr_experiments.py).
MAX_WER = {"sentence": 0.2, "telegraphic": 0.45, "word": 0.5}


@pytest.fixture(scope="module")
def recognizer() -> SpeechRecognizer:
    return shared_recognizer()


@pytest.fixture(scope="module")
def items():
    require_model()
    return speech_items()


@pytest.mark.slow
@pytest.mark.parametrize("category", ["sentence", "telegraphic", "word"])
def test_recognizes_french_speech(recognizer, items, category):
    chosen = [i for i in items if i.category == category]
    assert chosen, f"no {category} test audio"
    hyps = [recognizer.transcribe(i.clip).text for i in chosen]
    wer = word_error_rate([i.text for i in chosen], hyps)
    report = "\n".join(f"{i.text!r} -> {h!r}" for i, h in zip(chosen, hyps, strict=True))
    assert wer <= MAX_WER[category], f"WER {wer:.2f}\n{report}"


@pytest.mark.slow
def test_tts_round_trip_and_transcript_fields(recognizer):
    text = "Nous avons mangé une soupe de légumes."
    clip = synthesize(text)
    transcript = recognizer.transcribe(clip)
    assert word_error_rate([text], [transcript.text]) <= 0.2, transcript.text
    assert len(transcript.tokens) == len(transcript.token_logprobs) > 0
    assert transcript.avg_logprob < 0
    assert 0.0 <= transcript.no_speech_prob < 0.5
    assert transcript.audio_seconds == pytest.approx(clip.duration)
    assert transcript.decode_seconds > 0
    assert transcript.text == transcript.text.strip()


@pytest.mark.slow
def test_greedy_and_plain_whisper_decoding(recognizer):
    text = "Les enfants jouent dans le jardin."
    clip = synthesize(text)
    greedy = recognizer.transcribe(clip, DecodeOptions(beam_size=1))
    assert word_error_rate([text], [greedy.text]) <= 0.34, greedy.text
    plain = DecodeOptions(beam_size=5, length_penalty=None, prompt=None, suppress_punctuation=False)
    fluent = recognizer.transcribe(clip, plain)
    assert word_error_rate([text], [fluent.text]) <= 0.2, fluent.text
    assert fluent.text[0].isupper()  # plain Whisper writes sentences


@pytest.mark.slow
@pytest.mark.parametrize(
    ("said", "telegraphic", "distractors"),
    [
        ("chien manger viande", True, ["chat manger viande", "chien boire eau", "chien"]),
        ("moi aller boulangerie hier", True, ["moi aller boulangerie", "toi aller maison hier"]),
        ("Le train part à huit heures.", False, ["Le train part à neuf heures.", "Le bus part."]),
        ("fourchette", False, ["couteau", "cuillère", "fourmi"]),
    ],
)
def test_score_ranks_the_target_first(recognizer, said, telegraphic, distractors):
    clip = synthesize(said, telegraphic=telegraphic)
    ranked = recognizer.score(clip, [*distractors, said])
    assert [c.rank for c in ranked] == list(range(1, len(ranked) + 1))
    assert ranked[0].text == said, ranked
    assert ranked[0].logprob_per_token > ranked[1].logprob_per_token
    assert all(c.logprob <= c.logprob_per_token <= 0 for c in ranked)


@pytest.mark.slow
def test_score_prefers_what_was_said_over_its_prefix_or_extension(recognizer):
    short = recognizer.score(synthesize("chien"), ["chien manger viande", "chien", "chat"])
    assert short[0].text == "chien", short
    full = recognizer.encode(synthesize("moi pas dormir nuit", telegraphic=True))
    assert recognizer.score(full, ["moi", "moi pas dormir nuit"])[0].text == "moi pas dormir nuit"
    # The plain total favours the truncated candidate on halting speech.
    totals = recognizer.score(full, ["moi", "moi pas dormir nuit"], length_normalized=False)
    assert [c.rank for c in totals] == [1, 2]
    assert totals[0].logprob >= totals[1].logprob


def test_score_runs_plain_whisper_while_transcription_opens_the_adapter_gate(recognizer):
    if not recognizer.model.gated:
        pytest.skip("the built model has no gated adapters (built with --adapter none)")
    encoded = recognizer.encode(synthesize("moi pas dormir nuit", telegraphic=True))
    candidates = ["moi pas dormir nuit", "moi pas sortir nuit"]
    scored = recognizer.score(encoded, candidates)
    opened = SpeechRecognizer(
        recognizer.model.with_gate(1.0), recognizer.tokenizer, recognizer.config
    )
    adapted = opened.score(encoded, candidates)
    # The gate changes the decoder, and score keeps it closed (plain Whisper base).
    assert recognizer.model.gate == 0.0 and opened.model.gate == 1.0
    assert scored[0].logprob != pytest.approx(adapted[0].logprob, abs=1e-3)
    closed = SpeechRecognizer(
        recognizer.model.with_gate(0.0), recognizer.tokenizer, recognizer.config
    )
    assert closed.score(encoded, candidates)[0].logprob == pytest.approx(
        scored[0].logprob, abs=1e-6
    )
    assert DecodeOptions().adapter_gate > 0


@pytest.mark.slow
def test_encoded_audio_serves_transcription_and_scoring(recognizer):
    clip = synthesize("moi vouloir café", telegraphic=True)
    encoded = recognizer.encode(clip)
    assert encoded.audio_seconds == pytest.approx(clip.duration)
    assert recognizer.transcribe(encoded).text == recognizer.transcribe(clip).text
    from_encoded = recognizer.score(encoded, ["moi vouloir café", "moi vouloir thé"])
    from_clip = recognizer.score(clip, ["moi vouloir café", "moi vouloir thé"])
    assert [c.text for c in from_encoded] == [c.text for c in from_clip]
    assert from_encoded[0].logprob == pytest.approx(from_clip[0].logprob, abs=1e-4)


@pytest.mark.slow
def test_score_with_no_candidates(recognizer):
    assert recognizer.score(synthesize("bonjour"), []) == []


@pytest.mark.slow
@pytest.mark.parametrize(
    "clip",
    [
        AudioClip.silence(2.0),
        AudioClip((np.random.default_rng(0).standard_normal(32_000) * 0.1).astype(np.float32)),
        AudioClip((np.random.default_rng(1).standard_normal(16_000) * 0.005).astype(np.float32)),
    ],
    ids=["silence", "white-noise", "quiet-noise"],
)
def test_no_speech_gives_an_empty_transcript(recognizer, clip):
    transcript = recognizer.transcribe(clip)
    assert transcript.text == ""
    assert transcript.tokens == []
    assert transcript.no_speech_prob > 0.5


@pytest.mark.parametrize(
    ("clip", "phrase"),
    [
        (AudioClip(np.zeros(0, np.float32)), "vide"),
        (AudioClip.silence(31.0), "trop long"),
        (AudioClip(np.zeros(8000, np.float32), sample_rate=8000), "format"),
        (AudioClip(np.full(1600, np.nan, np.float32)), "endommagé"),
    ],
    ids=["empty", "too-long", "wrong-rate", "nan"],
)
def test_unusable_audio_is_refused_in_french(recognizer, clip, phrase):
    with pytest.raises(AudioInputError) as info:
        recognizer.transcribe(clip)
    assert phrase in info.value.french()
    with pytest.raises(AudioInputError):
        recognizer.score(clip, ["bonjour"])


def test_provider_reports_what_runs(recognizer):
    expected = "cuda" if cuda_driver_present() else "cpu"
    assert recognizer.provider == expected
    assert recognizer.transcribe(AudioClip.silence(0.5)).provider == expected


def test_model_files_match_the_sidecar():
    require_model()
    bundle = load_model(ASR_MODEL)
    assert bundle.verify() == []
    assert bundle.meta["licence"].startswith("MIT")


def test_folder_without_sidecar_is_refused(tmp_path):
    with pytest.raises(ModelInvalidError) as info:
        SpeechRecognizer.load(model_dir=tmp_path)
    assert "build-models" in info.value.french()
