"""Assembles the Windows GPU pack folder (NVIDIA CUDA/cuDNN DLLs from pip wheels) on Linux.

The pack holds only the DLLs that the bundled onnxruntime-gpu's CUDA provider
loads on Windows, taken from NVIDIA's win_amd64 wheels locked in
``requirements-gpu-win.txt``, plus ``msvcp140_atomic_wait.dll`` (the CUDA
provider imports it; the main bundle's C++ runtime from PySide6 lacks it). It
writes::

    OUT/bin/*.dll                  the DLLs, flat (onnxruntime.preload_dlls(directory=...))
    OUT/gpu-pack.json              manifest read by therapy_app.gpu_pack
    OUT/THIRD_PARTY_LICENSES.txt   NVIDIA's and Microsoft's licence texts

Every DLL the CUDA provider and the pack's DLLs import (PE import tables) must
be in the pack, in the main bundle or in Windows itself, else the build stops.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import logging
import re
import struct
import sys
import tempfile
import zipfile
from pathlib import Path

# The helpers shared with the other builds live one folder up.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import bundle_tools  # noqa: E402
from licenses import package_notices  # noqa: E402
from windows_licenses import PACK_NSIS_NOTICE  # noqa: E402

_LOGGER = logging.getLogger("stage_gpu")

MANIFEST_FORMAT = 1  # therapy_app.gpu_pack.FORMAT

# What is taken from each locked wheel (globs inside the wheel). Headers,
# import libraries, cufftw/nvblas and the wheels' Python files stay out.
SHIP: dict[str, tuple[str, ...]] = {
    "nvidia-cublas": (
        "nvidia/cu*/bin/x86_64/cublas64_*.dll",
        "nvidia/cu*/bin/x86_64/cublasLt64_*.dll",
    ),
    "nvidia-cuda-runtime": ("nvidia/cu*/bin/x86_64/cudart64_*.dll",),
    "nvidia-cuda-nvrtc": (
        "nvidia/cu*/bin/x86_64/nvrtc64_*.dll",
        "nvidia/cu*/bin/x86_64/nvrtc-builtins64_*.dll",
    ),
    "nvidia-cudnn-cu13": ("nvidia/cudnn/bin/cudnn*64_*.dll",),
    "msvc-runtime": ("msvc_runtime-*.data/data/msvcp140_atomic_wait.dll",),
}
# Loaded by path before onnxruntime's preload: onnxruntime_providers_cuda.dll
# imports it, and Windows only has it with a recent Visual C++ Redistributable.
PRELOAD_FIRST = ("msvcp140_atomic_wait.dll",)

# onnxruntime.preload_dlls' Windows list (1.31), by CUDA major version: the CUDA
# provider cannot start without these. cuFFT is optional there (only the
# Rfft/Irfft/DFT operators use it, none of the bundled models has one) and is
# left out with nvJitLink, which only cuFFT needs: 340 MB less.
REQUIRED = (
    "cublasLt64_{cuda}.dll",
    "cublas64_{cuda}.dll",
    "cudart64_{cuda}.dll",
    "cudnn64_9.dll",
    "cudnn_graph64_9.dll",
    "cudnn_ops64_9.dll",
    "cudnn_adv64_9.dll",
    "cudnn_heuristic64_9.dll",
    "cudnn_engines_precompiled64_9.dll",
    "cudnn_engines_runtime_compiled64_9.dll",
    "cudnn_engines_tensor_ir64_9.dll",
)
LEFT_OUT = (
    "cuFFT (cufft64_*.dll) and nvJitLink: loaded only for the Rfft/Irfft/DFT operators, "
    "which the bundled models do not use; cuRAND: not used by the CUDA provider on Windows"
)

# Imports that Windows, its Universal CRT or the main bundle provide.
SYSTEM_DLLS = {
    "kernel32.dll", "advapi32.dll", "ntdll.dll", "bcrypt.dll", "dbghelp.dll", "setupapi.dll",
    "dxgi.dll", "user32.dll", "shell32.dll", "ole32.dll", "ws2_32.dll", "version.dll",
    "vcruntime140.dll", "vcruntime140_1.dll", "msvcp140.dll", "msvcp140_1.dll",
    "msvcp140_2.dll", "onnxruntime_providers_shared.dll", "onnxruntime.dll",
}  # fmt: skip

PACK_HEADER = """\
Third-party software in the TherapyApp GPU pack
===============================================

The GPU pack adds NVIDIA's CUDA and cuDNN runtime libraries, taken unmodified
from NVIDIA's wheels on PyPI, and one Microsoft Visual C++ runtime file, so that
the CUDA provider of onnxruntime-gpu (in the main installation) can use an
NVIDIA graphics card. Each is redistributed under its own licence, reproduced
below as shipped in the wheel's metadata.
"""


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def pe_imports(path: Path) -> list[str]:
    """Names of the DLLs a PE file imports (normal and delay-load import tables)."""
    with path.open("rb") as handle:

        def read(offset: int, size: int) -> bytes:
            handle.seek(offset)
            return handle.read(size)

        pe = struct.unpack_from("<I", read(0x3C, 4))[0]
        if read(pe, 4) != b"PE\0\0":
            raise ValueError(f"{path.name}: not a PE file")
        _machine, n_sections, _, _, _, opt_size, _ = struct.unpack_from(
            "<HHIIIHH", read(pe + 4, 20)
        )
        opt = pe + 24
        magic = struct.unpack_from("<H", read(opt, 2))[0]
        dirs = opt + (112 if magic == 0x20B else 96)
        import_rva, _ = struct.unpack_from("<II", read(dirs + 8, 8))
        delay_rva, _ = struct.unpack_from("<II", read(dirs + 13 * 8, 8))
        sections = []
        table = read(opt + opt_size, 40 * n_sections)
        for i in range(n_sections):
            vsize, vaddr, raw_size, raw_ptr = struct.unpack_from("<IIII", table, i * 40 + 8)
            sections.append((vaddr, max(vsize, raw_size), raw_ptr))

        def offset_of(rva: int) -> int:
            for vaddr, size, raw in sections:
                if vaddr <= rva < vaddr + size:
                    return rva - vaddr + raw
            raise ValueError(f"{path.name}: RVA {rva:#x} outside every section")

        def cstring(rva: int) -> str:
            return read(offset_of(rva), 260).split(b"\0", 1)[0].decode("ascii", "replace")

        names = []
        for rva, size, name_at in ((import_rva, 20, 12), (delay_rva, 32, 4)):
            if not rva:
                continue
            at = offset_of(rva)
            while True:
                entry = read(at, size)
                if len(entry) < size or not any(entry):
                    break
                names.append(cstring(struct.unpack_from("<I", entry, name_at)[0]))
                at += size
        return names


def _wheel_name_version(wheel: Path) -> tuple[str, str]:
    name, version = wheel.name.split("-")[:2]
    return _norm(name), version


def _ort_cuda_version(ort_wheel: Path) -> str:
    with zipfile.ZipFile(ort_wheel) as archive:
        info = archive.read("onnxruntime/capi/build_and_package_info.py").decode()
    found = re.search(r"cuda_version\s*=\s*['\"]([^'\"]+)", info)
    if not found:
        raise SystemExit(f"{ort_wheel.name}: no cuda_version in build_and_package_info.py")
    return found.group(1)


def extract_dlls(wheels: list[Path], bin_dir: Path) -> dict[str, dict[str, object]]:
    """Copy the SHIP DLLs of each wheel into ``bin_dir``; returns the manifest entries."""
    by_name = {_wheel_name_version(w)[0]: w for w in wheels}
    unknown = sorted(set(by_name) - set(SHIP))
    absent = sorted(set(SHIP) - set(by_name))
    if unknown or absent:
        raise SystemExit(
            f"the GPU lock and stage_gpu.SHIP disagree: not shipped {unknown}, not locked {absent}"
        )
    entries: dict[str, dict[str, object]] = {}
    for dist, patterns in SHIP.items():
        wheel = by_name[dist]
        version = _wheel_name_version(wheel)[1]
        with zipfile.ZipFile(wheel) as archive:
            members = archive.namelist()
            for pattern in patterns:
                matched = [m for m in members if fnmatch.fnmatch(m, pattern)]
                if not matched:
                    raise SystemExit(f"{wheel.name}: nothing matches {pattern}")
                for member in matched:
                    name = Path(member).name
                    if name in entries:
                        raise SystemExit(f"{name} comes from two wheels")
                    target = bundle_tools.extract_member(archive, member, bin_dir / name)
                    entries[name] = {
                        "bytes": target.stat().st_size,
                        "sha256": bundle_tools.sha256(target),
                        "from": f"{dist} {version}",
                    }
                    _LOGGER.info("%s (%.1f MB) from %s", name, target.stat().st_size / 1e6, dist)
    return entries


def check_imports(bin_dir: Path, ort_wheel: Path, cuda_major: str) -> list[str]:
    """Problems: a required DLL missing, or an import nothing provides."""
    shipped = {p.name.lower() for p in bin_dir.glob("*.dll")}
    problems = [
        f"{name} missing"
        for name in (n.format(cuda=cuda_major) for n in REQUIRED)
        if name.lower() not in shipped
    ]
    with tempfile.TemporaryDirectory() as tmp, zipfile.ZipFile(ort_wheel) as archive:
        member = "onnxruntime/capi/onnxruntime_providers_cuda.dll"
        provider = Path(archive.extract(member, tmp))
        files = [provider, *sorted(bin_dir.glob("*.dll"))]
        for path in files:
            for imported in pe_imports(path):
                low = imported.lower()
                if low in shipped or low in SYSTEM_DLLS or low.startswith("api-ms-win-"):
                    continue
                problems.append(f"{path.name} imports {imported}, which nothing provides")
    return problems


def licence_text(wheels: list[Path]) -> str:
    """THIRD_PARTY_LICENSES for the pack: each wheel's metadata and licence files."""
    with tempfile.TemporaryDirectory() as tmp:
        site = Path(tmp)
        for wheel in wheels:
            with zipfile.ZipFile(wheel) as archive:
                bundle_tools.extract_metadata(archive, site)
        notices = package_notices(site)
    return "\n\n".join([PACK_HEADER, *notices, PACK_NSIS_NOTICE]) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Build the pack folder; prints its size."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--wheels", type=Path, required=True, help="folder of the locked wheels")
    parser.add_argument(
        "--onnxruntime-wheel", type=Path, required=True, help="the main bundle's onnxruntime-gpu"
    )
    parser.add_argument("--version", required=True, help="app version")
    args, out = bundle_tools.staging_args(parser, argv, "pack folder", "stage_gpu")
    bin_dir = out / "bin"
    bin_dir.mkdir(parents=True)
    wheels = sorted(args.wheels.glob("*.whl"))
    dlls = extract_dlls(wheels, bin_dir)

    cuda_version = _ort_cuda_version(args.onnxruntime_wheel)
    cuda_major = cuda_version.split(".")[0]
    problems = check_imports(bin_dir, args.onnxruntime_wheel, cuda_major)
    if problems:
        raise SystemExit("GPU pack incomplete:\n  " + "\n  ".join(problems))
    cudnn = next(w for w in wheels if _wheel_name_version(w)[0].startswith("nvidia-cudnn"))
    manifest = {
        "format": MANIFEST_FORMAT,
        "version": args.version,
        "onnxruntime": _wheel_name_version(args.onnxruntime_wheel)[1],
        "cuda_major": int(cuda_major),
        "cudnn_major": int(_wheel_name_version(cudnn)[1].split(".")[0]),
        "preload_first": list(PRELOAD_FIRST),
        "left_out": LEFT_OUT,
        "dlls": dict(sorted(dlls.items())),
    }
    (out / "gpu-pack.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    licences = licence_text(wheels).replace("\r\n", "\n")
    # Windows editors (Notepad) want CRLF.
    (out / "THIRD_PARTY_LICENSES.txt").write_text(licences, encoding="utf-8", newline="\r\n")
    size = bundle_tools.tree_size(out)
    _LOGGER.info("GPU pack: %s, %d DLLs, %.1f MB", out, len(dlls), size / 1e6)
    return 0


if __name__ == "__main__":
    sys.exit(main())
