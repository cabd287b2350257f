"""The two Whisper ONNX graphs: encoder (log-mel -> cross K/V) and cached decoder step."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from therapy_app.asr.config import WhisperConfig
from therapy_app.errors import ModelInvalidError
from therapy_app.inference import create_session

_LOGGER = logging.getLogger(__name__)

ENCODER_INPUTS = ("mel",)
ENCODER_OUTPUTS = ("cross_k", "cross_v")
DECODER_INPUTS = ("tokens", "self_k", "self_v", "cross_k", "cross_v")
DECODER_OUTPUTS = ("logits", "new_self_k", "new_self_v")


@dataclass
class CrossAttention:
    """Encoder output for one clip: keys and values [L, 1, H, 1500, Dh]."""

    keys: np.ndarray
    values: np.ndarray


@dataclass
class KVCache:
    """Decoder self-attention cache [L, B, H, P, Dh] for keys and values."""

    keys: np.ndarray
    values: np.ndarray

    @property
    def batch(self) -> int:
        """Rows (beams or candidates)."""
        return int(self.keys.shape[1])

    @property
    def length(self) -> int:
        """Positions already decoded."""
        return int(self.keys.shape[3])

    def select(self, rows: np.ndarray) -> KVCache:
        """Cache whose row i is row ``rows[i]`` of this one (beam reordering, expansion)."""
        return KVCache(np.take(self.keys, rows, axis=1), np.take(self.values, rows, axis=1))


def _check_names(session, inputs: tuple[str, ...], outputs: tuple[str, ...], path: Path) -> None:
    got_in = tuple(i.name for i in session.get_inputs())
    got_out = tuple(o.name for o in session.get_outputs())
    if got_in != inputs or got_out != outputs:
        raise ModelInvalidError(
            "Le modèle de reconnaissance vocale n'a pas le format attendu.",
            "Reconstruisez-le avec « therapy-app build-models ».",
            f"{path.name}: inputs {got_in} outputs {got_out}, expected {inputs} {outputs}",
        )


class WhisperOnnx:
    """Runs the encoder once per clip and the decoder once per generated position.

    Args:
        encoder_path: encoder graph.
        decoder_path: decoder-step graph.
        config: model sizes from the sidecar.
        provider: "auto", "cpu" or "cuda" (see :func:`therapy_app.inference.create_session`).
        threads: intra-op threads per session; None uses the default.
    """

    def __init__(
        self,
        encoder_path: Path,
        decoder_path: Path,
        config: WhisperConfig,
        provider: str | None = None,
        threads: int | None = None,
    ) -> None:
        self.config = config
        self._encoder = create_session(encoder_path, provider=provider, threads=threads)
        self._decoder = create_session(decoder_path, provider=provider, threads=threads)
        _check_names(self._encoder, ENCODER_INPUTS, ENCODER_OUTPUTS, encoder_path)
        _check_names(self._decoder, DECODER_INPUTS, DECODER_OUTPUTS, decoder_path)
        providers = (self._encoder.get_providers()[0], self._decoder.get_providers()[0])
        # What really runs, not what was asked for (onnxruntime falls back silently).
        self.provider = "cuda" if "CUDAExecutionProvider" in providers else "cpu"

    def encode(self, mel: np.ndarray) -> CrossAttention:
        """Cross-attention K/V for one log-mel chunk [80, 3000]."""
        keys, values = self._encoder.run(None, {"mel": mel[None].astype(np.float32)})
        return CrossAttention(keys, values)

    def empty_cache(self, batch: int = 1) -> KVCache:
        """A cache with no positions."""
        c = self.config
        shape = (c.n_layers, batch, c.n_heads, 0, c.head_dim)
        return KVCache(np.zeros(shape, np.float32), np.zeros(shape, np.float32))

    def step(
        self, tokens: np.ndarray, cache: KVCache, cross: CrossAttention
    ) -> tuple[np.ndarray, KVCache]:
        """Feed new tokens [B, S] after the cached positions.

        Returns:
            Logits [B, S, V] (float32) and the cache extended by S positions.
        """
        if cache.length + tokens.shape[1] > self.config.n_text_ctx:
            raise ValueError("decoder context exceeded")
        logits, keys, values = self._decoder.run(
            None,
            {
                "tokens": tokens.astype(np.int64),
                "self_k": cache.keys,
                "self_v": cache.values,
                "cross_k": cross.keys,
                "cross_v": cross.values,
            },
        )
        return logits, KVCache(keys, values)
