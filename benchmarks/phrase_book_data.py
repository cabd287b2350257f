"""The phrase-book benchmark's sentences, utterances, books and audio (issue 27).

* **Sentences**: ``phrase_book_sentences.SENTENCES`` (327 everyday first-person
  sentences: family, needs, health, shopping, feelings, home, dates), split in a
  **dev** and a **blind** half by a hash of the text.
* **In-book utterances**: a sentence of the half said telegraphically, the
  corrector corpus's agrammatism rules applied to its tagged words (moderate or
  severe profile: dropped determiners, prepositions, auxiliaries, clitics,
  infinitives, tonic "moi", phonemic paraphasias like "boulanzerie"), then spoken
  haltingly by the halting benchmark's voices and rooms (``models/halting``:
  Pico and espeak-ng voices, pauses of 0.3-2.5 s, "euh", restarts, tape speed,
  reverberation, noise).
* **Armelle utterances**: the same, for sentences holding one of the ~50 words
  Armelle recorded (days, months, numbers, hier / aujourd'hui / demain): her
  recording of that word is spliced between the other words said by a synthetic
  voice band-limited to the telephone band like hers ("lundi … médecin").
* **Out-of-book utterances**: the halting benchmark's own utterances (its dev or
  blind set, same sampling, voices and rooms) whose meaning is in no sentence.
* **A second dev set** (``dev2``): more utterances of the dev half's sentences (those
  the ``dev`` set did not draw, with their own renderings) and of the halting
  benchmark's dev set (items its 120-item sample left out). The match's settings were
  designed on ``dev``; ``dev2`` was built after them (2026-12-08) to tell whether they
  generalise, without reading the blind half, and the phoneme settings were then chosen
  on both (docs/decisions/0038-phrase-match-second-dev-set.md).
* **Books**: per utterance, 20 / 100 / 300 sentences drawn by a seed from the
  327, nested, holding the meant sentence for in-book utterances.
"""

from __future__ import annotations

import functools
import random
import re
import unicodedata
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from benchmarks.phrase_book_sentences import SENTENCES
from models.corrector.corpus.generator import Sentence
from models.corrector.corpus.realise import load_french
from models.corrector.corpus.severity import PROFILES, apply_rules
from models.corrector.corpus.tokens import Tag, Token, render
from models.corrector.corpus.utterances import parse_handwritten
from models.halting.sets import EvalItem, load_items, voice_rotation
from models.halting.speak import PAUSE_BINS, seeded, speak_halting
from models.halting.voices import VoiceSpec, all_voices
from models.halting.voices import render as render_voice
from therapy_app.audio.clip import SAMPLE_RATE, AudioClip
from therapy_app.phrases.model import Gender, Phrase, PhraseBook, PhraseSource

SIZES = (20, 100, 300)
SPLITS = ("dev", "dev2", "blind")
# The half of the sentences (and of the halting benchmark) each split draws from.
HALF = {"dev": "dev", "dev2": "dev", "blind": "blind"}
# Utterances per split (the blind lists are frozen with these counts).
IN_BOOK = 60
ARMELLE = 10
OUT_OF_BOOK = 40
# The halting benchmark's sampling of its sets (benchmarks/halting.py --size default).
HALTING_SIZE = 120

_NUMBERS = (
    "zéro deux trois quatre cinq six sept huit neuf dix onze douze treize quatorze quinze "
    "seize dix-sept dix-huit dix-neuf vingt trente quarante cinquante soixante soixante-dix "
    "quatre-vingts quatre-vingt-dix"
).split()
_DAYS = "lundi mardi mercredi jeudi vendredi samedi dimanche".split()
_MONTHS = (
    "janvier février mars avril mai juin juillet août septembre octobre novembre décembre"
).split()
_ADVERBS = (
    "aujourd'hui demain hier maintenant ici là toujours souvent bientôt vite déjà tard tôt "
    "mieux très trop bien beaucoup encore aussi"
).split()
CLOSED_CLASS: dict[str, str] = {
    **dict.fromkeys("je j' tu il elle on nous vous ils".split(), "CLS"),
    **dict.fromkeys(
        "le la les l' un une mon ma mes ton ta tes son sa ses notre nos votre vos leur leurs "
        "ce cet cette ces".split(),
        "DET",
    ),
    **dict.fromkeys(
        "à de d' chez avec pour sur dans sans en depuis par sous vers avant après".split(), "PREP"
    ),
    **dict.fromkeys(["au", "aux"], "PREP_DET"),
    **dict.fromkeys(["du", "des"], "PART"),
    **dict.fromkeys(["ne", "n'"], "NEG_NE"),
    **dict.fromkeys(["pas", "jamais", "rien"], "NEG"),
    **dict.fromkeys("me m' te t' se s' y lui".split(), "CLO"),
    **dict.fromkeys(["c'", "ça"], "DEM"),
    **dict.fromkeys(["et", "mais", "ou"], "CONJ"),
    **dict.fromkeys([".", "?", "!", ","], "PUNCT"),
    **dict.fromkeys(["merci", "bonjour", "oui", "non"], "INTJ"),
    **dict.fromkeys(["moi", "toi"], "PRON"),
    **dict.fromkeys(_NUMBERS, "NUM"),
    **dict.fromkeys(_DAYS + _MONTHS, "N"),
    **dict.fromkeys(_ADVERBS, "ADV"),
}
_MACROS = {"SVP": ",/PUNCT s'il/X vous/X plaît/X", "STP": ",/PUNCT s'il/X te/X plaît/X"}
# Rules of the corpus profiles kept for a spoken rendering: the recogniser's noise
# is real here (the clip is recognised), and speak_halting adds its own "euh" and
# restarts.
_SPOKEN_RULES_OFF = ("filler", "repetition")
_SEVERITIES = ("moderate", "severe")
_ARMELLE_WORDS = frozenset(_NUMBERS + _DAYS + _MONTHS + ["aujourd'hui", "demain", "hier"])
_FUNCTION = frozenset(
    "le la les l un une des du de d au aux a à et en je j tu il elle on nous vous ils elles "
    "me m te t se s ce c ça ne n pas plus est suis es sont ai as avons ont avez qui que qu mon "
    "ma mes ton ta tes son sa ses notre votre leur leurs pour par sur dans avec y moi toi lui "
    "vais va vas allons allez vont aller être avoir fait faire très bien".split()
)


def _expand(line: str) -> str:
    words = []
    for word in line.split():
        if word in _MACROS:
            words.append(_MACROS[word])
            continue
        if "/" not in word:
            tag = CLOSED_CLASS.get(word.lower())
            if not tag:
                raise ValueError(f"untagged open-class word {word!r} in {line!r}")
            word = f"{word}/{tag}"
        form, tag = word.rsplit("/", 1)
        plus = "+" if tag.endswith("+") or form.endswith("+") else ""
        form, tag = form.rstrip("+"), tag.rstrip("+")
        if tag.startswith("V:"):
            tag = "VERB:" + tag[2:]
        elif tag.startswith("M:"):
            tag = "MODAL:" + tag[2:]
        elif tag == "COP":
            tag = "COP:être"
        words.append(f"{form}/{tag}{plus}")
    return " ".join(words)


def parse(line: str) -> Sentence:
    """One tagged line of ``SENTENCES`` as the corpus generator's sentence."""
    return parse_handwritten(_expand(line))


@functools.cache
def sentences() -> tuple[Sentence, ...]:
    """Every sentence, in file order (duplicate texts refused)."""
    found = tuple(parse(line) for line in SENTENCES)
    texts = [s.text for s in found]
    if len(set(texts)) != len(texts):
        raise ValueError("duplicate sentence in phrase_book_sentences.SENTENCES")
    return found


def texts() -> tuple[str, ...]:
    """The sentence texts ("Je voudrais un café.")."""
    return tuple(s.text for s in sentences())


def split_of(text: str) -> str:
    """ "dev" or "blind": a hash of the sentence, so each sentence belongs to one half."""
    return "blind" if zlib.crc32(("phrase-book-split:" + text).encode()) % 2 else "dev"


def fold(text: str) -> str:
    """Lowercase words without accents or punctuation (for word comparisons)."""
    text = unicodedata.normalize("NFD", text.lower().replace("œ", "oe").replace("’", "'"))
    text = "".join(c for c in text if unicodedata.category(c) != "Mn")
    return " ".join(re.sub(r"[^a-z0-9']+", " ", text).replace("'", "' ").split())


def content_stems(text: str) -> frozenset[str]:
    """Content words of ``text`` cut to 5 letters (a crude lemma: "pharmacies": "pharm")."""
    words = [w.rstrip("'") for w in fold(text).split()]
    # Agreement endings off first: "allée" and "allé" are one word.
    return frozenset(
        w.rstrip("s").rstrip("e")[:5] for w in words if w not in _FUNCTION and len(w) > 1
    )


def same_meaning(a: str, b: str) -> bool:
    """Whether two sentences say about the same thing (one's content words hold the other's,
    or they share half of them): such an out-of-book item would be ambiguous."""
    ca, cb = content_stems(a), content_stems(b)
    if not ca or not cb:
        return fold(a) == fold(b)
    return ca <= cb or cb <= ca or len(ca & cb) / len(ca | cb) >= 0.5


@dataclass(frozen=True)
class BenchItem:
    """One utterance of the benchmark.

    Attributes:
        uid: stable identifier (also the audio file's name).
        split: "dev" or "blind".
        kind: "in-book", "armelle" or "out-of-book".
        meant: the sentences it may mean (one for in-book utterances).
        said: the words the speaker says (telegraphic).
        voice: voice name ("armelle+espeak:fr+m2" for a splice); ``family`` its group.
        pause_bin: key of :data:`models.halting.speak.PAUSE_BINS`.
        severity: agrammatism profile ("moderate", "severe"; "halting" for the halting
            benchmark's hand-written items).
        origin: the halting benchmark's item id (out-of-book items: seeds its rendering
            exactly as ``benchmarks/halting.py`` does); "" for the others.
    """

    uid: str
    split: str
    kind: str
    meant: tuple[str, ...]
    said: str
    voice: str
    family: str
    pause_bin: str
    severity: str
    origin: str = ""


@functools.cache
def _corpus_french() -> None:
    # The corpus rules conjugate and inflect with pyrealb: its French lexicon and
    # the corpus's fixes must be loaded, as the corpus generator does, or the
    # utterances depend on whether something else in the process loaded them.
    load_french()


def telegraphic(sentence: Sentence, seed: str) -> tuple[str, str]:
    """(said, severity): the sentence as an agrammatic speaker says it, deterministically."""
    _corpus_french()
    rng = random.Random(zlib.crc32(("telegraphic:" + seed + sentence.text).encode()))
    severity = _SEVERITIES[rng.random() < 0.5]
    probs = {k: (0.0 if k in _SPOKEN_RULES_OFF else v) for k, v in PROFILES[severity].items()}
    intact = render(sentence.tokens)
    for _ in range(8):
        out, _fired = apply_rules(sentence.tokens, probs, rng)
        said = render(out)
        if said != intact and _has_content(out):
            return said, severity
    return intact, "intact"


def _has_content(tokens: list[Token]) -> bool:
    return any(t.tag in Tag.CONTENT or t.tag == Tag.NUM for t in tokens)


def _bins(k: int) -> str:
    # As models.halting.sets.build_set: bins advance one step per round of four voices.
    bins = list(PAUSE_BINS)
    return bins[(k + k // 4) % len(bins)]


@functools.cache
def in_book_items(split: str, count: int = IN_BOOK) -> tuple[BenchItem, ...]:
    """``count`` telegraphic utterances of the half's sentences (a seeded sample)."""
    taken = _dev_sentences() if split == "dev2" else set()  # dev2: sentences dev left
    pool = [s for s in sentences() if split_of(s.text) == HALF[split] and s.text not in taken]
    order = seeded("phrase-book-items", split).permutation(len(pool))
    chosen = [pool[int(i)] for i in order[:count]]
    voices = voice_rotation(len(chosen), "phrase-book:" + split)
    out = []
    for k, (sentence, voice) in enumerate(zip(chosen, voices, strict=True)):
        said, severity = telegraphic(sentence, split)
        out.append(
            BenchItem(
                f"pb-{split}-{k:03d}",
                split,
                "in-book",
                (sentence.text,),
                said,
                voice.name,
                voice.family,
                _bins(k),
                severity,
            )  # fmt: skip
        )
    return tuple(out)


def _dev_sentences() -> set[str]:
    """The sentences the ``dev`` set's utterances mean."""
    return {it.meant[0] for it in (*in_book_items("dev"), *armelle_items("dev"))}


def armelle_word(said: str) -> str | None:
    """The first word of ``said`` that Armelle recorded ("un" is left out: an article)."""
    return next((w for w in said.split() if w in _ARMELLE_WORDS), None)


@functools.cache
def armelle_items(split: str, count: int = ARMELLE) -> tuple[BenchItem, ...]:
    """Telegraphic utterances of the half's sentences that keep one of Armelle's words."""
    taken = _dev_sentences() if split == "dev2" else set()
    pool = [s for s in sentences() if split_of(s.text) == HALF[split] and s.text not in taken]
    order = seeded("phrase-book-armelle", split).permutation(len(pool))
    voices = voice_rotation(len(pool), "phrase-book-armelle:" + split)
    out: list[BenchItem] = []
    for i in order:
        sentence = pool[int(i)]
        for attempt in range(6):
            said, severity = telegraphic(sentence, f"armelle:{split}:{attempt}")
            if armelle_word(said) and len(said.split()) >= 2:
                k = len(out)
                voice = voices[k % len(voices)]
                uid = f"arm-{split}-{k:02d}"
                name = "armelle+" + voice.name
                meant = (sentence.text,)
                out.append(
                    BenchItem(
                        uid, split, "armelle", meant, said, name, "armelle", _bins(k + 2), severity
                    )  # fmt: skip
                )
                break
        if len(out) == count:
            break
    return tuple(out)


@functools.cache
def halting_items(split: str) -> tuple[tuple[EvalItem, VoiceSpec, str], ...]:
    """The halting benchmark's sample of a split with its voices and pause bins.

    The same draw as ``models.halting.sets.build_set(split, HALTING_SIZE, "mixed")``,
    without rendering the audio of items this benchmark does not use.
    """
    items = load_items(split)
    rng = seeded("halting-set", split)
    chosen = sorted(rng.permutation(len(items))[: min(HALTING_SIZE, len(items))].tolist())
    rotation = voice_rotation(len(chosen), split)
    return tuple((items[idx], rotation[k], _bins(k)) for k, idx in enumerate(chosen))


@functools.cache
def out_of_book_items(split: str, count: int = OUT_OF_BOOK) -> tuple[BenchItem, ...]:
    """Halting-benchmark utterances whose meaning is in none of the 327 sentences."""
    book = texts()
    out = []
    for item, voice, pause_bin in halting_items(split) if split != "dev2" else _unsampled_dev():
        if any(same_meaning(ref, text) for ref in item.refs for text in book):
            continue
        uid = "oob-" + item.uid.replace(":", "-")
        out.append(
            BenchItem(
                uid,
                split,
                "out-of-book",
                item.refs,
                item.src,
                voice.name,
                voice.family,
                pause_bin,
                "halting",
                item.uid,
            )  # fmt: skip
        )
        if len(out) == count:
            break
    return tuple(out)


def _unsampled_dev() -> tuple[tuple[EvalItem, VoiceSpec, str], ...]:
    """The halting benchmark's dev items its 120-item sample left out, with voices and bins."""
    sampled = {item.uid for item, _, _ in halting_items("dev")}
    rest = [item for item in load_items("dev") if item.uid not in sampled]
    rotation = voice_rotation(len(rest), "phrase-book-oob:dev2")
    return tuple((item, rotation[k], _bins(k)) for k, item in enumerate(rest))


def items(split: str, quick: bool = False) -> list[BenchItem]:
    """Every utterance of a split (``quick``: a fifth of each kind)."""
    parts = (in_book_items(split), armelle_items(split), out_of_book_items(split))
    if quick:
        return [it for part in parts for it in part[: max(2, len(part) // 5)]]
    return [it for part in parts for it in part]


def book_for(item: BenchItem, size: int) -> PhraseBook:
    """The item's phrase book of ``size`` sentences: nested over sizes, seeded by the item.

    In-book items' books hold the meant sentence; the others are drawn from the 327.
    """
    pool = [t for t in texts() if t not in item.meant[:1] or item.kind == "out-of-book"]
    order = seeded("phrase-book-book", item.uid).permutation(len(pool))
    chosen = [pool[int(i)] for i in order]
    if item.kind == "out-of-book":
        picked = chosen[:size]
    else:
        picked = [item.meant[0], *chosen[: size - 1]]
    # Listed in a seeded order: the meant sentence is not always first.
    picked.sort(key=lambda t: zlib.crc32((item.uid + t).encode()))
    return PhraseBook(tuple(Phrase(t, PhraseSource.CUSTOM) for t in picked), Gender.UNSAID)


def _telephone(samples: np.ndarray) -> np.ndarray:
    """Band-limit to 300-3400 Hz, as Armelle's 8 kHz telephone prompts are."""
    spectrum = np.fft.rfft(samples)
    freqs = np.fft.rfftfreq(len(samples), 1 / SAMPLE_RATE)
    spectrum[(freqs < 300) | (freqs > 3400)] = 0
    return np.fft.irfft(spectrum, len(samples)).astype(np.float32)


def _trimmed(clip: AudioClip) -> np.ndarray:
    loud = np.flatnonzero(np.abs(clip.samples) > 0.01)
    if len(loud) == 0:
        return clip.samples
    return clip.samples[max(0, loud[0] - 800) : loud[-1] + 800]


@functools.cache
def _armelle_clips() -> dict[str, np.ndarray]:
    from benchmarks.human_eval import armelle_words

    return {w.text: _trimmed(w.clip) for w in armelle_words()}


def _voice(name: str) -> VoiceSpec:
    return next(v for v in all_voices() if v.name == name)


def render_item(item: BenchItem) -> AudioClip:
    """The item's recording (deterministic; rendering takes about a second)."""
    if item.kind != "armelle":
        voice = _voice(item.voice)
        uid = item.origin or item.uid
        return speak_halting(uid, item.said, voice, item.pause_bin, seed=item.split).clip
    clips = _armelle_clips()
    voice = _voice(item.voice.removeprefix("armelle+"))
    rng = seeded("phrase-book-splice", item.uid)
    words = item.said.split()
    groups: list[list[str]] = []
    for w in words:  # her words stand alone; the others are said one or two in a breath
        joinable = groups and groups[-1][0] not in clips and len(groups[-1]) < 2
        if w not in clips and joinable and rng.random() < 0.4:
            groups[-1].append(w)
        else:
            groups.append([w])
    low, high = PAUSE_BINS[item.pause_bin]
    parts = [np.zeros(int(0.3 * SAMPLE_RATE), np.float32)]
    for k, group in enumerate(groups):
        if group[0] in clips:
            samples = clips[group[0]]
        else:
            samples = _telephone(render_voice(voice, " ".join(group), speed=0.85).samples)
            peak = float(np.max(np.abs(samples))) or 1.0
            samples = samples * (float(np.max(np.abs(clips["lundi"]))) / peak)
        parts.append(samples.astype(np.float32))
        gap = rng.uniform(low, high) if k < len(groups) - 1 else 0.5
        parts.append(np.zeros(int(gap * SAMPLE_RATE), np.float32))
    return AudioClip(np.concatenate(parts))


def cached_clip(item: BenchItem, folder: Path) -> AudioClip:
    """The item's recording, rendered once into ``folder`` as a WAV file."""
    from therapy_app.audio.wavio import read_wav, write_wav

    path = folder / f"{item.uid}.wav"
    if not path.is_file():
        folder.mkdir(parents=True, exist_ok=True)
        write_wav(path, render_item(item))
    # Always the file as read back: 16-bit samples differ from the rendering by
    # ~1e-5, enough to change a transcript, and every run must hear the same.
    return read_wav(path)
