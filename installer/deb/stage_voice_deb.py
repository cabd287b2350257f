"""Lays out the Debian package tree of ``therapy-app-voice`` (the personal-voice pack).

The pack folder itself (torch per python, the trainer, the training weights, the
manifest) is assembled by ``installer/windows/stage_voice.py`` into
``/opt/therapy-app/voice``, where ``therapy_app.voice_pack`` looks when the app
runs from ``/opt/therapy-app/lib/py3.X``. This adds the control files: the
package depends on ``therapy-app`` of the same version (the trainer imports the
app's modules) and on a python3 that the pack has torch for; its maintainer
scripts compile and remove the pack's bytecode as the main package does for its own.
"""

from __future__ import annotations

import argparse
import logging
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "windows"))
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))
import bundle_tools  # noqa: E402
import package_tree  # noqa: E402
import stage_voice as pack_stage  # noqa: E402  (installer/windows/stage_voice.py)

_LOGGER = logging.getLogger("stage_voice_deb")
PREFIX = Path("opt/therapy-app")
PACK = PREFIX / "voice"

CONTROL = """\
Package: therapy-app-voice
Version: {version}
Architecture: amd64
Maintainer: TherapyApp maintainers <therapy-app@localhost>
Installed-Size: 0
Depends: therapy-app (= {version}), python3 (>= {python}), python3 (<< {next_python})
Section: misc
Priority: optional
Homepage: https://example.invalid/therapy-app
Description: personal-voice adaptation for therapy-app (PyTorch, CPU)
 Lets therapy-app adapt its speech recogniser to one patient's voice from the
 patient's own recordings, on this computer and with no network connection.
 Ships PyTorch {torch} (CPU build) for python3 {pythons}, the trainer and the
 Whisper base training weights under /{pack}. Optional: therapy-app works
 without it and says « pack voix non installé » when adaptation is asked for.
"""

COPYRIGHT = """\
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: therapy-app-voice

Files: *
License: MIT
Comment: PyTorch, the packages it needs and the Whisper weights bundled under
 /{pack} are listed, with their licences, in /{pack}/THIRD_PARTY_LICENSES.txt.
"""


def main(argv: list[str] | None = None) -> int:
    """Build the package tree; prints its size."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--wheels", action="append", required=True, metavar="VERSION=FOLDER",
                        help="locked manylinux wheels for one python3 (repeatable)")  # fmt: skip
    parser.add_argument("--app-lock", action="append", required=True, metavar="VERSION=LOCK",
                        help="the main package's lock for that python (repeatable)")  # fmt: skip
    parser.add_argument("--trainer", type=Path, required=True)
    parser.add_argument("--weights", type=Path, required=True)
    parser.add_argument("--version", required=True)
    args, out = bundle_tools.staging_args(parser, argv, "package tree", "stage_voice_deb")
    locks = dict(value.split("=", 1) for value in args.app_lock)
    wheels = dict(value.split("=", 1) for value in args.wheels)
    versions = sorted(wheels, key=package_tree.version_key)
    if set(versions) - set(locks):
        raise SystemExit(f"no --app-lock for python {sorted(set(versions) - set(locks))}")
    # One staging per python against its own app lock, then merged into one tree.
    pack = out / PACK
    for python in versions:
        part = out / f"part-{python}"
        pack_stage.main(["stage", "--platform", "linux", "--wheels", f"{python}={wheels[python]}",
                         "--app-lock", locks[python], "--trainer", str(args.trainer),
                         "--weights", str(args.weights), "--version", args.version,
                         "--out", str(part)])  # fmt: skip
        if not pack.exists():
            pack.parent.mkdir(parents=True, exist_ok=True)
            part.rename(pack)
        else:
            (part / "lib" / f"py{python}").rename(pack / "lib" / f"py{python}")
            shutil.rmtree(part)
    sites = [pack / "lib" / f"py{python}" for python in versions]
    linked, saved = package_tree.link_duplicates(sites)
    _LOGGER.info("%d files identical across the python folders stored once (%.1f MB)",
                 linked, saved / 1e6)  # fmt: skip

    manifest = pack_stage.write_manifest(pack, args.version, "linux")
    fields = {"pack": PACK.as_posix(), "version": args.version,
              **package_tree.python_fields(versions), "pythons": ", ".join(versions),
              "torch": str(manifest["torch"])}  # fmt: skip
    # As the main package: bytecode compiled at install (and when a python3.X's
    # standard library changes) for every python the pack serves.
    installed = f"/{PACK.as_posix()}"
    package_tree.write_debian_files(
        out, "therapy-app-voice", fields, control=CONTROL, copyright_text=COPYRIGHT,
        compile_dirs=f"{installed}/lib/py$version {installed}/app", bytecode_root=installed,
    )  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
