"""Verdicts of real practice sessions heard through the microphone, against the same files judged.

Usage: ``.venv/bin/python benchmarks/live_verdicts.py [--quick] [--rate 48000]``
(about 7 minutes on 2 shared cores; ``--quick``: about 2)

Issue 25: a tester's human recordings of nouns, played into the microphone
during naming, got 3 right answers accepted out of 11; judged as files, 7 in
10. This plays recordings into the virtual microphone (PulseAudio
``vmic_feed``, whose monitor is the ``vmic`` source) during real practice
sessions (:mod:`benchmarks.live_session`: the real controller, recorder,
end-of-speech detector with the default pause tolerance, models and SQLite
repository), with 1 s of silence before the first word, and waits for the
app's own end of speech. Each live verdict is compared with the truth and
with :func:`therapy_app.practice.judging.judge` on the same recording (the
file path), scored against the item practice presented.

* **pico**: the app's voice naming calibration-half pictures ("un chapeau",
  and a phonological competitor: "un chameau"), repeating words ("le
  chapeau" / "le chameau") and a sentence, completing list items.
* **armelle**: Debian ``asterisk-prompt-fr-armelle`` (GSM 8 kHz, converted
  with ``sox -R``), the calibration half of ``benchmarks/verdicts.py`` only:
  repeating her words (right, "six" for "dix", another word of the kind) and
  completing "jeudi" / "demain". None of her words is a picture of the bank,
  so she names nothing.

Diagnostics per try: the lag, correlation and gain of the captured audio
against the played file, the judge's verdict on the raw capture, the length
of the stored recording against the file's trimmed speech. Writes
``benchmarks/results/live_verdicts.json``. Never uses
``asterisk-core-sounds-fr*`` or ``ktuberling-data`` (reserved).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.live_session import (  # noqa: E402
    LiveSession,
    LiveTry,
    alignment,
    private_pulse,
    room_tone,
    speech_span,
    write_clip,
)
from therapy_app.audio.clip import SAMPLE_RATE, AudioClip  # noqa: E402
from therapy_app.practice.events import ExerciseKind  # noqa: E402
from therapy_app.practice.settings import PracticeSettings  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results" / "live_verdicts.json"
QUICK_RESULTS = ROOT / "benchmarks" / "out" / "live_verdicts_quick.json"  # not committed
ARMELLE = Path("/usr/share/asterisk/sounds/fr")
ARMELLE_FILES = {
    "six": "digits/6", "dix": "digits/10", "deux": "digits/2", "huit": "digits/8",
    "onze": "digits/11", "lundi": "digits/day-1", "mardi": "digits/day-2",
    "jeudi": "digits/day-4", "vendredi": "digits/day-5", "dimanche": "digits/day-0",
    "février": "digits/mon-1", "novembre": "digits/mon-10", "demain": "digits/tomorrow",
    "aujourd'hui": "digits/today",
}  # fmt: skip
"""Her words of the calibration half of ``benchmarks/verdicts.py`` used here."""


@dataclass(frozen=True)
class Trial:
    """One try: who says what, for which item, and whether it is right.

    Attributes:
        voice: "pico" or "armelle".
        exercise: naming, repetition or completion.
        kind: "right", "sound_alike" or "wrong_word".
        target: the item's target (as practice lists it).
        said: what the recording says (text for Pico, her word for Armelle).
    """

    voice: str
    exercise: ExerciseKind
    kind: str
    target: str
    said: str

    @property
    def truth(self) -> bool:
        """A therapist accepts it."""
        return self.kind == "right"

    @property
    def name(self) -> str:
        """A file name for the recording."""
        slug = "".join(c if c.isalnum() else "-" for c in self.said.lower())
        return f"{self.voice}-{self.exercise.value}-{self.kind}-{slug}"


def trials(quick: bool) -> list[Trial]:
    """The tries, calibration half only (``benchmarks/verdicts.py``'s split)."""
    from therapy_app.naming.bank import default_bank

    naming, repetition, completion = (
        ExerciseKind.NAMING,
        ExerciseKind.REPETITION,
        ExerciseKind.COMPLETION,
    )
    pictures = [("chapeau", "chameau"), ("moto", "manteau"), ("pain", "vin"),
                ("cadeau", "gâteau"), ("téléphone", "éléphant")]  # fmt: skip
    words = [("le chapeau", "le chameau"), ("le pain", "la main"), ("la moto", "la photo")]
    answers = [("lit", "lait"), ("clé", "clou"), ("miel", "ciel")]
    hers = ["six", "dix", "onze", "lundi", "jeudi", "février", "demain"]
    hers_wrong = [("six", "dix"), ("dix", "six"), ("mardi", "vendredi"), ("onze", "huit")]
    if quick:
        pictures, words, answers = pictures[:1], words[:1], answers[:1]
        hers, hers_wrong = hers[:2], hers_wrong[:1]
    out: list[Trial] = []
    bank = default_bank()
    for word, near in pictures:
        for kind, said in (("right", word), ("sound_alike", near)):
            picture = bank.by_word(said)
            text = picture.indefinite if picture is not None and picture.indefinite else said
            out.append(Trial("pico", naming, kind, word, text))
    for target, near in words:
        out.append(Trial("pico", repetition, "right", target, target))
        out.append(Trial("pico", repetition, "sound_alike", target, near))
    if not quick:
        sentence = "Je voudrais un café."
        out.append(Trial("pico", repetition, "right", sentence, sentence))
        out.append(Trial("pico", repetition, "wrong_word", sentence, "Je voudrais un gâteau."))
    for answer, near in answers:
        out.append(Trial("pico", completion, "right", answer, answer))
        out.append(Trial("pico", completion, "sound_alike", answer, near))
    for word in hers:
        out.append(Trial("armelle", repetition, "right", word, word))
    for target, said in hers_wrong:
        kind = "sound_alike" if {target, said} == {"six", "dix"} else "wrong_word"
        out.append(Trial("armelle", repetition, kind, target, said))
    for target, wrong in [("jeudi", "mardi"), ("demain", "aujourd'hui")][: 1 if quick else 2]:
        out.append(Trial("armelle", completion, "right", target, target))
        out.append(Trial("armelle", completion, "wrong_word", target, wrong))
    return out


def armelle_clip(word: str) -> AudioClip:
    """Her recording of ``word``, 16 kHz mono 16-bit (``sox -R``: no random dither)."""
    source = ARMELLE / f"{ARMELLE_FILES[word]}.gsm"
    raw = subprocess.run(
        ["sox", "-R", str(source), "-r", "16000", "-c", "1", "-b", "16", "-e", "signed-integer",
         "-t", "raw", "-"], check=True, capture_output=True,
    ).stdout  # fmt: skip
    return AudioClip(np.frombuffer(raw, "<i2").astype(np.float32) / 32768.0)


def recordings(chosen: list[Trial], folder: Path) -> dict[str, Path]:
    """Each trial's recording as a WAV file (the file that is played and judged).

    The app's voice as ``tests/asr_fixtures.synthesize`` makes it: Pico, 0.3 s
    of silence on each side.
    """
    from therapy_app.tts import SpeechSynthesizer, SynthesisOptions

    pico = SpeechSynthesizer.load(prefer="pico")
    if pico.is_fallback:
        raise SystemExit("the Pico voice (py-nanotts) is needed")
    pad = AudioClip.silence(0.3)
    out = {}
    for trial in chosen:
        if trial.name in out:
            continue
        if trial.voice == "armelle":
            clip = armelle_clip(trial.said)
        else:
            speech = pico.synthesize(trial.said, SynthesisOptions(pause_between_words_ms=0))
            clip = AudioClip.concatenate([pad, speech, pad])
        out[trial.name] = write_clip(folder, trial.name, clip)
    return out


def _result(judgement: Any) -> dict[str, Any]:
    result = judgement.result
    return {
        "accepted": judgement.success,
        "heard": judgement.heard,
        "wer": None if result is None else result.wer,
        "margin": None if result is None else result.margin,
    }


def row(
    trial: Trial, live: LiveTry, file_clip: AudioClip, loaded: dict[str, Any]
) -> dict[str, Any]:
    """Everything measured about one try."""
    from therapy_app.asr.utterance import hear
    from therapy_app.exercises import default_content
    from therapy_app.naming.bank import default_bank
    from therapy_app.practice.judging import item_for, judge

    recognizer, vad = loaded["recognizer"], loaded["vad"]
    file = judge(recognizer, vad, file_clip, live.item, cue_level=live.cue_level)
    raw = judge(recognizer, vad, live.raw, live.item, cue_level=live.cue_level)
    file_heard = hear(recognizer, vad, file_clip)
    listed, _ = item_for(trial.exercise, trial.target, default_content(), default_bank())
    speech_end = speech_span(file_clip)[1]
    spoke_until = live.played[1] - (file_clip.duration - speech_end)
    feedback = live.feedback
    return {
        "voice": trial.voice,
        "exercise": trial.exercise.value,
        "kind": trial.kind,
        "target": trial.target,
        "said": trial.said,
        "truth": trial.truth,
        "live": {
            "accepted": live.success,
            "heard": live.heard,
            "wer": feedback.wer if feedback else None,
            "margin": live.result.margin if live.result else None,
            "notice": live.notice,
            "stop_reason": live.stop_reason,
        },
        "file": _result(file),
        "raw_capture_as_file": _result(raw),
        "item_as_judge_builds_it": listed == live.item,
        "latency_s": (
            round(live.feedback_at - spoke_until, 3) if live.feedback_at is not None else None
        ),
        "audio": {
            **alignment(live.raw, file_clip),
            "captured_s": round(live.raw.duration, 3),
            "file_s": round(file_clip.duration, 3),
            "stored_s": round(live.stored.duration, 3) if live.stored else None,
            "file_trimmed_s": round(file_heard.clip.duration, 3) if file_heard else None,
            "raw_peak": round(live.raw.peak, 4),
            "file_peak": round(file_clip.peak, 4),
        },
    }


def run(chosen: list[Trial], folder: Path) -> list[dict[str, Any]]:
    """Play every trial into one session per (voice, exercise); one row each."""
    from therapy_app.audio.wavio import read_wav
    from therapy_app.exercises import default_content
    from therapy_app.speech.loading import load_steps

    loaded = {step.key: step.load() for step in load_steps(with_corrector=False)}
    content = default_content()
    listed = {
        ExerciseKind.NAMING: set(),
        ExerciseKind.REPETITION: set(content.all_sentences()),
        ExerciseKind.COMPLETION: {c.answer for c in content.completion},
    }
    files = recordings(chosen, folder)
    rows: list[dict[str, Any]] = []
    groups: dict[tuple[str, ExerciseKind], list[Trial]] = {}
    for trial in chosen:
        groups.setdefault((trial.voice, trial.exercise), []).append(trial)
    start = time.perf_counter()
    for (voice, exercise), group in groups.items():
        # Words not in the lists are the patient's own (practised first, as in the app).
        own = tuple(dict.fromkeys(t.target for t in group if t.target not in listed[exercise]))
        settings = PracticeSettings(custom_items=own, resume=False)
        data = folder / f"data-{voice}-{exercise.value}"
        session = LiveSession(loaded, exercise, data, settings)
        try:
            for trial in group:
                live = session.attempt(trial.target, files[trial.name])
                result = row(trial, live, read_wav(files[trial.name]), loaded)
                rows.append(result)
                mark = "=" if result["live"]["accepted"] == result["file"]["accepted"] else "≠"
                print(
                    f"  {len(rows):3}/{len(chosen)} {voice:7} {exercise.value:10} "
                    f"{trial.said!r:28} live {result['live']['accepted']!s:5} {mark} "
                    f"file {result['file']['accepted']!s:5} "
                    f"heard {result['live']['heard']!r} / {result['file']['heard']!r} "
                    f"({time.perf_counter() - start:.0f} s)",
                    flush=True,
                )
        finally:
            session.close()
    return rows


def _rate(rows: list[dict[str, Any]], side: str) -> float | None:
    return round(sum(r[side]["accepted"] for r in rows) / len(rows), 3) if rows else None


def _as_captured(row: dict[str, Any]) -> bool:
    """The app gave the verdict and margin its own capture gets as a file."""
    live, raw = row["live"], row["raw_capture_as_file"]
    if live["margin"] is None or raw["margin"] is None:
        return bool(live["margin"] is raw["margin"] and live["accepted"] == raw["accepted"])
    return bool(live["accepted"] == raw["accepted"] and abs(live["margin"] - raw["margin"]) < 1e-4)


def summary(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per exercise and voice (and all together): rates, agreement, latency."""
    cells = []
    keys = sorted({(r["exercise"], r["voice"]) for r in rows}) + [("all", "all")]
    for exercise, voice in keys:
        mine = [
            r for r in rows if exercise == "all" or (r["exercise"], r["voice"]) == (exercise, voice)
        ]
        right = [r for r in mine if r["truth"]]
        wrong = [r for r in mine if not r["truth"]]
        latency = [r["latency_s"] for r in mine if r["latency_s"] is not None]
        cells.append(
            {
                "exercise": exercise,
                "voice": voice,
                "n": len(mine),
                "live_accept": _rate(mine, "live"),
                "file_accept": _rate(mine, "file"),
                "agreement": round(
                    sum(r["live"]["accepted"] == r["file"]["accepted"] for r in mine) / len(mine), 3
                ),
                "as_captured": round(sum(_as_captured(r) for r in mine) / len(mine), 3),
                "right_n": len(right),
                "true_accept_live": _rate(right, "live"),
                "true_accept_file": _rate(right, "file"),
                "false_accept_live": _rate(wrong, "live"),
                "false_accept_file": _rate(wrong, "file"),
                "no_verdict_live": sum(r["live"]["margin"] is None for r in mine),
                "no_verdict_file": sum(r["file"]["margin"] is None for r in mine),
                "latency_median_s": round(statistics.median(latency), 2) if latency else None,
                "latency_p90_s": round(float(np.percentile(latency, 90)), 2) if latency else None,
            }
        )
    return cells


def print_table(cells: list[dict[str, Any]]) -> None:
    """The summary as a fixed-width table."""

    def pct(value: float | None) -> str:
        return "   -" if value is None else f"{value:4.0%}"

    print(
        f"{'exercise':10} {'voice':7} {'n':>3}  live  file  agree  =capt | TA live/file | "
        "FA live/file | unheard live/file | latency med/p90 (s)"
    )
    for c in cells:
        latency = (
            f"{c['latency_median_s']:.2f} / {c['latency_p90_s']:.2f}"
            if c["latency_median_s"] is not None
            else "-"
        )
        print(
            f"{c['exercise']:10} {c['voice']:7} {c['n']:3}  {pct(c['live_accept'])}  "
            f"{pct(c['file_accept'])}  {pct(c['agreement'])}  {pct(c['as_captured'])}  | "
            f"{pct(c['true_accept_live'])} / "
            f"{pct(c['true_accept_file'])}  | {pct(c['false_accept_live'])} / "
            f"{pct(c['false_accept_file'])}  | {c['no_verdict_live']:7} / "
            f"{c['no_verdict_file']:<7} | {latency}"
        )


def _open_at_device_rate() -> None:
    """Make the microphone refuse 16 kHz, as WASAPI shared mode does on Windows."""
    from therapy_app.audio.sources import SoundDeviceSource

    def native(self: SoundDeviceSource, sd: Any, device: Any) -> int:
        return int(sd.query_devices(device, "input")["default_samplerate"])

    SoundDeviceSource._choose_rate = native  # type: ignore[method-assign]  # noqa: SLF001


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few tries per group (≈ 2 min)")
    parser.add_argument("--rate", type=int, default=SAMPLE_RATE, help="rate of the virtual devices")
    parser.add_argument(
        "--no-room",
        action="store_true",
        help="leave the virtual microphone idle between sounds (as the tester's set-up did)",
    )
    parser.add_argument(
        "--app-resamples",
        action="store_true",
        help="open the microphone at the device's own rate (as WASAPI shared mode does): "
        "the app's resampler converts it",
    )
    parser.add_argument(
        "--out", type=Path, default=None, help=f"default {RESULTS} ({QUICK_RESULTS} with --quick)"
    )
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    if args.app_resamples:
        _open_at_device_rate()
    with tempfile.TemporaryDirectory(prefix="live-verdicts-") as tmp:
        folder = Path(tmp)
        os.environ["THERAPY_APP_DATA_DIR"] = str(folder / "user-data")  # never the real home
        chosen = trials(args.quick)
        started = time.perf_counter()
        print(f"{len(chosen)} tries through the virtual microphone at {args.rate} Hz...")
        with private_pulse(args.rate):
            if args.no_room:
                rows = run(chosen, folder)
            else:
                with room_tone(args.rate):
                    rows = run(chosen, folder)
        seconds = time.perf_counter() - started
    cells = summary(rows)
    print_table(cells)
    report = {
        "description": __doc__.split("\n\n")[1].replace("\n", " "),
        "quick": args.quick,
        "device_rate": args.rate,
        "room_tone": not args.no_room,
        "app_resamples": args.app_resamples,
        "seconds": round(seconds, 1),
        "summary": cells,
        "rows": rows,
    }
    out = args.out or (QUICK_RESULTS if args.quick else RESULTS)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"written {out} ({seconds:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
