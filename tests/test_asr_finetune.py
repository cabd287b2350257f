"""Whisper decoder fine-tuning: verbatim targets, eval sets kept out, adapters merged exactly."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from models.asr import build as asr_build  # noqa: E402
from models.asr.finetune_data import draw_rows  # noqa: E402
from therapy_app.asr.verbatim import verbatim_text  # noqa: E402
from therapy_voice.lora import LoraSettings, adapter_arrays, attach_lora, load_into, merge_adapters  # noqa: E402
from therapy_voice.whisper_torch import WhisperDecoderStep, WhisperDims  # noqa: E402

TINY = WhisperDims(n_audio_ctx=6, n_text_ctx=12, d_model=16, n_heads=2, n_decoder_layers=2,
                   n_encoder_layers=1, n_vocab=40)  # fmt: skip


def test_verbatim_target_drops_fillers_and_punctuation_keeps_deformed_words():
    assert verbatim_text("Moi euh aller… boulanzerie ?") == "moi aller boulanzerie"
    assert verbatim_text("aujourd’hui, peut-être.") == "aujourd'hui peut-être"


def test_evaluation_sentences_never_become_training_audio(tmp_path: Path):
    heldout = Path(__file__).parent / "data" / "aphasia_eval_heldout.jsonl"
    first_eval = json.loads(heldout.read_text(encoding="utf-8").splitlines()[0])
    rows = [
        {"src": first_eval["src"], "tgt": "Une autre phrase."},
        {"src": "chat dormir", "tgt": first_eval["refs"][0]},
        {"src": "chien manger os", "tgt": "Le chien mange un os."},
    ]
    (tmp_path / "train.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    assert draw_rows(tmp_path, 10) == [rows[2]]


def _decode(decoder: WhisperDecoderStep, tokens: torch.Tensor) -> torch.Tensor:
    n, h, dh = TINY.n_decoder_layers, TINY.n_heads, TINY.head_dim
    gen = torch.Generator().manual_seed(3)
    cross = [torch.randn(1, h, TINY.n_audio_ctx, dh, generator=gen) for _ in range(2 * n)]
    empty = [torch.zeros(1, h, 0, dh)] * n
    return decoder(tokens, empty, empty, cross[:n], cross[n:])[0]


def _base_and_adapted(
    seed: int, settings: LoraSettings
) -> tuple[WhisperDecoderStep, WhisperDecoderStep]:
    """A random tiny decoder, and a copy with LoRA adapters as if trained (B no longer zero)."""
    torch.manual_seed(seed)
    base = WhisperDecoderStep(TINY)
    for p in base.parameters():
        torch.nn.init.normal_(p, std=0.2)
    adapted = WhisperDecoderStep(TINY)
    adapted.load_state_dict(base.state_dict())
    for p in attach_lora(adapted, settings):
        torch.nn.init.normal_(p, std=0.3)
    return base, adapted


def test_merged_adapters_give_the_adapted_decoders_output(tmp_path: Path):
    settings = LoraSettings(rank=4, alpha=8.0, dropout=0.0)
    base, adapted = _base_and_adapted(0, settings)
    adapted.eval()
    tokens = torch.tensor([[1, 5, 7, 2]])
    with torch.no_grad():
        want = _decode(adapted, tokens)
        before = _decode(base, tokens)
    path = tmp_path / "adapter.npz"
    np.savez(path, **adapter_arrays(adapted.state_dict(), settings.scale))
    assert merge_adapters(base, path) == 6 * TINY.n_decoder_layers
    with torch.no_grad():
        got = _decode(base, tokens)
    assert not torch.allclose(before, want, atol=1e-2)
    # fp16 storage of the adapters: close, not bit-identical.
    assert torch.allclose(got, want, atol=2e-2, rtol=1e-2)


def test_a_later_round_starts_from_the_saved_adapters(tmp_path: Path):
    settings = LoraSettings(rank=4, alpha=8.0, dropout=0.0)
    fresh, trained = _base_and_adapted(0, settings)
    path = tmp_path / "adapter.npz"
    np.savez(path, **adapter_arrays(trained.state_dict(), settings.scale))
    attach_lora(fresh, settings)
    fresh.eval(), trained.eval()
    tokens = torch.tensor([[1, 5, 7, 2]])
    with torch.no_grad():
        assert not torch.allclose(_decode(fresh, tokens), _decode(trained, tokens), atol=1e-2)
        assert load_into(fresh, path) == 6 * TINY.n_decoder_layers
        assert torch.allclose(_decode(fresh, tokens), _decode(trained, tokens), atol=2e-2)
    other = WhisperDecoderStep(TINY)
    attach_lora(other, LoraSettings(rank=2, alpha=4.0))
    with pytest.raises(ValueError, match="does not fit"):
        load_into(other, path)


def test_merge_refuses_an_adapter_for_another_decoder(tmp_path: Path):
    other = WhisperDecoderStep(TINY)
    attach_lora(other, LoraSettings(rank=2))
    path = tmp_path / "adapter.npz"
    np.savez(path, **adapter_arrays(other.state_dict(), 1.0))
    bigger = WhisperDecoderStep(WhisperDims(d_model=32, n_heads=2, n_decoder_layers=2,
                                            n_text_ctx=12, n_vocab=40))  # fmt: skip
    with pytest.raises(ValueError, match="blocks.0.qkv"):
        merge_adapters(bigger, path)


def test_the_adapter_is_part_of_the_build_inputs(tmp_path: Path):
    path = tmp_path / "halting-fr.npz"
    np.savez(path, scale=np.float32(1.0))
    with_adapter = asr_build.build_inputs(path)
    assert with_adapter["adapter"]["file"] == "halting-fr.npz"
    assert len(with_adapter["adapter"]["sha256"]) == 64
    assert asr_build.build_inputs(None)["adapter"] is None


def test_the_committed_adapters_fit_whisper_base_and_are_built_in_by_default():
    with np.load(asr_build.NAMED_ADAPTERS["halting"]) as saved:
        shapes = {k: saved[k].shape for k in saved.files}
    assert shapes.pop("scale") == ()
    d, rank = 512, 16
    outputs = {"qkv": 3 * d, "out": d, "cross_q": d, "cross_out": d, "fc1": 4 * d, "fc2": d}
    inputs = {**dict.fromkeys(outputs, d), "fc2": 4 * d}
    for i in range(6):
        for name, out in outputs.items():
            assert shapes.pop(f"blocks.{i}.{name}.lora_a") == (rank, inputs[name])
            assert shapes.pop(f"blocks.{i}.{name}.lora_b") == (out, rank)
    assert not shapes
    assert asr_build.build.__defaults__[-1] == asr_build.ADAPTER


def test_a_gated_onnx_decoder_is_plain_when_closed_and_adapted_when_open(tmp_path: Path):
    ort = pytest.importorskip("onnxruntime")
    from models.asr.export import export_decoder
    from therapy_app.asr.onnx_whisper import decoder_io
    from therapy_voice.lora import attach_saved

    base, trained = _base_and_adapted(1, LoraSettings(rank=4, alpha=8.0, dropout=0.0))
    path = tmp_path / "adapter.npz"
    np.savez(path, **adapter_arrays(trained.state_dict(), 2.0))
    gated, merged = WhisperDecoderStep(TINY), WhisperDecoderStep(TINY)
    gated.load_state_dict(base.state_dict())
    merged.load_state_dict(base.state_dict())
    assert attach_saved(gated, path) == merge_adapters(merged, path) == 6 * TINY.n_decoder_layers
    for module in (base, gated, merged):
        module.eval()
    graph = tmp_path / "decoder.onnx"
    export_decoder(gated, graph, gated=True)
    session = ort.InferenceSession(str(graph), providers=["CPUExecutionProvider"])
    names, _ = decoder_io(TINY.n_decoder_layers, gated=True)
    assert tuple(i.name for i in session.get_inputs()) == names

    n, h, dh = TINY.n_decoder_layers, TINY.n_heads, TINY.head_dim
    gen = torch.Generator().manual_seed(3)
    cross = [torch.randn(1, h, TINY.n_audio_ctx, dh, generator=gen) for _ in range(2 * n)]
    empty = [np.zeros((2, h, 0, dh), np.float32)] * (2 * n)
    tokens = np.array([[1, 5, 7, 2], [3, 3, 9, 0]], np.int64)

    def onnx_logits(gate: float) -> np.ndarray:
        arrays = [tokens, *empty, *(c.numpy() for c in cross), np.array([gate], np.float32)]
        return session.run(None, dict(zip(names, arrays, strict=True)))[0]

    def torch_logits(module: WhisperDecoderStep) -> np.ndarray:
        zeros = [torch.from_numpy(e) for e in empty[:n]]
        with torch.no_grad():
            return module(torch.from_numpy(tokens), zeros, zeros, cross[:n], cross[n:])[0].numpy()

    plain, adapted = torch_logits(base), torch_logits(merged)
    assert not np.allclose(plain, adapted, atol=1e-2)
    np.testing.assert_allclose(onnx_logits(0.0), plain, atol=1e-4)
    np.testing.assert_allclose(onnx_logits(1.0), adapted, atol=1e-3)
