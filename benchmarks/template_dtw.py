"""Experiment (not adopted, docs/decisions/0025): TTS templates compared with the try by DTW.

Usage: ``.venv/bin/python benchmarks/verdicts.py --calibration-only build/s19/verdict_rows.json``,
then ``.venv/bin/python benchmarks/template_dtw.py build/s19/verdict_rows.json``.

Every scored text of each calibration try (accepted forms and distractors) is
said by the synthetic voices other than the try's own (Pico, espeak-ng); the
try and each rendering go through the recogniser's encoder, and the frames
(cross-attention keys of the decoder layers, centred, unit length) are aligned
by dynamic time warping (cosine distance, normalised by n + m). The template
margin is the best distractor's distance less the best form's. Calibration
half only.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.verdicts import Trial, Voices
from therapy_app.asr.recognizer import SpeechRecognizer
from therapy_app.audio.clip import AudioClip

FEATURES = {"all": [0, 1, 2, 3, 4, 5], "l2": [2], "l0": [0]}


def _trim(samples: np.ndarray) -> np.ndarray:
    loud = np.flatnonzero(np.abs(samples) > 0.01)
    return samples[max(0, loud[0] - 800) : loud[-1] + 800] if len(loud) else samples


def frames(recognizer: SpeechRecognizer, samples: np.ndarray) -> dict[str, np.ndarray]:
    """Per feature set, the clip's encoder frames (centred, unit length)."""
    edge = np.zeros(1600, np.float32)
    clip = AudioClip(np.concatenate([edge, _trim(samples.astype(np.float32)), edge]))
    cross = recognizer.encode(clip).cross
    n = int(clip.duration / 0.02) + 1
    out = {}
    for name, layers in FEATURES.items():
        keys = [np.transpose(cross.keys[i][0], (1, 0, 2)).reshape(1500, -1)[:n] for i in layers]
        f = np.concatenate(keys, 1)
        f = f - f.mean(0, keepdims=True)
        out[name] = f / (np.linalg.norm(f, axis=1, keepdims=True) + 1e-8)
    return out


def dtw(a: np.ndarray, b: np.ndarray) -> float:
    """DTW cost of the cosine distances, divided by n + m."""
    d = 1 - a @ b.T
    n, m = d.shape
    acc = np.full((n + 1, m + 1), np.inf)
    acc[0, 0] = 0
    for i in range(1, n + 1):
        up = np.minimum(acc[i - 1, :-1], acc[i - 1, 1:]) + d[i - 1]
        row = acc[i]
        for j in range(1, m + 1):
            row[j] = min(up[j - 1], row[j - 1] + d[i - 1, j - 1])
    return float(acc[n, m] / (n + m))


def distances(rows: list[dict[str, Any]]) -> list[dict[str, dict[str, float]]]:
    """Per try, per scored text, per feature set: the DTW distance to its best rendering."""
    recognizer, voices = SpeechRecognizer.load(), Voices()
    synth = {"pico": voices._tts["pico"], "espeak": voices._tts["espeak"]}
    cache: dict[tuple[str, str], dict[str, np.ndarray]] = {}
    out = []
    for row in rows:
        trial = Trial(*(row[k] for k in ("voice", "split", "exercise", "kind", "target")),
                      tuple(row["said"]))  # fmt: skip
        heard = frames(recognizer, voices.say(trial).samples)
        others = [v for v in synth if v != row["voice"]]
        found = {}
        for c in row["candidates"]:
            if c["role"] == "heard":
                continue
            for v in others:
                if (c["text"], v) not in cache:
                    cache[c["text"], v] = frames(recognizer, synth[v].synthesize(c["text"]).samples)
            found[c["text"]] = {
                name: min(dtw(heard[name], cache[c["text"], v][name]) for v in others)
                for name in FEATURES
            }
        out.append(found)
    return out


def _evidence(c: dict[str, Any], weight: float = 0.75) -> float:
    prior = c["prior_per_token"]
    return float(c["per_token"] - (0.0 if prior is None else weight * prior))


def agreement(rows: list[dict[str, Any]], dist: list[dict[str, dict[str, float]]],
              feature: str, margin: float, template_margin: float) -> Counter[str]:  # fmt: skip
    """Accepted tries per (speech, kind): the app's rule, or decoder and templates agreeing."""
    accepted: Counter[str] = Counter()
    for row, found in zip(rows, dist, strict=True):
        key = f"{'human' if row['voice'] == 'human' else 'synthetic'} {row['kind']}"
        forms = [c for c in row["candidates"] if c["role"] == "form"]
        wrong = [c for c in row["candidates"] if c["role"] == "distractor"]
        ok = bool(row["accepted"])
        if forms and wrong:
            m = max(map(_evidence, forms)) - max(map(_evidence, wrong))
            dm = min(found[c["text"]][feature] for c in wrong) - min(
                found[c["text"]][feature] for c in forms
            )
            ok = ok or (m >= margin and dm >= template_margin)
        accepted[key] += ok
    return accepted


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rows", type=Path)
    parser.add_argument("--out", type=Path, default=Path("build/s19/dtw_rows.json"))
    args = parser.parse_args(argv)
    rows = json.loads(args.rows.read_text())["calibration_rows"]
    if args.out.is_file():
        dist = json.loads(args.out.read_text())
    else:
        dist = distances(rows)
        args.out.write_text(json.dumps(dist))
    totals = Counter(
        f"{'human' if r['voice'] == 'human' else 'synthetic'} {r['kind']}" for r in rows
    )
    for feature in FEATURES:
        for margin in (0.0, 0.2, 0.4, 0.6):
            for template in (0.0, 0.01, 0.02, 0.03):
                acc = agreement(rows, dist, feature, margin, template)
                cells = " ".join(f"{k}={acc[k]}/{totals[k]}" for k in sorted(totals))
                print(feature, margin, template, cells)
    return 0


if __name__ == "__main__":
    sys.exit(main())
