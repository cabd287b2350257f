"""Non-speech sounds against the speech detector: does any of them start a recording?

Usage: ``python benchmarks/vad_noises.py [--folder DIR]`` (seconds). A short word said
alone counts as speech from 60 ms above the threshold (``ALONE_SPEECH_MS``, for
Armelle's « six » and « onze »), so what keeps noise out is Silero's probability, not a
length. This checks it: synthetic noises (clicks, typing, knocks, coughs, breaths,
beeps, hum, noise bursts of 50 ms to 1 s) and, with ``--folder``, every sound file in
it (``apt-get install sound-theme-freedesktop``, then
``--folder /usr/share/sounds/freedesktop/stereo``: its ``audio-channel-*`` files are a
voice and are reported apart). Each sound sits between 0.5 s and 1 s of silence.
Prints, per sound, the highest speech probability, whether hearing finds speech in it
and whether the microphone would start, and writes ``benchmarks/results/vad_noises.json``.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.bookkeeping import write_report  # noqa: E402
from therapy_app.audio.clip import SAMPLE_RATE, AudioClip  # noqa: E402
from therapy_app.audio.wavio import read_wav  # noqa: E402
from therapy_app.vad.silero import (  # noqa: E402
    VoiceActivityDetector,
    segments_from_probabilities,
)

RESULTS = ROOT / "benchmarks" / "results" / "vad_noises.json"
HUMAN_WORDS = ROOT / "tests" / "data" / "human"


def _samples(seconds: float) -> int:
    return int(seconds * SAMPLE_RATE)


def _envelope(n: int, attack: float, decay: float) -> np.ndarray:
    t = np.arange(n) / SAMPLE_RATE
    return np.minimum(1.0, t / attack) * np.exp(-t / decay)


def _band(x: np.ndarray, low: float, high: float) -> np.ndarray:
    spectrum = np.fft.rfft(x)
    freqs = np.fft.rfftfreq(len(x), 1 / SAMPLE_RATE)
    spectrum[(freqs < low) | (freqs > high)] = 0
    return np.fft.irfft(spectrum, len(x))


def synthetic_noises(seed: int = 1) -> dict[str, np.ndarray]:
    """Non-speech sounds a microphone at home picks up, made here (float32, 16 kHz)."""
    rng = np.random.default_rng(seed)
    sounds: dict[str, np.ndarray] = {}
    for seconds in (0.05, 0.1, 0.2, 0.4, 1.0):
        sounds[f"white noise {seconds} s"] = rng.standard_normal(_samples(seconds)) * 0.3
    sounds["pink-ish noise 1 s"] = _band(rng.standard_normal(_samples(1.0)), 50, 8000) * 0.1
    sounds["click"] = np.r_[np.ones(16), np.zeros(_samples(0.1))] * 0.9
    typing = np.zeros(_samples(1.5))
    key = _samples(0.02)
    for start in rng.uniform(0, 1.4, 12):
        typing[int(start * SAMPLE_RATE) :][:key] += (
            rng.standard_normal(key) * _envelope(key, 0.001, 0.004) * 0.8
        )
    sounds["typing"] = typing
    cough = _band(rng.standard_normal(_samples(0.35)), 300, 3000)
    sounds["cough"] = cough * _envelope(len(cough), 0.01, 0.08) * 2
    sounds["two coughs"] = np.r_[sounds["cough"], np.zeros(_samples(0.1)), sounds["cough"]]
    inhale = _band(rng.standard_normal(_samples(0.6)), 500, 4000)
    sounds["breath in"] = inhale * np.hanning(len(inhale)) * 0.15
    exhale = _band(rng.standard_normal(_samples(0.5)), 200, 2000)
    sounds["breath out"] = exhale * np.hanning(len(exhale)) * 0.2
    t = np.arange(_samples(0.3)) / SAMPLE_RATE
    knock = np.sin(2 * np.pi * 180 * t) * _envelope(len(t), 0.001, 0.03)
    sounds["two knocks"] = np.r_[knock, np.zeros(_samples(0.15)), knock] * 0.8
    sounds["beep 1 kHz"] = np.sin(2 * np.pi * 1000 * t) * 0.5
    sounds["mains hum"] = np.sin(2 * np.pi * 100 * np.arange(_samples(0.5)) / SAMPLE_RATE) * 0.5
    smack = _band(rng.standard_normal(_samples(0.03)), 1000, 6000)
    sounds["lip smack"] = smack * _envelope(len(smack), 0.001, 0.005)
    return {name: s.astype(np.float32) for name, s in sounds.items()}


def _from_folder(folder: Path, scratch: Path) -> dict[str, np.ndarray]:
    sounds: dict[str, np.ndarray] = {}
    for path in sorted(folder.iterdir()):
        if path.suffix.lower() not in (".wav", ".oga", ".ogg", ".flac"):
            continue
        wav = scratch / f"{path.stem}.wav"
        cmd = ["sox", str(path), "-r", str(SAMPLE_RATE), "-c", "1", "-b", "16", str(wav)]
        subprocess.run(cmd, check=True, capture_output=True)
        sounds[path.name] = read_wav(wav).samples
    return sounds


def judge_sound(vad: VoiceActivityDetector, samples: np.ndarray) -> dict[str, Any]:
    """Highest probability, whether hearing finds speech, whether the microphone starts."""
    clip = AudioClip(
        np.r_[np.zeros(_samples(0.5)), samples, np.zeros(_samples(1.0))].astype(np.float32)
    )
    probs = vad.speech_probabilities(clip)
    detector = vad.end_of_speech_detector(trailing_silence_ms=60_000)
    detector.feed(clip.samples)
    return {
        "seconds": round(len(samples) / SAMPLE_RATE, 3),
        "max_probability": round(float(probs.max()), 3),
        "heard_as_speech": bool(segments_from_probabilities(probs)),
        "starts_recording": detector.speech_started,
    }


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folder", type=Path, help="also every sound file in this folder")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    vad = VoiceActivityDetector.load()
    groups: dict[str, dict[str, np.ndarray]] = {"synthetic": synthetic_noises()}
    if args.folder is not None:
        with tempfile.TemporaryDirectory() as scratch:
            found = _from_folder(args.folder, Path(scratch))
        voice = {k: v for k, v in found.items() if k.startswith("audio-channel-")}
        groups[f"{args.folder} (voice)"] = voice
        groups[str(args.folder)] = {k: v for k, v in found.items() if k not in voice}
    groups["short words said alone (tests/data/human)"] = {
        p.name: read_wav(p).samples for p in sorted(HUMAN_WORDS.glob("*.wav"))
    }
    report: dict[str, Any] = {"description": __doc__, "groups": {}}
    for group, sounds in groups.items():
        rows = {name: judge_sound(vad, samples) for name, samples in sounds.items()}
        started = sum(r["starts_recording"] for r in rows.values())
        heard = sum(r["heard_as_speech"] for r in rows.values())
        print(f"{group}: {len(rows)} sounds, {heard} heard as speech, {started} start a recording")
        for name, row in rows.items():
            print(
                f"  {name:40s} {row['seconds']:5.2f} s  max p {row['max_probability']:.2f}"
                f"  {'speech' if row['heard_as_speech'] else '-'}"
            )
        report["groups"][group] = {"sounds": len(rows), "heard": heard, "rows": rows}
    write_report(args.out, report)
    print(f"written {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
