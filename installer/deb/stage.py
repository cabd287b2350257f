"""Lays out the Debian package tree: /opt/therapy-app, launchers, menu entry, control files."""

from __future__ import annotations

import argparse
import filecmp
import logging
import os
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bundle_tools import copy_models, tree_size, trim, unpack_wheel  # noqa: E402

_LOGGER = logging.getLogger("stage")
PREFIX = Path("opt/therapy-app")
LAUNCH_SCRIPT = Path(__file__).resolve().parent / "launch.py"

# Developer tools and parts of Qt the app never loads (QML, WebEngine's helper
# process, designer tools, headers, type stubs).
TRIM_GLOBS = (
    "PySide6/qml",
    "PySide6/Qt/qml",
    "PySide6/include",
    "PySide6/metatypes",
    "PySide6/typesystems",
    "PySide6/glue",
    "PySide6/scripts",
    "PySide6/*.pyi",
    "PySide6/Qt/libexec",
    "PySide6/Qt/lib/*.prl",
    "PySide6/Qt/lib/libav*",  # FFmpeg, for QtMultimedia: audio goes through PortAudio
    "PySide6/Qt/lib/libsw*",
    "PySide6/Qt/plugins/multimedia",
    "PySide6/Qt/plugins/designer",
    "PySide6/Qt/plugins/qmltooling",
    "PySide6/Qt/plugins/texttospeech",
    "PySide6/Qt/plugins/webview",
    "PySide6/Qt/plugins/sceneparsers",
    "PySide6/Qt/plugins/assetimporters",
    "PySide6/Qt/plugins/geoservices",
    # Needs libQt6Pdf, which PySide6's wheels do not ship (found by the ldd test).
    "PySide6/Qt/plugins/imageformats/libqpdf.so",
    "PySide6/assistant",
    "PySide6/designer",
    "PySide6/linguist",
    "PySide6/lrelease",
    "PySide6/lupdate",
    "PySide6/qmlformat",
    "PySide6/qmllint",
    "PySide6/qmlls",
    "shiboken6/*.pyi",
    "onnxruntime/transformers",
    "onnxruntime/quantization",
    "onnxruntime/tools",
    "onnxruntime/datasets",
    "_sounddevice_data/portaudio-binaries",
    "bin",
)
KEEP_TRANSLATIONS = ("qt_fr.qm", "qtbase_fr.qm", "qt_help_fr.qm")

# The distribution's python3 runs launch.py (copied to /opt/therapy-app), which
# puts the version folder matching that python3 on sys.path. -I (isolated) keeps
# a user's own site-packages, PYTHON* variables and the current folder out of
# sys.path: a stray json.py in the folder a user starts from is never imported.
LAUNCHER = """\
#!/bin/sh
# {summary}
export ORT_DISABLE_TELEMETRY=1
exec /usr/bin/python3 -I /{prefix}/launch.py {module} {name} {gui} "$@"
"""

DESKTOP = """\
[Desktop Entry]
Type=Application
Name=Orthophonie – exercices de parole
Name[fr]=Orthophonie – exercices de parole
GenericName=Rééducation de l'aphasie
Comment=S'entraîner à parler : répéter, nommer, corriger une phrase
Exec=therapy-app-gui
Icon=therapy-app
Terminal=false
Categories=Education;MedicalSoftware;
Keywords=aphasie;orthophonie;parole;
"""

# Only distribution packages: PortAudio (sounddevice finds it with find_library),
# the ALSA pulse plugin, espeak-ng (the fallback voice when Pico cannot load),
# and the libraries Qt's xcb platform plugin loads (the chroot test runs ldd on
# every bundled library the app can load, and opens the window under Xvfb).
CONTROL = """\
Package: therapy-app
Version: {version}
Architecture: amd64
Maintainer: TherapyApp maintainers <therapy-app@localhost>
Installed-Size: 0
Depends: python3 (>= {python}), python3 (<< {next_python}), libportaudio2,
 libasound2-plugins, espeak-ng, libfontconfig1, libfreetype6,
 libglib2.0-0t64 | libglib2.0-0, libdbus-1-3,
 libegl1, libgl1, libxkbcommon0, libxkbcommon-x11-0, libxcb-cursor0, libxcb-icccm4,
 libxcb-image0, libxcb-keysyms1, libxcb-randr0, libxcb-render-util0, libxcb-shape0,
 libxcb-xinerama0, libxcb-xkb1, libx11-xcb1
Section: misc
Priority: optional
Homepage: https://example.invalid/therapy-app
Description: speech therapy exercises for people with Broca's aphasia (French)
 Records the patient, recognises the utterance, proposes the grammatical
 sentence that was meant and speaks it slowly to be repeated. Speech models
 are included: the program needs no network connection. Patient data stays in
 each user's home folder and is never removed by the package.
"""

# Bytecode is compiled at install for every bundled python3.X the system has
# (the one python3 runs, and any other installed beside it), and again when a
# python3.X's standard library changes (file triggers below: an update, or a
# distribution upgrade bringing a new python3); every __pycache__ is removed
# before the files are, so that dpkg can remove the folders; patient data
# (~/.local/share) is never touched.
POSTINST = """\
#!/bin/sh
set -e
if [ "$1" = configure ] || [ "$1" = triggered ]; then
    for version in {versions}; do
        if [ -x /usr/bin/python$version ]; then
            python$version -m compileall -q -j 0 /{prefix}/lib/py$version >/dev/null 2>&1 || true
        fi
    done
fi
"""
TRIGGER = "interest-noawait /usr/lib/python{version}\n"
PRERM = """\
#!/bin/sh
set -e
find /{prefix}/lib -name __pycache__ -type d -prune -exec rm -rf {{}} + 2>/dev/null || true
"""

COPYRIGHT = """\
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: therapy-app

Files: *
License: MIT
Comment: Third-party packages and models bundled under /{prefix}/lib are listed,
 with their licences, in /{prefix}/THIRD_PARTY_LICENSES.txt.
"""


def _write(path: Path, text: str, mode: int = 0o644) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    path.chmod(mode)


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def _wheel_folders(values: list[str]) -> dict[str, Path]:
    """``3.11=DIR`` arguments, sorted by python version (the first one stores shared files)."""
    folders = {}
    for value in values:
        version, sep, folder = value.partition("=")
        if not sep or len(version.split(".")) != 2:
            raise SystemExit(f"--wheels wants VERSION=FOLDER (e.g. 3.11=wheels), not {value!r}")
        folders[version] = Path(folder)
    return dict(sorted(folders.items(), key=lambda item: _version_key(item[0])))


# Libraries that do not load Python but are rebuilt in each python version's
# wheel, so their bytes differ: onnxruntime's CUDA provider (271 MiB) differs only
# in the random ids nvcc gives anonymous namespaces (same sections, same code).
# Any python's copy serves all of them as long as the distribution's version is
# the same (the provider talks to onnxruntime through a versioned C++ interface).
SAME_BUILD = {Path("onnxruntime/capi/libonnxruntime_providers_cuda.so"): "onnxruntime_gpu"}


def _dist_version(site: Path, dist: str) -> str | None:
    found = sorted(site.glob(f"{dist}-*.dist-info"))
    return found[0].name.removesuffix(".dist-info").split("-")[1] if found else None


def _same(original: Path, path: Path, rel: Path, sites: tuple[Path, Path]) -> bool:
    if rel in SAME_BUILD:
        versions = {_dist_version(site, SAME_BUILD[rel]) for site in sites}
        return len(versions) == 1 and None not in versions
    return original.stat().st_size == path.stat().st_size and filecmp.cmp(
        original, path, shallow=False
    )


def link_duplicates(sites: list[Path]) -> tuple[int, int]:
    """Replace each file identical to the same path in an earlier folder by a relative symlink.

    The folders are complete site-packages for different python versions, so
    most files (abi3 and pure-Python packages, the app and its models) are the
    same in all of them; the SAME_BUILD libraries are linked when their
    distribution's version is the same. A file is linked only when it is larger
    than the link itself. Returns (files linked, bytes saved).
    """
    linked = saved = 0
    for index, site in enumerate(sites):
        for path in sorted(site.rglob("*")):
            if path.is_symlink() or not path.is_file():
                continue
            size = path.stat().st_size
            rel = path.relative_to(site)
            for earlier in sites[:index]:
                original = earlier / rel
                if original.is_symlink() or not original.is_file():
                    continue
                target = os.path.relpath(original, path.parent)
                if size > len(target) and _same(original, path, rel, (earlier, site)):
                    path.unlink()
                    path.symlink_to(target)
                    linked += 1
                    saved += size
                    break
    return linked, saved


def _stored_size(path: Path) -> int:
    """Bytes a tree takes with symlinks counted as links (as dpkg stores them)."""
    return sum(p.lstat().st_size for p in path.rglob("*") if p.is_symlink() or p.is_file())


def main(argv: list[str] | None = None) -> int:
    """Build the package tree; prints its size."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--wheels", action="append", required=True, metavar="VERSION=FOLDER",
                        help="manylinux wheels for one python3 version (repeatable)")  # fmt: skip
    parser.add_argument("--app-wheel", type=Path, required=True)
    parser.add_argument("--models", type=Path, required=True, help="built models folder")
    parser.add_argument("--model", action="append", default=[], help="model folder name")
    parser.add_argument("--version", required=True)
    parser.add_argument("--out", type=Path, required=True, help="package tree (recreated)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="stage: %(message)s")

    out: Path = args.out
    if out.exists():
        shutil.rmtree(out)
    wheels = _wheel_folders(args.wheels)
    sites = []
    for python, folder in wheels.items():
        site = out / PREFIX / "lib" / f"py{python}"
        site.mkdir(parents=True)
        for wheel in [*sorted(folder.glob("*.whl")), args.app_wheel]:
            _LOGGER.info("python %s: unpacking %s", python, wheel.name)
            unpack_wheel(wheel, site, "therapy-app-deb")
        removed = trim(site, TRIM_GLOBS, KEEP_TRANSLATIONS)
        _LOGGER.info("python %s: trimmed %.1f MB", python, removed / 1e6)
        copy_models(args.models, site / "therapy_app", args.model)
        sites.append(site)
    before = tree_size(out / PREFIX / "lib")
    linked, saved = link_duplicates(sites)
    _LOGGER.info("%d files identical across the python folders stored once: %.1f -> %.1f MB",
                 linked, before / 1e6, (before - saved) / 1e6)  # fmt: skip
    shutil.copy2(LAUNCH_SCRIPT, out / PREFIX / "launch.py")
    (out / PREFIX / "launch.py").chmod(0o644)

    versions = list(wheels)
    major, minor = _version_key(versions[-1])
    fields = {"prefix": PREFIX.as_posix(), "version": args.version, "python": versions[0],
              "next_python": f"{major}.{minor + 1}", "versions": " ".join(versions)}  # fmt: skip
    launchers = {
        "therapy-app": ("therapy_app.cli", "TherapyApp command line (doctor, loop…)", "cli"),
        "therapy-app-gui": ("therapy_app.gui.app", "TherapyApp window", "gui"),
    }
    for name, (module, summary, gui) in launchers.items():
        text = LAUNCHER.format(name=name, module=module, summary=summary, gui=gui, **fields)
        _write(out / "usr" / "bin" / name, text, 0o755)
    _write(out / "usr/share/applications/therapy-app.desktop", DESKTOP)
    _write(out / "usr/share/doc/therapy-app/copyright", COPYRIGHT.format(**fields))
    _write(out / "DEBIAN/control", CONTROL.format(**fields))
    _write(out / "DEBIAN/postinst", POSTINST.format(**fields), 0o755)
    _write(out / "DEBIAN/prerm", PRERM.format(**fields), 0o755)
    _write(out / "DEBIAN/triggers", "".join(TRIGGER.format(version=v) for v in versions))
    _LOGGER.info("package tree: %s, %.1f MB", out, _stored_size(out) / 1e6)
    return 0


if __name__ == "__main__":
    sys.exit(main())
