"""Generates the committed French test recordings (tests/data/speech) with the Pico voice.

Deterministic: re-running it rewrites identical files (the Pico wrapper makes
the engine's working memory start zeroed on every call). Usage::

    python scripts/make_test_audio.py [--out tests/data/speech]
"""

from __future__ import annotations

import argparse
import json
import logging
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

from therapy_app.audio.clip import AudioClip  # noqa: E402
from therapy_app.audio.wavio import write_wav  # noqa: E402
from therapy_app.tts import SpeechSynthesizer, SynthesisOptions  # noqa: E402

_LOGGER = logging.getLogger("make_test_audio")

# Silence around each utterance, as a microphone recording would have: lets the
# VAD tests check that speech is found inside and trimmed out.
LEAD_S = 0.15
TAIL_S = 0.15

# Several are the correct forms of the telegraphic phrases below (corrector tests).
SENTENCES = [
    "Je voudrais du pain, s'il vous plaît.",
    "Hier, je suis allé à la boulangerie.",
    "Le chat dort sur le canapé.",
    "Je prends le train demain.",
    "Ma fille vient déjeuner dimanche.",
    "J'ai mal à la tête.",
    "Il fait beau aujourd'hui.",
    "Pouvez-vous fermer la fenêtre ?",
]
# Agrammatic, Broca-style utterances: content words only, long pauses between them.
TELEGRAPHIC = [
    "moi aller boulangerie hier",
    "femme manger pomme",
    "voiture garage demain",
    "fils venir dimanche",
    "docteur mal tête",
    "chat dormir canapé",
]
WORDS = ["pomme", "maison", "téléphone", "bonjour"]

TELEGRAPHIC_PAUSE_MS = 300


def _items() -> list[tuple[str, str, str, SynthesisOptions]]:
    items = []
    for i, text in enumerate(SENTENCES, 1):
        items.append((f"sentence_{i:02d}.wav", text, "sentence", SynthesisOptions()))
    slow = SynthesisOptions(pause_between_words_ms=TELEGRAPHIC_PAUSE_MS)
    for i, text in enumerate(TELEGRAPHIC, 1):
        items.append((f"telegraphic_{i:02d}.wav", text, "telegraphic", slow))
    for i, text in enumerate(WORDS, 1):
        items.append((f"word_{i:02d}.wav", text, "word", SynthesisOptions()))
    return items


def generate(out_dir: Path) -> dict[str, dict[str, object]]:
    """Write every WAV and ``transcripts.json`` into ``out_dir``; returns the transcripts."""
    synth = SpeechSynthesizer.load(prefer="pico")
    if synth.is_fallback:
        raise SystemExit("the Pico voice (py-nanotts) is required to make the test audio")
    out_dir.mkdir(parents=True, exist_ok=True)
    transcripts: dict[str, dict[str, object]] = {}
    for name, text, category, options in _items():
        voice = synth.synthesize(text, options)
        clip = AudioClip.concatenate([AudioClip.silence(LEAD_S), voice, AudioClip.silence(TAIL_S)])
        write_wav(out_dir / name, clip)
        transcripts[name] = {
            "text": text,
            "category": category,
            "voice": synth.voice_name,
            "rate_wpm": options.rate_wpm,
            "pause_between_words_ms": options.pause_between_words_ms,
            "speech_start_s": LEAD_S,
            "speech_end_s": round(LEAD_S + voice.duration, 3),
        }
        _LOGGER.info("%s %.2f s  %s", name, clip.duration, text)
    (out_dir / "transcripts.json").write_text(
        json.dumps(transcripts, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    return transcripts


def main(argv: list[str] | None = None) -> int:
    """Command line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "tests" / "data" / "speech")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    generate(args.out)
    total = sum(p.stat().st_size for p in args.out.glob("*.wav"))
    print(f"{args.out}: {total / 1e6:.2f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
