"""Loads corpus splits as token ids and groups them into length-bucketed batches."""

from __future__ import annotations

import json
import logging
import random
from dataclasses import dataclass
from pathlib import Path

import sentencepiece as spm
import torch
from torch import Tensor

from models.corrector.tokenizer import BOS_ID, EOS_ID, PAD_ID

_LOGGER = logging.getLogger(__name__)


@dataclass(frozen=True)
class Example:
    """One encoded pair.

    Attributes:
        src: source ids followed by EOS.
        tgt: target ids (no BOS/EOS).
        severity: the corpus severity tag ("intact", "mild", ...).
    """

    src: list[int]
    tgt: list[int]
    severity: str


@dataclass(frozen=True)
class Batch:
    """Padded tensors for one training step.

    Attributes:
        src: (B, S) source ids.
        tgt_in: (B, T) BOS + target ids.
        tgt_out: (B, T) target ids + EOS (PAD where ignored).
        n_tokens: real target tokens (EOS included), the loss normaliser.
    """

    src: Tensor
    tgt_in: Tensor
    tgt_out: Tensor
    n_tokens: int


def load_split(
    path: Path, sp: spm.SentencePieceProcessor, max_src: int, max_tgt: int
) -> list[Example]:
    """Encode a JSONL split, dropping pairs longer than the limits."""
    rows = []
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                rows.append(json.loads(line))
    srcs = sp.encode([r["src"] for r in rows])
    tgts = sp.encode([r["tgt"] for r in rows])
    examples = []
    for row, src, tgt in zip(rows, srcs, tgts, strict=True):
        if 0 < len(src) < max_src and 0 < len(tgt) < max_tgt:
            examples.append(Example(src + [EOS_ID], tgt, row.get("severity", "")))
    dropped = len(rows) - len(examples)
    _LOGGER.info("%s: %d pairs (%d dropped as too long/empty)", path.name, len(examples), dropped)
    return examples


def make_batches(
    examples: list[Example], batch_tokens: int, seed: int, shuffle: bool = True
) -> list[list[int]]:
    """Group example indices into batches of about ``batch_tokens`` padded tokens.

    Sorting by length (with a little noise so batches differ between epochs)
    keeps padding low; the batch order is then shuffled. The result only depends
    on ``seed``, which lets a resumed run rebuild the same epoch and skip ahead.
    """
    rng = random.Random(seed)
    keyed = [
        (max(len(e.src), len(e.tgt) + 1) + (rng.random() if shuffle else 0.0), i)
        for i, e in enumerate(examples)
    ]
    keyed.sort()
    batches: list[list[int]] = []
    current: list[int] = []
    longest = 0
    for _, i in keyed:
        ex = examples[i]
        length = max(len(ex.src), len(ex.tgt) + 1)
        if current and max(longest, length) * (len(current) + 1) > batch_tokens:
            batches.append(current)
            current, longest = [], 0
        current.append(i)
        longest = max(longest, length)
    if current:
        batches.append(current)
    if shuffle:
        rng.shuffle(batches)
    return batches


def collate(examples: list[Example], indices: list[int]) -> Batch:
    """Pad the chosen examples into a :class:`Batch`."""
    chosen = [examples[i] for i in indices]
    src_len = max(len(e.src) for e in chosen)
    tgt_len = max(len(e.tgt) for e in chosen) + 1
    src = torch.full((len(chosen), src_len), PAD_ID, dtype=torch.long)
    tgt_in = torch.full((len(chosen), tgt_len), PAD_ID, dtype=torch.long)
    tgt_out = torch.full((len(chosen), tgt_len), PAD_ID, dtype=torch.long)
    for row, ex in enumerate(chosen):
        src[row, : len(ex.src)] = torch.tensor(ex.src)
        tgt_in[row, : len(ex.tgt) + 1] = torch.tensor([BOS_ID] + ex.tgt)
        tgt_out[row, : len(ex.tgt) + 1] = torch.tensor(ex.tgt + [EOS_ID])
    n_tokens = sum(len(e.tgt) + 1 for e in chosen)
    return Batch(src, tgt_in, tgt_out, n_tokens)
