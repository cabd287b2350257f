"""Language metrics of French transcripts: words, MLU, function words, verbs, rate, WER.

Every function here is pure (no I/O, no clock) so that stored values can be
recomputed identically after a transcript edit. Definitions:

* **word**: a token from :func:`words`: lower case, punctuation removed, elided
  forms split off and counted as words ("l'homme" = 2 words, "j'ai" = 2),
  hesitation fillers ("euh", "hum", ...) removed.
* **MLU** (mean length of utterance, in words, not morphemes): for one attempt,
  the number of words of its utterance; for a session, the mean over all its
  attempts (an attempt where nothing was understood counts as 0 words).
* **function-word ratio**: closed-class words / words, with the curated list of
  :mod:`therapy_app.analysis.closed_class`.
* **verbs**: a documented heuristic (:func:`verb_count`), not a tagger.
* **words per minute**: words / speech seconds x 60, where speech seconds is
  the (VAD-trimmed) recording duration minus the pauses found by the VAD
  (:func:`speech_seconds`).
* **WER**: word-level Levenshtein distance (substitutions + deletions +
  insertions) / number of reference words, on :func:`words` of both texts;
  **accuracy** = max(0, 1 - WER).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from therapy_app.analysis.closed_class import (
    ARTICLES,
    AUXILIARY_FORMS,
    CLOSED_CLASS_WORDS,
    DETERMINERS,
    ELIDED_PREFIXES,
    ELISION_EXCEPTIONS,
    FILLERS,
    HYPHEN_CLITICS,
    NEGATION_PARTICLES,
)
from therapy_app.analysis.verb_forms import NON_VERB_ER, PARTICIPLE_ENDINGS, VERB_FORMS

_APOSTROPHES = str.maketrans({"\u2019": "'", "\u02bc": "'", "\u2018": "'", "`": "'", "\u00b4": "'"})
_HYPHENS = str.maketrans({"\u2010": "-", "\u2011": "-", "\u2013": "-"})
_TOKEN_RE = re.compile(r"[\w'-]+")
_HAS_ALNUM_RE = re.compile(r"[^\W_]")
_FILLER_RE = re.compile(r"^(e+u+h*m*|h+e+u+|h+u+m+|h+m+|m+h*m*|b+a+h+|p+f+)$")

# A token right after one of these is taken as a noun, not a verb ("la porte").
_NOUN_MARKERS = (ARTICLES | DETERMINERS) - {"de", "d'", "tout", "tous", "toutes", "toute"}
# These are also object clitics ("je la porte"): a noun marker only when no
# subject pronoun or negation stands right before them.
_CLITIC_AMBIGUOUS = frozenset("le la les l' leur".split())
_SUBJECTS = frozenset("je j' tu il elle on nous vous ils elles ne n' qui".split())
# Words allowed between an auxiliary and its participle ("n'a pas encore mangé").
_AUX_GAP = NEGATION_PARTICLES | frozenset(
    "bien déjà encore beaucoup toujours vraiment tout".split()
)
_AUX_WINDOW = 3


def normalize_text(text: str) -> str:
    """Lower case, NFC, typographic apostrophes and hyphens made plain."""
    return unicodedata.normalize("NFC", text).translate(_APOSTROPHES).translate(_HYPHENS).lower()


def _is_filler(token: str) -> bool:
    return token in FILLERS or bool(_FILLER_RE.match(token))


def _split_elisions(token: str) -> list[str]:
    out: list[str] = []
    while "'" in token and token not in ELISION_EXCEPTIONS:
        cut = token.index("'") + 1
        prefix, rest = token[:cut], token[cut:]
        if prefix not in ELIDED_PREFIXES:
            break
        out.append(prefix)
        token = rest
    if token:
        out.append(token)
    return out


def _split_hyphen_clitics(token: str) -> list[str]:
    parts = token.split("-")
    if len(parts) > 1 and parts[0] and all(p in HYPHEN_CLITICS for p in parts[1:]):
        return [parts[0]] + [p for p in parts[1:] if p != "t"]
    return [token]


def words(text: str) -> list[str]:
    """Split a French transcript into words (see the module docstring).

    >>> words("Euh, l'homme m'a dit-il... aujourd'hui")
    ["l'", 'homme', "m'", 'a', 'dit', 'il', "aujourd'hui"]
    """
    result: list[str] = []
    for raw in _TOKEN_RE.findall(normalize_text(text)):
        # Quotes written as apostrophes and dangling hyphens are punctuation.
        token = raw.strip("-").lstrip("'")
        if token.endswith("'") and token not in ELIDED_PREFIXES:
            token = token.rstrip("'")
        for piece in _split_elisions(token):
            for word in _split_hyphen_clitics(piece):
                if word and _HAS_ALNUM_RE.search(word) and not _is_filler(word):
                    result.append(word)
    return result


def word_count(text: str) -> int:
    """Number of words in ``text`` (= the attempt's length of utterance)."""
    return len(words(text))


def mean_length_of_utterance(word_counts: Sequence[int]) -> float | None:
    """Mean of per-utterance word counts; None for no utterances."""
    return sum(word_counts) / len(word_counts) if word_counts else None


def function_word_ratio(text: str) -> float | None:
    """Share of words that are closed-class words; None when there is no word."""
    tokens = words(text)
    if not tokens:
        return None
    return sum(1 for t in tokens if t in CLOSED_CLASS_WORDS) / len(tokens)


def _is_participle(token: str) -> bool:
    return token in VERB_FORMS or (len(token) > 2 and token.endswith(PARTICIPLE_ENDINGS))


def _after_noun_marker(tokens: Sequence[str], i: int) -> bool:
    if i == 0 or tokens[i - 1] not in _NOUN_MARKERS:
        return False
    if tokens[i - 1] in _CLITIC_AMBIGUOUS and i >= 2 and tokens[i - 2] in _SUBJECTS:
        return False
    return True


def _has_participle_after(tokens: Sequence[str], i: int) -> bool:
    for j in range(i + 1, min(len(tokens), i + 1 + _AUX_WINDOW)):
        if _is_participle(tokens[j]):
            return True
        if tokens[j] not in _AUX_GAP:
            return False
    return False


def _has_auxiliary_before(tokens: Sequence[str], i: int) -> bool:
    for j in range(i - 1, max(-1, i - 1 - _AUX_WINDOW), -1):
        if tokens[j] in AUXILIARY_FORMS:
            return True
        if tokens[j] not in _AUX_GAP:
            return False
    return False


def verb_count(text: str) -> int:
    """Number of verbs in ``text``, by a heuristic (no tagger is available offline).

    Rules, applied to each word in order:

    1. A form of *être*/*avoir* followed (within 3 words, allowing negation and
       a few adverbs) by a past participle is an auxiliary: not counted, its
       participle is. Otherwise it counts (copula or possession: "il est
       grand", "j'ai un chat").
    2. A form from the curated lexicon (:mod:`therapy_app.analysis.verb_forms`)
       counts unless a determiner stands right before it ("la porte" is a
       noun, "je la porte" a verb).
    3. Any other word ending in "-er" (not "-ier"/"-yer", not in the list of
       nouns in "-er") counts as an infinitive, with the same determiner rule.
    4. Any other word ending in "-é/-ée/-és/-ées" counts when an auxiliary
       stands before it ("il s'est levé").

    Other closed-class words never count. Expect misses on rare verbs in the
    present tense and on noun/verb homographs without a determiner.
    """
    tokens = words(text)
    count = 0
    for i, token in enumerate(tokens):
        if token in AUXILIARY_FORMS:
            if not _has_participle_after(tokens, i):
                count += 1
        elif token in CLOSED_CLASS_WORDS:
            continue
        elif token in VERB_FORMS:
            if not _after_noun_marker(tokens, i) or _has_auxiliary_before(tokens, i):
                count += 1
        elif (
            len(token) >= 4
            and token.endswith("er")
            and not token.endswith(("ier", "yer"))
            and token not in NON_VERB_ER
        ):
            if not _after_noun_marker(tokens, i):
                count += 1
        elif len(token) > 2 and token.endswith(PARTICIPLE_ENDINGS):
            if _has_auxiliary_before(tokens, i):
                count += 1
    return count


def speech_seconds(duration_s: float | None, pause_ratio: float | None) -> float | None:
    """Seconds of speech: the duration minus the pauses (``pause_ratio`` in [0, 1]).

    With no pause ratio (no VAD run) the whole duration counts as speech.
    """
    if duration_s is None:
        return None
    if pause_ratio is None:
        return duration_s
    return duration_s * (1.0 - min(1.0, max(0.0, pause_ratio)))


def words_per_minute(word_total: int, seconds_of_speech: float | None) -> float | None:
    """Words / speech seconds x 60; None when there is no speech time."""
    if seconds_of_speech is None or seconds_of_speech <= 0:
        return None
    return word_total * 60.0 / seconds_of_speech


@dataclass(frozen=True)
class WordErrors:
    """Edit operations between a reference and a hypothesis, in words.

    Attributes:
        substitutions: words replaced.
        deletions: reference words missing from the hypothesis.
        insertions: hypothesis words not in the reference.
        reference_words: number of reference words (the WER denominator).
    """

    substitutions: int
    deletions: int
    insertions: int
    reference_words: int

    @property
    def wer(self) -> float:
        """(S + D + I) / N; may exceed 1 when the hypothesis is long."""
        return (self.substitutions + self.deletions + self.insertions) / self.reference_words

    @property
    def accuracy(self) -> float:
        """max(0, 1 - WER)."""
        return max(0.0, 1.0 - self.wer)


def word_errors(reference: str, hypothesis: str) -> WordErrors:
    """Align two texts word by word (Levenshtein) and count the edits.

    Raises:
        ValueError: the reference has no word (WER is undefined).
    """
    ref, hyp = words(reference), words(hypothesis)
    if not ref:
        raise ValueError("WER needs a reference with at least one word")
    # prev[j] = (cost, subs, dels, ins) for ref[:i] vs hyp[:j], one row at a time.
    # On equal cost a substitution is preferred: one error per wrong word reads
    # better in the therapist's view than a deletion plus an insertion.
    prev = [(j, 0, 0, j) for j in range(len(hyp) + 1)]
    for i in range(1, len(ref) + 1):
        cur = [(i, 0, i, 0)]
        for j in range(1, len(hyp) + 1):
            if ref[i - 1] == hyp[j - 1]:
                cur.append(prev[j - 1])
                continue
            c, s, d, n = prev[j - 1]
            best = (c + 1, s + 1, d, n)
            c, s, d, n = prev[j]
            if c + 1 < best[0]:
                best = (c + 1, s, d + 1, n)
            c, s, d, n = cur[j - 1]
            if c + 1 < best[0]:
                best = (c + 1, s, d, n + 1)
            cur.append(best)
        prev = cur
    _, subs, dels, ins = prev[-1]
    return WordErrors(subs, dels, ins, len(ref))


def word_error_rate(reference: str, hypothesis: str) -> float:
    """WER of ``hypothesis`` against ``reference`` (see :func:`word_errors`)."""
    return word_errors(reference, hypothesis).wer


def repetition_accuracy(reference: str, hypothesis: str) -> float:
    """max(0, 1 - WER): 1.0 for a perfect repetition, 0.0 for nothing right."""
    return word_errors(reference, hypothesis).accuracy


@dataclass(frozen=True)
class AttemptMetrics:
    """Metrics stored with each attempt (None where undefined).

    Attributes:
        word_count: words of the patient's own utterance (its length of utterance).
        function_word_ratio: closed-class words / words of that utterance.
        verb_count: verbs of that utterance (heuristic).
        words_per_minute: words / speech minutes of that utterance.
        wer: WER of the repetition against its reference, if both exist.
        accuracy: max(0, 1 - wer).
    """

    word_count: int
    function_word_ratio: float | None
    verb_count: int
    words_per_minute: float | None
    wer: float | None
    accuracy: float | None


def attempt_metrics(
    utterance: str,
    duration_s: float | None,
    pause_ratio: float | None,
    reference: str | None,
    repetition: str | None,
) -> AttemptMetrics:
    """Compute every stored metric of one attempt.

    Args:
        utterance: the patient's transcript (raw ASR text or its edit).
        duration_s: duration of the VAD-trimmed recording (first to last speech,
            plus a short pad).
        pause_ratio: silence between the first and last speech / that span,
            from :meth:`VoiceActivityDetector.pause_ratio`; with the trimmed
            duration above, duration x (1 - ratio) approximates speaking time.
        reference: what the patient should have said (target or chosen sentence).
        repetition: what the patient said when repeating; when None the
            utterance itself is scored against the reference.
    """
    count = word_count(utterance)
    wer = accuracy = None
    if reference is not None and words(reference):
        errors = word_errors(reference, repetition if repetition is not None else utterance)
        wer, accuracy = errors.wer, errors.accuracy
    return AttemptMetrics(
        word_count=count,
        function_word_ratio=function_word_ratio(utterance),
        verb_count=verb_count(utterance),
        words_per_minute=words_per_minute(count, speech_seconds(duration_s, pause_ratio)),
        wer=wer,
        accuracy=accuracy,
    )
