"""The one place that creates ONNX Runtime sessions and picks execution providers."""

from __future__ import annotations

import ctypes
import importlib
import logging
import os
import sys
import weakref
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from therapy_app import gpu_pack
from therapy_app.errors import ModelInvalidError, ModelMissingError

if TYPE_CHECKING:
    import numpy as np
    import onnxruntime

_LOGGER = logging.getLogger(__name__)

TELEMETRY_ENV = "ORT_DISABLE_TELEMETRY"
"""Read by onnxruntime once, when it initialises: "1" turns its telemetry client off."""

# onnxruntime-gpu's official builds ship Microsoft's 1DS telemetry client: about
# 9 s after the first session it resolves mobile.events.data.microsoft.com and
# keeps retrying, and it stores a device id and queued events under
# ~/.cache/Microsoft. Only this variable, set before onnxruntime is imported,
# stops it; disable_telemetry_events() after a session exists does not. Health
# data never leaves the PC, so it is forced, not defaulted.
# Every import of onnxruntime in therapy_app goes through this module
# (tests/test_privacy.py checks it).
os.environ[TELEMETRY_ENV] = "1"

ENV_PROVIDER = "THERAPY_APP_PROVIDER"  # "auto" (default), "cpu" or "cuda"
ENV_THREADS = "THERAPY_APP_THREADS"  # intra-op threads per session

CPU = "CPUExecutionProvider"
CUDA = "CUDAExecutionProvider"


@dataclass(frozen=True)
class SessionInfo:
    """What a created session actually runs on.

    Attributes:
        model: file name of the ONNX graph.
        requested: providers asked for, in order.
        active: providers the session reports, first one runs most nodes.
        threads: intra-op thread count.
    """

    model: str
    requested: tuple[str, ...]
    active: tuple[str, ...]
    threads: int

    @property
    def provider(self) -> str:
        """Short name of the provider that runs the graph: "cuda" or "cpu"."""
        return "cuda" if self.active and self.active[0] == CUDA else "cpu"


_SESSIONS: list[SessionInfo] = []


def onnxruntime_module() -> ModuleType:
    """Import onnxruntime with its telemetry off; use this instead of ``import onnxruntime``.

    Returns:
        The ``onnxruntime`` module.
    """
    os.environ[TELEMETRY_ENV] = "1"  # again, in case something cleared it since
    return importlib.import_module("onnxruntime")


def cuda_driver_present() -> bool:
    """True when the NVIDIA driver library loads.

    onnxruntime-gpu lists CUDA as available even with no GPU and silently falls
    back to CPU when asked for it, so the driver itself is probed first.
    """
    name = "nvcuda.dll" if sys.platform == "win32" else "libcuda.so.1"
    try:
        ctypes.CDLL(name)
    except OSError:
        return False
    return True


@dataclass(frozen=True)
class CudaDecision:
    """Why the last :func:`requested_providers` call asked for CUDA or not.

    Attributes:
        requested: CUDA was asked for.
        reason: where the CUDA libraries come from, or why CUDA was not asked for.
    """

    requested: bool
    reason: str


_LAST_DECISION: CudaDecision | None = None


def last_cuda_decision() -> CudaDecision | None:
    """The decision of the last :func:`requested_providers` call, for ``doctor``."""
    return _LAST_DECISION


def _decide(requested: bool, reason: str) -> None:
    global _LAST_DECISION
    _LAST_DECISION = CudaDecision(requested, reason)


def _load_cuda_libraries(ort: ModuleType) -> str:
    """Load the CUDA/cuDNN DLLs before the session; returns where they come from.

    On an installed Windows copy they come from the GPU pack (its own folder,
    kept across upgrades); elsewhere from NVIDIA's pip wheels in site-packages
    or the system, which ``preload_dlls()`` searches by default.
    """
    preload = getattr(ort, "preload_dlls", None)
    pack = gpu_pack.find(getattr(ort, "cuda_version", None))
    if pack is not None and pack.usable:
        failed = gpu_pack.activate(pack, preload)
        suffix = f" ({len(failed)} failed to load)" if failed else ""
        return f"CUDA libraries from the GPU pack {pack.dll_dir}{suffix}"
    if pack is not None:
        _LOGGER.warning("GPU pack not used: %s", "; ".join(pack.problems))
    if preload is not None:
        try:
            preload()  # CUDA/cuDNN from pip wheels must be loaded before the session
        except Exception as exc:  # noqa: BLE001 - any failure means "no usable CUDA"
            _LOGGER.warning("Could not preload CUDA libraries: %s", exc)
    if sys.platform == "win32":
        found = "GPU pack unusable" if pack is not None else "no GPU pack"
        return f"{found}: CUDA libraries from the system search path"
    return "CUDA libraries from pip wheels or the system"


def requested_providers(preference: str | None = None) -> list[str]:
    """Providers to ask for, from an explicit preference or the environment.

    Args:
        preference: "auto", "cpu" or "cuda"; None reads ``THERAPY_APP_PROVIDER``.
    """
    choice = (preference or os.environ.get(ENV_PROVIDER) or "auto").strip().lower()
    if choice not in {"auto", "cpu", "cuda"}:
        _LOGGER.warning("Unknown %s=%r, using auto", ENV_PROVIDER, choice)
        choice = "auto"
    if choice == "cpu":
        _decide(False, "the CPU was asked for (--provider cpu or THERAPY_APP_PROVIDER=cpu)")
        return [CPU]
    ort = onnxruntime_module()

    if CUDA not in ort.get_available_providers():
        if choice == "cuda":
            _LOGGER.warning("CUDA requested but this onnxruntime build has no CUDA provider")
        _decide(False, "this onnxruntime build has no CUDA provider")
        return [CPU]
    if not cuda_driver_present():
        if choice == "cuda":
            _LOGGER.warning("CUDA requested but no NVIDIA driver was found; using CPU")
        driver = "nvcuda.dll" if sys.platform == "win32" else "libcuda.so.1"
        _decide(False, f"no NVIDIA driver found ({driver} does not load)")
        return [CPU]
    _decide(True, _load_cuda_libraries(ort))
    return [CUDA, CPU]


def default_threads() -> int:
    """Intra-op threads: ``THERAPY_APP_THREADS`` or the core count capped at 4."""
    env = os.environ.get(ENV_THREADS)
    if env and env.isdigit() and int(env) > 0:
        return int(env)
    return max(1, min(os.cpu_count() or 1, 4))


# Initializers given to a session, kept alive exactly as long as the session: ONNX
# Runtime reads their buffers in place and does not own them.
_KEPT_INITIALIZERS: weakref.WeakKeyDictionary[Any, list[Any]] = weakref.WeakKeyDictionary()


def create_session(
    path: Path,
    *,
    provider: str | None = None,
    threads: int | None = None,
    initializers: Mapping[str, np.ndarray] | None = None,
) -> onnxruntime.InferenceSession:
    """Create an inference session on the best working provider.

    Args:
        path: the ``.onnx`` file.
        provider: "auto", "cpu" or "cuda"; None reads the environment.
        threads: intra-op threads; None uses :func:`default_threads`.
        initializers: graph initializer name -> array used instead of the one
            stored in the file (a patient's adapter). ONNX Runtime silently
            ignores a name the graph lacks and does not check shapes: the
            caller validates both.

    Returns:
        The session. What it really runs on is logged and kept for ``doctor``.

    Raises:
        ModelMissingError: the file does not exist.
        ModelInvalidError: ONNX Runtime cannot load it.
    """
    ort = onnxruntime_module()

    if not path.is_file():
        raise ModelMissingError(
            "Un fichier de modèle est introuvable.",
            "Lancez « therapy-app build-models ».",
            f"missing ONNX file: {path}",
        )
    n_threads = threads or default_threads()
    options = ort.SessionOptions()
    options.intra_op_num_threads = n_threads
    options.inter_op_num_threads = 1
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    # Busy-waiting threads steal the only cores from the UI and audio threads.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.log_severity_level = 3
    kept = []
    for name, array in (initializers or {}).items():
        value = ort.OrtValue.ortvalue_from_numpy(array)
        options.add_initializer(name, value)
        kept.append((array, value))
    wanted = requested_providers(provider)
    try:
        session = ort.InferenceSession(str(path), sess_options=options, providers=wanted)
    except Exception as exc:  # onnxruntime raises its own untyped errors
        raise ModelInvalidError(
            "Un fichier de modèle est illisible.",
            "Reconstruisez les modèles avec « therapy-app build-models ».",
            f"cannot load {path}: {exc}",
        ) from exc
    if kept:
        _KEPT_INITIALIZERS[session] = kept
    info = SessionInfo(path.name, tuple(wanted), tuple(session.get_providers()), n_threads)
    if CUDA in wanted and info.provider != "cuda":
        _LOGGER.warning("%s: CUDA was requested but the session runs on CPU", path.name)
    _LOGGER.info("%s runs on %s (%d threads)", path.name, info.active[0], n_threads)
    _SESSIONS.append(info)
    return session


def created_sessions() -> list[SessionInfo]:
    """Sessions created so far in this process, for diagnostics."""
    return list(_SESSIONS)
