"""A patient's personal adapter in the built decoder's named slots: same graphs, checked file."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from asr_fixtures import require_model, shared_recognizer, speech_items

from therapy_app import doctor
from therapy_app.asr.config import TRAIN_MODEL
from therapy_app.asr.personal import AdapterSlots, PersonalAdapterError, read_adapter
from therapy_app.asr.recognizer import EncodedAudio, SpeechRecognizer
from therapy_app.errors import ModelInvalidError
from therapy_app.voice.model import PersonalModel

HALTING = Path(__file__).resolve().parents[1] / "models" / "asr" / "adapters" / "halting-fr.npz"
Arrays = dict[str, np.ndarray]


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _saved(tmp_path: Path, arrays: Arrays, scoring: bool = False) -> PersonalModel:
    path = tmp_path / "personal.npz"
    np.savez(path, **arrays)
    return PersonalModel(path, _sha256(path), scoring)


def _halting_arrays() -> Arrays:
    with np.load(HALTING) as saved:
        return {key: saved[key] for key in saved.files}


@pytest.fixture(scope="module")
def slots() -> AdapterSlots:
    meta = json.loads((require_model() / "model.json").read_text("utf-8"))
    if not (meta.get("adapter") or {}).get("slots"):
        pytest.skip("the built whisper-base has no adapter slots: rebuild it")
    return AdapterSlots.from_sidecar(meta)


@pytest.fixture(scope="module")
def generic(slots: AdapterSlots) -> SpeechRecognizer:
    return shared_recognizer()


@pytest.fixture(scope="module")
def halting_personal(generic: SpeechRecognizer) -> SpeechRecognizer:
    """The committed adapter loaded as if it were a patient's own."""
    return SpeechRecognizer.load(personal=PersonalModel(HALTING, _sha256(HALTING), False))


@pytest.fixture(scope="module")
def encoded(generic: SpeechRecognizer) -> EncodedAudio:
    item = next(i for i in speech_items() if i.category == "telegraphic")
    return generic.encode(item.clip)


def _logits(recognizer: SpeechRecognizer, gate: float, cross: EncodedAudio) -> np.ndarray:
    tokens = recognizer.config.tokens.sot_sequence + recognizer.tokenizer.encode(" moi aller")
    model = recognizer.model.with_gate(gate)
    feed = np.asarray([tokens, tokens[::-1]], np.int64)
    return model.step(feed, model.empty_cache(2), cross.cross)[0]


def test_the_generic_adapter_loaded_as_personal_changes_nothing(
    generic: SpeechRecognizer, halting_personal: SpeechRecognizer, encoded: EncodedAudio
):
    np.testing.assert_array_equal(
        _logits(halting_personal, 1.0, encoded), _logits(generic, 1.0, encoded)
    )
    assert not np.array_equal(_logits(generic, 1.0, encoded), _logits(generic, 0.0, encoded))
    for item in speech_items()[::4]:
        clip = generic.encode(item.clip)
        assert halting_personal.transcribe(clip).text == generic.transcribe(clip).text
    assert halting_personal.personal is not None and generic.personal is None
    version = halting_personal.model_version
    assert version == f"{generic.model_version}+personal-{_sha256(HALTING)[:12]}"


def test_an_adapter_with_zero_updates_is_plain_whisper_at_gate_one(
    tmp_path: Path, generic: SpeechRecognizer, encoded: EncodedAudio
):
    arrays = {
        k: np.zeros_like(v) if k.endswith("lora_b") else v for k, v in _halting_arrays().items()
    }
    zero = SpeechRecognizer.load(personal=_saved(tmp_path, arrays))
    np.testing.assert_array_equal(_logits(zero, 1.0, encoded), _logits(generic, 0.0, encoded))
    plain = dataclasses.replace(generic.default_options, adapter_gate=0.0)
    assert zero.transcribe(encoded).text == generic.transcribe(encoded, plain).text


def test_the_scoring_flag_opens_the_gate_for_score(
    generic: SpeechRecognizer, halting_personal: SpeechRecognizer, encoded: EncodedAudio
):
    candidates = ["moi aller boulangerie hier", "moi aller boucherie hier", "moi"]
    plain = [c.logprob for c in generic.score(encoded, candidates)]
    opened = SpeechRecognizer(generic.model.with_gate(1.0), generic.tokenizer, generic.config)
    adapted = [c.logprob for c in opened.score(encoded, candidates)]
    assert plain != pytest.approx(adapted, abs=1e-3)
    # Not adopted for scoring: score() stays plain Whisper base.
    assert [c.logprob for c in halting_personal.score(encoded, candidates)] == plain
    scoring_model = dataclasses.replace(halting_personal.personal, scoring=True)
    scoring = SpeechRecognizer.load(personal=scoring_model)
    assert [c.logprob for c in scoring.score(encoded, candidates)] == pytest.approx(
        adapted, abs=1e-6
    )
    assert scoring.model.gate == 0.0  # the gate is opened per call, not for the recogniser
    assert scoring.model_version.endswith("+scoring")


def _rank_8(arrays: Arrays) -> Arrays:
    return {
        k: v[:8] if k.endswith("lora_a") else v[:, :8] if k.endswith("lora_b") else v
        for k, v in arrays.items()
    }


def _missing_layer(arrays: Arrays) -> Arrays:
    return {k: v for k, v in arrays.items() if not k.startswith("blocks.5.fc2.")}


def _nan(arrays: Arrays) -> Arrays:
    arrays["blocks.2.cross_q.lora_b"] = arrays["blocks.2.cross_q.lora_b"].copy()
    arrays["blocks.2.cross_q.lora_b"][3, 4] = np.nan
    return arrays


def _extra(arrays: Arrays) -> Arrays:
    return {**arrays, "blocks.6.qkv.lora_a": arrays["blocks.0.qkv.lora_a"]}


def _other_scale(arrays: Arrays) -> Arrays:
    return {**arrays, "scale": np.asarray(1.0, np.float32)}


@pytest.mark.parametrize(
    ("spoil", "problem"),
    [
        (_rank_8, "ne correspond pas"),
        (_missing_layer, "est incomplète"),
        (_nan, "est endommagée"),
        (_extra, "ne correspond pas"),
        (_other_scale, "ne correspond pas"),
    ],
)
def test_an_adapter_that_does_not_fit_is_refused_in_french(
    tmp_path: Path, slots: AdapterSlots, spoil: Callable[[Arrays], Arrays], problem: str
):
    personal = _saved(tmp_path, spoil(_halting_arrays()))
    with pytest.raises(PersonalAdapterError) as raised:
        SpeechRecognizer.load(personal=personal)
    assert raised.value.user_message.startswith("La voix personnelle du patient")
    assert problem in raised.value.user_message
    with pytest.raises(PersonalAdapterError):
        read_adapter(personal.adapter, slots)


def test_an_altered_or_unreadable_adapter_is_refused(tmp_path: Path, slots: AdapterSlots):
    personal = _saved(tmp_path, _halting_arrays())
    wrong_hash = dataclasses.replace(personal, sha256="0" * 64)
    with pytest.raises(PersonalAdapterError, match="sha256") as raised:
        SpeechRecognizer.load(personal=wrong_hash)
    assert "modifiée" in raised.value.user_message
    personal.adapter.write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(PersonalAdapterError, match="not an npz"):
        read_adapter(personal.adapter, slots)
    with pytest.raises(PersonalAdapterError, match="cannot read"):
        read_adapter(tmp_path / "absent.npz", slots)


def test_a_model_without_slots_refuses_personal_adapters():
    with pytest.raises(PersonalAdapterError, match="no adapter slots"):
        AdapterSlots.from_sidecar({"adapter": None})
    with pytest.raises(ModelInvalidError):
        AdapterSlots.from_dict({"rank": 16, "layers": ["qkv"]})


def test_the_built_decoder_has_named_float_slots_and_no_s8_weights(slots: AdapterSlots):
    onnx = pytest.importorskip("onnx", reason="reading the graph needs the [build] extra")
    from onnx import TensorProto, numpy_helper

    from models.portable_int8 import s8_weight_count

    model = onnx.load(str(require_model() / "decoder.onnx"))
    inits = {init.name: init for init in model.graph.initializer}
    readers = {n.input[1]: n.op_type for n in model.graph.node if len(n.input) > 1}
    expected = read_adapter(HALTING, slots)
    shapes = slots.shapes()
    assert len(shapes) == 2 * 6 * 6 and set(expected) == set(shapes)
    for name, shape in shapes.items():
        assert inits[name].data_type == TensorProto.FLOAT
        assert tuple(inits[name].dims) == shape
        assert readers[name] == "MatMul"
        # The committed adapter, transposed: what a personal one replaces.
        np.testing.assert_array_equal(numpy_helper.to_array(inits[name]), expected[name])
    assert s8_weight_count(model) == 0
    assert (slots.rank, slots.scale, slots.layers[0]) == (16, 2.0, "qkv")


def test_doctor_reports_the_voice_pack_present_or_absent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    built = require_model().parent
    if not (built / TRAIN_MODEL / "model.json").is_file():
        pytest.skip("whisper-base-train is not built: rebuild the models")
    monkeypatch.setenv("THERAPY_APP_VOICE_DIR", str(tmp_path / "no-pack"))
    monkeypatch.setenv("THERAPY_APP_MODELS_DIR", str(built))
    present = doctor._voice_pack_check(verify_hashes=True)
    assert present.ok and "sha256 ok" in present.detail
    monkeypatch.setenv("THERAPY_APP_MODELS_DIR", str(tmp_path))
    absent = doctor._voice_pack_check(verify_hashes=True)
    assert not absent.ok and not absent.required
    assert "pack voix non installé" in absent.detail
    # An installed pack keeps its weights in its own folder (therapy_app/voice_pack.py).
    pack = tmp_path / "pack"
    (pack / "models").mkdir(parents=True)
    (pack / "models" / TRAIN_MODEL).symlink_to(built / TRAIN_MODEL)
    manifest = {"format": 1, "files": {}, "torch": "2", "sites": {}}
    (pack / "voice-pack.json").write_text(json.dumps(manifest), "utf-8")
    monkeypatch.setenv("THERAPY_APP_VOICE_DIR", str(pack))
    installed = doctor._voice_pack_check(verify_hashes=False)
    assert installed.ok and str(pack) in installed.detail
