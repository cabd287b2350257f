"""Trains the corrector on the synthetic corpus, with time-based checkpoints and resume.

Usage::

    python -m models.corrector.train --corpus build/corpus --out build/corrector/run1 \
        [--config tiny|base] [--resume] [--max-minutes M] [--max-steps N]

CPU notes (measured on the 2-core shared build machine, see shared/MODELS.md):
bf16 autocast and ``OMP_WAIT_POLICY=PASSIVE`` with 2 threads ran ~5x faster
than the defaults, because spinning OpenMP workers fight the other processes
for the two cores. The variable is read when torch's OpenMP runtime starts, so
the package (``models/corrector/__init__.py``) sets it before torch is imported;
export it yourself to override.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import logging
import math
import os
import random
import shutil
import signal
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from models.corrector.data import Example, collate, load_split, make_batches
from models.corrector.model import ModelConfig, Seq2SeqTransformer, count_parameters
from models.corrector.tokenizer import PAD_ID, TokenizerConfig, load_tokenizer, train_tokenizer
from therapy_app.model_store import sha256_file

_LOGGER = logging.getLogger("models.corrector.train")

TOKENIZER_FILE = "spm.model"
LAST = "last"
BEST = "best"


@dataclass
class TrainConfig:
    """Everything that defines a run; saved as JSON next to every checkpoint.

    Attributes:
        model: architecture.
        tokenizer: SentencePiece training settings.
        batch_tokens: padded tokens (max of source/target length x rows) per batch.
        lr: peak learning rate after warmup.
        warmup_steps: linear warmup, then inverse square-root decay.
        min_lr_ratio: floor of the decayed rate, as a fraction of ``lr``.
        cooldown_start: step where a final linear decay to zero begins (0: none).
        cooldown_steps: length of that decay; the run stops when it ends.
        weight_decay: AdamW decoupled weight decay.
        label_smoothing: cross-entropy label smoothing.
        clip_norm: gradient norm clipping.
        max_steps: stop after this many optimizer steps (0: no limit).
        max_minutes: stop after this much wall time in this invocation (0: no limit).
        val_every_minutes: validation period.
        val_loss_pairs: validation pairs used for the loss.
        val_exact_pairs: validation pairs greedily decoded for exact match.
        ckpt_every_minutes: checkpoint period (``last``), independent of validation.
        log_every_steps: training log period.
        max_src_tokens: longer sources are dropped from training.
        max_tgt_tokens: longer targets are dropped from training.
        threads: torch intra-op threads.
        bf16: bf16 autocast on CPU.
        seed: seeds data order, init and dropout.
    """

    model: ModelConfig = field(default_factory=ModelConfig)
    tokenizer: TokenizerConfig = field(default_factory=TokenizerConfig)
    batch_tokens: int = 1600
    lr: float = 1e-3
    warmup_steps: int = 250
    min_lr_ratio: float = 0.05
    cooldown_start: int = 0
    cooldown_steps: int = 0
    weight_decay: float = 0.01
    label_smoothing: float = 0.1
    clip_norm: float = 1.0
    max_steps: int = 0
    max_minutes: float = 0.0
    val_every_minutes: float = 8.0
    val_loss_pairs: int = 2000
    val_exact_pairs: int = 300
    ckpt_every_minutes: float = 5.0
    log_every_steps: int = 50
    max_src_tokens: int = 96
    max_tgt_tokens: int = 96
    threads: int = 2
    bf16: bool = True
    seed: int = 1

    def to_dict(self) -> dict[str, Any]:
        """Plain dict for JSON."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TrainConfig:
        """Rebuild from :meth:`to_dict` output, ignoring unknown keys."""
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        known["model"] = ModelConfig.from_dict(data.get("model", {}))
        known["tokenizer"] = TokenizerConfig(**data.get("tokenizer", {}))
        return cls(**known)


CONFIGS: dict[str, TrainConfig] = {
    # Seconds on two cores: for CI and pipeline tests, not for quality.
    "tiny": TrainConfig(
        model=ModelConfig(d_model=64, n_heads=2, enc_layers=2, dec_layers=1, d_ff=128, dropout=0.0),
        tokenizer=TokenizerConfig(vocab_size=300),
        batch_tokens=1200,
        lr=3e-3,
        warmup_steps=30,
        label_smoothing=0.0,
        max_minutes=1.5,
        max_steps=400,
        val_every_minutes=0.5,
        val_loss_pairs=60,
        val_exact_pairs=30,
        ckpt_every_minutes=0.5,
        log_every_steps=20,
    ),
    "base": TrainConfig(),
}


def setup_logging(log_file: Path) -> list[logging.Handler]:
    """Log to stderr and append to the run's log file; returns the handlers added."""
    log_file.parent.mkdir(parents=True, exist_ok=True)
    fmt = logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s")
    root = logging.getLogger()
    root.setLevel(logging.INFO)
    handlers: list[logging.Handler] = [
        logging.StreamHandler(sys.stderr),
        logging.FileHandler(log_file),
    ]
    for handler in handlers:
        handler.setFormatter(fmt)
        root.addHandler(handler)
    return handlers


def sha256_of(path: Path) -> str | None:
    """Hex sha256 of a file, or None when it does not exist."""
    if not path.is_file():
        return None
    return sha256_file(path)


def lr_factor(step: int, config: TrainConfig) -> float:
    """Linear warmup then inverse square root, floored at ``min_lr_ratio``.

    Inverse square root needs no planned total, so a resumed run can simply go
    on. A cooldown (linear decay to zero, decided when resuming) gives a better
    snapshot for a fixed budget; run it in a copy of the run folder so that the
    original can later continue from its undecayed state.
    """
    step = max(step, 1)
    warm = config.warmup_steps
    factor = step / warm if step < warm else math.sqrt(warm / step)
    factor = max(factor, config.min_lr_ratio if step >= warm else 0.0)
    if config.cooldown_steps and step > config.cooldown_start:
        factor *= max(0.0, 1.0 - (step - config.cooldown_start) / config.cooldown_steps)
    return factor


@dataclass
class RunState:
    """Progress that a checkpoint must restore besides the weights.

    Attributes:
        step: optimizer steps done.
        epoch: current pass over the training split.
        batch_in_epoch: batches of the current epoch already consumed.
        train_seconds: training wall time over all invocations.
        tokens_seen: target tokens trained on.
        best_metric: best (exact match, -loss) seen at validation.
        history: validation results.
    """

    step: int = 0
    epoch: int = 0
    batch_in_epoch: int = 0
    train_seconds: float = 0.0
    tokens_seen: int = 0
    best_metric: list[float] = field(default_factory=lambda: [-1.0, -1e9])
    history: list[dict[str, Any]] = field(default_factory=list)


class Trainer:
    """Owns the model, optimizer, data and checkpoints of one run folder."""

    def __init__(self, args: argparse.Namespace, config: TrainConfig) -> None:
        self.args = args
        self.config = config
        self.out: Path = args.out
        self.corpus: Path = args.corpus
        torch.set_num_threads(config.threads)
        try:
            torch.set_num_interop_threads(1)
        except RuntimeError:  # already set in this process (a second run in tests)
            pass
        torch.manual_seed(config.seed)
        random.seed(config.seed)
        np.random.seed(config.seed)
        tok_path = self.out / TOKENIZER_FILE
        if not tok_path.is_file():
            train_tokenizer(self.corpus / "train.jsonl", tok_path.with_suffix(""), config.tokenizer)
        self.sp = load_tokenizer(tok_path)
        config.model.vocab_size = self.sp.get_piece_size()
        self.train_set = load_split(
            self.corpus / "train.jsonl", self.sp, config.max_src_tokens, config.max_tgt_tokens
        )
        valid = load_split(self.corpus / "valid.jsonl", self.sp, 10_000, 10_000)
        rng = random.Random(1234)  # the same validation sample on every resume
        rng.shuffle(valid)
        self.valid = valid[: max(config.val_loss_pairs, config.val_exact_pairs)]
        self.model = Seq2SeqTransformer(config.model)
        decay = [p for n, p in self.model.named_parameters() if p.dim() >= 2]
        no_decay = [p for n, p in self.model.named_parameters() if p.dim() < 2]
        self.optimizer = torch.optim.AdamW(
            [
                {"params": decay, "weight_decay": config.weight_decay},
                {"params": no_decay, "weight_decay": 0.0},
            ],
            lr=config.lr,
            betas=(0.9, 0.98),
            eps=1e-8,
        )
        self.scheduler = torch.optim.lr_scheduler.LambdaLR(
            self.optimizer, lambda s: lr_factor(s, config)
        )
        self.state = RunState()
        self.stop_requested = False
        _LOGGER.info(
            "model: %d parameters, vocab %d", count_parameters(self.model), config.model.vocab_size
        )

    def _request_stop(self, signum: int, _frame: object) -> None:
        _LOGGER.info("signal %d: stopping after this step", signum)
        self.stop_requested = True

    # -- checkpoints -----------------------------------------------------------------------

    def _meta(self) -> dict[str, Any]:
        return {
            "config": self.config.to_dict(),
            "command": self.args.command,
            "corpus": str(self.corpus),
            "corpus_manifest_sha256": sha256_of(self.corpus / "MANIFEST.json"),
            "tokenizer_sha256": sha256_of(self.out / TOKENIZER_FILE),
            "state": dataclasses.asdict(self.state),
            "torch": torch.__version__,
            "saved_at": time.strftime("%Y-%m-%dT%H:%M:%S"),
        }

    def save(self, name: str) -> Path:
        """Write ``<name>.pt`` and ``<name>.json`` atomically."""
        path = self.out / f"{name}.pt"
        payload = {
            "model": self.model.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "scheduler": self.scheduler.state_dict(),
            "rng": {
                "torch": torch.get_rng_state(),
                "numpy": np.random.get_state(),
                "python": random.getstate(),
            },
            "meta": self._meta(),
        }
        tmp = path.with_suffix(".pt.tmp")
        torch.save(payload, tmp)
        os.replace(tmp, path)
        meta_path = self.out / f"{name}.json"
        meta_path.write_text(json.dumps(payload["meta"], indent=2, ensure_ascii=False) + "\n")
        _LOGGER.info("checkpoint %s at step %d", path.name, self.state.step)
        return path

    def resume(self) -> bool:
        """Restore the ``last`` checkpoint if there is one."""
        path = self.out / f"{LAST}.pt"
        if not path.is_file():
            _LOGGER.info("no checkpoint in %s, starting from scratch", self.out)
            return False
        payload = torch.load(path, map_location="cpu", weights_only=False)
        self.model.load_state_dict(payload["model"])
        self.optimizer.load_state_dict(payload["optimizer"])
        self.scheduler.load_state_dict(payload["scheduler"])
        torch.set_rng_state(payload["rng"]["torch"])
        np.random.set_state(payload["rng"]["numpy"])
        random.setstate(payload["rng"]["python"])
        self.state = RunState(**payload["meta"]["state"])
        _LOGGER.info("resumed from %s at step %d", path.name, self.state.step)
        return True

    # -- evaluation ------------------------------------------------------------------------

    def _autocast(self) -> torch.autocast:
        return torch.autocast("cpu", dtype=torch.bfloat16, enabled=self.config.bf16)

    @torch.no_grad()
    def validate(self) -> dict[str, Any]:
        """Validation loss and greedy exact match (case/punctuation-sensitive)."""
        self.model.eval()
        loss_set = self.valid[: self.config.val_loss_pairs]
        total, count = 0.0, 0
        for indices in make_batches(loss_set, self.config.batch_tokens, 0, shuffle=False):
            batch = collate(loss_set, indices)
            with self._autocast():
                logits = self.model(batch.src, batch.tgt_in)
            loss = F.cross_entropy(
                logits.float().flatten(0, 1),
                batch.tgt_out.flatten(),
                ignore_index=PAD_ID,
                reduction="sum",
            )
            total += float(loss)
            count += batch.n_tokens
        exact_set = self.valid[: self.config.val_exact_pairs]
        hits = 0
        for start in range(0, len(exact_set), 64):
            chunk: list[Example] = exact_set[start : start + 64]
            batch = collate(chunk, list(range(len(chunk))))
            with self._autocast():
                outputs = self.model.greedy(batch.src, max_len=batch.tgt_out.shape[1] + 10)
            hits += sum(out == ex.tgt for out, ex in zip(outputs, chunk, strict=True))
        self.model.train()
        return {
            "step": self.state.step,
            "val_loss": total / max(count, 1),
            "val_exact": hits / max(len(exact_set), 1),
            "train_minutes": round(self.state.train_seconds / 60, 2),
        }

    # -- training --------------------------------------------------------------------------

    def train(self) -> None:
        """Run until ``max_steps`` or ``max_minutes``; checkpoint and validate on the way.

        SIGTERM and SIGINT end the run after the current step, with a checkpoint,
        so a killed background run loses nothing.
        """
        previous = {
            sig: signal.signal(sig, self._request_stop) for sig in (signal.SIGTERM, signal.SIGINT)
        }
        try:
            self._train()
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)

    def _train(self) -> None:
        config = self.config
        self.model.train()
        start = time.monotonic()
        last_ckpt = last_val = last_log = start
        log_tokens, log_loss, log_n = 0, 0.0, 0
        stop = False
        while not stop:
            batches = make_batches(
                self.train_set, config.batch_tokens, config.seed * 1000 + self.state.epoch
            )
            while self.state.batch_in_epoch < len(batches):
                batch = collate(self.train_set, batches[self.state.batch_in_epoch])
                with self._autocast():
                    logits = self.model(batch.src, batch.tgt_in)
                loss = (
                    F.cross_entropy(
                        logits.float().flatten(0, 1),
                        batch.tgt_out.flatten(),
                        ignore_index=PAD_ID,
                        label_smoothing=config.label_smoothing,
                        reduction="sum",
                    )
                    / batch.n_tokens
                )
                self.optimizer.zero_grad(set_to_none=True)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), config.clip_norm)
                self.optimizer.step()
                self.scheduler.step()
                self.state.step += 1
                self.state.batch_in_epoch += 1
                self.state.tokens_seen += batch.n_tokens
                log_tokens += batch.n_tokens
                log_loss += loss.item()
                log_n += 1
                now = time.monotonic()
                if self.state.step % config.log_every_steps == 0:
                    self.state.train_seconds += now - last_log
                    _LOGGER.info(
                        "step %d epoch %d loss %.3f lr %.2e %.0f tgt tok/s",
                        self.state.step,
                        self.state.epoch,
                        log_loss / log_n,
                        self.scheduler.get_last_lr()[0],
                        log_tokens / max(now - last_log, 1e-6),
                    )
                    last_log, log_tokens, log_loss, log_n = now, 0, 0.0, 0
                stop = bool(
                    self.stop_requested
                    or (config.max_steps and self.state.step >= config.max_steps)
                    or (config.max_minutes and now - start >= config.max_minutes * 60)
                )
                if stop or now - last_val >= config.val_every_minutes * 60:
                    self._validate_and_keep_best()
                    last_val = time.monotonic()
                if stop or now - last_ckpt >= config.ckpt_every_minutes * 60:
                    self.save(LAST)
                    last_ckpt = time.monotonic()
                if stop:
                    break
            else:
                self.state.epoch += 1
                self.state.batch_in_epoch = 0
        _LOGGER.info(
            "stopped at step %d (%d target tokens)", self.state.step, self.state.tokens_seen
        )

    def _validate_and_keep_best(self) -> None:
        result = self.validate()
        self.state.history.append(result)
        _LOGGER.info(
            "validation step %d: loss %.4f exact %.3f",
            result["step"],
            result["val_loss"],
            result["val_exact"],
        )
        metric = [result["val_exact"], -result["val_loss"]]
        if metric > self.state.best_metric:
            self.state.best_metric = metric
            self.save(BEST)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=Path("build/corpus"))
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--config", choices=sorted(CONFIGS), default="base")
    parser.add_argument("--resume", action="store_true", help="continue from <out>/last.pt")
    parser.add_argument("--max-minutes", type=float, help="override the config's time budget")
    parser.add_argument("--max-steps", type=int, help="override the config's step budget")
    parser.add_argument(
        "--lr",
        type=float,
        help="peak learning rate of a new run (e.g. lower with --init-from); ignored on resume",
    )
    parser.add_argument(
        "--cooldown-steps",
        type=int,
        help="with --resume: decay the rate linearly to zero over this many steps, then stop",
    )
    parser.add_argument(
        "--init-from",
        type=Path,
        help="start a new run from this checkpoint's weights (vocabulary remapped)",
    )
    parser.add_argument(
        "--tokenizer",
        type=Path,
        help="copy this spm.model into the run instead of training one (e.g. the --init-from "
        "run's, so that no embedding is remapped)",
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    """Entry point."""
    args = parse_args(argv)
    args.command = [
        "python",
        "-m",
        "models.corrector.train",
        *(sys.argv[1:] if argv is None else argv),
    ]
    args.out.mkdir(parents=True, exist_ok=True)
    handlers = setup_logging(args.out / "train.log")
    try:
        _run(args)
    finally:
        for handler in handlers:
            logging.getLogger().removeHandler(handler)
            handler.close()


def _run(args: argparse.Namespace) -> None:
    saved = args.out / f"{LAST}.json"
    if args.resume and saved.is_file():
        # The saved config wins on resume: the architecture must match the weights.
        config = TrainConfig.from_dict(json.loads(saved.read_text())["config"])
    else:
        if (args.out / f"{LAST}.pt").is_file() and not args.resume:
            raise SystemExit(f"{args.out} already holds a run: pass --resume or another --out")
        config = dataclasses.replace(CONFIGS[args.config])
        config.model = dataclasses.replace(config.model)
    if args.max_minutes is not None:
        config.max_minutes = args.max_minutes
    if args.max_steps is not None:
        config.max_steps = args.max_steps
    if args.lr is not None and not args.resume:
        config.lr = args.lr
    _LOGGER.info("command: %s", " ".join(args.command))
    if args.tokenizer:
        tok_path = args.out / TOKENIZER_FILE
        if not tok_path.is_file():
            shutil.copyfile(args.tokenizer, tok_path)
        elif sha256_file(tok_path) != sha256_file(args.tokenizer):
            raise SystemExit(f"{tok_path} already exists and differs from {args.tokenizer}")
    trainer = Trainer(args, config)
    if args.resume:
        trainer.resume()
        if args.cooldown_steps:
            config.cooldown_start = trainer.state.step
            config.cooldown_steps = args.cooldown_steps
            config.max_steps = trainer.state.step + args.cooldown_steps
            _LOGGER.info("cooldown from step %d to %d", config.cooldown_start, config.max_steps)
    elif args.init_from:
        from models.corrector.warmstart import init_from

        init_from(trainer.model, args.init_from, args.out / TOKENIZER_FILE)
    trainer.train()


if __name__ == "__main__":
    main()
