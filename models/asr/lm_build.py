"""Builds the recogniser's token n-gram model from the synthetic aphasia corpus.

Usage::

    python -m models.asr.lm_build --corpus build/corpus \
        --tokenizer build/models/whisper-base/tokenizer.json \
        --out build/lm/telegraphic-fr.npz

Texts: the train split's telegraphic sources and grammatical targets, lowercased
and without punctuation or fillers, as the recogniser writes them
(``models.evaluation_texts.verbatim_target``); a pair whose source or target is a text of
a hand-written evaluation set is left out. Tokens: Whisper's BPE of " " + text,
between <|startoftranscript|> and <|endoftext|>. Counts are pruned (n-grams
seen fewer than ``--min-count`` times for n >= 3): 8.7 MB at the defaults.
Deterministic: the same corpus gives the same bytes. Measured as a reranker of
the recogniser's beam and not adopted (README, "Halting speech"): nothing ships.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from models.evaluation_texts import training_pairs, verbatim_target
from therapy_app.asr.token_lm import MAX_ORDER, TokenLM, pack

SOT = 50258
EOT = 50257


def corpus_texts(corpus: Path, split: str = "train") -> list[str]:
    """Normalised sources and targets of one split, evaluation texts left out."""
    texts = []
    for raw_src, raw_tgt in training_pairs(corpus / f"{split}.jsonl"):
        src, tgt = verbatim_target(raw_src), verbatim_target(raw_tgt)
        texts.append(src)
        if tgt != src:
            texts.append(tgt)
    return texts


def lower_map(tokenizer, vocab_size: int) -> np.ndarray:  # noqa: ANN001 (tokenizers.Tokenizer)
    """Each text token's lowercase single-token twin, or itself."""
    mapping = np.arange(vocab_size, dtype=np.int32)
    for token_id in range(EOT):
        text = tokenizer.decode([token_id])
        low = text.lower()
        if low != text and "\ufffd" not in text:
            ids = tokenizer.encode(low, add_special_tokens=False).ids
            if len(ids) == 1:
                mapping[token_id] = ids[0]
    return mapping


def encode_all(tokenizer, texts: list[str]) -> list[list[int]]:  # noqa: ANN001
    """Token ids of " " + text, the way Whisper's transcripts start."""
    encoded = tokenizer.encode_batch([" " + t for t in texts], add_special_tokens=False)
    return [e.ids for e in encoded]


def _windows(stream: np.ndarray, sentence: np.ndarray, n: int) -> np.ndarray:
    """All n-token windows of the stream that stay inside one sentence."""
    count = stream.size - n + 1
    inside = sentence[:count] == sentence[n - 1 :]
    starts = np.nonzero(inside)[0]
    return np.stack([stream[starts + k] for k in range(n)], axis=1)


def build(sequences: list[list[int]], vocab_size: int, order: int, min_count: int,
          lowering: np.ndarray) -> dict[str, np.ndarray]:  # fmt: skip
    """Count, discount and prune; returns the arrays of the ``.npz``."""
    stream = np.concatenate([np.asarray([SOT, *s, EOT], np.int64) for s in sequences])
    sentence = np.concatenate([np.full(len(s) + 2, i, np.int64) for i, s in enumerate(sequences)])
    arrays: dict[str, np.ndarray] = {
        "order": np.asarray(order),
        "bos": np.asarray(SOT),
        "eos": np.asarray(EOT),
        "lower_map": lowering,
    }
    predicted = stream[stream != SOT]
    counts = np.bincount(predicted, minlength=vocab_size).astype(np.float64)
    # Add-one over the vocabulary: an unseen token keeps a small, finite probability.
    arrays["unigram_logp"] = np.log((counts + 1.0) / (counts.sum() + vocab_size)).astype(np.float32)
    discounts = []
    for n in range(2, order + 1):
        keys, gram_count = np.unique(pack(_windows(stream, sentence, n)), return_counts=True)
        n1, n2 = np.sum(gram_count == 1), np.sum(gram_count == 2)
        discount = float(n1 / (n1 + 2 * n2)) if n1 + n2 else 0.5  # Ney et al.'s estimate
        discounts.append(discount)
        ctx = keys >> np.uint64(16)
        ctx_keys, first, types = np.unique(ctx, return_index=True, return_counts=True)
        total = np.add.reduceat(gram_count, first)
        floor = 1 if n == 2 else min_count
        keep_ctx = total >= floor
        keep_gram = gram_count >= floor
        keep_gram &= np.isin(ctx, ctx_keys[keep_ctx])
        arrays[f"ctx{n}_keys"] = ctx_keys[keep_ctx]
        arrays[f"ctx{n}_total"] = total[keep_ctx].astype(np.uint32)
        arrays[f"ctx{n}_types"] = types[keep_ctx].astype(np.uint32)
        arrays[f"gram{n}_keys"] = keys[keep_gram]
        arrays[f"gram{n}_count"] = gram_count[keep_gram].astype(np.uint32)
        kept = f"kept {int(keep_gram.sum()):,}; contexts kept {int(keep_ctx.sum()):,}"
        print(f"order {n}: {keys.size:,} n-grams, {kept}; discount {discount:.3f}", flush=True)
    arrays["discounts"] = np.asarray(discounts, np.float32)
    return arrays


def main() -> None:
    from tokenizers import Tokenizer

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=Path("build/corpus"))
    parser.add_argument("--tokenizer", type=Path,
                        default=Path("build/models/whisper-base/tokenizer.json"))  # fmt: skip
    parser.add_argument("--out", type=Path, default=Path("build/lm/telegraphic-fr.npz"))
    parser.add_argument("--order", type=int, default=MAX_ORDER)
    parser.add_argument("--min-count", type=int, default=2)
    args = parser.parse_args()
    start = time.perf_counter()
    tokenizer = Tokenizer.from_file(str(args.tokenizer))
    vocab_size = tokenizer.get_vocab_size()
    texts = corpus_texts(args.corpus)
    print(f"{len(texts):,} texts", flush=True)
    sequences = encode_all(tokenizer, texts)
    lowering = lower_map(tokenizer, vocab_size)
    arrays = build(sequences, vocab_size, args.order, args.min_count, lowering)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(args.out, **arrays)
    valid = encode_all(tokenizer, corpus_texts(args.corpus, "valid")[:2000])
    ppl = TokenLM(args.out).perplexity(valid)
    recipe = {
        "what": f"{args.order}-gram model over lowercased Whisper base tokens, interpolated "
                "absolute discounting (Ney's discounts), add-one unigram",  # fmt: skip
        "corpus": json.loads((args.corpus / "MANIFEST.json").read_text())["command"],
        "corpus_train_sha256": json.loads((args.corpus / "MANIFEST.json").read_text())["files"][
            "train.jsonl"]["sha256"],  # fmt: skip
        "texts": len(texts),
        "tokens": int(sum(len(s) + 1 for s in sequences)),
        "min_count": args.min_count,
        "discounts": [round(float(d), 4) for d in arrays["discounts"]],
        "valid_perplexity_2000": round(ppl, 2),
        "command": "python -m models.asr.lm_build "
                   f"--order {args.order} --min-count {args.min_count}",  # fmt: skip
        "bytes": args.out.stat().st_size,
    }
    args.out.with_suffix(".json").write_text(json.dumps(recipe, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(recipe, indent=2))
    print(f"built in {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
