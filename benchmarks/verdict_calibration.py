"""Chooses the verdict's settings (prior weight, margins, transcript slack) on the calibration half.

Usage: ``.venv/bin/python benchmarks/verdicts.py --calibration-only build/verdict_rows.json``
(about 15 minutes: every calibration try of ``benchmarks/verdicts.py`` heard and
scored once, each scored text kept with its score on the audio and on silence),
then ``.venv/bin/python benchmarks/verdict_calibration.py build/verdict_rows.json``
(seconds: the rule replayed on those numbers for every setting).

Only the calibration half is read: Armelle's words of that half (repetition and
completion, right, cut, swapped, sound-alike) and the synthetic voices' pictures
of that half (naming and repetition, right, sound-alike, same category). A
setting is scored by 3 x false accepts + false rejects (a "Bravo" for a wrong
answer is the worst error); ties go to fewer false accepts, then to the
settings in use. The blind half is only measured afterwards by
``benchmarks/verdicts.py`` with the chosen constants in ``therapy_app/verdict.py``.
"""

from __future__ import annotations

import argparse
import itertools
import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.bookkeeping import write_report
from therapy_app import verdict

RESULTS = Path(__file__).resolve().parent / "results" / "verdict_calibration.json"
FALSE_ACCEPT_COST = 3

PRIOR_WEIGHTS = (0.0, 0.25, 0.5, 0.75, 1.0)
SLACKS = (0.5, 1.0, 1.5, 2.0, 3.0, 99.0)
MARGINS = tuple(round(0.1 * i, 1) for i in range(26))
"""From 0: the target must at least beat every distractor."""


@dataclass(frozen=True)
class Setting:
    """One way to apply the rule.

    Attributes:
        prior_weight: ``verdict.PRIOR_WEIGHT``.
        slack: ``verdict.TRANSCRIPT_SLACK``.
        margin: ``verdict.RANK_MARGIN`` (sentences and words said after the model).
        naming_margin: ``verdict.NAMING_RANK_MARGIN``.
    """

    prior_weight: float
    slack: float
    margin: float
    naming_margin: float


PREVIOUS = Setting(0.0, 1.5, 1.1, 0.4)
"""The rule before the prior was taken off (docs/decisions/0018 and 0019)."""


def _score(candidate: dict[str, Any], weight: float) -> float:
    prior = candidate["prior_per_token"]
    return float(candidate["per_token"] - (0.0 if prior is None else weight * prior))


def measures(row: dict[str, Any], weight: float) -> tuple[float | None, float | None]:
    """(margin over the best distractor, gap to the free transcript) of one stored try."""
    candidates = row["candidates"]
    forms = [c for c in candidates if c["role"] == "form"]
    wrong = [c for c in candidates if c["role"] == "distractor"]
    heard = [c for c in candidates if c["role"] == "heard"]
    found_margin = gap = None
    if forms:
        best = max(forms, key=lambda c: _score(c, weight))
        if wrong:
            found_margin = _score(best, weight) - max(_score(c, weight) for c in wrong)
        if heard:
            # On plain scores, as the app compares the transcript.
            gap = best["per_token"] - heard[0]["per_token"]
    return found_margin, gap


def near_margin(row: dict[str, Any], weight: float) -> float | None:
    """The best form's total evidence less its best near variant's (None without variants)."""
    candidates = row["candidates"]
    forms = [c for c in candidates if c["role"] == "form"]
    near = [c for c in candidates if c["role"] == "near"]
    if not forms or not near:
        return None
    best = max(forms, key=lambda c: _score(c, weight))

    def total(c: dict[str, Any]) -> float:
        return _score(c, weight) * int(c.get("tokens") or 0)

    return total(best) - max(total(c) for c in near)


NEAR_OFF = (-999.0, -999.0)
"""Near thresholds that never reject: the rule as it was before near variants."""


def accepted(
    row: dict[str, Any],
    weight: float,
    slack: float,
    margin: float,
    phones: tuple[float, float, float] | None = None,
    near: tuple[float, float] | None = None,
) -> bool:
    """The rule's verdict on one stored try under one setting.

    ``phones``: (least phone fit, least phone margin, least decoder margin for the
    phone rule: -99 does not look at it); None leaves the phone rule out.
    ``near``: (least decoder, least phoneme margin over the near variants); None
    takes the app's (``NEAR_OFF``: the rule without them).
    """
    near_min, phone_near_min = (
        near if near is not None else (verdict.NEAR_MARGIN, verdict.PHONE_NEAR_MARGIN)
    )
    found_margin, gap = measures(row, weight)
    fit_min, margin_min, floor = phones if phones is not None else (0.0, 0.0, -99.0)
    if phones is not None and found_margin is not None and found_margin < floor:
        phones = None  # a floor the decoder's margin misses: the phone rule cannot decide
    return verdict.decide(
        row["wer"],
        found_margin,
        gap,
        rank_margin=margin,
        transcript_slack=slack,
        phone_fit=row.get("phone_fit") if phones is not None else None,
        phone_margin=row.get("phone_margin") if phones is not None else None,
        heard_distractor=_heard_distractor(row),
        phone_fit_min=fit_min,
        phone_margin_min=margin_min,
        near_margin=near_margin(row, weight),
        phone_near_margin=row.get("phone_near_margin") if phones is not None else None,
        near_margin_min=near_min,
        phone_near_margin_min=phone_near_min,
    ).success


NEAR_MARGINS = (-999.0, -1.0, 0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 5.0)
PHONE_NEAR_MARGINS = (-999.0, -0.1, 0.0, 0.05, 0.1, 0.15, 0.2, 0.3)


def choose_near(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every (decoder, phoneme) threshold over the near variants, the rest as the app
    sets it, with its cost, best first (ties: fewer false accepts, then looser)."""
    app_phones = (verdict.PHONE_FIT, verdict.PHONE_MARGIN, -99.0)
    table = []
    for near_min, phone_near_min in itertools.product(NEAR_MARGINS, PHONE_NEAR_MARGINS):
        accepts = [
            accepted(r, verdict.PRIOR_WEIGHT, verdict.TRANSCRIPT_SLACK, _app_margin(r),
                     app_phones, (near_min, phone_near_min))
            for r in rows
        ]  # fmt: skip
        fa, fr = errors(rows, accepts)
        table.append(
            {"near_margin": near_min, "phone_near_margin": phone_near_min,
             "cost": FALSE_ACCEPT_COST * fa + fr, "false_accepts": fa, "false_rejects": fr}
        )  # fmt: skip
    table.sort(
        key=lambda t: (t["cost"], t["false_accepts"], t["near_margin"], t["phone_near_margin"])
    )
    return table


PHONE_FITS = tuple(round(-0.05 * i, 2) for i in range(41))
PHONE_MARGINS = tuple(round(0.05 * i, 2) for i in range(-4, 41))
PHONE_DECODER_MARGINS = (-99.0, -1.0, -0.5, -0.25, 0.0)
"""Whether the phone rule should also ask the decoder's margin to reach a floor
(-99: not looked at, the app's rule; the calibration of 0029 chose it)."""


def choose_phones(
    rows: list[dict[str, Any]],
) -> tuple[tuple[float, float, float], list[dict[str, Any]]]:
    """The phone rule's thresholds on ``rows``, the decoder's rule as the app sets it.

    Returns the best (least fit, least margin, decoder floor) and every triple
    with its cost, best first; ties go to fewer false accepts, then to the
    stricter triple.
    """
    table = []
    for fit_min, margin_min, floor in itertools.product(
        PHONE_FITS, PHONE_MARGINS, PHONE_DECODER_MARGINS
    ):
        accepts = [
            accepted(r, verdict.PRIOR_WEIGHT, verdict.TRANSCRIPT_SLACK, _app_margin(r),
                     (fit_min, margin_min, floor))
            for r in rows
        ]  # fmt: skip
        fa, fr = errors(rows, accepts)
        table.append(
            {"phone_fit": fit_min, "phone_margin": margin_min, "decoder_margin": floor,
             "cost": FALSE_ACCEPT_COST * fa + fr, "false_accepts": fa, "false_rejects": fr}
        )  # fmt: skip
    table.sort(
        key=lambda t: (
            t["cost"], t["false_accepts"], -t["phone_fit"], -t["phone_margin"],
            -t["decoder_margin"],
        )
    )  # fmt: skip
    best = table[0]
    return (best["phone_fit"], best["phone_margin"], best["decoder_margin"]), table


def _heard_distractor(row: dict[str, Any]) -> bool:
    """The transcript is word for word a distractor (as :func:`score_try` finds it).

    Worked out once per row: the grid asks it for every setting.
    """
    if "_heard_distractor" not in row:
        from therapy_app.analysis.answers import best_wer

        wrong = [c["text"] for c in row["candidates"] if c["role"] == "distractor"]
        heard = bool(wrong) and bool(row["heard"]) and best_wer(row["heard"], wrong)[0] == 0.0
        row["_heard_distractor"] = heard
    return bool(row["_heard_distractor"])


def _app_margin(row: dict[str, Any]) -> float:
    return verdict.NAMING_RANK_MARGIN if _naming(row) else verdict.RANK_MARGIN


def rejection_reasons(rows: list[dict[str, Any]]) -> Counter[tuple[str, str, str]]:
    """Per (speech, kind of try, reason), the tries under the app's constants: accepted,
    nothing heard, or rejected by the margin, the transcript or both (decision 0023)."""
    counts: Counter[tuple[str, str, str]] = Counter()
    for row in rows:
        margin, gap = measures(row, verdict.PRIOR_WEIGHT)
        needed = verdict.NAMING_RANK_MARGIN if _naming(row) else verdict.RANK_MARGIN
        if verdict.decide(row["wer"], margin, gap, rank_margin=needed).success:
            reason = "accepted"
        elif not row["candidates"]:
            reason = "nothing heard"
        else:
            low = margin is None or margin < needed
            vetoed = gap is not None and gap < -verdict.TRANSCRIPT_SLACK
            reason = (
                "margin and transcript" if low and vetoed else "margin" if low else "transcript"
            )
        counts[(_speech(row), row["kind"], reason)] += 1
    return counts


def _speech(row: dict[str, Any]) -> str:
    if row["voice"] == "human":
        return "human"
    # The synthetic voices' sentences (verdicts.sentence_trials), apart from their words.
    return "synthetic-sentences" if len(row["target"].split()) >= 3 else "synthetic"


def _naming(row: dict[str, Any]) -> bool:
    # A one-word target takes naming's margin in every exercise (its distractors are
    # sound-alike and same-category words too).
    return bool(row["margin_kind"] == "naming")


def errors(rows: list[dict[str, Any]], accepts: list[bool]) -> tuple[int, int]:
    """(false accepts, false rejects)."""
    fa = sum(a for r, a in zip(rows, accepts, strict=True) if r["kind"] != "correct")
    fr = sum(not a for r, a in zip(rows, accepts, strict=True) if r["kind"] == "correct")
    return fa, fr


def _best_margin(
    rows: list[dict[str, Any]], weight: float, slack: float, current: float
) -> tuple[float, int, int]:
    options = []
    for margin in MARGINS:
        fa, fr = errors(rows, [accepted(r, weight, slack, margin) for r in rows])
        options.append((FALSE_ACCEPT_COST * fa + fr, fa, abs(margin - current), margin, fr))
    cost, fa, _, margin, fr = min(options)
    return margin, fa, fr


def choose(rows: list[dict[str, Any]]) -> tuple[Setting, list[dict[str, Any]]]:
    """The best setting on ``rows`` and the best of each (weight, slack), best first."""
    naming = [r for r in rows if _naming(r)]
    others = [r for r in rows if not _naming(r)]
    table = []
    for weight, slack in itertools.product(PRIOR_WEIGHTS, SLACKS):
        margin, fa1, fr1 = _best_margin(others, weight, slack, verdict.RANK_MARGIN)
        nmargin, fa2, fr2 = _best_margin(naming, weight, slack, verdict.NAMING_RANK_MARGIN)
        fa, fr = fa1 + fa2, fr1 + fr2
        table.append(
            {
                "setting": Setting(weight, slack, margin, nmargin).__dict__,
                "cost": FALSE_ACCEPT_COST * fa + fr,
                "false_accepts": fa,
                "false_rejects": fr,
            }
        )
    current = (verdict.PRIOR_WEIGHT, verdict.TRANSCRIPT_SLACK)
    table.sort(
        key=lambda t: (
            t["cost"],
            t["false_accepts"],
            (t["setting"]["prior_weight"], t["setting"]["slack"]) != current,
        )
    )
    return Setting(**table[0]["setting"]), table


def breakdown(
    rows: list[dict[str, Any]],
    setting: Setting,
    phones: tuple[float, float, float] | None = None,
    near: tuple[float, float] | None = None,
) -> list[dict[str, Any]]:
    """Accept rate per voice group, exercise and kind of try under ``setting`` (and
    ``phones``, ``near``)."""
    out = []
    groups = sorted({(_speech(r), r["exercise"]) for r in rows})
    for group, exercise in groups:
        mine = [r for r in rows if _speech(r) == group and r["exercise"] == exercise]
        for kind in sorted({r["kind"] for r in mine}):
            of = [r for r in mine if r["kind"] == kind]
            n_acc = sum(
                accepted(
                    r,
                    setting.prior_weight,
                    setting.slack,
                    setting.naming_margin if _naming(r) else setting.margin,
                    phones,
                    near,
                )
                for r in of
            )
            out.append(
                {
                    "speech": group,
                    "exercise": exercise,
                    "kind": kind,
                    "n": len(of),
                    "accepted": n_acc,
                }  # fmt: skip
            )
    return out


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rows", type=Path, help="written by verdicts.py --calibration-only")
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument(
        "--reasons",
        action="store_true",
        help="print why each kind of try is rejected under the app's constants; write nothing",
    )
    args = parser.parse_args(argv)
    rows = json.loads(args.rows.read_text(encoding="utf-8"))["calibration_rows"]
    if any(r["split"] != "calibration" for r in rows):
        raise SystemExit("only calibration rows may be read here")
    if args.reasons:
        for (speech, kind, reason), n in sorted(rejection_reasons(rows).items()):
            print(f"{speech}\t{kind}\t{reason}\t{n}")
        return 0
    best, table = choose(rows)
    without_prior = next(t for t in table if t["setting"]["prior_weight"] == 0.0)
    for t in table[:8]:
        print(json.dumps(t))
    print("best without the prior:", json.dumps(without_prior))
    report = {
        "description": __doc__.split("\n\n")[1].replace("\n", " "),
        "tries": len(rows),
        "chosen": best.__dict__,
        "chosen_breakdown": breakdown(rows, best),
        "previous": PREVIOUS.__dict__,
        "previous_breakdown": breakdown(rows, PREVIOUS),
        "best_without_prior": without_prior,
        "best_without_prior_breakdown": breakdown(rows, Setting(**without_prior["setting"])),
        "table": table,
    }
    app = Setting(verdict.PRIOR_WEIGHT, verdict.TRANSCRIPT_SLACK, verdict.RANK_MARGIN,
                  verdict.NAMING_RANK_MARGIN)  # fmt: skip
    if any(r.get("phone_fit") is not None for r in rows):
        phones, phone_table = choose_phones(rows)
        for t in phone_table[:8]:
            print("phones:", json.dumps(t))
        report["phones_chosen"] = dict(zip(("phone_fit", "phone_margin", "decoder_margin"),
                                           phones, strict=True))  # fmt: skip
        report["phones_app"] = [verdict.PHONE_FIT, verdict.PHONE_MARGIN, -99.0]
        report["phones_breakdown"] = breakdown(rows, app, phones)
        report["phones_app_breakdown"] = breakdown(
            rows, app, (verdict.PHONE_FIT, verdict.PHONE_MARGIN, -99.0)
        )
        report["without_phones_breakdown"] = breakdown(rows, app)
        report["phones_table"] = phone_table[:40]
    if any(r.get("near_margin") is not None for r in rows):
        near_table = choose_near(rows)
        for t in near_table[:8]:
            print("near:", json.dumps(t))
        app_phones = (verdict.PHONE_FIT, verdict.PHONE_MARGIN, -99.0)
        report["near_app"] = [verdict.NEAR_MARGIN, verdict.PHONE_NEAR_MARGIN]
        report["near_chosen"] = near_table[0]
        report["near_off"] = next(
            t for t in near_table if (t["near_margin"], t["phone_near_margin"]) == NEAR_OFF
        )
        report["near_app_breakdown"] = breakdown(rows, app, app_phones)
        report["near_off_breakdown"] = breakdown(rows, app, app_phones, NEAR_OFF)
        report["near_table"] = near_table[:40]
    write_report(args.out, report)
    print(f"chosen {best}; written {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
