"""The patient's recordings split into those to learn from and those to check the result on."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from therapy_app.analysis.closed_class import CLOSED_CLASS_WORDS
from therapy_app.analysis.metrics import words
from therapy_app.voice.model import VoiceSample

HELD_OUT_SHARE = 0.2
MIN_HELD_OUT = 5
"""Fewer held-out recordings could not tell a better model from chance at all."""


@dataclass(frozen=True)
class Split:
    """Recordings to learn from and recordings kept aside to check the result.

    Attributes:
        train: taught to the personal model.
        held_out: never taught; the generic and personal models are compared on them.
        unseen: held-out recordings none of whose content words is in ``train``.
    """

    train: tuple[VoiceSample, ...]
    held_out: tuple[VoiceSample, ...]
    unseen: int


def _key(text: str) -> tuple[str, ...]:
    return tuple(words(text))


def content_words(text: str) -> set[str]:
    """The words of ``text`` that carry meaning (all of them when none does)."""
    found = words(text)
    return set(found) - CLOSED_CLASS_WORDS or set(found)


def split_samples(
    samples: Sequence[VoiceSample], share: float = HELD_OUT_SHARE, minimum: int = MIN_HELD_OUT
) -> Split:
    """Split the recordings, the same way every time for the same recordings.

    Recordings of the same words stay together. Texts are taken in the order
    of a hash of their words (stable, unrelated to when they were recorded)
    and held out first when none of their content words is said in another
    text, so that the check measures words the model never learnt; only when
    there are not enough such texts are others held out. About ``share`` of
    the recordings, at least ``minimum``, are held out.
    """
    groups: dict[tuple[str, ...], list[VoiceSample]] = {}
    for sample in sorted(samples, key=lambda s: (s.text, str(s.audio))):
        groups.setdefault(_key(sample.text), []).append(sample)
    order = sorted(groups, key=lambda k: hashlib.sha256(" ".join(k).encode()).hexdigest())
    quota = min(max(minimum, round(len(samples) * share)), len(samples) - 1)
    owners: dict[str, set[tuple[str, ...]]] = {}
    for key in order:
        for word in content_words(" ".join(key)):
            owners.setdefault(word, set()).add(key)
    held: list[tuple[str, ...]] = []
    count = 0

    def take(key: tuple[str, ...]) -> None:
        nonlocal count
        held.append(key)
        count += len(groups[key])

    for clean_only in (True, False):
        for key in order:
            if key in held or count + len(groups[key]) > quota:
                continue
            if clean_only and any(
                owners[w] - set(held) - {key} for w in content_words(" ".join(key))
            ):
                continue
            take(key)
    for key in order:  # only big groups left: overshoot rather than check on too few
        if count >= min(minimum, quota):
            break
        if key not in held and len(samples) - count - len(groups[key]) > 0:
            take(key)
    held_set = set(held)
    train = tuple(s for k in order if k not in held_set for s in groups[k])
    held_out = tuple(s for k in order if k in held_set for s in groups[k])
    taught = set().union(*(content_words(s.text) for s in train)) if train else set()
    unseen = sum(1 for s in held_out if not content_words(s.text) & taught)
    return Split(train, held_out, unseen)
