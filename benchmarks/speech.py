"""Speech-engine benchmark: ASR WER per category, score top-1, latency, RTF, TTS, VAD, memory.

Usage: ``python benchmarks/speech.py [--threads 2] [--out benchmarks/results/speech.json]``.
The test set is the deterministic synthetic French set of
``benchmarks/asr_experiments.py`` (20 sentences, 20 telegraphic phrases spoken
with 600 ms pauses, 20 single words; Pico voice), regenerated on every run.
It runs the installed app's defaults (``SpeechRecognizer.load()``), greedy and
beam, and prints a table. Needs the built models (``python -m models.build``).
"""

from __future__ import annotations

import argparse
import platform
import resource
import time
from dataclasses import asdict, replace
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent

from benchmarks.asr_experiments import (  # noqa: E402
    add_candidate_options,
    candidate_recognizer,
    corpus,
    deterministic_pico,
    synthesize,
    wer,
)
from benchmarks.bookkeeping import write_report  # noqa: E402
from therapy_app.asr.recognizer import DecodeOptions  # noqa: E402
from therapy_app.tts.synthesizer import SpeechSynthesizer  # noqa: E402
from therapy_app.vad.silero import VoiceActivityDetector  # noqa: E402

CATEGORIES = ("sentence", "telegraphic", "word")
DISTRACTORS = 4  # candidates per `score` call besides the true text


def _percentile(values: list[float], q: float) -> float:
    return round(float(np.percentile(values, q)), 3)


def _decode_pass(recognizer, items, clips, options: DecodeOptions) -> dict[str, object]:  # noqa: ANN001
    recognizer.transcribe(clips[items[0].uid], options)  # warm-up
    rows = []
    for utt in items:
        start = time.perf_counter()
        tr = recognizer.transcribe(clips[utt.uid], options)
        wall = time.perf_counter() - start
        rows.append(
            {
                "uid": utt.uid,
                "category": utt.category,
                "ref": utt.text,
                "hyp": tr.text,
                "audio_s": tr.audio_seconds,
                "latency_s": wall,
            }
        )
    out: dict[str, object] = {"options": asdict(options)}
    for cat in CATEGORIES:
        sub = [r for r in rows if r["category"] == cat]
        out[f"wer_{cat}"] = round(wer([r["ref"] for r in sub], [r["hyp"] for r in sub]), 1)
    short = [r["latency_s"] for r in rows if r["audio_s"] <= 5.0]
    out["latency_median_s"] = _percentile(short, 50)
    out["latency_p90_s"] = _percentile(short, 90)
    out["rtf"] = round(sum(r["latency_s"] for r in rows) / sum(r["audio_s"] for r in rows), 3)
    out["utterances_le_5s"] = len(short)
    out["rows"] = [{**r, "latency_s": round(r["latency_s"], 3)} for r in rows]
    return out


def _score_pass(recognizer, items, clips) -> dict[str, object]:  # noqa: ANN001
    correct, latencies, misses = 0, [], []
    for i, utt in enumerate(items):
        same = [u.text for u in items if u.category == utt.category and u.uid != utt.uid]
        # Deterministic distractors of the same kind (words vs words, etc.).
        distractors = [same[(i * 7 + k * 3) % len(same)] for k in range(DISTRACTORS)]
        start = time.perf_counter()
        ranked = recognizer.score(clips[utt.uid], [utt.text, *distractors])
        latencies.append(time.perf_counter() - start)
        if ranked[0].text == utt.text:
            correct += 1
        else:
            misses.append({"uid": utt.uid, "ref": utt.text, "top": ranked[0].text})
    return {
        "top1_accuracy": round(correct / len(items), 4),
        "candidates_per_call": DISTRACTORS + 1,
        "latency_median_s": _percentile(latencies, 50),
        "misses": misses,
    }


def _tts_pass(texts: list[str]) -> dict[str, object]:
    start = time.perf_counter()
    synth = SpeechSynthesizer.load()
    load_s = time.perf_counter() - start
    cold_start = time.perf_counter()
    synth.synthesize(texts[0])
    cold = time.perf_counter() - cold_start
    warm = []
    for text in texts:
        start = time.perf_counter()
        # Sentence-level streaming: the first sentence is the first audio heard.
        next(iter(synth.synthesize_sentences(text)))
        warm.append(time.perf_counter() - start)
    return {
        "voice": synth.voice_name,
        "load_s": round(load_s, 3),
        "first_call_s": round(cold, 3),
        "first_audio_warm_median_s": _percentile(warm, 50),
        "first_audio_warm_p90_s": _percentile(warm, 90),
    }


def _vad_pass(clips) -> dict[str, object]:  # noqa: ANN001
    vad = VoiceActivityDetector.load()
    total_audio = sum(c.duration for c in clips.values())
    start = time.perf_counter()
    for clip in clips.values():
        vad.speech_segments(clip)
    return {"rtf": round((time.perf_counter() - start) / total_audio, 4)}


def run(threads: int, gate: float | None = None, asr_dir: Path | None = None) -> dict[str, object]:
    """Run every measurement (free transcription with adapter ``gate``); returns the report.

    ``asr_dir`` evaluates a candidate whisper-base folder instead of the built one.
    """
    items = corpus()
    engine = deterministic_pico()
    clips = {u.uid: synthesize(engine, u) for u in items}
    start = time.perf_counter()
    recognizer = candidate_recognizer(asr_dir, threads, gate)
    load_s = time.perf_counter() - start
    beam = recognizer.default_options
    greedy = replace(beam, beam_size=1)
    report: dict[str, object] = {
        "date": time.strftime("%Y-%m-%d"),
        "machine": f"{platform.machine()}, {threads} threads",
        "provider": recognizer.provider,
        "test_set": {cat: sum(u.category == cat for u in items) for cat in CATEGORIES},
        "asr_load_s": round(load_s, 2),
        "beam": _decode_pass(recognizer, items, clips, beam),
        "greedy": _decode_pass(recognizer, items, clips, greedy),
        "score": _score_pass(recognizer, items, clips),
        "tts": _tts_pass([u.text for u in items if u.category == "sentence"]),
        "vad": _vad_pass(clips),
    }
    # ru_maxrss is in KiB on Linux.
    report["peak_memory_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    return report


def print_table(r: dict[str, object]) -> None:
    """Human-readable summary of the report."""
    print(f"provider {r['provider']} | {r['machine']} | test set {r['test_set']}")
    print(
        f"{'decoding':<8} {'WER sent':>9} {'WER tele':>9} {'WER word':>9} "
        f"{'med s':>7} {'p90 s':>7} {'RTF':>6}"
    )
    for name in ("beam", "greedy"):
        d = r[name]
        print(
            f"{name:<8} {d['wer_sentence']:>8}% {d['wer_telegraphic']:>8}% {d['wer_word']:>8}% "
            f"{d['latency_median_s']:>7} {d['latency_p90_s']:>7} {d['rtf']:>6}"
        )
    s, t = r["score"], r["tts"]
    print(
        f"score top-1 {100 * s['top1_accuracy']:.1f}% ({s['candidates_per_call']} candidates, "
        f"median {s['latency_median_s']} s)"
    )
    print(
        f"TTS {t['voice']}: first audio warm median {t['first_audio_warm_median_s']} s, "
        f"p90 {t['first_audio_warm_p90_s']} s (load {t['load_s']} s)"
    )
    print(f"VAD RTF {r['vad']['rtf']} | peak memory {r['peak_memory_mb']} MB")


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_candidate_options(parser)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks/results/speech.json")
    args = parser.parse_args(argv)
    report = run(args.threads, args.gate, args.asr_dir)
    print_table(report)
    write_report(args.out, report)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
