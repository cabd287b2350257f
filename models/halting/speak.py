"""One halting utterance: word groups, long pauses, "euh", restarts, one voice, one room."""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field

import numpy as np

from models.halting import room
from models.halting.voices import VoiceSpec, render
from therapy_app.audio.clip import SAMPLE_RATE, AudioClip

# Silence between word groups, in seconds: the benchmark reports per bin.
PAUSE_BINS: dict[str, tuple[float, float]] = {
    "0.3-0.6": (0.3, 0.6),
    "0.6-1.0": (0.6, 1.0),
    "1.0-1.7": (1.0, 1.7),
    "1.7-2.5": (1.7, 2.5),
}
NOISE_COLOURS = ("white", "pink", "brown")


@dataclass(frozen=True)
class HaltingStyle:
    """How disfluent and how degraded the recording is.

    Attributes:
        hesitation_p: chance of one "euh" in a pause.
        restart_p: chance that the first word is said, then said again after a pause.
        pair_p: chance that two words are said without a pause between them.
        speed: engine speaking-rate range.
        tape: tape-speed (pitch and tempo) perturbation range.
        reverb_p: chance of a reverberant room; ``rt60_s`` its decay range.
        noise_p: chance of background noise; ``snr_db`` its level range.
        max_group: most words said in one breath; 2 is telegraphic, a large value
            with ``pair_p=1`` says the whole text fluently.
    """

    hesitation_p: float = 0.3
    restart_p: float = 0.15
    pair_p: float = 0.4
    speed: tuple[float, float] = (0.75, 1.05)
    tape: tuple[float, float] = (0.92, 1.08)
    reverb_p: float = 0.4
    rt60_s: tuple[float, float] = (0.1, 0.45)
    noise_p: float = 0.6
    snr_db: tuple[float, float] = (18.0, 40.0)
    max_group: int = 2


@dataclass(frozen=True)
class HaltingUtterance:
    """A rendered utterance and what was really said.

    Attributes:
        uid: stable identifier.
        text: the words the speaker meant to say (the item's text).
        spoken: the words actually spoken, restarts and "euh" included.
        voice: voice name; ``family`` its group.
        pause_bin: key of :data:`PAUSE_BINS`.
        clip: 16 kHz mono audio.
        conditions: the drawn perturbations (for the record).
    """

    uid: str
    text: str
    spoken: str
    voice: str
    family: str
    pause_bin: str
    clip: AudioClip = field(repr=False)
    conditions: dict[str, float | str] = field(default_factory=dict)


def seeded(*parts: str) -> np.random.Generator:
    """A generator that depends only on the given strings (not on Python's hash seed)."""
    return np.random.default_rng(zlib.crc32("\x1f".join(parts).encode("utf-8")))


def word_groups(
    words: list[str], rng: np.random.Generator, pair_p: float, max_group: int = 2
) -> list[list[str]]:
    """Split words into groups said in one breath (one to ``max_group`` words)."""
    groups: list[list[str]] = []
    i = 0
    while i < len(words):
        # One draw per extra word, so that max_group=2 gives the sets made before it existed.
        take = 1
        while take < max_group and i + take < len(words) and rng.random() < pair_p:
            take += 1
        groups.append(words[i : i + take])
        i += take
    return groups


def speak_halting(
    uid: str,
    text: str,
    voice: VoiceSpec,
    pause_bin: str,
    style: HaltingStyle | None = None,
    seed: str = "",
) -> HaltingUtterance:
    """Render ``text`` as a halting speaker would say it, deterministically.

    Args:
        uid: item identifier (part of the seed).
        text: the words meant (telegraphic or not); punctuation is not spoken.
        voice: the speaker.
        pause_bin: key of :data:`PAUSE_BINS`.
        style: disfluency and room settings; defaults when None.
        seed: extra seed string (e.g. the set name).
    """
    style = style or HaltingStyle()
    rng = seeded(seed, uid, voice.name, pause_bin)
    words = [w for w in text.replace("?", " ?").split() if w not in {".", "!", ",", ";"}]
    question = "?" in words
    words = [w for w in words if w != "?"]
    groups = word_groups(words, rng, style.pair_p, style.max_group)
    if groups and rng.random() < style.restart_p:
        groups.insert(0, [groups[0][0]])
    if len(groups) > 1 and rng.random() < style.hesitation_p:
        groups.insert(int(rng.integers(1, len(groups))), ["euh"])
    speed = float(rng.uniform(*style.speed))
    pitch = int(rng.integers(30, 70))
    low, high = PAUSE_BINS[pause_bin]
    parts: list[np.ndarray] = [np.zeros(int(rng.uniform(0.2, 0.6) * SAMPLE_RATE), np.float32)]
    for k, group in enumerate(groups):
        said = " ".join(group)
        if question and k == len(groups) - 1:
            said += " ?"
        if group == ["euh"]:
            said = "euh..."
        parts.append(render(voice, said, speed=speed, pitch=pitch).samples)
        gap = rng.uniform(low, high) if k < len(groups) - 1 else rng.uniform(0.3, 0.8)
        parts.append(np.zeros(int(gap * SAMPLE_RATE), np.float32))
    samples = np.concatenate(parts)
    tape = float(rng.uniform(*style.tape))
    samples = room.tape_speed(samples, tape)
    conditions: dict[str, float | str] = {
        "speed": round(speed, 3),
        "pitch": pitch,
        "tape": round(tape, 3),
    }
    if rng.random() < style.reverb_p:
        rt60 = float(rng.uniform(*style.rt60_s))
        samples = room.reverberate(samples, room.room_impulse(rng, rt60))
        conditions["rt60_s"] = round(rt60, 3)
    if rng.random() < style.noise_p:
        snr = float(rng.uniform(*style.snr_db))
        colour = NOISE_COLOURS[int(rng.integers(len(NOISE_COLOURS)))]
        samples = room.add_noise(samples, rng, snr, colour)
        conditions.update(snr_db=round(snr, 1), noise=colour)
    spoken = " ".join(" ".join(g) for g in groups)
    return HaltingUtterance(
        uid, text, spoken, voice.name, voice.family, pause_bin, AudioClip(samples), conditions
    )
