"""Teacher-forced training of Whisper's decoder adapters: prompts, targets, logits and losses.

Shared by the halting-speech adapters (``models.asr.finetune``) and a patient's
personal adapter (``therapy_voice.adapt``), so both teach the decoder the same
way: the app's telegraphic prompt followed by the verbatim words, or the French
SOT sequence followed by the written sentence (how ``SpeechRecognizer.score``
reads a known target).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import torch
from torch import nn

from therapy_voice.whisper_torch import (
    WhisperDecoderStep,
    WhisperEncoder,
    _attend,
    _merge_heads,
    _split_heads,
    decoder_blocks,
)

IGNORE = -100  # label of the positions that are not learnt


def sequence(
    item: Mapping[str, Any],
    prompt: list[int],
    sot: list[int],
    encode: Callable[[str], list[int]],
    eot: int,
) -> tuple[list[int], list[int]]:
    """(prefix, full token row) for one item: verbatim with the prompt, or written without.

    ``item["target"]`` is the verbatim text; an item carrying ``"written"`` is
    taught in that written form after the bare SOT sequence instead.
    """
    if "written" in item:
        return sot, sot + encode(" " + item["written"].strip()) + [eot]
    return prompt, prompt + encode(" " + item["target"]) + [eot]


def token_rows(
    pairs: Sequence[tuple[list[int], list[int]]], eot: int
) -> tuple[torch.Tensor, torch.Tensor]:
    """Token rows (right-padded with ``eot``) and loss targets (IGNORE outside the transcript).

    Args:
        pairs: (prefix, full row) per item, as :func:`sequence` gives them.
        eot: end-of-text id, also the padding.
    """
    width = max(len(s) for _, s in pairs)
    tokens = torch.full((len(pairs), width), eot, dtype=torch.long)
    labels = torch.full((len(pairs), width), IGNORE, dtype=torch.long)
    for r, (prefix, seq) in enumerate(pairs):
        tokens[r, : len(seq)] = torch.tensor(seq)
        # Position p predicts token p + 1: only the transcript and its end are learnt.
        labels[r, len(prefix) - 1 : len(seq) - 1] = torch.tensor(seq[len(prefix) :])
    return tokens, labels


def cross_attention(
    encoder: WhisperEncoder, states: torch.Tensor
) -> list[tuple[torch.Tensor, torch.Tensor]]:
    """Each decoder layer's cross-attention keys and values [B, H, 1500, Dh] (no gradient).

    Computed once per batch: they are frozen (they run in the encoder graph), so
    the adapted and reference passes share them. Made contiguous here, once: as
    strided views every attention product copied its keys transposed, a third
    of the forward pass.
    """
    n_heads = encoder.dims.n_heads
    out: list[tuple[torch.Tensor, torch.Tensor]] = []
    with torch.no_grad():
        for proj in encoder.cross_kv:
            k, v = proj(states).chunk(2, dim=-1)
            k, v = (_split_heads(t, n_heads).contiguous() for t in (k, v))
            out.append((k, v))
    return out


def _cross_attend(cq: torch.Tensor, ck: torch.Tensor, cv: torch.Tensor) -> torch.Tensor:
    """Cross-attention of R query rows [R, H, S, Dh] over N clips [N, H, T, Dh], R = k * N.

    Rows are clip-major (the k rows of clip 0 first). The k rows of a clip are
    folded into its query length, as the runtime decoder does, rather than
    copying each clip's keys and values k times.
    """
    rows, clips = cq.shape[0], ck.shape[0]
    if rows == clips:
        return _attend(cq, ck, cv)
    _, h, s, dh = cq.shape
    k = rows // clips
    folded = cq.reshape(clips, k, h, s, dh).transpose(1, 2).reshape(clips, h, k * s, dh)
    out = _attend(folded, ck, cv)
    return out.reshape(clips, h, k, s, dh).transpose(1, 2).reshape(rows, h, s, dh)


def decoder_forward(
    decoder: WhisperDecoderStep,
    cross: Sequence[tuple[torch.Tensor, torch.Tensor]],
    tokens: torch.Tensor,
    gate: float | torch.Tensor | None = None,
    keep: torch.Tensor | None = None,
) -> torch.Tensor:
    """Teacher-forced logits [B, S, V] for token rows [B, S] over their own clips.

    Args:
        decoder: a ``WhisperDecoderStep``, its block linears possibly LoRA-wrapped.
        cross: :func:`cross_attention` of the rows' encoder states: one clip per
            row, or one per k consecutive rows (several targets of one clip).
        tokens: token rows.
        gate: None runs the adapters as they are; 0 runs the plain decoder under
            them; a [B, 1, 1] tensor gates each row on its own.
        keep: a [B, S] mask: only these positions' logits are computed, as [N, V].
            The output projection is the largest product of a step: the
            prompt's positions, never learnt, are skipped.
    """
    n_heads = decoder.dims.n_heads
    g = gate if gate is None or isinstance(gate, torch.Tensor) else torch.tensor(gate)

    def lin(layer: nn.Module, t: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = layer(t) if g is None else layer(t, g)
        return out

    steps = tokens.shape[1]
    x = decoder.embed(tokens) + decoder.positions[:steps]
    pos = torch.arange(steps)
    mask = torch.where(pos[None, :] > pos[:, None], torch.tensor(-1e9), torch.tensor(0.0))
    for block, (ck, cv) in zip(decoder_blocks(decoder), cross, strict=True):
        q, k, v = lin(block.qkv, block.attn_ln(x)).chunk(3, dim=-1)
        q, k, v = (_split_heads(t, n_heads) for t in (q, k, v))
        h = _attend(q, k, v, mask)
        x = x + lin(block.out, _merge_heads(h))
        cq = _split_heads(lin(block.cross_q, block.cross_ln(x)), n_heads)
        x = x + lin(block.cross_out, _merge_heads(_cross_attend(cq, ck, cv)))
        x = x + lin(block.fc2, nn.functional.gelu(lin(block.fc1, block.mlp_ln(x))))
    if keep is not None:
        x = x[keep]
    return torch.matmul(decoder.ln(x), decoder.proj)


def token_loss(logits: torch.Tensor, labels: torch.Tensor, reduction: str = "mean") -> torch.Tensor:
    """Cross-entropy of the learnt positions (fp32 whatever the autocast)."""
    return nn.functional.cross_entropy(
        logits.float().reshape(-1, logits.shape[-1]),
        labels.reshape(-1),
        ignore_index=IGNORE,
        reduction=reduction,
    )


def kl_to_reference(
    logits: torch.Tensor, reference: torch.Tensor, labels: torch.Tensor
) -> torch.Tensor:
    """Mean KL(reference || adapted) over the learnt positions of every row."""
    mask = labels != IGNORE
    if not bool(mask.any()):
        return logits.new_zeros((), dtype=torch.float32)
    log_q = torch.log_softmax(logits.float()[mask], dim=-1)
    log_p = torch.log_softmax(reference.float()[mask], dim=-1)
    return nn.functional.kl_div(log_q, log_p, log_target=True, reduction="batchmean")


def mean_token_loss(
    decoder: WhisperDecoderStep,
    encoder: WhisperEncoder,
    batches: Iterable[tuple[torch.Tensor, torch.Tensor, torch.Tensor]],
) -> float:
    """Mean cross-entropy per learnt token over (tokens, labels, states) batches, no gradient."""
    total, count = 0.0, 0
    with torch.no_grad():
        for tokens, labels, states in batches:
            logits = decoder_forward(decoder, cross_attention(encoder, states), tokens)
            total += float(token_loss(logits, labels, reduction="sum"))
            count += int((labels != IGNORE).sum())
    return total / max(1, count)
