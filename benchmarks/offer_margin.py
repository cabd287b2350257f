"""Corrector: how often the unchanged input is offered as a choice, per offer margin.

Usage: ``python benchmarks/offer_margin.py [--model-dir DIR]``. Runs the
corrector on the dev hand-written sets (first and second; never the held-out
one) and prints, for each margin, the share of correct inputs whose unchanged
sentence is among the proposals and the share of agrammatic inputs where it is
(offering "moi aller boulangerie hier" as a model sentence is unwanted).
Writes ``benchmarks/results/offer_margin.json``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

from models.halting.sets import load_items  # noqa: E402
from therapy_app.correction import Corrector  # noqa: E402
from therapy_app.correction.normalize import normalize_text  # noqa: E402

MARGINS = (0.25, 0.4, 0.6, 0.8, 1.0, 1.5)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model-dir", type=Path, default=None)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks/results/offer_margin.json")
    args = parser.parse_args(argv)
    corrector = Corrector.load(model_dir=args.model_dir)
    items = load_items("dev")
    rows = []
    for margin in MARGINS:
        corrector.offer_margin = margin
        offered = {True: 0, False: 0}
        first = {True: 0, False: 0}
        for item in items:
            alts = [normalize_text(a.text) for a in corrector.correct(item.src).alternatives]
            src = normalize_text(item.src)
            offered[item.correct] += src in alts
            first[item.correct] += bool(alts) and alts[0] == src
        n_ok = sum(i.correct for i in items)
        n_bad = len(items) - n_ok
        row = {
            "offer_margin": margin,
            "correct_inputs_offered": round(offered[True] / n_ok, 3),
            "correct_inputs_first": round(first[True] / n_ok, 3),
            "agrammatic_inputs_offered": round(offered[False] / n_bad, 3),
            "n_correct": n_ok,
            "n_agrammatic": n_bad,
        }
        rows.append(row)
        print(row, flush=True)
    args.out.write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
