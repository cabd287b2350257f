"""Keep-unchanged trade-off of the shipped corrector on the development hand-written sets.

Usage::

    python benchmarks/keep_margin.py [--model-dir DIR] [--out benchmarks/results/keep_margin.json]

For every (content-word penalty, keep margin) setting the calibration tries,
the share of correct sentences returned unchanged and the exact match on
agrammatic items, on the first and second hand-written sets together. The
held-out set is never read: it stays the unbiased check of the chosen setting.
Uses greedy decoding, like the calibration on the synthetic validation split.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

from benchmarks.correction import HAND_SETS, _read_jsonl  # noqa: E402
from models.corrector.calibrate import choose_setting  # noqa: E402
from therapy_app.correction import Corrector  # noqa: E402
from therapy_app.correction.diff import missing_content_words  # noqa: E402
from therapy_app.correction.normalize import normalize_text  # noqa: E402

DEV_SETS = ("handwritten", "handwritten_blind")
SHOWN_MARGINS = (0.0, 0.25, 0.5, 1.0, 1.5, 2.0)


def rows_for(corrector: Corrector, items: list[dict]) -> list[dict]:
    """Per-item rows in the calibration's format (``choose_setting``)."""
    rows = []
    for item in items:
        source = normalize_text(item["src"])
        refs = {normalize_text(ref) for ref in item["refs"]}
        result = corrector.correct(source, beam_size=1)
        best = result.alternatives[0].score if result.alternatives else float("-inf")
        rows.append(
            {
                "best_ok": normalize_text(result.best) in refs,
                "identity_ok": source in refs,
                "gap": best - corrector.unchanged(source).score,
                "missing": missing_content_words(source, result.best),
                "intact": item["phenomena"] == ["correct"],
            }
        )
    return rows


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model-dir", type=Path)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks/results/keep_margin.json")
    args = parser.parse_args(argv)
    corrector = Corrector.load(provider="cpu", model_dir=args.model_dir)
    shipped = {
        "keep_margin": corrector.config.keep_margin,
        "drop_penalty": corrector.config.drop_penalty,
    }
    corrector.config = replace(corrector.config, keep_margin=None, drop_penalty=0.0)
    items = [it for key in DEV_SETS for it in _read_jsonl(HAND_SETS[key])]
    _, curve, _ = choose_setting(rows_for(corrector, items), min_unchanged=0.95)
    print(f"{'penalty':>7} {'margin':>6} {'agrammatic EM':>13} {'correct unchanged':>17}")
    for point in curve:
        if point["margin"] in SHOWN_MARGINS and point["drop_penalty"] in (0.0, 1.0, 2.0):
            print(
                f"{point['drop_penalty']:>7.1f} {point['margin']:>6.2f} "
                f"{point['exact_degraded']:>13.1%} {point['intact_unchanged']:>17.1%}"
            )
    report = {
        "sets": list(DEV_SETS),
        "items": len(items),
        "correct_items": sum(it["phenomena"] == ["correct"] for it in items),
        "shipped": shipped,
        "curve": [
            {
                "drop_penalty": p["drop_penalty"],
                "margin": p["margin"],
                "agrammatic_exact": p["exact_degraded"],
                "correct_unchanged": p["intact_unchanged"],
            }
            for p in curve
        ],
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
