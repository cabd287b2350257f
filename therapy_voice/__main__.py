"""``python -m therapy_voice adapt``: trains a patient's personal adapter in its own process.

::

    python -m therapy_voice adapt --manifest M.json --work DIR [--weights DIR]
        [--minutes N] [--max-steps N] [--threads N]

Progress goes to stderr as one JSON object per line (``AdaptProgress``); log
lines never start with ``{``. Exit codes: 0 done (``DIR/adapter.npz`` and
``DIR/train.json``), 1 other failure, 2 bad manifest or unreadable input,
3 cancelled (SIGTERM, SIGINT or a file ``DIR/cancel``; rerun to resume).
"""

from __future__ import annotations

import os

# Before torch loads OpenMP: idle workers sleep instead of spinning. On a busy
# CPU (the app, other programs) spinning workers made a training step 12 times
# slower with 2 threads, and they take the CPU from the app's own recognition.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import argparse
import functools
import logging
import math
import sys
import time
from pathlib import Path

import torch

from therapy_app import model_store
from therapy_app.asr.config import TOKENIZER_ROLE, WhisperConfig
from therapy_app.asr.recognizer import TELEGRAPHIC_PROMPT
from therapy_app.asr.tokenizer import WhisperTokenizer
from therapy_app.errors import TherapyAppError
from therapy_app.vad.silero import VoiceActivityDetector
from therapy_voice.adapt import (
    PREPARED_DIR,
    TRAIN_FILE,
    Prompts,
    Recipe,
    Trainer,
    bf16_runs_natively,
    open_work,
    write_json,
)
from therapy_voice.manifest import Manifest, ManifestError, read_manifest
from therapy_voice.prepare import heard_states, load_weights, prepare_recordings
from therapy_voice.progress import Cancelled, CancelWatch, Pace, ProgressReporter

_LOGGER = logging.getLogger("therapy_voice")

EXIT_DONE, EXIT_FAILED, EXIT_BAD_INPUT, EXIT_CANCELLED = 0, 1, 2, 3
WEIGHTS_NAME = "whisper-base-train"  # the CTranslate2 weights, written by models.build
MAX_DEFAULT_THREADS = 8
# The patient's adaptation must end within 15 minutes on a 2-core PC (issue 26):
# preparation and training get 12, the app's validation on the held-out
# recordings the rest. Unloaded, 100 recordings train in 2-3 minutes; on a
# loaded PC the learning-rate schedule is compressed into the budget.
DEFAULT_MINUTES = 12.0


def default_weights() -> Path | None:
    """``<models dir>/whisper-base-train`` in the app's model folders, if one holds weights."""
    for base in model_store.search_dirs():
        if (base / WEIGHTS_NAME / "model.bin").is_file():
            return base / WEIGHTS_NAME
    return None


def _prompts(config: WhisperConfig, tokenizer: WhisperTokenizer) -> Prompts:
    prompt = tokenizer.prompt_tokens(TELEGRAPHIC_PROMPT, config.n_text_ctx // 2 - 1)
    return Prompts(prompt, config.tokens.sot_sequence, config.tokens.eot, tokenizer.encode)


def _peak_mb() -> int | None:
    """This process's peak resident memory, where the platform reports it (not Windows)."""
    try:
        import resource
    except ImportError:
        return None
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return round(peak / (1 << 20 if sys.platform == "darwin" else 1 << 10))


def _missing_weights(detail: str) -> TherapyAppError:
    return TherapyAppError(
        "Il manque les poids d'apprentissage de la reconnaissance vocale.",
        f"Pour les installer, lancez : {model_store.BUILD_COMMAND}",
        detail,
    )


def adapt(
    args: argparse.Namespace,
    manifest: Manifest,
    reporter: ProgressReporter,
    watch: CancelWatch,
    started: float,
) -> None:
    """Prepare the recordings, train, write ``adapter.npz`` and ``train.json``."""
    weights = args.weights or default_weights()
    if weights is None:
        raise _missing_weights(f"no {WEIGHTS_NAME}/model.bin in {model_store.search_dirs()}")
    model_bin = weights / "model.bin"
    if not model_bin.is_file():
        raise _missing_weights(f"no {model_bin}")
    torch.set_num_threads(args.threads)
    open_work(args.work, manifest, model_bin)
    total = len(manifest.items)
    reporter.report("prepare", 0, total, None, "Préparation des enregistrements")
    bundle = model_store.load_model(model_store.ASR_MODEL)
    config = WhisperConfig.from_dict(bundle.meta)
    tokenizer = WhisperTokenizer(bundle.file(TOKENIZER_ROLE), config.tokens)
    vad = VoiceActivityDetector.load()
    load_start = time.monotonic()
    encoder, decoder = load_weights(model_bin)
    if decoder.dims.n_vocab != config.n_vocab:
        raise _missing_weights(
            f"{model_bin}: vocabulary {decoder.dims.n_vocab}, the app's model has {config.n_vocab}"
        )
    _LOGGER.info("weights loaded in %.1f s", time.monotonic() - load_start)
    pace: Pace | None = None

    def on_item(done: int) -> None:
        nonlocal pace
        watch.check()
        pace = pace or Pace(total, done)
        reporter.report("prepare", done, total, pace.eta(done), "Préparation des enregistrements")

    hear = functools.partial(heard_states, vad, encoder, config.mel)
    audio = [item.audio for item in manifest.items]
    prepared = prepare_recordings(audio, args.work / PREPARED_DIR, hear, on_item)
    reporter.report("prepare", total, total, 0.0, "Préparation des enregistrements")
    watch.check()
    usable = sum(p.states is not None for p in prepared)
    if args.precision == "auto":
        precision = "bf16" if bf16_runs_natively() else "fp32"
    else:
        precision = args.precision
    recipe = Recipe.for_items(max(1, usable), precision, args.max_steps)
    prompts = _prompts(config, tokenizer)
    trainer = Trainer(args.work, manifest, prepared, (encoder, decoder), prompts, recipe)
    _LOGGER.info("%d of %d recordings usable; %s", usable, total, trainer.recipe)
    reporter.report("train", trainer.step, recipe.steps, None, "Apprentissage de la voix")
    deadline = started + 60 * args.minutes if args.minutes is not None else math.inf
    outcome = trainer.train(deadline, watch, reporter)
    extra = {"threads": args.threads, "weights": str(model_bin), "peak_memory_mb": _peak_mb()}
    summary = trainer.summary(outcome, prepared, extra)
    write_json(args.work / TRAIN_FILE, summary)
    reporter.report("done", outcome.steps, recipe.steps, 0.0, "Apprentissage terminé")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m therapy_voice", description=__doc__.splitlines()[0]
    )
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("adapt", help="train a personal adapter from a manifest")
    run.add_argument("--manifest", type=Path, required=True)
    run.add_argument("--work", type=Path, required=True, help="the run's folder (resumable)")
    run.add_argument(
        "--weights",
        type=Path,
        default=None,
        help=f"CTranslate2 Whisper folder (default: <models>/{WEIGHTS_NAME})",
    )
    run.add_argument(
        "--minutes",
        type=float,
        default=DEFAULT_MINUTES,
        help=f"wall-time budget from the start, preparation included (default {DEFAULT_MINUTES:g})",
    )
    run.add_argument("--max-steps", type=int, default=None, help="training steps cap")
    run.add_argument("--threads", type=int, default=min(MAX_DEFAULT_THREADS, os.cpu_count() or 1))
    run.add_argument(
        "--precision",
        choices=("auto", "fp32", "bf16"),
        default="auto",
        help="auto: bf16 where the CPU has bf16 instructions",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    started = time.monotonic()
    args = _parser().parse_args(argv)
    # The format starts with the time: only progress lines start with "{".
    logging.basicConfig(
        level=logging.INFO,
        stream=sys.stderr,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    reporter = ProgressReporter()
    watch = CancelWatch(args.work)
    try:
        manifest = read_manifest(args.manifest)
        args.work.mkdir(parents=True, exist_ok=True)
        watch.install()
        adapt(args, manifest, reporter, watch, started)
        return EXIT_DONE
    except ManifestError as exc:
        _LOGGER.error("bad input: %s", exc)
        reporter.report("failed", 0, 0, None, f"Données d'apprentissage inutilisables : {exc}")
        return EXIT_BAD_INPUT
    except Cancelled:
        last = reporter.last
        reporter.report(
            "cancelled",
            last.done if last else 0,
            last.total if last else 0,
            None,
            "Apprentissage interrompu : il reprendra où il s'est arrêté.",
        )
        return EXIT_CANCELLED
    except TherapyAppError as exc:
        _LOGGER.error("%s", exc.detail or exc.user_message)
        reporter.report("failed", 0, 0, None, exc.french())
        return EXIT_FAILED
    except Exception:
        _LOGGER.exception("adaptation failed")
        reporter.report("failed", 0, 0, None, "L'apprentissage de la voix a échoué.")
        return EXIT_FAILED


if __name__ == "__main__":
    raise SystemExit(main())
