"""Two probes of the corrector's keep rule on the dev hand-written sets (never the held-out one).

Usage::

    python -m models.corrector.grammaticality --corpus build/corpus   # once, ~1 min
    python benchmarks/keep_probes.py [--grammar-dir build/grammaticality]

* **Grammaticality classifier** (``models/corrector/grammaticality.py``): could
  "this already looks grammatical" keep the correct sentences the corrector
  rewrites? Prints the probability of each of them and how many agrammatic
  sources score at least as high (every one would be kept unchanged too).
* **Wider search when nothing faithful was found**: when no rewrite of the
  beam-3 search keeps every said word (the faithful-first rule then leads with
  the unchanged input), search again with a wider beam and lead with its first
  faithful rewrite. Exact match, chrF, correct sentences kept, latency.

Writes ``benchmarks/results/keep_probes.json``.
"""

from __future__ import annotations

import os

os.environ.setdefault("THERAPY_APP_THREADS", "2")

import argparse  # noqa: E402
import json  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
import sacrebleu  # noqa: E402

from models.corrector.grammaticality import WEIGHTS_FILE, GrammarModel  # noqa: E402
from therapy_app.correction import Corrector  # noqa: E402
from therapy_app.correction.corrector import MAX_ALTERNATIVES, Alternative  # noqa: E402
from therapy_app.correction.normalize import normalize_text  # noqa: E402
from therapy_app.correction.preserve import preservation  # noqa: E402
from therapy_app.correction.search import SearchOptions, beam_search  # noqa: E402

DEV_SETS = {
    "first": ROOT / "tests" / "data" / "aphasia_eval.jsonl",
    "second": ROOT / "tests" / "data" / "aphasia_eval_blind.jsonl",
}
RESULTS = ROOT / "benchmarks" / "results" / "keep_probes.json"


class WideningCorrector(Corrector):
    """The shipped corrector, searching again with ``wide_beam`` when nothing faithful was found."""

    wide_beam = 0
    widened: list[float]

    def _faithful_first(
        self,
        source: str,
        src_ids: np.ndarray,
        options: SearchOptions,
        alternatives: list[Alternative],
    ) -> list[Alternative]:
        faithful = [a for a in alternatives if preservation(source, a.text).kept]
        if self.wide_beam and alternatives and not faithful:
            start = time.perf_counter()
            hyps = beam_search(self._graphs, src_ids, options, self.wide_beam)
            wide = self._alternatives(source, hyps, limit=None)
            self.widened.append(time.perf_counter() - start)
            first = next((a for a in wide if preservation(source, a.text).kept), None)
            if first is not None:
                key = normalize_text(first.text)
                others = [a for a in alternatives if normalize_text(a.text) != key]
                return [first, *others][:MAX_ALTERNATIVES]
        return super()._faithful_first(source, src_ids, options, alternatives)


def _items(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def classifier_probe(model: GrammarModel, corrector: Corrector) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, path in DEV_SETS.items():
        items = _items(path)
        correct = [i for i in items if "correct" in i["phenomena"]]
        agrammatic = [
            p
            for i in items
            if "correct" not in i["phenomena"]
            for p in [model.probability(i["src"])]
        ]
        rewritten = []
        for item in correct:
            best = corrector.correct(item["src"], beam_size=3).best
            if normalize_text(best) != normalize_text(item["src"]):
                p = model.probability(item["src"])
                rewritten.append(
                    {
                        "src": item["src"],
                        "p": round(p, 3),
                        "agrammatic_at_least": sum(a >= p for a in agrammatic),
                    }
                )
        out[name] = {
            "correct_above": {
                t: round(float(np.mean([model.probability(i["src"]) > t for i in correct])), 3)
                for t in (0.5, 0.8, 0.9)
            },
            "agrammatic_above": {
                t: round(float(np.mean(np.array(agrammatic) > t)), 3) for t in (0.5, 0.8, 0.9)
            },
            "n_correct": len(correct),
            "n_agrammatic": len(agrammatic),
            "correct_rewritten": rewritten,
        }
    return out


def widening_probe(beams: list[int]) -> dict[str, Any]:
    corrector = WideningCorrector.load()
    out: dict[str, Any] = {}
    for beam in beams:
        corrector.wide_beam = beam
        for name, path in DEV_SETS.items():
            corrector.widened = []
            items = _items(path)
            exact = kept = n_correct = 0
            chrf, seconds = [], []
            for item in items:
                start = time.perf_counter()
                best = corrector.correct(item["src"], beam_size=3).best
                seconds.append(time.perf_counter() - start)
                exact += normalize_text(best) in {normalize_text(r) for r in item["refs"]}
                chrf.append(max(sacrebleu.sentence_chrf(best, [r]).score for r in item["refs"]))
                if "correct" in item["phenomena"]:
                    n_correct += 1
                    kept += normalize_text(best) == normalize_text(item["src"])
            row = {
                "exact": round(exact / len(items), 3),
                "chrf": round(statistics.fmean(chrf), 1),
                "correct_kept": f"{kept}/{n_correct}",
                "widened": len(corrector.widened),
                "median_ms": round(1000 * statistics.median(seconds), 1),
                "mean_ms": round(1000 * statistics.fmean(seconds), 1),
            }
            out[f"{name}_beam{beam}"] = row
            print(
                f"wider beam {beam or '-':>2} {name:6}: "
                + ", ".join(f"{k} {v}" for k, v in row.items()),
                flush=True,
            )
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--grammar-dir", type=Path, default=ROOT / "build" / "grammaticality")
    parser.add_argument("--beams", type=int, nargs="+", default=[0, 6, 10])
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    with np.load(args.grammar_dir / WEIGHTS_FILE) as data:
        recipe = json.loads(str(data["recipe"]))  # how it was trained, corpus validation figures
    results = {
        "classifier_recipe": recipe,
        "classifier": classifier_probe(GrammarModel.load(args.grammar_dir), Corrector.load()),
        "widening": widening_probe(args.beams),
    }
    print(f"classifier on the corpus validation split: {recipe['valid']}")
    for name, row in results["classifier"].items():
        print(
            f"classifier {name}: correct above 0.5/0.8/0.9 {row['correct_above']}, "
            f"agrammatic {row['agrammatic_above']}"
        )
        for item in row["correct_rewritten"]:
            print(
                f"  rewritten correct sentence {item['src']!r}: p {item['p']}, "
                f"{item['agrammatic_at_least']} of {row['n_agrammatic']} agrammatic as high"
            )
    args.out.write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
