"""SVOX Pico French voice through py-nanotts (16 kHz, offline, Apache-2.0)."""

from __future__ import annotations

import ctypes
import logging
import re
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from therapy_app.audio.clip import SAMPLE_RATE, AudioClip
from therapy_app.errors import SpeechSynthesisError

_LOGGER = logging.getLogger(__name__)

VOICE = "fr-FR"
# Measured here on 12 everyday sentences (first to last audible sample, commas
# included): 235 wpm at speed 1.0, 188 at 0.8, 142 at 0.6, 117 at 0.5, i.e.
# linear in speed, so speed = wanted rate / natural rate.
NATURAL_RATE_WPM = 235.0
MIN_SPEED, MAX_SPEED = 0.2, 5.0
# Pico's own output clips on about a third of sentences at volume 1.0; 0.7
# keeps every peak below full scale and the synthesizer normalises afterwards.
ENGINE_VOLUME = 0.7
# Pico takes <break time="1200ms"/> as 200 ms (the time wraps modulo 1 s).
MAX_BREAK_MS = 1000
_BREAK = re.compile(r'(<break\s+time\s*=\s*["\'])(\d+(?:\.\d+)?)\s*(ms|s)(["\'])', re.IGNORECASE)


def _clamp_break(match: re.Match[str]) -> str:
    value = float(match.group(2)) * (1000.0 if match.group(3).lower() == "s" else 1.0)
    return f"{match.group(1)}{int(min(value, MAX_BREAK_MS))}ms{match.group(4)}"


def clamp_breaks(markup: str) -> str:
    """Limit every ``<break time=...>`` to what Pico really honours (1 s)."""
    return _BREAK.sub(_clamp_break, markup)


# py-nanotts mallocs Pico's 2.5 MB working memory per call and Pico reads parts
# of it before writing them. Fresh (mmap'd, zeroed) memory gives the intended
# output; recycled heap memory, which glibc hands out from the second call on,
# makes <break> pauses come out ~60 % too short and varies the output from call
# to call. glibc's M_PERTURB with 0xFF makes malloc return zero-filled blocks,
# so it is switched on around each call (glibc only; Windows' heap hands out
# fresh zeroed pages for blocks this large).
_M_PERTURB = -6
_ZERO_FILL = 0xFF  # malloc fills with (byte ^ 0xFF) = 0
_heap_lock = threading.Lock()


def _glibc_mallopt() -> Any:
    if not sys.platform.startswith("linux"):
        return None
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # musl and other libcs have no mallopt
        return None
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    return mallopt


_MALLOPT = _glibc_mallopt()


@contextmanager
def _zeroed_heap() -> Iterator[None]:
    """Make malloc return zero-filled memory for the duration of one Pico call."""
    with _heap_lock:
        if _MALLOPT is None:
            yield
            return
        _MALLOPT(_M_PERTURB, _ZERO_FILL)
        try:
            yield
        finally:
            _MALLOPT(_M_PERTURB, 0)


def speed_for_rate(rate_wpm: float) -> float:
    """Pico speed factor giving ``rate_wpm``."""
    return float(min(MAX_SPEED, max(MIN_SPEED, rate_wpm / NATURAL_RATE_WPM)))


class PicoVoice:
    """The fr-FR Pico voice.

    Raises (from :meth:`load`):
        SpeechSynthesisError: py-nanotts or its lingware is not installed.
    """

    name = "SVOX Pico fr-FR"
    is_fallback = False

    def __init__(self, engine: Any) -> None:
        self._engine = engine

    @classmethod
    def load(cls) -> PicoVoice:
        """Import the engine and check that it speaks."""
        try:
            from py_nanotts import NanoTTS
        except ImportError as exc:
            raise SpeechSynthesisError(
                "La voix française principale n'est pas installée.",
                "Réinstallez l'application.",
                f"py-nanotts unavailable: {exc}",
            ) from exc
        voice = cls(NanoTTS())
        voice.render("Bonjour.", NATURAL_RATE_WPM)  # lingware files are read per call
        return voice

    def render(self, markup: str, rate_wpm: float) -> AudioClip:
        """Synthesise text (Pico's SSML-like tags allowed) at ``rate_wpm``.

        Raises:
            SpeechSynthesisError: the engine failed or produced nothing.
        """
        try:
            with _zeroed_heap():
                pcm = self._engine.speak(
                    clamp_breaks(markup),
                    voice=VOICE,
                    speed=speed_for_rate(rate_wpm),
                    volume=ENGINE_VOLUME,
                )
        except Exception as exc:  # noqa: BLE001 - the C extension raises plain errors
            raise SpeechSynthesisError(
                "La voix n'a pas pu lire ce texte.",
                "Réessayez avec une phrase plus simple.",
                f"Pico failed on {markup!r}: {exc}",
            ) from exc
        samples = np.frombuffer(pcm, "<i2").astype(np.float32) / 32768.0
        return AudioClip(samples, SAMPLE_RATE)
