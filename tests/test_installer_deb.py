"""Installs the .deb in clean Debian 12 and 13 chroots and runs the installed app (issue 9).

Every test runs once in a ``bookworm`` chroot (python3 3.11) and once in a
``trixie`` one (python3 3.13): the one package serves both with the folder of
bundled packages that matches the distribution's python3. Run after
``installer/deb/build.sh``, as root::

    bash scripts/test.sh -m installer tests/test_installer_deb.py -v

Needs Debian ``debootstrap`` (the base systems are cached in ``build/deb/``),
``xvfb``, ``x11-utils`` (xwininfo) and ``imagemagick`` (screenshot), all installed
by ``bash scripts/installer_tools.sh``; without them, without root or without a
built package, every test skips and says what is missing. apt inside
the chroot reaches the Debian mirror to install the package's dependencies;
every run of the installed app happens in a network namespace with no
interface (``unshare -n``), so the app is shown to need no network at all.
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
from installer_fixtures import APP_DEB, require_tools

pytestmark = pytest.mark.installer

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / "build" / "deb"
ARTIFACTS = WORK / "test-artifacts"
USER = "clinique"
DATA = Path("home") / USER / ".local" / "share" / "therapy_app"
PREFIX = Path("/opt/therapy-app")
# The distributions tested, with their python3; the package bundles all three.
SUITES = {"bookworm": "3.11", "trixie": "3.13"}
BUNDLED_PYTHONS = ("3.11", "3.12", "3.13")
WINDOW_TITLE = "Orthophonie"
TOOLS = ("debootstrap", "chroot", "unshare", "mount", "Xvfb", "xwininfo")


@dataclass
class Chroot:
    """A throw-away Debian system with the package's dependencies reachable by apt."""

    root: Path
    suite: str
    mounts: list[Path] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)

    def run(self, *command: str, timeout: int = 600) -> subprocess.CompletedProcess[str]:
        """As root inside the chroot, with the network (apt)."""
        return subprocess.run(
            ["chroot", str(self.root), *command],
            env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "DEBIAN_FRONTEND": "noninteractive",
                 "LANG": "C.UTF-8"},
            capture_output=True, text=True, errors="replace", timeout=timeout, check=False,
        )  # fmt: skip

    def app(self, *command: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
        """As the clinic user, with no network interface at all."""
        environment = {"PATH": "/usr/bin:/bin", "HOME": f"/home/{USER}", "LANG": "C.UTF-8",
                       "QT_QPA_PLATFORM": "offscreen", **(env or {})}  # fmt: skip
        # chroot resolves --userspec names on the host: give the chroot user's numbers.
        passwd = (self.root / "etc" / "passwd").read_text().splitlines()
        uid, gid = next(line.split(":")[2:4] for line in passwd if line.startswith(USER + ":"))
        chroot = shutil.which("chroot") or "/usr/sbin/chroot"  # not on the user's PATH
        return subprocess.Popen(
            ["unshare", "-n", chroot, f"--userspec={uid}:{gid}", str(self.root), *command],
            env=environment, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            errors="replace",
        )  # fmt: skip

    def app_run(self, *command: str, timeout: int = 600, **kw) -> tuple[int, str, str]:
        proc = self.app(*command, **kw)
        out, err = proc.communicate(timeout=timeout)
        return proc.returncode, out, err

    @property
    def data(self) -> Path:
        return self.root / DATA

    @property
    def python(self) -> str:
        """The distribution's python3 version, e.g. "3.11"."""
        return SUITES[self.suite]

    @property
    def lib(self) -> Path:
        """The bundled packages for this python3, as a path inside the chroot."""
        return PREFIX / "lib" / f"py{self.python}"

    def host(self, path: Path) -> Path:
        """A path inside the chroot, seen from the host."""
        return self.root / path.relative_to("/")


def _base_system(suite: str) -> Path:
    """A cached ``debootstrap --variant=minbase SUITE`` tarball."""
    tarball = WORK / f"{suite}-minbase.tar"
    if not tarball.is_file():
        WORK.mkdir(parents=True, exist_ok=True)
        tmp = tarball.with_suffix(".tmp")
        subprocess.run(
            ["debootstrap", "--variant=minbase", "--make-tarball", str(tmp), suite,
             str(WORK / f"debootstrap-work-{suite}"), "http://deb.debian.org/debian"],
            check=True, capture_output=True, timeout=1800,
        )  # fmt: skip
        tmp.replace(tarball)
    return tarball


@pytest.fixture(scope="module")
def deb() -> Path:
    require_tools(TOOLS, root=True)
    return APP_DEB.require()


@contextmanager
def debian_chroot(suite: str, base: Path, debs: list[Path], timings_name: str) -> Iterator[Chroot]:
    """A clean ``suite`` system in ``base`` with the ``debs`` copied to its /tmp.

    /proc, /dev, /sys and the X socket folder are mounted in it, and unmounted
    on exit; its timings are written to ``ARTIFACTS / timings_name``.
    """
    root = base / "root"
    subprocess.run(
        ["debootstrap", "--variant=minbase", f"--unpack-tarball={_base_system(suite)}", suite,
         str(root), "http://deb.debian.org/debian"],
        check=True, capture_output=True, timeout=1800,
    )  # fmt: skip
    system = Chroot(root, suite)
    try:  # what was mounted is unmounted, also when a later step fails
        for name in ("proc", "dev", "sys"):
            subprocess.run(["mount", "--rbind", f"/{name}", str(root / name)], check=True)
            system.mounts.append(root / name)
        shutil.copy2("/etc/resolv.conf", root / "etc" / "resolv.conf")
        (root / "tmp" / ".X11-unix").mkdir(parents=True, exist_ok=True)
        subprocess.run(["mount", "--bind", "/tmp/.X11-unix", str(root / "tmp" / ".X11-unix")],
                       check=True)  # fmt: skip
        system.mounts.append(root / "tmp" / ".X11-unix")
        assert system.run("useradd", "-m", USER).returncode == 0
        for package in debs:
            shutil.copy2(package, root / "tmp" / package.name)
        yield system
    finally:
        for mount in reversed(system.mounts):
            subprocess.run(["umount", "-R", "-l", str(mount)], check=False)
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        (ARTIFACTS / timings_name).write_text(
            "".join(f"{k}: {v:.1f}\n" for k, v in system.timings.items())
        )


@pytest.fixture(scope="module", params=list(SUITES))
def chroot(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, deb: Path
) -> Iterator[Chroot]:
    suite: str = request.param
    base = tmp_path_factory.mktemp(suite)
    with debian_chroot(suite, base, [deb], f"timings-{suite}.txt") as system:
        yield system


def _install(chroot: Chroot, deb_name: str) -> subprocess.CompletedProcess[str]:
    start = time.monotonic()
    assert chroot.run("apt-get", "update", "-q").returncode == 0
    proc = chroot.run("apt-get", "install", "-y", "-q", "--no-install-recommends",
                      f"/tmp/{deb_name}", timeout=1800)  # fmt: skip
    chroot.timings.setdefault("apt_install_s", time.monotonic() - start)
    return proc


def test_apt_installs_the_package_with_distribution_dependencies_only(chroot, deb):
    proc = _install(chroot, deb.name)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    # The distribution's own python3 (a dependency), whose folder the launchers use.
    version = chroot.run("python3", "--version").stdout
    assert version.startswith(f"Python {chroot.python}."), f"target python: {version}"
    assert chroot.host(chroot.lib / "therapy_app/_models/whisper-base").is_dir()
    assert (chroot.root / "usr/share/applications/therapy-app.desktop").is_file()
    assert (chroot.root / "opt/therapy-app/THIRD_PARTY_LICENSES.txt").stat().st_size > 10_000
    icons = chroot.root / "usr/share/icons/hicolor"
    for size in (16, 48, 256):
        assert (icons / f"{size}x{size}/apps/therapy-app.png").is_file(), size
    # Nothing pip-installed into the system Python: the app's packages stay in /opt.
    assert chroot.run("python3", "-c", "import numpy").returncode != 0


def test_version_folders_store_shared_files_once(chroot):
    lib = chroot.host(PREFIX / "lib")
    assert sorted(p.name for p in lib.iterdir()) == [f"py{v}" for v in BUNDLED_PYTHONS]
    links = [p for p in lib.rglob("*") if p.is_symlink()]
    assert len(links) > 1000, len(links)
    # Relative links that stay inside the package and reach a file.
    for link in links:
        target = os.readlink(link)
        assert not target.startswith("/"), (link, target)
        assert link.resolve().is_relative_to(lib) and link.resolve().is_file(), (link, target)
    # Qt (abi3) and onnxruntime's CUDA provider are stored in the first folder only.
    for rel in (
        "PySide6/Qt/lib/libQt6Core.so.6",
        "onnxruntime/capi/libonnxruntime_providers_cuda.so",
    ):
        assert not (lib / "py3.11" / rel).is_symlink(), rel
        for version in BUNDLED_PYTHONS[1:]:
            assert (lib / f"py{version}" / rel).is_symlink(), (version, rel)
    # postinst compiled the bytecode of this python3's folder.
    tag = "cpython-" + chroot.python.replace(".", "")
    assert list(chroot.host(chroot.lib / "therapy_app" / "__pycache__").glob(f"*.{tag}.pyc"))


def test_python_update_compiles_the_bytecode_again(chroot):
    # A python3.X update, or a distribution upgrade bringing a new python3,
    # changes /usr/lib/python3.X: the package's file trigger compiles again.
    cache = chroot.host(chroot.lib / "therapy_app" / "__pycache__")
    shutil.rmtree(cache)
    stdlib = f"libpython{chroot.python}-stdlib"
    proc = chroot.run("apt-get", "install", "-y", "-q", "--reinstall", stdlib)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "Processing triggers for therapy-app" in proc.stdout, proc.stdout[-3000:]
    tag = "cpython-" + chroot.python.replace(".", "")
    assert list(cache.glob(f"*.{tag}.pyc")), "no bytecode after the trigger"


def test_launchers_name_the_supported_pythons_when_none_fits(chroot):
    # Hide this python3's folder, as if the distribution's python3 were newer.
    folder = chroot.host(chroot.lib)
    hidden = folder.with_name("hidden-for-test")
    folder.rename(hidden)
    try:
        code, out, err = chroot.app_run("therapy-app", "doctor")
        assert code == 1, out + err
        assert f"python3 is {chroot.python}" in err and "Traceback" not in err, err
        others = ", ".join(v for v in BUNDLED_PYTHONS if v != chroot.python)
        assert f"for python {others} only" in err, err
        code, out, err = chroot.app_run("therapy-app-gui")
        assert code == 1 and "ne peut pas démarrer" in err, out + err
        assert f"version {chroot.python}" in err and f"Python {others}." in err, err
    finally:
        hidden.rename(folder)


def _app_libraries(root: Path, lib: Path) -> list[str]:
    """Bundled shared objects the app can load, as paths inside the chroot.

    PySide6's modules are limited to those the app imports, Qt's plugins to the
    platforms, GL integrations and image formats it uses; onnxruntime's CUDA and
    TensorRT providers load only where NVIDIA's libraries are installed (GPU path).
    """
    lib = root / lib.relative_to("/")
    optional = ("libonnxruntime_providers_cuda.so", "libonnxruntime_providers_tensorrt.so")
    found = [p for p in lib.rglob("*.so*") if p.is_file() and "PySide6" not in p.parts
             and p.name not in optional]  # fmt: skip
    qt = lib / "PySide6"
    found += [qt / f"{m}.abi3.so" for m in ("QtCore", "QtGui", "QtWidgets", "QtCharts")]
    plugins = qt / "Qt" / "plugins"
    found += [plugins / "platforms" / n for n in ("libqxcb.so", "libqoffscreen.so")]
    for folder in ("xcbglintegrations", "imageformats"):
        found += (plugins / folder).glob("*.so")
    return sorted("/" + p.relative_to(root).as_posix() for p in found)


def test_bundled_libraries_find_their_system_libraries(chroot):
    # The GUI run below shows one screen; ldd also covers what loads later
    # (Qt Charts in the therapist area, image formats, the corrector's tokenizer).
    libraries = _app_libraries(chroot.root, chroot.lib)
    assert len(libraries) > 30, libraries
    proc = chroot.run("ldd", *libraries)
    missing, current = [], ""
    for line in proc.stdout.splitlines():
        if not line.startswith("\t"):
            current = line.rstrip(":")
        elif "not found" in line:
            missing.append(f"{current}: {line.strip()}")
    assert not missing, "\n".join(missing)


def test_doctor_finds_the_bundled_models_offline(chroot):
    # Started from a folder holding a json.py that fails on import: the
    # launcher's isolated python3 must not put the current folder on sys.path.
    trap = chroot.root / "home" / USER / "piege"
    trap.mkdir()
    (trap / "json.py").write_text("raise SystemExit('json.py du dossier courant importé')\n")
    code, out, err = chroot.app_run("sh", "-c", "cd ~/piege && exec therapy-app doctor")
    assert "ok  model whisper-base" in out and "_models" in out, out + err
    assert "ok  model corrector-fr" in out and "ok  voice: SVOX Pico fr-FR" in out, out + err
    assert "ok  model phone-reader" in out, out + err
    assert "Traceback" not in err, err[-3000:]


def test_demo_loop_recognises_corrects_and_speaks_offline(chroot):
    start = time.monotonic()
    code, out, err = chroot.app_run("therapy-app", "loop", "--demo", "--no-play")
    chroot.timings["demo_loop_s"] = time.monotonic() - start
    assert code == 0, out + err[-3000:]
    assert "boulangerie" in out.lower() and "corrigé" in out, out


def test_fallback_voice_espeak_ng_speaks_offline(chroot):
    code, out, err = chroot.app_run("therapy-app", "speak", "Bonjour", "--voice", "espeak",
                                    "-o", f"/home/{USER}/bonjour.wav")  # fmt: skip
    assert code == 0, out + err[-3000:]
    # Asking for espeak falls back to Pico when espeak-ng is missing: check who spoke.
    assert "eSpeak NG fr:" in err, err[-3000:]
    assert (chroot.root / "home" / USER / "bonjour.wav").stat().st_size > 8000


def test_gui_starts_offscreen(chroot):
    app = chroot.app("therapy-app-gui")
    time.sleep(12)
    assert app.poll() is None, app.communicate()[1][-3000:]
    app.terminate()
    _, err = app.communicate(timeout=60)
    assert "Traceback" not in err, err[-3000:]
    assert chroot.data.is_dir(), "the app created no data folder in the user's home"


def _xwininfo(display: str, *args: str) -> str:
    return subprocess.run(
        ["xwininfo", *args], env={"DISPLAY": display}, capture_output=True, text=True,
        errors="replace", check=False,
    ).stdout  # fmt: skip


def _window_ids(display: str) -> list[str]:
    """The app's windows that are mapped and viewable (created is not yet shown)."""
    tree = _xwininfo(display, "-root", "-tree")
    ids = [line.split()[0] for line in tree.splitlines() if f'"{WINDOW_TITLE}' in line]
    return [i for i in ids if "IsViewable" in _xwininfo(display, "-id", i)]


def test_gui_opens_a_window_under_xvfb(chroot):
    display = ":73"
    xvfb = subprocess.Popen(["Xvfb", display, "-screen", "0", "1366x768x24", "-nolisten", "tcp"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    time.sleep(2)
    start = time.monotonic()
    app = chroot.app("therapy-app-gui", env={"DISPLAY": display, "QT_QPA_PLATFORM": "xcb"})
    try:
        while not _window_ids(display):
            assert app.poll() is None, app.communicate()[1][-3000:]
            assert time.monotonic() - start < 120, "no window after 120 s"
            time.sleep(0.2)
        chroot.timings["launch_to_window_s"] = time.monotonic() - start
        time.sleep(5)
        assert app.poll() is None, app.communicate()[1][-3000:]
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        if shutil.which("import"):
            shot = ARTIFACTS / f"gui_deb_{chroot.suite}.png"
            subprocess.run(["import", "-window", "root", str(shot)],
                           env={"DISPLAY": display}, check=False, timeout=60)  # fmt: skip
    finally:
        app.terminate()
        app.communicate(timeout=60)
        xvfb.terminate()
        xvfb.wait(timeout=30)


def test_menu_entry_is_valid(chroot):
    # desktop-file-utils is installed after the app: the app itself must not need it.
    assert chroot.run("apt-get", "install", "-y", "-q", "--no-install-recommends",
                      "desktop-file-utils").returncode == 0  # fmt: skip
    proc = chroot.run("desktop-file-validate", "/usr/share/applications/therapy-app.desktop")
    assert proc.returncode == 0 and not proc.stdout.strip(), proc.stdout + proc.stderr


def _data_files(chroot: Chroot) -> list[Path]:
    return sorted(p.relative_to(chroot.data) for p in chroot.data.rglob("*"))


def test_remove_keeps_patient_data_and_reinstall_finds_it(chroot, deb):
    # A backup date is stored in the database: reading it back after the
    # reinstall shows the same database was opened, not a new one.
    code, out, err = chroot.app_run("therapy-app", "backup", f"/home/{USER}/sauvegardes")
    assert code == 0, out + err[-3000:]
    (chroot.data / "kept-by-installer-test.txt").write_text("données du patient")
    before = _data_files(chroot)
    proc = chroot.run("apt-get", "remove", "-y", "therapy-app")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert not (chroot.root / "opt/therapy-app").exists()
    assert not (chroot.root / "usr/bin/therapy-app").exists()
    assert _data_files(chroot) == before
    assert _install(chroot, deb.name).returncode == 0
    code, out, err = chroot.app_run("therapy-app", "backup", "--status")
    assert "Traceback" not in err, err[-3000:]
    assert "dernière sauvegarde :" in out and "aucune" not in out, out + err


def test_purge_keeps_patient_data(chroot):
    before = _data_files(chroot)
    proc = chroot.run("apt-get", "purge", "-y", "therapy-app")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    status = chroot.run("dpkg-query", "-W", "-f=${db:Status-Status}", "therapy-app")
    assert status.stdout in ("", "not-installed"), status.stdout
    for path in ("opt/therapy-app", "usr/bin/therapy-app", "usr/bin/therapy-app-gui",
                 "usr/share/applications/therapy-app.desktop"):  # fmt: skip
        assert not (chroot.root / path).exists(), path
    assert _data_files(chroot) == before
    assert (chroot.data / "kept-by-installer-test.txt").read_text() == "données du patient"
