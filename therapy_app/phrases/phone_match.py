"""How well each phrase-book sentence's words, said in order, explain a try's phonemes."""

# A patient says a sentence of their book telegraphically and haltingly: some
# of its words, in its order, deformed, with pauses and "euh" between. So each
# sentence is spotted in the phone reader's posteriors as all its words in
# order (therapy_app.asr.spotting.fit_sequences), where a content word left
# out costs its phonemes times ``leave`` and a function word nothing; and any
# speech the sentence does not explain costs ``unexplained`` a frame, which is
# what keeps a short sentence ("Tu me manques.") from fitting every long try.
# Score: that cost over the phonemes of the sentence's content words.
# Settings: docs/decisions/0030-phrase-match-phones.md.

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from therapy_app.asr.phones import INVENTORY, label_of, variants
from therapy_app.asr.spotting import fit_sequences, spot
from therapy_app.phrases.content_words import content_words, lemma, sentence_words, word

_TONIC = {"je": "moi", "j'": "moi", "tu": "toi", "il": "lui", "on": "nous", "ils": "eux"}
"""Said for a subject pronoun in telegraphic speech ("moi vouloir café"): optional before it."""


_AVOIR = ("ai", "as", "a", "avons", "avez", "ont", "avais", "avait", "eu")
_ETRE = ("suis", "es", "est", "sommes", "êtes", "sont", "étais", "était", "été")
_SAID_FOR = {**dict.fromkeys(_AVOIR, "avoir"), **dict.fromkeys(_ETRE, "être"), "c'": "ça"}
"""What telegraphic speech says for a form: the auxiliaries' infinitive ("moi avoir
soixante-dix ans"), « ça » for « c'est » ("ça cher"). The verb table's lemma
leaves the auxiliaries as they are."""


@lru_cache(maxsize=65536)
def word_labels(text: str) -> tuple[str, ...]:
    """The phoneme strings a patient may say for one word: its form and its infinitive
    (or what telegraphic speech says for it), each schwa kept or dropped; a
    letter-to-sound guess for words the lexicon lacks."""
    said = (text, lemma(text), _SAID_FOR.get(text, ""))
    found = [label for label in map(label_of, said) if label]
    if not found:
        guess = "".join(p for p in word(text).phon if p in INVENTORY)
        found = [guess] if guess else []
    return tuple(dict.fromkeys(v for label in found for v in variants(label)))


def _said(text: str) -> list[tuple[str, bool]]:
    """The sentence's words in order, each with whether it is a content word."""
    content = set(content_words(text))
    out: list[tuple[str, bool]] = []
    for w in sentence_words(text):
        if w in _TONIC:
            out.append((_TONIC[w], False))
        out.append((w, w in content))
    return out


@dataclass(frozen=True)
class SentenceFit:
    """How a sentence, said telegraphically, explains a try.

    Attributes:
        score: its best in-order spotting cost over its content words' phonemes (≤ 0).
        unexplained: share of the try's speech frames outside its words on that path.
        phonemes: its content words' phonemes (the score's divisor).
    """

    score: float
    unexplained: float
    phonemes: int = 0


def phone_scores(
    logp: np.ndarray, texts: Sequence[str], leave: float, unexplained: float
) -> list[SentenceFit]:
    """Per sentence, how its words said in order explain the try.

    Args:
        logp: the try's log posteriors from the phone reader [T, 1 + phonemes].
        texts: the sentences.
        leave: cost per phoneme of a content word left out (≤ 0).
        unexplained: cost of a speech frame no word of the sentence explains (≥ 0).
    """
    if not texts:
        return []
    said = [_said(t) for t in texts]
    vocabulary = sorted({w for words in said for w, _ in words})
    labels = {w: word_labels(w) for w in vocabulary}
    flat = list(dict.fromkeys(x for w in vocabulary for x in labels[w]))
    cost = dict(zip(flat, spot(logp, flat).tolist(), strict=True))
    # Each word is spotted as the variant that fits the try best on its own
    # (per phoneme; on a tie the longer, which explains more of the try):
    # one sequence per sentence rather than one per combination of variants.
    chosen = {
        w: max(labels[w], key=lambda x: (cost[x] / len(x), len(x))) for w in vocabulary if labels[w]
    }
    sequences, phonemes = [], []
    for words in said:
        kept = [(chosen[w], content) for w, content in words if w in chosen]
        sequences.append([(x, leave * len(x) if content else 0.0) for x, content in kept])
        phonemes.append(sum(len(x) for x, content in kept if content))
    found = fit_sequences(logp, [s or [("a", 0.0)] for s in sequences], unexplained)
    speech = max(1, found.speech)
    return [
        SentenceFit(
            float(value) / max(1, n) if sequence else float("-inf"),
            float(frames) / speech if sequence else 1.0,
            n,
        )
        for value, frames, n, sequence in zip(
            found.costs, found.unexplained, phonemes, sequences, strict=True
        )
    ]
