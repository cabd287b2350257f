"""Low-rank adapters on the decoder's linear layers: attach to train, gate or merge to export."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
from numpy.typing import NDArray
from torch import nn

from therapy_voice.whisper_torch import DecoderBlock, WhisperDecoderStep, decoder_blocks

# Every linear layer of a decoder block that runs in the decoder graph. The
# cross-attention key/value projection is left out: it runs in the encoder graph.
TARGETS = ("qkv", "out", "cross_q", "cross_out", "fc1", "fc2")


@dataclass(frozen=True)
class LoraSettings:
    """Adapter shape: W + (alpha / rank) * B @ A, with B initialised at zero."""

    rank: int = 16
    alpha: float = 32.0
    dropout: float = 0.05

    @property
    def scale(self) -> float:
        return self.alpha / self.rank


class LoraLinear(nn.Module):
    """A frozen linear layer plus a trainable low-rank update, optionally gated.

    ``forward(x, gate)`` returns ``base(x) + gate * scale * B(A(x))``: gate 0 is
    the plain layer exactly, 1 the adapted one. Without a gate the update is on.
    """

    def __init__(self, base: nn.Linear, settings: LoraSettings) -> None:
        super().__init__()
        self.base = base
        self.scale = settings.scale
        self.lora_a = nn.Parameter(torch.empty(settings.rank, base.in_features))
        self.lora_b = nn.Parameter(torch.zeros(base.out_features, settings.rank))
        nn.init.kaiming_uniform_(self.lora_a, a=5**0.5)
        self.dropout = nn.Dropout(settings.dropout)

    def forward(self, x: torch.Tensor, gate: torch.Tensor | None = None) -> torch.Tensor:
        down = nn.functional.linear(self.dropout(x), self.lora_a)
        update = self.scale * nn.functional.linear(down, self.lora_b)
        if gate is not None:
            update = gate * update
        out: torch.Tensor = self.base(x) + update
        return out


def attach_lora(decoder: WhisperDecoderStep, settings: LoraSettings) -> list[nn.Parameter]:
    """Freeze the decoder, wrap its block linears with adapters; returns the trainable ones."""
    for p in decoder.parameters():
        p.requires_grad_(False)
    params: list[nn.Parameter] = []
    for block in decoder_blocks(decoder):
        for name in TARGETS:
            wrapped = LoraLinear(getattr(block, name), settings)
            setattr(block, name, wrapped)
            params += [wrapped.lora_a, wrapped.lora_b]
    return params


def adapter_arrays(state: dict[str, torch.Tensor], scale: float) -> dict[str, np.ndarray]:
    """Adapter tensors of a state dict as fp16 arrays, with the scale, for ``np.savez``."""
    arrays = {k: v.detach().float().numpy().astype(np.float16) for k, v in state.items()
              if "lora_" in k}  # fmt: skip
    arrays["scale"] = np.asarray(scale, np.float32)
    return arrays


_SavedPair = tuple[DecoderBlock, str, NDArray[np.float32], NDArray[np.float32]]
"""A target layer's block, its name there, and its saved A and B."""


def _read(path: Path) -> tuple[dict[str, np.ndarray], float]:
    with np.load(path) as saved:
        arrays = {k: saved[k] for k in saved.files}
    return arrays, float(arrays.pop("scale"))


def _pairs(
    decoder: WhisperDecoderStep, path: Path, arrays: dict[str, np.ndarray]
) -> Iterator[_SavedPair]:
    """(block, layer name, A, B) for every target layer; refuses a file for another decoder."""
    for i, block in enumerate(decoder_blocks(decoder)):
        for name in TARGETS:
            key = f"blocks.{i}.{name}"
            a, b = arrays.pop(key + ".lora_a", None), arrays.pop(key + ".lora_b", None)
            if a is None or b is None:
                raise ValueError(f"{path.name}: no adapter for {key}")
            linear = getattr(block, name)
            linear = getattr(linear, "base", linear)  # a LoraLinear being trained
            if (b.shape[0], a.shape[1]) != tuple(linear.weight.shape):
                raise ValueError(f"{path.name}: {key} is {(b.shape[0], a.shape[1])}")
            yield block, name, a.astype(np.float32), b.astype(np.float32)
    if arrays:
        raise ValueError(f"{path.name}: unexpected arrays {sorted(arrays)[:3]}")


def _saved(decoder: WhisperDecoderStep, path: Path) -> tuple[list[_SavedPair], float]:
    """Every adapter pair of the file, all checked before any is used, and its scale."""
    arrays, scale = _read(path)
    return list(_pairs(decoder, path, arrays)), scale


def _copy_saved(layer: LoraLinear, a: np.ndarray, b: np.ndarray) -> None:
    with torch.no_grad():
        layer.lora_a.copy_(torch.from_numpy(a))
        layer.lora_b.copy_(torch.from_numpy(b))


def attach_saved(decoder: WhisperDecoderStep, path: Path) -> int:
    """Wrap the decoder's block linears with the saved adapters, to be gated at run time.

    Returns:
        The number of layers wrapped.

    Raises:
        ValueError: the file does not match this decoder's layers.
    """
    pairs, scale = _saved(decoder, path)
    for block, name, a, b in pairs:
        wrapped = LoraLinear(
            getattr(block, name), LoraSettings(a.shape[0], scale * a.shape[0], 0.0)
        )
        _copy_saved(wrapped, a, b)
        wrapped.requires_grad_(False)
        setattr(block, name, wrapped)
    return len(pairs)


def load_into(decoder: WhisperDecoderStep, path: Path) -> int:
    """Copy saved adapters into the trainable ``LoraLinear`` layers of ``attach_lora``.

    Returns:
        The number of layers loaded.

    Raises:
        ValueError: the file does not match this decoder's layers, rank or scale.
    """
    pairs, scale = _saved(decoder, path)
    for block, name, a, b in pairs:
        layer = getattr(block, name)
        if not isinstance(layer, LoraLinear) or layer.lora_a.shape != a.shape:
            raise ValueError(f"{path.name}: blocks.{name} does not fit the trainable adapters")
        if abs(layer.scale - scale) > 1e-6:
            raise ValueError(f"{path.name}: scale {scale} differs from {layer.scale}")
        _copy_saved(layer, a, b)
    return len(pairs)


def merge_adapters(decoder: WhisperDecoderStep, path: Path) -> int:
    """Add the saved low-rank updates into the decoder's plain linear weights.

    Returns:
        The number of layers changed.

    Raises:
        ValueError: the file does not match this decoder's layers.
    """
    pairs, scale = _saved(decoder, path)
    with torch.no_grad():
        for block, name, a, b in pairs:
            getattr(block, name).weight += scale * torch.from_numpy(b @ a)
    return len(pairs)
