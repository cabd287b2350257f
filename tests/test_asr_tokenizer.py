"""Whisper tokenizer and sidecar: round trips, prompts, special ids (needs the built model)."""

from __future__ import annotations

import json

import pytest
from asr_fixtures import require_model

from therapy_app.asr.config import WhisperConfig
from therapy_app.asr.tokenizer import WhisperTokenizer


@pytest.fixture(scope="module")
def config() -> WhisperConfig:
    folder = require_model()
    return WhisperConfig.from_dict(json.loads((folder / "model.json").read_text("utf-8")))


@pytest.fixture(scope="module")
def tokenizer(config: WhisperConfig) -> WhisperTokenizer:
    return WhisperTokenizer(require_model() / "tokenizer.json", config.tokens)


def test_special_token_ids(config: WhisperConfig):
    t = config.tokens
    assert (t.eot, t.sot, t.language, t.transcribe, t.no_timestamps) == (
        50257,
        50258,
        50265,
        50359,
        50363,
    )
    assert (t.no_speech, t.sot_prev, t.timestamp_begin) == (50362, 50361, 50364)
    assert config.language == "fr"
    assert t.sot_sequence == [50258, 50265, 50359, 50363]
    assert 50258 in config.suppress_ids
    assert config.suppress_ids_begin == (220, 50257)


def test_sidecar_round_trip(config: WhisperConfig):
    assert WhisperConfig.from_dict(config.to_dict()) == config


@pytest.mark.parametrize(
    "text",
    [
        " moi aller boulangerie hier",
        " Le garçon a mangé une crème brûlée à côté de l'hôpital.",
        " Ça coûte 12,50 € ? « Oui », dit-elle… peut-être.",
    ],
)
def test_round_trip(tokenizer: WhisperTokenizer, text: str):
    ids = tokenizer.encode(text)
    assert all(i < tokenizer.special.eot for i in ids)
    assert tokenizer.decode(ids) == text


def test_decode_drops_control_and_timestamp_tokens(tokenizer: WhisperTokenizer):
    t = tokenizer.special
    ids = [t.sot, t.language, *tokenizer.encode(" bonjour"), t.eot, t.timestamp_begin + 5]
    assert tokenizer.decode(ids) == " bonjour"


def test_prompt_tokens(tokenizer: WhisperTokenizer):
    t = tokenizer.special
    assert tokenizer.prompt_tokens(None, 100) == t.sot_sequence
    assert tokenizer.prompt_tokens("  ", 100) == t.sot_sequence
    prompt = tokenizer.prompt_tokens("moi aller maison", 100)
    assert prompt[0] == t.sot_prev
    assert prompt[-4:] == t.sot_sequence
    assert tokenizer.decode(prompt) == " moi aller maison"
    assert len(tokenizer.prompt_tokens("mot " * 300, 20)) == 1 + 20 + 4


def test_punctuation_ids_cover_sentence_marks_not_word_parts(tokenizer: WhisperTokenizer):
    punct = set(tokenizer.punctuation_ids)
    for mark in (".", ",", " ?", "!", "...", " «"):
        ids = tokenizer.encode(mark)
        assert len(ids) == 1 and ids[0] in punct, mark
    for part in ("'", "-", " l", " aller"):
        assert not set(tokenizer.encode(part)) & punct, part
