"""Recorded human French for the speech benchmark: allowed (Armelle) and reserved sets.

* ``asterisk-prompt-fr-armelle`` (Debian; one speaker, telephone prompts) may be
  used for tuning and calibration. Only its recordings whose text is certain are
  used: numbers, days, months, "hier / aujourd'hui / demain". They give isolated
  human words and "halting" human utterances (2-4 of them joined with 0.6-2.5 s
  pauses, deterministic).
* ``asterisk-core-sounds-fr`` (read prompts with their text) and
  ``ktuberling-data`` (isolated nouns) are RESERVED for independent evaluation:
  :func:`run_independent` only reports on them. Never choose a setting on them.

Packages are fetched with ``apt-get download`` (Debian's registry) into
``build/cache/debs`` and unpacked there; audio is converted with sox.
"""

from __future__ import annotations

import gzip
import re
import statistics
import subprocess
import unicodedata
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / "build" / "cache" / "debs"

_UNITS = ("zéro un deux trois quatre cinq six sept huit neuf dix onze douze treize "
          "quatorze quinze seize dix-sept dix-huit dix-neuf").split()  # fmt: skip
_TENS = {20: "vingt", 30: "trente", 40: "quarante", 50: "cinquante", 60: "soixante",
         70: "soixante-dix", 80: "quatre-vingts", 90: "quatre-vingt-dix"}  # fmt: skip
_DAYS = "dimanche lundi mardi mercredi jeudi vendredi samedi".split()  # asterisk: day-0 = Sunday
_MONTHS = ("janvier février mars avril mai juin juillet août septembre octobre "
           "novembre décembre").split()  # fmt: skip
_DETERMINERS = {"un", "une", "le", "la", "les", "l", "des", "du", "de", "d"}


def number_words(n: int) -> str:
    """French words for 0-99 (enough for the recordings and Whisper's digits)."""
    if n < 20:
        return _UNITS[n]
    tens, unit = (n // 10) * 10, n % 10
    if tens in (70, 90):
        joint = "-et-" if unit == 1 and tens == 70 else "-"
        return _TENS[tens - 10].rstrip("s") + joint + _UNITS[10 + unit]
    if unit == 0:
        return _TENS[tens]
    base = _TENS[tens].rstrip("s")
    return base + ("-et-" if unit == 1 and tens != 80 else "-") + _UNITS[unit]


def fold(text: str) -> str:
    """Lowercase, no accents, digits as words, punctuation/hyphens/apostrophes as spaces."""
    text = re.sub(r"\d+", lambda m: number_words(int(m.group())) if int(m.group()) < 100
                  else m.group(), text)  # fmt: skip
    text = unicodedata.normalize("NFD", text.lower().replace("œ", "oe"))
    text = "".join(c for c in text if unicodedata.category(c) != "Mn")
    return " ".join(re.sub(r"[^a-z0-9]+", " ", text).split())


def content(text: str) -> str:
    """:func:`fold`, determiners and "euh" removed (isolated nouns: "un chameau" = "chameau")."""
    return " ".join(w for w in fold(text).split() if w not in _DETERMINERS | {"euh", "heu"})


def fetch(package: str) -> Path:
    """Download and unpack a Debian package once; returns its root folder."""
    target = CACHE / package
    if (target / ".done").exists():
        return target
    CACHE.mkdir(parents=True, exist_ok=True)
    subprocess.run(["apt-get", "download", package], cwd=CACHE, check=True,
                   capture_output=True)  # fmt: skip
    deb = sorted(CACHE.glob(f"{package}_*.deb"))[-1]
    subprocess.run(["dpkg-deb", "-x", str(deb), str(target)], check=True)
    (target / ".done").write_text("ok")
    return target


def load_audio(path: Path) -> Any:
    """Any sox-readable file as a 16 kHz mono AudioClip.

    ``-R``: sox dithers with random noise when it reduces the bit depth, which
    changed Whisper's transcripts of the 8 kHz prompts from run to run.
    """
    from therapy_app.audio.clip import AudioClip

    raw = subprocess.run(["sox", "-R", str(path), "-r", "16000", "-c", "1", "-b", "16", "-e",
                          "signed-integer", "-t", "raw", "-"], check=True,
                         capture_output=True).stdout  # fmt: skip
    return AudioClip(np.frombuffer(raw, "<i2").astype(np.float32) / 32768.0)


@dataclass(frozen=True)
class HumanItem:
    """One human recording and its known text."""

    uid: str
    text: str
    clip: Any


def armelle_words() -> list[HumanItem]:
    """Armelle's isolated words whose text is certain (numbers, days, months, hier...)."""
    base = fetch("asterisk-prompt-fr-armelle") / "usr/share/asterisk/sounds/fr"
    names: dict[str, str] = {f"digits/{n}": number_words(n) for n in [*range(21), *_TENS]}
    names.update({f"digits/day-{i}": d for i, d in enumerate(_DAYS)})
    names.update({f"digits/mon-{i}": m for i, m in enumerate(_MONTHS)})
    names.update({"digits/today": "aujourd'hui", "digits/tomorrow": "demain",
                  "digits/yesterday": "hier"})  # fmt: skip
    return [HumanItem(k, v, load_audio(base / f"{k}.gsm")) for k, v in sorted(names.items())
            if (base / f"{k}.gsm").exists()]  # fmt: skip


def armelle_halting(words: list[HumanItem], count: int = 40) -> list[HumanItem]:
    """Human halting utterances: 2-4 of Armelle's words with 0.6-2.5 s pauses (deterministic)."""
    from therapy_app.audio.clip import AudioClip

    rng = np.random.default_rng(zlib.crc32(b"armelle-halting"))
    out = []
    for i in range(count):
        picks = [words[int(j)] for j in rng.choice(len(words), int(rng.integers(2, 5)), False)]
        parts = [np.zeros(int(0.3 * 16000), np.float32)]
        for w in picks:
            loud = np.flatnonzero(np.abs(w.clip.samples) > 0.01)
            parts.append(w.clip.samples[max(0, loud[0] - 800): loud[-1] + 800] if len(loud)
                         else w.clip.samples)  # fmt: skip
            parts.append(np.zeros(int(rng.uniform(0.6, 2.5) * 16000), np.float32))
        out.append(HumanItem(f"armelle-halting-{i:02d}", " ".join(w.text for w in picks),
                             AudioClip(np.concatenate(parts))))  # fmt: skip
    return out


def _wer(refs: list[str], hyps: list[str]) -> float:
    import jiwer

    return round(100.0 * jiwer.wer([fold(r) for r in refs], [fold(h) or "∅" for h in hyps]), 1)


def _transcribe_all(recognizer: Any, items: list[HumanItem], options: Any = None) -> list[str]:
    from therapy_app.asr.utterance import hear
    from therapy_app.vad.silero import VoiceActivityDetector

    vad = VoiceActivityDetector.load()
    out = []
    for item in items:
        heard = hear(recognizer, vad, item.clip, options)
        out.append(heard.transcript.text if heard is not None else "")
    return out


def run_allowed(recognizer: Any) -> dict[str, Any]:
    """Armelle: isolated words right (free transcription) and halting-utterance WER."""
    words = armelle_words()
    hyps = _transcribe_all(recognizer, words)
    right = [content(h) == content(w.text) for h, w in zip(hyps, words, strict=True)]
    halting = armelle_halting(words)
    h_hyps = _transcribe_all(recognizer, halting)
    return {
        "armelle_words_n": len(words),
        "armelle_words_right": round(sum(right) / len(words), 3),
        "armelle_halting_n": len(halting),
        "armelle_halting_wer": _wer([h.text for h in halting], h_hyps),
        "armelle_rows": [{"text": w.text, "heard": h} for w, h in zip(words, hyps, strict=True)],
    }


def core_sounds() -> list[HumanItem]:
    """RESERVED: asterisk-core-sounds-fr read prompts (fr_CA speaker) with their text."""
    texts_gz = (fetch("asterisk-core-sounds-fr")
                / "usr/share/doc/asterisk-core-sounds-fr/core-sounds-fr.txt.gz")  # fmt: skip
    base = next((fetch("asterisk-core-sounds-fr-wav") / "usr/share/asterisk/sounds").iterdir())
    items = []
    for line in gzip.open(texts_gz, "rt", encoding="utf-8", errors="replace"):
        if line.startswith(";") or ":" not in line:
            continue
        name, text = line.split(":", 1)
        path = base / f"{name.strip()}.wav"
        text = re.sub(r"[\[<(].*?[\]>)]", " ", text).strip()
        if path.exists() and len(fold(text).split()) >= 3:
            items.append(HumanItem(name.strip(), text, path))
    return items


def ktuberling_nouns() -> list[HumanItem]:
    """RESERVED: ktuberling's French isolated nouns (text from the file name)."""
    base = fetch("ktuberling-data") / "usr/share/ktuberling/sounds"
    items = []
    for line in (base / "fr.soundtheme").read_text(encoding="utf-8").splitlines():
        m = re.search(r'file="(fr/[^"]+\.wav)"', line)
        if m and (base / m.group(1)).exists():
            word = Path(m.group(1)).stem.split("_", 1)[-1].replace("-", " ")
            items.append(HumanItem(m.group(1), word, base / m.group(1)))
    return items


def run_independent(recognizer: Any) -> dict[str, Any]:
    """Reserved sets, reported only: read prompts WER, isolated nouns right."""
    from therapy_app.asr.recognizer import DecodeOptions

    prompts = [HumanItem(i.uid, i.text, load_audio(i.clip)) for i in core_sounds()]
    prompts = [p for p in prompts if p.clip.duration <= 30.0]
    default = _transcribe_all(recognizer, prompts)
    plain = _transcribe_all(recognizer, prompts, DecodeOptions(
        beam_size=5, length_penalty=None, prompt=None, suppress_punctuation=False))  # fmt: skip
    nouns = [HumanItem(i.uid, i.text, load_audio(i.clip)) for i in ktuberling_nouns()]
    n_hyps = _transcribe_all(recognizer, nouns)
    right = [content(h) == content(n.text) for h, n in zip(n_hyps, nouns, strict=True)]
    return {
        "read_prompts_n": len(prompts),
        "read_prompts_wer_default": _wer([p.text for p in prompts], default),
        "read_prompts_wer_plain_beam5": _wer([p.text for p in prompts], plain),
        "read_prompts_median_s": round(statistics.median(p.clip.duration for p in prompts), 2),
        "isolated_nouns_n": len(nouns),
        "isolated_nouns_right": round(sum(right) / len(nouns), 3),
    }
