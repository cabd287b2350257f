"""The recogniser's verbatim transcript style: what a transcript of spoken words should read."""

from __future__ import annotations

import re

FILLERS = frozenset({"euh", "heu", "hum"})
"""Hesitations a verbatim transcript leaves out (the fine-tuning data never teaches them)."""

_PUNCTUATION = re.compile(r"[.,;:!?…«»\"()\[\]]")


def verbatim_text(spoken: str) -> str:
    """``spoken`` as a verbatim transcript reads: lower case, plain apostrophes, no
    punctuation, no fillers ("Moi euh aller… boulanzerie ?" → "moi aller boulanzerie").

    Shared by the fine-tuning data (``models/asr``) and the personal-voice
    trainer (``therapy_voice``), so both teach the same style.
    """
    text = _PUNCTUATION.sub(" ", spoken.lower().replace("’", "'"))
    return " ".join(w for w in text.split() if w not in FILLERS)
