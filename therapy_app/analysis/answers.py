"""A one-word answer as said, without "c'est", determiners or punctuation (naming)."""

from __future__ import annotations

ANSWER_FRAME = frozenset({"un", "une", "le", "la", "l", "les", "des", "du", "de", "c", "est", "ce"})
"""Words around a named object that do not change which object was named."""


def bare_answer(text: str) -> str:
    """``text`` lowercased without punctuation, "c'est" and determiners.

    "C'est un chat." -> "chat"; "l'arbre" -> "arbre"; "une chat" -> "chat".
    """
    cleaned = text.lower().replace("’", "'").replace("'", " ")
    kept = [w.strip('.,;:!?…«»"') for w in cleaned.split()]
    return " ".join(w for w in kept if w and w not in ANSWER_FRAME)
