"""How the app writes a phrase as a sentence: a capital first letter and a final stop."""

from __future__ import annotations

SENTENCE_ENDS = ".!?…"


def as_sentence(text: str) -> str:
    """``text`` stripped, with a capital first letter and a final stop unless it has one.

    One form everywhere a phrase becomes a sentence: a proposal shown to the
    patient ("moi aller boulangerie" -> "Moi aller boulangerie."), and a
    candidate the recogniser scores, because Whisper writes speech that way
    and scores "pomme" far below "Pomme." on the same audio.
    """
    text = text.strip()
    if not text:
        return text
    text = text[:1].upper() + text[1:]
    return text if text[-1] in SENTENCE_ENDS else text + "."
