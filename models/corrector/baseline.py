"""A small rule-based corrector: the baseline the trained model must beat."""

from __future__ import annotations

import re

from therapy_app.correction.normalize import normalize_text

_ELIDED_RE = re.compile(r"^(j|n|m|t|s|c|d|l|qu)'(?=\w)")

_FILLERS = {"euh", "heu", "hum", "ben", "bah", "hein"}
_TONIC = {"moi": "je", "toi": "tu", "lui": "il", "eux": "ils"}
_SUBJECTS = {
    "je": 0,
    "tu": 1,
    "il": 2,
    "elle": 2,
    "on": 2,
    "nous": 3,
    "vous": 4,
    "ils": 5,
    "ce": 2,
    "elles": 5,
}
# Present tense of frequent irregular verbs (je, tu, il, nous, vous, ils).
_IRREGULAR = {
    "être": "suis es est sommes êtes sont",
    "avoir": "ai as a avons avez ont",
    "aller": "vais vas va allons allez vont",
    "faire": "fais fais fait faisons faites font",
    "vouloir": "veux veux veut voulons voulez veulent",
    "pouvoir": "peux peux peut pouvons pouvez peuvent",
    "venir": "viens viens vient venons venez viennent",
    "prendre": "prends prends prend prenons prenez prennent",
    "boire": "bois bois boit buvons buvez boivent",
    "dormir": "dors dors dort dormons dormez dorment",
    "sortir": "sors sors sort sortons sortez sortent",
    "partir": "pars pars part partons partez partent",
    "lire": "lis lis lit lisons lisez lisent",
    "écrire": "écris écris écrit écrivons écrivez écrivent",
    "dire": "dis dis dit disons dites disent",
    "voir": "vois vois voit voyons voyez voient",
    "savoir": "sais sais sait savons savez savent",
    "comprendre": "comprends comprends comprend comprenons comprenez comprennent",
    "mettre": "mets mets met mettons mettez mettent",
    "attendre": "attends attends attend attendons attendez attendent",
    "finir": "finis finis finit finissons finissez finissent",
}
_ER_ENDINGS = ("e", "es", "e", "ons", "ez", "ent")
_VOWELS = tuple("aeiouyhéèêàâîôû")
_UNELIDED = {
    "j'": "je",
    "n'": "ne",
    "m'": "me",
    "t'": "te",
    "s'": "se",
    "c'": "ce",
    "d'": "de",
    "l'": "le",
    "qu'": "que",
}
_ELIDING = {"je", "ne", "me", "te", "se", "ce", "de", "le", "la", "que"}


def _present(infinitive: str, person: int) -> str | None:
    if infinitive in _IRREGULAR:
        return _IRREGULAR[infinitive].split()[person]
    if infinitive.endswith("er") and len(infinitive) > 3:
        stem = infinitive[:-2]
        ending = _ER_ENDINGS[person]
        if person == 3 and stem.endswith("g"):
            ending = "eons"  # mangeons
        return stem + ending
    return None


def _dedupe(words: list[str]) -> list[str]:
    out: list[str] = []
    for word in words:
        if word in _FILLERS or (out and out[-1] == word):
            continue
        out.append(word)
    return out


def _elide(words: list[str]) -> str:
    text = ""
    for i, word in enumerate(words):
        nxt = words[i + 1] if i + 1 < len(words) else ""
        if word in _ELIDING and nxt.startswith(_VOWELS):
            text += word[:-1] + "'"
        else:
            text += word + (" " if nxt else "")
    return text


def rule_correct(text: str) -> str:
    """Apply a few hand rules to an utterance.

    Drops fillers and stutter repetitions, replaces a leading tonic pronoun by
    the subject clitic, conjugates an infinitive that follows a subject in the
    present, adds "ne" before the verb when "pas" is there, elides, and writes
    a capital and a final period.

    Args:
        text: the utterance in any form.

    Returns:
        The rewritten sentence ("" for empty input).
    """
    split = [
        part for w in normalize_text(text).split() for part in _ELIDED_RE.sub(r"\1' ", w).split()
    ]
    words = _dedupe([_UNELIDED.get(w, w) for w in split])
    if not words:
        return ""
    if words[0] in _TONIC:
        words[0] = _TONIC[words[0]]
    if words[0] in _SUBJECTS and len(words) > 1:
        person = _SUBJECTS[words[0]]
        if words[1] == "pas" and len(words) > 2 and _present(words[2], person):
            words[1], words[2] = words[2], "pas"  # "moi pas comprendre": the verb first
        conjugated = _present(words[1], person)
        if conjugated is not None:
            words[1] = conjugated
        if "pas" in words[2:4] and words[1] not in ("ne", "n'"):
            words.insert(1, "ne")
    sentence = _elide(words)
    return sentence[0].upper() + sentence[1:] + "."
