"""Human training clips for the phone reader: Armelle's prompts, labelled by the recogniser.

Debian ``asterisk-prompt-fr-armelle`` (one speaker, 8 kHz telephone prompts) is the
only human French speech the project may train on (``../shared/MODELS.md``). Its
words in ``digits/`` (numbers, days, months, hier / aujourd'hui / demain) are
what the verdict and phrase-book benchmarks judge, in calibration and blind halves:
none of them is used here. The other prompts (voicemail and agent messages,
letters, the spelling alphabet, dictation) have no transcript in the package, so
each is transcribed by the app's recogniser and labelled with the lexicon's
phonemes of that transcript; a prompt is kept only when every word is in the
lexicon and the shipped reader already finds the label plausible (fit ≥ ``MIN_FIT``),
which drops the transcripts the recogniser got wrong.

Usage: ``python -m models.phones.human --out build/phones/clips`` (about 5 minutes on
2 cores; writes ``shard-human.npz``, which :mod:`models.phones.train` reads with the
synthetic shards).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from benchmarks.human_eval import fetch, load_audio
from therapy_app.asr.phone_reader import frames_of
from therapy_app.asr.phones import label_of

PACKAGE = "asterisk-prompt-fr-armelle"
EXCLUDED = ("digits/",)
"""Folders the benchmarks judge: never trained on."""
MIN_FIT = -1.0
SHARD_NAME = "shard-human.npz"


def prompts() -> list[Path]:
    """Every prompt of the package outside :data:`EXCLUDED`, in a fixed order."""
    base = fetch(PACKAGE) / "usr/share/asterisk/sounds/fr"
    found = sorted(base.rglob("*.gsm"))
    return [p for p in found if not str(p.relative_to(base)).startswith(EXCLUDED)]


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("build/phones/clips"))
    args = parser.parse_args(argv)
    from therapy_app.asr.recognizer import SpeechRecognizer

    recognizer = SpeechRecognizer.load(threads=2)
    reader = recognizer.phones
    if reader is None:
        print("the shipped phone reader is needed to filter the labels", file=sys.stderr)
        return 1
    frames, labels, meta = [], [], []
    kept = dropped = 0
    start = time.perf_counter()
    for n, path in enumerate(prompts(), 1):
        clip = load_audio(path)
        encoded = recognizer.encode(clip)
        text = recognizer.transcribe(encoded).text.strip()
        label = label_of(text) if text else None
        fit = reader.score(encoded, [text]).fit(text) if label else None
        if label is None or fit is None or fit < MIN_FIT:
            dropped += 1
            continue
        kept += 1
        frames.append(frames_of(encoded).astype(np.float16))
        labels.append(label)
        meta.append({"voice": "armelle", "file": path.name, "text": text, "fit": round(fit, 3)})
        if n % 25 == 0:
            print(f"{n} prompts, {kept} kept, {time.perf_counter() - start:.0f} s", file=sys.stderr)
    args.out.mkdir(parents=True, exist_ok=True)
    out = args.out / SHARD_NAME
    np.savez(
        out.with_suffix(".tmp.npz"), frames=np.concatenate(frames),
        lengths=np.asarray([len(f) for f in frames]), labels=np.asarray(labels),
        meta=np.asarray([json.dumps(m, ensure_ascii=False) for m in meta]),
    )  # fmt: skip
    out.with_suffix(".tmp.npz").rename(out)
    print(f"{kept} prompts kept, {dropped} dropped -> {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
