"""Fine-tuning data for Whisper's decoder: halting speech heard as the app hears it, encoded once.

Corpus sentences (train split only; every text of the hand-written evaluation
sets is excluded) are spoken by the halting-speech simulator
(``models.halting.speak``), prepared exactly as the app prepares a recording
(``therapy_app.asr.utterance.prepare``: VAD trim, pauses capped), turned into
log-mel features and run through the frozen fp32 encoder. The encoder output
(1500 x 512, fp16) goes to one memory-mapped file; ``items.jsonl`` holds the
verbatim target (the words said, fillers left out, lowercase, no punctuation).
Rows are appended in order, so a killed run resumes where it stopped::

    python -m models.asr.finetune_data --corpus build/corpus_v5 --out build/asr_ft --count 3000

Mix ``halting`` (the first run): about two thirds telegraphic sources (deformed
words included, said verbatim) and one third the intended sentences spoken with
fewer pauses. Mix ``mixed`` (added after the first adapters cost clean speech 5
points): one third halting sources as before, one third telegraphic sources said
cleanly with short pauses, one third the intended sentences said fluently in one
breath. ``--offset`` skips the rows an earlier run used, so a second data folder
adds new sentences::

    python -m models.asr.finetune_data --corpus build/corpus_v5 --out build/asr_ft2 \
        --count 1500 --offset 3000 --mix mixed
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import time
from pathlib import Path

import numpy as np

from models.evaluation_texts import training_pairs
from models.halting.speak import PAUSE_BINS, HaltingStyle, speak_halting
from models.halting.voices import all_voices
from therapy_app.asr.verbatim import verbatim_text
from therapy_voice.prepare import D_MODEL, N_FRAMES

_LOGGER = logging.getLogger("asr_finetune_data")
ROOT = Path(__file__).resolve().parents[2]
ITEMS_FILE = "items.jsonl"
ENCODED_FILE = "encoded.f16"
PICO_SHARE = 0.6
SOURCE_SHARE = 0.65
# The intended sentences are said with fewer breaks than the telegraphic sources.
FLUENT_STYLE = HaltingStyle(pair_p=0.75, hesitation_p=0.15, restart_p=0.05)
# Clean telegraphic speech: short pauses, no hesitation, a quieter room.
CLEAN_STYLE = HaltingStyle(pair_p=0.6, hesitation_p=0.0, restart_p=0.0, reverb_p=0.2, noise_p=0.3)
# A whole sentence in one breath.
ONE_BREATH = HaltingStyle(
    pair_p=1.0, hesitation_p=0.0, restart_p=0.0, reverb_p=0.2, noise_p=0.3, max_group=99
)


def draw_kind(mix: str, rng: random.Random) -> tuple[str, HaltingStyle | None, str | None]:
    """(kind, style, forced pause bin) of one item; None style is the simulator's default."""
    if mix == "halting":
        if rng.random() < SOURCE_SHARE:
            return "source", None, None
        return "intended", FLUENT_STYLE, None
    roll = rng.random()
    if roll < 1 / 3:
        return "source", None, None
    if roll < 2 / 3:
        return "clean_source", CLEAN_STYLE, "0.3-0.6"
    return "fluent", ONE_BREATH, "0.3-0.6"


def draw_rows(corpus: Path, count: int, seed: int = 11, offset: int = 0) -> list[dict[str, str]]:
    """``count`` train pairs after ``offset``: deterministic, short, none from eval sets."""
    rows = [
        {"src": src, "tgt": tgt}
        for src, tgt in training_pairs(corpus / "train.jsonl")
        if 1 <= len(src.split()) <= 9
    ]
    random.Random(seed).shuffle(rows)
    return rows[offset : offset + count]


def load_encoder():
    """The frozen fp32 Whisper encoder and decoder (PyTorch), from the cached source model."""
    from models.asr.sources import assemble
    from therapy_voice.prepare import load_weights

    return load_weights(assemble(ROOT / "build" / "cache").model_bin)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--count", type=int, default=3000)
    parser.add_argument("--offset", type=int, default=0, help="skip rows an earlier run used")
    parser.add_argument("--mix", choices=("halting", "mixed"), default="halting")
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")

    import torch

    from therapy_app.asr.recognizer import SpeechRecognizer
    from therapy_app.vad.silero import VoiceActivityDetector
    from therapy_voice.prepare import heard_states

    torch.set_num_threads(args.threads)
    rows = draw_rows(args.corpus, args.count, offset=args.offset)
    args.out.mkdir(parents=True, exist_ok=True)
    items_path = args.out / ITEMS_FILE
    done = 0
    if items_path.exists():
        done = sum(1 for line in items_path.read_text(encoding="utf-8").splitlines() if line)
    mode = "r+" if (args.out / ENCODED_FILE).exists() else "w+"
    states = np.memmap(
        args.out / ENCODED_FILE, np.float16, mode, shape=(args.count, N_FRAMES, D_MODEL)
    )
    mel_settings = SpeechRecognizer.load(threads=1).config.mel
    vad = VoiceActivityDetector.load()
    encoder, _ = load_encoder()
    voices = all_voices()
    bins = list(PAUSE_BINS)
    start = time.perf_counter()
    with items_path.open("a", encoding="utf-8") as out:
        for i in range(done, len(rows)):
            key = f"asrft:{i}" if args.mix == "halting" else f"asrft-{args.mix}:{args.offset + i}"
            rng = random.Random(key)
            voice = voices[0] if rng.random() < PICO_SHARE else rng.choice(voices[1:])
            kind, style, pause_bin = draw_kind(args.mix, rng)
            text = rows[i]["src"] if kind.endswith("source") else rows[i]["tgt"]
            utt = speak_halting(
                f"ft{args.offset + i}", text, voice, pause_bin or rng.choice(bins), style,
                seed="asrft",
            )  # fmt: skip
            target = verbatim_text(utt.spoken)
            heard = heard_states(vad, encoder, mel_settings, utt.clip) if target else None
            if heard is not None:
                states[i] = heard
                states.flush()
            row = {
                "index": i, "target": target if heard is not None else "", "kind": kind,
                "voice": utt.voice, "pause_bin": utt.pause_bin, "intended": rows[i]["tgt"],
            }  # fmt: skip
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
            out.flush()
            if (i + 1 - done) % 50 == 0:
                rate = (time.perf_counter() - start) / (i + 1 - done)
                _LOGGER.info("%d/%d (%.2f s each)", i + 1, len(rows), rate)
    _LOGGER.info("done: %d items in %s", len(rows), args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
