"""ASR-in-the-loop corpus slice: degraded sentences spoken haltingly, transcribed by the app.

Each pair of a corpus split (source = degraded telegraphic text, target = the
sentence meant) is spoken by a synthetic voice with pauses, hesitations and a
room (``models.halting.speak``), heard by the app's own recognition path
(``therapy_app.asr.utterance.hear``: VAD, pauses shortened, default decoding),
and written as {"src": transcript, "tgt": target}. The corrector then learns
what the recogniser really writes. Output is appended line by line, so a
killed run resumes where it stopped::

    python -m models.halting.asr_slice --corpus build/corpus_v4 --out build/asr_slice \
        --count 4000 [--threads 1]

``--count`` pairs are drawn deterministically from the train split; no text
of the evaluation sets is used. Slow on the CPU (~1 s per utterance).
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import re
import time
from pathlib import Path

from models.halting.speak import PAUSE_BINS, speak_halting
from models.halting.voices import all_voices

_LOGGER = logging.getLogger("asr_slice")
SLICE_FILE = "asr_slice.jsonl"
# Share of utterances spoken by Pico (the most natural voice); the rest go to
# the espeak-ng voices, whose robotic speech Whisper often cannot follow.
PICO_SHARE = 0.6


def word_error_rate(ref: str, hyp: str) -> float:
    """Plain word-level Levenshtein rate over lowercased, punctuation-free words."""

    def words(t: str) -> list[str]:
        return re.sub(r"[^\w'\- ]", " ", t.lower().replace("’", "'")).split()

    r, h = [w for w in words(ref) if w != "euh"], [w for w in words(hyp) if w != "euh"]
    if not r:
        return 0.0 if not h else 1.0
    prev = list(range(len(h) + 1))
    for i, rw in enumerate(r, 1):
        cur = [i] + [0] * len(h)
        for j, hw in enumerate(h, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (rw != hw))
        prev = cur
    return prev[-1] / len(r)


def draw_pairs(corpus: Path, count: int, seed: int = 7) -> list[dict[str, str]]:
    """``count`` train pairs, deterministic, short enough to say in one breath.

    A pair whose source or target is a text of a hand-written evaluation set is
    left out: the generator makes common short sentences ("je suis content")
    that those sets also hold (163 train pairs of the current corpus).
    """
    from models.evaluation_texts import training_pairs

    rows = [
        {"src": src, "tgt": tgt}
        for src, tgt in training_pairs(corpus / "train.jsonl")
        if 1 <= len(src.split()) <= 9
    ]
    random.Random(seed).shuffle(rows)
    return rows[:count]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--count", type=int, default=4000)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--shard", type=str, default="0/1", help="k/n: every n-th pair from k")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")

    from therapy_app.asr.recognizer import SpeechRecognizer
    from therapy_app.asr.utterance import hear
    from therapy_app.vad.silero import VoiceActivityDetector

    k, n = (int(x) for x in args.shard.split("/"))
    pairs = draw_pairs(args.corpus, args.count)
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / (SLICE_FILE if n == 1 else f"asr_slice.{k}of{n}.jsonl")
    done = set()
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                done.add(json.loads(line)["index"])
    recognizer = SpeechRecognizer.load(threads=args.threads)
    vad = VoiceActivityDetector.load()
    voices = all_voices()
    bins = list(PAUSE_BINS)
    start = time.perf_counter()
    written = 0
    with path.open("a", encoding="utf-8") as out:
        for i, pair in enumerate(pairs):
            if i % n != k or i in done:
                continue
            rng = random.Random(f"slice:{i}")
            voice = voices[0] if rng.random() < PICO_SHARE else rng.choice(voices[1:])
            utt = speak_halting(f"slice{i}", pair["src"], voice, rng.choice(bins), seed="slice")
            heard = hear(recognizer, vad, utt.clip)
            text = heard.transcript.text if heard is not None else ""
            row = {
                "index": i,
                "src": text,
                "tgt": pair["tgt"],
                "said": utt.spoken,
                "degraded": pair["src"],
                "voice": utt.voice,
                "pause_bin": utt.pause_bin,
                "wer": round(word_error_rate(utt.spoken, text), 3),
            }
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
            out.flush()
            written += 1
            if written % 50 == 0:
                rate = (time.perf_counter() - start) / written
                _LOGGER.info("%d written (%.2f s each)", written, rate)
    _LOGGER.info("done: %d new rows in %s", written, path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
