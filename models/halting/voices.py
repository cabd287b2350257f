"""The synthetic French voices: SVOX Pico and every espeak-ng French voice with its variants."""

from __future__ import annotations

import ctypes
import functools
import logging
import platform
import shutil
import subprocess
from dataclasses import dataclass
from typing import Any

import numpy as np

from therapy_app.audio.clip import SAMPLE_RATE, AudioClip
from therapy_app.audio.wavio import read_wav_bytes

_LOGGER = logging.getLogger(__name__)

# espeak-ng's French languages (MBROLA voices need Debian non-free data: left out).
ESPEAK_LANGUAGES = ("fr", "fr-be", "fr-ch")
# Its voice variants that still sound like a person (the joke voices are left out).
ESPEAK_VARIANTS = (
    "", "m1", "m2", "m3", "m4", "m5", "m6", "m7", "m8",
    "f1", "f2", "f3", "f4", "f5",
    "klatt", "klatt2", "klatt3", "klatt4",
    "grandpa", "grandma", "michel", "gustave", "Denis", "linda", "annie",
)  # fmt: skip


@dataclass(frozen=True)
class VoiceSpec:
    """One synthetic speaker.

    Attributes:
        engine: "pico" or "espeak".
        language: espeak-ng language ("fr", "fr-be", "fr-ch"); "fr-FR" for Pico.
        variant: espeak-ng variant name ("" = default voice).
        family: the group a benchmark reports on ("pico", "espeak-fr", ...).
    """

    engine: str
    language: str = "fr"
    variant: str = ""

    @property
    def name(self) -> str:
        """Stable identifier, e.g. ``pico`` or ``espeak:fr-be+f2``."""
        if self.engine == "pico":
            return "pico"
        return f"espeak:{self.language}" + (f"+{self.variant}" if self.variant else "")

    @property
    def family(self) -> str:
        """Pico, or the espeak-ng language."""
        return "pico" if self.engine == "pico" else f"espeak-{self.language}"


def all_voices() -> list[VoiceSpec]:
    """Pico plus every espeak-ng French language x variant."""
    voices = [VoiceSpec("pico", "fr-FR")]
    for lang in ESPEAK_LANGUAGES:
        voices.extend(VoiceSpec("espeak", lang, v) for v in ESPEAK_VARIANTS)
    return voices


@functools.cache
def deterministic_pico() -> object:
    """A Pico engine whose output depends only on its input.

    py-nanotts reads uninitialised heap memory: a fixed mmap threshold makes glibc
    hand it zeroed pages, so the same text always gives the same audio.
    """
    if platform.system() == "Linux":
        try:
            ctypes.CDLL("libc.so.6").mallopt(-3, 128 * 1024)  # M_MMAP_THRESHOLD
        except (OSError, AttributeError):
            _LOGGER.warning("cannot fix malloc: Pico output may vary between runs")
    from py_nanotts import NanoTTS

    return NanoTTS()


def _pico_render(text: str, speed: float) -> np.ndarray:
    # The app's zero-filled heap as well: the mmap threshold alone was not enough
    # once other code had used the engine in the same process.
    from therapy_app.tts.pico import _zeroed_heap

    engine: Any = deterministic_pico()
    with _zeroed_heap():
        pcm = engine.speak(text, voice="fr-FR", speed=speed, volume=0.7)
    return np.frombuffer(pcm, "<i2").astype(np.float32) / 32768.0


def _espeak_render(voice: VoiceSpec, text: str, speed: float, pitch: int) -> np.ndarray:
    exe = shutil.which("espeak-ng")
    if exe is None:
        raise RuntimeError("espeak-ng is not installed (apt install espeak-ng)")
    name = voice.language + (f"+{voice.variant}" if voice.variant else "")
    wpm = int(round(150 * speed))
    cmd = [exe, "-v", name, "-s", str(wpm), "-p", str(pitch), "-b", "1", "--stdout"]
    out = subprocess.run(cmd, input=text.encode("utf-8"), capture_output=True, check=True)
    clip = read_wav_bytes(out.stdout)
    return clip.samples


def _trim(samples: np.ndarray, threshold: float = 0.01) -> np.ndarray:
    """Cut the engine's own leading/trailing silence: pauses are placed by the caller."""
    loud = np.flatnonzero(np.abs(samples) > threshold)
    if len(loud) == 0:
        return samples[:0]
    return samples[max(0, loud[0] - 160) : loud[-1] + 160]


def render(voice: VoiceSpec, text: str, speed: float = 1.0, pitch: int = 50) -> AudioClip:
    """Speak ``text`` once, without surrounding silence, at 16 kHz, peak-normalised to 0.7.

    Args:
        voice: the speaker.
        text: plain text, no markup.
        speed: 1.0 = the engine's normal rate; lower is slower.
        pitch: espeak-ng pitch 0..99 (Pico's pitch is changed by the caller's
            tape-speed perturbation instead).
    """
    if voice.engine == "pico":
        samples = _pico_render(text, speed)
    else:
        samples = _espeak_render(voice, text, speed, pitch)
    samples = _trim(samples)
    peak = float(np.max(np.abs(samples))) if len(samples) else 0.0
    if peak > 0:
        samples = samples * (0.7 / peak)
    return AudioClip(samples.astype(np.float32), SAMPLE_RATE)
