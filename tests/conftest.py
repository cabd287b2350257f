"""Shared fixtures: private user data folder, committed test speech, PulseAudio test devices."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

DATA_DIR = Path(__file__).resolve().parent / "data"
SPEECH_DIR = DATA_DIR / "speech"

# CI sets this so that audio tests fail instead of silently skipping.
REQUIRE_AUDIO_ENV = "THERAPY_REQUIRE_AUDIO"
# CI sets this too: with a model not built, the many tests that need it would
# skip and the run would look green; it stops at once instead (issue 10).
REQUIRE_MODELS_ENV = "THERAPY_REQUIRE_MODELS"
PULSE_SINKS = ("vspeaker", "vmic_feed")
PULSE_SOURCE = "vmic"

# The repository and speech fixtures the storage, therapist and practice tests
# use. Loaded here, before any test module imports their helpers, so that pytest
# rewrites their asserts; none imports Qt, so the core suite runs without it.
pytest_plugins = ("storage_fixtures", "therapist_fixtures", "practice_fixtures")


def pytest_sessionstart(session: pytest.Session) -> None:
    """Under ``THERAPY_REQUIRE_MODELS=1``, refuse to run without every model built."""
    if os.environ.get(REQUIRE_MODELS_ENV) != "1":
        return
    from therapy_app import model_store

    names = (model_store.ASR_MODEL, model_store.VAD_MODEL, model_store.CORRECTOR_MODEL)
    missing = [name for name in names if model_store.find_model(name) is None]
    if missing:
        raise pytest.UsageError(
            f"models not built: {', '.join(missing)} ({REQUIRE_MODELS_ENV}=1); "
            "run: .venv/bin/python -m models.build"
        )


@pytest.hookimpl(hookwrapper=True, trylast=True)
def pytest_runtest_teardown(item: pytest.Item) -> Iterator[None]:
    """Delete the widgets a Qt test leaves behind when it ends, not during a later test.

    pytest-qt closes a test's widgets with ``deleteLater``; outside an event
    loop nothing runs that deletion, so it happened inside whichever later
    test first waited on a signal, among that test's own objects (a segfault
    seen once in CI, at the end of a voice-panel test).
    """
    yield
    if "PySide6.QtWidgets" not in sys.modules:
        return
    from PySide6.QtCore import QCoreApplication, QEvent

    if QCoreApplication.instance() is not None:
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        QCoreApplication.processEvents()


@pytest.fixture(autouse=True)
def user_data_dir(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """Every test gets an empty user data folder: nothing touches the real home."""
    folder = tmp_path_factory.mktemp("user-data")
    monkeypatch.setenv("THERAPY_APP_DATA_DIR", str(folder))
    return folder


@pytest.fixture(scope="session")
def speech_dir() -> Path:
    """Folder of the committed French test recordings (scripts/make_test_audio.py)."""
    return SPEECH_DIR


@pytest.fixture(scope="session")
def speech_transcripts() -> dict[str, dict[str, object]]:
    """file name -> {text, category, speech_start_s, speech_end_s, ...}."""
    return json.loads((SPEECH_DIR / "transcripts.json").read_text(encoding="utf-8"))


def _unavailable(reason: str) -> None:
    if os.environ.get(REQUIRE_AUDIO_ENV) == "1":
        pytest.fail(f"{reason} ({REQUIRE_AUDIO_ENV}=1: audio tests must run)")
    pytest.skip(reason)


def _pactl(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["pactl", *args], capture_output=True, text=True, timeout=10, check=False)


@pytest.fixture(scope="session")
def pulse_server() -> str:
    """The PulseAudio server with the virtual devices from scripts/pulse_virtual.sh.

    Uses ``PULSE_SERVER`` when exported, else the socket the script creates by
    default, and exports it for this process (sounddevice reaches PulseAudio
    through the ALSA ``pulse`` device, which reads it when a stream opens).
    Skips (or fails under ``THERAPY_REQUIRE_AUDIO=1``) when none is reachable.
    """
    for tool in ("pactl", "paplay", "parec"):
        if shutil.which(tool) is None:
            _unavailable(f"{tool} not installed (apt-get install pulseaudio-utils)")
    if not os.environ.get("PULSE_SERVER"):
        runtime = Path(os.environ.get("THERAPY_PULSE_DIR", f"/tmp/therapy-pulse-{os.getuid()}"))
        socket = runtime / "pulse" / "native"
        if socket.exists():
            os.environ["PULSE_SERVER"] = f"unix:{socket}"
            os.environ.setdefault("XDG_RUNTIME_DIR", str(runtime))
    if _pactl("info").returncode != 0:
        _unavailable('no PulseAudio server: run eval "$(scripts/pulse_virtual.sh)"')
    sinks = _pactl("list", "short", "sinks").stdout.split()
    sources = _pactl("list", "short", "sources").stdout.split()
    missing = [s for s in PULSE_SINKS if s not in sinks]
    missing += [PULSE_SOURCE] if PULSE_SOURCE not in sources else []
    if missing:
        _unavailable(
            f"PulseAudio lacks the virtual devices {missing}: run scripts/pulse_virtual.sh"
        )
    # PortAudio lists ALSA's "pulse" device only if the server answered when it
    # was initialised, possibly by an earlier test: re-scan now that it does.
    from therapy_app.audio import devices

    devices.refresh()
    return os.environ["PULSE_SERVER"]
