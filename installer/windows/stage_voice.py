"""Assembles the personal-voice pack folder (torch, the trainer, its weights) on Linux.

The pack lets the app train a patient's personal adapter (``python -m
therapy_voice adapt``, issue 26) in a child process that runs with the app's own
Python and packages plus the pack's folders (``therapy_app/voice_pack.py``). One
layout serves the Windows pack (``TherapyApp-Voice-<version>.exe``, into
``<install dir>\\voice``) and the Debian package ``therapy-app-voice`` (into
``/opt/therapy-app/voice``, ``installer/deb/stage_voice_deb.py``)::

    OUT/lib/py<X.Y>/              torch and the packages it needs that the app lacks, per python
    OUT/app/therapy_voice/        the trainer package, copied from the checkout
    OUT/models/whisper-base-train/  the training weights, checked against their model.json
    OUT/voice-pack.json           manifest read by therapy_app.voice_pack
    OUT/THIRD_PARTY_LICENSES.txt  the licences of all of it

Subcommands:

``requires``  the requirements of a torch wheel for a target platform and python
              (pip evaluates environment markers for the machine it runs on, so
              ``pip download --platform win_amd64 torch`` would pull torch's
              Linux-only CUDA wheels; the relock resolves these lines instead).
``stage``     build the pack folder from locked wheels.

Checks that stop the build: a requirement of a shipped package that neither the
pack nor the app's lock satisfies; on Windows, a DLL import (PE import tables of
every ``.dll``/``.pyd``) that nothing provides (torch imports
``msvcp140_atomic_wait.dll``, which the app's C++ runtime copy lacks: the pack
takes it from the ``msvc-runtime`` wheel into ``torch/lib``, whose DLLs torch
loads itself); a weights file whose size or sha256 differs from its sidecar.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import logging
import re
import shutil
import sys
import zipfile
from email.parser import HeaderParser
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

# The helpers shared with the other builds live one folder up.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import bundle_tools  # noqa: E402
from licenses import model_notices, package_notices  # noqa: E402
from stage_gpu import pe_imports  # noqa: E402
from windows_licenses import PACK_NSIS_NOTICE  # noqa: E402

_LOGGER = logging.getLogger("stage_voice")

MANIFEST = "voice-pack.json"  # therapy_app.voice_pack.MANIFEST
MANIFEST_FORMAT = 1  # therapy_app.voice_pack.FORMAT
TRAINER = "therapy_voice"
WEIGHTS = "whisper-base-train"
TRAINER_DIR = "app"
WEIGHTS_DIR = f"models/{WEIGHTS}"

PLATFORMS = ("win_amd64", "linux")
# Environment markers of each target (PEP 508), python_version filled in per python.
MARKERS = {
    "win_amd64": {"os_name": "nt", "sys_platform": "win32", "platform_system": "Windows",
                  "platform_machine": "AMD64"},
    "linux": {"os_name": "posix", "sys_platform": "linux", "platform_system": "Linux",
              "platform_machine": "x86_64"},
}  # fmt: skip

# Build-time parts of torch a trainer never loads: C++ headers, CMake files,
# import libraries, protoc, and (Linux) the C++ test programs. Globs relative to
# site-packages; on Linux torch/bin keeps torch_shm_manager (shared-memory tensors).
TRIM_GLOBS = {
    "win_amd64": ("torch/include", "torch/share", "torch/lib/*.lib", "torch/bin"),
    "linux": ("torch/include", "torch/share", "torch/test", "torch/bin/*"),
}
KEEP = ("torch/bin/torch_shm_manager",)

# The DLL the pack adds from the msvc-runtime wheel, and where: torch loads
# every DLL of torch/lib at import, with torch/lib searched for their imports.
MSVC_WHEEL = "msvc-runtime"
MSVC_DLL = "msvcp140_atomic_wait.dll"
MSVC_TARGET = "torch/lib"

# Imports that Windows (and its Universal CRT) or the main bundle's python\
# folder provide (python.org's embeddable CPython + the C++ runtime copied from
# PySide6 by stage.py).
SYSTEM_DLLS = {
    "kernel32.dll", "advapi32.dll", "ntdll.dll", "bcrypt.dll", "dbghelp.dll", "imagehlp.dll",
    "iphlpapi.dll", "psapi.dll", "userenv.dll", "wintrust.dll", "user32.dll", "shell32.dll",
    "ole32.dll", "oleaut32.dll", "ws2_32.dll", "version.dll", "setupapi.dll", "crypt32.dll",
    "secur32.dll", "shlwapi.dll", "gdi32.dll", "rpcrt4.dll", "winmm.dll", "mswsock.dll",
}  # fmt: skip
APP_DLLS = {
    "python3.dll", "python313.dll", "vcruntime140.dll", "vcruntime140_1.dll", "msvcp140.dll",
    "msvcp140_1.dll", "msvcp140_2.dll", "concrt140.dll",
}  # fmt: skip

PACK_HEADER = """\
Third-party software in the TherapyApp voice pack
=================================================

The voice pack lets TherapyApp adapt its speech recogniser to one patient's
voice. It adds PyTorch and the Python packages PyTorch needs that the app does
not already have, unmodified from their wheels on PyPI, and the OpenAI Whisper
base weights in CTranslate2 form. Each is redistributed under its own licence,
reproduced below as shipped in the package's metadata. The trainer itself
(therapy_voice) is part of TherapyApp (MIT).
"""


def _norm(name: str) -> str:
    return str(canonicalize_name(name))


def target_environment(platform: str, python: str) -> dict[str, str]:
    """PEP 508 marker values of a target (platform, ``"3.13"``)."""
    return {
        **MARKERS[platform],
        "python_version": python,
        "python_full_version": f"{python}.0",
        "implementation_name": "cpython",
        "platform_python_implementation": "CPython",
        "extra": "",
    }


def wheel_requirements(wheel: Path, platform: str, python: str) -> list[Requirement]:
    """The wheel's ``Requires-Dist`` that apply to the target (extras left out)."""
    with zipfile.ZipFile(wheel) as archive:
        member = next(m for m in archive.namelist() if re.match(r"[^/]+\.dist-info/METADATA$", m))
        meta = HeaderParser().parsestr(archive.read(member).decode("utf-8", "replace"))
    env = target_environment(platform, python)
    found = []
    for line in meta.get_all("Requires-Dist") or []:
        req = Requirement(line)
        if req.marker is None or req.marker.evaluate(env):
            found.append(req)
    return found


def read_lock(lock: Path) -> dict[str, str]:
    """``name -> version`` of a hashed lock file."""
    pins = {}
    for line in lock.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            name, version = line.split()[0].split("==")
            pins[_norm(name)] = version
    return pins


def installed(site: Path) -> dict[str, tuple[str, Path]]:
    """``name -> (version, dist-info)`` of the packages unpacked in ``site``."""
    found = {}
    for dist_info in site.glob("*.dist-info"):
        meta = HeaderParser().parsestr((dist_info / "METADATA").read_text(encoding="utf-8"))
        found[_norm(meta["Name"])] = (meta["Version"], dist_info)
    return found


def requirement_problems(site: Path, app_pins: dict[str, str], platform: str,
                         python: str) -> list[str]:  # fmt: skip
    """Requirements of the site's packages that neither the site nor the app satisfies."""
    env = target_environment(platform, python)
    have = installed(site)
    problems = []
    for name, (_version, dist_info) in sorted(have.items()):
        meta = HeaderParser().parsestr((dist_info / "METADATA").read_text(encoding="utf-8"))
        for line in meta.get_all("Requires-Dist") or []:
            req = Requirement(line)
            if req.marker is not None and not req.marker.evaluate(env):
                continue
            dep = _norm(req.name)
            version = have[dep][0] if dep in have else app_pins.get(dep)
            if version is None:
                problems.append(f"{name} needs {req}: in neither the pack nor the app")
            elif not req.specifier.contains(version, prereleases=True):
                problems.append(f"{name} needs {req}, but {dep} {version} is shipped")
    return problems


def trim_site(site: Path, platform: str) -> int:
    """Delete what TRIM_GLOBS name (but KEEP); returns the bytes removed."""
    return bundle_tools.remove_globs(site, TRIM_GLOBS[platform], KEEP)


def add_msvc_dll(wheel: Path, site: Path) -> Path:
    """Copy ``msvcp140_atomic_wait.dll`` from the msvc-runtime wheel into ``torch/lib``.

    Only that DLL and the wheel's metadata (its licence) are taken, not its
    Python module nor the rest of the runtime.
    """
    with zipfile.ZipFile(wheel) as archive:
        bundle_tools.extract_metadata(archive, site)
        members = [m for m in archive.namelist()
                   if fnmatch.fnmatch(m, f"msvc_runtime-*.data/data/{MSVC_DLL}")]  # fmt: skip
        if not members:
            raise SystemExit(f"{wheel.name}: no {MSVC_DLL}")
        return bundle_tools.extract_member(archive, members[0], site / MSVC_TARGET / MSVC_DLL)


def dll_problems(site: Path) -> list[str]:
    """Imports of the site's DLLs and extension modules that nothing provides."""
    files = [p for p in site.rglob("*") if p.suffix.lower() in (".dll", ".pyd") and p.is_file()]
    shipped = {p.name.lower() for p in files}
    problems = []
    for path in sorted(files):
        for imported in pe_imports(path):
            low = imported.lower()
            if (low in shipped or low in SYSTEM_DLLS or low in APP_DLLS
                    or low.startswith(("api-ms-win-", "ext-ms-"))):  # fmt: skip
                continue
            problems.append(f"{path.relative_to(site)} imports {imported}, which nothing provides")
    return problems


def stage_site(wheels: list[Path], site: Path, platform: str) -> None:
    """Unpack the locked wheels into one python's folder and trim them."""
    site.mkdir(parents=True)
    for wheel in wheels:
        if _norm(wheel.name.split("-")[0]) == MSVC_WHEEL:
            continue  # after torch: its DLL goes into torch/lib
        _LOGGER.info("%s: unpacking %s", site.name, wheel.name)
        bundle_tools.unpack_wheel(wheel, site, "therapy-app-voice")
    for wheel in wheels:
        if _norm(wheel.name.split("-")[0]) == MSVC_WHEEL:
            _LOGGER.info("%s: %s from %s", site.name, MSVC_DLL, wheel.name)
            add_msvc_dll(wheel, site)
    if not (site / "torch" / "__init__.py").is_file():
        raise SystemExit(f"no torch among the wheels for {site.name}")
    removed = trim_site(site, platform)
    _LOGGER.info("%s: trimmed %.1f MB of build-time files", site.name, removed / 1e6)


def copy_trainer(trainer: Path, out: Path) -> Path:
    """Copy the trainer package (sources only) to ``OUT/app/therapy_voice``."""
    if not (trainer / "__main__.py").is_file():
        raise SystemExit(f"{trainer} is not the trainer package (no __main__.py)")
    target = out / TRAINER_DIR / TRAINER
    shutil.copytree(trainer, target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return target


def copy_weights(weights: Path, out: Path) -> Path:
    """Copy the training weights folder, each file checked against its ``model.json``."""
    target = out / WEIGHTS_DIR
    meta = bundle_tools.copy_model(weights, target, WEIGHTS)
    if meta.get("name") != WEIGHTS:
        raise SystemExit(f"{weights}: model.json names {meta.get('name')!r}, not {WEIGHTS!r}")
    if not (target / "model.bin").is_file():
        raise SystemExit(f"{WEIGHTS}: no model.bin registered in model.json")
    return target


def checked_files(out: Path, sites: dict[str, Path]) -> dict[str, int]:
    """The files the app checks (present, same size) before starting the trainer.

    Not all of torch's 12,000 files: its package marker, native libraries and
    extension module, every package's metadata, the whole trainer and weights.
    """
    chosen: list[Path] = []
    for site in sites.values():
        torch = site / "torch"
        chosen += [torch / "__init__.py", torch / "version.py"]
        chosen += [p for p in torch.glob("_C.*") if p.suffix in (".pyd", ".so")]
        chosen += [p for p in (torch / "lib").iterdir() if p.is_file()]
        chosen += sorted(site.glob("*.dist-info/METADATA"))
    chosen += [p for p in (out / TRAINER_DIR).rglob("*") if p.is_file()]
    chosen += [p for p in (out / WEIGHTS_DIR).rglob("*") if p.is_file()]
    return {p.relative_to(out).as_posix(): p.stat().st_size for p in sorted(set(chosen))}


def licence_text(out: Path, sites: dict[str, Path], platform: str) -> str:
    """THIRD_PARTY_LICENSES of the pack: every shipped package (once) and the weights."""
    notices: dict[str, str] = {}
    for site in sites.values():
        for notice in package_notices(site):
            notices.setdefault(notice.splitlines()[1], notice)
    parts = [PACK_HEADER, *notices.values(), *model_notices(out / "models")]
    if platform == "win_amd64":
        parts.append(PACK_NSIS_NOTICE)
    return "\n\n".join(parts) + "\n"


def torch_info(site: Path) -> tuple[str, str]:
    """(torch version, "cuda" or "cpu") of an unpacked torch."""
    version, _ = installed(site)["torch"]
    lib = site / "torch" / "lib"
    cuda = any(lib.glob("torch_cuda*")) or any(lib.glob("libtorch_cuda*"))
    return version, "cuda" if cuda else "cpu"


def write_manifest(out: Path, version: str, platform: str) -> dict[str, object]:
    """Write THIRD_PARTY_LICENSES and, last, the manifest of a staged pack folder.

    The python folders are those found in ``OUT/lib/py<X.Y>`` (the Debian build
    merges one staging per python before calling this again).
    """
    sites = {
        site.name.removeprefix("py"): site
        for site in sorted((out / "lib").glob("py3.*"), key=lambda p: int(p.name.split(".")[1]))
    }
    versions = {torch_info(site) for site in sites.values()}
    if len(versions) != 1:
        raise SystemExit(f"the python folders hold different torch builds: {sorted(versions)}")
    ((torch_version, device),) = versions
    manifest: dict[str, object] = {
        "format": MANIFEST_FORMAT,
        "version": version,
        "platform": platform,
        "torch": torch_version,
        "device": device,
        "sites": {python: site.relative_to(out).as_posix() for python, site in sites.items()},
        "trainer": TRAINER_DIR,
        "weights": WEIGHTS_DIR,
        "packages": {
            python: {name: ver for name, (ver, _) in sorted(installed(site).items())}
            for python, site in sites.items()
        },
        "files": checked_files(out, sites),
    }
    licences = licence_text(out, sites, platform).replace("\r\n", "\n")
    newline = "\r\n" if platform == "win_amd64" else "\n"  # Notepad wants CRLF
    (out / "THIRD_PARTY_LICENSES.txt").write_text(licences, encoding="utf-8", newline=newline)
    # Last: the app uses the pack only once its manifest is there.
    (out / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    torch_bytes = sum(bundle_tools.tree_size(site / "torch") for site in sites.values())
    _LOGGER.info(
        "voice pack: %s, %.1f MB (torch %s %s: %.1f MB, weights %.1f MB)",
        out, bundle_tools.tree_size(out) / 1e6, torch_version, device, torch_bytes / 1e6,
        bundle_tools.tree_size(out / WEIGHTS_DIR) / 1e6,
    )  # fmt: skip
    return manifest


def stage(args: argparse.Namespace) -> int:
    """Build the pack folder; prints its sizes."""
    out = bundle_tools.recreate(args.out)
    out.mkdir(parents=True)
    app_pins = read_lock(args.app_lock)
    for value in args.wheels:
        python, sep, folder = value.partition("=")
        if not sep or not re.fullmatch(r"3\.\d+", python):
            raise SystemExit(f"--wheels wants VERSION=FOLDER (e.g. 3.13=wheels), not {value!r}")
        wheels = sorted(Path(folder).glob("*.whl"))
        site = out / "lib" / f"py{python}"
        stage_site(wheels, site, args.platform)
        problems = requirement_problems(site, app_pins, args.platform, python)
        if args.platform == "win_amd64":
            problems += dll_problems(site)
        if problems:
            listed = "\n  ".join(problems)
            raise SystemExit(f"voice pack for python {python} incomplete:\n  {listed}")
    copy_trainer(args.trainer, out)
    copy_weights(args.weights, out)
    write_manifest(out, args.version, args.platform)
    return 0


def requires(args: argparse.Namespace) -> int:
    """Print the torch wheel's requirements for the target, one per line."""
    for req in wheel_requirements(args.wheel, args.platform, args.python):
        print(str(req).replace(" ", ""))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    req = sub.add_parser("requires", help="a torch wheel's requirements for a target")
    req.add_argument("--wheel", type=Path, required=True)
    req.add_argument("--platform", choices=PLATFORMS, required=True)
    req.add_argument("--python", required=True, help="e.g. 3.13")
    req.set_defaults(run=requires)
    st = sub.add_parser("stage", help="build the pack folder")
    st.add_argument("--platform", choices=PLATFORMS, required=True)
    st.add_argument("--wheels", action="append", required=True, metavar="VERSION=FOLDER",
                    help="the locked wheels for one python (repeatable)")  # fmt: skip
    st.add_argument("--app-lock", type=Path, required=True,
                    help="the main installer's lock: what the app already ships")  # fmt: skip
    st.add_argument("--trainer", type=Path, required=True, help="the therapy_voice package")
    st.add_argument("--weights", type=Path, required=True, help=f"the built {WEIGHTS} folder")
    st.add_argument("--version", required=True, help="app version")
    st.add_argument("--out", type=Path, required=True, help="pack folder (recreated)")
    st.set_defaults(run=stage)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="stage_voice: %(message)s")
    return int(args.run(args))


if __name__ == "__main__":
    sys.exit(main())
