"""ONNX export of the corrector as an encoder graph and decoder-step graphs."""

from __future__ import annotations

import logging
import warnings
from pathlib import Path

import torch
from torch import Tensor, nn

from models.corrector.model import Seq2SeqTransformer
from models.corrector.tokenizer import PAD_ID

_LOGGER = logging.getLogger(__name__)

OPSET = 18

# Graph input/output names: the runtime (therapy_app/correction) relies on them.
ENCODER_INPUTS = ["src_ids"]
ENCODER_OUTPUTS = ["cross_k", "cross_v"]
STEP_INPUTS = ["tokens", "self_k", "self_v", "cross_k", "cross_v", "src_mask"]
STEP_OUTPUTS = ["log_probs", "new_self_k", "new_self_v"]
PREFIX_INPUTS = ["prefix", "cross_k", "cross_v", "src_mask"]
PREFIX_OUTPUTS = ["log_probs"]


class EncoderGraph(nn.Module):
    """src_ids (B, S) -> stacked cross-attention keys/values (L, B, H, S, Dh).

    Projecting the memory once here saves every decoder step from redoing it.
    """

    def __init__(self, model: Seq2SeqTransformer) -> None:
        super().__init__()
        self.model = model

    def forward(self, src_ids: Tensor) -> tuple[Tensor, Tensor]:
        return self.model.cross_keys_values(self.model.encode(src_ids))


class StepGraph(nn.Module):
    """One decoder step with a self-attention KV cache."""

    def __init__(self, model: Seq2SeqTransformer) -> None:
        super().__init__()
        self.model = model

    def forward(
        self,
        tokens: Tensor,
        self_k: Tensor,
        self_v: Tensor,
        cross_k: Tensor,
        cross_v: Tensor,
        src_mask: Tensor,
    ) -> tuple[Tensor, Tensor, Tensor]:
        return self.model.decode_step(tokens, self_k, self_v, cross_k, cross_v, src_mask)


class PrefixGraph(nn.Module):
    """Next-token log-probs from the whole prefix (no cache): the simpler alternative."""

    def __init__(self, model: Seq2SeqTransformer) -> None:
        super().__init__()
        self.model = model

    def forward(self, prefix: Tensor, cross_k: Tensor, cross_v: Tensor, src_mask: Tensor) -> Tensor:
        return self.model.decode_prefix(prefix, cross_k, cross_v, src_mask)


def _export(
    module: nn.Module,
    args: tuple[Tensor, ...],
    path: Path,
    inputs: list[str],
    outputs: list[str],
    dynamic: dict[str, dict[int, object]],
) -> Path:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        program = torch.onnx.export(
            module,
            args,
            dynamo=True,
            input_names=inputs,
            output_names=outputs,
            dynamic_shapes=dynamic,
            opset_version=OPSET,
            external_data=False,
            optimize=True,
            verbose=False,
        )
    assert program is not None
    program.save(str(path), external_data=False)
    _LOGGER.info("exported %s (%.1f MB)", path.name, path.stat().st_size / 1e6)
    return path


def example_inputs(
    model: Seq2SeqTransformer, batch: int = 2, src_len: int = 7, past: int = 3
) -> dict[str, Tensor]:
    """Representative inputs for tracing (sizes > 1 so no axis is specialised)."""
    c = model.config
    src = torch.randint(4, c.vocab_size, (batch, src_len))
    src[1, -2:] = PAD_ID
    cache = torch.randn(c.dec_layers, batch, c.n_heads, past, c.head_dim)
    cross = torch.randn(c.dec_layers, batch, c.n_heads, src_len, c.head_dim)
    return {
        "src_ids": src,
        "tokens": torch.randint(4, c.vocab_size, (batch, 1)),
        "prefix": torch.randint(4, c.vocab_size, (batch, past + 1)),
        "self_k": cache,
        "self_v": cache.clone(),
        "cross_k": cross,
        "cross_v": cross.clone(),
        "src_mask": src != PAD_ID,
    }


def export_graphs(
    model: Seq2SeqTransformer, out_dir: Path, with_prefix: bool = False
) -> dict[str, Path]:
    """Export the encoder and decoder graphs of an fp32 model in eval mode.

    Args:
        model: the trained model (moved to fp32/eval here).
        out_dir: destination folder.
        with_prefix: also export the cache-less decoder (for latency comparison).

    Returns:
        Role -> path: "encoder", "decoder_step" and possibly "decoder_prefix".
    """
    from torch.export import Dim

    model = model.float().eval()
    ex = example_inputs(model)
    batch, src, past = Dim("batch"), Dim("src_len"), Dim("past_len", min=0)
    cross: dict[int, object] = {1: batch, 3: src}
    # The dynamic axes of each graph input, whichever graph takes it.
    axes: dict[str, dict[int, object]] = {
        "src_ids": {0: batch, 1: src},
        "tokens": {0: batch},
        "prefix": {0: batch, 1: Dim("prefix_len")},
        "self_k": {1: batch, 3: past},
        "self_v": {1: batch, 3: past},
        "cross_k": cross,
        "cross_v": cross,
        "src_mask": {0: batch, 1: src},
    }
    graphs: dict[str, tuple[nn.Module, list[str], list[str]]] = {
        "encoder": (EncoderGraph(model), ENCODER_INPUTS, ENCODER_OUTPUTS),
        "decoder_step": (StepGraph(model), STEP_INPUTS, STEP_OUTPUTS),
    }
    if with_prefix:
        graphs["decoder_prefix"] = (PrefixGraph(model), PREFIX_INPUTS, PREFIX_OUTPUTS)
    out_dir.mkdir(parents=True, exist_ok=True)
    return {
        role: _export(
            module,
            tuple(ex[name] for name in inputs),
            out_dir / f"{role}.onnx",
            inputs,
            outputs,
            {name: axes[name] for name in inputs},
        )
        for role, (module, inputs, outputs) in graphs.items()
    }
