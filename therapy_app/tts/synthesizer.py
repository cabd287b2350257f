"""French speech synthesis: Pico voice first, espeak-ng as fallback, loudness-normalised 16 kHz."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from typing import Protocol

import numpy as np

from therapy_app.audio.clip import SAMPLE_RATE, AudioClip
from therapy_app.errors import SpeechSynthesisError
from therapy_app.tts.espeak import EspeakVoice
from therapy_app.tts.options import SynthesisOptions, check_text, with_word_pauses
from therapy_app.tts.pico import PicoVoice

_LOGGER = logging.getLogger(__name__)

_SILENCE = 1e-4  # below this the engine produced nothing audible
_EDGE_PAD_S = 0.05  # silence kept before and after the voice
_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+(?=\S)")


class Voice(Protocol):
    """A speech engine backend."""

    name: str
    is_fallback: bool

    def render(self, markup: str, rate_wpm: float) -> AudioClip:
        """Raw synthesis of ``markup`` at ``rate_wpm``."""


_BACKENDS: dict[str, type[PicoVoice] | type[EspeakVoice]] = {
    "pico": PicoVoice,
    "espeak": EspeakVoice,
}


def normalise(samples: np.ndarray, target_peak: float) -> np.ndarray:
    """Scale so the loudest sample is ``target_peak`` (never above full scale)."""
    peak = float(np.max(np.abs(samples))) if len(samples) else 0.0
    if peak < _SILENCE:
        return samples.astype(np.float32)
    out = samples * (min(target_peak, 1.0) / peak)
    return np.clip(out, -1.0, 1.0).astype(np.float32)


def _trim_edges(samples: np.ndarray) -> np.ndarray:
    """Cut engine-added leading/trailing silence down to a short, equal margin."""
    loud = np.nonzero(np.abs(samples) > 0.01 * max(float(np.max(np.abs(samples))), _SILENCE))[0]
    if not len(loud):
        return samples
    pad = int(_EDGE_PAD_S * SAMPLE_RATE)
    return samples[max(0, loud[0] - pad) : min(len(samples), loud[-1] + 1 + pad)]


class SpeechSynthesizer:
    """Speaks French text.

    Args:
        voice: the engine backend (use :meth:`load`).
    """

    def __init__(self, voice: Voice) -> None:
        self._voice = voice

    @property
    def voice_name(self) -> str:
        """Human-readable name of the voice in use."""
        return self._voice.name

    @property
    def is_fallback(self) -> bool:
        """True when the robotic espeak-ng fallback is speaking."""
        return self._voice.is_fallback

    @classmethod
    def load(cls, prefer: str = "pico") -> SpeechSynthesizer:
        """The preferred voice, or the other one when it does not work.

        Args:
            prefer: "pico" (natural, default) or "espeak" (forces the fallback).

        Raises:
            SpeechSynthesisError: no French voice works at all.
        """
        if prefer not in _BACKENDS:
            raise ValueError(f"unknown voice {prefer!r}; expected one of {sorted(_BACKENDS)}")
        order = [prefer] + [name for name in _BACKENDS if name != prefer]
        failures = []
        for name in order:
            try:
                voice = _BACKENDS[name].load()
            except SpeechSynthesisError as exc:
                _LOGGER.warning("voice %s unavailable: %s", name, exc.detail)
                failures.append(exc.detail)
                continue
            if voice.is_fallback:
                _LOGGER.warning("using the fallback voice %s (less intelligible)", voice.name)
            else:
                _LOGGER.info("using voice %s", voice.name)
            return cls(voice)
        raise SpeechSynthesisError(
            "Aucune voix française n'est disponible.",
            "Réinstallez l'application (voix Pico) ou installez « espeak-ng ».",
            "; ".join(failures),
        )

    def synthesize(self, text: str, options: SynthesisOptions | None = None) -> AudioClip:
        """Speak ``text`` into a clip.

        Args:
            text: French text; Pico-style tags such as ``<break time="500ms"/>``
                pass through.
            options: rate, pauses and level; None for the therapy defaults.

        Returns:
            16 kHz mono clip, peak at ``options.target_peak``, never clipped.

        Raises:
            SpeechSynthesisError: empty text, or the engine failed.
        """
        options = options or SynthesisOptions()
        markup = with_word_pauses(check_text(text), options.pause_between_words_ms)
        raw = self._voice.render(markup, options.rate_wpm)
        if raw.sample_rate != SAMPLE_RATE:  # backends already convert; be defensive
            from therapy_app.audio.resample import resample

            raw = AudioClip(resample(raw.samples, raw.sample_rate, SAMPLE_RATE))
        if raw.peak < _SILENCE:
            raise SpeechSynthesisError(
                "La voix n'a rien produit pour ce texte.",
                "Vérifiez l'orthographe du texte.",
                f"{self.voice_name} returned silence for {text!r}",
            )
        return AudioClip(normalise(_trim_edges(raw.samples), options.target_peak))

    def synthesize_sentences(
        self, text: str, options: SynthesisOptions | None = None
    ) -> Iterator[AudioClip]:
        """One clip per sentence, so playback can start (and be cancelled) early.

        Raises:
            SpeechSynthesisError: empty text, or the engine failed.
        """
        check_text(text)
        for sentence in _SENTENCE_END.split(text.strip()):
            if sentence.strip():
                yield self.synthesize(sentence, options)
