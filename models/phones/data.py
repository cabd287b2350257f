"""Training clips for the phone reader: synthetic voices saying frequent words, as encoder frames.

Each clip is one to four frequent French words (Lexique forms said at least
``MIN_FREQUENCY`` times per million, a noun often with its determiner) said by
a random synthetic voice (SVOX Pico or an espeak-ng French voice and variant,
``models/halting/voices.py``) at a random rate and pitch, then degraded the way
real microphones and telephones degrade speech: tape speed, a room, noise, and
for a third of the clips the telephone band (8 kHz GSM through sox, the codec of
the human recordings the verdicts are calibrated on). The label is the
lexicon's phoneme string of the words (Lexique's code, :mod:`therapy_app.asr.phones`).

What is stored is what the app computes anyway for a try: the recogniser's
encoder output (the values of the first decoder layer's cross-attention, a
linear image of the encoder's last hidden state), for the clip's frames only.
So the reader needs no second acoustic model at run time.

Usage: ``python -m models.phones.data --clips 4000 --out build/phones/clips`` (resumable:
shards already written are kept). Never uses any human recording.
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import subprocess
import sys
import time
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from models.halting import room
from models.halting.voices import VoiceSpec, all_voices, render
from therapy_app.asr.phone_reader import frames_of
from therapy_app.asr.phones import label_of
from therapy_app.audio.clip import SAMPLE_RATE, AudioClip
from therapy_app.naming.sound_alikes import LEXICON
from therapy_app.paths import resources_dir

MIN_FREQUENCY = 2.0
SHARD = 200
_CATEGORIES = ("NOM", "VER", "ADJ", "ADV", "ADJ:num", "PRE", "PRO:per", "CON")
_DETERMINERS = ("le", "la", "un", "une", "les", "des", "mon", "ma", "du")


@dataclass(frozen=True)
class Clip:
    """One training clip's text and how it was said."""

    text: str
    voice: str
    speed: float
    telephone: bool


def vocabulary() -> tuple[list[str], np.ndarray]:
    """Frequent forms of the lexicon and their sampling weights (square-rooted frequency)."""
    words, weights = [], []
    with gzip.open(resources_dir().joinpath(*LEXICON), "rt", encoding="utf-8") as handle:
        for line in handle:
            if line.startswith("#"):
                continue
            text, _phon, category, frequency = line.rstrip("\n").split("\t")
            if float(frequency) < MIN_FREQUENCY or not category.startswith(_CATEGORIES):
                continue
            if not text.isalpha() and "'" not in text:
                continue
            words.append(text)
            weights.append(math.sqrt(float(frequency)))
    w = np.asarray(weights)
    return words, w / w.sum()


def draw_text(rng: np.random.Generator, words: list[str], weights: np.ndarray) -> str:
    """One to four words; a single word gets a determiner half of the time."""
    count = int(rng.choice([1, 1, 1, 2, 2, 3, 4]))
    picked = [words[int(i)] for i in rng.choice(len(words), count, p=weights)]
    if count == 1 and rng.random() < 0.5:
        picked.insert(0, str(rng.choice(_DETERMINERS)))
    return " ".join(picked)


def telephone(samples: np.ndarray) -> np.ndarray:
    """The clip through an 8 kHz GSM telephone line and back to 16 kHz (sox)."""
    pcm = (np.clip(samples, -1, 1) * 32767).astype("<i2").tobytes()
    raw = ["-t", "raw", "-r", str(SAMPLE_RATE), "-e", "signed-integer", "-b", "16", "-c", "1"]
    gsm = subprocess.run(
        ["sox", "-R", *raw, "-", "-r", "8000", "-t", "gsm", "-"], input=pcm, capture_output=True,
        check=True,
    ).stdout  # fmt: skip
    back = subprocess.run(
        ["sox", "-R", "-t", "gsm", "-r", "8000", "-c", "1", "-", *raw, "-"], input=gsm,
        capture_output=True, check=True,
    ).stdout  # fmt: skip
    out = np.frombuffer(back, "<i2").astype(np.float32) / 32768.0
    return out[: len(samples)]


def make_clip(
    rng: np.random.Generator, voices: list[VoiceSpec], words: list[str], weights: np.ndarray
) -> tuple[Clip, np.ndarray, str] | None:
    """One degraded rendering and its label; None when a word has no pronunciation."""
    text = draw_text(rng, words, weights)
    label = label_of(text)
    if not label:
        return None
    voice = voices[0] if rng.random() < 0.2 else voices[int(rng.integers(1, len(voices)))]
    speed = float(rng.uniform(0.7, 1.25))
    speech = render(voice, text, speed=speed, pitch=int(rng.integers(25, 75))).samples
    if len(speech) < SAMPLE_RATE // 10:
        return None
    speech = room.tape_speed(speech, float(rng.uniform(0.9, 1.1)))
    if rng.random() < 0.3:
        speech = room.reverberate(speech, room.room_impulse(rng, float(rng.uniform(0.2, 0.6))))
    lead, tail = (np.zeros(int(rng.uniform(0.1, 0.6) * SAMPLE_RATE), np.float32) for _ in "ab")
    samples = np.concatenate([lead, speech, tail])
    if rng.random() < 0.4:
        colour = str(rng.choice(["white", "pink", "brown"]))
        samples = room.add_noise(samples, rng, float(rng.uniform(12, 35)), colour)
    phone = bool(rng.random() < 0.35)
    if phone:
        samples = telephone(samples)
    samples = (samples * float(rng.uniform(0.2, 1.0))).astype(np.float32)
    return Clip(text, voice.name, round(speed, 2), phone), samples, label


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clips", type=int, default=4000)
    parser.add_argument("--out", type=Path, default=Path("build/phones/clips"))
    parser.add_argument("--seed", default="phones-v1")
    args = parser.parse_args(argv)
    from therapy_app.asr.recognizer import SpeechRecognizer

    recognizer = SpeechRecognizer.load(threads=2)
    voices = all_voices()
    words, weights = vocabulary()
    args.out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    for shard in range(math.ceil(args.clips / SHARD)):
        path = args.out / f"shard-{shard:04d}.npz"
        if path.exists():
            continue
        rng = np.random.default_rng(zlib.crc32(f"{args.seed}:{shard}".encode()))
        frames, labels, meta = [], [], []
        while len(frames) < SHARD:
            made = make_clip(rng, voices, words, weights)
            if made is None:
                continue
            clip, samples, label = made
            # The reader's own input function: training frames are what the app reads.
            frames.append(frames_of(recognizer.encode(AudioClip(samples))).astype(np.float16))
            labels.append(label)
            meta.append(clip.__dict__)
        lengths = np.asarray([len(f) for f in frames])
        np.savez(
            path.with_suffix(".tmp.npz"), frames=np.concatenate(frames), lengths=lengths,
            labels=np.asarray(labels), meta=np.asarray([json.dumps(m) for m in meta]),
        )  # fmt: skip
        path.with_suffix(".tmp.npz").rename(path)
        done = (shard + 1) * SHARD
        print(f"{done} clips, {time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
