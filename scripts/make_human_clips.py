"""Writes tests/data/human/: a few of Armelle's recorded words as 16 kHz WAV, and their index.

Usage: ``.venv/bin/python scripts/make_human_clips.py [--check]``

The recordings come from Debian ``asterisk-prompt-fr-armelle`` (installed:
``/usr/share/asterisk/sounds/fr``; BSD-like licence, notice kept in
``tests/data/human/README.md``), GSM 8 kHz telephone prompts, converted
with ``sox -R in.gsm -r 16000 -b 16 -c 1 out.wav`` (``-R``: no random
dither, so the files are the same at every run). Only words of the
calibration half of ``benchmarks/verdicts.py`` are taken: the blind half
is never committed. ``--check`` rebuilds them in a temporary folder and
fails when a committed file differs.
"""

from __future__ import annotations

import argparse
import filecmp
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "data" / "human"
SOUNDS = Path("/usr/share/asterisk/sounds/fr")
PACKAGE = "asterisk-prompt-fr-armelle 20070613-2.2"
MAX_BYTES = 40 * 1024

CLIPS = (
    ("six", "digits/6"),
    ("dix", "digits/10"),
    ("onze", "digits/11"),
    ("lundi", "digits/day-1"),
    ("mardi", "digits/day-2"),
    ("jeudi", "digits/day-4"),
    ("février", "digits/mon-1"),
    ("demain", "digits/tomorrow"),
)
"""(what she says, source file without ``.gsm``): calibration-half words only."""

_ASCII = str.maketrans("éè", "ee")


def write_clips(folder: Path) -> list[dict[str, str]]:
    """Convert every clip into ``folder``; returns the index entries."""
    folder.mkdir(parents=True, exist_ok=True)
    index = []
    for text, source in CLIPS:
        gsm = SOUNDS / f"{source}.gsm"
        if not gsm.is_file():
            sys.exit(f"missing {gsm}: apt-get install asterisk-prompt-fr-armelle")
        name = f"{text.translate(_ASCII)}.wav"
        wav = folder / name
        subprocess.run(
            ["sox", "-R", str(gsm), "-r", "16000", "-b", "16", "-c", "1", str(wav)], check=True
        )
        if wav.stat().st_size > MAX_BYTES:
            sys.exit(f"{wav} is over {MAX_BYTES} bytes")
        index.append({"file": name, "text": text, "source": f"{PACKAGE}: {gsm}"})
    (folder / "index.json").write_text(
        json.dumps(index, ensure_ascii=False, indent=1) + "\n", encoding="utf-8"
    )
    return index


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the committed files")
    args = parser.parse_args(argv)
    if not args.check:
        index = write_clips(OUT)
        print(f"{len(index)} clips -> {OUT}")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        index = write_clips(Path(tmp))
        names = [entry["file"] for entry in index] + ["index.json"]
        _, mismatch, errors = filecmp.cmpfiles(OUT, tmp, names, shallow=False)
    if mismatch or errors:
        print(f"differ from a fresh build: {mismatch + errors}")
        return 1
    print(f"{len(names)} files match a fresh build")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
