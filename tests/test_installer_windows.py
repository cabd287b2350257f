"""Installs the Windows setup program under Wine and runs the installed app (issue 9).

Run after ``installer/windows/build.sh``::

    bash scripts/test.sh -m installer tests/test_installer_windows.py -v

Needs Debian ``wine`` + ``wine64``, ``xvfb``, ``x11-utils`` (xwininfo),
``imagemagick`` (screenshot) and ``gcc-mingw-w64-x86-64`` (Wine shims), all
installed by ``bash scripts/installer_tools.sh``; without them, or without a
built setup, every test skips and says what is missing. Every
Windows process runs in a network namespace with no interface (``unshare -n``),
so the installed app is shown to work with no network at all.

Wine 8.0 (Debian 12) lacks four things a real Windows 10/11 has; the test puts
stand-ins into its own throw-away prefix, never into the installer:
``installer/windows/wine/`` builds ucrtbase complex-math functions (numpy),
an ``icuuc.dll`` stub (Qt6Core), an ``mscms.dll`` stub (Qt's Windows
platform plugin) and ``bcryptprimitives.dll`` (Rust's ProcessPrng:
tokenizers); ``propsys`` is disabled so that Python's ``platform`` module
falls back from WMI. What Wine cannot show is listed in the README.

The GPU pack tests take ``dist/TherapyApp-GPU-*.exe`` (``installer/windows/build.sh
--gpu-pack``) and skip, saying so, when it was not built: the pack is installed
over the app, checked (files, uninstall entry, ``doctor``, the CUDA provider
loading its DLLs from the pack until it stops at the missing NVIDIA driver, the
demo loop on CPU), uninstalled, kept by an upgrade of the app and removed with
it; it must refuse to install without the app. Wine has no NVIDIA driver: the
CUDA path itself needs a real PC.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from installer_fixtures import GPU_PACK_EXE, SETUP_EXE, require_tools

pytestmark = pytest.mark.installer

ROOT = Path(__file__).resolve().parent.parent
WINE_DIR = ROOT / "installer" / "windows" / "wine"
# installer/windows/build.sh's work folder (THERAPY_WIN_BUILD_DIR, default build/windows).
WORK_DIR = Path(os.environ.get("THERAPY_WIN_BUILD_DIR") or ROOT / "build" / "windows")
ARTIFACTS = WORK_DIR / "test-artifacts"
WINDOW_TITLE = "Orthophonie"
INSTALL_DIR_WIN = r"C:\Program Files\TherapyApp"
UNINSTALL_KEY = r"HKLM\Software\Microsoft\Windows\CurrentVersion\Uninstall\TherapyApp"
GPU_UNINSTALL_KEY = UNINSTALL_KEY + "-GPU"
GPU_DIR_WIN = INSTALL_DIR_WIN + r"\gpu"
EXIT_APP_NOT_INSTALLED = 4  # therapy_app_gpu.nsi
WINE_OVERRIDES = "ucrtbase=n,b;mscms=n;propsys=d"
TOOLS = ("wine", "wineserver", "Xvfb", "xwininfo", "x86_64-w64-mingw32-gcc", "unshare")


def _unshare_works() -> bool:
    try:
        return subprocess.run(["unshare", "-n", "true"], check=False).returncode == 0
    except OSError:
        return False


@dataclass
class WinePrefix:
    """A throw-away Wine prefix with a virtual screen, every process offline."""

    path: Path
    display: str
    timings: dict[str, float] = field(default_factory=dict)
    # Whether the GPU pack was installed when the app was last uninstalled.
    gpu_pack_at_uninstall: bool = False

    @property
    def env(self) -> dict[str, str]:
        env = dict(os.environ)
        env.update(
            WINEPREFIX=str(self.path),
            WINEDEBUG="-all",
            WINEDLLOVERRIDES=WINE_OVERRIDES,
            DISPLAY=self.display,
        )
        env.pop("THERAPY_APP_DATA_DIR", None)  # the installed app uses its real folder
        env.pop("THERAPY_APP_MODELS_DIR", None)
        return env

    def run(
        self, *args: str, timeout: float = 300, extra_env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        """Run a Windows program offline; output decoded leniently (ANSI code page)."""
        env = self.env | (extra_env or {})
        proc = subprocess.run(
            ["unshare", "-n", "nice", "-n", "15", "wine", *args],
            env=env,
            stdin=subprocess.DEVNULL,  # Wine's Python cannot start on some inherited stdin
            capture_output=True,  # nor with a plain file as stdout: pipes only
            timeout=timeout,
            check=False,
        )
        out = proc.stdout.decode("utf-8", errors="replace")
        err = proc.stderr.decode("utf-8", errors="replace")
        return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)

    def wait(self) -> None:
        """Wait until every process of the prefix has exited (the uninstaller re-spawns)."""
        subprocess.run(["wineserver", "-w"], env=self.env, timeout=300, check=False)

    def unix(self, windows_path: str) -> Path:
        """The Linux path of a ``C:\\...`` path."""
        assert windows_path[:3].upper() == "C:\\"
        return self.path / "drive_c" / windows_path[3:].replace("\\", "/")

    @property
    def python(self) -> str:
        return INSTALL_DIR_WIN + r"\python\python.exe"

    def data_dirs(self) -> list[Path]:
        """``%LOCALAPPDATA%\\therapy_app`` of every Wine user."""
        return sorted((self.path / "drive_c" / "users").glob("*/AppData/Local/therapy_app"))

    def run_setup(
        self, exe: Path, timing: str, timeout: float = 900
    ) -> subprocess.CompletedProcess[str]:
        """Run a setup program silently and wait for it; the first run's seconds go to timings."""
        start = time.monotonic()
        proc = self.run(str(exe), "/S", timeout=timeout)
        self.wait()
        self.timings.setdefault(timing, time.monotonic() - start)
        return proc

    def install(self, setup: Path) -> subprocess.CompletedProcess[str]:
        return self.run_setup(setup, "install_s")

    def uninstall(self, *flags: str) -> subprocess.CompletedProcess[str]:
        self.gpu_pack_at_uninstall = (self.unix(GPU_DIR_WIN) / "gpu-pack.json").is_file()
        proc = self.run(INSTALL_DIR_WIN + r"\uninstall.exe", "/S", *flags, timeout=600)
        self.wait()
        return proc

    def install_gpu_pack(self, pack: Path) -> subprocess.CompletedProcess[str]:
        return self.run_setup(pack, "gpu_pack_install_s")

    def uninstall_gpu_pack(self) -> subprocess.CompletedProcess[str]:
        proc = self.run(GPU_DIR_WIN + r"\uninstall-gpu.exe", "/S", timeout=600)
        self.wait()
        return proc


@pytest.fixture(scope="module")
def setup_exe() -> Path:
    return SETUP_EXE.require()


@pytest.fixture(scope="module")
def gpu_pack_exe() -> Path:
    return GPU_PACK_EXE.require()


@contextmanager
def wine_prefix(base: Path, timings_name: str = "timings.txt") -> Iterator[WinePrefix]:
    """A fresh Wine prefix in ``base`` with its virtual screen, shut down on exit.

    Skips the test when a tool is missing or ``unshare -n`` is not permitted.
    The prefix's timings are written to ``ARTIFACTS / timings_name`` at the end.
    """
    require_tools(TOOLS)
    if not _unshare_works():
        pytest.skip("unshare -n is not permitted here (needs root or user namespaces)")
    display = f":{90 + os.getpid() % 400}"
    xvfb = subprocess.Popen(
        ["Xvfb", display, "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    wine = WinePrefix(base / "prefix", display)
    try:
        # The first boot runs wine.inf: no stand-in DLLs yet (mscms=n would crash
        # it), no display, and no Mono/Gecko installers (they would download).
        wine.run(
            "wineboot",
            "--init",
            timeout=300,
            extra_env={"WINEDLLOVERRIDES": "mscoree,mshtml=", "DISPLAY": ""},
        )
        wine.wait()
        wine.run("winecfg", "/v", "win10")  # Python 3.13 needs Windows 8.1 or later
        shims = base / "shims"
        subprocess.run([str(WINE_DIR / "build_wine_shims.sh"), str(shims)], check=True, timeout=300)
        for dll in shims.glob("*.dll"):
            shutil.copy2(dll, wine.path / "drive_c" / "windows" / "system32" / dll.name)
        yield wine
    finally:
        subprocess.run(["wineserver", "-k"], env=wine.env, check=False)
        xvfb.terminate()
        xvfb.wait(timeout=30)
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        lines = [f"{k} = {v:.1f}" for k, v in sorted(wine.timings.items())]
        (ARTIFACTS / timings_name).write_text("\n".join(lines) + "\n")


@pytest.fixture(scope="module")
def prefix(tmp_path_factory: pytest.TempPathFactory, setup_exe: Path) -> Iterator[WinePrefix]:
    with wine_prefix(tmp_path_factory.mktemp("wine")) as wine:
        yield wine


def _reg_query(wine: WinePrefix, key: str) -> str:
    return wine.run("reg", "query", key).stdout


def test_silent_install_puts_files_shortcuts_and_uninstall_entry(
    prefix: WinePrefix, setup_exe: Path
) -> None:
    proc = prefix.install(setup_exe)
    assert proc.returncode == 0, proc.stderr[-2000:]
    root = prefix.unix(INSTALL_DIR_WIN)
    for name in (
        "python/pythonw.exe",
        "python/python313._pth",
        "uninstall.exe",
        "THIRD_PARTY_LICENSES.txt",
        "therapy-app.cmd",
    ):
        assert (root / name).is_file(), name
    site = root / "python" / "Lib" / "site-packages"
    for model in ("whisper-base", "silero-vad"):
        assert (site / "therapy_app" / "_models" / model / "model.json").is_file()
    assert list(site.glob("therapy_app/__pycache__/*.cpython-313.pyc")), "compileall did not run"
    programs = prefix.unix(r"C:\ProgramData\Microsoft\Windows\Start Menu\Programs")
    assert (programs / "Orthophonie.lnk").is_file()
    assert prefix.unix(r"C:\users\Public\Desktop\Orthophonie.lnk").is_file()
    entry = _reg_query(prefix, UNINSTALL_KEY)
    assert "DisplayName" in entry and "QuietUninstallString" in entry, entry
    size_mb = sum(p.stat().st_size for p in root.rglob("*") if p.is_file()) / 2**20
    prefix.timings["installed_MiB"] = size_mb
    prefix.timings["setup_MiB"] = setup_exe.stat().st_size / 2**20


def test_doctor_finds_models_and_voice(prefix: WinePrefix) -> None:
    proc = prefix.run(prefix.python, "-m", "therapy_app.cli", "doctor", "--no-hash")
    report = proc.stdout
    (ARTIFACTS).mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / "doctor.txt").write_text(report + "\n--- stderr\n" + proc.stderr)
    for needed in (
        "ok  model whisper-base",
        "ok  model silero-vad",
        "ok  onnxruntime",
        "ok  voice: SVOX Pico fr-FR",
    ):
        assert needed in report, report
    # No sound card under Wine: audio is reported, not required.
    assert proc.returncode == 0, report


def test_demo_loop_recognises_corrects_and_speaks(prefix: WinePrefix) -> None:
    start = time.monotonic()
    proc = prefix.run(prefix.python, "-m", "therapy_app.cli", "loop", "--demo", "--no-play")
    prefix.timings["demo_loop_s"] = time.monotonic() - start
    (ARTIFACTS / "loop.txt").write_text(proc.stdout + "\n--- stderr\n" + proc.stderr)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "[1] fichier" in proc.stdout
    assert "boulangerie" in proc.stdout.lower(), proc.stdout


def _window_ids(wine: WinePrefix) -> list[str]:
    tree = subprocess.run(
        ["xwininfo", "-root", "-tree"],
        env=wine.env,
        capture_output=True,
        text=True,
        errors="replace",
        check=False,
    ).stdout
    return [line.split()[0] for line in tree.splitlines() if f'"{WINDOW_TITLE}' in line]


def test_gui_opens_a_window_under_xvfb(prefix: WinePrefix) -> None:
    """The Start-menu command (pythonw, no console) opens the main window."""
    pythonw = INSTALL_DIR_WIN + r"\python\pythonw.exe"
    start = time.monotonic()
    app = subprocess.Popen(
        ["unshare", "-n", "nice", "-n", "15", "wine", pythonw, "-m", "therapy_app.gui.app"],
        env=prefix.env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = start + 180
        while not _window_ids(prefix):
            assert app.poll() is None, f"the app exited with {app.returncode}"
            assert time.monotonic() < deadline, "no window after 180 s"
            time.sleep(0.2)
        prefix.timings["launch_to_window_s"] = time.monotonic() - start
        time.sleep(5)  # engines load in the background; the app must stay up
        assert app.poll() is None, f"the app exited with {app.returncode}"
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        if shutil.which("import"):
            subprocess.run(
                ["import", "-window", "root", str(ARTIFACTS / "gui_wine.png")],
                env=prefix.env,
                check=False,
                timeout=60,
            )
    finally:
        prefix.run("taskkill", "/F", "/IM", "pythonw.exe", timeout=60)
        app.wait(timeout=60)
        prefix.wait()
    assert prefix.data_dirs(), "the app created no data folder in %LOCALAPPDATA%"


def test_gui_starts_offscreen(prefix: WinePrefix) -> None:
    """Qt's offscreen platform: the app builds its window and quits on a timer."""
    script = (
        "import sys\n"
        "from PySide6.QtCore import QTimer\n"
        "from therapy_app.gui import app\n"
        "qt = app.create_application([sys.argv[0]])\n"
        "QTimer.singleShot(4000, qt.quit)\n"
        "sys.exit(app.main([]))\n"
    )
    proc = prefix.run(
        prefix.python, "-c", script, extra_env={"QT_QPA_PLATFORM": "offscreen"}, timeout=300
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]


# The CUDA provider of the bundled onnxruntime, asked for directly with the pack's
# DLLs loaded as the app loads them: under Wine it must get past loading its DLLs
# and stop only at the missing NVIDIA driver, then run on CPU.
CUDA_PROBE = """
import sys
from pathlib import Path
from therapy_app import gpu_pack, inference, paths
ort = inference.onnxruntime_module()
pack = gpu_pack.find(ort.cuda_version)
print("pack:", pack.describe() if pack else "absent")
if pack is not None and pack.usable:
    print("problems:", gpu_pack.activate(pack, ort.preload_dlls))
model = paths.installed_models_dir() / "silero-vad" / "silero_vad.onnx"
options = ort.SessionOptions()
options.log_severity_level = 2
session = ort.InferenceSession(str(model), options, providers=[inference.CUDA, inference.CPU])
print("providers:", session.get_providers())
"""
DLL_NOT_FOUND = "error 126"  # onnxruntime: a DLL "which is missing. (Error 126: ...)"


def _cuda_probe(wine: WinePrefix, name: str) -> str:
    """Everything the probe printed; onnxruntime logs in UTF-16 on Windows."""
    proc = wine.run(wine.python, "-c", CUDA_PROBE, timeout=600)
    text = (proc.stdout + "\n--- stderr\n" + proc.stderr).replace("\x00", "")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / f"{name}.txt").write_text(text)
    assert proc.returncode == 0, text[-3000:]
    assert "providers: ['CPUExecutionProvider']" in proc.stdout, text[-3000:]
    return text


def _require_gpu_pack(prefix: WinePrefix) -> None:
    """The pack installed by ``test_gpu_pack_installs_beside_the_app``: no test runs without it."""
    assert (prefix.unix(GPU_DIR_WIN) / "gpu-pack.json").is_file(), "the GPU pack is not installed"


def test_without_the_gpu_pack_the_cuda_provider_cannot_load(
    prefix: WinePrefix, gpu_pack_exe: Path
) -> None:
    text = _cuda_probe(prefix, "cuda_probe_without_pack")
    assert "pack: absent" in text
    # cuBLAS is missing: the provider DLL itself does not load (the contrast
    # with the test below, where only the driver is missing).
    assert DLL_NOT_FOUND in text.lower() and "cublasLt64_13.dll" in text, text[-3000:]


def test_gpu_pack_installs_beside_the_app(prefix: WinePrefix, gpu_pack_exe: Path) -> None:
    proc = prefix.install_gpu_pack(gpu_pack_exe)
    assert proc.returncode == 0, proc.stderr[-2000:]
    gpu = prefix.unix(GPU_DIR_WIN)
    for name in ("gpu-pack.json", "THIRD_PARTY_LICENSES.txt", "uninstall-gpu.exe"):
        assert (gpu / name).is_file(), name
    dlls = {p.name for p in (gpu / "bin").iterdir()}
    needed = {"cublasLt64_13.dll", "cublas64_13.dll", "cudart64_13.dll", "cudnn64_9.dll",
              "cudnn_graph64_9.dll", "nvrtc64_130_0.dll", "msvcp140_atomic_wait.dll"}  # fmt: skip
    assert needed <= dlls, needed - dlls
    assert not [p for p in (gpu / "bin").iterdir() if p.suffix.lower() != ".dll"]
    assert "NVIDIA" in (gpu / "THIRD_PARTY_LICENSES.txt").read_text(encoding="utf-8")
    entry = _reg_query(prefix, GPU_UNINSTALL_KEY)
    assert "DisplayName" in entry and "uninstall-gpu.exe" in entry, entry
    prefix.timings["gpu_pack_MiB"] = gpu_pack_exe.stat().st_size / 2**20
    prefix.timings["gpu_pack_installed_MiB"] = (
        sum(p.stat().st_size for p in gpu.rglob("*") if p.is_file()) / 2**20
    )


def test_doctor_reports_the_gpu_pack_and_falls_back_to_cpu(
    prefix: WinePrefix, gpu_pack_exe: Path
) -> None:
    _require_gpu_pack(prefix)
    proc = prefix.run(prefix.python, "-m", "therapy_app.cli", "doctor", "--no-hash")
    report = proc.stdout
    (ARTIFACTS / "doctor_gpu_pack.txt").write_text(report + "\n--- stderr\n" + proc.stderr)
    assert proc.returncode == 0, report
    assert "ok  gpu pack: " + GPU_DIR_WIN + " (version " in report, report
    assert "CUDA 13, cuDNN 9" in report, report
    # Wine has no NVIDIA driver: said plainly, and everything runs on CPU.
    assert "--  cuda: not used, running on CPU: no NVIDIA driver found (nvcuda.dll" in report
    assert "ok  asr provider: cpu" in report, report


def test_cuda_provider_loads_its_dlls_from_the_gpu_pack(
    prefix: WinePrefix, gpu_pack_exe: Path
) -> None:
    _require_gpu_pack(prefix)
    text = _cuda_probe(prefix, "cuda_probe_with_pack")
    assert "(version " in text and "problems: []" in text, text[-3000:]
    # Every DLL of the provider loaded: it got as far as asking for the GPU,
    # which fails without an NVIDIA driver (CUDA error 801 under Wine).
    assert DLL_NOT_FOUND not in text.lower(), text[-3000:]
    assert "cudaSetDevice" in text, text[-3000:]


def test_demo_loop_runs_with_the_gpu_pack(prefix: WinePrefix, gpu_pack_exe: Path) -> None:
    _require_gpu_pack(prefix)
    proc = prefix.run(prefix.python, "-m", "therapy_app.cli", "loop", "--demo", "--no-play")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "boulangerie" in proc.stdout.lower(), proc.stdout


def test_uninstalling_the_gpu_pack_leaves_the_app_working(
    prefix: WinePrefix, gpu_pack_exe: Path
) -> None:
    _require_gpu_pack(prefix)
    proc = prefix.uninstall_gpu_pack()
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert not prefix.unix(GPU_DIR_WIN).exists()
    assert "DisplayName" not in _reg_query(prefix, GPU_UNINSTALL_KEY)
    assert "DisplayName" in _reg_query(prefix, UNINSTALL_KEY)
    doctor = prefix.run(prefix.python, "-m", "therapy_app.cli", "doctor", "--no-hash")
    assert doctor.returncode == 0, doctor.stdout
    assert "--  gpu pack: absent" in doctor.stdout, doctor.stdout
    loop = prefix.run(prefix.python, "-m", "therapy_app.cli", "loop", "--demo", "--no-play")
    assert loop.returncode == 0, loop.stderr[-3000:]
    assert "boulangerie" in loop.stdout.lower(), loop.stdout


def test_an_upgrade_of_the_app_keeps_the_gpu_pack(
    prefix: WinePrefix, setup_exe: Path, gpu_pack_exe: Path
) -> None:
    assert prefix.install_gpu_pack(gpu_pack_exe).returncode == 0
    _require_gpu_pack(prefix)
    proc = prefix.install(setup_exe)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert prefix.unix(GPU_DIR_WIN + r"\gpu-pack.json").is_file()
    assert "DisplayName" in _reg_query(prefix, GPU_UNINSTALL_KEY)


def test_install_over_existing_keeps_patient_data(prefix: WinePrefix, setup_exe: Path) -> None:
    (data,) = prefix.data_dirs()
    marker = data / "kept-by-installer-test.txt"
    marker.write_text("données du patient")
    before = {p.name for p in data.iterdir()}
    proc = prefix.install(setup_exe)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert marker.read_text() == "données du patient"
    assert before <= {p.name for p in data.iterdir()}
    assert not prefix.unix(INSTALL_DIR_WIN + r"\python.old").exists()


def test_silent_uninstall_keeps_patient_data(prefix: WinePrefix) -> None:
    (data,) = prefix.data_dirs()
    files_before = sorted(p.relative_to(data) for p in data.rglob("*"))
    proc = prefix.uninstall()
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert not prefix.unix(INSTALL_DIR_WIN).exists()
    assert not prefix.unix(r"C:\users\Public\Desktop\Orthophonie.lnk").exists()
    assert "DisplayName" not in _reg_query(prefix, UNINSTALL_KEY)
    assert sorted(p.relative_to(data) for p in data.rglob("*")) == files_before


def test_the_app_uninstaller_removes_the_gpu_pack(prefix: WinePrefix, gpu_pack_exe: Path) -> None:
    assert prefix.gpu_pack_at_uninstall, "the GPU pack was not there when the app was uninstalled"
    assert not prefix.unix(GPU_DIR_WIN).exists()
    assert "DisplayName" not in _reg_query(prefix, GPU_UNINSTALL_KEY)


def test_uninstall_with_purge_deletes_patient_data(prefix: WinePrefix, setup_exe: Path) -> None:
    assert prefix.install(setup_exe).returncode == 0
    assert prefix.data_dirs()
    proc = prefix.uninstall("/PURGE")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert not prefix.unix(INSTALL_DIR_WIN).exists()
    assert prefix.data_dirs() == []


def test_gpu_pack_refuses_when_the_app_is_not_installed(
    prefix: WinePrefix, gpu_pack_exe: Path
) -> None:
    assert not prefix.unix(INSTALL_DIR_WIN).exists()
    proc = prefix.run(str(gpu_pack_exe), "/S", timeout=300)
    prefix.wait()
    assert proc.returncode == EXIT_APP_NOT_INSTALLED, proc.returncode
    assert not prefix.unix(GPU_DIR_WIN).exists()
    assert "DisplayName" not in _reg_query(prefix, GPU_UNINSTALL_KEY)
