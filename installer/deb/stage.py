"""Lays out the Debian package tree: /opt/therapy-app, launchers, menu entry, control files."""

from __future__ import annotations

import argparse
import logging
import shutil
import sys
from pathlib import Path

# The helpers shared with the Windows build live one folder up.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import bundle_tools  # noqa: E402
import package_tree  # noqa: E402

_LOGGER = logging.getLogger("stage")
PREFIX = Path("opt/therapy-app")
LAUNCH_SCRIPT = Path(__file__).resolve().parent / "launch.py"

# Beyond bundle_tools.DEVELOPER_FILES: developer tools and parts of Qt the app
# never loads (QML, WebEngine's helper process, designer tools, FFmpeg).
TRIM_GLOBS = (
    "PySide6/Qt/qml",
    "PySide6/Qt/libexec",
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
    "_sounddevice_data/portaudio-binaries",
    "bin",
)

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

COPYRIGHT = """\
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: therapy-app

Files: *
License: MIT
Comment: Third-party packages and models bundled under /{prefix}/lib are listed,
 with their licences, in /{prefix}/THIRD_PARTY_LICENSES.txt.
"""


def _wheel_folders(values: list[str]) -> dict[str, Path]:
    """``3.11=DIR`` arguments, sorted by python version (the first one stores shared files)."""
    folders = {}
    for value in values:
        version, sep, folder = value.partition("=")
        if not sep or len(version.split(".")) != 2:
            raise SystemExit(f"--wheels wants VERSION=FOLDER (e.g. 3.11=wheels), not {value!r}")
        folders[version] = Path(folder)
    return dict(sorted(folders.items(), key=lambda item: package_tree.version_key(item[0])))


def main(argv: list[str] | None = None) -> int:
    """Build the package tree; prints its size."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--wheels", action="append", required=True, metavar="VERSION=FOLDER",
                        help="manylinux wheels for one python3 version (repeatable)")  # fmt: skip
    parser.add_argument("--app-wheel", type=Path, required=True)
    parser.add_argument("--models", type=Path, required=True, help="built models folder")
    parser.add_argument("--model", action="append", default=[], help="model folder name")
    parser.add_argument("--version", required=True)
    args, out = bundle_tools.staging_args(parser, argv, "package tree", "stage")
    wheels = _wheel_folders(args.wheels)
    sites = []
    for python, folder in wheels.items():
        site = out / PREFIX / "lib" / f"py{python}"
        site.mkdir(parents=True)
        for wheel in [*sorted(folder.glob("*.whl")), args.app_wheel]:
            _LOGGER.info("python %s: unpacking %s", python, wheel.name)
            bundle_tools.unpack_wheel(wheel, site, "therapy-app-deb")
        removed = bundle_tools.trim(site, TRIM_GLOBS)
        _LOGGER.info("python %s: trimmed %.1f MB", python, removed / 1e6)
        bundle_tools.copy_models(args.models, site / "therapy_app", args.model)
        sites.append(site)
    before = bundle_tools.tree_size(out / PREFIX / "lib")
    linked, saved = package_tree.link_duplicates(sites)
    _LOGGER.info("%d files identical across the python folders stored once: %.1f -> %.1f MB",
                 linked, before / 1e6, (before - saved) / 1e6)  # fmt: skip
    shutil.copy2(LAUNCH_SCRIPT, out / PREFIX / "launch.py")
    (out / PREFIX / "launch.py").chmod(0o644)

    pythons = package_tree.python_fields(list(wheels))
    fields = {"prefix": PREFIX.as_posix(), "version": args.version, **pythons}
    launchers = {
        "therapy-app": ("therapy_app.cli", "TherapyApp command line (doctor, loop…)", "cli"),
        "therapy-app-gui": ("therapy_app.gui.app", "TherapyApp window", "gui"),
    }
    for name, (module, summary, gui) in launchers.items():
        text = LAUNCHER.format(name=name, module=module, summary=summary, gui=gui, **fields)
        package_tree.write(out / "usr" / "bin" / name, text, 0o755)
    package_tree.write(out / "usr/share/applications/therapy-app.desktop", DESKTOP)
    lib = f"/{PREFIX.as_posix()}/lib"
    package_tree.write_debian_files(
        out, "therapy-app", fields, control=CONTROL, copyright_text=COPYRIGHT,
        compile_dirs=f"{lib}/py$version", bytecode_root=lib,
    )  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
