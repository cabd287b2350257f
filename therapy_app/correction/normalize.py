"""Brings any input text to the corrector's source form: lowercase words, no punctuation."""

from __future__ import annotations

import re
import unicodedata

# Same rules as the corpus generator's rendering of the degraded side
# (models/corrector/corpus/tokens.py::normalize), so the model sees at run time
# exactly what it was trained on: apostrophes and word-internal hyphens stay
# ("j'ai", "est-ce"), every other punctuation mark becomes a space.
_PUNCT_RE = re.compile(r"[.,;:!?¿¡«»\"“”()\[\]{}…/]")
_DASH_RE = re.compile(r"(?<!\w)[-–—]|[-–—](?!\w)")
_SPACE_RE = re.compile(r"\s+")
_APOSTROPHES = str.maketrans({"’": "'", "‘": "'", "ʼ": "'", "`": "'", "\u00a0": " "})
_WORD_EDGE_RE = re.compile(r"^[^\w']+|[^\w']+$")
# Keyboards (and some transcripts) write "soeur", "coeur", "oeil"; the corpus and
# the model use the ligature, as French spelling does in every "oeu"/"oeil" word.
_LIGATURE_RE = re.compile(r"oe(?=u|il)")


def normalize_text(text: str) -> str:
    """Lowercase, NFC, curly apostrophes straightened, punctuation removed.

    Args:
        text: what the speech recogniser or a keyboard produced.

    Returns:
        Words separated by single spaces (empty when nothing is left).
    """
    text = unicodedata.normalize("NFC", text).translate(_APOSTROPHES).lower()
    text = _LIGATURE_RE.sub("œ", text)
    text = _PUNCT_RE.sub(" ", text)
    text = _DASH_RE.sub(" ", text)
    return _SPACE_RE.sub(" ", text).strip()


def normalize_word(word: str) -> str:
    """One displayed word reduced to its comparable form ("Hier." -> "hier")."""
    word = unicodedata.normalize("NFC", word).translate(_APOSTROPHES).lower()
    return _WORD_EDGE_RE.sub("", word)
