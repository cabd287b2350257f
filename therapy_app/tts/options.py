"""Per-call synthesis options and the text markup they turn into (pauses, rate)."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from therapy_app.errors import SpeechSynthesisError

# Therapy pace: slower than conversation (~180-220 wpm in French) so that a
# person with aphasia can follow and repeat.
DEFAULT_RATE_WPM = 140.0
MIN_RATE_WPM = 40.0
MAX_RATE_WPM = 400.0
# Pico honours a <break> of at most 1 s (longer values wrap around modulo 1 s,
# consecutive breaks do not add up), so longer pauses cannot be promised.
MAX_PAUSE_MS = 1_000

_TAG = re.compile(r"<[^<>]*>")
_WORD = re.compile(r"\w+(?:['’-]\w+)*")


@dataclass(frozen=True)
class SynthesisOptions:
    """How to say a text.

    Attributes:
        rate_wpm: speaking rate in words per minute, pauses at punctuation
            included (measured from the first to the last audible sample).
        pause_between_words_ms: silence inserted between words (telegraphic
            practice, "moi ... aller ... boulangerie"); 0 for natural speech.
        target_peak_dbfs: the loudest sample is normalised to this level; the
            output never clips.
        volume: extra gain after normalisation, 0..1 (1 = target peak).
    """

    rate_wpm: float = DEFAULT_RATE_WPM
    pause_between_words_ms: int = 0
    target_peak_dbfs: float = -1.0
    volume: float = 1.0

    def __post_init__(self) -> None:
        if not MIN_RATE_WPM <= self.rate_wpm <= MAX_RATE_WPM:
            raise ValueError(f"rate_wpm must be in [{MIN_RATE_WPM}, {MAX_RATE_WPM}]")
        if not 0 <= self.pause_between_words_ms <= MAX_PAUSE_MS:
            raise ValueError(f"pause_between_words_ms must be in [0, {MAX_PAUSE_MS}]")
        if not -60.0 <= self.target_peak_dbfs <= 0.0:
            raise ValueError("target_peak_dbfs must be in [-60, 0]")
        if not 0.0 <= self.volume <= 1.0:
            raise ValueError("volume must be in [0, 1]")

    @property
    def target_peak(self) -> float:
        """Linear peak amplitude the output is scaled to."""
        return self.volume * math.pow(10.0, self.target_peak_dbfs / 20.0)


def count_words(text: str) -> int:
    """Spoken words in a text, markup ignored ("aujourd'hui", "s'il" count as one)."""
    return len(_WORD.findall(_TAG.sub(" ", text)))


def check_text(text: str) -> str:
    """The text, stripped, or a French error when nothing would be said.

    Raises:
        SpeechSynthesisError: empty, whitespace only, or markup without words.
    """
    if not isinstance(text, str) or not text.strip() or count_words(text) == 0:
        raise SpeechSynthesisError(
            "Il n'y a rien à lire.",
            "Saisissez une phrase ou un mot.",
            f"nothing to synthesise in {text!r}",
        )
    return text.strip()


def with_word_pauses(text: str, pause_ms: int) -> str:
    """Insert ``<break time="..ms"/>`` between words, leaving existing tags intact."""
    if pause_ms <= 0:
        return text
    pause = f' <break time="{int(pause_ms)}ms"/> '
    parts = []
    for piece in re.split(r"(<[^<>]*>)", text):
        if _TAG.fullmatch(piece):
            parts.append(piece)
            continue
        # Only between words: punctuation stays glued to its word.
        parts.append(re.sub(r"(?<=\S)\s+(?=\w)", pause, piece))
    return "".join(parts)
