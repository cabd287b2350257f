"""Verdicts of real practice sessions heard through the microphone, against the same files judged.

Usage: ``.venv/bin/python benchmarks/live_verdicts.py [--quick] [--rate 48000] [--no-early]
[--scoring]`` (about 7 minutes on 2 shared cores; ``--quick``: about 2; ``--scoring``: 10 more)

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
* **hesitations** (kind ``hesitation``, right answers): a patient who pauses
  mid-answer, searching for the word: "un … chapeau", "euh … un chapeau", a
  false start "un télé … un téléphone", "le … chapeau", "Je voudrais … un
  café", "euh … lit", "la … clé" (Pico, 1.5-2.5 s pauses), and Armelle's "dix …
  lundi", the first 45 % of "février" … "février", "mardi … jeudi" (2 s).
  The app judges each settled pause while it records (issue 25, item 3:
  ``therapy_app.practice.early``); a try is **cut off** when the recording
  ended at a pause (an early verdict accepted it) before the last word of the
  file was played. Must be 0.

Latency: from the end of the played speech to the verdict event, per
exercise, for tries the app accepted (ended at the first settled pause) and
for the others (the pause tolerance, then the verdict already made at the
pause when nothing followed it). ``--no-early`` turns the early verdicts
off (whole pause tolerance, then hearing and scoring in one job) for
comparison, into ``benchmarks/out/``. ``--scoring`` also compares, on the calibration half of
``benchmarks/verdicts.py`` (her words and the synthetic voices, written in
aggregate only), practice's judging of a finished recording (the encoder
once per clip: ``EncodeOnce``) with ``judge`` (hearing and scoring apart):
every verdict and number must agree.

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
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent

from benchmarks.bookkeeping import write_report  # noqa: E402
from benchmarks.human_eval import fetch  # noqa: E402
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
ARMELLE_PACKAGE = "asterisk-prompt-fr-armelle"
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
        kind: "right", "sound_alike", "wrong_word" or "hesitation" (right, after a pause).
        target: the item's target (as practice lists it).
        said: what the recording says (text for Pico, her word for Armelle).
        pause: what is said first and the silence after it, before ``said``
            (a hesitation); her word with "~" is its first 45 % (a false start).
    """

    voice: str
    exercise: ExerciseKind
    kind: str
    target: str
    said: str
    pause: tuple[str, float] | None = None

    @property
    def truth(self) -> bool:
        """A therapist accepts it (a hesitation ends with the right answer)."""
        return self.kind in ("right", "hesitation")

    @property
    def name(self) -> str:
        """A file name for the recording."""
        text = self.said if self.pause is None else f"{self.pause[0]} {self.said}"
        slug = "".join(c if c.isalnum() else "-" for c in text.lower())
        return f"{self.voice}-{self.exercise.value}-{self.kind}-{slug}"

    @property
    def shown(self) -> str:
        """What is said, pause included, for the log."""
        return self.said if self.pause is None else f"{self.pause[0]} … {self.said}"


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
    return out + hesitations(quick)


def hesitations(quick: bool) -> list[Trial]:
    """Right answers with a pause mid-answer: they must never be cut off."""
    naming, repetition, completion = (
        ExerciseKind.NAMING,
        ExerciseKind.REPETITION,
        ExerciseKind.COMPLETION,
    )
    tries = [
        ("pico", naming, "chapeau", "chapeau", ("un", 2.0)),
        ("pico", repetition, "le chapeau", "chapeau", ("le", 2.0)),
        ("pico", completion, "lit", "lit", ("euh", 1.5)),
        ("armelle", repetition, "lundi", "lundi", ("dix", 2.0)),
        ("pico", naming, "chapeau", "un chapeau", ("euh", 1.5)),
        ("pico", naming, "téléphone", "un téléphone", ("un télé", 2.0)),
        ("pico", repetition, "Je voudrais un café.", "un café.", ("Je voudrais", 2.5)),
        ("pico", completion, "clé", "clé", ("la", 2.0)),
        ("armelle", repetition, "février", "février", ("février~", 2.0)),
        ("armelle", completion, "jeudi", "jeudi", ("mardi", 2.0)),
    ]
    return [
        Trial(voice, exercise, "hesitation", target, said, pause)
        for voice, exercise, target, said, pause in tries[: 2 if quick else None]
    ]


FALSE_START = 0.45
"""Share of her word kept for a false start ("février~")."""


def armelle_clip(word: str) -> AudioClip:
    """Her recording of ``word``, 16 kHz mono 16-bit (``sox -R``: no random dither).

    ``word~`` is its first ``FALSE_START`` (a false start).
    """
    if word.endswith("~"):
        whole = armelle_clip(word[:-1])
        return AudioClip(whole.samples[: int(len(whole.samples) * FALSE_START)])
    # The Debian package unpacked once into build/cache/debs, as benchmarks/verdicts.py
    # reads her words (it need not be installed).
    base = fetch(ARMELLE_PACKAGE) / "usr/share/asterisk/sounds/fr"
    source = base / f"{ARMELLE_FILES[word]}.gsm"
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

    def say(voice: str, text: str) -> AudioClip:
        if voice == "armelle":
            return armelle_clip(text)
        speech = pico.synthesize(text, SynthesisOptions(pause_between_words_ms=0))
        return AudioClip.concatenate([pad, speech, pad])

    out = {}
    for trial in chosen:
        if trial.name in out:
            continue
        clip = say(trial.voice, trial.said)
        if trial.pause is not None:
            first, seconds = trial.pause
            clip = AudioClip.concatenate(
                [say(trial.voice, first), AudioClip.silence(seconds), clip]
            )
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
    speech_end = float(speech_span(file_clip)[1])
    spoke_until = live.played[1] - (file_clip.duration - speech_end)
    feedback = live.feedback
    audio = alignment(live.raw, file_clip)
    # How far into the played file the recording went: short of its last word = cut off.
    captured_until = float(live.raw.duration - audio["lag_s"])
    return {
        "voice": trial.voice,
        "exercise": trial.exercise.value,
        "kind": trial.kind,
        "target": trial.target,
        "said": trial.shown,
        "truth": trial.truth,
        "live": {
            "accepted": live.success,
            "heard": live.heard,
            "wer": feedback.wer if feedback else None,
            "margin": live.result.margin if live.result else None,
            "notice": live.notice,
            "stop_reason": live.stop_reason,
            "early": live.early,
            "verdict_made_at_pause": live.reused_early,
        },
        "cut_off": bool(live.stop_reason == "at_pause" and captured_until < speech_end - 0.01),
        "recording_after_speech_s": (
            round(live.recording_ended_at - spoke_until, 3)
            if live.recording_ended_at is not None
            else None
        ),
        "file": _result(file),
        "raw_capture_as_file": _result(raw),
        "item_as_judge_builds_it": listed == live.item,
        "latency_s": (
            round(live.feedback_at - spoke_until, 3) if live.feedback_at is not None else None
        ),
        "audio": {
            **audio,
            "overflows": live.overflows,
            "captured_until_s": round(captured_until, 3),
            "speech_end_s": round(speech_end, 3),
            "captured_s": round(live.raw.duration, 3),
            "file_s": round(file_clip.duration, 3),
            "stored_s": round(live.stored.duration, 3) if live.stored else None,
            "file_trimmed_s": round(file_heard.clip.duration, 3) if file_heard else None,
            "raw_peak": round(live.raw.peak, 4),
            "file_peak": round(file_clip.peak, 4),
        },
    }


def run(chosen: list[Trial], folder: Path, early: bool = True) -> list[dict[str, Any]]:
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
        session = LiveSession(loaded, exercise, data, settings, early_verdicts=early)
        try:
            for trial in group:
                live = session.attempt(trial.target, files[trial.name])
                result = row(trial, live, read_wav(files[trial.name]), loaded)
                rows.append(result)
                mark = "=" if result["live"]["accepted"] == result["file"]["accepted"] else "≠"
                print(
                    f"  {len(rows):3}/{len(chosen)} {voice:7} {exercise.value:10} "
                    f"{trial.shown!r:28} live {result['live']['accepted']!s:5} {mark} "
                    f"file {result['file']['accepted']!s:5} "
                    f"heard {result['live']['heard']!r} / {result['file']['heard']!r} "
                    f"{result['live']['stop_reason']} {result['latency_s']} s"
                    f"{' CUT OFF' if result['cut_off'] else ''} "
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


def _spread(values: list[float]) -> dict[str, float | None]:
    if not values:
        return {"median": None, "p90": None}
    return {
        "median": round(statistics.median(values), 2),
        "p90": round(float(np.percentile(values, 90)), 2),
    }


def summary(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per exercise and voice, per exercise, and all together: rates, agreement, latency."""
    cells = []
    pairs = sorted({(r["exercise"], r["voice"]) for r in rows})
    exercises = sorted({r["exercise"] for r in rows})
    keys = pairs + [(e, "all") for e in exercises] + [("all", "all")]
    for exercise, voice in keys:
        mine = [
            r for r in rows if exercise in ("all", r["exercise"]) and voice in ("all", r["voice"])
        ]
        right = [r for r in mine if r["truth"]]
        wrong = [r for r in mine if not r["truth"]]
        latency = [r["latency_s"] for r in mine if r["latency_s"] is not None]
        accepted = [
            r["latency_s"] for r in mine if r["latency_s"] is not None and r["live"]["accepted"]
        ]
        others = [
            r["latency_s"] for r in mine if r["latency_s"] is not None and not r["live"]["accepted"]
        ]
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
                "hesitations": sum(r["kind"] == "hesitation" for r in mine),
                "ended_at_pause": sum(r["live"]["stop_reason"] == "at_pause" for r in mine),
                "verdict_made_at_pause": sum(r["live"]["verdict_made_at_pause"] for r in mine),
                "cut_off": sum(r["cut_off"] for r in mine),
                "dropouts": sum(
                    r["audio"]["r"] < 0.999 or r["audio"]["overflows"] > 0 for r in mine
                ),
                "latency_median_s": _spread(latency)["median"],
                "latency_p90_s": _spread(latency)["p90"],
                "latency_accepted_s": _spread(accepted),
                "latency_not_accepted_s": _spread(others),
            }
        )
    return cells


def print_table(cells: list[dict[str, Any]]) -> None:
    """The summary as a fixed-width table."""

    def pct(value: float | None) -> str:
        return "   -" if value is None else f"{value:4.0%}"

    def spread(value: dict[str, float | None]) -> str:
        if value["median"] is None:
            return "     -      "
        return f"{value['median']:5.2f}/{value['p90']:5.2f}"

    print(
        f"{'exercise':10} {'voice':7} {'n':>3}  live  file  agree  =capt | TA live/file | "
        "FA live/file | unheard | at pause  cut | latency all / accepted / other med/p90 (s)"
    )
    for c in cells:
        latency = {"median": c["latency_median_s"], "p90": c["latency_p90_s"]}
        print(
            f"{c['exercise']:10} {c['voice']:7} {c['n']:3}  {pct(c['live_accept'])}  "
            f"{pct(c['file_accept'])}  {pct(c['agreement'])}  {pct(c['as_captured'])}  | "
            f"{pct(c['true_accept_live'])} / "
            f"{pct(c['true_accept_file'])}  | {pct(c['false_accept_live'])} / "
            f"{pct(c['false_accept_file'])}  | "
            f"{c['no_verdict_live']:3}/{c['no_verdict_file']:<3} | "
            f"{c['ended_at_pause']:8} {c['cut_off']:4} | {spread(latency)} / "
            f"{spread(c['latency_accepted_s'])} / {spread(c['latency_not_accepted_s'])}"
        )


class _Counted:
    """The recogniser, counting its encoder runs (what ``EncodeOnce`` saves)."""

    def __init__(self, recognizer: Any) -> None:
        self.recognizer = recognizer
        self.encodings = 0

    def encode(self, clip: Any) -> Any:
        self.encodings += 1
        return self.recognizer.encode(clip)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.recognizer, name)


def scoring_agreement(quick: bool) -> dict[str, Any]:
    """Practice's judging (the encoder once per distinct clip) against ``judge``, same files.

    The calibration half of ``benchmarks/verdicts.py`` (her words and
    sentences, Pico and espeak-ng naming and repeating), written in
    aggregate only. Both run on the same clip, in alternating order.
    """
    from benchmarks import verdicts as sets
    from therapy_app.asr.recognizer import SpeechRecognizer
    from therapy_app.exercises import default_content
    from therapy_app.naming.bank import default_bank
    from therapy_app.practice.early import AnswerJudge
    from therapy_app.practice.judging import item_for, judge
    from therapy_app.vad.silero import VoiceActivityDetector

    recognizer, vad = SpeechRecognizer.load(), VoiceActivityDetector.load()
    counted = _Counted(recognizer)
    content, bank = default_content(), default_bank()
    voices = sets.Voices()
    chosen = sets.human_trials(voices.words(), 6 if quick else 15)
    chosen += sets.synthetic_trials(8 if quick else 24)
    chosen = [t for t in chosen if t.split == "calibration"]
    fields = ("success", "stars", "wer", "matched", "margin", "transcript_gap", "rank")
    same_verdict = same_numbers = one_encoding = 0
    plain_s: list[float] = []
    once_s: list[float] = []
    print(f"scoring agreement on {len(chosen)} calibration tries...", flush=True)
    for n, trial in enumerate(chosen):
        item, source = item_for(ExerciseKind(trial.exercise), trial.target, content, bank)
        clip = voices.say(trial)
        runs: dict[str, Any] = {}
        for name in ("judge", "once") if n % 2 == 0 else ("once", "judge"):
            began = time.perf_counter()
            if name == "judge":
                runs[name] = judge(recognizer, vad, clip, item, source)
            else:
                before = counted.encodings
                runs[name] = AnswerJudge(counted, vad, item, 0)(clip)
                encodings = counted.encodings - before
            (plain_s if name == "judge" else once_s).append(time.perf_counter() - began)
        plain, once = runs["judge"], runs["once"]
        same_verdict += plain.success == once.accepted
        a, b = plain.result, once.result
        same_numbers += (a is None and b is None) or (
            a is not None
            and b is not None
            and plain.heard == once.heard.transcript.text
            and all(getattr(a, f) == getattr(b, f) for f in fields)
        )
        one_encoding += once.heard is not None and encodings == 1
    return {
        "set": "calibration half of benchmarks/verdicts.py (human, pico, espeak)",
        "tries": len(chosen),
        "same_verdict": same_verdict,
        "same_numbers": same_numbers,
        "encoder_run_once": one_encoding,
        "judge_seconds": _spread(plain_s),
        "encode_once_seconds": _spread(once_s),
    }


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
        "--no-early",
        action="store_true",
        help="no early verdicts: wait for the whole pause tolerance, then hear and score",
    )
    parser.add_argument(
        "--scoring",
        action="store_true",
        help="then compare practice's judging with judge on benchmarks/verdicts.py's tries",
    )
    parser.add_argument(
        "--scoring-only",
        action="store_true",
        help="only that comparison, added to the results file of an earlier run",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        help=f"default {RESULTS} ({QUICK_RESULTS} with --quick or --no-early)",
    )
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    suffix = ("_quick" if args.quick else "") + ("_no_early" if args.no_early else "")
    default = QUICK_RESULTS.with_name(f"live_verdicts{suffix}.json") if suffix else RESULTS
    out = args.out or default
    if args.scoring_only:
        report = json.loads(out.read_text(encoding="utf-8"))
    else:
        report = live_report(args)
    if args.scoring or args.scoring_only:
        report["scoring"] = scoring_agreement(args.quick)
        print(json.dumps(report["scoring"], indent=1))
    write_report(out, report)
    print(f"written {out}")
    return 0


def live_report(args: argparse.Namespace) -> dict[str, Any]:
    """Play every try into the microphone; the results file's content."""
    if args.app_resamples:
        _open_at_device_rate()
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="live-verdicts-") as tmp:
        folder = Path(tmp)
        os.environ["THERAPY_APP_DATA_DIR"] = str(folder / "user-data")  # never the real home
        chosen = trials(args.quick)
        started = time.perf_counter()
        print(f"{len(chosen)} tries through the virtual microphone at {args.rate} Hz...")
        with private_pulse(args.rate):
            if args.no_room:
                rows = run(chosen, folder, early=not args.no_early)
            else:
                with room_tone(args.rate):
                    rows = run(chosen, folder, early=not args.no_early)
        seconds = time.perf_counter() - started
    cells = summary(rows)
    print_table(cells)
    return {
        "description": __doc__.split("\n\n")[1].replace("\n", " "),
        "quick": args.quick,
        "device_rate": args.rate,
        "room_tone": not args.no_room,
        "app_resamples": args.app_resamples,
        "early_verdicts": not args.no_early,
        "cpu": (
            f"{os.cpu_count()} cores; load average {load_before:.1f} before, "
            f"{os.getloadavg()[0]:.1f} after (above 2: latencies pessimistic)"
        ),
        "seconds": round(seconds, 1),
        "summary": cells,
        "rows": rows,
    }


if __name__ == "__main__":
    raise SystemExit(main())
