"""Exports the PyTorch Whisper to ONNX encoder and decoder-step graphs, then quantizes them."""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import onnx
import torch

from models import portable_int8
from therapy_app.asr.onnx_whisper import decoder_io, encoder_io
from therapy_app.inference import create_session
from therapy_voice.whisper_torch import WhisperDecoderStep, WhisperEncoder

_LOGGER = logging.getLogger(__name__)

# Opset 18: LayerNormalization is native (17+) and the dynamo exporter targets 18.
OPSET = 18


def _save_atomic(model: onnx.ModelProto, target: Path) -> None:
    tmp = target.with_name(target.name + ".tmp")
    onnx.save_model(model, str(tmp))
    os.replace(tmp, target)


def _name_dims(model: onnx.ModelProto, names: dict[tuple[str, int], str]) -> None:
    """Give symbolic dims readable names (list inputs lose the exporter's renaming)."""
    graph = model.graph
    values = {v.name: v for v in [*graph.input, *graph.output]}
    mapping = {}
    for (tensor, axis), name in names.items():
        old = values[tensor].type.tensor_type.shape.dim[axis].dim_param
        if old:
            mapping[old] = name
    for value in values.values():
        for dim in value.type.tensor_type.shape.dim:
            if dim.dim_param:
                parts = dim.dim_param.split(" + ")
                dim.dim_param = " + ".join(mapping.get(p, p) for p in parts)


def _finish(
    exported: torch.onnx.ONNXProgram,
    target: Path,
    doc: str,
    dim_names: dict[tuple[str, int], str] | None = None,
) -> None:
    model = exported.model_proto
    _name_dims(model, dim_names or {})
    model.doc_string = doc
    onnx.checker.check_model(model)
    _save_atomic(model, target)
    _LOGGER.info("wrote %s (%.1f MB)", target.name, target.stat().st_size / 1e6)


def export_encoder(encoder: WhisperEncoder, target: Path, opset: int = OPSET) -> None:
    """Export ``mel [B, 80, 3000]`` -> ``cross_k_i``, ``cross_v_i`` ``[B, H, 1500, Dh]``."""
    dims = encoder.dims
    inputs, outputs = encoder_io(dims.n_decoder_layers)
    mel = torch.zeros(2, dims.n_mels, 2 * dims.n_audio_ctx)
    batch = torch.export.Dim("batch", min=1, max=64)
    exported = torch.onnx.export(
        encoder,
        (mel,),
        None,
        dynamo=True,
        opset_version=opset,
        external_data=False,
        input_names=list(inputs),
        output_names=list(outputs),
        dynamic_shapes={"mel": {0: batch}},
    )
    _finish(exported, target, "Whisper base encoder: log-mel -> cross-attention K/V per layer")


def export_decoder(
    decoder: WhisperDecoderStep, target: Path, opset: int = OPSET, gated: bool = False
) -> None:
    """Export the cached decoder step with dynamic beam batch, new-token and cache lengths.

    ``tokens [B, S]``, per layer ``self_k_i/self_v_i [B, H, P, Dh]`` and
    ``cross_k_i/cross_v_i [1, H, 1500, Dh]`` give ``logits [B, S, V]`` and
    ``new_self_k_i/new_self_v_i [B, H, P+S, Dh]``. The cross K/V batch is fixed at
    1: every row of a call decodes the same clip, so beams and scored candidates
    share it instead of copying 37 MB per row. ``gated``: the decoder carries
    adapters (:func:`therapy_voice.lora.attach_saved`) scaled by an ``adapter_gate``
    [1] input.
    """
    dims = decoder.dims
    L, H, Dh = dims.n_decoder_layers, dims.n_heads, dims.head_dim
    inputs, outputs = decoder_io(L, gated)
    # Example sizes >= 2: torch.export specialises dimensions seen as 0 or 1.
    b, s, p = 3, 4, 5
    args = (
        torch.zeros(b, s, dtype=torch.int64),
        [torch.zeros(b, H, p, Dh) for _ in range(L)],
        [torch.zeros(b, H, p, Dh) for _ in range(L)],
        [torch.zeros(1, H, dims.n_audio_ctx, Dh) for _ in range(L)],
        [torch.zeros(1, H, dims.n_audio_ctx, Dh) for _ in range(L)],
    )
    shapes: dict[str, object] = {}
    if gated:
        args += (torch.ones(1),)
        shapes["adapter_gate"] = None
    batch = torch.export.Dim("batch", min=1, max=256)
    steps = torch.export.Dim("steps", min=1, max=dims.n_text_ctx)
    past = torch.export.Dim("past", min=0, max=dims.n_text_ctx)
    cache = [{0: batch, 2: past} for _ in range(L)]
    exported = torch.onnx.export(
        decoder,
        args,
        None,
        dynamo=True,
        opset_version=opset,
        external_data=False,
        input_names=list(inputs),
        output_names=list(outputs),
        dynamic_shapes={
            "tokens": {0: batch, 1: steps},
            "self_k": cache,
            "self_v": cache,
            "cross_k": [None] * L,
            "cross_v": [None] * L,
            **shapes,
        },
    )
    dim_names = {("tokens", 0): "batch", ("tokens", 1): "steps", ("self_k_0", 2): "past"}
    _finish(exported, target, "Whisper base decoder step with self-attention KV cache", dim_names)


def quantize_int8(source: Path, target: Path) -> None:
    """Dynamic int8 quantization of the MatMul weights (activations stay float)."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    tmp = target.with_name(target.name + ".tmp")
    quantize_dynamic(
        source,
        tmp,
        op_types_to_quantize=["MatMul", "Gather"],
        per_channel=False,
        weight_type=QuantType.QInt8,
    )
    # Same integers on every x86 CPU, with or without VNNI (models/portable_int8.py).
    portable_int8.rewrite_file(tmp)
    os.replace(tmp, target)
    _LOGGER.info(
        "quantized %s -> %s (%.1f MB)", source.name, target.name, target.stat().st_size / 1e6
    )


@dataclass(frozen=True)
class ParityReport:
    """How far ONNX outputs are from PyTorch on the same inputs.

    Attributes:
        graph: which graph pair was compared.
        max_abs_diff: largest absolute difference over the compared outputs.
        max_abs_ref: largest absolute reference value (for scale).
        argmax_agreement: share of positions where the top token agrees (decoder only).
    """

    graph: str
    max_abs_diff: float
    max_abs_ref: float
    argmax_agreement: float | None = None

    def to_dict(self) -> dict[str, object]:
        """JSON-friendly form for the sidecar."""
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def check_parity(
    encoder: WhisperEncoder,
    decoder: WhisperDecoderStep,
    mel: np.ndarray,
    tokens: list[int],
    encoder_onnx: Path,
    decoder_onnx: Path,
    label: str,
    gate: float | None = None,
) -> tuple[ParityReport, ParityReport]:
    """Run PyTorch and ONNX on one clip and a token prefix and compare.

    The decoder is run as a prompt pass followed by one cached step, with a batch
    of two rows, so the cache and the shared cross K/V paths are both exercised.
    ``gate``: the adapter gate of a gated decoder (None for a plain one).
    """
    enc_sess = create_session(encoder_onnx, provider="cpu")
    dec_sess = create_session(decoder_onnx, provider="cpu")
    dims = decoder.dims
    L, H, Dh = dims.n_decoder_layers, dims.n_heads, dims.head_dim
    with torch.no_grad():
        ref_cross = [t.numpy() for t in encoder(torch.from_numpy(mel[None]))]
    onnx_cross = enc_sess.run(None, {"mel": mel[None]})
    enc_diff = max(float(np.abs(a - b).max()) for a, b in zip(onnx_cross, ref_cross, strict=True))
    enc_scale = max(float(np.abs(b).max()) for b in ref_cross)
    enc_report = ParityReport(f"encoder-{label}", enc_diff, enc_scale)

    prompt = np.array([tokens[:-1], tokens[:-1]], dtype=np.int64)
    last = np.array([[tokens[-1]], [tokens[-2]]], dtype=np.int64)
    empty = [np.zeros((2, H, 0, Dh), np.float32)] * L
    # Both sides decode from the PyTorch cross K/V so that the decoder alone is compared.
    cross_k, cross_v = ref_cross[:L], ref_cross[L:]
    names, _ = decoder_io(L, gate is not None)
    extra = [] if gate is None else [np.asarray([gate], np.float32)]

    def run_onnx(feed_tokens, self_k, self_v):
        arrays = [feed_tokens, *self_k, *self_v, *cross_k, *cross_v, *extra]
        out = dec_sess.run(None, dict(zip(names, arrays, strict=True)))
        return out[0], out[1 : L + 1], out[L + 1 :]

    def run_torch(feed_tokens, self_k, self_v):
        with torch.no_grad():
            out = decoder(
                torch.from_numpy(feed_tokens),
                [torch.from_numpy(a) for a in self_k],
                [torch.from_numpy(a) for a in self_v],
                [torch.from_numpy(a) for a in cross_k],
                [torch.from_numpy(a) for a in cross_v],
                *(torch.from_numpy(a) for a in extra),
            )
        out = [t.numpy() for t in out]
        return out[0], out[1 : L + 1], out[L + 1 :]

    ref_logits, onnx_logits = [], []
    for run, logits in ((run_torch, ref_logits), (run_onnx, onnx_logits)):
        first, self_k, self_v = run(prompt, empty, empty)
        second, _, _ = run(last, self_k, self_v)
        logits += [first.reshape(-1, first.shape[-1]), second.reshape(-1, second.shape[-1])]
    ref, got = np.concatenate(ref_logits), np.concatenate(onnx_logits)
    agreement = float(np.mean(ref.argmax(-1) == got.argmax(-1)))
    dec_report = ParityReport(
        f"decoder-{label}" + (f"-gate{gate:g}" if gate is not None else ""),
        float(np.abs(ref - got).max()),
        float(np.abs(ref).max()),
        agreement,
    )
    _LOGGER.info("parity %s", (enc_report, dec_report))
    return enc_report, dec_report
