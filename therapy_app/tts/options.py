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

MAX_TEXT_CHARS = 1000
"""Longest text spoken in one call: ~90 s of speech at 140 wpm, synthesised in
~0.3 s. A 20,000-word text took 2 GB and two minutes;
therapy sentences are a few dozen characters."""

_TAG = re.compile(r"<[^<>]*>")
_WORD = re.compile(r"\w+(?:['’-]\w+)*")
# The one tag the app writes (pauses); Pico's other tags are not offered.
# "<break" or "</speed" with no ">" after it; "3 < 4" is a lone bracket.
_UNFINISHED_TAG = re.compile(r"</?[^\W\d_][^\s<>]*")
_BREAK_TAG = re.compile(r"""<break\s+time\s*=\s*(["'])\d+(?:\.\d+)?\s*m?s\1\s*/?>""", re.I)


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


def clean_markup(text: str) -> str:
    """``text`` with only well-formed ``<break time="..."/>`` tags left.

    Pico reads what it cannot parse as a tag aloud: a stray ``<break`` or ``>``
    was spoken as words, and its other tags (``<speed>``, ``<pitch>``, an
    unclosed one changing the rest of the text) are no part of the app's
    speech. Every other complete tag, and every lone angle
    bracket ("3 < 4"), becomes a space; an unfinished tag is refused rather
    than guessed at.

    Raises:
        SpeechSynthesisError: a tag is opened and never closed ("<break").
    """
    pieces, start = [], 0
    for match in [*_BREAK_TAG.finditer(text), None]:
        end = match.start() if match is not None else len(text)
        between = _TAG.sub(" ", text[start:end])
        unfinished = _UNFINISHED_TAG.search(between)
        if unfinished is not None:
            raise SpeechSynthesisError(
                f"Le texte contient une balise incomplète (« {unfinished.group()} »).",
                "Retirez-la, ou fermez-la par « > ».",
                f"unfinished tag {unfinished.group()!r} in {text!r}",
            )
        pieces.append(between.replace("<", " ").replace(">", " "))
        if match is not None:
            pieces.append(match.group())
            start = match.end()
    return "".join(pieces)


def check_text(text: str) -> str:
    """The text, stripped and cleaned of unknown markup, or a French error.

    Raises:
        SpeechSynthesisError: empty, whitespace only, markup without words, or
            longer than :data:`MAX_TEXT_CHARS`.
    """
    if isinstance(text, str) and len(text) > MAX_TEXT_CHARS:
        raise SpeechSynthesisError(
            f"Le texte est trop long pour être lu (plus de {MAX_TEXT_CHARS} caractères).",
            "Lisez-le en plusieurs fois.",
            f"{len(text)} characters to synthesise, limit {MAX_TEXT_CHARS}",
        )
    cleaned = clean_markup(text) if isinstance(text, str) else ""
    if not cleaned.strip() or count_words(cleaned) == 0:
        raise SpeechSynthesisError(
            "Il n'y a rien à lire.",
            "Saisissez une phrase ou un mot.",
            f"nothing to synthesise in {text!r}",
        )
    return cleaned.strip()


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
