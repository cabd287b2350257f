"""Small pre-LN transformer encoder-decoder that rewrites telegraphic French."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from models.corrector.tokenizer import BOS_ID, EOS_ID, PAD_ID


@dataclass
class ModelConfig:
    """Architecture hyper-parameters.

    Attributes:
        vocab_size: SentencePiece vocabulary size (embeddings are shared by
            encoder, decoder and output projection).
        d_model: width of every layer.
        n_heads: attention heads.
        enc_layers: encoder layers.
        dec_layers: decoder layers.
        d_ff: hidden width of the feed-forward blocks.
        dropout: dropout on residual branches, attention and embeddings.
        max_len: longest source or target sequence, in tokens (positional table).
    """

    vocab_size: int = 8000
    d_model: int = 256
    n_heads: int = 4
    enc_layers: int = 3
    dec_layers: int = 3
    d_ff: int = 1024
    dropout: float = 0.1
    max_len: int = 256

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ModelConfig:
        """Build from a dict, ignoring unknown keys (older checkpoints)."""
        return cls(**{k: v for k, v in data.items() if k in cls.__dataclass_fields__})

    def to_dict(self) -> dict[str, Any]:
        """Plain dict for JSON."""
        return asdict(self)

    @property
    def head_dim(self) -> int:
        """Width of one attention head."""
        return self.d_model // self.n_heads


def _sinusoids(max_len: int, dim: int) -> Tensor:
    # Fixed positions: no weights to learn, and any prefix length exports the same way.
    position = torch.arange(max_len, dtype=torch.float32).unsqueeze(1)
    freq = torch.exp(torch.arange(0, dim, 2, dtype=torch.float32) * (-math.log(10000.0) / dim))
    table = torch.zeros(max_len, dim)
    table[:, 0::2] = torch.sin(position * freq)
    table[:, 1::2] = torch.cos(position * freq)
    return table


class Attention(nn.Module):
    """Multi-head attention whose keys/values can be projected once and cached."""

    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.n_heads = config.n_heads
        self.head_dim = config.head_dim
        self.q_proj = nn.Linear(config.d_model, config.d_model)
        self.k_proj = nn.Linear(config.d_model, config.d_model)
        self.v_proj = nn.Linear(config.d_model, config.d_model)
        self.o_proj = nn.Linear(config.d_model, config.d_model)
        self.dropout = config.dropout

    def _split(self, x: Tensor) -> Tensor:
        batch, length, _ = x.shape
        return x.view(batch, length, self.n_heads, self.head_dim).transpose(1, 2)

    def keys_values(self, x: Tensor) -> tuple[Tensor, Tensor]:
        """Project ``x`` (B, T, D) to per-head keys and values (B, H, T, Dh)."""
        return self._split(self.k_proj(x)), self._split(self.v_proj(x))

    def attend(
        self, x: Tensor, keys: Tensor, values: Tensor, mask: Tensor | None, causal: bool = False
    ) -> Tensor:
        """Attend from queries ``x`` (B, T, D) to cached keys/values.

        Args:
            mask: bool (B, 1, 1, S), True where a key may be attended, or None.
            causal: apply a causal mask (training-time decoder self-attention).
        """
        query = self._split(self.q_proj(x))
        out = F.scaled_dot_product_attention(
            query,
            keys,
            values,
            attn_mask=mask,
            dropout_p=self.dropout if self.training else 0.0,
            is_causal=causal,
        )
        batch, _, length, _ = out.shape
        return self.o_proj(out.transpose(1, 2).reshape(batch, length, -1))


class FeedForward(nn.Sequential):
    """Position-wise two-layer MLP with GELU."""

    def __init__(self, config: ModelConfig) -> None:
        super().__init__(
            nn.Linear(config.d_model, config.d_ff),
            nn.GELU(),
            nn.Dropout(config.dropout),
            nn.Linear(config.d_ff, config.d_model),
        )


class EncoderLayer(nn.Module):
    """Pre-LN self-attention + feed-forward."""

    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.ln_attn = nn.LayerNorm(config.d_model)
        self.attn = Attention(config)
        self.ln_ff = nn.LayerNorm(config.d_model)
        self.ff = FeedForward(config)
        self.drop = nn.Dropout(config.dropout)

    def forward(self, x: Tensor, mask: Tensor) -> Tensor:
        h = self.ln_attn(x)
        k, v = self.attn.keys_values(h)
        x = x + self.drop(self.attn.attend(h, k, v, mask))
        return x + self.drop(self.ff(self.ln_ff(x)))


class DecoderLayer(nn.Module):
    """Pre-LN causal self-attention, cross-attention and feed-forward."""

    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.ln_self = nn.LayerNorm(config.d_model)
        self.self_attn = Attention(config)
        self.ln_cross = nn.LayerNorm(config.d_model)
        self.cross_attn = Attention(config)
        self.ln_ff = nn.LayerNorm(config.d_model)
        self.ff = FeedForward(config)
        self.drop = nn.Dropout(config.dropout)

    def forward(
        self,
        x: Tensor,
        self_kv: tuple[Tensor, Tensor] | None,
        cross_kv: tuple[Tensor, Tensor],
        src_mask: Tensor,
    ) -> tuple[Tensor, Tensor, Tensor]:
        """One layer; with ``self_kv`` given, ``x`` holds only the new positions.

        Returns:
            The output and the full self-attention keys and values (cache).
        """
        h = self.ln_self(x)
        k, v = self.self_attn.keys_values(h)
        if self_kv is not None:
            k = torch.cat([self_kv[0], k], dim=2)
            v = torch.cat([self_kv[1], v], dim=2)
            # Decoding one step at a time: the new query may see every cached key.
            x = x + self.drop(self.self_attn.attend(h, k, v, None))
        else:
            x = x + self.drop(self.self_attn.attend(h, k, v, None, causal=True))
        h = self.ln_cross(x)
        x = x + self.drop(self.cross_attn.attend(h, cross_kv[0], cross_kv[1], src_mask))
        x = x + self.drop(self.ff(self.ln_ff(x)))
        return x, k, v


class Seq2SeqTransformer(nn.Module):
    """Encoder-decoder with tied embeddings, sinusoidal positions and pre-LN."""

    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.config = config
        self.embed = nn.Embedding(config.vocab_size, config.d_model, padding_idx=PAD_ID)
        nn.init.normal_(self.embed.weight, std=config.d_model**-0.5)
        self.register_buffer("positions", _sinusoids(config.max_len, config.d_model), False)
        self.emb_drop = nn.Dropout(config.dropout)
        self.encoder = nn.ModuleList(EncoderLayer(config) for _ in range(config.enc_layers))
        self.enc_norm = nn.LayerNorm(config.d_model)
        self.decoder = nn.ModuleList(DecoderLayer(config) for _ in range(config.dec_layers))
        self.dec_norm = nn.LayerNorm(config.d_model)
        self.scale = math.sqrt(config.d_model)

    def _embed(self, ids: Tensor, offset: int | Tensor = 0) -> Tensor:
        length = ids.shape[1]
        pos = self.positions[offset : offset + length]
        return self.emb_drop(self.embed(ids) * self.scale + pos)

    @staticmethod
    def source_mask(src_ids: Tensor) -> Tensor:
        """Bool (B, 1, 1, S) mask, True on real source tokens."""
        return (src_ids != PAD_ID)[:, None, None, :]

    def encode(self, src_ids: Tensor) -> Tensor:
        """Source ids (B, S) to memory (B, S, D)."""
        mask = self.source_mask(src_ids)
        x = self._embed(src_ids)
        for layer in self.encoder:
            x = layer(x, mask)
        return self.enc_norm(x)

    def cross_keys_values(self, memory: Tensor) -> tuple[Tensor, Tensor]:
        """Every decoder layer's cross-attention keys and values, stacked (L, B, H, S, Dh)."""
        pairs = [layer.cross_attn.keys_values(memory) for layer in self.decoder]
        return torch.stack([k for k, _ in pairs]), torch.stack([v for _, v in pairs])

    def logits(self, hidden: Tensor) -> Tensor:
        """Output projection tied to the embeddings."""
        return F.linear(hidden, self.embed.weight)

    def forward(self, src_ids: Tensor, tgt_in: Tensor) -> Tensor:
        """Teacher-forced logits (B, T, V) for training."""
        memory = self.encode(src_ids)
        mask = self.source_mask(src_ids)
        x = self._embed(tgt_in)
        for layer in self.decoder:
            cross = layer.cross_attn.keys_values(memory)
            x, _, _ = layer(x, None, cross, mask)
        return self.logits(self.dec_norm(x))

    def decode_step(
        self,
        tokens: Tensor,
        self_k: Tensor,
        self_v: Tensor,
        cross_k: Tensor,
        cross_v: Tensor,
        src_mask: Tensor,
    ) -> tuple[Tensor, Tensor, Tensor]:
        """Advance every hypothesis by one token using the self-attention cache.

        Args:
            tokens: (B, 1) last token of each hypothesis.
            self_k, self_v: (L, B, H, T, Dh) cache of the T previous positions.
            cross_k, cross_v: (L, B, H, S, Dh) from :meth:`cross_keys_values`.
            src_mask: bool (B, S), True on real source tokens.

        Returns:
            Log-probabilities (B, V) of the next token and the caches grown to T+1.
        """
        past = self_k.shape[3]
        x = self._embed(tokens, past)
        mask = src_mask[:, None, None, :]
        new_k, new_v = [], []
        for i, layer in enumerate(self.decoder):
            x, k, v = layer(x, (self_k[i], self_v[i]), (cross_k[i], cross_v[i]), mask)
            new_k.append(k)
            new_v.append(v)
        logits = self.logits(self.dec_norm(x[:, -1]))
        return torch.log_softmax(logits.float(), dim=-1), torch.stack(new_k), torch.stack(new_v)

    def decode_prefix(
        self, prefix: Tensor, cross_k: Tensor, cross_v: Tensor, src_mask: Tensor
    ) -> Tensor:
        """Next-token log-probabilities (B, V) from the whole prefix, without a cache."""
        mask = src_mask[:, None, None, :]
        x = self._embed(prefix)
        for i, layer in enumerate(self.decoder):
            x, _, _ = layer(x, None, (cross_k[i], cross_v[i]), mask)
        logits = self.logits(self.dec_norm(x[:, -1]))
        return torch.log_softmax(logits.float(), dim=-1)

    def empty_cache(self, batch: int, dtype: torch.dtype = torch.float32) -> Tensor:
        """A (L, B, H, 0, Dh) self-attention cache to start decoding from."""
        c = self.config
        return torch.zeros(c.dec_layers, batch, c.n_heads, 0, c.head_dim, dtype=dtype)

    @torch.no_grad()
    def greedy(self, src_ids: Tensor, max_len: int) -> list[list[int]]:
        """Greedy decoding of a batch; returns token ids without BOS/EOS."""
        batch = src_ids.shape[0]
        memory = self.encode(src_ids)
        cross_k, cross_v = self.cross_keys_values(memory)
        src_mask = src_ids != PAD_ID
        self_k = self.empty_cache(batch, memory.dtype)
        self_v = self.empty_cache(batch, memory.dtype)
        tokens = torch.full((batch, 1), BOS_ID, dtype=torch.long)
        out: list[list[int]] = [[] for _ in range(batch)]
        done = torch.zeros(batch, dtype=torch.bool)
        for _ in range(max_len):
            logp, self_k, self_v = self.decode_step(
                tokens, self_k, self_v, cross_k, cross_v, src_mask
            )
            nxt = logp.argmax(-1)
            for b in range(batch):
                if not done[b]:
                    if int(nxt[b]) == EOS_ID:
                        done[b] = True
                    else:
                        out[b].append(int(nxt[b]))
            if bool(done.all()):
                break
            tokens = nxt[:, None]
        return out


def count_parameters(model: nn.Module) -> int:
    """Trainable parameter count."""
    return sum(p.numel() for p in model.parameters() if p.requires_grad)
