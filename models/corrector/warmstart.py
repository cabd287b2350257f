"""Initialises a new run from an earlier checkpoint, even when the vocabulary changed.

A corpus grows between versions and its tokenizer is retrained; throwing the
trained transformer away with the old vocabulary would waste hours of CPU.
Every non-embedding weight is copied as is; each new piece's embedding is the
old piece's when it exists, else the mean of the old embeddings of the pieces
the old tokenizer splits it into.
"""

from __future__ import annotations

import logging
from pathlib import Path

import sentencepiece as spm
import torch

from models.corrector.model import Seq2SeqTransformer
from models.corrector.tokenizer import load_tokenizer

_LOGGER = logging.getLogger(__name__)


def remap_embeddings(
    old_weight: torch.Tensor, old_sp: spm.SentencePieceProcessor, new_sp: spm.SentencePieceProcessor
) -> tuple[torch.Tensor, int]:
    """Embedding matrix for ``new_sp`` built from ``old_weight`` of ``old_sp``.

    Returns:
        The new matrix and how many pieces were copied directly.
    """
    new_weight = torch.empty(new_sp.get_piece_size(), old_weight.shape[1])
    mean = old_weight.mean(0)
    direct = 0
    for new_id in range(new_sp.get_piece_size()):
        piece = new_sp.id_to_piece(new_id)
        old_id = old_sp.piece_to_id(piece)
        if old_sp.id_to_piece(old_id) == piece:  # piece_to_id gives unk for unknown pieces
            new_weight[new_id] = old_weight[old_id]
            direct += 1
            continue
        parts = old_sp.encode(piece.replace("▁", " "))
        new_weight[new_id] = old_weight[parts].mean(0) if parts else mean
    return new_weight, direct


def init_from(model: Seq2SeqTransformer, checkpoint: Path, new_sp_path: Path) -> None:
    """Load ``checkpoint``'s weights into ``model``, remapping the vocabulary.

    Args:
        model: the freshly built model (same architecture, any vocabulary size).
        checkpoint: a ``.pt`` from ``models.corrector.train`` with ``spm.model`` beside it.
        new_sp_path: the new run's tokenizer.
    """
    payload = torch.load(checkpoint, map_location="cpu", weights_only=False)
    state = payload["model"]
    old_sp = load_tokenizer(checkpoint.parent / "spm.model")
    new_sp = load_tokenizer(new_sp_path)
    state["embed.weight"], direct = remap_embeddings(state["embed.weight"], old_sp, new_sp)
    model.load_state_dict(state)
    _LOGGER.info(
        "initialised from %s (step %d); %d/%d pieces copied, the rest composed",
        checkpoint,
        payload["meta"]["state"]["step"],
        direct,
        new_sp.get_piece_size(),
    )
