"""Writes docs/figures.md from the benchmark results in benchmarks/results/*.json.

Usage::

    python benchmarks/figures.py            # rewrite docs/figures.md
    python benchmarks/figures.py --check    # exit 1 when docs/figures.md is stale

Every number in docs/figures.md comes from a JSON file written by a benchmark
script; nothing is copied by hand. A result file this script has no section
for is still listed, so a new benchmark cannot go unnoticed.
``tests/test_figures_doc.py`` fails when the committed page is not what this
script makes from the committed JSON files.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"
OUT = ROOT / "docs" / "figures.md"

Json = dict[str, Any]


def pct(value: float | None, digits: int = 1) -> str:
    """A fraction (0.25) as a percentage ("25.0 %")."""
    return "–" if value is None else f"{100 * value:.{digits}f} %"


def num(value: float | None, digits: int = 1, unit: str = "") -> str:
    """A number with fixed decimals and an optional unit."""
    if value is None:
        return "–"
    return f"{value:.{digits}f}{' ' + unit if unit else ''}"


def table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> list[str]:
    """A Markdown table."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines + [""]


def _met(value: float | None, target: float, lower_is_better: bool) -> str:
    if value is None:
        return "–"
    return "yes" if (value <= target if lower_is_better else value >= target) else "**no**"


# Halting speech: (label, key in a set, key in targets, formatter, lower is better).
_HALTING_ROWS: list[tuple[str, str, str, Callable[[Any], str], bool]] = [
    ("heard WER vs the words spoken", "heard_wer", "heard_wer", lambda v: num(v, 1, "%"), True),
    ("end to end, exact match", "e2e_exact", "e2e_exact", pct, False),
    ("end to end, chrF", "e2e_chrf", "e2e_chrf", num, False),
    ("corrector alone on the clean text, exact", "clean_exact", "clean_exact", pct, False),
    ("corrector alone on the clean text, chrF", "clean_chrf", "clean_chrf", num, False),
    (
        "correct inputs returned unchanged (clean text)",
        "unchanged_rate_correct_inputs_clean",
        "unchanged_rate_correct_inputs_clean",
        pct,
        False,
    ),
    (
        "ASR median per utterance ≤ 5 s",
        "asr_median_s_le_5s",
        "asr_median_s",
        lambda v: num(v, 2, "s"),
        True,
    ),
    (
        "corrector median",
        "corrector_median_ms",
        "corrector_median_ms",
        lambda v: num(v, 0, "ms"),
        True,
    ),
]


def halting(data: Json) -> list[str]:
    """Speech to speech on halting speech: dev and blind sets, Pico and mixed voices."""
    sets = data["sets"]
    names = [n for n in ("dev-pico", "blind-pico", "dev-mixed", "blind-mixed") if n in sets]
    targets = data["targets"]
    out = [
        "## Halting speech, end to end",
        "",
        "`benchmarks/halting.py` → `benchmarks/results/halting.json`. Recogniser "
        f"`{data.get('asr_version', '?')}` (adapter gate {data.get('adapter_gate', '?')}), "
        f"corrector `{data['corrector_version']}`, pauses capped at {data['pause_gap_s']} s, "
        f"provider {data['provider']}, {data['machine']['cpu_count']} CPU cores. "
        "**dev**: tuning allowed; **blind**: held-out set, aggregate only, never tuned on. "
        "**Pico**: one voice; **mixed**: Pico and the espeak-ng French voices. "
        '"met" compares the dev Pico figure with the target.',
        "",
    ]
    rows = []
    for label, key, target_key, fmt, lower in _HALTING_ROWS:
        target = targets.get(target_key)
        target_text = "–" if target is None else ("≤ " if lower else "≥ ") + fmt(target)
        values = [fmt(sets[n].get(key)) for n in names]
        met = "–" if target is None else _met(sets["dev-pico"].get(key), target, lower)
        rows.append([label, target_text, *values, met])
    out += table(["measure", "target", *names, "met (dev Pico)"], rows)
    for title, field in (("voice", "per_family"), ("pause between word groups", "per_pause_bin")):
        out += [f"Per {title}, dev sets:", ""]
        rows = []
        for name in names:
            if not name.startswith("dev"):
                continue
            for group, row in sets[name][field].items():
                rows.append(
                    [
                        name,
                        group,
                        str(row["n"]),
                        num(row["heard_wer"], 1, "%"),
                        pct(row["e2e_exact"]),
                        num(row["e2e_chrf"]),
                    ]
                )
        out += table(["set", title, "n", "heard WER", "exact", "chrF"], rows)
    human = data.get("human_allowed")
    if human:
        out += _measures(
            "Human speech, allowed for tuning (Armelle, `asterisk-prompt-fr-armelle`, "
            "8 kHz telephone prompts):",
            [
                (
                    "isolated words transcribed right",
                    human["armelle_words_n"],
                    pct(human["armelle_words_right"]),
                ),
                (
                    "her words joined with 0.6–2.5 s pauses, WER",
                    human["armelle_halting_n"],
                    num(human["armelle_halting_wer"], 1, "%"),
                ),
            ],
        )
    independent = data.get("independent")
    if independent:
        prompts = independent["read_prompts_n"]
        out += _measures(
            "Reserved human recordings (`--independent`; reported, nothing chosen on them):",
            [
                (
                    "read prompts (`asterisk-core-sounds-fr`), WER, app defaults",
                    prompts,
                    num(independent["read_prompts_wer_default"], 1, "%"),
                ),
                (
                    "read prompts, WER, Whisper's own options (beam 5, no prompt, punctuation)",
                    prompts,
                    num(independent["read_prompts_wer_plain_beam5"], 1, "%"),
                ),
                (
                    "isolated nouns (`ktuberling-data`) transcribed right",
                    independent["isolated_nouns_n"],
                    pct(independent["isolated_nouns_right"]),
                ),
            ],
        )
    return out


def _measures(intro: str, rows: Sequence[tuple[str, object, str]]) -> list[str]:
    """One line of introduction, then a "measure | n | value" table."""
    return [intro, "", *table(["measure", "n", "value"], [[m, str(n), v] for m, n, v in rows])]


def speech(data: Json) -> list[str]:
    """The speech engines on clean synthetic speech: ASR WER, scoring, TTS, VAD, memory."""
    beam, greedy = data["beam"], data["greedy"]
    n = data["test_set"]
    out = [
        "## Speech engines",
        "",
        f"`benchmarks/speech.py` → `benchmarks/results/speech.json` ({data['date']}, "
        f"{data['machine']}, provider {data['provider']}). SVOX Pico speech: "
        f"{n['sentence']} read sentences, {n['telegraphic']} telegraphic phrases with 600 ms "
        f"pauses, {n['word']} single words. Default decoding: beam "
        f"{beam['options']['beam_size']}, prompt « {beam['options']['prompt']} », adapter gate "
        f"{beam['options'].get('adapter_gate', '–')}.",
        "",
    ]
    rows = [
        ["WER, sentences", num(beam["wer_sentence"], 1, "%"), num(greedy["wer_sentence"], 1, "%")],
        [
            "WER, telegraphic phrases",
            num(beam["wer_telegraphic"], 1, "%"),
            num(greedy["wer_telegraphic"], 1, "%"),
        ],
        ["WER, single words", num(beam["wer_word"], 1, "%"), num(greedy["wer_word"], 1, "%")],
        [
            "median / p90 latency, utterance ≤ 5 s",
            f"{num(beam['latency_median_s'], 2)} / {num(beam['latency_p90_s'], 2)} s",
            f"{num(greedy['latency_median_s'], 2)} / {num(greedy['latency_p90_s'], 2)} s",
        ],
        ["real-time factor", num(beam["rtf"], 2), num(greedy["rtf"], 2)],
    ]
    out += table(["", "default (beam)", "greedy"], rows)
    score = data["score"]
    misses = ", ".join(f"« {m['ref']} » (heard as « {m['top']} »)" for m in score["misses"])
    out += table(
        ["measure", "value"],
        [
            [
                f"`score`: true text first among {score['candidates_per_call']} candidates",
                pct(score["top1_accuracy"]),
            ],
            ["`score` median latency", num(score["latency_median_s"], 2, "s")],
            ["`score` misses", misses or "none"],
            [
                f"TTS ({data['tts']['voice']}) time to first audio, warm, median",
                num(1000 * data["tts"]["first_audio_warm_median_s"], 0, "ms"),
            ],
            ["VAD real-time factor", num(data["vad"]["rtf"], 4)],
            ["peak memory", f"{data['peak_memory_mb']} MB"],
        ],
    )
    return out


_CORRECTOR_SETS = (
    ("handwritten", "first set"),
    ("handwritten_blind", "second set"),
    ("handwritten_heldout", "held-out set"),
    ("natural_blind", "natural blind set"),
    ("everyday_dev", "everyday (dev)"),
)


def correction(data: Json) -> list[str]:
    """The corrector on the three hand-written sets, against two baselines."""
    systems = data["systems"]
    targets = data["targets"]
    model = data["model"]
    out = [
        "## Corrector",
        "",
        f"`benchmarks/correction.py` → `benchmarks/results/correction.json` ({data['date']}, "
        f"{data['threads']} threads). Model `{model['version']}` ({model['weights']}, "
        f"{model['bytes'] / 1e6:.1f} MB). The first set guided the corpus and the second "
        "set's failures were read once; the held-out set was written last and only its "
        "aggregates are ever looked at. The natural blind set (200 items: 150 agrammatic, 50 "
        "correct; `benchmarks/blind/corrector_natural.sha256`) was built once by "
        "`models/corrector/natural_blind.py` from natural sentences (npm fr-corpus) that no "
        "corpus may contain, degraded by the corpus rules, one reference each, never read "
        "item by item: read the held-out and natural sets as the honest ones. The everyday "
        "set (50 utterances with no tense cue, several references each) was written on "
        "2026-12-07 for the failure kinds issue 28 names, and the unsaid-meaning order was "
        "chosen on it (decision 0028): a dev set.",
        "",
    ]
    sets = [(k, label) for k, label in _CORRECTOR_SETS if k in next(iter(systems.values()))]
    header = ["system", *[label for _, label in sets]]
    for title, key, fmt, target in (
        ("exact match, any reference", "exact_any", pct, pct(targets["hand_exact_any"])),
        ("chrF", "chrf", num, num(targets["hand_chrf"])),
        (
            "correct sentences returned unchanged",
            "unchanged_rate",
            pct,
            pct(targets["unchanged_rate"]),
        ),
    ):
        out += [f"{title[0].upper()}{title[1:]} (target ≥ {target}):", ""]
        rows = [[name, *[fmt(system[s][key]) for s, _ in sets]] for name, system in systems.items()]
        out += table(header, rows)
    rows = [
        [
            name,
            pct(system["synthetic"]["exact"]),
            num(system["synthetic"]["chrf"]),
            num(system["synthetic"]["bleu"]),
            num(system["ms_per_sentence"], 1 if system["ms_per_sentence"] >= 1 else 2, "ms"),
        ]
        for name, system in systems.items()
    ]
    out += [
        f"Synthetic test split ({data['test_split']['pairs']} pairs) and latency per sentence "
        f"(target for greedy ≤ {num(targets['greedy_ms'], 0, 'ms')}):",
        "",
    ]
    out += table(["system", "exact", "chrF", "BLEU", "latency"], rows)
    return out + _proposals(data)


def _proposals(data: Json) -> list[str]:
    """What free speech offers (the corrector's alternatives, beam 3), per set."""
    proposals = data.get("proposals") or {}
    if not proposals:
        return []
    targets = data["proposal_targets"]
    out = [
        "The app's proposals (beam 3, the corrector's rules included; agrammatic inputs for "
        f"the first three columns, correct inputs for the fourth). Targets on the natural "
        f"blind set: first right ≥ {pct(targets['first_right'])}, among the proposals ≥ "
        f"{pct(targets['among_right'])}, chrF ≥ {num(targets['first_chrf'])}, correct kept "
        f"≥ {pct(targets['correct_kept_first'])}, agrammatic offered unchanged first ≤ "
        f"{pct(targets['agrammatic_unchanged_first'])}.",
        "",
    ]
    return out + _proposal_table(proposals)


def _proposal_table(proposals: Json) -> list[str]:
    """One row per corrector set: the proposals' five figures."""
    rows = [
        [
            label,
            pct(p["first_right"]),
            pct(p["among_right"]),
            num(p["first_chrf"]),
            pct(p["correct_kept_first"]),
            pct(p["agrammatic_unchanged_first"]),
        ]
        for key, label in _CORRECTOR_SETS
        if (p := proposals.get(key))
    ]
    header = ["set", "first right", "among", "chrF (first)", "correct kept", "unchanged 1st"]
    return table(header, rows)


def correction_ablation(data: Json) -> list[str]:
    """The app's proposals with one of the corrector's rules changed (sidecar override)."""
    changed = ", ".join(f"`{k}={json.dumps(v)}`" for k, v in data["settings_changed"].items())
    out = [
        f"### Corrector proposals with {changed}",
        "",
        f"`python benchmarks/correction.py --proposals-only --set ...` ({data['date']}), model "
        f"`{data['model']['version']}`; compare with the proposals table above.",
        "",
    ]
    return out + _proposal_table(data["proposals"])


def corpus_coverage(data: Json) -> list[str]:
    """How much everyday French each corpus's train split covers."""
    out = [
        "## Corrector corpus: coverage",
        "",
        "`python -m models.corrector.corpus.coverage` → `benchmarks/results/corpus_coverage.json`: "
        "distinct target sentences of each train split, each word read as its most frequent "
        "Lexique lemma; a verb frame is a verb with what follows it (a preposition, a "
        "determiner or noun, nothing), a verb–noun pair a verb with the first noun after it.",
        "",
    ]
    rows = [
        [
            f"`{name}`",
            f"{row['sentences']:,}",
            f"{row['lemmas']:,}",
            f"{row['verb_frames']:,}",
            f"{row['verb_noun_pairs']:,}",
            pct(row["top5000_share"]),
        ]
        for name, row in data.items()
    ]
    header = ["corpus", "sentences", "lemmas", "verb frames", "verb–noun pairs", "top 5,000 used"]
    return out + table(header, rows)


def keep_margin(data: Json) -> list[str]:
    """The corrector's keep-correct-input trade-off, at the run's drop penalty."""
    shipped = data["shipped"]
    curve = [p for p in data["curve"] if p["drop_penalty"] == shipped["drop_penalty"]]
    out = [
        "## Corrector: keeping correct input",
        "",
        "`benchmarks/keep_margin.py` → `benchmarks/results/keep_margin.json`, first and "
        f"second hand-written sets together ({data['items']} items, {data['correct_items']} "
        f"correct), greedy. The corrector of that run shipped keep margin "
        f"{shipped['keep_margin']} and drop penalty {shipped['drop_penalty']}; rerun after a "
        "corrector change.",
        "",
    ]
    rows = [
        [num(p["margin"], 2), pct(p["correct_unchanged"]), pct(p["agrammatic_exact"])]
        for p in curve
    ]
    return out + table(["keep margin", "correct kept unchanged", "agrammatic exact"], rows)


def offer_margin(data: list[Json]) -> list[str]:
    """How often the unchanged input is offered as a choice, per offer margin."""
    out = [
        "## Corrector: offering the unchanged input",
        "",
        "`benchmarks/offer_margin.py` → `benchmarks/results/offer_margin.json`, dev "
        f"hand-written sets ({data[0]['n_correct']} correct, {data[0]['n_agrammatic']} "
        "agrammatic inputs). Rerun after a corrector change.",
        "",
    ]
    rows = [
        [
            num(p["offer_margin"], 2),
            pct(p["correct_inputs_offered"]),
            pct(p["correct_inputs_first"]),
            pct(p["agrammatic_inputs_offered"]),
        ]
        for p in data
    ]
    return out + table(
        ["offer margin", "correct offered", "correct first", "agrammatic offered"], rows
    )


_VERDICT_LABELS = {
    "before": "first rule (set on the synthetic voice)",
    "current": "the app's rule when measured",
    "chosen": "best on the calibration half",
    "explored": "explored: also beat one-word-shorter forms",
}
_VERDICT_SPLITS = (
    ("human_held_out", "human, held-out half"),
    ("human_calibration", "human, calibration half"),
    ("synthetic", "synthetic"),
)


def verdict_agreement(data: Json) -> list[str]:
    """Is a correct repetition accepted and a wrong one rejected, per rule and speech."""
    out = [
        "## Verdict agreement",
        "",
        "`benchmarks/verdict_agreement.py` → `benchmarks/results/verdict_agreement.json`: "
        f"{data['human_targets']} human targets (Armelle's recordings joined into 2–4 word "
        f"sentences) and {data['synthetic_targets']} said by the app's voice, each said "
        "right (should be accepted) and perturbed (should be rejected). Rules chosen on the "
        f"calibration half (least {data['false_accept_cost']:g} × false accepts + false "
        "rejects); the held-out half and the synthetic voice are only reported. Every rule "
        "is replayed with the phone rule (decision 0029) at its shipped thresholds on top. "
        "The app's constants are in `therapy_app/verdict.py`.",
        "",
    ]
    rows = []
    for name, result in data["results"].items():
        rule = result["rule"]
        described = (
            f"{_VERDICT_LABELS.get(name, name)}: margin {rule['rank_margin']}, slack "
            f"{rule['transcript_slack']}{', words checked' if rule['words_checked'] else ''}"
        )
        for split, label in _VERDICT_SPLITS:
            r = result[split]
            rows.append(
                [
                    described,
                    f"{label} ({r['n_correct']} + {r['n_perturbed']})",
                    pct(r["true_accept"], 0),
                    pct(r["true_reject"], 0),
                    pct(r["true_reject_wrong_word"], 0),
                    pct(r["true_reject_missing_word"], 0),
                    pct(r["true_reject_different"], 0),
                ]
            )
    header = ["rule", "speech", "true accept", "true reject", "wrong word", "missing word"]
    return out + table([*header, "other utterance"], rows)


def _rate_ci(cell: Json | None) -> str:
    if not cell or not cell["n"]:
        return "–"
    low, high = cell["ci95"]
    return f"{pct(cell['rate'], 0)} [{pct(low, 0)}–{pct(high, 0)}] (n={cell['n']})"


def verdicts(data: Json) -> list[str]:
    """Verdicts judged as practice judges them: true and false accept per exercise."""
    timing = data["hear_and_score_seconds"]
    out = [
        "## Verdicts per exercise (practice's own item and rule)",
        "",
        "`benchmarks/verdicts.py` → `benchmarks/results/verdicts.json`: every try goes "
        "through `therapy-app judge`'s path (the item practice builds, practice's hearing "
        "and rule). Human: Armelle's telephone recordings, words split by a hash into a "
        "calibration half and a blind half frozen by its SHA-256 "
        f"(`{str(data['blind_sha256'])[:16]}…`, reported in aggregate only). Synthetic: "
        "Pico and espeak-ng naming pictures and repeating words; *synthetic-sentences*: the "
        "same voices repeating sentences of the lists right, with a word left out, or with a "
        "content word said as a phonological neighbour (added 2026-12-08, their blind half "
        "frozen apart: "
        f"`{str(data.get('sentences_blind_sha256') or '')[:16]}…`). Rates with Wilson 95 % "
        "intervals. Target on the blind human half: true accept ≥ 90 %, false accept of "
        "sound-alike errors ≤ 5 %. Hearing and scoring one try: median "
        f"{num(timing['median'], 2, 's')}, p90 {num(timing['p90'], 2, 's')}.",
        "",
    ]
    rows = []
    for group, splits in data["summary"].items():
        for split, exercises in splits.items():
            for exercise, kinds in exercises.items():
                rows.append(
                    [
                        group,
                        split,
                        exercise,
                        _rate_ci(kinds.get("correct")),
                        _rate_ci(kinds.get("sound_alike")),
                        _rate_ci(kinds.get("cut")),
                        _rate_ci(kinds.get("missing_word")),
                        _rate_ci(kinds.get("false_accept_all_errors")),
                    ]
                )
    header = ["speech", "half", "exercise", "true accept", "FA sound-alike", "FA cut word"]
    header += ["FA word missing"]
    out += table([*header, "FA all errors"], rows)
    return out + _label_guard(data.get("guard"))


def verdict_calibration(data: Json) -> list[str]:
    """How the verdict's settings were chosen: the calibration half under three settings."""
    out = [
        "## Verdict settings (calibration half only)",
        "",
        "`benchmarks/verdict_calibration.py` → `benchmarks/results/verdict_calibration.json`: "
        "the calibration tries of `benchmarks/verdicts.py`, every scored text kept with its "
        "score on the audio and on silence, the rule replayed for every setting (prior "
        "weight, margins, transcript slack); least 3 × false accepts + false rejects. "
        "Accepted / tries.",
        "",
    ]
    settings = [
        ("before (no prior)", data["previous"], data["previous_breakdown"]),
        (
            "best without the prior",
            data["best_without_prior"]["setting"],
            data["best_without_prior_breakdown"],
        ),
        (
            "least cost on these rows",
            data["chosen"],
            data["chosen_breakdown"],
        ),
    ]
    names = [
        f"{label}: prior {s['prior_weight']}, margin {s['margin']}, naming "
        f"{s['naming_margin']}, slack {s['slack']}"
        for label, s, _ in settings
    ]
    if "phones_app_breakdown" in data:
        # The phone rule (decision 0029) chosen with the app's decoder settings fixed.
        fit, lead, _ = data["phones_app"]
        settings += [
            ("", {}, data["without_phones_breakdown"]),
            ("", {}, data["phones_app_breakdown"]),
        ]
        names += ["the app's decoder rule alone", f"with phonemes (fit ≥ {fit}, margin ≥ {lead})"]
    if "near_app_breakdown" in data:
        # Near variants of sentences (decision 0036), the other settings as the app has them.
        near, phone_near = data["near_app"]
        settings += [
            ("", {}, data["near_off_breakdown"]),
            ("", {}, data["near_app_breakdown"]),
        ]
        names += [
            "without near variants",
            f"with near variants (decoder lead ≥ {near} nats, phonemes ≥ {phone_near})",
        ]
    keys = [(r["speech"], r["exercise"], r["kind"]) for r in settings[0][2]]
    rows = []
    for key in keys:
        cells = []
        for _, _, breakdown in settings:
            cell = next(r for r in breakdown if (r["speech"], r["exercise"], r["kind"]) == key)
            cells.append(f"{cell['accepted']} / {cell['n']}")
        rows.append([*key, *cells])
    return out + table(["speech", "exercise", "try", *names], rows)


def _label_guard(guard: Json | None) -> list[str]:
    """The personal voice's label guard on the same tries (issue 26)."""
    if not guard:
        return []
    out = [
        "The personal voice's label guard (`therapy_app/voice/samples.py`, `clear_label`) on the "
        "same tries: an automatic success teaches the personal model only when the free "
        "transcript says the target and the target scores at least −1.0 nat/token. A *wrong "
        "label* is a taught try whose recording says something else.",
        "",
    ]
    rows = []
    for group, splits in guard.items():
        for split, g in splits.items():
            ci = g.get("wrong_label_ci95")
            wrong = "–" if g["taught"] == 0 else f"{g['errors_taught']} of {g['taught']}"
            if ci:
                wrong += f" [{pct(ci[0], 0)}–{pct(ci[1], 0)}]"
            rows.append(
                [
                    group,
                    split,
                    f"{g['accepted_errors']} of {g['errors']}",
                    wrong,
                    f"{g['right_taught']} of {g['right_answers']}",
                ]
            )
    header = ["speech", "half", "errors the verdict accepted", "wrong labels taught"]
    return out + table([*header, "right answers taught"], rows)


def live_verdicts(data: Json) -> list[str]:
    """Tries played into the virtual microphone during practice vs the same files judged."""
    out = [
        "## Verdicts through the microphone",
        "",
        "`benchmarks/live_verdicts.py` → `benchmarks/results/live_verdicts.json`: recordings "
        "played into the virtual microphone (PulseAudio) during real practice sessions "
        "(controller, recorder, end-of-speech detector, default pause tolerance 3.5 s), each "
        "verdict compared with the one `judge` gives the played file. Calibration half of "
        "Armelle's words and the app's voice only, plus right answers with a 1.5-2.5 s pause "
        'mid-answer ("un … chapeau", "Je voudrais … un café"). A known answer is judged '
        "at each settled pause while recording (`therapy_app/practice/early.py`): accepted, "
        "the try ends there; *cut off* counts tries ended at a pause before the file's last "
        "word was played. Latency: end of the played speech to the verdict event, for the "
        "tries the app accepted and for the others (the pause tolerance first).",
        "",
    ]

    def spread(cell: Json | None) -> str:
        if not cell or cell.get("median") is None:
            return "-"
        return f"{num(cell['median'], 2, 's')} / {num(cell['p90'], 2, 's')}"

    rows = [
        [
            r["exercise"],
            r["voice"],
            str(r["n"]),
            pct(r["true_accept_live"], 0),
            pct(r["true_accept_file"], 0),
            pct(r["false_accept_live"], 0),
            pct(r["agreement"], 0),
            str(r.get("ended_at_pause", "-")),
            str(r.get("cut_off", "-")),
            spread(r.get("latency_accepted_s")),
            spread(r.get("latency_not_accepted_s")),
        ]
        for r in data["summary"]
        if r["voice"] != "all" or r["exercise"] == "all"
    ]
    header = ["exercise", "voice", "n", "true accept live", "true accept file", "FA live"]
    header += ["live = file", "ended at a pause", "cut off"]
    header += ["latency accepted, median / p90", "latency others, median / p90"]
    out += table(header, rows)
    scoring = data.get("scoring")
    if scoring:
        once = num(scoring["encode_once_seconds"]["median"], 2, "s")
        apart = num(scoring["judge_seconds"]["median"], 2, "s")
        out += [
            f"Judging a finished recording with the encoder run once per distinct clip "
            f"(`EncodeOnce`) against `judge` on the {scoring['tries']} tries of the calibration "
            f"half of `benchmarks/verdicts.py`: same verdict {scoring['same_verdict']}, same "
            f"numbers {scoring['same_numbers']}; encoder run once in "
            f"{scoring['encoder_run_once']}; median {once} instead of {apart}.",
            "",
        ]
    return out


def naming(data: Json) -> list[str]:
    """Picture naming: the name ranked first among competitors, and the practice verdict."""
    out = [
        "## Picture naming",
        "",
        "`benchmarks/naming.py` → `benchmarks/results/naming.json`: the picture's name "
        "against 4 same-category pictures and 3 phonological neighbours, bare words only "
        "or with their determiner forms.",
        "",
    ]
    groups = {**data["synthetic"], **data["human_allowed"]}
    rows = [
        [name, str(g["n"]), num(g["bare_top1"], 1, "%"), num(g["variants_top1"], 1, "%")]
        for name, g in groups.items()
    ]
    out += table(["recordings", "n", "top-1, bare", "top-1, with determiners"], rows)
    verdict = data["practice_verdict"]
    margins = [k for k in verdict["held_out_half"]]
    out += [
        "Practice verdict (VAD, transcript, both rules): true accept / false accept, per "
        f"rank margin; naming's margin is {verdict['naming_rank_margin']} (every one-word "
        f"target's, chosen by `benchmarks/verdict_calibration.py`), the sentences' "
        f"{verdict['repetition_rank_margin']}.",
        "",
    ]
    rows = []
    for group in ("held_out_half", "pico", "espeak", "armelle"):
        if group not in verdict:
            continue
        cells = [
            f"{pct(verdict[group][m]['true_accept'] / 100)} / "
            f"{pct(verdict[group][m]['false_accept'] / 100)}"
            for m in margins
        ]
        rows.append([group.replace("_", " "), str(verdict[group][margins[0]]["n"]), *cells])
    return out + table(["recordings", "n", *[f"margin {m}" for m in margins]], rows)


def storage(data: Json) -> list[str]:
    """History query time and attempt commit time at scale."""
    out = [
        "## Storage",
        "",
        f"`benchmarks/storage.py` → `benchmarks/results/storage.json`: {data['attempts']:,} "
        f"attempts of {data['patients']} patients, database {data['db_bytes'] / 2**20:.0f} MiB, "
        f"SQLite {data['machine']['sqlite']}.",
        "",
    ]
    rows = []
    for key, label in (
        ("history", "one patient's history"),
        ("progress", "one patient's progress charts"),
        ("list_attempts_patient", "all attempts of a patient"),
        ("export_patient", "export of a patient"),
        ("add_attempt", "commit an attempt"),
        ("add_attempt_with_3s_recording", "commit an attempt with a 3 s recording"),
    ):
        m = data[key]
        rows.append(
            [
                label,
                str(m["runs"]),
                num(1000 * m["median_s"], 1, "ms"),
                num(1000 * m["p95_s"], 1, "ms"),
            ]
        )
    out += table(["operation", "runs", "median", "p95"], rows)
    within = "yes" if data["history_within_target"] else "**no**"
    return out + [f"History within its {data['history_target_s']:g} s target: {within}.", ""]


def vad_noises(data: Json) -> list[str]:
    """Non-speech sounds against the speech detector (docs/decisions/0032)."""
    out = [
        "## Speech detector: noises and short words",
        "",
        "`benchmarks/vad_noises.py` → `benchmarks/results/vad_noises.json`: a short word said "
        "alone is speech from 60 ms above the threshold, so what keeps noise out is Silero's "
        "probability. Each sound between silences; heard: hearing finds speech and the "
        "microphone starts.",
        "",
    ]
    rows = []
    for group, cell in data["groups"].items():
        loudest = max(cell["rows"].items(), key=lambda kv: kv[1]["max_probability"])
        rows.append(
            [
                group,
                str(cell["sounds"]),
                str(cell["heard"]),
                f"{loudest[1]['max_probability']:.2f} ({loudest[0]})",
            ]
        )
    return out + table(["sounds", "n", "heard", "highest probability"], rows) + [""]


def faults(data: Json) -> list[str]:
    """The fault catalogue's totals, per category (details: docs/faults.md)."""
    counts = [k for k, v in data["totals"].items() if k != "probes" and isinstance(v, int)]
    out = [
        "## Faults",
        "",
        "`benchmarks/faults.py` → `benchmarks/results/faults.json`: every bad input and fault "
        "found so far, each probe in its own process. What each column counts: "
        "[faults.md](faults.md).",
        "",
    ]
    per: dict[str, dict[str, int]] = {}
    for probe in data["probes"]:
        row = per.setdefault(probe["category"], {"probes": 0})
        row["probes"] += 1
        for key in counts:
            row[key] = row.get(key, 0) + int(probe.get(key) or 0)
    rows = [[cat, str(r["probes"]), *[str(r.get(k, 0)) for k in counts]] for cat, r in per.items()]
    rows.append(
        ["**all**", str(data["totals"]["probes"]), *[str(data["totals"][k]) for k in counts]]
    )
    return out + table(["category", "probes", *counts], rows)


def _false_accept(cell: Json) -> str:
    tries = cell.get("sound_alike_tries", 0)
    return f"{num(cell['sound_alike_false_accept'], 1, '%')} (n={tries})" if tries else "–"


def personal_voice(data: Json) -> list[str]:
    """Generic vs personal recogniser on simulated patients' held-out recordings (issue 26)."""
    out = [
        "## Personal voice",
        "",
        "`benchmarks/personal_voice.py` → `benchmarks/results/personal_voice.json`: per "
        "speaker, a personal model is adapted on N enrolment recordings (`therapy-app voice "
        "adapt`'s path: the trainer process, the validation on 20 % held out, the adoption "
        "rule) and compared with the generic model on that speaker's test recordings, whose "
        "words never occur in the enrolment (lists frozen: "
        "`benchmarks/blind/personal_voice.sha256`). WER of the free transcript; isolated "
        "words right (exact transcript); verdict true accept of right answers and false "
        "accept of sound-alike answers (naming rule). Minutes: the whole adaptation (prepare, "
        "train, validate) on this 2-core machine: the synthetic speakers' rows and Armelle's "
        "100-recording row with the machine otherwise idle, her other rows shared with other "
        "jobs. The trainer stops at a 12-minute budget (preparation included) with its "
        "learning-rate schedule completed. Every row was measured after decision 0026 "
        "(verdicts score the clip with its long pauses capped); the synthetic speakers' rows "
        "were trained and measured again for it on 2026-12-07. "
        "Targets (100 recordings): WER −50 % relative, isolated words right ≥ 60 %, "
        "adaptation ≤ 15 min.",
        "",
    ]
    rows_in = data.get("rows", {})
    rows: list[list[str]] = []
    for key in sorted(k for k in rows_in if k.endswith("/generic")):
        generic = rows_in[key]
        patient = generic["patient"]
        sizes = sorted(
            (k for k in rows_in if k.startswith(patient + "/") and k != key),
            key=lambda k: int(k.rsplit("/", 1)[1]),
        )
        rows.append(
            [
                patient,
                "generic",
                num(generic["wer"], 1, "%"),
                num(generic["words_right"], 1, "%"),
                num(generic["verdict_true_accept"], 1, "%"),
                _false_accept(generic),
                "–",
                "–",
            ]
        )
        for size_key in sizes:
            row = rows_in[size_key]
            personal = row["personal"]
            if personal is None:  # refused: the patient keeps the generic model
                measured = ["generic kept", "–", "–", "–"]
            else:
                gain = 1 - personal["wer"] / generic["wer"] if generic["wer"] else None
                measured = [
                    f"{num(personal['wer'], 1, '%')} ({pct(gain, 0)} less)"
                    if gain is not None
                    else num(personal["wer"], 1, "%"),
                    num(personal["words_right"], 1, "%"),
                    num(personal["verdict_true_accept"], 1, "%"),
                    _false_accept(personal),
                ]
            rows.append(
                [
                    patient,
                    f"{row['enrolment']} recordings, "
                    + ("adopted" if row["adopted"] else "refused"),
                    *measured,
                    num(row.get("adaptation_minutes"), 1, "min"),
                    f"{pct(row['control']['generic']['wer'], 0)} → "
                    f"{pct(row['control']['personal']['wer'], 0)}",
                ]
            )
    header = ["speaker", "model", "WER", "words right", "verdict TA", "sound-alike FA"]
    header += ["adaptation", "validation WER (held-out enrolment)"]
    out += table(header, rows)
    descriptions = {rows_in[k]["patient"]: rows_in[k].get("what", "") for k in rows_in}
    out += [f"- **{name}**: {what}" for name, what in sorted(descriptions.items()) if what]
    return out + [""]


def _wilson_cell(cell: Json | None) -> str:
    """A rate with its Wilson interval and count: "88 % [78–94] (n=60)"."""
    if not cell or not cell.get("n"):
        return "–"
    low, high = cell["ci95"]
    return f"{pct(cell['rate'], 0)} [{100 * low:.0f}–{100 * high:.0f}] (n={cell['n']})"


_PHRASE_GROUPS = {
    "in-book": "in the book (all)",
    "in-book-synthetic": "in the book, synthetic voices",
    "in-book-armelle": "in the book, Armelle spliced",
    "out-of-book": "not in the book",
}


def phrase_book(data: Json) -> list[str]:
    """The patient's phrase book in free speech: own sentences first, others unharmed."""
    targets = data["targets"]
    out = [
        "## Phrase book in free speech",
        "",
        "`benchmarks/phrase_book.py` → `benchmarks/results/phrase_book.json` (issue 27): "
        f"{data['sentences']} everyday first-person sentences "
        "(`benchmarks/phrase_book_sentences.py`) said telegraphically (the corrector "
        "corpus's agrammatism rules, moderate or severe, phonemic paraphasias included) and "
        "haltingly by the halting benchmark's voices and rooms; some with Armelle's recorded "
        "words (days, months, numbers, hier/aujourd'hui/demain) spliced between the other "
        "words said by a synthetic voice band-limited like her telephone prompts; and the "
        "halting benchmark's own utterances whose meaning is in no sentence. Per utterance "
        "a book of 20 / 100 / 300 sentences (nested, holding the meant sentence when it is "
        "in the book). Each utterance goes once through `chain.hear`, then `chain.correct` "
        "without a book and with each book. *First right*: the first proposal is the meant "
        "sentence (case and punctuation aside); *match candidates*: the meant sentence is "
        "among the phrase match's candidates, clear or not (what a better decision could "
        "reach); *book sentence first*: a phrase-book "
        "sentence is proposed first (not in the book: always wrong); *another book "
        "sentence*: a wrong one. Wilson 95 % intervals. The dev half may be tuned on; "
        "*dev2* (other sentences of the dev half and other halting dev utterances, built on "
        "2026-12-08 after every setting was chosen) tells whether the settings carry over "
        "without reading the blind half; the blind half is frozen "
        f"(`benchmarks/blind/phrase_book.sha256`, `{str(data['blind_sha256'])[:16]}…`) and "
        "reported in aggregate only."
        + (" **Quick run (a fifth of the utterances).**" if data.get("quick") else ""),
        "",
    ]
    rows: list[list[str]] = []
    for split, groups in data["summary"].items():
        for group, cell in groups.items():
            for size, s in cell["sizes"].items():
                rows.append(
                    [
                        split,
                        _PHRASE_GROUPS.get(group, group),
                        size,
                        _wilson_cell(s["first_right"]),
                        _wilson_cell(s["among"]),
                        _wilson_cell(s.get("in_matches")) if group != "out-of-book" else "–",
                        _wilson_cell(s["phrase_first"]),
                        _wilson_cell(s.get("phrase_first_wrong")),
                        _wilson_cell(s["no_book_first_right"]),
                    ]
                )
    header = ["half", "utterances", "book", "first right", "meant among proposals"]
    header += ["meant among match candidates"]
    header += ["book sentence first", "another book sentence first", "no book: first right"]
    out += table(header, rows)
    timing = data["latency"]
    lat_rows = [
        [
            size,
            num(t["match_ms"]["median"], 0, "ms"),
            num(t["match_ms"]["p90"], 0, "ms"),
            num(t["index_ms"]["median"], 0, "ms"),
        ]
        for size, t in timing.items()
        if size != "asr_s"
    ]
    out += [
        "Added latency: the phrase match of one utterance (lexical pass and every sentence "
        "spotted in the try's phonemes) on this 2-core machine, shared with other jobs; the book "
        "is indexed once per session (last column). For scale, recognition itself: median "
        f"{num(timing['asr_s']['median'], 2, 's')}.",
        "",
    ]
    out += table(["book", "matching median", "matching p90", "indexing (once)"], lat_rows)
    checks = []
    for split, groups in data["summary"].items():
        in_book = groups.get("in-book", {}).get("sizes", {}).get("100")
        if in_book:
            value = in_book["first_right"]["rate"]
            checks.append(
                f"- {split}, meant sentence in a 100-sentence book, first right: "
                f"{pct(value, 0)} (target ≥ {pct(targets['first_right_in_book_100'], 0)}: "
                f"{_met(value, targets['first_right_in_book_100'], False)})"
            )
        outside = groups.get("out-of-book", {}).get("sizes", {})
        for size, s in outside.items():
            value = s["phrase_first"]["rate"]
            loss = (s["no_book_first_right"]["hits"] or 0) - (s["first_right"]["hits"] or 0)
            checks.append(
                f"- {split}, not in a {size}-sentence book: book sentence first "
                f"{pct(value, 0)} (target ≤ {pct(targets['phrase_first_out_of_book'], 0)}: "
                f"{_met(value, targets['phrase_first_out_of_book'], True)}); first right "
                f"{s['first_right']['hits']} with the book vs {s['no_book_first_right']['hits']} "
                f"without (no loss: {'yes' if loss <= 0 else '**no**'})"
            )
    p90 = timing.get("300", {}).get("match_ms", {}).get("p90")
    if p90 is not None:
        checks.append(
            f"- matching p90 with a 300-sentence book: {num(p90, 0, 'ms')} "
            f"(target ≤ {num(targets['match_ms_p90_300'], 0, 'ms')}: "
            f"{_met(p90, targets['match_ms_p90_300'], True)})"
        )
    return out + checks + [""]


SECTIONS: list[tuple[str, Callable[[Any], list[str]]]] = [
    ("halting.json", halting),
    ("speech.json", speech),
    ("correction.json", correction),
    ("correction_ablation_faithful.json", correction_ablation),
    ("correction_ablation_keep.json", correction_ablation),
    ("correction_ablation_unsaid.json", correction_ablation),
    ("corpus_coverage.json", corpus_coverage),
    ("keep_margin.json", keep_margin),
    ("offer_margin.json", offer_margin),
    ("verdicts.json", verdicts),
    ("verdict_calibration.json", verdict_calibration),
    ("live_verdicts.json", live_verdicts),
    ("verdict_agreement.json", verdict_agreement),
    ("naming.json", naming),
    ("vad_noises.json", vad_noises),
    ("storage.json", storage),
    ("faults.json", faults),
    ("personal_voice.json", personal_voice),
    ("phrase_book.json", phrase_book),
]


def render(results: Path = RESULTS) -> str:
    """docs/figures.md as made from the JSON files in ``results``."""
    lines = [
        "# Measured figures",
        "",
        "<!-- Generated by benchmarks/figures.py from benchmarks/results/*.json: "
        "do not edit by hand. -->",
        "",
        "What the app measures today, from the JSON files its benchmark scripts wrote. "
        "Regenerate with `.venv/bin/python benchmarks/figures.py` after a benchmark run; "
        "how to run them: [testing.md](testing.md#benchmarks). How the settings behind "
        "these figures were chosen, and what was tried and not adopted: "
        "[decisions/](decisions/README.md). Latencies were taken on a 2-core CPU machine "
        "shared with other jobs: read them as pessimistic.",
        "",
    ]
    known = {name for name, _ in SECTIONS}
    for name, section in SECTIONS:
        path = results / name
        if path.is_file():
            lines += section(json.loads(path.read_text(encoding="utf-8")))
    others = sorted(p.name for p in results.glob("*.json") if p.name not in known)
    if others:
        lines += ["## Other result files", "", "No section in `benchmarks/figures.py` yet:", ""]
        lines += [f"- `benchmarks/results/{name}`" for name in others] + [""]
    return "\n".join(lines).rstrip("\n") + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=Path, default=RESULTS)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--check", action="store_true", help="exit 1 if --out is stale")
    args = parser.parse_args(argv)
    text = render(args.results)
    if args.check:
        current = args.out.read_text(encoding="utf-8") if args.out.is_file() else ""
        if current != text:
            print(f"{args.out} is stale: run python benchmarks/figures.py", file=sys.stderr)
            return 1
        return 0
    args.out.write_text(text, encoding="utf-8")
    print(f"written {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
