"""Fallback French voice: the espeak-ng command-line program (robotic but always there)."""

from __future__ import annotations

import logging
import shutil
import subprocess

from therapy_app.audio.clip import AudioClip
from therapy_app.audio.wavio import read_wav_bytes
from therapy_app.errors import AudioInputError, SpeechSynthesisError

_LOGGER = logging.getLogger(__name__)

# espeak-ng's French voice speaks ~1.5x its nominal -s value: measured here
# 123 wpm at -s 80, 209 at -s 140, 261 at -s 175 (first to last audible sample).
RATE_FACTOR = 1.49
MIN_S, MAX_S = 80, 450  # espeak-ng clamps -s to this range
_TIMEOUT_S = 30.0


def s_for_rate(rate_wpm: float) -> int:
    """espeak-ng ``-s`` value giving ``rate_wpm``."""
    return int(round(min(MAX_S, max(MIN_S, rate_wpm / RATE_FACTOR))))


def word_gap_for_rate(rate_wpm: float) -> int:
    """Extra ``-g`` gap between words (10 ms units) for rates below ``-s 80``'s."""
    slowest = MIN_S * RATE_FACTOR
    if rate_wpm >= slowest:
        return 0
    # -g counts 10 ms units "at the default speed" (175): they stretch at -s 80.
    return int(round((60.0 / rate_wpm - 60.0 / slowest) * 100 * MIN_S / 175))


class EspeakVoice:
    """espeak-ng with the ``fr`` voice, run as a subprocess.

    Args:
        executable: path of the espeak-ng (or espeak) program.
    """

    name = "eSpeak NG fr"
    is_fallback = True

    def __init__(self, executable: str) -> None:
        self._exe = executable

    @classmethod
    def load(cls) -> EspeakVoice:
        """Find the program and check that it speaks French.

        Raises:
            SpeechSynthesisError: not installed or no French voice.
        """
        exe = shutil.which("espeak-ng") or shutil.which("espeak")
        if exe is None:
            raise SpeechSynthesisError(
                "Aucune voix de secours n'est installée.",
                "Installez « espeak-ng ».",
                "espeak-ng not found on PATH",
            )
        voice = cls(exe)
        voice.render("Bonjour.", 140.0)
        return voice

    def render(self, markup: str, rate_wpm: float) -> AudioClip:
        """Synthesise text (SSML tags allowed) at ``rate_wpm``, resampled to 16 kHz.

        Raises:
            SpeechSynthesisError: the program failed or wrote no audio.
        """
        # -m: interpret SSML (<break time="..."/>); -b 1: input is UTF-8.
        cmd = [
            self._exe,
            "-v",
            "fr",
            "-s",
            str(s_for_rate(rate_wpm)),
            "-g",
            str(word_gap_for_rate(rate_wpm)),
            "-m",
            "-b",
            "1",
            "--stdout",
        ]
        try:
            result = subprocess.run(
                cmd,
                input=markup.encode("utf-8"),
                capture_output=True,
                timeout=_TIMEOUT_S,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise self._failed(markup, str(exc)) from exc
        if result.returncode != 0:
            raise self._failed(markup, result.stderr.decode("utf-8", "replace").strip())
        try:
            return read_wav_bytes(result.stdout)
        except AudioInputError as exc:
            raise self._failed(markup, exc.detail) from exc

    @staticmethod
    def _failed(markup: str, detail: str) -> SpeechSynthesisError:
        return SpeechSynthesisError(
            "La voix de secours n'a pas pu lire ce texte.",
            "Réessayez.",
            f"espeak-ng failed on {markup!r}: {detail}",
        )
