"""Chooses beam width and language-model weight of free transcription on allowed sets only.

Usage::

    python -m models.asr.lm_build --out build/lm/telegraphic-fr.npz   # needs build/corpus
    python benchmarks/lm_weight.py [--configs 3:0 5:0 5:0.2 5:0.3]
        [--lm build/lm/telegraphic-fr.npz]
        [--voices pico mixed] [--size 120] [--out benchmarks/results/lm_weight.json]

A config is ``beam:weight``; the weight is that of the token language model
reranking the beam's finished hypotheses. For each config: heard WER and
end-to-end exact match on the halting ``dev`` sets (Pico and mixed voices),
WER on the clean Pico speech set of ``benchmarks/speech.py`` (read sentences,
telegraphic phrases, single words), and Armelle's words and halting strings
(human, allowed). Each clip is prepared and encoded once; every config decodes
the same encoder output. The blind halting set and the reserved recordings are
never read here.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from asr_experiments import corpus, deterministic_pico, synthesize, wer  # noqa: E402
from halting import _hit  # noqa: E402

from models.halting.sets import build_set  # noqa: E402
from therapy_app.asr.recognizer import SpeechRecognizer  # noqa: E402
from therapy_app.asr.token_lm import TokenLM  # noqa: E402
from therapy_app.asr.utterance import PAUSE_GAP_S, prepare  # noqa: E402
from therapy_app.correction import Corrector  # noqa: E402
from therapy_app.vad.silero import VoiceActivityDetector  # noqa: E402


def _decode_all(recognizer: SpeechRecognizer, clip: Any, weights: list[str]) -> list[str]:
    encoded = recognizer.encode(clip)
    base = recognizer.default_options
    out = []
    for config in weights:
        beam, weight = config.split(":")
        options = replace(base, beam_size=int(beam), lm_weight=float(weight))
        out.append(recognizer.transcribe(encoded, options).text)
    return out


def halting_dev(recognizer: SpeechRecognizer, vad: VoiceActivityDetector, corrector: Corrector,
                voices: str, size: int, weights: list[str]) -> dict[str, Any]:  # fmt: skip
    """Heard WER and end-to-end exact per weight on one dev set."""
    said, heard, hits = [], [[] for _ in weights], [[] for _ in weights]
    for item, utt in build_set("dev", size, voices):
        prepared = prepare(vad, utt.clip, PAUSE_GAP_S)
        texts = [""] * len(weights) if prepared is None else _decode_all(
            recognizer, prepared[1], weights)  # fmt: skip
        said.append(utt.spoken)
        for i, text in enumerate(texts):
            heard[i].append(text)
            e2e = (corrector.correct(text).best or text) if text else ""
            hits[i].append(_hit(e2e, item.refs))
    return {
        w: {
            "heard_wer": round(wer(said, heard[i]), 1),
            "e2e_exact": round(sum(hits[i]) / len(hits[i]), 3),
        }
        for i, w in enumerate(weights)
    }


def clean_pico(recognizer: SpeechRecognizer, weights: list[str]) -> dict[str, Any]:
    """WER per category of the clean Pico set (sentences, telegraphic phrases, words)."""
    engine = deterministic_pico()
    refs: dict[str, list[str]] = {}
    hyps: dict[str, list[list[str]]] = {}
    for utt in corpus():
        texts = _decode_all(recognizer, synthesize(engine, utt), weights)
        refs.setdefault(utt.category, []).append(utt.text)
        per = hyps.setdefault(utt.category, [[] for _ in weights])
        for i, text in enumerate(texts):
            per[i].append(text)
    return {
        w: {cat: round(wer(refs[cat], hyps[cat][i]), 1) for cat in refs}
        for i, w in enumerate(weights)
    }


def armelle(recognizer: SpeechRecognizer, vad: VoiceActivityDetector,
            weights: list[str]) -> dict[str, Any]:  # fmt: skip
    """Armelle's isolated words (right / n) and halting strings (WER), per weight."""
    from human_eval import armelle_halting, armelle_words, content

    def heard(clip: Any) -> list[str]:
        prepared = prepare(vad, clip, PAUSE_GAP_S)
        return [""] * len(weights) if prepared is None else _decode_all(
            recognizer, prepared[1], weights)  # fmt: skip

    words = armelle_words()
    strings = armelle_halting(words)
    out: dict[str, Any] = {}
    word_hyps = [heard(it.clip) for it in words]
    string_hyps = [heard(it.clip) for it in strings]
    for i, w in enumerate(weights):
        pairs = zip(word_hyps, words, strict=True)
        right = sum(content(h[i]) == content(it.text) for h, it in pairs)
        out[w] = {
            "words_right": round(right / len(words), 3),
            "halting_wer": round(wer([it.text for it in strings], [h[i] for h in string_hyps]), 1),
        }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--configs", nargs="+", default=["3:0", "5:0", "5:0.2", "5:0.3"])
    parser.add_argument("--voices", nargs="+", default=["pico", "mixed"])
    parser.add_argument("--size", type=int, default=120)
    parser.add_argument("--parts", nargs="+", default=["halting", "clean", "armelle"])
    parser.add_argument("--asr-dir", type=Path, default=None)
    parser.add_argument("--lm", type=Path, default=None, help="token n-gram model (.npz)")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks/results/lm_weight.json")
    args = parser.parse_args()
    recognizer = SpeechRecognizer.load("cpu", model_dir=args.asr_dir, threads=2)
    if args.lm is not None:
        recognizer.lm = TokenLM(args.lm)
    elif any(float(c.split(":")[1]) > 0 for c in args.configs):
        sys.exit("a config with a language-model weight needs --lm")
    start = time.perf_counter()
    result: dict[str, Any] = {"configs": args.configs}
    vad = VoiceActivityDetector.load()
    if "halting" in args.parts:
        corrector = Corrector.load()
        for voices in args.voices:
            result[f"dev-{voices}"] = halting_dev(
                recognizer, vad, corrector, voices, args.size, args.configs)  # fmt: skip
            print(voices, json.dumps(result[f"dev-{voices}"]), flush=True)
    if "clean" in args.parts:
        result["clean_pico"] = clean_pico(recognizer, args.configs)
        print("clean", json.dumps(result["clean_pico"]), flush=True)
    if "armelle" in args.parts:
        result["armelle"] = armelle(recognizer, vad, args.configs)
        print("armelle", json.dumps(result["armelle"]), flush=True)
    result["seconds"] = round(time.perf_counter() - start)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"written {args.out} in {result['seconds']} s")


if __name__ == "__main__":
    main()
