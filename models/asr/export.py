"""Exports the PyTorch Whisper to ONNX encoder and decoder-step graphs, then quantizes them."""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping, Sequence
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


def name_adapter_slots(model: onnx.ModelProto, slots: Mapping[str, np.ndarray]) -> list[str]:
    """Give the exported adapter matrices their stable slot names, found by value.

    The exporter names initializers ``val_53`` and the like; a personal adapter
    replaces them at session creation by name (``SessionOptions.add_initializer``),
    so each gets the name of :mod:`therapy_app.asr.personal`, and so does the one
    MatMul reading it (``<slot>/MatMul``, to keep it out of int8 quantization).

    Args:
        model: the exported decoder, changed in place.
        slots: slot name -> the exact float32 value the exporter stored.

    Returns:
        The names of the MatMul nodes reading the slots.

    Raises:
        RuntimeError: a slot is not found, is found twice, holds the same values as
            another (the exporter would share one initializer), or is read by
            anything but one MatMul as its weight.
    """
    from onnx import TensorProto, numpy_helper

    graph = model.graph
    wanted: dict[tuple[tuple[int, ...], bytes], str] = {}
    for name, value in slots.items():
        key = (tuple(value.shape), np.ascontiguousarray(value, np.float32).tobytes())
        if key in wanted:
            raise RuntimeError(f"adapter slots {wanted[key]} and {name} hold the same values")
        wanted[key] = name
    shapes = {shape for shape, _ in wanted}
    renamed: dict[str, str] = {}
    for init in graph.initializer:
        if init.data_type != TensorProto.FLOAT or tuple(init.dims) not in shapes:
            continue
        value = numpy_helper.to_array(init)
        slot = wanted.get((tuple(value.shape), value.tobytes()))
        if slot is None:
            continue
        if slot in renamed.values():
            raise RuntimeError(f"adapter slot {slot} found twice in the exported decoder")
        renamed[init.name] = slot
        init.name = slot
    missing = sorted(set(slots) - set(renamed.values()))
    if missing:
        raise RuntimeError(
            f"{len(missing)} of {len(slots)} adapter matrices not found in the exported "
            f"decoder, e.g. {missing[:3]}"
        )
    readers: dict[str, list[str]] = {slot: [] for slot in slots}
    for node in graph.node:
        for index, name in enumerate(node.input):
            if name not in renamed:
                continue
            slot = renamed[name]
            if node.op_type != "MatMul" or index != 1:
                raise RuntimeError(f"adapter slot {slot} feeds {node.op_type} input {index}")
            node.input[index] = slot
            node.name = f"{slot}/MatMul"
            readers[slot].append(node.name)
    for listing in (graph.input, graph.output, graph.value_info):
        for info in listing:
            info.name = renamed.get(info.name, info.name)
    odd = {slot: nodes for slot, nodes in readers.items() if len(nodes) != 1}
    if odd:
        raise RuntimeError(f"adapter slots not read by exactly one MatMul: {sorted(odd)[:3]}")
    return [nodes[0] for nodes in readers.values()]


def check_adapter_slots(path: Path, shapes: Mapping[str, tuple[int, ...]]) -> None:
    """Check that a (quantized) decoder still has every slot as a float32 MatMul weight.

    Raises:
        RuntimeError: a slot is missing, not float32, of another shape, or quantized.
    """
    from onnx import TensorProto

    model = onnx.load(str(path))
    inits = {init.name: init for init in model.graph.initializer}
    matmul_weights = {n.input[1] for n in model.graph.node if n.op_type == "MatMul"}
    for name, shape in shapes.items():
        init = inits.get(name)
        if init is None or init.data_type != TensorProto.FLOAT or tuple(init.dims) != shape:
            raise RuntimeError(f"{path.name}: adapter slot {name} is not a float32 {shape}")
        if name not in matmul_weights:
            raise RuntimeError(f"{path.name}: adapter slot {name} is not read by a float MatMul")
    if portable_int8.s8_weight_count(model):
        raise RuntimeError(f"{path.name} still has s8 MatMulInteger weights")


def _finish(
    exported: torch.onnx.ONNXProgram,
    target: Path,
    doc: str,
    dim_names: dict[tuple[str, int], str] | None = None,
    slots: Mapping[str, np.ndarray] | None = None,
) -> list[str]:
    model = exported.model_proto
    _name_dims(model, dim_names or {})
    slot_nodes = name_adapter_slots(model, slots) if slots else []
    model.doc_string = doc
    onnx.checker.check_model(model)
    _save_atomic(model, target)
    _LOGGER.info("wrote %s (%.1f MB)", target.name, target.stat().st_size / 1e6)
    return slot_nodes


def _export(
    module: torch.nn.Module,
    args: tuple[object, ...],
    names: tuple[tuple[str, ...], tuple[str, ...]],
    dynamic_shapes: dict[str, object],
    opset: int,
) -> torch.onnx.ONNXProgram:
    """Trace ``module`` on ``args`` with the dynamo exporter into one self-contained graph.

    ``names``: its input and output names (``onnx_whisper.encoder_io``/``decoder_io``).
    """
    inputs, outputs = names
    return torch.onnx.export(
        module,
        args,
        None,
        dynamo=True,
        opset_version=opset,
        external_data=False,
        input_names=list(inputs),
        output_names=list(outputs),
        dynamic_shapes=dynamic_shapes,
    )


def export_encoder(encoder: WhisperEncoder, target: Path, opset: int = OPSET) -> None:
    """Export ``mel [B, 80, 3000]`` -> ``cross_k_i``, ``cross_v_i`` ``[B, H, 1500, Dh]``."""
    dims = encoder.dims
    mel = torch.zeros(2, dims.n_mels, 2 * dims.n_audio_ctx)
    batch = torch.export.Dim("batch", min=1, max=64)
    exported = _export(
        encoder, (mel,), encoder_io(dims.n_decoder_layers), {"mel": {0: batch}}, opset
    )
    _finish(exported, target, "Whisper base encoder: log-mel -> cross-attention K/V per layer")


def export_decoder(
    decoder: WhisperDecoderStep,
    target: Path,
    opset: int = OPSET,
    gated: bool = False,
    slots: Mapping[str, np.ndarray] | None = None,
) -> list[str]:
    """Export the cached decoder step with dynamic beam batch, new-token and cache lengths.

    ``tokens [B, S]``, per layer ``self_k_i/self_v_i [B, H, P, Dh]`` and
    ``cross_k_i/cross_v_i [1, H, 1500, Dh]`` give ``logits [B, S, V]`` and
    ``new_self_k_i/new_self_v_i [B, H, P+S, Dh]``. The cross K/V batch is fixed at
    1: every row of a call decodes the same clip, so beams and scored candidates
    share it instead of copying 37 MB per row. ``gated``: the decoder carries
    adapters (:func:`therapy_voice.lora.attach_saved`) scaled by an ``adapter_gate``
    [1] input. ``slots``: for a gated decoder, slot name -> value of each adapter
    matrix (:func:`name_adapter_slots`); returns the MatMul nodes reading them.
    """
    dims = decoder.dims
    L, H, Dh = dims.n_decoder_layers, dims.n_heads, dims.head_dim
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
    exported = _export(
        decoder,
        args,
        decoder_io(L, gated),
        {
            "tokens": {0: batch, 1: steps},
            "self_k": cache,
            "self_v": cache,
            "cross_k": [None] * L,
            "cross_v": [None] * L,
            **shapes,
        },
        opset,
    )
    dim_names = {("tokens", 0): "batch", ("tokens", 1): "steps", ("self_k_0", 2): "past"}
    return _finish(
        exported,
        target,
        "Whisper base decoder step with self-attention KV cache",
        dim_names,
        slots,
    )


def quantize_int8(source: Path, target: Path, keep_float: Sequence[str] = ()) -> None:
    """Dynamic int8 quantization of the MatMul weights (activations stay float).

    ``keep_float``: nodes left in float32, e.g. the adapter MatMuls whose weights
    are replaced at run time.
    """
    from onnxruntime.quantization import QuantType, quantize_dynamic

    tmp = target.with_name(target.name + ".tmp")
    quantize_dynamic(
        source,
        tmp,
        op_types_to_quantize=["MatMul", "Gather"],
        per_channel=False,
        weight_type=QuantType.QInt8,
        nodes_to_exclude=list(keep_float),
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
