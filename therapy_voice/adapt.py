"""A patient's personal adapter: LoRA on Whisper's decoder, taught on their own recordings.

The recordings are prepared once (``therapy_voice.prepare``), then the decoder's
adapters, started from the shipped halting ones, are taught each recording in
both of the app's forms (``therapy_voice.teaching``): the telegraphic prompt and
the verbatim words (free transcription), the bare SOT sequence and the text as
written (scoring a known target). A patient gives tens of recordings, not
thousands, so the adapted decoder is held near where it started by the
KL-regularised adaptation of Yu et al. (ICASSP 2013): each learnt position is
pulled both to the word said and to the reference's distribution, the shipped
adapters for the prompted form and plain Whisper for the written one, as the app
runs them. Everything is resumable: prepared states per item, then
``checkpoint.pt``.
"""

from __future__ import annotations

import copy
import json
import logging
import math
import random
import shutil
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import torch

from therapy_app.asr.verbatim import verbatim_text
from therapy_app.model_store import sha256_file
from therapy_voice.lora import LoraSettings, adapter_arrays, attach_lora, attach_saved, load_into
from therapy_voice.manifest import Manifest, ManifestError
from therapy_voice.prepare import PreparedItem
from therapy_voice.progress import CancelWatch, ProgressReporter
from therapy_voice.teaching import (
    IGNORE,
    cross_attention,
    decoder_forward,
    kl_to_reference,
    token_loss,
    token_rows,
)
from therapy_voice.whisper_torch import WhisperDecoderStep, WhisperEncoder

_LOGGER = logging.getLogger(__name__)

ADAPTER_FILE = "adapter.npz"
TRAIN_FILE = "train.json"
CHECKPOINT_FILE = "checkpoint.pt"
PREPARED_DIR = "prepared"
KEY_FILE = "run.json"  # the manifest and weights the work folder's content belongs to

# Recordings seen per step and passes over them: about 600 recording-passes in
# all (100 recordings: 6 epochs, 78 steps), never fewer than 3 nor more than 12
# passes over a small set. Twice the passes, or 2.5 times the learning rate, did
# not lower the held-out loss of a simulated patient (100 + 20 recordings).
BATCH = 8
ITEM_PASSES = 600
MIN_EPOCHS, MAX_EPOCHS = 3, 12
LEARNING_RATE = 2e-4
# Share of the KL term. On that patient's 20 held-out recordings (greedy WER, 75
# words; shipped adapters 65 %): 0.5 gave 59 %, 0.2 gave 55 %, 0.1 gave 48 %, 0
# gave 51 %; on 18 clean TTS recordings of another voice (shipped 9 %) the same
# adapters gave 9, 15, 21 and 26 %. 0.2 keeps over half the gain and drifts less.
KL_WEIGHT = 0.2
EVAL_ITEMS = 16  # training recordings whose loss is measured before and after
CHECKPOINT_EVERY_S = 60.0


def schedule_progress(step: int, steps: int, done: float, elapsed: float, left: float) -> float:
    """How far along the learning-rate schedule a step is (0-1; training ends at 1).

    The larger of the share of steps taken and the share of the time budget
    spent: on a loaded PC the cosine decay still reaches zero when the budget
    runs out, instead of being cut at a high learning rate.

    Args:
        step: steps taken.
        steps: the recipe's steps.
        done: progress saved by an earlier run of the same training (resume).
        elapsed: seconds this run has trained.
        left: seconds this run had for training when it began (inf: no budget).
    """
    by_steps = step / steps if steps else 1.0
    if not math.isfinite(left):
        by_time = 0.0
    elif left <= 0:
        by_time = 1.0
    else:
        by_time = done + (1.0 - done) * elapsed / left
    return min(1.0, max(by_steps, by_time))


@dataclass(frozen=True)
class Recipe:
    """How a personal adapter is trained (written to ``train.json``).

    Attributes:
        batch: recordings per step, each taught in both forms.
        epochs: passes over the recordings.
        steps: optimiser steps (epochs x batches, or fewer with ``--max-steps``).
        lr: peak learning rate (AdamW, no weight decay).
        warmup: steps of linear warm-up before the cosine decay.
        kl: weight of KL(reference || adapted) against 1 - kl for the words said.
        precision: "bf16" (autocast, where this CPU runs it faster) or "fp32".
        rank: adapter rank (the shipped adapters' own).
        alpha: adapter scale numerator.
        dropout: dropout on the adapters' input. None by default: the KL term
            regularises, and dropout cost a tenth of the forward pass.
    """

    batch: int
    epochs: int
    steps: int
    lr: float = LEARNING_RATE
    warmup: int = 10
    kl: float = KL_WEIGHT
    precision: str = "fp32"
    rank: int = 16
    alpha: float = 32.0
    dropout: float = 0.0

    @classmethod
    def for_items(cls, count: int, precision: str, max_steps: int | None = None) -> Recipe:
        """The recipe for ``count`` usable recordings."""
        batch = min(BATCH, count)
        epochs = min(MAX_EPOCHS, max(MIN_EPOCHS, round(ITEM_PASSES / count)))
        steps = epochs * math.ceil(count / batch)
        if max_steps is not None:
            steps = max(0, min(steps, max_steps))
        return cls(batch, epochs, steps, warmup=max(1, min(10, steps // 10)), precision=precision)

    @property
    def lora(self) -> LoraSettings:
        return LoraSettings(self.rank, self.alpha, self.dropout)


def bf16_runs_natively() -> bool:
    """Whether this CPU has bf16 instructions (AVX512-BF16 or AMX), where autocast pays.

    Read from the CPU flags rather than timed: a timing taken while the app or
    another program uses the CPU decides at random. Without them oneDNN emulates
    bf16, slower than fp32; with AMX the step's largest product ran 5 times faster.
    """
    probes = ("_is_avx512_bf16_supported", "_is_amx_tile_supported")
    return any(bool(getattr(torch.cpu, name, lambda: False)()) for name in probes)


@dataclass(frozen=True)
class Prompts:
    """The token sequences of the app's two ways of reading a recording.

    Attributes:
        prompt: ``<|startofprev|>`` + telegraphic context + French SOT sequence.
        sot: the bare French SOT sequence.
        eot: end of text.
        encode: the tokenizer's text encoder.
    """

    prompt: list[int]
    sot: list[int]
    eot: int
    encode: Callable[[str], list[int]]

    def rows(self, texts: Sequence[str]) -> tuple[torch.Tensor, torch.Tensor]:
        """Token rows and labels, two per text: prompted verbatim, then bare written."""
        pairs = []
        for text in texts:
            pairs.append((self.prompt, self.prompt + self.encode(" " + verbatim_text(text))))
            pairs.append((self.sot, self.sot + self.encode(" " + text.strip())))
        return token_rows([(p, s + [self.eot]) for p, s in pairs], self.eot)


@dataclass(frozen=True)
class Outcome:
    """What a finished (or time-capped) training wrote."""

    adapter: Path
    steps: int
    complete: bool
    loss_before: float
    loss_after: float


def open_work(work: Path, manifest: Manifest, model_bin: Path) -> None:
    """Keep the folder's prepared states and checkpoint only if they are for this input.

    A different manifest (or other weights) starts over: everything this
    process wrote there is removed.
    """
    key = {"manifest_sha256": manifest.sha256, "weights_sha256": sha256_file(model_bin)}
    work.mkdir(parents=True, exist_ok=True)
    path = work / KEY_FILE
    try:
        same = json.loads(path.read_text(encoding="utf-8")) == key
    except (OSError, ValueError):
        same = False
    if same:
        return
    _LOGGER.info("new input: starting over in %s", work)
    shutil.rmtree(work / PREPARED_DIR, ignore_errors=True)
    for name in (CHECKPOINT_FILE, CHECKPOINT_FILE + ".tmp", ADAPTER_FILE, TRAIN_FILE):
        (work / name).unlink(missing_ok=True)
    write_json(path, key)


def write_json(path: Path, data: Mapping[str, Any]) -> None:
    """Write ``data`` as indented JSON, atomically (the app may read it at any time)."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(path)


def _reference(decoder: WhisperDecoderStep, init: Path | None) -> WhisperDecoderStep | None:
    """What the KL term keeps the adapted decoder near: a frozen decoder with ``init`` gated.

    Without ``init`` the trainable decoder itself at gate 0 is the reference (plain
    Whisper), so no copy is made. The copy is of the modules only: its weights are
    the trained decoder's own frozen tensors (290 MB in fp32), not duplicates.
    """
    if init is None:
        return None
    shared = [*decoder.parameters(), *decoder.buffers()]
    reference = copy.deepcopy(decoder, {id(t): t for t in shared})
    attach_saved(reference, init)
    reference.requires_grad_(False)
    return reference.eval()


class Trainer:
    """Trains the adapters over prepared recordings; resumable from ``checkpoint.pt``.

    Args:
        work: the run's folder.
        manifest: the checked manifest.
        prepared: its items after preparation (those without speech are left out).
        weights: the fp32 encoder and decoder (``prepare.load_weights``); the
            decoder gets the adapters.
        prompts: the app's token sequences.
        recipe: the training settings.
    """

    def __init__(
        self,
        work: Path,
        manifest: Manifest,
        prepared: Sequence[PreparedItem],
        weights: tuple[WhisperEncoder, WhisperDecoderStep],
        prompts: Prompts,
        recipe: Recipe,
    ) -> None:
        self.work, self.manifest, self.prompts, self.recipe = work, manifest, prompts, recipe
        self.items = [p for p in prepared if p.states is not None]
        if not self.items:
            raise ManifestError("no speech was heard in any recording")
        self.encoder, self.decoder = weights
        # Only the cross-attention projections of the encoder are used from here on.
        self.encoder.blocks = torch.nn.ModuleList()
        self.reference = _reference(self.decoder, manifest.init)
        self.params = attach_lora(self.decoder, recipe.lora)
        if manifest.init is not None:
            load_into(self.decoder, manifest.init)
        self.optimizer = torch.optim.AdamW(self.params, lr=recipe.lr, weight_decay=0.0)
        rng = random.Random(f"eval:{manifest.seed}")
        self.eval_items = rng.sample(self.items, min(EVAL_ITEMS, len(self.items)))
        self.step = 0
        self.progress = 0.0  # along the learning-rate schedule (schedule_progress)
        self.history: list[dict[str, float]] = []  # per step: "step", "ce", "kl", "lr"
        # Wall and process CPU time (all threads) of training, over every resume.
        self.train_seconds, self.train_cpu_seconds = 0.0, 0.0
        self._mark = (time.monotonic(), time.process_time())
        self.loss_before: float | None = None
        self._resume()

    def _resume(self) -> None:
        path = self.work / CHECKPOINT_FILE
        if not path.is_file():
            return
        saved = torch.load(path, weights_only=True)
        self.decoder.load_state_dict(saved["lora"], strict=False)
        self.optimizer.load_state_dict(saved["optimizer"])
        self.step, self.history = saved["step"], saved["history"]
        self.progress = saved.get("progress", self.step / max(1, self.recipe.steps))
        self.train_seconds, self.loss_before = saved["train_seconds"], saved["loss_before"]
        self.train_cpu_seconds = saved["train_cpu_seconds"]
        # A run keeps the precision it started with, whatever --precision says now.
        self.recipe = replace(self.recipe, precision=saved["recipe"]["precision"])
        _LOGGER.info("resumed at step %d of %d", self.step, self.recipe.steps)

    def save(self) -> None:
        """Write the checkpoint atomically, with the time spent since the last one."""
        wall, cpu = time.monotonic(), time.process_time()
        self.train_seconds += wall - self._mark[0]
        self.train_cpu_seconds += cpu - self._mark[1]
        self._mark = (wall, cpu)
        state = {k: v for k, v in self.decoder.state_dict().items() if "lora_" in k}
        tmp = self.work / (CHECKPOINT_FILE + ".tmp")
        torch.save(
            {
                "lora": state,
                "optimizer": self.optimizer.state_dict(),
                "step": self.step,
                "progress": self.progress,
                "history": self.history,
                "train_seconds": self.train_seconds,
                "train_cpu_seconds": self.train_cpu_seconds,
                "loss_before": self.loss_before,
                "recipe": asdict(self.recipe),
                "manifest_sha256": self.manifest.sha256,
            },
            tmp,
        )
        tmp.replace(self.work / CHECKPOINT_FILE)

    def _batch(self, step: int) -> list[PreparedItem]:
        """The recordings of ``step``: epoch by epoch, each in a seeded order (resumable)."""
        per_epoch = math.ceil(len(self.items) / self.recipe.batch)
        epoch, position = divmod(step, per_epoch)
        order = list(self.items)
        random.Random(f"order:{self.manifest.seed}:{epoch}").shuffle(order)
        return order[position * self.recipe.batch : (position + 1) * self.recipe.batch]

    def _tensors(
        self, items: Sequence[PreparedItem]
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        tokens, labels = self.prompts.rows([self.manifest.items[p.index].text for p in items])
        states = np.stack([np.load(p.states, mmap_mode="r") for p in items])  # type: ignore[arg-type]
        return tokens, labels, torch.from_numpy(states.astype(np.float32))

    def _losses(
        self, items: Sequence[PreparedItem], with_kl: bool = True
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """(cross-entropy of the words, KL to the reference) over both forms of ``items``."""
        tokens, labels, states = self._tensors(items)
        keep = labels != IGNORE
        labels = labels[keep]
        bf16 = self.recipe.precision == "bf16"
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
            cross = cross_attention(self.encoder, states)
            logits = decoder_forward(self.decoder, cross, tokens, keep=keep)
            if not with_kl:
                return token_loss(logits, labels), torch.zeros(())
            with torch.no_grad():
                if self.reference is None:
                    ref = decoder_forward(self.decoder, cross, tokens, gate=0.0, keep=keep)
                else:
                    # Prompted rows (even) are read with the shipped adapters, written ones plain.
                    gates = torch.tensor([1.0, 0.0] * len(items)).reshape(-1, 1, 1)
                    ref = decoder_forward(self.reference, cross, tokens, gate=gates, keep=keep)
        return token_loss(logits, labels), kl_to_reference(logits, ref, labels)

    def evaluate(self) -> float:
        """Mean word cross-entropy on the evaluation recordings (dropout off)."""
        self.decoder.eval()
        total = 0.0
        with torch.no_grad():
            for s in range(0, len(self.eval_items), 4):
                batch = self.eval_items[s : s + 4]
                total += float(self._losses(batch, with_kl=False)[0]) * len(batch)
        self.decoder.train()
        return total / len(self.eval_items)

    def train(self, deadline: float, watch: CancelWatch, reporter: ProgressReporter) -> Outcome:
        """Train to the end of the schedule (recipe's steps or deadline), then write the adapter.

        The learning rate follows :func:`schedule_progress`: when the deadline
        comes first, fewer steps are taken but the decay still ends at zero.

        Raises:
            Cancelled: a stop was asked for (the checkpoint is saved first).
        """
        r = self.recipe
        self._mark = (time.monotonic(), time.process_time())
        if self.loss_before is None:
            self.loss_before = self.evaluate()
            count = len(self.eval_items)
            _LOGGER.info("loss on %d training items before: %.4f", count, self.loss_before)
        self.decoder.train()
        started = saved_at = time.monotonic()
        done, left = self.progress, deadline - started
        self.progress = schedule_progress(self.step, r.steps, done, 0.0, left)
        while self.progress < 1.0:
            if watch.requested:
                self.save()
                watch.check()
            # Reseeded per step: any adapter dropout is the same after a resume.
            torch.manual_seed(self.manifest.seed * 1_000_003 + self.step)
            warm = min(1.0, (self.step + 1) / r.warmup)
            lr = r.lr * warm * 0.5 * (1 + math.cos(math.pi * self.progress))
            for group in self.optimizer.param_groups:
                group["lr"] = lr
            ce, kl = self._losses(self._batch(self.step))
            loss = (1 - r.kl) * ce + r.kl * kl
            self.optimizer.zero_grad()
            loss.backward()  # type: ignore[no-untyped-call]  # torch leaves Tensor.backward unannotated
            torch.nn.utils.clip_grad_norm_(self.params, 1.0)
            self.optimizer.step()
            self.step += 1
            elapsed = time.monotonic() - started
            self.progress = schedule_progress(self.step, r.steps, done, elapsed, left)
            self.history.append(
                {
                    "step": self.step,
                    "ce": round(ce.item(), 4),
                    "kl": round(kl.item(), 4),
                    "lr": float(f"{lr:.3g}"),
                }
            )
            # The remaining share of the schedule at this run's pace.
            eta = elapsed / max(1e-9, self.progress - done) * (1.0 - self.progress)
            total = max(self.step, round(self.step / self.progress)) if self.progress else r.steps
            reporter.report("train", self.step, total, eta, "Apprentissage de la voix")
            if time.monotonic() - saved_at > CHECKPOINT_EVERY_S:
                saved_at = time.monotonic()
                self.save()
        after = self.evaluate()
        _LOGGER.info("loss on training items after %d steps: %.4f", self.step, after)
        self.save()
        complete = self.step >= r.steps
        return Outcome(self._write_adapter(), self.step, complete, self.loss_before, after)

    def _write_adapter(self) -> Path:
        state = {k: v for k, v in self.decoder.state_dict().items() if "lora_" in k}
        target = self.work / ADAPTER_FILE
        tmp = self.work / (ADAPTER_FILE + ".tmp")
        with tmp.open("wb") as handle:
            arrays = adapter_arrays(state, self.recipe.lora.scale)
            # numpy's stub: a **dict[str, ndarray] could fill savez's allow_pickle: bool.
            np.savez(handle, **arrays)  # type: ignore[arg-type]
        tmp.replace(target)
        return target

    def summary(
        self, outcome: Outcome, prepared: Sequence[PreparedItem], extra: Mapping[str, Any]
    ) -> dict[str, Any]:
        """The content of ``train.json``."""
        prepare_s = sum(p.seconds for p in prepared)
        return {
            "recipe": asdict(self.recipe),
            "steps": outcome.steps,
            "complete": outcome.complete,
            "minutes": {
                "prepare": round(prepare_s / 60, 2),
                "train": round(self.train_seconds / 60, 2),
            },
            "cpu_minutes": {
                "prepare": round(sum(p.cpu_seconds for p in prepared) / 60, 2),
                "train": round(self.train_cpu_seconds / 60, 2),
            },
            "items": {
                "total": len(prepared),
                "trained": len(self.items),
                "no_speech": [p.index for p in prepared if p.states is None],
            },
            "loss": {
                "items": len(self.eval_items),
                "before": round(outcome.loss_before, 4),
                "after": round(outcome.loss_after, 4),
            },
            "history": self.history,
            "manifest_sha256": self.manifest.sha256,
            "init": None if self.manifest.init is None else str(self.manifest.init),
            "init_sha256": None if self.manifest.init is None else sha256_file(self.manifest.init),
            "seed": self.manifest.seed,
            **extra,
        }
