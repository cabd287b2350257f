"""Personal voice on simulated patients: generic vs personal on the same speaker's held-out speech.

Usage::

    python benchmarks/personal_voice.py [--patients NAME ...] [--sizes 25 50 100 200]
        [--remeasure]

For each patient of ``personal_voice_data.PATIENTS`` and each enrolment size, the
app's own adaptation runs as a patient's would (``therapy_app.voice.adaptation``:
its train / control split, the trainer process ``python -m therapy_voice adapt``,
the validation that adopts the personal model or keeps the generic one), then
both models are measured on the patient's **test** recordings, whose content words
never occur in enrolment: WER and isolated words right (free transcription, the
app's hearing path), and verdicts (practice's judging): true accept of the right
answer, false accept of a sound-alike error (the recording of another bank noun one
or two phonemes away from the target). "used" is what the patient gets: the
personal figures when it was adopted, the generic ones otherwise.

Resumable: every (patient, size) row is written to the results file as soon as it is
measured and skipped on the next run; ``--remeasure`` measures the rows again with the
current code (after a change of the verdict rule), reusing the adapters they kept.
The test lists are frozen (``benchmarks/blind/personal_voice.sha256``); no setting is
chosen on them.
Writes ``benchmarks/results/personal_voice.json``.
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent

import benchmarks.personal_voice_data as data  # noqa: E402
from benchmarks.bookkeeping import frozen_digest, write_report  # noqa: E402
from benchmarks.human_eval import content, fold  # noqa: E402
from therapy_app.audio.wavio import read_wav, write_wav  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results" / "personal_voice.json"
BLIND_HASH = ROOT / "benchmarks" / "blind" / "personal_voice.sha256"
WORK = ROOT / "build" / "personal_voice"


def freeze(tests: dict[str, list[data.Utterance]]) -> str:
    """SHA-256 of every patient's test list; written once, then every run must find it."""
    listing = {name: [asdict(u) for u in items] for name, items in sorted(tests.items())}
    count = sum(len(v) for v in tests.values())
    note = f"{count} test recordings of benchmarks/personal_voice.py"
    return frozen_digest(listing, BLIND_HASH, note, "the test sets")


def recordings(patient: data.Patient) -> tuple[list[tuple[data.Utterance, Path]], list]:
    """The patient's enrolment pool and test set as WAV files (rendered once, cached)."""
    folder = WORK / patient.name / "audio"
    folder.mkdir(parents=True, exist_ok=True)
    if patient.voice is None:
        enrol_clips, test_clips = data.armelle_split()
    else:
        enrol, test = data.synthetic_split()
        enrol_clips = [(u, None) for u in enrol]
        test_clips = [(u, None) for u in test]

    def stored(pairs) -> list[tuple[data.Utterance, Path]]:
        out = []
        for utterance, clip in pairs:
            path = folder / f"{utterance.uid}.wav"
            if not path.is_file():
                clip = clip if clip is not None else data.render(patient, utterance)
                write_wav(path, clip)
            out.append((utterance, path))
        return out

    return stored(enrol_clips), stored(test_clips)


def _sound_alike(target: str, pool: list[str]) -> str | None:
    """The pool's noun closest in phonemes to ``target`` (1-2 phonemes away), if any."""
    from therapy_app.naming.bank import default_bank

    phon = {item.word: item.phon for item in default_bank().items}

    def noun(text: str) -> str:
        return text.split()[-1].split("'")[-1]

    def distance(a: str, b: str) -> int:
        row = list(range(len(b) + 1))
        for i, ca in enumerate(a, 1):
            prev, row[0] = row[0], i
            for j, cb in enumerate(b, 1):
                prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (ca != cb))
        return row[-1]

    mine = phon.get(noun(target))
    if mine is None:
        return None
    scored = [(distance(mine, phon[noun(o)]), o) for o in pool
              if o != target and noun(o) in phon]  # fmt: skip
    close = sorted(s for s in scored if 1 <= s[0] <= 2)
    return close[0][1] if close else None


def measure(recognizer: Any, tests: list[tuple[data.Utterance, Path]]) -> dict[str, Any]:
    """WER, isolated words right, verdict true accept and sound-alike false accept."""
    import jiwer

    from therapy_app.asr.utterance import hear
    from therapy_app.exercises import default_content
    from therapy_app.naming.bank import default_bank
    from therapy_app.practice.events import ExerciseKind
    from therapy_app.practice.judging import item_for, judge
    from therapy_app.vad.silero import VoiceActivityDetector

    vad = VoiceActivityDetector.load()
    content_, bank = default_content(), default_bank()
    refs, hyps, right, words = [], [], 0, 0
    accepted, rejected_rivals, rivals = 0, 0, 0
    words_said = [u.text for u, _ in tests if u.kind == "word"]
    for utterance, path in tests:
        clip = read_wav(path)
        heard = hear(recognizer, vad, clip)
        text = heard.transcript.text if heard is not None else ""
        refs.append(fold(utterance.text))
        hyps.append(fold(text) or "∅")
        if utterance.kind != "word":
            continue
        words += 1
        right += content(text) == content(utterance.text)
        item, source = item_for(ExerciseKind.REPETITION, utterance.text, content_, bank)
        accepted += bool(judge(recognizer, vad, clip, item, source).success)
        other = _sound_alike(utterance.text, words_said)
        if other is not None:
            item, source = item_for(ExerciseKind.REPETITION, other, content_, bank)
            rivals += 1
            rejected_rivals += not judge(recognizer, vad, clip, item, source).success
    return {
        "wer": round(100 * jiwer.wer(refs, hyps), 1),
        "words_right": round(100 * right / max(words, 1), 1),
        "words": words,
        "verdict_true_accept": round(100 * accepted / max(words, 1), 1),
        "sound_alike_false_accept": round(100 * (rivals - rejected_rivals) / max(rivals, 1), 1),
        "sound_alike_tries": rivals,
        "items": len(tests),
    }


def _load_results() -> dict[str, Any]:
    if RESULTS.is_file():
        return json.loads(RESULTS.read_text(encoding="utf-8"))
    return {"rows": {}}


def _save(results: dict[str, Any]) -> None:
    write_report(RESULTS, results)


def main(argv: list[str] | None = None) -> int:
    from therapy_app.asr.recognizer import SpeechRecognizer
    from therapy_app.voice import adaptation

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--patients", nargs="+", default=[p.name for p in data.PATIENTS])
    parser.add_argument("--sizes", nargs="+", type=int, default=list(data.SIZES))
    parser.add_argument(
        "--remeasure",
        action="store_true",
        help="measure the generic rows and every row whose adapter was kept again with the "
        "current code, reusing that adapter (training does not depend on the verdict rule); "
        "a row whose model was not adopted keeps no adapter and is left as it is",
    )
    args = parser.parse_args(argv)
    chosen = [p for p in data.PATIENTS if p.name in args.patients]
    stores = {p.name: recordings(p) for p in chosen}
    results = _load_results()
    if set(args.patients) == {p.name for p in data.PATIENTS}:
        results["blind_sha256"] = freeze({k: [u for u, _ in v[1]] for k, v in stores.items()})
    generic = SpeechRecognizer.load()
    for patient in chosen:
        enrol, test = stores[patient.name]
        key = f"{patient.name}/generic"
        if key not in results["rows"] or args.remeasure:
            results["rows"][key] = {"patient": patient.name, "what": patient.what,
                                    **measure(generic, test)}  # fmt: skip
            _save(results)
        print(key, json.dumps(results["rows"][key]), flush=True)
        for size in args.sizes:
            key = f"{patient.name}/{size}"
            folder = WORK / patient.name / f"run-{size}"
            kept = adaptation.kept_adapter(folder)
            earlier = results["rows"].get(key)
            if earlier is not None and not (args.remeasure and kept is not None):
                print(key, json.dumps(earlier), flush=True)
                continue
            samples = [(path, u.text) for u, path in enrol[:size]]
            began = time.perf_counter()
            if earlier is not None and kept is not None:
                run = adaptation.revalidate_for_benchmark(samples, folder, earlier["train_minutes"])
                minutes = earlier["adaptation_minutes"]
            else:
                run = adaptation.run_for_benchmark(samples, folder)
                minutes = (time.perf_counter() - began) / 60
            personal = SpeechRecognizer.load(personal=run.personal) if run.personal else None
            row: dict[str, Any] = {
                "patient": patient.name,
                "enrolment": size,
                "adopted": run.decision.adopted,
                "reason": run.decision.reason,
                "control": asdict(run.decision),
                "adaptation_minutes": round(minutes, 2),
                "train_minutes": run.train_minutes,
                "personal": measure(personal, test) if personal is not None else None,
            }
            results["rows"][key] = row
            _save(results)
            print(key, json.dumps(row, ensure_ascii=False), flush=True)
    _save(results)
    return 0


if __name__ == "__main__":
    np.seterr(all="ignore")
    raise SystemExit(main())
