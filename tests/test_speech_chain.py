"""One speech path: CLI and practice share it, one VAD pass, a broken corrector degrades alike."""

from __future__ import annotations

import importlib.util
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
from practice_fixtures import (
    SPEECH_DIR,
    TRAILING_SILENCE_S,
    SpokenClips,
    damaged_corrector_models,
    shared_engines,
)

from therapy_app import cli, model_store, paths
from therapy_app.audio.recorder import FileAudioSource, Recorder
from therapy_app.audio.wavio import read_wav
from therapy_app.inference import create_session
from therapy_app.practice.controller import PracticeController
from therapy_app.practice.events import Corrected, ExerciseKind, State, StateChanged
from therapy_app.practice.scheduling import InlineScheduler
from therapy_app.speech import chain, loading
from therapy_app.speech.loading import (
    LOAD_STEPS,
    LoadStep,
    Unavailable,
    assemble,
    load_corrector,
)
from therapy_app.speech.services import SilentPlayer, SpeechServices
from therapy_app.vad.silero import WINDOW, VoiceActivityDetector

pytestmark = pytest.mark.slow

DEMO = paths.resources_dir() / cli.DEMO_RECORDING


class CountingSession:
    """The VAD's ONNX session, counting model calls (one per 32 ms window)."""

    def __init__(self, inner: object) -> None:
        self._inner = inner
        self.windows = 0

    def run(self, *args, **kwargs):
        self.windows += 1
        return self._inner.run(*args, **kwargs)  # type: ignore[attr-defined]


def counting_vad() -> tuple[VoiceActivityDetector, CountingSession]:
    """The real Silero VAD, its model calls counted."""
    bundle = model_store.load_model(model_store.VAD_MODEL)
    session = CountingSession(create_session(bundle.file("model"), provider="cpu", threads=1))
    return VoiceActivityDetector(session), session


def _loader(step: LoadStep) -> tuple[str, object]:
    """A step's key and the function it calls (through ``functools.partial``)."""
    return step.key, getattr(step.load, "func", step.load)


def _windows(samples: int) -> int:
    return math.ceil(samples / WINDOW)


class KeptRecorder(Recorder):
    """The real recorder, keeping the clip it captured."""

    kept = None

    def stop(self):
        clip = super().stop()
        if clip.duration:
            self.kept = clip
        return clip


def test_the_cli_loop_and_the_practice_run_the_same_speech_functions(monkeypatch, repository):
    # The old second chain (therapy_app.pipeline.SpeechLoop) is gone.
    assert importlib.util.find_spec("therapy_app.pipeline") is None
    engines = shared_engines()
    calls: list[tuple[str, str]] = []
    caller = {"name": "cli"}
    for name in ("hear", "correct", "synthesize"):
        real = getattr(chain, name)

        def spy(*args, _real=real, _name=name, **kwargs):
            calls.append((caller["name"], _name))
            return _real(*args, **kwargs)

        monkeypatch.setattr(chain, name, spy)
    # The loop loads its engines with the GUI's steps (answered from the engines
    # already loaded, to save the seconds of reading the models again).
    built: list[list[LoadStep]] = []

    def load_steps(provider=None, with_corrector=True, personal=None):
        steps = real_load_steps(provider, with_corrector, personal)
        built.append(list(steps))
        return [LoadStep(s.key, s.label, lambda k=s.key: engines[k]) for s in steps]

    real_load_steps = loading.load_steps
    monkeypatch.setattr(loading, "load_steps", load_steps)
    assert cli.main(["loop", "--demo", "--once", "--no-play"]) == 0
    assert [_loader(s) for s in built[0]] == [_loader(s) for s in LOAD_STEPS]
    assert calls == [("cli", "hear"), ("cli", "correct"), ("cli", "synthesize")]

    caller["name"] = "practice"
    spoken = SpokenClips()
    services = assemble(dict(engines), recorder_factory=spoken, player=SilentPlayer())
    patient = repository.patients.create("Jeanne Martin")
    controller = PracticeController(
        ExerciseKind.FREE_SPEECH, services, repository, patient.id, InlineScheduler()
    )
    controller.begin()
    spoken.say("telegraphic_02.wav")
    controller.toggle_recording()
    assert controller.state is State.REVIEWING
    assert controller.choose(0)  # the chosen sentence is said by the same voice
    assert ("practice", "hear") in calls and ("practice", "correct") in calls
    assert ("practice", "synthesize") in calls
    controller.end()


def test_the_vad_runs_once_over_an_utterance_in_the_cli_path():
    engines = shared_engines()
    vad, session = counting_vad()
    services = assemble({**engines, "vad": vad}, player=SilentPlayer())
    clip = read_wav(DEMO)
    result = chain.run_utterance(services, clip)
    assert result.heard is not None and "boulangerie" in result.text.lower()
    assert 0.0 <= result.heard.pause_ratio < 1.0
    # One model call per 32 ms window of the recording: trimming and pauses
    # come from the same pass (before: a second pass over the trimmed clip).
    assert session.windows == _windows(len(clip.samples))


def test_the_vad_runs_once_over_an_utterance_in_the_practice(repository):
    engines = shared_engines()
    vad, session = counting_vad()
    speech = read_wav(SPEECH_DIR / "telegraphic_02.wav")
    recorders: list[KeptRecorder] = []

    def recorder_factory() -> Recorder:
        recorder = KeptRecorder(FileAudioSource(speech, trailing_silence_s=TRAILING_SILENCE_S))
        recorders.append(recorder)
        return recorder

    services = assemble(
        {**engines, "vad": vad}, recorder_factory=recorder_factory, player=SilentPlayer()
    )
    patient = repository.patients.create("Jeanne Martin")
    controller = PracticeController(
        ExerciseKind.FREE_SPEECH, services, repository, patient.id, InlineScheduler()
    )
    marks: dict[State, int] = {}
    controller.subscribe(
        lambda e: (
            marks.setdefault(e.state, session.windows) if isinstance(e, StateChanged) else None
        )
    )
    controller.begin()
    controller.toggle_recording()
    assert controller.state is State.REVIEWING
    captured = recorders[-1].kept
    assert captured is not None
    # While recording, the end-of-speech detector listens (streaming); once
    # recorded, the utterance is analysed in exactly one pass.
    assert marks[State.RECORDING] < marks[State.RECOGNISING]
    assert marks[State.CORRECTING] - marks[State.RECOGNISING] == _windows(len(captured.samples))
    controller.end()


@pytest.mark.parametrize("damage", ["flipped", "sidecar"])
def test_a_damaged_corrector_gives_the_same_french_notice_in_cli_and_gui(
    tmp_path: Path, monkeypatch, damage: str
):
    engines = shared_engines()  # loaded before the corrector is broken
    models = damaged_corrector_models(tmp_path / "models", damage)
    monkeypatch.setenv("THERAPY_APP_MODELS_DIR", str(models))
    unavailable = load_corrector()
    assert isinstance(unavailable, Unavailable)
    notice = unavailable.notice
    assert notice.startswith("La correction des phrases n'est pas disponible")
    assert "endommagé" in notice

    # The command line: the notice, no traceback, the transcript spoken as heard.
    result = subprocess.run(
        [sys.executable, "-m", "therapy_app.cli", "loop", "--demo", "--once", "--no-play"],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "THERAPY_APP_MODELS_DIR": str(models)},
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert notice in result.stderr.splitlines()
    assert "boulangerie" in result.stdout.lower()
    assert "corrigé" not in result.stdout  # nothing claims to be corrected
    assert "voix" in result.stdout  # the heard sentence is said back

    # The GUI's services: the same loader step, the same notice, the same proposal.
    services: SpeechServices = assemble(
        {**engines, "corrector": load_corrector()}, player=SilentPlayer()
    )
    assert services.corrector is None
    assert services.notices == (notice,)
    assert "corrector-fr" not in services.model_versions
    proposals = chain.correct(services, "moi aller boulangerie hier").proposals
    assert [p.text for p in proposals] == ["Moi aller boulangerie hier."]


def test_without_a_corrector_free_speech_proposes_what_was_heard(
    tmp_path: Path, monkeypatch, repository
):
    engines = shared_engines()
    monkeypatch.setenv(
        "THERAPY_APP_MODELS_DIR", str(damaged_corrector_models(tmp_path / "m", "flipped"))
    )
    spoken = SpokenClips()
    services = assemble(
        {**engines, "corrector": load_corrector()}, recorder_factory=spoken, player=SilentPlayer()
    )
    events: list = []
    patient = repository.patients.create("Jeanne Martin")
    controller = PracticeController(
        ExerciseKind.FREE_SPEECH, services, repository, patient.id, InlineScheduler()
    )
    controller.subscribe(events.append)
    controller.begin()
    spoken.say("telegraphic_02.wav")
    controller.toggle_recording()
    corrected = [e for e in events if isinstance(e, Corrected)][-1]
    assert corrected.corrected is False and len(corrected.proposals) == 1
    # Offered as heard, written as a sentence: the same words, a capital, a final stop.
    offered, heard = corrected.proposals[0].text, corrected.heard.strip()
    assert offered[0].isupper() and offered.endswith((".", "!", "?"))
    assert offered.rstrip(".!?").lower() == heard.rstrip(".!?").lower()
    controller.end()
