"""Shared helpers for the speech recognition tests: the model, test speech, WER."""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

from therapy_app.audio.clip import AudioClip
from therapy_app.model_store import ASR_MODEL, find_model

SPEECH_DIR = Path(__file__).parent / "data" / "speech"

# Used when tests/data/speech has no committed recordings yet.
FALLBACK_ITEMS = [
    ("sentence", "Je voudrais acheter du pain à la boulangerie."),
    ("sentence", "Le chien mange sa viande dans la cuisine."),
    ("sentence", "Il faut arroser les fleurs ce soir."),
    ("telegraphic", "moi aller boulangerie hier"),
    ("telegraphic", "chien manger viande"),
    ("telegraphic", "voiture garage réparer"),
    ("word", "téléphone"),
    ("word", "fourchette"),
]


@dataclass(frozen=True)
class SpeechItem:
    """A test utterance and what was said."""

    name: str
    category: str  # "sentence", "telegraphic" or "word"
    text: str
    clip: AudioClip


def require_model() -> Path:
    """The built whisper-base folder, or skip the test with the command to build it."""
    folder = find_model(ASR_MODEL)
    if folder is None:
        pytest.skip("whisper-base is not built: run `python -m models.asr.build`")
    return folder


@cache
def _synthesizer():  # -> therapy_app.tts.SpeechSynthesizer
    from therapy_app.tts import SpeechSynthesizer

    synth = SpeechSynthesizer.load(prefer="pico")
    if synth.is_fallback:
        reason = "the Pico voice (py-nanotts) is needed to synthesise test speech"
        if os.environ.get("THERAPY_REQUIRE_MODELS") == "1":
            pytest.fail(f"{reason} (THERAPY_REQUIRE_MODELS=1: the voice is a model too)")
        pytest.skip(reason)
    return synth


def synthesize(text: str, telegraphic: bool = False) -> AudioClip:
    """The app's own French voice (TTS -> ASR round trip), 0.3 s of silence around it.

    Telegraphic text gets a 600 ms pause between words, like a halting speaker.
    """
    from therapy_app.tts import SynthesisOptions

    options = SynthesisOptions(pause_between_words_ms=600 if telegraphic else 0)
    speech = _synthesizer().synthesize(text, options)
    pad = AudioClip.silence(0.3)
    return AudioClip.concatenate([pad, speech, pad])


def speech_items() -> list[SpeechItem]:
    """Committed recordings from tests/data/speech, else synthesised fallbacks."""
    index = SPEECH_DIR / "transcripts.json"
    if index.is_file():
        from therapy_app.audio.wavio import read_wav

        entries = json.loads(index.read_text(encoding="utf-8"))
        return [
            SpeechItem(name, e["category"], e["text"], read_wav(SPEECH_DIR / name))
            for name, e in sorted(entries.items())
        ]
    return [
        SpeechItem(f"{cat}_{i}", cat, text, synthesize(text, telegraphic=cat == "telegraphic"))
        for i, (cat, text) in enumerate(FALLBACK_ITEMS)
    ]


def normalize(text: str) -> str:
    """Lowercase words without punctuation or hyphens, for WER."""
    text = text.lower().replace("’", "'").replace("-", " ")
    return " ".join(re.sub(r"[.,;:!?…«»\"()\[\]]", " ", text).split())


def word_error_rate(refs: list[str], hyps: list[str]) -> float:
    """Corpus WER (0..1) over normalised texts."""
    import jiwer

    return float(jiwer.wer([normalize(r) for r in refs], [normalize(h) or "∅" for h in hyps]))


@cache
def shared_recognizer():  # -> SpeechRecognizer
    """The real model on the default provider, loaded once per test session."""
    require_model()
    from therapy_app.asr.recognizer import SpeechRecognizer

    return SpeechRecognizer.load()
