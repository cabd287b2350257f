"""Speech-to-speech benchmark on halting speech: heard WER, end-to-end exact/chrF, latency.

Usage::

    python benchmarks/halting.py [--size 120] [--splits dev blind] [--independent]
        [--out benchmarks/results/halting.json]

Sets (``models/halting/sets.py``, regenerated deterministically on every run):
``dev`` (first and second hand-written sets; tuning allowed) and ``blind``
(held-out hand-written set; aggregate figures only, never tuned on), each
spoken twice: by Pico alone (the issue's one-voice measurement) and by mixed
voices (Pico and every espeak-ng French voice and variant), with pauses of
0.3-2.5 s, "euh", restarts, tape-speed, reverberation and noise.
For each utterance the app's path runs: VAD and shortened pauses
(``therapy_app.asr.utterance.hear``), default decoding, then the installed
corrector; the corrector is also run alone on the clean telegraphic text.
``--independent`` adds recorded human French reserved for evaluation
(``benchmarks/human_eval.py``); run it only to report, never to choose settings.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

import sacrebleu  # noqa: E402

from benchmarks.asr_experiments import (  # noqa: E402
    add_candidate_options,
    candidate_recognizer,
    wer,
)
from benchmarks.bookkeeping import write_report  # noqa: E402
from models.halting.sets import EvalItem, build_set  # noqa: E402
from therapy_app.asr.recognizer import SpeechRecognizer  # noqa: E402
from therapy_app.asr.utterance import PAUSE_GAP_S, hear  # noqa: E402
from therapy_app.correction import Corrector  # noqa: E402
from therapy_app.correction.normalize import normalize_text  # noqa: E402
from therapy_app.model_store import load_model  # noqa: E402
from therapy_app.vad.silero import VoiceActivityDetector  # noqa: E402

TARGETS = {
    "heard_wer": 25.0,
    "e2e_exact": 0.40,
    "e2e_chrf": 75.0,
    "clean_exact": 0.55,
    "clean_chrf": 82.0,
    "unchanged_rate_correct_inputs_clean": 0.95,
    "asr_median_s": 1.0,
    "corrector_median_ms": 60.0,
}


def _hit(hyp: str, refs: tuple[str, ...]) -> bool:
    return any(normalize_text(hyp) == normalize_text(r) for r in refs)


def _chrf(hyps: list[str], items: list[EvalItem]) -> float:
    closest = [
        max(it.refs, key=lambda r, h=h: sacrebleu.sentence_chrf(h, [r]).score)
        for h, it in zip(hyps, items, strict=True)
    ]
    return round(sacrebleu.corpus_chrf(hyps, [closest]).score, 1)


def _summary(rows: list[dict[str, Any]], items: list[EvalItem]) -> dict[str, Any]:
    return {
        "n": len(rows),
        "heard_wer": round(wer([r["said"] for r in rows], [r["heard"] for r in rows]), 1),
        "e2e_exact": round(sum(r["e2e_hit"] for r in rows) / len(rows), 3),
        "e2e_chrf": _chrf([r["e2e"] for r in rows], items),
        "clean_exact": round(sum(r["clean_hit"] for r in rows) / len(rows), 3),
        "clean_chrf": _chrf([r["clean"] for r in rows], items),
    }


_CLEAN: dict[str, str] = {}


def _clean_correction(corrector: Corrector, text: str) -> str:
    """The corrector on the clean text, once per text (the voice sets share their texts)."""
    if text not in _CLEAN:
        _CLEAN[text] = corrector.correct(text).best or text
    return _CLEAN[text]


def run_set(
    split: str, voices: str, size: int, recognizer: SpeechRecognizer,
    vad: VoiceActivityDetector, corrector: Corrector, gap_s: float = PAUSE_GAP_S,
) -> dict[str, Any]:  # fmt: skip
    """Every utterance of one set through the loop; figures overall, per voice, per pause."""
    data = build_set(split, size, voices)
    rows, asr_s, corr_ms = [], [], []
    for item, utt in data:
        heard = hear(recognizer, vad, utt.clip, gap_s=gap_s)
        text = heard.transcript.text if heard is not None else ""
        if heard is not None and heard.clip.duration <= 5.0:
            asr_s.append(heard.asr_seconds)
        start = time.perf_counter()
        e2e = (corrector.correct(text).best or text) if text else ""
        corr_ms.append(1000 * (time.perf_counter() - start))
        clean = _clean_correction(corrector, item.src)
        rows.append({
            "uid": utt.uid, "voice": utt.voice, "family": utt.family, "pause_bin": utt.pause_bin,
            "src": item.src, "said": utt.spoken, "heard": text, "e2e": e2e, "clean": clean,
            "e2e_hit": _hit(e2e, item.refs), "clean_hit": _hit(clean, item.refs),
            "correct_input": item.correct,
        })  # fmt: skip
    items = [it for it, _ in data]
    result = _summary(rows, items)
    correct = [r for r in rows if r["correct_input"]]
    result["unchanged_rate_correct_inputs_clean"] = (
        round(sum(normalize_text(r["clean"]) == normalize_text(r["src"]) for r in correct)
              / len(correct), 3) if correct else None
    )  # fmt: skip
    for key in ("family", "pause_bin"):
        groups: dict[str, list[int]] = defaultdict(list)
        for i, r in enumerate(rows):
            groups[r[key]].append(i)
        result[f"per_{key}"] = {
            g: _summary([rows[i] for i in idx], [items[i] for i in idx])
            for g, idx in sorted(groups.items())
        }
    result["asr_median_s_le_5s"] = round(statistics.median(asr_s), 3) if asr_s else None
    result["corrector_median_ms"] = round(statistics.median(corr_ms), 1)
    if split == "dev":  # the blind set's items are never kept one by one
        result["rows"] = rows
    return result


def _fmt(v: Any, key: str = "") -> str:
    if v is None or v == "":
        return "—"
    ratio = key in ("e2e_exact", "clean_exact", "unchanged_rate_correct_inputs_clean")
    ratio = ratio or key.endswith("_right")
    return f"{100 * v:.1f} %" if ratio else str(v)


def print_table(results: dict[str, Any]) -> None:
    """The issue's table: one row per measure, one column per set."""
    sets = [k for k in results["sets"]]
    print("| measure | target | " + " | ".join(sets) + " |")
    print("|---|---|" + "---|" * len(sets))
    for key, label in (
        ("heard_wer", "heard WER (%)"),
        ("e2e_exact", "end-to-end exact"),
        ("e2e_chrf", "end-to-end chrF"),
        ("clean_exact", "corrector alone, clean text: exact"),
        ("clean_chrf", "corrector alone, clean text: chrF"),
        ("asr_median_s_le_5s", "ASR median s (≤ 5 s clips)"),
        ("unchanged_rate_correct_inputs_clean", "correct inputs kept unchanged (clean)"),
        ("corrector_median_ms", "corrector median ms"),
    ):
        target = TARGETS.get(key.replace("_le_5s", ""), "")
        cells = [_fmt(results["sets"][s].get(key), key) for s in sets]
        print(f"| {label} | {_fmt(target, key)} | " + " | ".join(cells) + " |")
    human = results.get("human_allowed", {})
    if human:
        print(f"human (Armelle, allowed): isolated words right "
              f"{_fmt(human['armelle_words_right'], '_right')} of {human['armelle_words_n']}; "
              f"halting utterances WER {human['armelle_halting_wer']} %")  # fmt: skip
    ind = results.get("independent", {})
    if ind:
        print(f"independent (reserved, report only): read prompts WER default "
              f"{ind['read_prompts_wer_default']} % / plain beam 5 "
              f"{ind['read_prompts_wer_plain_beam5']} % (n={ind['read_prompts_n']}); "
              f"isolated nouns right {_fmt(ind['isolated_nouns_right'], '_right')} "
              f"(n={ind['isolated_nouns_n']})")  # fmt: skip
    for s in sets:
        for key in ("per_family", "per_pause_bin"):
            parts = [f"{g}: WER {v['heard_wer']} / exact {100 * v['e2e_exact']:.0f} %"
                     for g, v in results["sets"][s][key].items()]  # fmt: skip
            print(f"  {s} {key}: " + "; ".join(parts))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=120)
    parser.add_argument("--splits", nargs="+", default=["dev", "blind"])
    parser.add_argument("--voices", nargs="+", default=["pico", "mixed"])
    parser.add_argument("--independent", action="store_true")
    parser.add_argument("--corrector-dir", type=Path, default=None)
    add_candidate_options(parser)
    parser.add_argument(
        "--pause-gap", type=float, default=PAUSE_GAP_S, help="pause cap in s (1000: none)"
    )
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks/results/halting.json")
    args = parser.parse_args(argv)
    recognizer = candidate_recognizer(args.asr_dir, args.threads, args.gate)
    vad = VoiceActivityDetector.load()
    corrector = Corrector.load(model_dir=args.corrector_dir)
    meta_dir = args.corrector_dir or load_model("corrector-fr").directory
    results: dict[str, Any] = {
        "machine": {"cpu_count": __import__("os").cpu_count(), "python": platform.python_version()},
        "provider": recognizer.provider,
        "asr_version": json.loads(
            ((args.asr_dir or load_model("whisper-base").directory) / "model.json").read_text()
        )["version"],
        "adapter_gate": recognizer.default_options.adapter_gate if recognizer.model.gated else None,
        "corrector_version": json.loads((meta_dir / "model.json").read_text())["version"],
        "targets": TARGETS,
        "pause_gap_s": args.pause_gap,
        "sets": {},
    }
    for split in args.splits:
        for voices in args.voices:
            name = f"{split}-{voices}"
            print(f"running {name} …", file=sys.stderr, flush=True)
            results["sets"][name] = run_set(
                split, voices, args.size, recognizer, vad, corrector, args.pause_gap
            )
    from benchmarks.human_eval import run_allowed

    print("running human (Armelle) …", file=sys.stderr, flush=True)
    results["human_allowed"] = run_allowed(recognizer)
    if args.independent:
        from benchmarks.human_eval import run_independent

        results["independent"] = run_independent(recognizer)
    write_report(args.out, results)
    print_table(results)


if __name__ == "__main__":
    main()
