"""Chooses the beam width of free transcription on allowed sets only.

Usage::

    python benchmarks/beam_width.py [--beams 3 5] [--voices pico mixed] [--size 120]
        [--parts halting clean armelle] [--asr-dir DIR] [--out benchmarks/results/beam_width.json]

For each beam width: heard WER and end-to-end exact match on the halting
``dev`` sets (Pico and mixed voices), WER on the clean Pico speech set of
``benchmarks/speech.py`` (read sentences, telegraphic phrases, single words),
and Armelle's words and halting strings (human, allowed). Each clip is
prepared and encoded once; every beam width decodes the same encoder output.
The blind halting set and the reserved recordings are never read here.
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

from benchmarks.asr_experiments import corpus, deterministic_pico, synthesize, wer  # noqa: E402
from benchmarks.halting import _hit  # noqa: E402
from models.halting.sets import build_set  # noqa: E402
from therapy_app.asr.recognizer import SpeechRecognizer  # noqa: E402
from therapy_app.asr.utterance import PAUSE_GAP_S, prepare  # noqa: E402
from therapy_app.correction import Corrector  # noqa: E402
from therapy_app.vad.silero import VoiceActivityDetector  # noqa: E402


def _decode_all(recognizer: SpeechRecognizer, clip: Any, beams: list[int]) -> list[str]:
    encoded = recognizer.encode(clip)
    base = recognizer.default_options
    return [recognizer.transcribe(encoded, replace(base, beam_size=beam)).text for beam in beams]


def halting_dev(recognizer: SpeechRecognizer, vad: VoiceActivityDetector, corrector: Corrector,
                voices: str, size: int, beams: list[int]) -> dict[str, Any]:  # fmt: skip
    """Heard WER and end-to-end exact per beam width on one dev set."""
    said: list[str] = []
    heard: list[list[str]] = [[] for _ in beams]
    hits: list[list[bool]] = [[] for _ in beams]
    for item, utt in build_set("dev", size, voices):
        prepared = prepare(vad, utt.clip, PAUSE_GAP_S)
        texts = [""] * len(beams) if prepared is None else _decode_all(
            recognizer, prepared[1], beams)  # fmt: skip
        said.append(utt.spoken)
        for i, text in enumerate(texts):
            heard[i].append(text)
            e2e = (corrector.correct(text).best or text) if text else ""
            hits[i].append(_hit(e2e, item.refs))
    return {
        str(beam): {
            "heard_wer": round(wer(said, heard[i]), 1),
            "e2e_exact": round(sum(hits[i]) / len(hits[i]), 3),
        }
        for i, beam in enumerate(beams)
    }


def clean_pico(recognizer: SpeechRecognizer, beams: list[int]) -> dict[str, Any]:
    """WER per category of the clean Pico set (sentences, telegraphic phrases, words)."""
    engine = deterministic_pico()
    refs: dict[str, list[str]] = {}
    hyps: dict[str, list[list[str]]] = {}
    for utt in corpus():
        texts = _decode_all(recognizer, synthesize(engine, utt), beams)
        refs.setdefault(utt.category, []).append(utt.text)
        per = hyps.setdefault(utt.category, [[] for _ in beams])
        for i, text in enumerate(texts):
            per[i].append(text)
    return {
        str(beam): {cat: round(wer(refs[cat], hyps[cat][i]), 1) for cat in refs}
        for i, beam in enumerate(beams)
    }


def armelle(recognizer: SpeechRecognizer, vad: VoiceActivityDetector,
            beams: list[int]) -> dict[str, Any]:  # fmt: skip
    """Armelle's isolated words (right / n) and halting strings (WER), per beam width."""
    from benchmarks.human_eval import armelle_halting, armelle_words, content

    def heard(clip: Any) -> list[str]:
        prepared = prepare(vad, clip, PAUSE_GAP_S)
        return [""] * len(beams) if prepared is None else _decode_all(
            recognizer, prepared[1], beams)  # fmt: skip

    words = armelle_words()
    strings = armelle_halting(words)
    out: dict[str, Any] = {}
    word_hyps = [heard(it.clip) for it in words]
    string_hyps = [heard(it.clip) for it in strings]
    for i, beam in enumerate(beams):
        pairs = zip(word_hyps, words, strict=True)
        right = sum(content(h[i]) == content(it.text) for h, it in pairs)
        out[str(beam)] = {
            "words_right": round(right / len(words), 3),
            "halting_wer": round(wer([it.text for it in strings], [h[i] for h in string_hyps]), 1),
        }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--beams", nargs="+", type=int, default=[3, 5])
    parser.add_argument("--voices", nargs="+", default=["pico", "mixed"])
    parser.add_argument("--size", type=int, default=120)
    parser.add_argument("--parts", nargs="+", default=["halting", "clean", "armelle"])
    parser.add_argument("--asr-dir", type=Path, default=None)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks/results/beam_width.json")
    args = parser.parse_args()
    recognizer = SpeechRecognizer.load("cpu", model_dir=args.asr_dir, threads=2)
    start = time.perf_counter()
    result: dict[str, Any] = {"beams": args.beams}
    vad = VoiceActivityDetector.load()
    if "halting" in args.parts:
        corrector = Corrector.load()
        for voices in args.voices:
            result[f"dev-{voices}"] = halting_dev(
                recognizer, vad, corrector, voices, args.size, args.beams)  # fmt: skip
            print(voices, json.dumps(result[f"dev-{voices}"]), flush=True)
    if "clean" in args.parts:
        result["clean_pico"] = clean_pico(recognizer, args.beams)
        print("clean", json.dumps(result["clean_pico"]), flush=True)
    if "armelle" in args.parts:
        result["armelle"] = armelle(recognizer, vad, args.beams)
        print("armelle", json.dumps(result["armelle"]), flush=True)
    result["seconds"] = round(time.perf_counter() - start)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"written {args.out} in {result['seconds']} s")


if __name__ == "__main__":
    main()
