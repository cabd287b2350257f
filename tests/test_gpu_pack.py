"""The Windows GPU pack: found from its manifest, loaded before a CUDA session (no GPU needed)."""

from __future__ import annotations

import json
import os
import sys
import zipfile
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from therapy_app import doctor, gpu_pack, inference

ROOT = Path(__file__).resolve().parent.parent
DLLS = {"cublas64_13.dll": b"blas", "cudnn64_9.dll": b"dnn!", "msvcp140_atomic_wait.dll": b"w"}


def _make_pack(folder: Path, cuda_major: int = 13, **changes: Any) -> Path:
    (folder / "bin").mkdir(parents=True)
    for name, data in DLLS.items():
        (folder / "bin" / name).write_bytes(data)
    manifest = {
        "format": 1,
        "version": "0.1.0",
        "onnxruntime": "1.31.1",
        "cuda_major": cuda_major,
        "cudnn_major": 9,
        "preload_first": ["msvcp140_atomic_wait.dll"],
        "dlls": {name: {"bytes": len(data)} for name, data in DLLS.items()},
        **changes,
    }
    (folder / "gpu-pack.json").write_text(json.dumps(manifest), encoding="utf-8")
    return folder


def _edit_manifest(folder: Path, **changes: Any) -> None:
    path = folder / "gpu-pack.json"
    path.write_text(json.dumps({**json.loads(path.read_text()), **changes}), encoding="utf-8")


class FakeOrt(SimpleNamespace):
    """Stands in for onnxruntime-gpu: lists CUDA, records preload_dlls calls."""

    def __init__(self) -> None:
        super().__init__(cuda_version="13.0", calls=[])

    def get_available_providers(self) -> list[str]:
        return [inference.CUDA, inference.CPU]

    def preload_dlls(self, **kwargs: Any) -> None:
        self.calls.append(kwargs)


@pytest.fixture
def fake_cuda(monkeypatch: pytest.MonkeyPatch) -> FakeOrt:
    """onnxruntime with CUDA and a driver that loads; DLL loading is recorded, not done."""
    ort = FakeOrt()
    monkeypatch.setattr(inference, "onnxruntime_module", lambda: ort)
    monkeypatch.setattr(inference, "cuda_driver_present", lambda: True)
    monkeypatch.setattr(gpu_pack, "_load_library", lambda path: ort.calls.append({"load": path}))
    monkeypatch.setattr(gpu_pack, "_ACTIVATED", {})
    monkeypatch.setenv("PATH", os.environ.get("PATH", ""))  # restored after the test
    monkeypatch.delenv(inference.ENV_PROVIDER, raising=False)
    return ort


def test_no_manifest_means_no_pack(tmp_path: Path) -> None:
    assert gpu_pack.find("13.0", tmp_path) is None
    assert gpu_pack.find("13.0", tmp_path / "absent") is None


def test_installed_location_is_beside_the_python_folder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(gpu_pack.ENV_GPU_DIR, raising=False)
    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.setattr(sys, "base_prefix", str(Path("/install/TherapyApp/python")))
    assert gpu_pack.pack_dir() == Path("/install/TherapyApp/gpu")
    monkeypatch.setattr(sys, "platform", "linux")
    assert gpu_pack.pack_dir() is None
    monkeypatch.setenv(gpu_pack.ENV_GPU_DIR, "/elsewhere")
    assert gpu_pack.pack_dir() == Path("/elsewhere")


def test_a_complete_pack_is_usable(tmp_path: Path) -> None:
    pack = gpu_pack.find("13.0", _make_pack(tmp_path / "gpu"))
    assert pack is not None and pack.usable, pack
    assert pack.dll_dir == tmp_path / "gpu" / "bin"
    assert (pack.cuda_major, pack.cudnn_major, len(pack.dlls)) == (13, 9, 3)
    assert "CUDA 13, cuDNN 9, 3 DLLs" in pack.describe()


@pytest.mark.parametrize(
    ("damage", "expected"),
    [
        (lambda d: (d / "bin" / "cudnn64_9.dll").unlink(), "missing or damaged: cudnn64_9.dll"),
        (lambda d: (d / "bin" / "cublas64_13.dll").write_bytes(b"x"), "cublas64_13.dll"),
        (lambda d: (d / "gpu-pack.json").write_text("{"), "unreadable gpu-pack.json"),
        (lambda d: (d / "gpu-pack.json").write_text('{"format": 9}'), "unknown manifest format"),
        # Valid JSON of the wrong shape is reported too, not raised into doctor or a session.
        (lambda d: (d / "gpu-pack.json").write_text("[]"), "unknown manifest format []"),
        (lambda d: _edit_manifest(d, dlls={"cudnn64_9.dll": 4}), "unreadable gpu-pack.json: "),
    ],
)
def test_a_damaged_pack_says_what_is_wrong(tmp_path: Path, damage: Any, expected: str) -> None:
    folder = _make_pack(tmp_path / "gpu")
    damage(folder)
    pack = gpu_pack.find("13.0", folder)
    assert pack is not None and not pack.usable
    assert expected in pack.describe()


def test_a_pack_for_another_cuda_major_is_not_used(tmp_path: Path) -> None:
    pack = gpu_pack.find("13.0", _make_pack(tmp_path / "gpu", cuda_major=12))
    assert pack is not None and not pack.usable
    assert "built for CUDA 12 but this onnxruntime needs CUDA 13" in pack.describe()


def test_activate_loads_the_pack_before_onnxruntime_preloads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pack = gpu_pack.find("13.0", _make_pack(tmp_path / "gpu"))
    assert pack is not None
    monkeypatch.setattr(gpu_pack, "_ACTIVATED", {})
    added: list[str] = []
    monkeypatch.setattr(os, "add_dll_directory", added.append, raising=False)
    monkeypatch.setenv("PATH", "/usr/bin")
    calls: list[Any] = []

    def preload(**kwargs: Any) -> None:
        calls.append(kwargs)
        print("Failed to load cudnn64_9.dll: fake")  # how preload_dlls reports

    problems = gpu_pack.activate(pack, preload, load_library=calls.append)
    assert calls == [pack.dll_dir / "msvcp140_atomic_wait.dll", {"directory": str(pack.dll_dir)}]
    assert added == [str(pack.dll_dir)]
    assert os.environ["PATH"].split(os.pathsep) == [str(pack.dll_dir), "/usr/bin"]
    assert problems == ["Failed to load cudnn64_9.dll: fake"]
    # The next session of the process: nothing is loaded or added again.
    assert gpu_pack.activate(pack, preload, load_library=calls.append) == problems
    assert len(calls) == 2 and len(added) == 1


def test_cuda_session_uses_the_pack_when_installed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_cuda: FakeOrt
) -> None:
    folder = _make_pack(tmp_path / "gpu")
    monkeypatch.setenv(gpu_pack.ENV_GPU_DIR, str(folder))
    assert inference.requested_providers("auto") == [inference.CUDA, inference.CPU]
    assert fake_cuda.calls == [
        {"load": folder / "bin" / "msvcp140_atomic_wait.dll"},
        {"directory": str(folder / "bin")},
    ]
    decision = inference.last_cuda_decision()
    assert decision is not None and decision.requested
    assert "from the GPU pack" in decision.reason


def test_without_a_usable_pack_onnxruntime_searches_as_usual(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_cuda: FakeOrt
) -> None:
    monkeypatch.setenv(gpu_pack.ENV_GPU_DIR, str(_make_pack(tmp_path / "gpu", cuda_major=12)))
    assert inference.requested_providers("auto") == [inference.CUDA, inference.CPU]
    assert fake_cuda.calls == [{}]  # preload_dlls() with its default search
    monkeypatch.setenv(gpu_pack.ENV_GPU_DIR, str(tmp_path / "none"))
    fake_cuda.calls.clear()
    assert inference.requested_providers("auto") == [inference.CUDA, inference.CPU]
    assert fake_cuda.calls == [{}]


def test_no_driver_means_cpu_and_doctor_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_cuda: FakeOrt
) -> None:
    folder = _make_pack(tmp_path / "gpu")
    monkeypatch.setenv(gpu_pack.ENV_GPU_DIR, str(folder))
    monkeypatch.setattr(inference, "cuda_driver_present", lambda: False)
    assert inference.requested_providers("auto") == [inference.CPU]
    assert fake_cuda.calls == []  # nothing loaded without a driver
    check = doctor._cuda_check("cpu")
    assert not check.ok and not check.required
    assert check.detail.startswith("not used, running on CPU: no NVIDIA driver found")
    pack = doctor._gpu_pack_check("13.0")
    assert pack is not None and pack.ok and str(folder) in pack.detail


def test_doctor_reports_an_absent_pack_as_optional(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(gpu_pack.ENV_GPU_DIR, str(tmp_path / "gpu"))
    check = doctor._gpu_pack_check("13.0")
    assert check is not None and not check.ok and not check.required
    assert check.detail.startswith("absent")
    monkeypatch.delenv(gpu_pack.ENV_GPU_DIR)
    if sys.platform != "win32":
        assert doctor._gpu_pack_check("13.0") is None  # no line where there is no pack to have


def test_a_cuda_session_that_falls_back_is_reported(fake_cuda: FakeOrt) -> None:
    inference.requested_providers("cuda")
    check = doctor._cuda_check("cpu")
    assert "the CUDA session did not start" in check.detail
    assert doctor._cuda_check("cuda").ok


def _fake_wheel(folder: Path, name: str, version: str, files: dict[str, bytes]) -> Path:
    wheel = folder / f"{name.replace('-', '_')}-{version}-py3-none-win_amd64.whl"
    dist_info = f"{name.replace('-', '_')}-{version}.dist-info"
    with zipfile.ZipFile(wheel, "w") as archive:
        for member, data in files.items():
            archive.writestr(member, data)
        archive.writestr(f"{dist_info}/METADATA", f"Name: {name}\nVersion: {version}\n")
        archive.writestr(f"{dist_info}/licenses/License.txt", f"{name} licence text")
    return wheel


def test_stage_gpu_takes_only_the_dlls_and_writes_a_manifest_the_app_reads(
    tmp_path: Path,
) -> None:
    sys.path.insert(0, str(ROOT / "installer" / "windows"))
    try:
        import stage_gpu
    finally:
        sys.path.pop(0)
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    cu = "nvidia/cu13/bin/x86_64/"
    contents = {
        "nvidia-cublas": {f"{cu}cublas64_13.dll": b"a", f"{cu}cublasLt64_13.dll": b"bb",
                          f"{cu}nvblas64_13.dll": b"n", "nvidia/cu13/include/cublas.h": b"h"},
        "nvidia-cuda-runtime": {f"{cu}cudart64_13.dll": b"c"},
        "nvidia-cuda-nvrtc": {f"{cu}nvrtc64_130_0.dll": b"d",
                              f"{cu}nvrtc-builtins64_135.dll": b"e"},
        "nvidia-cudnn-cu13": {"nvidia/cudnn/bin/cudnn64_9.dll": b"f",
                              "nvidia/cudnn/include/cudnn.h": b"h"},
        "msvc-runtime": {"msvc_runtime-14.51.data/data/msvcp140_atomic_wait.dll": b"g",
                         "msvc_runtime-14.51.data/data/Scripts/msvcp140_atomic_wait.dll": b"g",
                         "msvc_runtime-14.51.data/data/msvcp140.dll": b"m"},
    }  # fmt: skip
    built = [_fake_wheel(wheels, name, "1.0", files) for name, files in contents.items()]
    bin_dir = tmp_path / "pack" / "bin"
    bin_dir.mkdir(parents=True)
    entries = stage_gpu.extract_dlls(built, bin_dir)
    assert sorted(p.name for p in bin_dir.iterdir()) == sorted(entries) == [
        "cublas64_13.dll", "cublasLt64_13.dll", "cudart64_13.dll", "cudnn64_9.dll",
        "msvcp140_atomic_wait.dll", "nvrtc-builtins64_135.dll", "nvrtc64_130_0.dll",
    ]  # fmt: skip
    manifest = {
        "format": stage_gpu.MANIFEST_FORMAT,
        "version": "0.1.0",
        "onnxruntime": "1.31.1",
        "cuda_major": 13,
        "cudnn_major": 9,
        "preload_first": list(stage_gpu.PRELOAD_FIRST),
        "dlls": entries,
    }
    (tmp_path / "pack" / "gpu-pack.json").write_text(json.dumps(manifest))
    pack = gpu_pack.find("13.0", tmp_path / "pack")
    assert pack is not None and pack.usable, pack.problems
    text = stage_gpu.licence_text(built)
    assert "nvidia-cudnn-cu13 licence text" in text and "msvc-runtime licence text" in text
    # A wheel in the lock that SHIP does not know (or the reverse) stops the build.
    with pytest.raises(SystemExit, match="disagree"):
        stage_gpu.extract_dlls(built[:-1], bin_dir)


def test_gpu_lock_matches_the_main_lock_and_the_shipped_wheels() -> None:
    """requirements-gpu-win.txt serves the onnxruntime-gpu of requirements-win.txt."""
    sys.path.insert(0, str(ROOT / "installer" / "windows"))
    try:
        import stage_gpu
    finally:
        sys.path.pop(0)
    windows = ROOT / "installer" / "windows"
    main_lock = (windows / "requirements-win.txt").read_text(encoding="utf-8").splitlines()
    (ort_pin,) = [line.split()[0] for line in main_lock if line.startswith("onnxruntime-gpu==")]
    gpu_lock = (windows / "requirements-gpu-win.txt").read_text(encoding="utf-8").splitlines()
    assert any(line.startswith(f"# for {ort_pin} ") for line in gpu_lock), "run --relock"
    locked = [line.split()[0] for line in gpu_lock if line and not line.startswith("#")]
    assert sorted(pin.split("==")[0] for pin in locked) == sorted(stage_gpu.SHIP)
    assert all("--hash=sha256:" in line for line in gpu_lock if not line.startswith("#"))
