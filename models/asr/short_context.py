"""Builds a candidate whisper-base folder whose encoder sees a shorter audio window.

Whisper always encodes 30 s (3000 mel frames, 1500 encoder positions), however
short the clip; a patient's utterance, pauses capped, is rarely over 8 s. This
exports the same weights (adapters gated in, as shipped) with the encoder cut
to ``--seconds`` (its positional table truncated) and the decoder's
cross-attention sized to match, then writes a sidecar whose ``mel.chunk_seconds``
makes the app pad to that window. Untrained at that length, so it is an
experiment: measure it with ``benchmarks/halting.py --asr-dir`` and
``benchmarks/speech.py --asr-dir`` before shipping anything::

    python -m models.asr.short_context --seconds 10 --out build/candidates/asr-ctx10
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import logging
import shutil
from pathlib import Path

from models.asr import sources
from models.asr.build import ADAPTER, OPSET
from therapy_app.asr.config import DECODER_ROLE, ENCODER_ROLE, TOKENIZER_ROLE
from therapy_app.model_store import SIDECAR, file_entry, write_sidecar

ROOT = Path(__file__).resolve().parents[2]

_LOGGER = logging.getLogger("asr_short_context")


def build_candidate(seconds: int, out: Path, built: Path, adapter: Path = ADAPTER) -> Path:
    """Export int8 encoder and gated decoder for a ``seconds`` window into ``out``."""
    import torch

    from models.asr import export
    from models.asr.ct2 import read_ct2_model
    from models.asr.lora import attach_saved
    from models.asr.whisper_torch import load_from_ct2

    torch.set_num_threads(2)
    for noisy in ("onnx_ir", "onnxscript", "torch.onnx", "root"):
        logging.getLogger(noisy).setLevel(logging.ERROR)
    files = sources.assemble(ROOT / "build" / "cache")
    encoder, decoder = load_from_ct2(read_ct2_model(files.model_bin))
    attach_saved(decoder, adapter)
    ctx = seconds * 50  # 100 mel frames per second, halved by the strided convolution
    encoder.positions = encoder.positions[:ctx].clone()
    encoder.dims = dataclasses.replace(encoder.dims, n_audio_ctx=ctx)
    decoder.dims = dataclasses.replace(decoder.dims, n_audio_ctx=ctx)
    work = out.with_name(out.name + ".work")
    work.mkdir(parents=True, exist_ok=True)
    export.export_encoder(encoder, work / "encoder.fp32.onnx", OPSET)
    export.export_decoder(decoder, work / "decoder.fp32.onnx", OPSET, gated=True)
    out.mkdir(parents=True, exist_ok=True)
    export.quantize_int8(work / "encoder.fp32.onnx", out / "encoder.onnx")
    export.quantize_int8(work / "decoder.fp32.onnx", out / "decoder.onnx")
    shutil.copyfile(built / "tokenizer.json", out / "tokenizer.json")
    meta = json.loads((built / SIDECAR).read_text(encoding="utf-8"))
    meta["version"] += f"+ctx{seconds}s"
    meta["mel"]["chunk_seconds"] = seconds
    meta["files"] = {
        role: file_entry(out, out / name)
        for role, name in (
            (ENCODER_ROLE, "encoder.onnx"),
            (DECODER_ROLE, "decoder.onnx"),
            (TOKENIZER_ROLE, "tokenizer.json"),
        )
    }
    meta["build"]["audio_context"] = {
        "seconds": seconds,
        "encoder_positions": ctx,
        "made_by": "models/asr/short_context.py (positional table truncated, no training)",
    }
    write_sidecar(out, meta)
    shutil.rmtree(work)
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--built", type=Path, default=ROOT / "build" / "models" / "whisper-base")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    print(build_candidate(args.seconds, args.out, args.built))


if __name__ == "__main__":
    main()
