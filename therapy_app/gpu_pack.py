"""The optional Windows GPU pack: NVIDIA's CUDA and cuDNN DLLs installed beside the app.

The main setup replaces its ``python\\`` folder on every upgrade, so the pack
(``TherapyApp-GPU-<version>.exe``) installs into its own folder next to it,
``<install dir>\\gpu\\``: the DLLs in ``bin\\`` and a manifest, ``gpu-pack.json``,
written by ``installer/windows/stage_gpu.py``. Before a CUDA session is created,
:func:`activate` makes that folder searchable and has onnxruntime load the DLLs
from it (``onnxruntime.preload_dlls(directory=...)``). Nothing here imports
onnxruntime: the caller passes what it needs.
"""

from __future__ import annotations

import contextlib
import ctypes
import io
import logging
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from therapy_app import pack_manifest

_LOGGER = logging.getLogger(__name__)

ENV_GPU_DIR = "THERAPY_APP_GPU_DIR"
"""Overrides where the pack is looked for (tests, unusual deployments)."""

MANIFEST = "gpu-pack.json"
DLL_SUBDIR = "bin"
FORMAT = 1
"""Manifest layout version this code reads."""

# Handles returned by os.add_dll_directory: the folder stays searchable only
# while its handle is alive.
_DLL_DIR_HANDLES: list[Any] = []
# What activate() reported per DLL folder: every session asks, the DLLs load once.
_ACTIVATED: dict[Path, list[str]] = {}


@dataclass(frozen=True)
class GpuPack:
    """An installed GPU pack, as its manifest describes it.

    Attributes:
        directory: the pack folder (``<install dir>\\gpu``).
        version: the app version the pack was built with.
        onnxruntime: the onnxruntime version it was built for.
        cuda_major: CUDA major version of its DLLs (13 for onnxruntime-gpu 1.31).
        cudnn_major: cuDNN major version.
        dlls: file names in ``bin\\``.
        preload_first: DLLs loaded by path before onnxruntime's own preload
            (``msvcp140_atomic_wait.dll``, which the CUDA provider imports).
        problems: why the pack cannot be used (empty when it can).
    """

    directory: Path
    version: str = "?"
    onnxruntime: str = "?"
    cuda_major: int = 0
    cudnn_major: int = 0
    dlls: tuple[str, ...] = ()
    preload_first: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()

    @property
    def dll_dir(self) -> Path:
        """Folder holding the DLLs."""
        return self.directory / DLL_SUBDIR

    @property
    def usable(self) -> bool:
        """True when every DLL is there and the pack matches this onnxruntime."""
        return not self.problems

    def describe(self) -> str:
        """One line for ``doctor``."""
        head = (
            f"{self.directory} (version {self.version}, CUDA {self.cuda_major}, "
            f"cuDNN {self.cudnn_major}, {len(self.dlls)} DLLs, for onnxruntime {self.onnxruntime})"
        )
        return head if self.usable else f"{head}: {'; '.join(self.problems)}"


def pack_dir() -> Path | None:
    """Where the pack would be: ``THERAPY_APP_GPU_DIR``, else ``<install dir>\\gpu`` on Windows.

    The installed app runs python.org's embeddable CPython from
    ``<install dir>\\python``, which is ``sys.base_prefix``. Elsewhere (Linux,
    a source checkout) there is no pack: CUDA libraries come from pip wheels.
    """
    override = os.environ.get(ENV_GPU_DIR)
    if override:
        return Path(override)
    if sys.platform == "win32":
        return Path(sys.base_prefix).parent / "gpu"
    return None


def cuda_major_of(version: str | None) -> int | None:
    """13 for onnxruntime's ``cuda_version`` "13.0"; None when unknown."""
    head = (version or "").split(".", 1)[0]
    return int(head) if head.isdigit() else None


def find(ort_cuda_version: str | None = None, directory: Path | None = None) -> GpuPack | None:
    """The installed pack, or None when there is none.

    Args:
        ort_cuda_version: onnxruntime's ``cuda_version`` (e.g. "13.0"); a pack
            built for another CUDA major version is reported as unusable.
        directory: where to look; None uses :func:`pack_dir`.
    """
    folder = directory if directory is not None else pack_dir()
    if folder is None or not (folder / MANIFEST).is_file():
        return None
    try:
        meta = pack_manifest.read(folder, MANIFEST, FORMAT)
        # dict(): an entry that is not an object makes the manifest unreadable.
        sizes = {str(name): dict(entry).get("bytes") for name, entry in dict(meta["dlls"]).items()}
        pack = GpuPack(
            directory=folder,
            version=str(meta.get("version", "?")),
            onnxruntime=str(meta.get("onnxruntime", "?")),
            cuda_major=int(meta["cuda_major"]),
            cudnn_major=int(meta["cudnn_major"]),
            dlls=tuple(sorted(sizes)),
            preload_first=tuple(meta.get("preload_first", ())),
        )
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return GpuPack(folder, problems=(f"unreadable {MANIFEST}: {exc}",))
    problems = []
    missing = pack_manifest.damaged(pack.dll_dir, sizes)
    if missing:
        problems.append(f"missing or damaged: {', '.join(missing)} (reinstall the GPU pack)")
    wanted = cuda_major_of(ort_cuda_version)
    if wanted is not None and wanted != pack.cuda_major:
        problems.append(
            f"built for CUDA {pack.cuda_major} but this onnxruntime needs CUDA {wanted} "
            "(install the GPU pack of this version)"
        )
    return replace(pack, problems=tuple(problems))


def _load_library(path: Path) -> None:
    ctypes.CDLL(str(path))


def activate(
    pack: GpuPack,
    preload: Callable[..., object] | None,
    load_library: Callable[[Path], None] | None = None,
) -> list[str]:
    """Make the pack's DLLs findable and load them before a CUDA session is created.

    Args:
        pack: a usable pack.
        preload: ``onnxruntime.preload_dlls`` (None on builds without it).
        load_library: loads one DLL by full path; None uses ctypes.

    Returns:
        What failed to load (empty when everything did); onnxruntime then
        falls back to CPU and the session says so.
    """
    if pack.dll_dir in _ACTIVATED:
        return list(_ACTIVATED[pack.dll_dir])
    dll_dir = str(pack.dll_dir)
    add_dll_directory = getattr(os, "add_dll_directory", None)  # Windows only
    if add_dll_directory is not None:
        _DLL_DIR_HANDLES.append(add_dll_directory(dll_dir))
    # cuDNN loads its sub-libraries by name at run time, a search that looks in
    # PATH but not in add_dll_directory folders.
    path_entries = os.environ.get("PATH", "").split(os.pathsep)
    if dll_dir not in path_entries:
        os.environ["PATH"] = os.pathsep.join([dll_dir, *filter(None, path_entries)])
    problems = []
    load = load_library or _load_library
    for name in pack.preload_first:
        try:
            load(pack.dll_dir / name)
        except OSError as exc:
            problems.append(f"{name}: {exc}")
    if preload is not None:
        # preload_dlls reports failures with print(): keep them for the log.
        printed = io.StringIO()
        try:
            with contextlib.redirect_stdout(printed):
                preload(directory=dll_dir)
        except Exception as exc:  # noqa: BLE001 - any failure means "no usable CUDA"
            problems.append(f"preload_dlls: {exc}")
        problems += [line for line in printed.getvalue().splitlines() if "Failed" in line]
    for problem in problems:
        _LOGGER.warning("GPU pack: %s", problem)
    _ACTIVATED[pack.dll_dir] = problems
    return list(problems)
