"""Deterministic halting-speech test sets built from the hand-written aphasia sets.

``dev`` (items of the first and second hand-written sets) is for tuning;
``blind`` (the held-out set) is only ever reported in aggregate, never tuned on.
Each item gets one voice and one pause bin, cycled so that every voice family
and every bin is represented, and its own room, noise and disfluencies.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from models.halting.speak import PAUSE_BINS, HaltingUtterance, seeded, speak_halting
from models.halting.voices import VoiceSpec, all_voices

ROOT = Path(__file__).resolve().parents[2]
EVAL_DIR = ROOT / "tests" / "data"
SPLITS = {
    "dev": ("aphasia_eval.jsonl", "aphasia_eval_blind.jsonl"),
    "blind": ("aphasia_eval_heldout.jsonl",),
}


@dataclass(frozen=True)
class EvalItem:
    """A hand-written item: what the patient says and the sentences they may mean."""

    uid: str
    src: str
    refs: tuple[str, ...]
    correct: bool


def load_items(split: str) -> list[EvalItem]:
    """Every hand-written item of a split, in file order."""
    items = []
    for name in SPLITS[split]:
        for line in (EVAL_DIR / name).read_text(encoding="utf-8").splitlines():
            if line.strip():
                d = json.loads(line)
                uid = f"{name.split('.')[0]}:{d['id']}"
                items.append(EvalItem(uid, d["src"], tuple(d["refs"]), "correct" in d["phenomena"]))
    return items


def voice_rotation(n: int, seed: str) -> list[VoiceSpec]:
    """n voices: Pico for a quarter of the items, the rest spread over espeak-ng voices."""
    voices = all_voices()
    pico, espeak = voices[0], voices[1:]
    order = seeded(seed, "voices").permutation(len(espeak))
    out = []
    for i in range(n):
        out.append(pico if i % 4 == 0 else espeak[int(order[(i - i // 4 - 1) % len(espeak)])])
    return out


def build_set(
    split: str, size: int = 120, voices: str = "mixed"
) -> list[tuple[EvalItem, HaltingUtterance]]:
    """The ``size`` utterances of a split (a deterministic sample of its items).

    Args:
        split: "dev" or "blind".
        size: items drawn (at most the split's size).
        voices: "mixed" (Pico and espeak-ng voices) or "pico" (one voice, as the
            issue's first measurement).
    """
    items = load_items(split)
    rng = seeded("halting-set", split)
    chosen = sorted(rng.permutation(len(items))[: min(size, len(items))].tolist())
    rotation = voice_rotation(len(chosen), split)
    if voices == "pico":
        rotation = [all_voices()[0]] * len(chosen)
    # Bins advance one step per round of four voices, so Pico (every 4th item)
    # meets every pause length too.
    bins = list(PAUSE_BINS)
    out = []
    for k, idx in enumerate(chosen):
        item = items[idx]
        utt = speak_halting(
            item.uid, item.src, rotation[k], bins[(k + k // 4) % len(bins)], seed=split
        )
        out.append((item, utt))
    return out
