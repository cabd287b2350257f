"""Simulated patients for the personal-voice benchmark: who speaks, what, and the enrol/test split.

* **armelle** (human, Debian ``asterisk-prompt-fr-armelle``, allowed for training):
  her 50 words of certain text, split by prompt (a hash of the word) into words to
  enrol on and words to test on; enrolment grows from her single words to 2-3 word
  halting strings of enrolment words only; the test says words never enrolled.
* **synthetic patients**: an espeak-ng or Pico voice with a *consistent* speech
  error (the same phoneme substitution in every word, as a patient's phonological
  pattern is), slow rate, halting pauses, a noisy or reverberant room
  (``models.halting.speak``). The label is always the meant text: the personal
  model must learn that this patient's "sapeau" is "chapeau".

Enrolment texts and test texts never share a content word (nouns of the naming
bank said with a determiner, sentences of the repetition lists). Enrolment sets are
nested (the first 25 of the 50, ...), so sizes compare like with like.
"""

from __future__ import annotations

import json
import re
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from models.halting.speak import HaltingStyle, speak_halting
from models.halting.voices import VoiceSpec
from therapy_app.audio.clip import SAMPLE_RATE, AudioClip

ROOT = Path(__file__).resolve().parent.parent
SIZES = (25, 50, 100, 200)
TEST_NOUNS = 60
TEST_SENTENCES = 30
_FUNCTION = set(
    "le la les l un une des du de d au aux a à et en je j tu il elle on nous vous ils elles "
    "me m te t se s ce c ne n pas est suis es sont ai as avons ont qui que qu mon ma mes ton "
    "ta tes son sa ses notre votre leur leurs pour par sur dans avec y".split()
)


@dataclass(frozen=True)
class Patient:
    """One simulated speaker: a voice, a consistent error, a manner and a room."""

    name: str
    voice: VoiceSpec | None  # None: Armelle's own recordings
    rules: tuple[tuple[str, str], ...] = ()
    style: HaltingStyle = field(default_factory=HaltingStyle)
    pause_bin: str = "0.6-1.0"
    what: str = ""

    def spoken(self, text: str) -> str:
        """The words as this patient says them (lower case, substitutions applied)."""
        said = text.lower()
        for old, new in self.rules:
            said = re.sub(old, new, said)
        return said


PATIENTS = (
    Patient("armelle", None, what="human telephone voice, words split by prompt"),
    Patient(
        "pico-fronting",
        VoiceSpec("pico", "fr-FR"),
        (("ch", "s"), ("j", "z"), ("g(?=[eéèêiy])", "z")),
        HaltingStyle(speed=(0.7, 0.8), noise_p=1.0, snr_db=(15.0, 25.0), reverb_p=0.5),
        "0.6-1.0",
        "Pico, /ʃ ʒ/ said [s z] ('sapeau', 'boulanzerie'), slow, noisy room",
    ),
    Patient(
        "espeak-liquids",
        VoiceSpec("espeak", "fr", "m3"),
        (("rr", "l"), ("r", "l")),
        HaltingStyle(speed=(0.65, 0.75), noise_p=1.0, snr_db=(12.0, 20.0), hesitation_p=0.4),
        "1.0-1.7",
        "espeak-ng m3, /ʁ/ said [l], very slow, breathy (pink/brown noise), long pauses",
    ),
    Patient(
        "espeak-devoicing",
        VoiceSpec("espeak", "fr-be", "f2"),
        (("b", "p"), ("d", "t"), ("v", "f"), ("g(?![eéèêiy])", "k")),
        HaltingStyle(speed=(0.75, 0.9), reverb_p=1.0, rt60_s=(0.3, 0.6), noise_p=0.5),
        "0.3-0.6",
        "espeak-ng fr-be f2, voiced stops and /v/ devoiced, reverberant room",
    ),
)


@dataclass(frozen=True)
class Utterance:
    """One recording of a patient and the words meant."""

    uid: str
    text: str
    kind: str  # "word" (a noun, with its determiner) or "sentence"


def _hash(text: str) -> int:
    return zlib.crc32(text.encode("utf-8"))


def content_words(text: str) -> set[str]:
    """Lower-case words that carry meaning (no determiners, pronouns, auxiliaries)."""
    words = re.findall(r"[a-zàâçéèêëîïôûùüÿœ-]+", text.lower())
    return {w for w in words if w not in _FUNCTION and len(w) > 1}


def _nouns() -> list[str]:
    bank = json.loads((ROOT / "resources/naming/bank.json").read_text(encoding="utf-8"))
    out = []
    for item in bank["items"]:
        forms = item["forms"]
        if not forms:  # words without an article (names of days, "merci"...)
            continue
        out.append(forms["indefinite"] if _hash(item["word"]) % 2 else forms["definite"])
    return out


def _sentences() -> list[str]:
    levels = json.loads((ROOT / "resources/exercises/repetition.json").read_text("utf-8"))
    found = [s for level in levels["levels"] for s in level["sentences"]]
    return [s for s in found if len(s.split()) >= 2]


def synthetic_split() -> tuple[list[Utterance], list[Utterance]]:
    """(enrolment pool in order, test set): no content word of the test is ever enrolled."""
    nouns, sentences = _nouns(), _sentences()
    test_nouns = [n for n in nouns if _hash("test" + n) % 10 < 3][:TEST_NOUNS]
    held = set().union(*(content_words(n) for n in test_nouns))
    test_sentences = [s for s in sentences if _hash("test" + s) % 10 < 4]
    test_sentences = [s for s in test_sentences if content_words(s)][:TEST_SENTENCES]
    held |= set().union(*(content_words(s) for s in test_sentences))
    pool = [n for n in nouns if n not in test_nouns and not content_words(n) & held]
    pool += [s for s in sentences if s not in test_sentences and not content_words(s) & held]
    pool.sort(key=lambda t: _hash("order" + t))
    enrol = [Utterance(f"e{i:03d}", t, "sentence" if "." in t else "word")
             for i, t in enumerate(pool[: max(SIZES)])]  # fmt: skip
    test = [Utterance(f"t{i:03d}", t, "word") for i, t in enumerate(test_nouns)]
    test += [Utterance(f"s{i:03d}", t, "sentence") for i, t in enumerate(test_sentences)]
    return enrol, test


def render(patient: Patient, utterance: Utterance) -> AudioClip:
    """A synthetic patient saying the utterance (deterministic)."""
    assert patient.voice is not None
    spoken = patient.spoken(utterance.text)
    said = speak_halting(utterance.uid, spoken, patient.voice, patient.pause_bin,
                         patient.style, seed="personal-voice:" + patient.name)  # fmt: skip
    return said.clip


def armelle_split() -> tuple[list[tuple[Utterance, AudioClip]], list[tuple[Utterance, AudioClip]]]:
    """Her enrolment pool (single words first, then strings of enrolment words) and test set."""
    from benchmarks.human_eval import armelle_words

    words = armelle_words()
    enrol_words = [w for w in words if _hash("enrol" + w.uid) % 2 == 0]
    test_words = [w for w in words if w not in enrol_words]

    def strings(chosen, prefix: str, count: int, seed: str):
        rng = np.random.default_rng(_hash(seed))
        out = []
        for i in range(count):
            drawn = rng.choice(len(chosen), int(rng.integers(2, 4)), False)
            picks = [chosen[int(j)] for j in drawn]
            parts = [np.zeros(int(0.3 * SAMPLE_RATE), np.float32)]
            for w in picks:
                loud = np.flatnonzero(np.abs(w.clip.samples) > 0.01)
                parts.append(w.clip.samples[max(0, loud[0] - 800) : loud[-1] + 800])
                parts.append(np.zeros(int(rng.uniform(0.6, 1.5) * SAMPLE_RATE), np.float32))
            text = " ".join(w.text for w in picks)
            out.append((Utterance(f"{prefix}{i:03d}", text, "sentence"),
                        AudioClip(np.concatenate(parts))))  # fmt: skip
        return out

    enrol = [(Utterance(f"e{i:03d}", w.text, "word"), w.clip) for i, w in enumerate(enrol_words)]
    enrol += strings(enrol_words, "es", max(SIZES) - len(enrol), "armelle-enrol")
    test = [(Utterance(f"t{i:03d}", w.text, "word"), w.clip) for i, w in enumerate(test_words)]
    test += strings(test_words, "ts", 25, "armelle-test")
    return enrol, test
