"""Phonemes of a text and how well a try's encoder frames fit them (CTC), with numpy only.

The phone reader (``models/phones``) maps the recogniser's encoder frames to
phoneme posteriors; this module turns a candidate text into its phoneme
string from the lexicon (Lexique's one-character code, the one
:mod:`therapy_app.naming.sound_alikes` uses) and scores it against those
posteriors with the CTC forward algorithm. Unlike the decoder's scores it has
no language prior and an open alternative: the best phoneme string of any kind
(:func:`free_logprob`), so a try can be judged against "anything else".
"""

from __future__ import annotations

import gzip
import itertools
import re
from functools import lru_cache

import numpy as np

from therapy_app.paths import resources_dir

INVENTORY = "Raeitsklp@mdojnvybfzuOZgSw2895E§°1NG"
"""Lexique's phoneme symbols the reader knows; index 0 of its output is the CTC blank."""
_FOLD = {"r": "R"}
_ELIDED = {"l", "d", "j", "m", "t", "s", "n", "c", "qu", "jusqu", "lorsqu", "puisqu"}
_SPLIT = re.compile(r"\s+")
PRONUNCIATIONS = ("lexicon", "fr-pron.tsv.gz")
"""Every Lexique form with its phonemes (``models/naming/sound_alikes.py``)."""
_STRIP = '.,;:!?«»"()…'
SCHWA = "°"
MAX_VARIANTS = 8


@lru_cache(maxsize=1)
def pronunciations() -> dict[str, str]:
    """Every Lexique form -> its phonemes (read once, about 0.3 s)."""
    table: dict[str, str] = {}
    with gzip.open(resources_dir().joinpath(*PRONUNCIATIONS), "rt", encoding="utf-8") as handle:
        for line in handle:
            if not line.startswith("#"):
                form, _, phon = line.rstrip("\n").partition("\t")
                table[form] = phon
    return table


def _word_phon(word: str) -> str | None:
    phon = pronunciations().get(word)
    if phon is not None:
        return phon
    if "-" in word:
        parts = [_word_phon(p) if p else "" for p in word.split("-")]
        return None if any(p is None for p in parts) else "".join(p for p in parts if p)
    if "'" in word:
        head, _, rest = word.partition("'")
        parts = [_word_phon(head) if head in _ELIDED else None, _word_phon(rest) if rest else ""]
        if parts[0] is None and head in _ELIDED:
            parts[0] = {"qu": "k", "c": "s", "jusqu": "Zysk", "lorsqu": "lORsk"}.get(head)
        if all(p is not None for p in parts):
            return "".join(p for p in parts if p)
    return None


def label_of(text: str) -> str | None:
    """The lexicon's phonemes of ``text`` in the reader's inventory; None if a word is unknown.

    Elided words ("l'école", "qu'il") are split at the apostrophe, hyphenated
    ones the lexicon lacks at the hyphen; words are joined without liaison
    (the lexicon has none).
    """
    phones: list[str] = []
    for raw in _SPLIT.split(text.lower().replace("’", "'")):
        word = raw.strip(_STRIP)
        if not word:
            continue
        phon = _word_phon(word)
        if phon is None:
            return None
        phones.append("".join(_FOLD.get(p, p) for p in phon if _FOLD.get(p, p) in INVENTORY))
    label = "".join(phones)
    return label or None


def indices(label: str) -> list[int]:
    """The reader's class of each phoneme (1-based: 0 is the blank)."""
    return [INVENTORY.index(p) + 1 for p in label]


def variants(label: str) -> list[str]:
    """``label`` with each schwa kept or dropped ("sam°di" is often said "samdi")."""
    spots = [i for i, p in enumerate(label) if p == SCHWA]
    if not spots:
        return [label]
    spots = spots[: int(np.log2(MAX_VARIANTS))]
    out = []
    for keep in itertools.product((True, False), repeat=len(spots)):
        dropped = {i for i, k in zip(spots, keep, strict=True) if not k}
        out.append("".join(p for i, p in enumerate(label) if i not in dropped))
    return [v for v in dict.fromkeys(out) if v]


def padded_states(sequences: list[list[int]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """CTC state sequences (classes, blank 0) padded to one length, to advance together.

    Returns:
        The classes [n, s], which states are real (not padding), and where the
        CTC path may skip the blank before a state (a phoneme unlike the one
        two states back).
    """
    n, s = len(sequences), max(len(x) for x in sequences)
    classes = np.zeros((n, s), np.int64)
    valid = np.zeros((n, s), bool)
    for row, x in enumerate(sequences):
        classes[row, : len(x)] = x
        valid[row, : len(x)] = True
    skip = np.zeros((n, s), bool)
    skip[:, 2:] = (classes[:, 2:] != 0) & (classes[:, 2:] != classes[:, :-2]) & valid[:, 2:]
    return classes, valid, skip


def ctc_logprobs(logp: np.ndarray, labels: list[str]) -> list[float]:
    """log P(label | frames) of each label by the CTC forward algorithm, in one pass.

    Args:
        logp: log posteriors [T, 1 + len(INVENTORY)] (blank first).
        labels: non-empty phoneme strings in the reader's inventory.

    Returns:
        Each label's total log-probability over every alignment (-inf when it
        is longer than the frames allow). The labels' state sequences are
        padded to one length and advanced together: one numpy step per frame,
        not one per frame and label.
    """
    if not labels:
        return []
    exts = []
    for label in labels:
        ext = [0]
        for i in indices(label):
            ext += [i, 0]
        exts.append(ext)
    ext_a, valid, skip = padded_states(exts)
    n, s = ext_a.shape
    emit = np.where(valid[None], logp[:, ext_a], -np.inf)  # [T, n, s]
    alpha = np.full((n, s), -np.inf)
    alpha[:, 0] = emit[0, :, 0]
    alpha[:, 1] = emit[0, :, 1]
    pad = np.full((n, 2), -np.inf)
    for t in range(1, logp.shape[0]):
        shifted = np.concatenate([pad, alpha], axis=1)
        prev1 = shifted[:, 1:-1]
        prev2 = np.where(skip, shifted[:, :-2], -np.inf)
        alpha = np.logaddexp(np.logaddexp(alpha, prev1), prev2) + emit[t]
    ends = np.asarray([len(e) for e in exts])
    rows = np.arange(n)
    return [float(v) for v in np.logaddexp(alpha[rows, ends - 1], alpha[rows, ends - 2])]


def best_logprob(logp: np.ndarray, label: str) -> float:
    """:func:`ctc_logprobs` of the best schwa variant of ``label``."""
    return max(ctc_logprobs(logp, variants(label)))


def best_logprobs(logp: np.ndarray, labels: list[str]) -> list[float]:
    """:func:`best_logprob` of each label, every variant in one pass."""
    groups = [variants(label) for label in labels]
    flat = ctc_logprobs(logp, [v for group in groups for v in group])
    out, start = [], 0
    for group in groups:
        out.append(max(flat[start : start + len(group)]))
        start += len(group)
    return out


def free_logprob(logp: np.ndarray) -> float:
    """The best single path through the frames with no constraint on the phonemes.

    An upper bound on any label's best path: a label's score less this is a
    goodness of pronunciation (0 when the frames say exactly that label).
    """
    return float(logp.max(axis=1).sum())


def greedy(logp: np.ndarray) -> str:
    """The frames read as phonemes (best class per frame, repeats and blanks removed)."""
    best = logp.argmax(axis=1)
    out = [int(c) for c, _ in itertools.groupby(best) if c != 0]
    return "".join(INVENTORY[c - 1] for c in out)
