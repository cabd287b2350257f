"""Verdicts on human and synthetic speech, per exercise, judged exactly as practice judges them.

Usage: ``python benchmarks/verdicts.py [--quick]`` (about 20 minutes; --quick: 4)

Every try goes through :func:`therapy_app.practice.judging.item_for` (the item
practice builds: accepted forms, distractors, margin) and
:func:`therapy_app.practice.judging.judge` (practice's hearing and rule): the
verdict reported is the one a patient gets for that recording.

* **Human**: Debian ``asterisk-prompt-fr-armelle`` (allowed for calibration;
  one speaker, telephone prompts; the words whose text is certain). Words are
  split in two halves by a hash of the word: the **calibration** half, on
  which settings may be chosen, and the **blind** half, built once and frozen
  (its trial list's SHA-256 is committed in ``benchmarks/blind/verdicts.sha256``
  and checked at every run), reported in aggregate only, never row by row.
  Tries: the word or a 2-4 word sentence said right; a sound-alike (her
  recording of a one-phoneme neighbour: "six" for "dix", "sept" for "seize");
  a word cut short (the first 55 % of it: a false start); another word of the
  same kind; a word missing from a sentence.
* **Synthetic**: the app's voice (SVOX Pico) and espeak-ng naming pictures of
  the bank ("un chameau") and repeating words ("le chapeau"): right, a
  phonological competitor, a same-category competitor, a lexicon neighbour.
* **Synthetic sentences** (since 2026-12-08, blind half frozen apart in
  ``benchmarks/blind/verdicts_sentences.sha256``): the same voices repeating
  sentences of the lists right, with a word left out, and with a content word
  said as a phonological neighbour (:func:`sentence_trials`).

Prints true accept and false accept with Wilson 95 % intervals per voice,
exercise and kind of error, and writes ``benchmarks/results/verdicts.json``.
Also measures the personal voice's label guard (issue 26,
:func:`therapy_app.voice.samples.clear_label`): of the tries it would teach,
the share whose recording says something else than the taught target (a wrong
label), per voice group and split.
Never uses ``asterisk-core-sounds-fr*`` or ``ktuberling-data`` (reserved).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import time
import zlib
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

os.environ["SOX_OPTS"] = "-R"  # repeatable conversion of her GSM files (see human_eval.load_audio)

ROOT = Path(__file__).resolve().parent.parent

from benchmarks.bookkeeping import frozen_digest, write_report  # noqa: E402
from benchmarks.human_eval import armelle_words  # noqa: E402
from therapy_app.audio.clip import SAMPLE_RATE, AudioClip  # noqa: E402
from therapy_app.practice.events import ExerciseKind  # noqa: E402
from therapy_app.verdict import NAMING_RANK_MARGIN  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results" / "verdicts.json"
BLIND_HASH = ROOT / "benchmarks" / "blind" / "verdicts.sha256"
SOUND_ALIKE = {"dix": "six", "six": "dix", "seize": "sept", "sept": "seize"}
"""One-phoneme neighbours among her recordings (the lexicon finds no other pair)."""
_DAYS = "lundi mardi mercredi jeudi vendredi samedi dimanche".split()
_MONTHS = ("janvier février mars avril mai juin juillet août septembre octobre "
           "novembre décembre").split()  # fmt: skip
_RELATIVE = ["hier", "aujourd'hui", "demain"]
CUT = 0.55


@dataclass(frozen=True)
class Trial:
    """One try to judge: who says what, for which target.

    Attributes:
        voice: "human", "pico" or "espeak".
        split: "calibration" or "blind".
        exercise: "naming", "repetition" or "completion".
        kind: "correct", "sound_alike", "cut", "semantic", "wrong_word", "missing_word".
        target: what the exercise expects (the judge's --target).
        said: the words actually said.
    """

    voice: str
    split: str
    exercise: str
    kind: str
    target: str
    said: tuple[str, ...]


def _half(key: str) -> str:
    return "blind" if zlib.crc32(key.encode()) % 2 else "calibration"


def _kind_of(word: str) -> str:
    for name, words in (("day", _DAYS), ("month", _MONTHS), ("relative", _RELATIVE)):
        if word in words:
            return name
    return "number"


def human_trials(words: list[str], sentences: int) -> list[Trial]:
    """Her words (and sentences of them), right and wrong, each in its word's half."""
    # A sound-alike pair stays in one half: the blind half must hold its own pairs.
    half = {w: _half(min(w, SOUND_ALIKE.get(w, w))) for w in words}
    trials: list[Trial] = []
    rng = np.random.default_rng(zlib.crc32(b"verdicts-human"))
    from therapy_app.exercises import default_content

    answers = {c.answer for c in default_content().completion}
    for word in words:
        same = [w for w in words if half[w] == half[word] and _kind_of(w) == _kind_of(word)]
        others = [w for w in same if w != word]
        wrong = str(rng.choice(others)) if others else None
        tries = [("correct", word), ("cut", word + "~")]
        if SOUND_ALIKE.get(word) in words:
            tries.append(("sound_alike", SOUND_ALIKE[word]))
        if wrong is not None:
            tries.append(("wrong_word", wrong))
        for exercise in ("repetition", *(["completion"] if word in answers else [])):
            for kind, said in tries:
                trials.append(Trial("human", half[word], exercise, kind, word, (said,)))
    for split in ("calibration", "blind"):
        pool = [w for w in words if half[w] == split]
        by_kind = {k: [w for w in pool if _kind_of(w) == k] for k in ("day", "number", "month")}
        made = 0
        while made < sentences and all(by_kind.values()):
            said = (
                str(rng.choice(by_kind["day"])),
                str(rng.choice(by_kind["number"])),
                str(rng.choice(by_kind["month"])),
            )
            target = " ".join(said)
            made += 1
            trials.append(Trial("human", split, "repetition", "correct", target, said))
            pos = int(rng.integers(3))
            kind = _kind_of(said[pos]) if pos != 1 else "number"
            choices = [w for w in by_kind.get(kind, by_kind["number"]) if w not in said]
            if choices:
                swapped = (*said[:pos], str(rng.choice(choices)), *said[pos + 1 :])
                trials.append(Trial("human", split, "repetition", "wrong_word", target, swapped))
            missing = (*said[:pos], *said[pos + 1 :])
            trials.append(Trial("human", split, "repetition", "missing_word", target, missing))
            near = [i for i, w in enumerate(said) if SOUND_ALIKE.get(w) in pool]
            if near:
                i = near[0]
                alike = (*said[:i], SOUND_ALIKE[said[i]], *said[i + 1 :])
                trials.append(Trial("human", split, "repetition", "sound_alike", target, alike))
    return trials


def synthetic_trials(pictures: int) -> list[Trial]:
    """Pictures named and words repeated by the two synthetic voices, right and wrong."""
    from therapy_app.naming.bank import default_bank
    from therapy_app.naming.candidates import find_competitors
    from therapy_app.naming.sound_alikes import neighbours
    from therapy_app.practice.naming_plan import teaching_order

    bank = default_bank()
    trials: list[Trial] = []
    chosen = [i for i in teaching_order(bank) if " " not in i.word and not i.is_action]
    for item in chosen[:pictures]:
        split = _half(item.id)
        rivals = find_competitors(item, bank)
        said_as = item.indefinite or item.word
        target = item.definite or item.word
        tries = [("naming", "correct", item.word, said_as)]
        if rivals.phonological:
            near = rivals.phonological[0]
            tries.append(("naming", "sound_alike", item.word, near.indefinite or near.word))
        if rivals.semantic:
            other = rivals.semantic[0]
            tries.append(("naming", "semantic", item.word, other.indefinite or other.word))
        tries.append(("repetition", "correct", target, target))
        alike = [n for n in neighbours(item.word) if n != item.word]
        if alike:
            article = target[: -len(item.word)] if target.endswith(item.word) else ""
            tries.append(("repetition", "sound_alike", target, f"{article}{alike[0]}".strip()))
        for voice in ("pico", "espeak"):
            for exercise, kind, expected, said in tries:
                trials.append(Trial(voice, split, exercise, kind, expected, (said,)))
    return trials


def sentence_trials(sentences: int) -> list[Trial]:
    """Sentences of the repetition lists said by the two synthetic voices, right and wrong.

    Wrong: a word left out, or a content word said as a phonological neighbour
    drawn at random among its eight likeliest (the app's near variants try
    only the first two: ``therapy_app.practice.variants``), each seeded by the
    sentence. Each sentence's tries stay in its half (a hash of the sentence).
    """
    from therapy_app.analysis.closed_class import CLOSED_CLASS_WORDS
    from therapy_app.exercises import default_content
    from therapy_app.naming.sound_alikes import neighbours

    pool = [t for t in default_content().all_sentences() if len(t.split()) >= 3]
    order = np.random.default_rng(zlib.crc32(b"verdicts-sentences")).permutation(len(pool))
    trials: list[Trial] = []
    for index in order[:sentences]:
        target = pool[int(index)]
        words = [w.strip(".,;:!?") for w in target.split() if w.strip(".,;:!?")]
        rng = np.random.default_rng(zlib.crc32(("verdicts-sentence:" + target).encode()))
        tries = [("correct", tuple(words))]
        drop = int(rng.integers(len(words)))
        tries.append(("missing_word", (*words[:drop], *words[drop + 1 :])))
        content = [i for i, w in enumerate(words) if w.lower() not in CLOSED_CLASS_WORDS]
        swappable = [(i, n) for i in content if (n := neighbours(words[i].lower(), 8))]
        if swappable:
            i, near = swappable[int(rng.integers(len(swappable)))]
            alike = str(near[int(rng.integers(len(near)))])
            tries.append(("sound_alike", (*words[:i], alike, *words[i + 1 :])))
        split = _half("sentence:" + target)
        for voice in ("pico", "espeak"):
            for kind, said in tries:
                trials.append(Trial(voice, split, "repetition", kind, target, said))
    return trials


def freeze(trials: list[Trial], path: Path = BLIND_HASH) -> str:
    """SHA-256 of the blind trials; written once, then every run must find the same set."""
    blind = [asdict(t) for t in trials if t.split == "blind"]
    return frozen_digest(blind, path, f"{len(blind)} blind trials of benchmarks/verdicts.py")


SENTENCES_BLIND_HASH = ROOT / "benchmarks" / "blind" / "verdicts_sentences.sha256"
"""The synthetic sentence trials, added on 2026-12-08 (frozen apart: the first set's
hash stays as it was)."""


class Voices:
    """Audio for a trial: her recordings joined, or a synthetic voice."""

    def __init__(self) -> None:
        from therapy_app.tts.synthesizer import SpeechSynthesizer

        self._human = {w.text: self._trimmed(w.clip.samples) for w in armelle_words()}
        self._tts = {
            "pico": SpeechSynthesizer.load(prefer="pico"),
            "espeak": SpeechSynthesizer.load(prefer="espeak"),
        }

    @staticmethod
    def _trimmed(samples: np.ndarray) -> np.ndarray:
        loud = np.flatnonzero(np.abs(samples) > 0.01)
        return samples[max(0, loud[0] - 800) : loud[-1] + 800] if len(loud) else samples

    def words(self) -> list[str]:
        """Her words with a recording."""
        return sorted(self._human)

    def say(self, trial: Trial) -> AudioClip:
        """The trial's words with 0.3 s of silence around (0.3 s between her words)."""
        edge = np.zeros(int(0.3 * SAMPLE_RATE), np.float32)
        if trial.voice == "human":
            parts = [edge]
            for word in trial.said:
                samples = self._human[word.rstrip("~")]
                if word.endswith("~"):
                    samples = samples[: int(len(samples) * CUT)]
                parts += [samples, edge]
            return AudioClip(np.concatenate(parts).astype(np.float32))
        speech = self._tts[trial.voice].synthesize(" ".join(trial.said)).samples
        return AudioClip(np.concatenate([edge, speech.astype(np.float32), edge]))


def measure(trials: list[Trial], voices: Voices) -> list[dict[str, Any]]:
    """Judge every trial on the real models; one row of measures each."""
    from therapy_app.asr.recognizer import SpeechRecognizer
    from therapy_app.exercises import default_content
    from therapy_app.naming.bank import default_bank
    from therapy_app.practice.judging import item_for, judge
    from therapy_app.vad.silero import VoiceActivityDetector
    from therapy_app.voice.samples import clear_label

    recognizer, vad = SpeechRecognizer.load(), VoiceActivityDetector.load()
    content, bank = default_content(), default_bank()
    rows = []
    start = time.perf_counter()
    for n, trial in enumerate(trials, start=1):
        item, source = item_for(ExerciseKind(trial.exercise), trial.target, content, bank)
        began = time.perf_counter()
        judged = judge(recognizer, vad, voices.say(trial), item, source)
        result = judged.result
        rows.append(
            {
                **asdict(trial),
                "accepted": judged.success,
                "heard": judged.heard,
                "wer": None if result is None else result.wer,
                "margin": None if result is None else result.margin,
                "gap": None if result is None else result.transcript_gap,
                "phone_fit": None if result is None else result.phone_fit,
                "phone_margin": None if result is None else result.phone_margin,
                "near_margin": None if result is None else result.near_margin,
                "phone_near_margin": None if result is None else result.phone_near_margin,
                "rank_margin": item.rank_margin,
                "margin_kind": "naming" if item.rank_margin == NAMING_RANK_MARGIN else "sentence",
                "target_per_token": None if result is None else result.target_per_token,
                # What the personal voice's guard would teach from this try (issue 26).
                "taught": clear_label(
                    trial.exercise,
                    trial.target,
                    judged.heard,
                    judged.success,
                    None if result is None else result.target_per_token,
                ),
                "seconds": round(time.perf_counter() - began, 3),
                "candidates": [] if result is None else [asdict(c) for c in result.candidates],
            }
        )
        if n % 25 == 0:
            print(f"  {n}/{len(trials)} tries, {time.perf_counter() - start:.0f} s", flush=True)
    return rows


def wilson(successes: int, n: int, z: float = 1.96) -> tuple[float, float] | None:
    """Wilson score 95 % interval of a proportion (None without trials)."""
    if n == 0:
        return None
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return round(max(0.0, centre - half), 3), round(min(1.0, centre + half), 3)


def rate(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Share of ``rows`` accepted, with its interval."""
    accepted = sum(bool(r["accepted"]) for r in rows)
    return {
        "n": len(rows),
        "accepted": accepted,
        "rate": round(accepted / len(rows), 3) if rows else None,
        "ci95": wilson(accepted, len(rows)),
    }


def table(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """voice group -> split -> exercise -> kind -> accept rate (true accept for "correct").

    The synthetic voices' sentences (:func:`sentence_trials`) are a group of their own.
    """
    out: dict[str, Any] = {}
    for group in ("human", "synthetic", "synthetic-sentences"):
        mine = [r for r in rows if _group(r) == group]
        for split in ("calibration", "blind"):
            part = [r for r in mine if r["split"] == split]
            for exercise in sorted({r["exercise"] for r in part}):
                cell = out.setdefault(group, {}).setdefault(split, {}).setdefault(exercise, {})
                of = [r for r in part if r["exercise"] == exercise]
                for kind in sorted({r["kind"] for r in of}):
                    cell[kind] = rate([r for r in of if r["kind"] == kind])
                cell["false_accept_all_errors"] = rate([r for r in of if r["kind"] != "correct"])
    return out


def _group(row: dict[str, Any]) -> str:
    if row["voice"] == "human":
        return "human"
    return "synthetic-sentences" if len(row["target"].split()) >= 3 else "synthetic"


def guard(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The personal voice's label guard on tries of known truth, per voice group and split.

    A taught error (the target taught for a recording that says something else)
    is a wrong label; ``wrong_label_rate`` is its share of the taught tries.
    """
    out: dict[str, Any] = {}
    for group in ("human", "synthetic"):
        mine = [r for r in rows if (r["voice"] == "human") == (group == "human")]
        for split in ("calibration", "blind"):
            part = [r for r in mine if r["split"] == split]
            right = [r for r in part if r["kind"] == "correct"]
            taught = [r for r in part if r.get("taught") is not None]
            wrong = sum(r["kind"] != "correct" for r in taught)
            out.setdefault(group, {})[split] = {
                "tries": len(part),
                "right_answers": len(right),
                "right_taught": sum(r.get("taught") is not None for r in right),
                "errors": len(part) - len(right),
                "errors_taught": wrong,
                "taught": len(taught),
                "wrong_label_rate": round(wrong / len(taught), 3) if taught else None,
                "wrong_label_ci95": wilson(wrong, len(taught)),
                "accepted_errors": sum(bool(r["accepted"]) for r in part if r["kind"] != "correct"),
            }
    return out


def _print(summary: dict[str, Any]) -> None:
    for group, splits in summary.items():
        for split, exercises in splits.items():
            for exercise, kinds in exercises.items():
                cells = []
                for kind, r in kinds.items():
                    label = "TA" if kind == "correct" else f"FA {kind}"
                    ci = r["ci95"]
                    cells.append(
                        f"{label} {r['rate']:.0%} [{ci[0]:.0%}-{ci[1]:.0%}] n={r['n']}"
                        if r["n"]
                        else f"{label} -"
                    )
                print(f"{group:9} {split:11} {exercise:10} " + " | ".join(cells))


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer sentences and pictures")
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument(
        "--calibration-only",
        type=Path,
        metavar="ROWS",
        help="judge the calibration half only and write its rows to ROWS (for "
        "benchmarks/verdict_calibration.py); the blind half is not touched",
    )
    args = parser.parse_args(argv)

    voices = Voices()
    trials = human_trials(voices.words(), 6 if args.quick else 15)
    trials += synthetic_trials(8 if args.quick else 24)
    sentences = sentence_trials(6 if args.quick else 32)
    if args.calibration_only:
        trials += sentences
        rows = measure([t for t in trials if t.split == "calibration"], voices)
        write_report(args.calibration_only, {"calibration_rows": rows})
        print(f"{len(rows)} calibration rows -> {args.calibration_only}")
        return 0
    digest = freeze(trials) if not args.quick else None
    sentences_digest = None
    if not args.quick:
        sentences_digest = freeze(sentences, SENTENCES_BLIND_HASH)
    trials += sentences
    start = time.perf_counter()
    print(f"judging {len(trials)} tries on the real models...", flush=True)
    rows = measure(trials, voices)
    seconds = time.perf_counter() - start
    summary = table(rows)
    _print(summary)
    print("label guard:", json.dumps(guard(rows), ensure_ascii=False))
    latency = [r["seconds"] for r in rows]
    report = {
        "description": __doc__.split("\n\n")[1].replace("\n", " "),
        "blind_sha256": digest,
        "sentences_blind_sha256": sentences_digest,
        "tries": len(rows),
        "measure_seconds": round(seconds, 1),
        "hear_and_score_seconds": {
            "median": round(statistics.median(latency), 3),
            "p90": round(float(np.percentile(latency, 90)), 3),
        },
        "summary": summary,
        "guard": guard(rows),
        # The blind half is reported in aggregate only: its rows are never written.
        # Without the scored texts (``--calibration-only`` keeps them for the calibration).
        "calibration_rows": [
            {k: v for k, v in r.items() if k != "candidates"}
            for r in rows
            if r["split"] == "calibration"
        ],
    }
    if not args.quick:
        write_report(args.out, report)
        print(f"written {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
