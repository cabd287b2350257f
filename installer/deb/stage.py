"""Lays out the Debian package tree: /opt/therapy-app, launchers, menu entry, control files."""

from __future__ import annotations

import argparse
import logging
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bundle_tools import copy_models, tree_size, trim, unpack_wheel  # noqa: E402

_LOGGER = logging.getLogger("stage")
PREFIX = Path("opt/therapy-app")

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

# The distribution's python3 runs the bundled packages. -I (isolated) keeps a
# user's own site-packages, PYTHON* variables and the current folder out of
# sys.path: a stray json.py in the folder a user starts from is never imported.
LAUNCHER = """\
#!/bin/sh
# {summary}
export ORT_DISABLE_TELEMETRY=1
exec /usr/bin/python3 -I -c 'import sys; sys.path.insert(0, "/{prefix}/lib"); \\
import runpy; sys.argv[0] = "{name}"; runpy.run_module("{module}", run_name="__main__")' "$@"
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
 libasound2-plugins, espeak-ng, libfontconfig1, libfreetype6, libglib2.0-0, libdbus-1-3,
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

# Bytecode is compiled at install and removed before the files are, so that
# dpkg can remove the folders; patient data (~/.local/share) is never touched.
POSTINST = """\
#!/bin/sh
set -e
if [ "$1" = configure ]; then
    python3 -m compileall -q -j 0 /{prefix}/lib >/dev/null 2>&1 || true
fi
"""
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


def main(argv: list[str] | None = None) -> int:
    """Build the package tree; prints its size."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--wheels", type=Path, required=True, help="folder of manylinux wheels")
    parser.add_argument("--app-wheel", type=Path, required=True)
    parser.add_argument("--models", type=Path, required=True, help="built models folder")
    parser.add_argument("--model", action="append", default=[], help="model folder name")
    parser.add_argument("--version", required=True)
    parser.add_argument("--python", required=True, help="target python3 version, e.g. 3.11")
    parser.add_argument("--out", type=Path, required=True, help="package tree (recreated)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="stage: %(message)s")

    out: Path = args.out
    if out.exists():
        shutil.rmtree(out)
    site = out / PREFIX / "lib"
    site.mkdir(parents=True)
    for wheel in [*sorted(args.wheels.glob("*.whl")), args.app_wheel]:
        _LOGGER.info("unpacking %s", wheel.name)
        unpack_wheel(wheel, site, "therapy-app-deb")
    _LOGGER.info("trimmed %.1f MB", trim(site, TRIM_GLOBS, KEEP_TRANSLATIONS) / 1e6)
    copy_models(args.models, site / "therapy_app", args.model)

    major, minor = (int(x) for x in args.python.split(".")[:2])
    fields = {"prefix": PREFIX.as_posix(), "version": args.version, "python": args.python,
              "next_python": f"{major}.{minor + 1}"}  # fmt: skip
    launchers = {
        "therapy-app": ("therapy_app.cli", "TherapyApp command line (doctor, loop, backup…)"),
        "therapy-app-gui": ("therapy_app.gui.app", "TherapyApp window"),
    }
    for name, (module, summary) in launchers.items():
        text = LAUNCHER.format(name=name, module=module, summary=summary, **fields)
        _write(out / "usr" / "bin" / name, text, 0o755)
    _write(out / "usr/share/applications/therapy-app.desktop", DESKTOP)
    _write(out / "usr/share/doc/therapy-app/copyright", COPYRIGHT.format(**fields))
    _write(out / "DEBIAN/control", CONTROL.format(**fields))
    _write(out / "DEBIAN/postinst", POSTINST.format(**fields), 0o755)
    _write(out / "DEBIAN/prerm", PRERM.format(**fields), 0o755)
    _LOGGER.info("package tree: %s, %.1f MB", out, tree_size(out) / 1e6)
    return 0


if __name__ == "__main__":
    sys.exit(main())
