"""LoRA fine-tuning of Whisper's decoder on halting speech (encoder frozen, its states cached).

Reads what ``models.asr.finetune_data`` wrote (encoder states + verbatim
targets) and trains low-rank adapters on every linear layer of the decoder's
blocks (self-attention, cross-attention query/output, MLP). The encoder, the
cross-attention key/value projections (they run in the encoder graph), the
embeddings and the output projection stay as shipped, so the exported encoder is
unchanged and the adapters are small enough to commit. The decoder is taught
with the app's own prompt (telegraphic context + French SOT sequence), on the
exact words said. Resumable from ``<run>/checkpoint.pt``::

    python -m models.asr.finetune --data build/asr_ft --run build/asr_ft/run1 --minutes 60
    python -m models.asr.finetune --data build/asr_ft build/asr_ft2 --corpus build/corpus_v5 \
        --kl 0.5 --run build/asr_ft/run2 --minutes 60
    python -m models.asr.finetune --run build/asr_ft/run1 \
        --export models/asr/adapters/halting-fr.npz

``--init ADAPTERS.npz`` starts from shipped adapters instead of zero (a later
round adds new data without regenerating what the earlier rounds used).
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import random
import time
from pathlib import Path

import numpy as np
import torch

from models.asr.finetune_data import (
    D_MODEL,
    ENCODED_FILE,
    ITEMS_FILE,
    N_FRAMES,
    draw_rows,
    load_encoder,
)
from therapy_voice.lora import LoraSettings, adapter_arrays, attach_lora, load_into
from therapy_voice.teaching import (
    cross_attention,
    decoder_forward,
    kl_to_reference,
    mean_token_loss,
    sequence,
    token_loss,
    token_rows,
)

_LOGGER = logging.getLogger("asr_finetune")
VALID_SHARE = 0.05
# Share of the intended sentences taught without the telegraphic prompt, written as
# in the corpus (capitals, punctuation): that is how the app scores a known target
# (``SpeechRecognizer.score``), and it keeps those scores tied to the audio.
WRITTEN_SHARE = 0.5


def load_items(data: Path, store: int = 0) -> tuple[list[dict], np.memmap]:
    """Finished items with a target (tagged with ``store``), and the encoder-state memmap."""
    items = []
    for line in (data / ITEMS_FILE).read_text(encoding="utf-8").splitlines():
        try:
            items.append(json.loads(line))
        except ValueError:  # the generator is still writing this line
            break
    count = (data / ENCODED_FILE).stat().st_size // (N_FRAMES * D_MODEL * 2)
    states = np.memmap(data / ENCODED_FILE, np.float16, "r", shape=(count, N_FRAMES, D_MODEL))
    # An index is kept once: two generators once ran on the same folder side by side.
    unique = {it["index"]: it for it in reversed(items)}
    kept = [{**it, "store": store} for _, it in sorted(unique.items()) if it["target"]]
    return kept, states


# Kinds whose audio says the intended sentence (finetune_data.draw_kind).
SENTENCE_KINDS = ("intended", "fluent")
# Kinds said cleanly: their adapted distribution is kept near plain Whisper's (KL term).
CLEAN_KINDS = ("fluent", "clean_source")


def with_written_forms(items: list[dict], corpus: Path | None, count: int) -> None:
    """Give half of the intended-sentence items their written form (deterministic).

    Items of the second data folder carry their sentence (``intended``); the first
    run's are looked up in ``corpus``.
    """
    rows = draw_rows(corpus, count) if corpus is not None else []
    for it in items:
        if it["kind"] not in SENTENCE_KINDS:
            continue
        key = (
            f"written:{it['index']}" if it["store"] == 0 else f"written:{it['store']}:{it['index']}"
        )
        if random.Random(key).random() < WRITTEN_SHARE:
            it["written"] = it.get("intended") or rows[it["index"]]["tgt"]


def batch_tensors(batch, states, prompts: tuple[list[int], list[int]], encode, eot: int):
    """Token rows (right-padded), loss targets (-100 outside the transcript) and states."""
    tokens, labels = token_rows([sequence(it, *prompts, encode, eot) for it in batch], eot)
    rows = np.stack([states[it["store"]][it["index"]] for it in batch]).astype(np.float32)
    return tokens, labels, torch.from_numpy(rows)


def evaluate(decoder, encoder, items, states, prefix, encode, eot, batch_size=8) -> float:
    """Mean token cross-entropy on ``items``."""
    batches = (
        batch_tensors(items[s : s + batch_size], states, prefix, encode, eot)
        for s in range(0, len(items), batch_size)
    )
    return mean_token_loss(decoder, encoder, batches)


def clean_kl(decoder, cross, batch, tokens, labels, logits) -> torch.Tensor:
    """Mean KL(plain || adapted) over the transcript positions of cleanly said items.

    On clean speech plain Whisper base is already good: the adapters should not
    move its distribution there (the first adapters cost clean phrases 5 points).
    """
    rows = [r for r, it in enumerate(batch) if it["kind"] in CLEAN_KINDS]
    if not rows:
        return logits.new_zeros(())
    idx = torch.tensor(rows)
    with torch.no_grad():
        # fp32 as before the refactor: ``cross`` may come from the bf16 autocast.
        sub = [(k[idx].float(), v[idx].float()) for k, v in cross]
        plain = decoder_forward(decoder, sub, tokens[idx], gate=0.0)
    return kl_to_reference(logits[idx], plain, labels[idx])


def train(args: argparse.Namespace) -> None:
    from therapy_app.asr.recognizer import TELEGRAPHIC_PROMPT, SpeechRecognizer

    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    recognizer = SpeechRecognizer.load(threads=1)
    tok = recognizer.tokenizer
    eot = recognizer.config.tokens.eot
    prompt = tok.prompt_tokens(TELEGRAPHIC_PROMPT, recognizer.config.n_text_ctx // 2 - 1)
    prefix = (prompt, recognizer.config.tokens.sot_sequence)
    valid, train_items, states = [], [], []
    for store, data in enumerate(args.data):
        items, memmap = load_items(data, store)
        items = [it for it in items if it["index"] < len(memmap)]
        if args.corpus is not None or store > 0:
            with_written_forms(items, args.corpus, len(memmap))
        n_valid = max(16, int(len(items) * VALID_SHARE))
        # The validation items are the first ones: they stay the same as the data grows.
        valid += items[:n_valid]
        train_items += items[n_valid:]
        states.append(memmap)
    items = valid + train_items
    encoder, decoder = load_encoder()
    settings = LoraSettings(rank=args.rank, alpha=args.alpha, dropout=0.05)
    params = attach_lora(decoder, settings)
    if args.init is not None and not (args.run / "checkpoint.pt").exists():
        _LOGGER.info("starting from %s (%d layers)", args.init, load_into(decoder, args.init))
    optimizer = torch.optim.AdamW(params, lr=args.lr, weight_decay=0.0)
    args.run.mkdir(parents=True, exist_ok=True)
    ckpt = args.run / "checkpoint.pt"
    step, history = 0, []
    if ckpt.exists():
        saved = torch.load(ckpt, weights_only=False)
        decoder.load_state_dict(saved["decoder"], strict=False)
        optimizer.load_state_dict(saved["optimizer"])
        step, history = saved["step"], saved["history"]
        _LOGGER.info("resumed at step %d", step)
    total_steps = args.epochs * math.ceil(len(train_items) / args.batch)
    _LOGGER.info("%d train / %d valid items, %d steps", len(train_items), len(valid), total_steps)
    if step == 0:
        base = evaluate(decoder, encoder, valid, states, prefix, tok.encode, eot)
        history.append({"step": 0, "valid_loss": round(base, 4)})
        _LOGGER.info("valid loss before training: %.4f", base)
    deadline = time.monotonic() + 60 * args.minutes
    order: list[dict] = []
    decoder.train()
    while step < total_steps and time.monotonic() < deadline:
        epoch = step * args.batch // len(train_items)
        if not order:
            order = list(train_items)
            random.Random(epoch).shuffle(order)
            order = order[(step * args.batch) % len(train_items) :]
        batch, order = order[: args.batch], order[args.batch :]
        tokens, labels, st = batch_tensors(batch, states, prefix, tok.encode, eot)
        warm = min(1.0, (step + 1) / args.warmup)
        decay = 0.5 * (1 + math.cos(math.pi * step / total_steps))
        for group in optimizer.param_groups:
            group["lr"] = args.lr * warm * decay
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=args.bf16):
            cross = cross_attention(encoder, st)
            logits = decoder_forward(decoder, cross, tokens)
        loss = token_loss(logits, labels)
        if args.kl > 0:
            loss = loss + args.kl * clean_kl(decoder, cross, batch, tokens, labels, logits)
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        optimizer.step()
        step += 1
        if step % 20 == 0:
            _LOGGER.info("step %d/%d loss %.4f", step, total_steps, float(loss))
        if step % args.every == 0 or step == total_steps:
            decoder.eval()
            val = evaluate(decoder, encoder, valid, states, prefix, tok.encode, eot)
            decoder.train()
            history.append({"step": step, "valid_loss": round(val, 4)})
            _LOGGER.info("step %d valid loss %.4f", step, val)
            state = {k: v for k, v in decoder.state_dict().items() if "lora_" in k}
            tmp = ckpt.with_suffix(".tmp")
            torch.save({"decoder": state, "optimizer": optimizer.state_dict(), "step": step,
                        "history": history, "settings": dict(settings.__dict__),
                        "items": len(items)}, tmp)  # fmt: skip
            tmp.replace(ckpt)


def export(run: Path, target: Path) -> None:
    """Write the trained adapters as a small .npz plus a JSON description next to it."""
    saved = torch.load(run / "checkpoint.pt", weights_only=False)
    scale = LoraSettings(**saved["settings"]).scale
    arrays = adapter_arrays(saved["decoder"], scale)
    target.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(target, **arrays)
    meta = {"settings": saved["settings"], "step": saved["step"], "items": saved["items"],
            "history": saved["history"]}  # fmt: skip
    target.with_suffix(".json").write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
    _LOGGER.info("wrote %s (%d arrays)", target, len(arrays))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, nargs="+", default=[Path("build/asr_ft")])
    parser.add_argument("--run", type=Path, required=True)
    parser.add_argument(
        "--corpus", type=Path, default=None, help="the data's corpus: teach written forms too"
    )
    parser.add_argument("--export", type=Path, default=None, help="write the adapters and stop")
    parser.add_argument("--init", type=Path, default=None, help="start from these adapters")
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--lr", type=float, default=5e-4)
    parser.add_argument("--warmup", type=int, default=30)
    parser.add_argument("--rank", type=int, default=16)
    parser.add_argument("--alpha", type=float, default=32.0)
    parser.add_argument("--every", type=int, default=100)
    parser.add_argument("--minutes", type=float, default=60.0)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--bf16", action="store_true")
    parser.add_argument("--kl", type=float, default=0.0, help="weight of the clean-speech KL")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    if args.export:
        export(args.run, args.export)
    else:
        train(args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
