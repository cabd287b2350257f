"""A small PyTorch Whisper (encoder and cached decoder step) loaded from CTranslate2 tensors."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import cast

import numpy as np
import torch
from torch import nn

from therapy_voice.ct2 import CT2Model

_LOGGER = logging.getLogger(__name__)


@dataclass(frozen=True)
class WhisperDims:
    """Architecture sizes (Whisper base by default).

    Attributes:
        n_mels: mel bins of the input features.
        n_audio_ctx: encoder positions (3000 mel frames / 2).
        n_text_ctx: decoder positions.
        d_model: hidden size.
        n_heads: attention heads (encoder and decoder).
        n_encoder_layers: encoder blocks.
        n_decoder_layers: decoder blocks.
        n_vocab: output vocabulary, timestamps included.
    """

    n_mels: int = 80
    n_audio_ctx: int = 1500
    n_text_ctx: int = 448
    d_model: int = 512
    n_heads: int = 8
    n_encoder_layers: int = 6
    n_decoder_layers: int = 6
    n_vocab: int = 51865

    @property
    def head_dim(self) -> int:
        """Size of one attention head."""
        return self.d_model // self.n_heads


def _split_heads(x: torch.Tensor, n_heads: int) -> torch.Tensor:
    """[B, T, D] -> [B, H, T, D/H]."""
    b, t, d = x.shape
    return x.reshape(b, t, n_heads, d // n_heads).transpose(1, 2)


def _merge_heads(x: torch.Tensor) -> torch.Tensor:
    """[B, H, T, Dh] -> [B, T, H*Dh]."""
    b, h, t, dh = x.shape
    return x.transpose(1, 2).reshape(b, t, h * dh)


def _attend(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: torch.Tensor | None = None
) -> torch.Tensor:
    # Plain matmul/softmax rather than SDPA: it exports to standard ONNX ops at any opset.
    scores = torch.matmul(q, k.transpose(-1, -2)) * (q.shape[-1] ** -0.5)
    if mask is not None:
        scores = scores + mask
    return torch.matmul(torch.softmax(scores, dim=-1), v)


class EncoderBlock(nn.Module):
    """Pre-norm self-attention + MLP block."""

    def __init__(self, dims: WhisperDims) -> None:
        super().__init__()
        d = dims.d_model
        self.n_heads = dims.n_heads
        self.attn_ln = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)  # CTranslate2 fuses Q/K/V; K's bias is zero
        self.out = nn.Linear(d, d)
        self.mlp_ln = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, 4 * d)
        self.fc2 = nn.Linear(4 * d, d)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        q, k, v = self.qkv(self.attn_ln(x)).chunk(3, dim=-1)
        h = _attend(*(_split_heads(t, self.n_heads) for t in (q, k, v)))
        x = x + self.out(_merge_heads(h))
        out: torch.Tensor = x + self.fc2(nn.functional.gelu(self.fc1(self.mlp_ln(x))))
        return out


class DecoderBlock(nn.Module):
    """Pre-norm causal self-attention (cached) + cross-attention + MLP block."""

    def __init__(self, dims: WhisperDims) -> None:
        super().__init__()
        d = dims.d_model
        self.n_heads = dims.n_heads
        self.attn_ln = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.out = nn.Linear(d, d)
        self.cross_ln = nn.LayerNorm(d)
        self.cross_q = nn.Linear(d, d)  # its K/V projection runs in the encoder graph
        self.cross_out = nn.Linear(d, d)
        self.mlp_ln = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, 4 * d)
        self.fc2 = nn.Linear(4 * d, d)

    def forward(
        self,
        x: torch.Tensor,
        past_k: torch.Tensor,
        past_v: torch.Tensor,
        cross_k: torch.Tensor,
        cross_v: torch.Tensor,
        mask: torch.Tensor,
        gate: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        def lin(name: str, t: torch.Tensor) -> torch.Tensor:
            # Gated adapters (therapy_voice.lora) take the gate; plain layers ignore it.
            layer = getattr(self, name)
            out: torch.Tensor = layer(t) if gate is None else layer(t, gate)
            return out

        q, k, v = lin("qkv", self.attn_ln(x)).chunk(3, dim=-1)
        k = torch.cat([past_k, _split_heads(k, self.n_heads)], dim=2)
        v = torch.cat([past_v, _split_heads(v, self.n_heads)], dim=2)
        h = _attend(_split_heads(q, self.n_heads), k, v, mask)
        x = x + lin("out", _merge_heads(h))
        # Every row decodes the same clip: cross_k/v have batch 1, and the rows are
        # folded into the query length ([1, H, B*S, Dh]) so that each head runs one
        # matrix product instead of B small ones over a broadcast copy.
        b, s, d = x.shape
        cq = lin("cross_q", self.cross_ln(x)).reshape(1, b * s, self.n_heads, d // self.n_heads)
        h = _attend(cq.transpose(1, 2), cross_k, cross_v)  # [1, H, B*S, Dh]
        x = x + lin("cross_out", h.transpose(1, 2).reshape(b, s, d))
        x = x + lin("fc2", nn.functional.gelu(lin("fc1", self.mlp_ln(x))))
        return x, k, v


class WhisperEncoder(nn.Module):
    """Log-mel [B, 80, 3000] -> cross-attention keys and values for every decoder layer.

    Returns the L keys then the L values, each [B, H, 1500, Dh]. One tensor per
    layer, not a stacked one: slicing a stacked input costs the decoder a copy of
    all of it (37 MB) at every step.
    """

    positions: torch.Tensor  # a registered buffer [n_audio_ctx, d_model]

    def __init__(self, dims: WhisperDims) -> None:
        super().__init__()
        self.dims = dims
        d = dims.d_model
        self.conv1 = nn.Conv1d(dims.n_mels, d, 3, padding=1)
        self.conv2 = nn.Conv1d(d, d, 3, stride=2, padding=1)
        self.register_buffer("positions", torch.zeros(dims.n_audio_ctx, d))
        self.blocks = nn.ModuleList(EncoderBlock(dims) for _ in range(dims.n_encoder_layers))
        self.ln = nn.LayerNorm(d)
        # The decoder's cross K/V projections live here so that they run once per clip.
        self.cross_kv = nn.ModuleList(nn.Linear(d, 2 * d) for _ in range(dims.n_decoder_layers))

    def forward(self, mel: torch.Tensor) -> tuple[torch.Tensor, ...]:
        x = nn.functional.gelu(self.conv1(mel))
        x = nn.functional.gelu(self.conv2(x)).transpose(1, 2)
        x = x + self.positions
        for block in self.blocks:
            x = block(x)
        x = self.ln(x)
        keys, values = [], []
        for proj in self.cross_kv:
            k, v = proj(x).chunk(2, dim=-1)
            keys.append(_split_heads(k, self.dims.n_heads))
            values.append(_split_heads(v, self.dims.n_heads))
        return (*keys, *values)


class WhisperDecoderStep(nn.Module):
    """New tokens + self-attention cache + cross K/V -> logits and the extended cache.

    ``tokens`` [B, S]; ``self_k``/``self_v``: per layer [B, H, P, Dh] (P past
    positions, may be 0); ``cross_k``/``cross_v``: per layer [1, H, 1500, Dh].
    Returns logits [B, S, V] for every new position, then the L extended keys and
    the L extended values [B, H, P+S, Dh]. ``adapter_gate`` [1] scales the low-rank
    adapters when they are attached (:func:`therapy_voice.lora.attach_saved`).
    """

    def __init__(self, dims: WhisperDims) -> None:
        super().__init__()
        self.dims = dims
        d = dims.d_model
        self.embed = nn.Embedding(dims.n_vocab, d)
        self.positions = nn.Parameter(torch.zeros(dims.n_text_ctx, d))
        self.blocks = nn.ModuleList(DecoderBlock(dims) for _ in range(dims.n_decoder_layers))
        self.ln = nn.LayerNorm(d)
        # Tied with the embedding in Whisper; a separate, pre-transposed copy keeps it a
        # plain MatMul initializer that dynamic quantization can handle.
        self.proj = nn.Parameter(torch.zeros(d, dims.n_vocab))

    def forward(
        self,
        tokens: torch.Tensor,
        self_k: list[torch.Tensor],
        self_v: list[torch.Tensor],
        cross_k: list[torch.Tensor],
        cross_v: list[torch.Tensor],
        adapter_gate: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, ...]:
        past = self_k[0].shape[2]
        steps = tokens.shape[1]
        x = self.embed(tokens) + self.positions[past : past + steps]
        # Causal mask over [past + new] keys for the new queries.
        q_pos = torch.arange(steps, device=tokens.device).unsqueeze(1) + past
        k_pos = torch.arange(past + steps, device=tokens.device).unsqueeze(0)
        # A large finite value rather than -inf: no NaN even if a row were fully masked.
        mask = torch.where(k_pos > q_pos, torch.tensor(-1e9), torch.tensor(0.0))
        new_k, new_v = [], []
        for i, block in enumerate(self.blocks):
            x, k, v = block(x, self_k[i], self_v[i], cross_k[i], cross_v[i], mask, adapter_gate)
            new_k.append(k)
            new_v.append(v)
        logits = torch.matmul(self.ln(x), self.proj)
        return (logits, *new_k, *new_v)


def encoder_blocks(encoder: WhisperEncoder) -> Iterable[EncoderBlock]:
    """The encoder's blocks, typed (``nn.ModuleList`` yields plain modules)."""
    return cast("Iterable[EncoderBlock]", encoder.blocks)


def decoder_blocks(decoder: WhisperDecoderStep) -> Iterable[DecoderBlock]:
    """The decoder's blocks, typed (``nn.ModuleList`` yields plain modules)."""
    return cast("Iterable[DecoderBlock]", decoder.blocks)


def _t(array: np.ndarray) -> torch.Tensor:
    return torch.from_numpy(np.ascontiguousarray(array, dtype=np.float32))


def _set_linear(linear: nn.Linear, model: CT2Model, prefix: str) -> None:
    linear.weight.data.copy_(_t(model.get(prefix + "/weight")))
    linear.bias.data.copy_(_t(model.get(prefix + "/bias")))


def _set_norm(norm: nn.LayerNorm, model: CT2Model, prefix: str) -> None:
    norm.weight.data.copy_(_t(model.get(prefix + "/gamma")))
    norm.bias.data.copy_(_t(model.get(prefix + "/beta")))


def _set_block(block: EncoderBlock | DecoderBlock, model: CT2Model, prefix: str) -> None:
    """Copy the self-attention and feed-forward layers every block has."""
    _set_norm(block.attn_ln, model, prefix + "/self_attention/layer_norm")
    _set_linear(block.qkv, model, prefix + "/self_attention/linear_0")
    _set_linear(block.out, model, prefix + "/self_attention/linear_1")
    _set_norm(block.mlp_ln, model, prefix + "/ffn/layer_norm")
    _set_linear(block.fc1, model, prefix + "/ffn/linear_0")
    _set_linear(block.fc2, model, prefix + "/ffn/linear_1")


def dims_from_ct2(model: CT2Model) -> WhisperDims:
    """Read the architecture sizes from the tensor shapes."""
    n_vocab, d_model = model.get("decoder/embeddings/weight").shape
    n_text_ctx = model.get("decoder/position_encodings/encodings").shape[0]
    n_audio_ctx = model.get("encoder/position_encodings/encodings").shape[0]

    def count(prefix: str) -> int:
        parts = (n.split("/") for n in model.variables if n.startswith(prefix + "/"))
        return len({p[1] for p in parts if re.fullmatch(r"layer_\d+", p[1])})

    return WhisperDims(
        n_mels=model.get("encoder/conv1/weight").shape[1],
        n_audio_ctx=n_audio_ctx,
        n_text_ctx=n_text_ctx,
        d_model=d_model,
        n_heads=model.scalar("decoder/num_heads"),
        n_encoder_layers=count("encoder"),
        n_decoder_layers=count("decoder"),
        n_vocab=n_vocab,
    )


def load_from_ct2(model: CT2Model) -> tuple[WhisperEncoder, WhisperDecoderStep]:
    """Build the fp32 encoder and decoder modules from CTranslate2 Whisper tensors.

    Raises:
        ValueError: the file is not a pre-norm GELU Whisper as expected.
    """
    if model.spec != "WhisperSpec":
        raise ValueError(f"expected a WhisperSpec model, got {model.spec}")
    if model.scalar("decoder/pre_norm") != 1 or model.scalar("decoder/scale_embeddings") != 0:
        raise ValueError("unexpected decoder flags: not OpenAI Whisper")
    dims = dims_from_ct2(model)
    encoder, decoder = WhisperEncoder(dims), WhisperDecoderStep(dims)
    # Conv1d types its bias as optional; these have one (bias=True).
    assert encoder.conv1.bias is not None and encoder.conv2.bias is not None
    with torch.no_grad():
        encoder.conv1.weight.copy_(_t(model.get("encoder/conv1/weight")))
        encoder.conv1.bias.copy_(_t(model.get("encoder/conv1/bias")))
        encoder.conv2.weight.copy_(_t(model.get("encoder/conv2/weight")))
        encoder.conv2.bias.copy_(_t(model.get("encoder/conv2/bias")))
        encoder.positions.copy_(_t(model.get("encoder/position_encodings/encodings")))
        _set_norm(encoder.ln, model, "encoder/layer_norm")
        for i, block in enumerate(encoder_blocks(encoder)):
            _set_block(block, model, f"encoder/layer_{i}")
        embedding = _t(model.get("decoder/embeddings/weight"))
        decoder.embed.weight.copy_(embedding)
        decoder.proj.copy_(_t(model.get("decoder/projection/weight")).T)
        decoder.positions.copy_(_t(model.get("decoder/position_encodings/encodings")))
        _set_norm(decoder.ln, model, "decoder/layer_norm")
        for i, dblock in enumerate(decoder_blocks(decoder)):
            p = f"decoder/layer_{i}"
            _set_block(dblock, model, p)
            _set_norm(dblock.cross_ln, model, p + "/attention/layer_norm")
            _set_linear(dblock.cross_q, model, p + "/attention/linear_0")
            _set_linear(cast(nn.Linear, encoder.cross_kv[i]), model, p + "/attention/linear_1")
            _set_linear(dblock.cross_out, model, p + "/attention/linear_2")
    encoder.eval()
    decoder.eval()
    _LOGGER.info("loaded Whisper %s", dims)
    return encoder, decoder
