"""Personal-voice training process: real recordings, real weights, cancel and resume, bad input."""

from __future__ import annotations

import ast
import json
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from therapy_app import model_store  # noqa: E402
from therapy_app.asr.verbatim import verbatim_text  # noqa: E402
from therapy_app.voice.model import AdaptProgress  # noqa: E402
from therapy_voice.__main__ import EXIT_BAD_INPUT, default_weights, main  # noqa: E402
from therapy_voice.adapt import (  # noqa: E402
    ADAPTER_FILE,
    CHECKPOINT_FILE,
    PREPARED_DIR,
    TRAIN_FILE,
    Recipe,
    open_work,
    schedule_progress,
)
from therapy_voice.lora import LoraSettings, attach_lora, load_into  # noqa: E402
from therapy_voice.manifest import ManifestError, read_manifest  # noqa: E402
from therapy_voice.prepare import prepare_recordings, read_prepared  # noqa: E402
from therapy_voice.whisper_torch import WhisperDecoderStep, WhisperDims  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(__file__).parent / "data"
STEPS = 3


def _items() -> list[dict[str, str]]:
    """Two human words (Armelle) and two Pico utterances, with the words said."""
    human = {e["file"]: e["text"] for e in json.loads((DATA / "human" / "index.json").read_text())}
    speech = json.loads((DATA / "speech" / "transcripts.json").read_text(encoding="utf-8"))
    chosen = [("human", "lundi.wav", human["lundi.wav"]), ("human", "six.wav", human["six.wav"])]
    chosen += [("speech", n, speech[n]["text"]) for n in ("telegraphic_02.wav", "sentence_04.wav")]
    return [{"audio": str(DATA / folder / name), "text": text} for folder, name, text in chosen]


def _write_manifest(path: Path, items: list, init: str | None = None, **extra) -> Path:
    path.write_text(json.dumps({"version": 1, "items": items, "init": init, "seed": 0, **extra}))
    return path


def _weights() -> Path:
    found = default_weights()
    if found is None and (ROOT / "build/cache/whisper-base-ct2/model.bin").is_file():
        found = ROOT / "build/cache/whisper-base-ct2"
    if found is None:
        pytest.skip("no training weights: run `python -m models.build`")
    for name in (model_store.ASR_MODEL, model_store.VAD_MODEL):
        if model_store.find_model(name) is None:
            pytest.skip(f"{name} is not built: run `python -m models.build`")
    return found


def _command(manifest: Path, work: Path, *extra: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "therapy_voice",
        "adapt",
        "--manifest",
        str(manifest),
        "--work",
        str(work),
        "--weights",
        str(_weights()),
        "--threads",
        "2",
        *extra,
    ]


def _progress(stderr: str) -> list[AdaptProgress]:
    return [AdaptProgress(**json.loads(line)) for line in stderr.splitlines() if line[:1] == "{"]


def _cancel_midway(
    proc: subprocess.Popen[str],
    when: Callable[[dict[str, Any]], bool],
    cancel: Callable[[], object],
) -> None:
    """Read the trainer's progress; ``cancel()`` once a progress line meets ``when``.

    The trainer must then stop with exit code 3 and a last "cancelled" line; it is
    killed if it runs past 300 s.
    """
    watchdog = threading.Timer(300, proc.kill)
    watchdog.start()
    lines = []
    cancelled = False
    try:
        for line in proc.stderr:  # type: ignore[union-attr]
            lines.append(line)
            if not cancelled and line.startswith("{") and when(json.loads(line)):
                cancel()
                cancelled = True
        code = proc.wait()
    finally:
        watchdog.cancel()
    assert code == 3, "".join(lines)[-3000:]
    assert _progress("".join(lines))[-1].stage == "cancelled"


def _halting_init() -> str:
    return str(ROOT / "models/asr/adapters/halting-fr.npz")


def _train(manifest: Path, work: Path) -> subprocess.CompletedProcess[str]:
    """A whole run of the trainer process, which must succeed."""
    done = subprocess.run(
        _command(manifest, work, "--max-steps", str(STEPS)),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done


@pytest.fixture(scope="module")
def short_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    """A 3-step run on four recordings, started from the shipped adapters."""
    tmp = tmp_path_factory.mktemp("voice")
    manifest = _write_manifest(tmp / "manifest.json", _items(), _halting_init())
    work = tmp / "work"
    done = _train(manifest, work)
    return manifest, work, done.stderr


@pytest.mark.slow
def test_a_short_run_lowers_the_loss_and_writes_a_loadable_adapter(short_run):
    manifest, work, stderr = short_run
    stages = [p.stage for p in _progress(stderr)]
    assert stages[0] == "prepare" and stages[-1] == "done" and "train" in stages
    summary = json.loads((work / TRAIN_FILE).read_text())
    assert summary["steps"] == STEPS and summary["items"]["trained"] == 4
    assert summary["loss"]["after"] < summary["loss"]["before"]
    assert summary["manifest_sha256"] == read_manifest(manifest).sha256
    assert summary["minutes"]["prepare"] > 0 and summary["minutes"]["train"] > 0
    assert [h["step"] for h in summary["history"]] == [1, 2, 3]
    decoder = WhisperDecoderStep(WhisperDims())
    attach_lora(decoder, LoraSettings(rank=16, alpha=32.0))
    assert load_into(decoder, work / ADAPTER_FILE) == 36


@pytest.mark.slow
def test_cancel_keeps_a_checkpoint_and_a_rerun_finishes_with_the_same_adapter(
    short_run, tmp_path: Path
):
    manifest, first, _ = short_run
    work = tmp_path / "work"
    # The prepared states are reused (same manifest): only training runs again.
    shutil.copytree(first / PREPARED_DIR, work / PREPARED_DIR)
    shutil.copy(first / "run.json", work / "run.json")
    proc = subprocess.Popen(
        _command(manifest, work, "--max-steps", str(STEPS)),
        cwd=ROOT,
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
    )
    _cancel_midway(
        proc,
        lambda progress: progress["stage"] == "train" and progress["done"] >= 1,
        (work / "cancel").touch,
    )
    saved = torch.load(work / CHECKPOINT_FILE, weights_only=False)
    assert 1 <= saved["step"] < STEPS
    assert not (work / ADAPTER_FILE).exists()

    again = _train(manifest, work)
    assert "resumed at step" in again.stderr
    summary = json.loads((work / TRAIN_FILE).read_text())
    assert [h["step"] for h in summary["history"]] == [1, 2, 3]
    with np.load(work / ADAPTER_FILE) as got, np.load(first / ADAPTER_FILE) as want:
        assert sorted(got.files) == sorted(want.files)
        for key in want.files:
            assert got[key].shape == want[key].shape
            # Seeded order and dropout: an interrupted run ends where a straight one does.
            np.testing.assert_allclose(got[key], want[key], atol=2e-3)


@pytest.mark.slow
def test_a_spent_time_budget_still_ends_with_a_loadable_adapter(short_run, tmp_path: Path):
    manifest, first, _ = short_run
    work = tmp_path / "work"
    shutil.copytree(first / PREPARED_DIR, work / PREPARED_DIR)
    shutil.copy(first / "run.json", work / "run.json")
    done = subprocess.run(
        _command(manifest, work, "--minutes", "0"),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    summary = json.loads((work / TRAIN_FILE).read_text())
    # No time left once the weights were loaded: no step, the shipped adapters as they are.
    assert summary["steps"] == 0 and summary["complete"] is False
    assert _progress(done.stderr)[-1].stage == "done"
    decoder = WhisperDecoderStep(WhisperDims())
    attach_lora(decoder, LoraSettings(rank=16, alpha=32.0))
    assert load_into(decoder, work / ADAPTER_FILE) == 36


def test_the_schedule_ends_with_the_steps_or_the_time_budget_whichever_first():
    inf = float("inf")
    assert schedule_progress(39, 78, 0.0, 30.0, inf) == 0.5  # no budget: steps alone
    assert schedule_progress(78, 78, 0.0, 30.0, inf) == 1.0
    # A loaded PC: a quarter of the steps took three quarters of the budget.
    assert schedule_progress(20, 80, 0.0, 450.0, 600.0) == 0.75
    assert schedule_progress(30, 80, 0.0, 600.0, 600.0) == 1.0
    # A resumed run goes on from the progress saved, over its own budget.
    assert schedule_progress(40, 80, 0.6, 300.0, 600.0) == 0.8
    assert schedule_progress(0, 80, 0.0, 0.0, 0.0) == 1.0  # nothing left: no step
    assert schedule_progress(0, 0, 0.0, 0.0, inf) == 1.0


def test_a_bad_manifest_exits_2_with_a_message(tmp_path: Path):
    manifest = _write_manifest(tmp_path / "m.json", [{"audio": "/nowhere/a.wav", "text": "six"}])
    done = subprocess.run(
        _command(manifest, tmp_path / "work"), cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == EXIT_BAD_INPUT
    last = _progress(done.stderr)[-1]
    assert last.stage == "failed" and "/nowhere/a.wav" in last.message


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"items": []}, "no items"),
        ({"version": 2}, "version 2"),
        ({"items": [{"audio": "relative.wav", "text": "six"}]}, "absolute"),
        ({"items": [{"audio": str(DATA / "human" / "six.wav"), "text": "euh…"}]}, "one word"),
        ({"init": "/nowhere/halting.npz"}, "init"),
    ],
)
def test_each_bad_manifest_is_refused_before_any_work(tmp_path: Path, capsys, change, expected):
    data = {"version": 1, "items": _items(), "init": None, "seed": 0, **change}
    path = tmp_path / "m.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ManifestError, match=expected):
        read_manifest(path)
    code = main(["adapt", "--manifest", str(path), "--work", str(tmp_path / "work")])
    assert code == EXIT_BAD_INPUT
    lines = [ln for ln in capsys.readouterr().err.splitlines() if ln.startswith("{")]
    assert json.loads(lines[-1])["stage"] == "failed" and expected in lines[-1]
    assert not (tmp_path / "work").exists()


def test_an_unreadable_recording_is_bad_input(tmp_path: Path):
    bad = tmp_path / "bad.wav"
    bad.write_bytes(b"RIFF\x00\x00\x00\x00WAVEjunk")
    with pytest.raises(ManifestError, match="item 2"):
        prepare_recordings(
            [DATA / "human" / "six.wav", bad],
            tmp_path / "p",
            lambda clip: np.zeros((2, 2), np.float16),
            lambda done: None,
        )


def test_preparation_resumes_item_by_item(tmp_path: Path):
    audio = [DATA / "human" / name for name in ("six.wav", "lundi.wav", "mardi.wav")]
    heard: list[float] = []

    def hear(clip):
        heard.append(clip.duration)
        return None if len(heard) == 2 else np.full((3, 4), len(heard), np.float16)

    def stop_at_third(done: int) -> None:
        if done == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        prepare_recordings(audio, tmp_path, hear, stop_at_third)
    assert sorted(read_prepared(tmp_path)) == [0, 1]
    items = prepare_recordings(audio, tmp_path, hear, lambda done: None)
    assert len(heard) == 3  # the first two were not prepared again
    assert [it.states is None for it in items] == [False, True, False]
    assert np.load(items[2].states)[0, 0] == 3


def test_another_manifest_starts_over_cleanly(tmp_path: Path):
    model_bin = tmp_path / "model.bin"
    model_bin.write_bytes(b"weights")
    first = read_manifest(_write_manifest(tmp_path / "a.json", _items()))
    work = tmp_path / "work"
    open_work(work, first, model_bin)
    (work / PREPARED_DIR).mkdir()
    for name in (CHECKPOINT_FILE, ADAPTER_FILE, TRAIN_FILE):
        (work / name).write_bytes(b"x")
    open_work(work, first, model_bin)  # same input: everything kept
    assert (work / CHECKPOINT_FILE).exists() and (work / PREPARED_DIR).exists()
    second = read_manifest(_write_manifest(tmp_path / "b.json", _items()[:2]))
    open_work(work, second, model_bin)
    left = sorted(p.name for p in work.iterdir())
    assert left == ["run.json"]


def test_the_recipe_grows_epochs_for_few_recordings_and_caps_steps():
    hundred = Recipe.for_items(100, "fp32")
    assert (hundred.batch, hundred.epochs, hundred.steps) == (8, 6, 78)
    assert Recipe.for_items(10, "fp32").epochs == 12
    assert Recipe.for_items(1000, "fp32").epochs == 3
    assert Recipe.for_items(100, "fp32", max_steps=5).steps == 5
    assert Recipe.for_items(3, "bf16").batch == 3


def test_verbatim_text_is_the_recognisers_style():
    assert verbatim_text("Le Chapeau, euh… rouge !") == "le chapeau rouge"
    assert verbatim_text("aujourd’hui") == "aujourd'hui"


def test_the_weights_are_found_in_the_models_folders(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("THERAPY_APP_MODELS_DIR", str(tmp_path))
    assert default_weights() is None
    (tmp_path / "whisper-base-train").mkdir()
    (tmp_path / "whisper-base-train" / "model.bin").write_bytes(b"x")
    assert default_weights() == tmp_path / "whisper-base-train"


@pytest.mark.slow
def test_sigterm_while_preparing_exits_3_and_keeps_what_was_prepared(tmp_path: Path):
    manifest = _write_manifest(tmp_path / "m.json", _items())
    work = tmp_path / "work"
    proc = subprocess.Popen(_command(manifest, work), cwd=ROOT, stderr=subprocess.PIPE, text=True)
    _cancel_midway(
        proc, lambda progress: progress["done"] >= 1, lambda: proc.send_signal(signal.SIGTERM)
    )
    assert 1 <= len(read_prepared(work / PREPARED_DIR)) < len(_items())


def test_the_training_package_never_imports_the_build_tree():
    # therapy_voice ships to patients' PCs without models/ (issue 26).
    offenders = []
    for path in (ROOT / "therapy_voice").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            offenders += [f"{path.name}: {n}" for n in names if n.split(".")[0] == "models"]
    assert not offenders
