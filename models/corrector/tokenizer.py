"""Trains and loads the corrector's shared SentencePiece vocabulary."""

from __future__ import annotations

import json
import logging
import tempfile
from dataclasses import dataclass
from pathlib import Path

import sentencepiece as spm

_LOGGER = logging.getLogger(__name__)

# Fixed special ids: the runtime reads them from model.json, but keeping them
# constant means every run and export agrees without looking.
PAD_ID = 0
UNK_ID = 1
BOS_ID = 2
EOS_ID = 3


@dataclass(frozen=True)
class TokenizerConfig:
    """How the SentencePiece model is trained.

    Attributes:
        vocab_size: target vocabulary size (a soft limit on small corpora).
        model_type: "unigram" or "bpe".
        max_sentences: pairs sampled from the training split (both sides used).
    """

    vocab_size: int = 8000
    model_type: str = "unigram"
    max_sentences: int = 400_000


def read_pairs(path: Path) -> list[tuple[str, str]]:
    """(src, tgt) pairs from a corpus JSONL split."""
    pairs = []
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                row = json.loads(line)
                pairs.append((row["src"], row["tgt"]))
    return pairs


def train_tokenizer(train_jsonl: Path, out_prefix: Path, config: TokenizerConfig) -> Path:
    """Train on src and tgt of the training split and write ``<prefix>.model``.

    Case is kept (the targets are cased) and ``byte_fallback`` spells any
    unseen character as bytes, so decoding never yields an unknown token.
    Normalisation is "identity": the runtime does its own NFC normalisation,
    and NFKC would silently rewrite characters the target must keep.

    Returns:
        Path of the ``.model`` file.
    """
    pairs = read_pairs(train_jsonl)[: config.max_sentences]
    out_prefix.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile("w", encoding="utf-8", suffix=".txt", delete=False) as tmp:
        for src, tgt in pairs:
            tmp.write(src + "\n" + tgt + "\n")
        text_path = tmp.name
    spm.SentencePieceTrainer.train(
        input=text_path,
        model_prefix=str(out_prefix),
        vocab_size=config.vocab_size,
        model_type=config.model_type,
        character_coverage=1.0,
        byte_fallback=True,
        normalization_rule_name="identity",
        split_digits=True,
        pad_id=PAD_ID,
        unk_id=UNK_ID,
        bos_id=BOS_ID,
        eos_id=EOS_ID,
        # Small corpora (CI, toy runs) cannot fill 8k pieces; don't fail on them.
        hard_vocab_limit=False,
        input_sentence_size=2 * config.max_sentences,
        shuffle_input_sentence=True,
        num_threads=2,
        minloglevel=2,
    )
    Path(text_path).unlink(missing_ok=True)
    model_path = out_prefix.with_suffix(".model")
    _LOGGER.info("tokenizer written to %s (%d pairs)", model_path, len(pairs))
    return model_path


def load_tokenizer(path: Path) -> spm.SentencePieceProcessor:
    """Load a trained ``.model`` file and check its special ids."""
    processor = spm.SentencePieceProcessor(model_file=str(path))
    ids = (processor.pad_id(), processor.unk_id(), processor.bos_id(), processor.eos_id())
    if ids != (PAD_ID, UNK_ID, BOS_ID, EOS_ID):
        raise ValueError(f"{path}: unexpected special ids {ids}")
    return processor
