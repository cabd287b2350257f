"""Whisper's byte-level BPE tokenizer (Hugging Face ``tokenizers``) with its control tokens."""

from __future__ import annotations

import logging
from functools import cached_property
from pathlib import Path

from therapy_app.asr.config import SpecialTokens
from therapy_app.errors import ModelInvalidError

_LOGGER = logging.getLogger(__name__)

# Sentence punctuation Whisper adds to halting speech. Apostrophes and hyphens are
# left alone: French words need them (« l'eau », « peut-être »).
PUNCTUATION = frozenset('.,;:!?…«»"()[]¿¡')


class WhisperTokenizer:
    """Text <-> token ids for Whisper, without any control tokens added implicitly.

    Args:
        path: the model's ``tokenizer.json``.
        special: control token ids from the sidecar.
    """

    def __init__(self, path: Path, special: SpecialTokens) -> None:
        from tokenizers import Tokenizer

        try:
            self._tok = Tokenizer.from_file(str(path))
        except Exception as exc:  # tokenizers raises bare Exceptions
            raise ModelInvalidError(
                "Le vocabulaire du modèle de reconnaissance vocale est illisible.",
                "Reconstruisez-le avec « therapy-app build-models ».",
                f"cannot read {path}: {exc}",
            ) from exc
        self.special = special
        if self._tok.token_to_id("<|startoftranscript|>") != special.sot:
            raise ModelInvalidError(
                "Le vocabulaire ne correspond pas au modèle de reconnaissance vocale.",
                "Reconstruisez-le avec « therapy-app build-models ».",
                f"{path}: <|startoftranscript|> id differs from the sidecar",
            )

    @property
    def text_vocab_size(self) -> int:
        """Ids below this are plain text tokens (everything from ``eot`` on is control)."""
        return self.special.eot

    def encode(self, text: str) -> list[int]:
        """Token ids of ``text`` (no control tokens).

        Whisper's transcripts start with a space; pass ``" " + text`` to match them.
        """
        return list(self._tok.encode(text, add_special_tokens=False).ids)

    def decode(self, ids: list[int]) -> str:
        """Text of the plain tokens in ``ids``; control and timestamp tokens are dropped."""
        return self._tok.decode([i for i in ids if i < self.special.eot], skip_special_tokens=True)

    def prompt_tokens(self, previous_text: str | None, max_tokens: int) -> list[int]:
        """Decoder prompt: optional ``<|startofprev|>`` context, then the French SOT sequence.

        Args:
            previous_text: text that "was said before"; it conditions style and
                vocabulary (e.g. telegraphic phrases without punctuation).
            max_tokens: room left for it (Whisper keeps the last tokens).
        """
        prompt: list[int] = []
        if previous_text and previous_text.strip():
            context = self.encode(" " + previous_text.strip())[-max_tokens:]
            prompt = [self.special.sot_prev, *context]
        return prompt + self.special.sot_sequence

    @cached_property
    def punctuation_ids(self) -> tuple[int, ...]:
        """Text tokens made only of sentence punctuation (and spaces)."""
        ids = []
        for token_id in range(self.text_vocab_size):
            text = self._tok.decode([token_id])
            stripped = text.strip()
            if stripped and all(ch in PUNCTUATION for ch in stripped):
                ids.append(token_id)
        _LOGGER.debug("%d punctuation tokens", len(ids))
        return tuple(ids)
