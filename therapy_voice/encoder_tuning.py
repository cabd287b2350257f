"""The encoder's top: its last blocks, tuned by their biases and layer norms only (BitFit).

The decoder adapters learn which words a patient's sounds stand for; they cannot
change what the encoder hears. Tuning the encoder's own weights would need its
int8 matrices re-quantised per patient, but its biases and layer-norm gains are
fp32 initializers with stable names in the shipped encoder graph (the same names
as here), so a patient's values can replace them when the app opens its session,
as the decoder adapters do. Only the last blocks are tuned: their input is
prepared once per recording, and a step runs just those blocks (forward and
backward) instead of the whole encoder.
"""

from __future__ import annotations

import copy

import torch
from torch import nn

from therapy_voice.whisper_torch import WhisperEncoder, _split_heads

ENCODER_FILE = "encoder.npz"  # a personal model's encoder values, beside adapter.npz


class EncoderTop(nn.Module):
    """The last ``blocks`` encoder blocks, the final layer norm and the cross K/V projections.

    ``forward(states)`` takes the hidden states before those blocks [B, 1500, 512]
    and returns every decoder layer's cross-attention keys and values, as
    ``therapy_voice.teaching.cross_attention`` does for final states.
    """

    def __init__(self, encoder: WhisperEncoder, blocks: int) -> None:
        super().__init__()
        self.first = len(encoder.blocks) - blocks
        self.n_heads = encoder.dims.n_heads
        self.blocks = nn.ModuleList(list(encoder.blocks)[self.first :])
        self.ln = encoder.ln
        self.cross_kv = encoder.cross_kv

    def forward(self, states: torch.Tensor) -> list[tuple[torch.Tensor, torch.Tensor]]:
        x = states
        for block in self.blocks:
            x = block(x)
        x = self.ln(x)
        out: list[tuple[torch.Tensor, torch.Tensor]] = []
        for proj in self.cross_kv:
            k, v = proj(x).chunk(2, dim=-1)
            out.append((_split_heads(k, self.n_heads).contiguous(),
                        _split_heads(v, self.n_heads).contiguous()))  # fmt: skip
        return out

    def graph_names(self) -> dict[str, nn.Parameter]:
        """The tuned parameters by their initializer name in the encoder graph."""
        names: dict[str, nn.Parameter] = {}
        for i, block in enumerate(self.blocks, start=self.first):
            for name, param in block.named_parameters():
                if name.endswith("bias") or "_ln." in name:
                    names[f"blocks.{i}.{name}"] = param
        for name, param in self.ln.named_parameters():
            names[f"ln.{name}"] = param
        for name, param in self.cross_kv.named_parameters():
            if name.endswith("bias"):
                names[f"cross_kv.{name}"] = param
        return names

    def tunable(self) -> list[nn.Parameter]:
        """Freeze every weight but the biases and norms, which become trainable."""
        self.requires_grad_(False)
        params = list(self.graph_names().values())
        for p in params:
            p.requires_grad_(True)
        return params

    def frozen_copy(self) -> EncoderTop:
        """An untouched copy (the generic encoder's top) for the KL reference."""
        twin = copy.deepcopy(self)
        twin.requires_grad_(False)
        return twin.eval()
