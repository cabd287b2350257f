"""Pause-aware decoding experiment: each stretch of speech decoded alone, earlier text as context.

Usage::

    python benchmarks/segmented.py [--size 120] [--voices pico mixed] [--asr-dir DIR]
        [--out benchmarks/results/segmented/dev.json]

On the halting **dev** sets only (tuning allowed; ``models/halting/sets.py``),
heard WER of three ways to hear one utterance, same recogniser and defaults:

- ``whole``: the app's path (VAD, pauses capped at 0.3 s, one decoding);
- ``segments+context``: the VAD's stretches of speech (split at pauses of
  ``PAUSE_MIN_MS`` or more) decoded one by one, each with the telegraphic prompt
  followed by what was heard so far as Whisper's "previous text";
- ``segments``: the same without the earlier text (prompt only).

Prints the table and writes JSON (per-item rows included) to ``--out``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from asr_experiments import wer  # noqa: E402

from models.halting.sets import build_set  # noqa: E402
from therapy_app.asr.recognizer import TELEGRAPHIC_PROMPT, SpeechRecognizer  # noqa: E402
from therapy_app.asr.utterance import PAUSE_MIN_MS, SEGMENT_PAD_MS, hear  # noqa: E402
from therapy_app.audio.clip import AudioClip  # noqa: E402
from therapy_app.vad.silero import VoiceActivityDetector, speech_segments_in  # noqa: E402

WAYS = ("whole", "segments+context", "segments")


def stretches(vad: VoiceActivityDetector, clip: AudioClip) -> list[AudioClip]:
    """The clip's stretches of speech, split at pauses of ``PAUSE_MIN_MS`` or more."""
    probs = vad.speech_probabilities(clip)
    length = len(clip.samples)
    segments = speech_segments_in(probs, length, min_silence_ms=PAUSE_MIN_MS, pad_ms=SEGMENT_PAD_MS)
    return [clip.slice(s.start_s, s.end_s) for s in segments]


def hear_segmented(
    recognizer: SpeechRecognizer, parts: list[AudioClip], context: bool
) -> tuple[str, float]:
    """Decode ``parts`` one by one; returns the joined text and the time it took."""
    start = time.perf_counter()
    heard: list[str] = []
    for part in parts:
        prompt = " ".join([TELEGRAPHIC_PROMPT, *heard]) if context else TELEGRAPHIC_PROMPT
        options = replace(recognizer.default_options, prompt=prompt)
        text = recognizer.transcribe(part, options).text
        if text:
            heard.append(text)
    return " ".join(heard), time.perf_counter() - start


def run(
    voices: str, size: int, recognizer: SpeechRecognizer, vad: VoiceActivityDetector
) -> dict[str, Any]:
    """Heard WER and ASR time of each way on one dev set."""
    rows = []
    seconds: dict[str, list[float]] = {w: [] for w in WAYS}
    for _item, utt in build_set("dev", size, voices):
        row = {"uid": utt.uid, "voice": utt.voice, "said": utt.spoken}
        whole = hear(recognizer, vad, utt.clip)
        row["whole"] = whole.transcript.text if whole is not None else ""
        seconds["whole"].append(whole.asr_seconds if whole is not None else 0.0)
        parts = stretches(vad, utt.clip)
        row["n_segments"] = len(parts)
        for way, context in (("segments+context", True), ("segments", False)):
            row[way], took = hear_segmented(recognizer, parts, context)
            seconds[way].append(took)
        rows.append(row)
    said = [r["said"] for r in rows]
    return {
        "n": len(rows),
        "median_segments": statistics.median(r["n_segments"] for r in rows),
        "heard_wer": {w: round(wer(said, [r[w] for r in rows]), 1) for w in WAYS},
        "asr_median_s": {w: round(statistics.median(seconds[w]), 3) for w in WAYS},
        "rows": rows,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=120)
    parser.add_argument("--voices", nargs="+", default=["pico", "mixed"])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--asr-dir", type=Path, default=None)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks/results/segmented/dev.json")
    args = parser.parse_args(argv)
    recognizer = SpeechRecognizer.load(model_dir=args.asr_dir, threads=args.threads)
    vad = VoiceActivityDetector.load()
    results = {
        "asr_dir": str(args.asr_dir or "built"),
        "sets": {f"dev-{v}": run(v, args.size, recognizer, vad) for v in args.voices},
    }
    print("| way | " + " | ".join(results["sets"]) + " |")
    print("|---|" + "---|" * len(results["sets"]))
    for way in WAYS:
        cells = [
            f"{s['heard_wer'][way]} % ({s['asr_median_s'][way]} s)"
            for s in results["sets"].values()
        ]
        print(f"| {way} | " + " | ".join(cells) + " |")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, ensure_ascii=False, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
