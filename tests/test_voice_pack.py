"""The personal-voice pack: staged, found, checked, and the trainer started from it (issue 26).

The fast tests stage a real pack folder with ``installer/windows/stage_voice.py``
from small stand-in wheels (a ``torch`` that only says where it was imported
from), then start the child exactly as the app does (:func:`voice_pack.find_trainer`):
it must run the pack's torch and trainer with the app's own interpreter and packages.

The ``installer`` tests install the built packs (``installer/build.sh --voice-pack``:
``dist/TherapyApp-Voice-<version>.exe`` under Wine over the main setup,
``dist/therapy-app-voice_<version>_amd64.deb`` with ``therapy-app`` in a clean
Debian 12 chroot) and train for real with the installed torch::

    bash scripts/test.sh -m installer tests/test_voice_pack.py -v
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from installer_fixtures import APP_DEB, SETUP_EXE, VOICE_DEB, VOICE_PACK_EXE, require_tools

import therapy_app
from therapy_app import gpu_pack, voice_pack
from therapy_app.asr.config import TRAIN_MODEL

ROOT = Path(__file__).resolve().parent.parent
WINDOWS = ROOT / "installer" / "windows"
DEB = ROOT / "installer" / "deb"
PY = voice_pack.python_tag()

# The stand-in trainer: prints where everything came from, as JSON on stdout.
TRAINER_MAIN = """\
import json, os, sys
import numpy, therapy_app, torch, therapy_voice
print(json.dumps({"torch": torch.__file__, "torch_version": torch.__version__,
                  "trainer": therapy_voice.__file__, "therapy_app": therapy_app.__file__,
                  "numpy": numpy.__file__, "python": sys.executable, "argv": sys.argv[1:]}))
"""


def _stage_module() -> Any:
    sys.path.insert(0, str(WINDOWS))
    try:
        import stage_voice
    finally:
        sys.path.pop(0)
    return stage_voice


def _wheel(folder: Path, name: str, version: str, files: dict[str, bytes],
           requires: tuple[str, ...] = (), tag: str = "py3-none-any") -> Path:  # fmt: skip
    dist = name.replace("-", "_")
    wheel = folder / f"{dist}-{version}-{tag}.whl"
    meta = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\nLicense: BSD-3-Clause\n"
    meta += "".join(f"Requires-Dist: {req}\n" for req in requires)
    with zipfile.ZipFile(wheel, "w") as archive:
        for member, data in files.items():
            archive.writestr(member, data)
        archive.writestr(f"{dist}-{version}.dist-info/METADATA", meta)
        archive.writestr(f"{dist}-{version}.dist-info/LICENSE", f"{name} licence text")
    return wheel


def _weights(folder: Path) -> Path:
    folder.mkdir(parents=True)
    files = {"model_bin": ("model.bin", b"w" * 1000), "config": ("config.json", b"{}")}
    entries = {}
    for role, (rel, data) in files.items():
        (folder / rel).write_bytes(data)
        entries[role] = {"path": rel, "bytes": len(data),
                         "sha256": hashlib.sha256(data).hexdigest()}  # fmt: skip
    meta = {"name": TRAIN_MODEL, "version": "t", "licence": "MIT: test", "files": entries}
    (folder / "model.json").write_text(json.dumps(meta))
    (folder / "model.json").chmod(0o600)  # as models.build writes it
    return folder


def _trainer(folder: Path) -> Path:
    package = folder / voice_pack.TRAINER_MODULE
    package.mkdir(parents=True)
    (package / "__init__.py").write_text('"""stand-in trainer"""\n')
    (package / "__main__.py").write_text(TRAINER_MAIN)
    return package


def _fake_wheels(folder: Path) -> Path:
    folder.mkdir(parents=True)
    torch_files = {
        "torch/__init__.py": b"__version__ = '2.13.0+cpu'\n",
        "torch/version.py": b"__version__ = '2.13.0+cpu'\n",
        "torch/lib/libtorch_cpu.so": b"\x7fELF" + b"0" * 100,
        f"torch/_C.cpython-{PY.replace('.', '')}-x86_64-linux-gnu.so": b"\x7fELF",
        "torch/include/ATen/ATen.h": b"// header",
        "torch/test/test_api": b"test binary",
        "torch/bin/protoc": b"protoc",
        "torch/bin/torch_shm_manager": b"shm",
    }
    _wheel(folder, "torch", "2.13.0+cpu", torch_files,
           ("filelock", "sympy>=1.13.3", 'nvidia-nccl-cu13==2.29.7; platform_system == "Linux"'),
           f"cp{PY.replace('.', '')}-cp{PY.replace('.', '')}-manylinux_2_28_x86_64")  # fmt: skip
    _wheel(folder, "sympy", "1.14.0", {"sympy/__init__.py": b""}, ("mpmath<1.4,>=1.1.0",))
    _wheel(folder, "mpmath", "1.3.0", {"mpmath/__init__.py": b""})
    # A stand-in for the CUDA wheel: the linux marker above must find it.
    _wheel(folder, "nvidia-nccl-cu13", "2.29.7", {"nvidia/nccl/lib/libnccl.so.2": b"nccl"})
    return folder


@pytest.fixture(scope="module")
def staged(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A pack folder staged by stage_voice.py from stand-in wheels, for this python."""
    base = tmp_path_factory.mktemp("voice")
    lock = base / "app-lock.txt"
    lock.write_text("# app\nfilelock==4.2.12 --hash=sha256:00\nnumpy==2.4.6 --hash=sha256:00\n")
    stage_voice = _stage_module()
    out = base / "voice"
    assert stage_voice.main(["stage", "--platform", "linux",
                             "--wheels", f"{PY}={_fake_wheels(base / 'wheels')}",
                             "--app-lock", str(lock), "--trainer", str(_trainer(base / "src")),
                             "--weights", str(_weights(base / TRAIN_MODEL)),
                             "--version", therapy_app.__version__,
                             "--out", str(out)]) == 0  # fmt: skip
    return out


@pytest.fixture
def pack(tmp_path: Path, staged: Path) -> Path:
    """A private copy of the staged pack (tests damage it)."""
    copy = tmp_path / "voice"
    shutil.copytree(staged, copy, symlinks=True)
    return copy


def test_staged_pack_layout_and_manifest(staged: Path) -> None:
    meta = json.loads((staged / voice_pack.MANIFEST).read_text())
    assert meta["format"] == voice_pack.FORMAT and meta["version"] == therapy_app.__version__
    assert (meta["torch"], meta["device"], meta["platform"]) == ("2.13.0+cpu", "cpu", "linux")
    assert meta["sites"] == {PY: f"lib/py{PY}"}
    site = staged / "lib" / f"py{PY}"
    assert sorted(meta["packages"][PY]) == ["mpmath", "nvidia-nccl-cu13", "sympy", "torch"]
    # Build-time files trimmed; torch_shm_manager kept.
    assert not (site / "torch" / "include").exists() and not (site / "torch" / "test").exists()
    assert sorted(p.name for p in (site / "torch" / "bin").iterdir()) == ["torch_shm_manager"]
    assert (staged / "app" / "therapy_voice" / "__main__.py").is_file()
    sidecar = staged / "models" / TRAIN_MODEL / "model.json"
    assert sidecar.stat().st_mode & 0o044 == 0o044, "the weights must be readable by every user"
    assert "models/whisper-base-train/model.bin" in meta["files"]
    assert f"lib/py{PY}/torch/lib/libtorch_cpu.so" in meta["files"]
    licences = (staged / "THIRD_PARTY_LICENSES.txt").read_text()
    assert "sympy licence text" in licences and "Model whisper-base-train" in licences


def test_a_complete_pack_is_found_and_usable(staged: Path) -> None:
    found = voice_pack.find(staged)
    assert found is not None and found.usable, found
    assert found.site_dir == staged / "lib" / f"py{PY}"
    assert found.weights_dir == staged / "models" / TRAIN_MODEL
    assert found.trainer_dir == staged / "app"
    assert f"torch 2.13.0+cpu cpu, for Python {PY}" in found.describe()
    assert voice_pack.WEIGHTS_NAME == TRAIN_MODEL


def test_the_child_runs_the_packs_torch_with_the_apps_python_and_packages(staged: Path) -> None:
    launch = voice_pack.find_trainer(staged)
    assert launch.source == "pack" and launch.weights == staged / "models" / TRAIN_MODEL
    argv = launch.argv(["adapt", "--weights", str(launch.weights)])
    assert argv[0] == sys.executable
    proc = subprocess.run(argv, env=launch.env(), capture_output=True, text=True, timeout=120,
                          check=False, cwd=str(staged.parent))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    seen = json.loads(proc.stdout)
    site = staged / "lib" / f"py{PY}"
    assert Path(seen["torch"]) == site / "torch" / "__init__.py"  # not the venv's torch
    assert seen["torch_version"] == "2.13.0+cpu"
    # The pack's trainer, not the checkout's therapy_voice/.
    assert Path(seen["trainer"]) == staged / "app" / "therapy_voice" / "__init__.py"
    assert Path(seen["therapy_app"]) == Path(therapy_app.__file__)
    assert not Path(seen["numpy"]).is_relative_to(staged)  # the app's numpy
    assert seen["python"] == sys.executable
    assert seen["argv"] == ["adapt", "--weights", str(launch.weights)]


def test_the_child_path_also_works_isolated(staged: Path) -> None:
    """Under -I (the .deb) and a ._pth (Windows) PYTHONPATH is ignored: the bootstrap's is not."""
    launch = voice_pack.find_trainer(staged)
    isolated = voice_pack.TrainerLaunch(**{**launch.__dict__, "isolated": True})
    argv = isolated.argv(["adapt"])
    assert argv[1:4] == ["-I", "-X", "utf8"]
    env = isolated.env({"PATH": os.environ.get("PATH", ""), "PYTHONPATH": "/nowhere"})
    assert env[voice_pack.ENV_CHILD_PATH].split(os.pathsep)[0] == str(staged / "app")
    proc = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    assert Path(json.loads(proc.stdout)["torch"]).is_relative_to(staged)


@pytest.mark.parametrize(
    ("damage", "expected"),
    [
        (lambda d: (d / "models" / TRAIN_MODEL / "model.bin").write_bytes(b"short"),
         "missing or damaged: models/whisper-base-train/model.bin"),
        (lambda d: (d / "lib" / f"py{PY}" / "torch" / "lib" / "libtorch_cpu.so").unlink(),
         "libtorch_cpu.so"),
        (lambda d: (d / voice_pack.MANIFEST).write_text("{"), "unreadable voice-pack.json"),
        (lambda d: (d / voice_pack.MANIFEST).write_text('{"format": 7}'),
         "unknown manifest format 7"),
        (lambda d: _edit_manifest(d, version="0.0.1"),
         f"built for TherapyApp 0.0.1, this is {therapy_app.__version__}"),
        (lambda d: _edit_manifest(d, sites={"3.99": "lib/py3.99"}),
         f"no torch for Python {PY} in the pack"),
        (lambda d: shutil.rmtree(d / "app"), "no therapy_voice package"),
    ],
)  # fmt: skip
def test_a_damaged_or_foreign_pack_says_what_is_wrong(
    pack: Path, damage: Any, expected: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    damage(pack)
    found = voice_pack.find(pack)
    assert found is not None and not found.usable
    assert expected in found.describe()
    # Without torch in the app's own Python, the therapist is told the pack is missing.
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None)
    with pytest.raises(voice_pack.VoicePackMissing) as caught:
        voice_pack.find_trainer(pack)
    assert caught.value.user_message == voice_pack.NOT_INSTALLED == "Pack voix non installé."
    assert expected in caught.value.detail


def _edit_manifest(folder: Path, **changes: Any) -> None:
    path = folder / voice_pack.MANIFEST
    path.write_text(json.dumps({**json.loads(path.read_text()), **changes}))


def test_no_pack_and_no_torch_tells_the_therapist(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert voice_pack.find(tmp_path) is None
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None)
    monkeypatch.setattr(sys, "platform", "win32")
    with pytest.raises(voice_pack.VoicePackMissing) as caught:
        voice_pack.find_trainer(tmp_path)
    error = caught.value
    assert error.french().startswith("Pack voix non installé. Installez le module")
    assert f"TherapyApp-Voice-{therapy_app.__version__}.exe" in error.hint
    assert f"no voice pack in {tmp_path}" in error.detail
    assert "torch is not installed in the app's Python" in error.detail


def test_without_a_pack_a_checkout_with_torch_runs_its_own_trainer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    models = tmp_path / "models"
    weights = _weights(models / TRAIN_MODEL)
    monkeypatch.setenv("THERAPY_APP_MODELS_DIR", str(models))
    trainer_root = tmp_path / "src"
    _trainer(trainer_root)
    specs = {"torch": object(), "therapy_voice": importlib.util.spec_from_file_location(
        "therapy_voice", trainer_root / "therapy_voice" / "__init__.py")}  # fmt: skip
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: specs.get(name))
    launch = voice_pack.find_trainer(tmp_path / "no-pack")
    assert launch.source == "app" and launch.pack is None and launch.weights == weights
    assert launch.path == (str(trainer_root), voice_pack.app_root())


def test_find_trainer_does_not_import_torch() -> None:
    """The app only looks for torch and therapy_voice (the layering test reads the imports)."""
    script = (
        "import sys\n"
        "from therapy_app import voice_pack\n"
        "try:\n    voice_pack.find_trainer()\nexcept voice_pack.VoicePackMissing:\n    pass\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('torch', 'therapy_voice')))\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120, check=False, cwd=str(ROOT))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


def test_pack_location(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv(voice_pack.ENV_VOICE_DIR, raising=False)
    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.setattr(sys, "base_prefix", str(Path("/install/TherapyApp/python")))
    assert voice_pack.pack_dir() == Path("/install/TherapyApp/voice")
    monkeypatch.setattr(sys, "platform", "linux")
    assert voice_pack.pack_dir() is None  # a checkout: no pack
    # The .deb: the app runs from /opt/therapy-app/lib/py3.X beside launch.py.
    opt = tmp_path / "opt" / "therapy-app"
    (opt / "lib" / "py3.11").mkdir(parents=True)
    (opt / "launch.py").write_text("")
    monkeypatch.setattr(voice_pack, "app_root", lambda: str(opt / "lib" / "py3.11"))
    assert voice_pack.pack_dir() == opt / "voice"
    assert "therapy-app-voice" in voice_pack.install_hint()
    monkeypatch.setenv(voice_pack.ENV_VOICE_DIR, "/elsewhere")
    assert voice_pack.pack_dir() == Path("/elsewhere")


def test_the_gui_interpreter_gets_a_console_one_for_the_child(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    (tmp_path / "python.exe").write_bytes(b"")
    monkeypatch.setattr(sys, "executable", str(tmp_path / "pythonw.exe"))
    assert voice_pack.child_python() == str(tmp_path / "python.exe")
    monkeypatch.setattr(sys, "executable", "/usr/bin/python3")
    assert voice_pack.child_python() == "/usr/bin/python3"


def test_a_cuda_build_of_torch_gets_the_gpu_packs_dlls(
    pack: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gpu = tmp_path / "gpu"
    (gpu / "bin").mkdir(parents=True)
    (gpu / "bin" / "cudart64_13.dll").write_bytes(b"rt")
    (gpu / "gpu-pack.json").write_text(json.dumps({
        "format": 1, "version": "0.1.0", "onnxruntime": "1.31.1", "cuda_major": 13,
        "cudnn_major": 9, "dlls": {"cudart64_13.dll": {"bytes": 2}}}))  # fmt: skip
    monkeypatch.setenv(gpu_pack.ENV_GPU_DIR, str(gpu))
    assert voice_pack.find_trainer(pack).dll_dirs == ()  # PyPI's torch: CPU only
    _edit_manifest(pack, device="cuda")
    launch = voice_pack.find_trainer(pack)
    assert launch.dll_dirs == (str(gpu / "bin"),)
    path = launch.env({"PATH": "/usr/bin"})["PATH"]
    assert path == os.pathsep.join([str(gpu / "bin"), "/usr/bin"])


def test_requirements_are_read_for_the_target_platform(tmp_path: Path) -> None:
    stage_voice = _stage_module()
    (wheel,) = _fake_wheels(tmp_path / "w").glob("torch-*.whl")
    win = [str(r) for r in stage_voice.wheel_requirements(wheel, "win_amd64", "3.13")]
    assert win == ["filelock", "sympy>=1.13.3"]  # not the Linux-only CUDA wheel
    linux = [r.name for r in stage_voice.wheel_requirements(wheel, "linux", "3.11")]
    assert "nvidia-nccl-cu13" in linux


def test_staging_stops_on_an_unmet_requirement_or_a_bad_weight(tmp_path: Path) -> None:
    stage_voice = _stage_module()
    wheels = _fake_wheels(tmp_path / "wheels")
    (wheels / "mpmath-1.3.0-py3-none-any.whl").unlink()
    lock = tmp_path / "lock.txt"
    lock.write_text("filelock==4.2.12 --hash=sha256:00\n")
    base = ["stage", "--platform", "linux", "--wheels", f"{PY}={wheels}", "--app-lock", str(lock),
            "--trainer", str(_trainer(tmp_path / "src")), "--version", "0.1.0"]  # fmt: skip
    weights = _weights(tmp_path / TRAIN_MODEL)
    with pytest.raises(SystemExit, match=r"sympy needs mpmath.*in neither the pack nor the app"):
        stage_voice.main([*base, "--weights", str(weights), "--out", str(tmp_path / "a")])
    _wheel(wheels, "mpmath", "1.3.0", {"mpmath/__init__.py": b""})
    (weights / "model.bin").write_bytes(b"x" * 1000)  # same size, other bytes
    with pytest.raises(SystemExit, match="model_bin sha256 differs"):
        stage_voice.main([*base, "--weights", str(weights), "--out", str(tmp_path / "b")])


def _lock_lines(path: Path) -> list[str]:
    return [line for line in path.read_text().splitlines() if line and not line.startswith("#")]


def _torch_pin() -> str:
    import tomllib

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return next(d for d in extras["optional-dependencies"]["build"] if d.startswith("torch=="))


def test_windows_voice_lock_adds_only_what_the_app_lacks() -> None:
    lock = WINDOWS / "requirements-voice-win.txt"
    text = lock.read_text()
    assert f"# for {_torch_pin()} " in text, "run installer/windows/build_voice_pack.sh --relock"
    lines = _lock_lines(lock)
    assert all("--hash=sha256:" in line for line in lines)
    names = {line.split("==")[0] for line in lines}
    app = {line.split("==")[0] for line in _lock_lines(WINDOWS / "requirements-win.txt")}
    assert not names & app, names & app
    assert {"torch", "sympy", "msvc-runtime"} <= names
    gpu = [line for line in _lock_lines(WINDOWS / "requirements-gpu-win.txt")
           if line.startswith("msvc-runtime==")]  # fmt: skip
    assert [line for line in lines if line.startswith("msvc-runtime==")] == gpu


def test_debian_voice_locks_add_only_what_the_app_lacks() -> None:
    locks = sorted(DEB.glob("requirements-voice-linux-py3.*.txt"))
    assert locks, "run installer/deb/build_voice.sh --relock"
    for lock in locks:
        py = lock.stem.rsplit("-py", 1)[1]
        text = lock.read_text()
        assert f"# for {_torch_pin()}+cpu: " in text and f"# python {py}" in text
        names = {line.split("==")[0] for line in _lock_lines(lock)}
        app = {line.split("==")[0] for line in _lock_lines(DEB / f"requirements-linux-py{py}.txt")}
        assert "torch" in names and not names & app, names & app
        assert any(line.startswith(f"{_torch_pin()}+cpu ") for line in _lock_lines(lock))


def test_installer_names_agree_with_the_app() -> None:
    nsi = (WINDOWS / "therapy_app_voice.nsi").read_text(encoding="utf-8")
    assert f'!define VOICE_DIR_NAME "{voice_pack.DIR_NAME}"' in nsi
    assert f'!define MANIFEST "{voice_pack.MANIFEST}"' in nsi
    stage_voice = _stage_module()
    assert (stage_voice.MANIFEST, stage_voice.MANIFEST_FORMAT) == (
        voice_pack.MANIFEST, voice_pack.FORMAT)  # fmt: skip
    assert stage_voice.WEIGHTS == voice_pack.WEIGHTS_NAME
    control = (DEB / "stage_voice_deb.py").read_text()
    assert f"Package: {voice_pack.DEB_PACKAGE}\n" in control


# ---------------------------------------------------------------- installed packs

# A real adaptation run, as short as the trainer allows: two recordings, one step.
CLIPS = ("lundi", "mardi")


def _adapt_manifest(folder: Path, audio: dict[str, str]) -> dict[str, Any]:
    """The trainer's manifest (therapy_voice.manifest) for CLIPS at the given paths."""
    return {"version": 1, "seed": 1,
            "items": [{"audio": audio[clip], "text": clip} for clip in CLIPS]}  # fmt: skip


# Run by the installed app's python: the app's own view of the pack and the trainer.
PROBE = """
import json, sys
sys.stdout.reconfigure(encoding="utf-8")  # Windows writes a pipe in its ANSI code page
from therapy_app import voice_pack
pack = voice_pack.find()
print("pack:", pack.describe() if pack else "absent")
try:
    launch = voice_pack.find_trainer()
except voice_pack.VoicePackMissing as exc:
    print("missing:", exc.french(), "|", exc.detail)
else:
    print("launch:", json.dumps({"argv": launch.argv([]), "path": launch.path,
                                 "weights": str(launch.weights), "source": launch.source}))
"""
# Starts the trainer as the app does (command line and environment from
# find_trainer) and waits for it; prints its outcome. Its stderr goes to a file,
# not a pipe: under Wine the first process that loads user32 (torch does) starts
# explorer.exe, which inherits the pipe and keeps it open after the trainer has
# exited (the app's window has started it long before, and Windows never does).
ADAPT = """
import json, os, subprocess, sys, time
from therapy_app import voice_pack
launch = voice_pack.find_trainer()
args = ["adapt", "--manifest", sys.argv[1], "--work", sys.argv[2], "--weights",
        str(launch.weights), "--max-steps", "1", "--threads", "2", "--precision", "fp32"]
log = os.path.join(os.path.dirname(sys.argv[1]), "trainer.log")
start = time.monotonic()
with open(log, "wb") as err:
    code = subprocess.run(launch.argv(args), env=launch.env(), stdin=subprocess.DEVNULL,
                          stdout=subprocess.DEVNULL, stderr=err, timeout=1500).returncode
with open(log, encoding="utf-8") as err:  # strict: the progress lines must be UTF-8
    text = err.read()
print(json.dumps({"returncode": code, "seconds": time.monotonic() - start, "stderr": text[-6000:]}))
"""
# Wine 8 lacks GetNumaNodeProcessorMaskEx, which torch's Intel OpenMP runtime calls
# to place its threads (it aborts: "OMP: Error #179"); Windows has it since Windows 7.
WINE_OMP = {"KMP_AFFINITY": "disabled"}


@pytest.fixture(scope="class")
def wine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The voice pack and the main setup, with a Wine prefix of its own."""
    voice = VOICE_PACK_EXE.require()
    setup = SETUP_EXE.require()
    import test_installer_windows as win

    # Its timings beside the main tests' timings.txt.
    with win.wine_prefix(tmp_path_factory.mktemp("wine"), "voice-timings.txt") as prefix:
        prefix.voice = voice
        prefix.setup = setup
        yield prefix


@pytest.mark.installer
class TestWindowsVoicePack:
    """The voice pack installed under Wine over the main setup (tests/test_installer_windows.py)."""

    VOICE_DIR = r"C:\Program Files\TherapyApp\voice"
    VOICE_KEY = r"HKLM\Software\Microsoft\Windows\CurrentVersion\Uninstall\TherapyApp-Voice"
    MAIN_KEY = r"HKLM\Software\Microsoft\Windows\CurrentVersion\Uninstall\TherapyApp"

    def _probe(self, wine: Any) -> str:
        proc = wine.run(wine.python, "-c", PROBE, timeout=300)
        assert proc.returncode == 0, proc.stderr[-3000:]
        return proc.stdout

    def test_1_refuses_without_the_app(self, wine: Any) -> None:
        proc = wine.run(str(wine.voice), "/S", timeout=300)
        wine.wait()
        assert proc.returncode == 4, proc.returncode
        assert not wine.unix(self.VOICE_DIR).exists()

    def test_2_without_the_pack_the_app_says_so(self, wine: Any) -> None:
        assert wine.install(wine.setup).returncode == 0
        out = self._probe(wine)
        assert "pack: absent" in out
        assert "missing: Pack voix non installé. Installez le module « TherapyApp-Voice-" in out

    def test_3_installs_beside_the_app(self, wine: Any) -> None:
        proc = wine.run_setup(wine.voice, "voice_pack_install_s", timeout=1800)
        assert proc.returncode == 0, proc.stderr[-2000:]
        voice = wine.unix(self.VOICE_DIR)
        for rel in ("voice-pack.json", "THIRD_PARTY_LICENSES.txt", "uninstall-voice.exe",
                    "lib/py3.13/torch/lib/torch_cpu.dll",
                    "lib/py3.13/torch/lib/msvcp140_atomic_wait.dll",
                    "app/therapy_voice/__main__.py",
                    "models/whisper-base-train/model.bin"):  # fmt: skip
            assert (voice / rel).is_file(), rel
        assert list((voice / "lib/py3.13/torch/__pycache__").glob("*.cpython-313.pyc"))
        entry = wine.run("reg", "query", self.VOICE_KEY).stdout
        assert "DisplayName" in entry and "uninstall-voice.exe" in entry, entry
        wine.timings["voice_pack_MiB"] = wine.voice.stat().st_size / 2**20
        wine.timings["voice_pack_installed_MiB"] = (
            sum(p.stat().st_size for p in voice.rglob("*") if p.is_file()) / 2**20
        )
        out = self._probe(wine)
        assert "pack: " + self.VOICE_DIR + " (version " in out and "torch 2.13.0 cpu" in out, out
        assert '"source": "pack"' in out, out

    def test_4_trains_with_the_installed_torch(self, wine: Any, tmp_path: Path) -> None:
        folder = wine.unix(r"C:\voice-test")
        folder.mkdir(exist_ok=True)
        for clip in CLIPS:
            shutil.copy2(ROOT / "tests" / "data" / "human" / f"{clip}.wav", folder / f"{clip}.wav")
        manifest = _adapt_manifest(folder, {c: rf"C:\voice-test\{c}.wav" for c in CLIPS})
        (folder / "manifest.json").write_text(json.dumps(manifest))
        proc = wine.run(wine.python, "-c", ADAPT, r"C:\voice-test\manifest.json",
                        r"C:\voice-test\work", timeout=1800, extra_env=WINE_OMP)  # fmt: skip
        assert proc.returncode == 0, proc.stderr[-3000:]
        outcome = json.loads(proc.stdout.strip().splitlines()[-1])
        wine.timings["voice_adapt_1_step_s"] = outcome["seconds"]
        artifacts = ROOT / "build" / "windows" / "test-artifacts"
        artifacts.mkdir(parents=True, exist_ok=True)
        (artifacts / "voice_adapt.txt").write_text(outcome["stderr"])
        assert outcome["returncode"] == 0, outcome["stderr"]
        assert (folder / "work" / "adapter.npz").is_file()
        assert '"message": "Apprentissage terminé"' in outcome["stderr"], outcome["stderr"]
        train = json.loads((folder / "work" / "train.json").read_text())
        assert train["complete"] and train["loss"]["after"] < train["loss"]["before"], train

    def test_5_refuses_another_app_version(self, wine: Any) -> None:
        wine.run("reg", "add", self.MAIN_KEY, "/v", "DisplayVersion", "/d", "0.0.9", "/f")
        try:
            proc = wine.run(str(wine.voice), "/S", timeout=300)
            wine.wait()
            assert proc.returncode == 5, proc.returncode
        finally:
            version = therapy_app.__version__
            wine.run("reg", "add", self.MAIN_KEY, "/v", "DisplayVersion", "/d", version, "/f")
        assert (wine.unix(self.VOICE_DIR) / "voice-pack.json").is_file()  # left as it was

    def test_6_kept_by_an_upgrade_of_the_app(self, wine: Any) -> None:
        assert wine.install(wine.setup).returncode == 0
        assert '"source": "pack"' in self._probe(wine)

    def test_7_uninstall_leaves_the_app_working(self, wine: Any) -> None:
        proc = wine.run(self.VOICE_DIR + r"\uninstall-voice.exe", "/S", timeout=900)
        wine.wait()
        assert proc.returncode == 0, proc.stderr[-2000:]
        assert not wine.unix(self.VOICE_DIR).exists()
        assert "DisplayName" not in wine.run("reg", "query", self.VOICE_KEY).stdout
        assert "missing: Pack voix non installé." in self._probe(wine)
        loop = wine.run(wine.python, "-m", "therapy_app.cli", "loop", "--demo", "--no-play")
        assert loop.returncode == 0 and "boulangerie" in loop.stdout.lower(), loop.stderr[-2000:]

    def test_8_the_app_uninstaller_removes_the_pack(self, wine: Any) -> None:
        assert wine.run(str(wine.voice), "/S", timeout=1800).returncode == 0
        wine.wait()
        assert wine.uninstall().returncode == 0
        assert not wine.unix(r"C:\Program Files\TherapyApp").exists()
        assert "DisplayName" not in wine.run("reg", "query", self.VOICE_KEY).stdout


@pytest.fixture(scope="class")
def chroot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """Both packages in a clean Debian 12 chroot of its own."""
    import test_installer_deb as deb

    require_tools(deb.TOOLS, root=True)
    voice = VOICE_DEB.require()
    main = APP_DEB.require()
    base = tmp_path_factory.mktemp("bookworm")
    with deb.debian_chroot("bookworm", base, [main, voice], "voice-timings-bookworm.txt") as system:
        system.voice = voice
        system.main = main
        yield system


@pytest.mark.installer
class TestDebianVoicePackage:
    """therapy-app and therapy-app-voice installed by apt in a clean Debian 12 chroot."""

    @staticmethod
    def _as_app(chroot: Any, script: str, *args: str, timeout: int = 600) -> str:
        """Run ``script`` as the installed app runs (python3 -I, its folder first), as the user."""
        (chroot.host(Path("/tmp/script.py"))).write_text(script)
        boot = (f"import sys; sys.path.insert(0, {str(chroot.lib)!r}); "
                "exec(compile(open('/tmp/script.py').read(), 'script', 'exec'))")  # fmt: skip
        code, out, err = chroot.app_run("python3", "-I", "-c", boot, *args, timeout=timeout)
        assert code == 0, err[-3000:]
        return out

    def _probe(self, chroot: Any) -> str:
        return self._as_app(chroot, PROBE)

    def test_1_voice_needs_the_app_of_the_same_version(self, chroot: Any) -> None:
        assert chroot.run("apt-get", "update", "-q").returncode == 0
        info = subprocess.run(["dpkg-deb", "-f", str(chroot.voice), "Depends"],
                              capture_output=True, text=True, check=True).stdout  # fmt: skip
        assert f"therapy-app (= {therapy_app.__version__})" in info, info
        # Only the pythons it has torch for (apt refuses it on another python3).
        locks = DEB.glob("requirements-voice-linux-py3.*.txt")
        pythons = sorted(int(lock.stem.rsplit(".", 1)[1]) for lock in locks)
        assert f"python3 (>= 3.{pythons[0]}), python3 (<< 3.{pythons[-1] + 1})" in info, info
        # dpkg alone refuses it without therapy-app.
        proc = chroot.run("dpkg", "-i", f"/tmp/{chroot.voice.name}")
        assert proc.returncode != 0 and "therapy-app" in proc.stderr, proc.stderr
        chroot.run("dpkg", "--remove", "therapy-app-voice")

    def test_2_apt_installs_both(self, chroot: Any) -> None:
        start = time.monotonic()
        debs = (f"/tmp/{chroot.main.name}", f"/tmp/{chroot.voice.name}")
        proc = chroot.run("apt-get", "install", "-y", "-q", "--no-install-recommends", *debs,
                          timeout=2400)  # fmt: skip
        chroot.timings["apt_install_with_voice_s"] = time.monotonic() - start
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
        voice = chroot.host(Path("/opt/therapy-app/voice"))
        assert (voice / "voice-pack.json").is_file()
        assert list((voice / "lib/py3.11/torch/__pycache__").glob("*.cpython-311.pyc"))
        sidecar = voice / "models/whisper-base-train/model.json"
        assert sidecar.stat().st_mode & 0o004, "readable by the clinic user"

    def test_3_the_app_finds_the_pack(self, chroot: Any) -> None:
        out = self._probe(chroot)
        assert "pack: /opt/therapy-app/voice (version " in out, out
        assert '"source": "pack"' in out and '"-I"' in out, out

    def test_4_trains_as_the_clinic_user(self, chroot: Any) -> None:
        work = chroot.host(Path("/tmp/voice-test"))
        work.mkdir()
        for clip in CLIPS:
            shutil.copy2(ROOT / "tests" / "data" / "human" / f"{clip}.wav", work / f"{clip}.wav")
        manifest = _adapt_manifest(work, {c: f"/tmp/voice-test/{c}.wav" for c in CLIPS})
        (work / "manifest.json").write_text(json.dumps(manifest))
        os.chmod(work, 0o777)
        out = self._as_app(chroot, ADAPT, "/tmp/voice-test/manifest.json", "/tmp/voice-test/work",
                           timeout=1800)  # fmt: skip
        outcome = json.loads(out.strip().splitlines()[-1])
        chroot.timings["voice_adapt_1_step_s"] = outcome["seconds"]
        assert outcome["returncode"] == 0, outcome["stderr"]
        assert (work / "work" / "adapter.npz").is_file()
        assert '"message": "Apprentissage terminé"' in outcome["stderr"], outcome["stderr"]

    def test_5_removing_the_voice_package_leaves_the_app(self, chroot: Any) -> None:
        proc = chroot.run("apt-get", "remove", "-y", "-q", "therapy-app-voice")
        assert proc.returncode == 0, proc.stderr[-2000:]
        assert not chroot.host(Path("/opt/therapy-app/voice")).exists()
        out = self._probe(chroot)
        assert "missing: Pack voix non installé. Installez le paquet therapy-app-voice" in out
        code, out, err = chroot.app_run("therapy-app", "loop", "--demo", "--no-play")
        assert code == 0 and "boulangerie" in out.lower(), err[-2000:]
