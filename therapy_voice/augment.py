"""Noise and time masks on a batch's encoder states: a few recordings teach sounds, not frames."""

from __future__ import annotations

import torch

MASK_FRAMES = (5, 20)
"""Length of a time mask in encoder frames (20 ms each): 0.1-0.4 s, a phoneme or two."""
MASK_SPAN = 150
"""Masks start within the first 3 s, where the speech of a word or short sentence lies
(the rest of Whisper's 30 s window is the encoding of padding)."""


def augment_states(states: torch.Tensor, noise: float, masks: int) -> torch.Tensor:
    """``states`` [B, T, D] with Gaussian noise and ``masks`` time spans per recording.

    The noise's standard deviation is ``noise`` times the batch's; a masked
    span is replaced by its recording's mean state (SpecAugment's time masks,
    applied to the cached encoder output since the encoder is frozen). Draws
    from torch's global generator: the trainer seeds it per step, so a resumed
    run augments exactly as an uninterrupted one.
    """
    if noise <= 0 and masks <= 0:
        return states
    out = states + noise * states.std() * torch.randn_like(states) if noise > 0 else states.clone()
    low, high = MASK_FRAMES
    span = min(MASK_SPAN, states.shape[1])
    for row in range(states.shape[0]):
        mean = states[row].mean(0)
        for _ in range(masks):
            width = int(torch.randint(low, high, ()))
            start = int(torch.randint(0, max(1, span - width), ()))
            out[row, start : start + width] = mean
    return out
