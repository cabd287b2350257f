"""Which of the patient's phrase-book sentences an utterance may mean: words first, then sound."""

# Two passes (docs/decisions/0021-phrase-book-match.md; settings: 0024):
#
# 1. Lexical, over the whole book (precomputed once per book): the heard
#    content words against each sentence's content words, by lemma key,
#    phonemes and spelling (therapy_app.phrases.content_words). Score =
#    weighted coverage of the sentence's content words, less a penalty for
#    heard content words the sentence does not explain.
# 2. Acoustic, on the few best: the recording scored by the recogniser's
#    forced decoding against each candidate's full sentence and telegraphic
#    form ("Moi vouloir café."), and against the free transcript; each form's
#    score on silence (the decoder's prior) is taken off. The encoder output of
#    hearing the utterance is reused when the caller passes the recogniser view
#    that heard it (speech.chain does).
#
# A match is clear, and proposed first, only with a lexical floor, an acoustic
# margin over the other candidates and, unless the heard words name it surely, no
# large loss against the transcript; otherwise every match is returned with
# clear=False and nothing changes.
#
# When the recogniser has its phone reader (the shipped one does), the second
# pass is replaced (docs/decisions/0030-phrase-match-phones.md): every sentence
# of the book is spotted in the try's phoneme posteriors, its words in order,
# left-out words and unexplained speech costing (therapy_app.phrases.phone_match);
# that score plus the lexical one ranks the book, and the best is clear by a
# margin over the next. It reads the sounds, so a garbled transcript does not
# hide the sentence, and it needs no candidate list from the words heard.

from __future__ import annotations

import logging
import math
import threading
import time
import weakref
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from therapy_app.phrases.content_words import (
    Word,
    content_words,
    edit_similarity,
    is_content,
    lemma,
    sentence_words,
    word,
)
from therapy_app.phrases.model import PhraseBook, PhraseMatch
from therapy_app.phrases.phone_match import phone_scores
from therapy_app.written import as_sentence

if TYPE_CHECKING:
    from therapy_app.asr.recognizer import EncodedAudio, SpeechRecognizer
    from therapy_app.asr.utterance import HeardUtterance
    from therapy_app.audio.clip import AudioClip
    from therapy_app.practice.scoring import EncodeOnce

    # What the acoustic check scores with: pass the view that heard the utterance
    # (EncodeOnce) to reuse its encoder output.
    Scorer = SpeechRecognizer | EncodeOnce

_LOGGER = logging.getLogger(__name__)


@dataclass(frozen=True)
class MatchSettings:
    """Thresholds of the match, chosen on a dev set (docs/decisions/0024-phrase-match-prior.md).

    Attributes:
        similar: two words below this similarity (0-1) do not match at all.
        extra_penalty: lexical score lost per unexplained heard content word
            (as a share of the heard content words).
        candidate_floor: lexical score a sentence needs to be checked acoustically.
        candidates: sentences checked acoustically, best lexical first.
        kept: matches returned (clear or not).
        lexical_floor: lexical score a clear match needs.
        margin: acoustic margin (mean log-probability per token) a clear match
            needs over the next candidate.
        transcript_gap: how far below the free transcript's score a clear
            match may fall (negative: may score worse); None: not checked.
        sure_lexical: lexical score from which the transcript gap is not
            asked (the heard words already name the sentence; the transcript,
            the decoder's own output, always fits the recording better than a
            sentence with the words the patient left out); None: always asked.
        prior_weight: share of each candidate's score on silence taken off
            before the margin (:func:`therapy_app.verdict.evidence`: short,
            common sentences fit any recording); the transcript gap stays on
            plain scores.
        phone_leave: with the phone reader, cost per phoneme of a content word
            left out (:mod:`therapy_app.phrases.phone_match`).
        phone_unexplained: cost of a speech frame the sentence does not explain.
        phone_lexical: weight of the lexical score added to the phoneme score.
        phone_margin: lead of the best sentence over the next that makes it clear.
        phone_unexplained_share: the most of the try's speech frames a clear
            sentence may leave outside its words ("la télévision marche pas" is
            not « Éteins la télévision. »).

    With the phone reader (docs/decisions/0030-phrase-match-phones.md) every
    sentence of the book is scored by its phonemes plus ``phone_lexical`` x its
    lexical score, and the ``phone_*`` settings decide; the decoder's check
    and its settings (``candidates`` to ``prior_weight``) serve a recogniser
    without a reader. The ``phone_*`` values were chosen again on both dev sets
    (docs/decisions/0038-phrase-match-second-dev-set.md): on the second, built
    after them, the first ones put a book sentence first for 12 % of the
    utterances whose meaning was in no sentence.
    """

    similar: float = 0.6
    extra_penalty: float = 0.5
    candidate_floor: float = 0.2
    candidates: int = 5
    kept: int = 5
    lexical_floor: float = 0.4
    margin: float = 0.8
    transcript_gap: float | None = -0.5
    sure_lexical: float | None = 0.7
    prior_weight: float = 1.0
    phone_leave: float = -7.0
    phone_unexplained: float = 2.0
    phone_lexical: float = 2.0
    phone_margin: float = 2.0
    phone_unexplained_share: float = 0.4


DEFAULT_SETTINGS = MatchSettings()


# ----- the book, precomputed ------------------------------------------------------
@dataclass(frozen=True)
class _Sentence:
    content: tuple[Word, ...]
    weights: tuple[float, ...]
    telegraphic: str


@dataclass(frozen=True)
class BookIndex:
    """A phrase book ready for matching: content words, weights and a word index.

    Attributes:
        book: the phrase book.
        sentences: per phrase, its content words, their weights and telegraphic form.
        vocabulary: every distinct content word of the book.
        postings: per vocabulary word, (sentence, position) pairs where it occurs.
    """

    book: PhraseBook
    sentences: tuple[_Sentence, ...]
    vocabulary: tuple[Word, ...]
    postings: tuple[tuple[tuple[int, int], ...], ...]


@lru_cache(maxsize=8)
def index_book(book: PhraseBook) -> BookIndex:
    """Precompute ``book`` for :func:`match_phrases` (cached: a session matches many times).

    A content word said in few sentences weighs more than one said in many
    ("café" tells more than "vouloir" in a book of requests).
    """
    texts = [content_words(p.text) for p in book.phrases]
    frequency: dict[str, int] = {}
    for found in texts:
        for text in set(found):
            frequency[text] = frequency.get(text, 0) + 1
    n = max(1, len(texts))
    vocabulary: dict[str, int] = {}
    postings: list[list[tuple[int, int]]] = []
    sentences = []
    for s, found in enumerate(texts):
        words_ = tuple(word(t) for t in found)
        weights = tuple(1.0 + math.log(n / frequency[t]) for t in found)
        for position, text in enumerate(found):
            if text not in vocabulary:
                vocabulary[text] = len(vocabulary)
                postings.append([])
            postings[vocabulary[text]].append((s, position))
        sentences.append(_Sentence(words_, weights, telegraphic(book.phrases[s].text)))
    return BookIndex(
        book,
        tuple(sentences),
        tuple(word(t) for t in vocabulary),
        tuple(tuple(p) for p in postings),
    )


def telegraphic(text: str) -> str:
    """The sentence as a patient in Broca's aphasia may say it ("Moi vouloir café.").

    Its content words, verbs in the infinitive, "moi" for "je", the negation: the style of
    the halting speech the recogniser was adapted to (its telegraphic prompt
    is "moi aller maison manger pain").
    """
    kept = []
    for w in sentence_words(text):
        if w in _FIRST_PERSON:
            kept.append("moi")
        elif w in _NEGATION:
            kept.append(w)  # "moi pas dormir nuit": the one grammar word patients keep
        elif is_content(w):
            kept.append(lemma(w))
    kept = [w for i, w in enumerate(kept) if w != "moi" or "moi" not in kept[:i]]
    return as_sentence(" ".join(kept)) if kept else as_sentence(text)


_FIRST_PERSON = frozenset({"je", "j'"})
_NEGATION = frozenset({"pas", "jamais", "rien"})


# ----- lexical pass -----------------------------------------------------------------
def similarity(heard: Word, meant: Word, floor: float = DEFAULT_SETTINGS.similar) -> float:
    """How surely ``heard`` is a form of ``meant`` (0-1; 0 below ``floor``).

    1 for the same word or lemma key ("vouloir"/"voudrais"); else the closer
    of their phonemes and their lemma keys' spelling ("boulanzerie" is 0.88
    from "boulangerie").
    """
    near = _closeness(heard, meant, floor)
    return near if near >= floor else 0.0


SHORT = 3
"""Sounds this short must be the same: one phoneme apart, "fait" is "faim" and "allé"."""
KEY_LENGTH = 5
"""Lemma keys are compared by spelling only from this length ("fait"/"faim" are not close)."""


@lru_cache(maxsize=50_000)
def _closeness(heard: Word, meant: Word, floor: float) -> float:
    # Cached: a session's utterances repeat words, and each is compared with
    # every distinct word of the book.
    if heard.text == meant.text or heard.key == meant.key:
        return 1.0
    sound = 0.0
    # The words as said, and the infinitive a patient says for a conjugated verb.
    for a, b in {(heard.phon, meant.phon), (heard.phon, meant.lemma_phon)}:
        if max(len(a), len(b)) > SHORT:
            sound = max(sound, edit_similarity(a, b, floor))
    spelling = 0.0
    if min(len(heard.key), len(meant.key)) >= KEY_LENGTH:
        spelling = edit_similarity(heard.key, meant.key, floor)
    return max(sound, spelling)


@dataclass(frozen=True)
class _Lexical:
    sentence: int
    score: float


SPAN = 3
"""Longest run of heard words compared as one sound with a sentence's word."""


def _heard_units(heard: str) -> tuple[int, list[tuple[Word, tuple[int, ...]]]]:
    """The heard content words, and what is compared with the book's words.

    Each distinct content word, and each run of 2 to :data:`SPAN` consecutive
    heard words as one sound: the recogniser splits a word it does not know
    into words it knows ("café" heard as "qui a fait", "boulangerie" as
    "boule en gerie"). Returns the number of heard content words and the units,
    each with the content words it accounts for.
    """
    spoken = sentence_words(heard)
    said: dict[str, int] = {}
    for w in spoken:
        if is_content(w):
            said.setdefault(w, len(said))
    units: list[tuple[Word, tuple[int, ...]]] = [(word(w), (i,)) for w, i in said.items()]
    for start in range(len(spoken)):
        for n in range(2, SPAN + 1):
            run = spoken[start : start + n]
            if len(run) < n:
                break
            sound = "".join(word(w).phon for w in run)
            covered = tuple(dict.fromkeys(said[w] for w in run if w in said))
            units.append((Word(" ".join(run), "", sound, sound), covered))
    return len(said), units


def lexical_scores(
    index: BookIndex, heard: str, settings: MatchSettings = DEFAULT_SETTINGS
) -> list[_Lexical]:
    """Every sentence sharing a word with ``heard``, best lexical score first.

    Score: the weighted share of the sentence's content words found in what
    was heard (each by its best similarity), less ``extra_penalty`` times the
    share of heard content words the sentence does not account for. Cost: one
    similarity per (heard unit, distinct book content word), most of them
    stopped by the lengths alone.
    """
    count, units = _heard_units(heard)
    if not count:
        return []
    # best[s][position] = best similarity of a heard unit to that content word;
    # explained[s][h] = how well sentence s accounts for heard content word h.
    best: dict[int, list[float]] = {}
    explained: dict[int, list[float]] = {}
    for v, meant in enumerate(index.vocabulary):
        sims = [similarity(unit, meant, settings.similar) for unit, _ in units]
        top = max(sims)
        if top == 0.0:
            continue
        for s, position in index.postings[v]:
            row = best.setdefault(s, [0.0] * len(index.sentences[s].content))
            row[position] = max(row[position], top)
            ex = explained.setdefault(s, [0.0] * count)
            for (_, covered), sim in zip(units, sims, strict=True):
                for h in covered:
                    ex[h] = max(ex[h], sim)
    out = []
    for s, row in best.items():
        weights = index.sentences[s].weights
        coverage = sum(w * r for w, r in zip(weights, row, strict=True)) / sum(weights)
        missing = sum(1.0 - e for e in explained[s]) / count
        out.append(_Lexical(s, max(0.0, coverage - settings.extra_penalty * missing)))
    out.sort(key=lambda x: (-x.score, x.sentence))
    return out


# ----- acoustic check ---------------------------------------------------------------
@dataclass(frozen=True)
class AcousticCheck:
    """Forced-decoding scores (mean log-probability per token) of the few best candidates.

    Attributes:
        full: per candidate, its full sentence's score.
        telegraphic: per candidate, its telegraphic form's score.
        transcript: the free transcript's (None when nothing was heard).
        seconds: time spent scoring.
        prior_full: per candidate, its full sentence's score on silence
            (empty when not computed).
        prior_telegraphic: the same for its telegraphic form.
    """

    full: tuple[float, ...]
    telegraphic: tuple[float, ...]
    transcript: float | None = None
    seconds: float = 0.0
    prior_full: tuple[float, ...] = ()
    prior_telegraphic: tuple[float, ...] = ()

    @property
    def scores(self) -> tuple[float, ...]:
        """Per candidate, its full sentence's score or its telegraphic form's if better."""
        return tuple(max(f, t) for f, t in zip(self.full, self.telegraphic, strict=True))

    def evidence(self, prior_weight: float) -> tuple[float, ...]:
        """Per candidate, the better of its two forms once ``prior_weight`` x its prior is off."""
        if not prior_weight or not self.prior_full:
            return self.scores
        pairs = zip(
            self.full, self.telegraphic, self.prior_full, self.prior_telegraphic, strict=True
        )
        return tuple(max(f - prior_weight * pf, t - prior_weight * pt) for f, t, pf, pt in pairs)


class _PriorCache:
    """Each form's score on silence, per recogniser, kept across utterances.

    A prior depends on the text only (and, slightly, on the batch it was scored
    in: int8 scales are shared by a batch), and a patient's utterances keep
    meeting the same sentences of their book: a form scored once on silence
    is not scored again, which halves the acoustic check's cost.
    """

    SIZE = 4000

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_model: weakref.WeakKeyDictionary[object, OrderedDict[str, float]] = (
            weakref.WeakKeyDictionary()
        )

    @staticmethod
    def _model(recognizer: Scorer) -> object:
        # practice.scoring.EncodeOnce is made per utterance: the recogniser it wraps is the key.
        return getattr(recognizer, "recognizer", recognizer)

    def known(self, recognizer: Scorer, texts: Sequence[str]) -> dict[str, float]:
        """The priors of ``texts`` already scored with this recogniser."""
        with self._lock:
            kept = self._by_model.get(self._model(recognizer), OrderedDict())
            return {t: kept[t] for t in texts if t in kept}

    def keep(self, recognizer: Scorer, priors: dict[str, float]) -> None:
        """Remember new priors (the oldest are forgotten past :attr:`SIZE`)."""
        with self._lock:
            kept = self._by_model.setdefault(self._model(recognizer), OrderedDict())
            kept.update(priors)
            while len(kept) > self.SIZE:
                kept.popitem(last=False)


_PRIORS = _PriorCache()


def acoustic_check(
    recognizer: Scorer,
    audio: AudioClip | EncodedAudio,
    index: BookIndex,
    sentences: Sequence[int],
    heard: str,
    *,
    priors: bool = False,
) -> AcousticCheck:
    """Score the recording against the candidates (full and telegraphic) and the transcript.

    One batch of forced decodings on ``audio`` (its encoder output when it is
    one, or cached by an ``EncodeOnce`` recogniser); with ``priors``, the
    candidates' forms on silence too, each once per recogniser (:class:`_PriorCache`).
    """
    start = time.perf_counter()
    forms = [
        (as_sentence(index.book.phrases[s].text), index.sentences[s].telegraphic) for s in sentences
    ]
    own = heard.strip()
    candidates = list(dict.fromkeys(f for pair in forms for f in pair))
    known = _PRIORS.known(recognizer, candidates) if priors else {}
    # The forms whose prior is not known yet go first: priors_for scores the leading ones.
    unknown = [c for c in candidates if c not in known] if priors else []
    texts = [*unknown, *(c for c in candidates if c not in unknown)]
    texts += [own] if own and own not in candidates else []
    found = recognizer.score(audio, texts, priors_for=len(unknown))
    scored = {c.text: c.logprob_per_token for c in found}
    prior = {c.text: c.prior_per_token for c in found if c.prior_per_token is not None}
    if priors:
        _PRIORS.keep(recognizer, prior)
        prior |= known
    return AcousticCheck(
        tuple(scored[full] for full, _ in forms),
        tuple(scored[tele] for _, tele in forms),
        scored.get(own),
        time.perf_counter() - start,
        tuple(prior[full] for full, _ in forms) if priors else (),
        tuple(prior[tele] for _, tele in forms) if priors else (),
    )


def decide(
    lexical: Sequence[float],
    check: AcousticCheck | None,
    settings: MatchSettings = DEFAULT_SETTINGS,
) -> tuple[int | None, list[float | None]]:
    """Which candidate is a clear match (None: none), and each one's acoustic margin.

    The candidate the recording fits best (once the prior is off) is clear when
    its lexical score reaches the floor, it beats the other candidates by the
    margin, and it does not fit the recording much worse than the free
    transcript (``transcript_gap``, on plain scores; not asked from a lexical
    score of ``sure_lexical``).

    Args:
        lexical: the candidates' lexical scores, best first.
        check: their acoustic scores (None: no check ran, nothing is clear).
        settings: thresholds.
    """
    if check is None or not lexical:
        return None, [None] * len(lexical)
    plain = check.scores
    scores = check.evidence(settings.prior_weight)
    margins: list[float | None] = []
    if len(scores) == 1:
        # A lone candidate has no other candidate to beat: its margin is
        # reported against the transcript (plain scores: the transcript has no
        # prior), not required.
        margins.append(None if check.transcript is None else plain[0] - check.transcript)
    else:
        for i, own in enumerate(scores):
            margins.append(own - max(s for j, s in enumerate(scores) if j != i))
    best = max(range(len(scores)), key=lambda i: (scores[i], lexical[i]))
    margin = margins[best]
    clear = (
        lexical[best] >= settings.lexical_floor
        and (len(scores) == 1 or margin is None or margin >= settings.margin)
        and (
            settings.transcript_gap is None
            or check.transcript is None
            or (settings.sure_lexical is not None and lexical[best] >= settings.sure_lexical)
            or plain[best] - check.transcript >= settings.transcript_gap
        )
    )
    return (best if clear else None), margins


# ----- the match ----------------------------------------------------------------------
def match_phrases(
    recognizer: Scorer,
    heard: HeardUtterance,
    book: PhraseBook,
    *,
    acoustic: bool = True,
    settings: MatchSettings = DEFAULT_SETTINGS,
) -> list[PhraseMatch]:
    """Phrase-book sentences that may be meant, best first; the first is ``clear`` or none is.

    Args:
        recognizer: scores the recording against candidates; pass the view that
            heard it (``practice.scoring.EncodeOnce``) to reuse its encoder output.
        heard: the utterance (its transcript and the clip the recogniser heard).
        book: the patient's sentences.
        acoustic: False skips the acoustic check (nothing is then clear).
        settings: thresholds.

    Returns:
        Up to ``settings.kept`` matches; empty when no sentence shares a word
        with what was heard.

    Raises:
        AudioInputError: the clip cannot be scored (corrupt, too long).
    """
    if not book.phrases:
        return []
    start = time.perf_counter()
    index = index_book(book)
    text = heard.transcript.text
    reader = recognizer.phones if acoustic else None
    if reader is not None and heard.asr_clip.duration > 0:
        logp = reader.posteriors(recognizer.encode(heard.asr_clip))
        matches = match_by_phones(logp, index, text, settings)
        _log(book, text, matches, start, "phonemes")
        return matches
    ranked = lexical_scores(index, text, settings)[: settings.kept]
    if not ranked:
        return []
    checked = [r for r in ranked[: settings.candidates] if r.score >= settings.candidate_floor]
    check = None
    if acoustic and checked and heard.asr_clip.duration > 0:
        sentences = [r.sentence for r in checked]
        priors = settings.prior_weight > 0
        check = acoustic_check(recognizer, heard.asr_clip, index, sentences, text, priors=priors)
    clear, margins = decide([r.score for r in checked], check, settings)
    order = list(range(len(ranked)))
    if clear is not None:
        order.remove(clear)
        order.insert(0, clear)
    matches = [
        PhraseMatch(
            book.phrases[ranked[i].sentence],
            round(ranked[i].score, 4),
            None if i >= len(margins) or margins[i] is None else round(margins[i] or 0.0, 4),
            clear=i == clear,
        )
        for i in order
    ]
    _log(book, text, matches, start, "decoder")
    return matches


def _log(book: PhraseBook, text: str, matches: list[PhraseMatch], start: float, by: str) -> None:
    _LOGGER.info(
        "phrase book (%d sentences, %s): %r -> %s in %.0f ms",
        len(book),
        by,
        text,
        f"clear {matches[0].phrase.text!r}" if matches and matches[0].clear else "no clear match",
        1000 * (time.perf_counter() - start),
    )


@dataclass(frozen=True)
class BookFit:
    """Every sentence of a book against one try (the phoneme path of the match).

    Attributes:
        combined: per sentence, its phoneme score plus ``phone_lexical`` x its lexical score.
        lexical: per sentence, its lexical score (0 when it shares no word with the transcript).
        unexplained: per sentence, the share of the try's speech it leaves unexplained.
        phonemes: per sentence, its content words' phonemes (the phoneme score's divisor).
    """

    combined: list[float]
    lexical: list[float]
    unexplained: list[float]
    phonemes: list[int]


def combined_scores(
    logp: np.ndarray, index: BookIndex, heard: str, settings: MatchSettings = DEFAULT_SETTINGS
) -> BookFit:
    """Every sentence of the book scored on the try's phonemes and the heard words."""
    texts = [p.text for p in index.book.phrases]
    fits = phone_scores(logp, texts, settings.phone_leave, settings.phone_unexplained)
    lexical = [0.0] * len(texts)
    for found in lexical_scores(index, heard, settings):
        lexical[found.sentence] = found.score
    combined = [f.score + settings.phone_lexical * x for f, x in zip(fits, lexical, strict=True)]
    return BookFit(combined, lexical, [f.unexplained for f in fits], [f.phonemes for f in fits])


def match_by_phones(
    logp: np.ndarray, index: BookIndex, heard: str, settings: MatchSettings = DEFAULT_SETTINGS
) -> list[PhraseMatch]:
    """Every sentence scored on the try's phonemes; the best is clear by ``phone_margin``
    when it leaves at most ``phone_unexplained_share`` of the speech unexplained.

    Returns the ``kept`` best, each with its margin (the best: over the
    next; the others: under the best). A book of one sentence has no other to
    beat: its margin is over saying none of its words, and it is clear only if
    the heard words name it too (``lexical_floor``): its grammar words alone
    fit much of any try, and no rival sentence shares that advantage.
    """
    fit = combined_scores(logp, index, heard, settings)
    combined, lexical = fit.combined, fit.lexical
    order = sorted(range(len(combined)), key=lambda i: (-combined[i], i))[: settings.kept]
    best = order[0]
    if len(order) > 1:
        runner_up = combined[order[1]]
    else:
        runner_up = _nothing_said(logp, fit.phonemes[best], settings)
    margins = [combined[best] - runner_up] + [combined[i] - combined[best] for i in order[1:]]
    clear = (
        margins[0] >= settings.phone_margin
        and fit.unexplained[best] <= settings.phone_unexplained_share
        and (len(order) > 1 or lexical[best] >= settings.lexical_floor)
    )
    return [
        PhraseMatch(
            index.book.phrases[i],
            round(lexical[i], 4),
            round(margin, 4),
            clear=clear and k == 0,
        )
        for k, (i, margin) in enumerate(zip(order, margins, strict=True))
    ]


def _nothing_said(logp: np.ndarray, phonemes: int, settings: MatchSettings) -> float:
    """A sentence's score had the try said none of its words (every word left out,
    every speech frame unexplained), on the scale of its ``phonemes``."""
    speech = float(np.sum(logp.argmax(axis=1) != 0))
    n = max(1, phonemes)
    return (settings.phone_leave * phonemes - settings.phone_unexplained * speech) / n
