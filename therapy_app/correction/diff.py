"""Word-level differences between what the patient said and the corrected sentence."""

from __future__ import annotations

import difflib
import unicodedata
from dataclasses import dataclass, field

from therapy_app.correction.normalize import normalize_word
from therapy_app.correction.preserve import same_word, words

KEPT = "kept"
RESTORED = "restored"  # a word the patient left out, added back
CHANGED = "changed"  # a word said in another form (conjugation, paraphasia, pronoun)
REMOVED = "removed"  # a word dropped from the correction (filler, repetition)

# Two words count as forms of one another from this character similarity up:
# "manzer"/"mange" (0.73), "allé"/"aller" (0.89), "le"/"la" (0.5). Below it a
# pair is shown as a removal plus a restoration, never as a "change".
_SIMILAR = 0.5
# Tonic pronouns said in place of a clitic ("moi aller" for "je vais") have no
# letters in common with it but are the same word for the patient.
_PRONOUNS = {
    "moi": {"je", "j'", "me", "m'"},
    "toi": {"tu", "te", "t'"},
    "lui": {"il", "le", "l'"},
    "elle": {"elle", "la", "l'"},
    "eux": {"ils", "les", "leur"},
    "elles": {"elles", "les", "leur"},
    "nous": {"nous"},
    "vous": {"vous"},
}


@dataclass
class DiffOp:
    """One step of the word diff.

    Attributes:
        kind: "kept", "restored", "changed" or "removed".
        source: words from the patient's utterance (empty for "restored").
        target: words from the correction as displayed, capitals and
            punctuation included (empty for "removed").
    """

    kind: str
    source: list[str] = field(default_factory=list)
    target: list[str] = field(default_factory=list)


def display_words(sentence: str) -> list[str]:
    """Split a sentence into display words, gluing lone punctuation to its neighbour.

    French typography spaces some marks ("Tu viens ?"); such a mark is not a word.
    """
    words: list[str] = []
    pending = ""
    for token in sentence.split():
        if normalize_word(token):
            words.append(pending + token)
            pending = ""
        elif words:
            words[-1] = f"{words[-1]} {token}"
        else:
            pending = token + " "
    if pending and not words:
        return []
    return words


def _fold(word: str) -> str:
    decomposed = unicodedata.normalize("NFD", normalize_word(word))
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def _similarity(a: str, b: str) -> float:
    fa, fb = _fold(a), _fold(b)
    clitic = fb.split("'", 1)[0] + "'" if "'" in fb else fb
    if fb in _PRONOUNS.get(fa, ()) or clitic in _PRONOUNS.get(fa, ()):
        return 1.0
    return difflib.SequenceMatcher(None, fa, fb, autojunk=False).ratio()


def _align_block(source: list[str], target: list[str]) -> list[DiffOp]:
    """Align a replaced block word by word: substitutions, insertions, deletions.

    Edit-distance alignment where an insertion or deletion costs 1 and a
    substitution ``2 * (1 - similarity)``, allowed only between similar words,
    so "aller" -> "allé" and "moi" -> "Je" pair up and nothing else does.
    """
    n, m = len(source), len(target)
    inf = float("inf")
    cost = [[inf] * (m + 1) for _ in range(n + 1)]
    back: list[list[str]] = [[""] * (m + 1) for _ in range(n + 1)]
    cost[0][0] = 0.0
    for i in range(n + 1):
        for j in range(m + 1):
            if i and j:
                sim = _similarity(source[i - 1], target[j - 1])
                if sim >= _SIMILAR:
                    cost[i][j], back[i][j] = cost[i - 1][j - 1] + 2 * (1 - sim), "sub"
            if i and cost[i - 1][j] + 1 < cost[i][j] - 1e-9:
                cost[i][j], back[i][j] = cost[i - 1][j] + 1, "del"
            if j and cost[i][j - 1] + 1 < cost[i][j] - 1e-9:
                cost[i][j], back[i][j] = cost[i][j - 1] + 1, "ins"
    ops: list[DiffOp] = []
    i, j = n, m
    while i or j:
        move = back[i][j]
        if move == "sub":
            ops.append(DiffOp(CHANGED, [source[i - 1]], [target[j - 1]]))
            i, j = i - 1, j - 1
        elif move == "del":
            ops.append(DiffOp(REMOVED, [source[i - 1]], []))
            i -= 1
        else:
            ops.append(DiffOp(RESTORED, [], [target[j - 1]]))
            j -= 1
    ops.reverse()
    return ops


def _merge(ops: list[DiffOp]) -> list[DiffOp]:
    # Runs of kept/restored/removed words read better as one span; changes stay
    # one pair each so that every "said -> meant" pair can be shown.
    merged: list[DiffOp] = []
    for op in ops:
        if merged and merged[-1].kind == op.kind and op.kind != CHANGED:
            merged[-1].source.extend(op.source)
            merged[-1].target.extend(op.target)
        else:
            merged.append(DiffOp(op.kind, list(op.source), list(op.target)))
    return merged


def word_diff(source: str, target: str) -> list[DiffOp]:
    """Differences between an utterance and its correction, word by word.

    Words are matched case- and punctuation-insensitively; the target side of
    each operation keeps the correction's display form ("Je", "hier.").

    Args:
        source: the patient's utterance (any casing and punctuation).
        target: the corrected sentence.

    Returns:
        Operations in reading order; kept, restored and removed runs merged.
    """
    src_words = [w for w in source.split() if normalize_word(w)]
    tgt_words = display_words(target)
    matcher = difflib.SequenceMatcher(
        None,
        [normalize_word(w) for w in src_words],
        [normalize_word(w) for w in tgt_words],
        autojunk=False,
    )
    ops: list[DiffOp] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            ops.append(DiffOp(KEPT, src_words[i1:i2], tgt_words[j1:j2]))
        elif tag == "insert":
            ops.append(DiffOp(RESTORED, [], tgt_words[j1:j2]))
        elif tag == "delete":
            ops.append(DiffOp(REMOVED, src_words[i1:i2], []))
        else:
            ops.extend(_align_block(src_words[i1:i2], tgt_words[j1:j2]))
    return _merge(ops)


# Words a correction may legitimately drop or replace beyond recognition:
# fillers, and function words the patient's grammar or the recogniser changes.
_DROPPABLE = {
    "euh", "heu", "hum", "ben", "bah", "hein",
    "le", "la", "les", "l'", "un", "une", "des", "du", "de", "d'", "à", "au", "aux",
    "et", "en", "y", "ne", "n'", "pas", "ce", "c'", "ça", "se", "s'", "me", "m'", "te", "t'",
    "est", "a", "ai", "as", "ont", "sont", "suis", "es", "va", "vais", "vas", "vont",
}  # fmt: skip


def missing_content_words(source: str, target: str) -> int:
    """Distinct content words of ``source`` with no similar word in ``target``.

    A correction restores grammar around the patient's words; one that loses
    a noun or a verb altogether ("ma fille habite à lyon" -> "Ma fille
    habite.") has changed what the patient meant.
    """
    targets = [normalize_word(w) for w in target.split() if normalize_word(w)]
    # The irregular forms the preservation check knows ("avoir" -> "ai", "aller" ->
    # "vais", "être" -> "suis") share too few letters with their infinitive: counted
    # as lost, they made "j'avais mal" outrank "j'ai mal" and "je suis allé" outrank
    # "je vais" for input with no tense cue.
    pieces = words(target)
    missing = 0
    for word in {normalize_word(w) for w in source.split()}:
        if not word or word in _DROPPABLE:
            continue
        if any(_similarity(word, t) >= _SIMILAR for t in targets):
            continue
        if not any(same_word(word, piece) for piece in pieces):
            missing += 1
    return missing
