"""Diagnostics for ``therapy-app doctor``: models, hashes, providers, audio, voice."""

from __future__ import annotations

import contextlib
import logging
import os
import platform
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from therapy_app import __version__, model_store
from therapy_app.errors import TherapyAppError

_LOGGER = logging.getLogger(__name__)

REQUIRED_MODELS = (model_store.ASR_MODEL, model_store.VAD_MODEL)
OPTIONAL_MODELS = (model_store.CORRECTOR_MODEL, model_store.PHONE_MODEL)


@dataclass
class Check:
    """One diagnostic line.

    Attributes:
        name: what was checked.
        ok: whether it is usable.
        detail: what was found (path, version, provider...).
        required: a failed required check makes ``doctor`` exit non-zero.
    """

    name: str
    ok: bool
    detail: str
    required: bool = True


@dataclass
class Report:
    """Everything ``doctor`` found."""

    checks: list[Check] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when every required check passed."""
        return all(c.ok for c in self.checks if c.required)

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly form."""
        return {"ok": self.ok, "checks": [asdict(c) for c in self.checks]}


def _model_checks(verify_hashes: bool) -> list[Check]:
    checks = []
    for name in REQUIRED_MODELS + OPTIONAL_MODELS:
        required = name in REQUIRED_MODELS
        try:
            bundle = model_store.load_model(name)
        except TherapyAppError as exc:
            checks.append(Check(f"model {name}", False, exc.french(), required))
            continue
        version = bundle.meta.get("version", "?")
        problems = bundle.verify() if verify_hashes else []
        state = "sha256 ok" if verify_hashes and not problems else "; ".join(problems)
        detail = f"{bundle.directory} (version {version}{', ' + state if state else ''})"
        checks.append(Check(f"model {name}", not problems, detail, required))
    return checks


def _train_weights_dir() -> Path | None:
    """The installed voice pack's training weights, else a build folder's (a checkout)."""
    from therapy_app import voice_pack
    from therapy_app.asr.config import TRAIN_MODEL

    pack = voice_pack.find()
    if pack is not None and (pack.weights_dir / model_store.SIDECAR).is_file():
        return pack.weights_dir
    return model_store.find_model(TRAIN_MODEL)


def _voice_pack_check(verify_hashes: bool) -> Check:
    """The Whisper weights a personal voice is trained on: an optional pack, absent is fine."""
    from therapy_app.asr.config import TRAIN_MODEL

    name = f"model {TRAIN_MODEL}"
    directory = _train_weights_dir()
    if directory is None:
        detail = "absent : pack voix non installé (facultatif, pour apprendre la voix d'un patient)"
        return Check(name, False, detail, required=False)
    try:
        bundle = model_store.ModelBundle(
            TRAIN_MODEL, directory, model_store.read_sidecar(directory, TRAIN_MODEL)
        )
    except TherapyAppError as exc:
        return Check(name, False, exc.french(), required=False)
    version = bundle.meta.get("version", "?")
    problems = bundle.verify() if verify_hashes else []
    state = "sha256 ok" if verify_hashes and not problems else "; ".join(problems)
    detail = f"{bundle.directory} (version {version}{', ' + state if state else ''})"
    return Check(name, not problems, detail, required=False)


def _provider_checks(provider: str | None) -> list[Check]:
    from therapy_app import inference

    ort = inference.onnxruntime_module()
    checks = [
        Check(
            "onnxruntime", True, f"{ort.__version__}; built with {ort.get_available_providers()}"
        ),
        Check("nvidia driver", True, "present" if inference.cuda_driver_present() else "absent"),
    ]
    pack = _gpu_pack_check(getattr(ort, "cuda_version", None))
    if pack is not None:
        checks.append(pack)
    # The only trustworthy answer is what a real session runs on (see inference.py).
    try:
        from therapy_app.asr.recognizer import SpeechRecognizer

        recognizer = SpeechRecognizer.load(provider=provider)
        checks.append(Check("asr provider", True, recognizer.provider))
        checks.append(_cuda_check(recognizer.provider))
    except TherapyAppError as exc:
        checks.append(Check("asr provider", False, exc.french()))
    for info in inference.created_sessions():
        checks.append(
            Check(f"session {info.model}", True, f"{info.active[0]} ({info.threads} threads)")
        )
    return checks


def _gpu_pack_check(cuda_version: str | None) -> Check | None:
    """The Windows GPU pack: present, usable, or absent (None where there is none to have)."""
    from therapy_app import gpu_pack

    folder = gpu_pack.pack_dir()
    if folder is None:
        return None
    pack = gpu_pack.find(cuda_version, folder)
    if pack is None:
        detail = f"absent ({folder}); optional, for NVIDIA GPUs: TherapyApp-GPU-{__version__}.exe"
        return Check("gpu pack", False, detail, required=False)
    return Check("gpu pack", pack.usable, pack.describe(), required=False)


def _cuda_check(provider: str) -> Check:
    """Whether the sessions run on CUDA, and if not, why (they run on CPU either way)."""
    from therapy_app import inference

    decision = inference.last_cuda_decision()
    if provider == "cuda":
        reason = decision.reason if decision else "CUDA"
        return Check("cuda", True, f"used: {reason}", required=False)
    if decision is None:
        reason = "not asked for"
    elif decision.requested:
        reason = (
            "the CUDA session did not start (NVIDIA driver too old for this CUDA version, "
            f"unsupported GPU or a missing library; see the log); {decision.reason}"
        )
    else:
        reason = decision.reason
    return Check("cuda", False, f"not used, running on CPU: {reason}", required=False)


@contextlib.contextmanager
def _no_pulse_folders_in_home() -> Iterator[None]:
    """Keep the sound-system probe from creating ``~/.config/pulse``.

    Listing devices initialises PortAudio, whose ALSA ``pulse`` plugin starts
    a PulseAudio client. Without ``XDG_RUNTIME_DIR`` (ssh, cron, a container)
    that client creates ``~/.config/pulse/<machine-id>-runtime``, a link to a
    new ``/tmp/pulse-*`` folder, even when no server runs.
    If no PulseAudio server can be reached through that folder because it does
    not exist yet, the client is pointed at a temporary runtime folder for the
    probe: it finds the same (no) server and leaves the home folder alone.
    Desktop sessions (``XDG_RUNTIME_DIR`` set) and a running server are
    untouched.
    """
    config_home = Path(os.environ.get("XDG_CONFIG_HOME") or os.path.expanduser("~/.config"))
    untouched = (
        not sys.platform.startswith("linux")
        or any(os.environ.get(v) for v in ("XDG_RUNTIME_DIR", "PULSE_RUNTIME_PATH", "PULSE_SERVER"))
        or (config_home / "pulse").exists()
    )
    if untouched:
        yield
        return
    with tempfile.TemporaryDirectory(prefix="therapy-app-pulse-") as runtime:
        os.environ["PULSE_RUNTIME_PATH"] = runtime
        try:
            yield
        finally:
            del os.environ["PULSE_RUNTIME_PATH"]


def _audio_checks() -> list[Check]:
    with _no_pulse_folders_in_home():
        return _device_checks()


def _device_checks() -> list[Check]:
    from therapy_app.audio import devices

    try:
        found = devices.list_devices()
    except TherapyAppError as exc:
        return [Check("audio", False, exc.french(), required=False)]
    lines = [f"{d.index}: {d.name} (in {d.inputs}, out {d.outputs})" for d in found] or [
        "no device"
    ]
    checks = [Check("audio devices", bool(found), "; ".join(lines), required=False)]
    for label, getter in (
        ("microphone", devices.default_input),
        ("speaker", devices.default_output),
    ):
        try:
            checks.append(Check(label, True, getter().name, required=False))
        except TherapyAppError as exc:
            checks.append(Check(label, False, exc.french(), required=False))
    return checks


def _voice_check() -> Check:
    from therapy_app.tts.synthesizer import SpeechSynthesizer

    try:
        synth = SpeechSynthesizer.load()
    except TherapyAppError as exc:
        return Check("voice", False, exc.french())
    suffix = " (fallback: less intelligible)" if synth.is_fallback else ""
    return Check("voice", True, synth.voice_name + suffix)


def run(provider: str | None = None, verify_hashes: bool = True) -> Report:
    """Run every check; never raises for an environment problem."""
    report = Report()
    report.checks.append(
        Check("therapy_app", True, f"{__version__} on Python {platform.python_version()}")
    )
    report.checks.extend(_model_checks(verify_hashes))
    report.checks.append(_voice_pack_check(verify_hashes))
    report.checks.extend(_provider_checks(provider))
    report.checks.append(_voice_check())
    report.checks.extend(_audio_checks())
    return report
