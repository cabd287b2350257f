"""Typed view of the Whisper model sidecar: sizes, special tokens, suppress lists, features."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from therapy_app.asr.features import MelSettings
from therapy_app.errors import ModelInvalidError

# Role names of the files in the sidecar's "files" section.
ENCODER_ROLE = "encoder"
DECODER_ROLE = "decoder"
TOKENIZER_ROLE = "tokenizer"

# The Whisper base weights a patient's personal adapter is trained on (therapy_voice,
# in its own process): the CTranslate2 model.bin and its side files, in an optional
# "voice pack" folder next to whisper-base. Roles of its sidecar's "files" section:
TRAIN_MODEL = "whisper-base-train"
MODEL_BIN_ROLE = "model_bin"
CT2_CONFIG_ROLE = "config"
ADAPTER_ROLE = "adapter"  # the halting-speech adapter built into the decoder graph


@dataclass(frozen=True)
class SpecialTokens:
    """Ids of Whisper's control tokens.

    Attributes:
        eot: end of text, also the end of a transcript.
        sot: start of transcript.
        language: the forced language (French).
        transcribe: task token (as opposed to translate).
        translate: translation task, always suppressed.
        no_timestamps: selects text-only output.
        no_speech: its probability at the ``sot`` position measures "nobody speaks".
        sot_prev: introduces previous text used as a prompt.
        sot_lm: language-model-only mode, always suppressed.
        timestamp_begin: first timestamp token; it and all later ids are timestamps.
        language_ids: every language token, suppressed in the output.
    """

    eot: int
    sot: int
    language: int
    transcribe: int
    translate: int
    no_timestamps: int
    no_speech: int
    sot_prev: int
    sot_lm: int
    timestamp_begin: int
    language_ids: tuple[int, ...] = ()

    @property
    def sot_sequence(self) -> list[int]:
        """``<|startoftranscript|><|fr|><|transcribe|><|notimestamps|>``."""
        return [self.sot, self.language, self.transcribe, self.no_timestamps]


@dataclass(frozen=True)
class WhisperConfig:
    """Everything the runtime needs besides the graphs and the tokenizer.

    Attributes:
        n_vocab: logits width (text tokens, control tokens and timestamps).
        n_text_ctx: most decoder positions (prompt + output).
        n_layers: decoder layers (first axis of the caches).
        n_heads: attention heads.
        head_dim: size of one head.
        language: language code forced in the prompt.
        tokens: control token ids.
        suppress_ids: tokens never produced (non-speech symbols, control tokens).
        suppress_ids_begin: tokens not allowed as the first output (blank, end of text).
        mel: log-mel front-end settings.
    """

    n_vocab: int
    n_text_ctx: int
    n_layers: int
    n_heads: int
    head_dim: int
    language: str
    tokens: SpecialTokens
    suppress_ids: tuple[int, ...] = ()
    suppress_ids_begin: tuple[int, ...] = ()
    mel: MelSettings = field(default_factory=MelSettings)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> WhisperConfig:
        """Parse the sidecar's ``whisper`` section plus its ``mel`` section.

        Raises:
            ModelInvalidError: a required key is missing or malformed.
        """
        try:
            whisper = data["whisper"]
            tokens = dict(whisper["special_tokens"])
            tokens["language_ids"] = tuple(tokens.get("language_ids", ()))
            return cls(
                n_vocab=int(whisper["n_vocab"]),
                n_text_ctx=int(whisper["n_text_ctx"]),
                n_layers=int(whisper["n_layers"]),
                n_heads=int(whisper["n_heads"]),
                head_dim=int(whisper["head_dim"]),
                language=str(whisper["language"]),
                tokens=SpecialTokens(**tokens),
                suppress_ids=tuple(int(t) for t in whisper.get("suppress_ids", ())),
                suppress_ids_begin=tuple(int(t) for t in whisper.get("suppress_ids_begin", ())),
                mel=MelSettings.from_dict(data.get("mel", {})),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ModelInvalidError(
                "Le modèle de reconnaissance vocale est mal décrit.",
                "Reconstruisez-le avec « therapy-app build-models ».",
                f"bad whisper sidecar: {exc!r}",
            ) from exc

    def to_dict(self) -> dict[str, Any]:
        """The sidecar's ``whisper`` and ``mel`` sections."""
        t = self.tokens
        special = {k: getattr(t, k) for k in t.__dataclass_fields__}
        special["language_ids"] = list(t.language_ids)
        return {
            "whisper": {
                "n_vocab": self.n_vocab,
                "n_text_ctx": self.n_text_ctx,
                "n_layers": self.n_layers,
                "n_heads": self.n_heads,
                "head_dim": self.head_dim,
                "language": self.language,
                "special_tokens": special,
                "suppress_ids": list(self.suppress_ids),
                "suppress_ids_begin": list(self.suppress_ids_begin),
            },
            "mel": self.mel.to_dict(),
        }
