"""How far what was said is from an answer: bare one-word answers, accepted forms, one WER rule.

Practice judges a try with these (:mod:`therapy_app.practice.scoring`), and
storage measures the stored WER and accuracy with the same functions, so a
stored try's figures agree with its verdict ("un chat" for the picture
"chat" is stored with WER 0, not 1).
"""

from __future__ import annotations

from collections.abc import Sequence

from therapy_app.analysis.metrics import word_error_rate, words

ANSWER_FRAME = frozenset({"un", "une", "le", "la", "l", "les", "des", "du", "de", "c", "est", "ce"})
"""Words around a named object that do not change which object was named."""


def bare_answer(text: str) -> str:
    """``text`` lowercased without punctuation, "c'est" and determiners.

    "C'est un chat." -> "chat"; "l'arbre" -> "arbre"; "une chat" -> "chat".
    """
    cleaned = text.lower().replace("’", "'").replace("'", " ")
    kept = [w.strip('.,;:!?…«»"') for w in cleaned.split()]
    return " ".join(w for w in kept if w and w not in ANSWER_FRAME)


def _contains(heard: list[str], answer: list[str]) -> bool:
    n = len(answer)
    return n > 0 and any(heard[i : i + n] == answer for i in range(len(heard) - n + 1))


def best_wer(
    heard: str, accepted: Sequence[str], allow_within: bool = False
) -> tuple[float | None, str]:
    """Lowest WER of ``heard`` against the accepted forms, and the form it was measured on.

    Args:
        heard: the transcript.
        accepted: accepted forms.
        allow_within: an accepted form said inside a longer utterance counts
            as said ("c'est une pomme" for "pomme"): WER 0 (completion only).
    """
    heard_words = words(heard)
    scored = [(word_error_rate(form, heard), form) for form in accepted if words(form)]
    if not scored or not heard_words:
        return None, accepted[0] if accepted else ""
    if allow_within:
        for form in accepted:
            if _contains(heard_words, words(form)):
                return 0.0, form
    return min(scored, key=lambda pair: pair[0])


def answer_wer(kind: str, said: str, target: str, matched: str | None = None) -> float | None:
    """The WER a judged try is stored with: the lowest over the forms practice accepts.

    ``matched`` is the accepted form practice measured the try on (stored with
    it); the target itself always counts. A completion answer said inside a
    longer utterance counts as said; a picture's name counts with any
    determiner or "c'est" (:func:`bare_answer`). None when the target has no
    word; 1.0 when nothing was said.
    """
    forms = [f for f in dict.fromkeys([matched or "", target]) if words(f)]
    if not forms:
        return None
    if not words(said):
        return 1.0
    wer, _ = best_wer(said, forms, allow_within=kind == "completion")
    assert wer is not None  # forms and said both have words
    if kind == "naming":
        bare = bare_answer(said)
        if bare:
            wer = min(wer, word_error_rate(bare_answer(target), bare))
    return wer
