"""Exports the PyTorch Whisper to ONNX encoder and decoder-step graphs, then quantizes them."""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import onnx
import torch

from models.asr.whisper_torch import WhisperDecoderStep, WhisperEncoder
from therapy_app.asr.onnx_whisper import (
    DECODER_INPUTS,
    DECODER_OUTPUTS,
    ENCODER_INPUTS,
    ENCODER_OUTPUTS,
)
from therapy_app.inference import create_session

_LOGGER = logging.getLogger(__name__)

# Opset 18: LayerNormalization is native (17+) and the dynamo exporter targets 18.
OPSET = 18


def _save_atomic(model: onnx.ModelProto, target: Path) -> None:
    tmp = target.with_name(target.name + ".tmp")
    onnx.save_model(model, str(tmp))
    os.replace(tmp, target)


def _finish(exported: torch.onnx.ONNXProgram, target: Path, doc: str) -> None:
    model = exported.model_proto
    model.doc_string = doc
    onnx.checker.check_model(model)
    _save_atomic(model, target)
    _LOGGER.info("wrote %s (%.1f MB)", target.name, target.stat().st_size / 1e6)


def export_encoder(encoder: WhisperEncoder, target: Path, opset: int = OPSET) -> None:
    """Export ``mel [B, 80, 3000] -> cross_k, cross_v [L, B, H, 1500, Dh]`` (dynamic B)."""
    dims = encoder.dims
    mel = torch.zeros(2, dims.n_mels, 2 * dims.n_audio_ctx)
    batch = torch.export.Dim("batch", min=1, max=64)
    exported = torch.onnx.export(
        encoder,
        (mel,),
        None,
        dynamo=True,
        opset_version=opset,
        external_data=False,
        input_names=list(ENCODER_INPUTS),
        output_names=list(ENCODER_OUTPUTS),
        dynamic_shapes={"mel": {0: batch}},
    )
    _finish(exported, target, "Whisper base encoder: log-mel -> cross-attention K/V")


def export_decoder(decoder: WhisperDecoderStep, target: Path, opset: int = OPSET) -> None:
    """Export the cached decoder step with dynamic beam batch, new-token and cache lengths.

    ``tokens [B, S]``, ``self_k/self_v [L, B, H, P, Dh]`` and ``cross_k/cross_v
    [L, 1, H, 1500, Dh]`` give ``logits [B, S, V]`` and ``new_self_k/new_self_v
    [L, B, H, P+S, Dh]``. The cross K/V batch is fixed at 1: every row of a call
    decodes the same clip, so beams and scored candidates share it by broadcasting
    instead of copying ~18 MB per beam.
    """
    dims = decoder.dims
    L, H, Dh = dims.n_decoder_layers, dims.n_heads, dims.head_dim
    # Example sizes >= 2: torch.export specialises dimensions seen as 0 or 1.
    b, s, p = 3, 4, 5
    args = (
        torch.zeros(b, s, dtype=torch.int64),
        torch.zeros(L, b, H, p, Dh),
        torch.zeros(L, b, H, p, Dh),
        torch.zeros(L, 1, H, dims.n_audio_ctx, Dh),
        torch.zeros(L, 1, H, dims.n_audio_ctx, Dh),
    )
    batch = torch.export.Dim("batch", min=1, max=256)
    steps = torch.export.Dim("steps", min=1, max=dims.n_text_ctx)
    past = torch.export.Dim("past", min=0, max=dims.n_text_ctx)
    exported = torch.onnx.export(
        decoder,
        args,
        None,
        dynamo=True,
        opset_version=opset,
        external_data=False,
        input_names=list(DECODER_INPUTS),
        output_names=list(DECODER_OUTPUTS),
        dynamic_shapes={
            "tokens": {0: batch, 1: steps},
            "self_k": {1: batch, 3: past},
            "self_v": {1: batch, 3: past},
            "cross_k": None,
            "cross_v": None,
        },
    )
    _finish(exported, target, "Whisper base decoder step with self-attention KV cache")


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
) -> tuple[ParityReport, ParityReport]:
    """Run PyTorch and ONNX on one clip and a token prefix and compare.

    The decoder is run as a prompt pass followed by one cached step, with a batch
    of two rows, so the cache and broadcasting paths are both exercised.
    """
    enc_sess = create_session(encoder_onnx, provider="cpu")
    dec_sess = create_session(decoder_onnx, provider="cpu")
    dims = decoder.dims
    L, H, Dh = dims.n_decoder_layers, dims.n_heads, dims.head_dim
    with torch.no_grad():
        ref_k, ref_v = encoder(torch.from_numpy(mel[None]))
    onnx_k, onnx_v = enc_sess.run(None, {"mel": mel[None]})
    enc_diff = max(np.abs(onnx_k - ref_k.numpy()).max(), np.abs(onnx_v - ref_v.numpy()).max())
    enc_report = ParityReport(
        f"encoder-{label}", float(enc_diff), float(np.abs(ref_k.numpy()).max())
    )

    prompt = np.array([tokens[:-1], tokens[:-1]], dtype=np.int64)
    last = np.array([[tokens[-1]], [tokens[-2]]], dtype=np.int64)
    empty = np.zeros((L, 2, H, 0, Dh), np.float32)
    # Both sides decode from the PyTorch cross K/V so that the decoder alone is compared.
    cross = {"cross_k": ref_k.numpy(), "cross_v": ref_v.numpy()}
    ref_logits, onnx_logits = [], []
    with torch.no_grad():
        lg, sk, sv = decoder(
            torch.from_numpy(prompt), torch.from_numpy(empty), torch.from_numpy(empty), ref_k, ref_v
        )
        ref_logits.append(lg.numpy())
        lg, _, _ = decoder(torch.from_numpy(last), sk, sv, ref_k, ref_v)
        ref_logits.append(lg.numpy())
    lg, ok, ov = dec_sess.run(None, {"tokens": prompt, "self_k": empty, "self_v": empty, **cross})
    onnx_logits.append(lg)
    lg, _, _ = dec_sess.run(None, {"tokens": last, "self_k": ok, "self_v": ov, **cross})
    onnx_logits.append(lg)
    ref = np.concatenate([x.reshape(-1, x.shape[-1]) for x in ref_logits])
    got = np.concatenate([x.reshape(-1, x.shape[-1]) for x in onnx_logits])
    agreement = float(np.mean(ref.argmax(-1) == got.argmax(-1)))
    dec_report = ParityReport(
        f"decoder-{label}", float(np.abs(ref - got).max()), float(np.abs(ref).max()), agreement
    )
    _LOGGER.info("parity %s", (enc_report, dec_report))
    return enc_report, dec_report
