"""Probe: the phone reader's scores on the calibration tries of the verdict benchmark.

Usage: ``python benchmarks/phone_probe.py ROWS OUT [--reader DIR]``: ROWS from
``verdicts.py --calibration-only``. Calibration half only.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.verdicts import Trial, Voices  # noqa: E402
from therapy_app.asr.phone_reader import PhoneReader  # noqa: E402
from therapy_app.asr.recognizer import SpeechRecognizer  # noqa: E402


def main() -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser()
    parser.add_argument("rows", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--reader", type=Path, default=None)
    args = parser.parse_args()
    rows = json.loads(args.rows.read_text())["calibration_rows"]
    assert all(r["split"] == "calibration" for r in rows)
    voices = Voices()
    recognizer = SpeechRecognizer.load(threads=2)
    reader = PhoneReader(args.reader)
    out = []
    for row in rows:
        trial = Trial(row["voice"], row["split"], row["exercise"], row["kind"], row["target"],
                      tuple(row["said"]))  # fmt: skip
        encoded = recognizer.encode(voices.say(trial))
        texts = [c["text"] for c in row["candidates"]]
        scores = reader.score(encoded, texts)
        out.append({**{k: v for k, v in row.items() if k != "candidates"},
                    "roles": {c["text"]: c["role"] for c in row["candidates"]},
                    "frames": scores.frames, "free": scores.free, "phone": scores.scores,
                    "lengths": scores.lengths, "voiced": scores.voiced})  # fmt: skip
    args.out.write_text(json.dumps(out, ensure_ascii=False, indent=0))
    print(f"{len(out)} rows -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
