"""The two Whisper ONNX graphs: encoder (log-mel -> cross K/V) and cached decoder step."""

from __future__ import annotations

import copy
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from therapy_app.asr.config import WhisperConfig
from therapy_app.errors import ModelInvalidError
from therapy_app.inference import create_session

if TYPE_CHECKING:
    import onnxruntime

_LOGGER = logging.getLogger(__name__)


def encoder_io(n_layers: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Encoder input and output names: ``mel`` -> ``cross_k_0..``, ``cross_v_0..``."""
    keys = tuple(f"cross_k_{i}" for i in range(n_layers))
    values = tuple(f"cross_v_{i}" for i in range(n_layers))
    return ("mel",), keys + values


# Extra decoder input of a graph built with gated adapters: 0 is plain Whisper, 1 adapted.
ADAPTER_GATE = "adapter_gate"


def decoder_io(n_layers: int, gated: bool = False) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Decoder-step input and output names, layer by layer.

    Inputs: ``tokens``, ``self_k_i``, ``self_v_i``, ``cross_k_i``, ``cross_v_i``
    (then ``adapter_gate`` [1] for a gated graph); outputs: ``logits``,
    ``new_self_k_i``, ``new_self_v_i``.
    """
    layers = range(n_layers)
    inputs = ("tokens",) + tuple(
        f"{kind}_{i}" for kind in ("self_k", "self_v", "cross_k", "cross_v") for i in layers
    )
    if gated:
        inputs += (ADAPTER_GATE,)
    outputs = ("logits",) + tuple(
        f"{kind}_{i}" for kind in ("new_self_k", "new_self_v") for i in layers
    )
    return inputs, outputs


@dataclass
class CrossAttention:
    """Encoder output for one clip: per decoder layer, keys and values [1, H, 1500, Dh]."""

    keys: list[np.ndarray]
    values: list[np.ndarray]


@dataclass
class KVCache:
    """Decoder self-attention cache: per layer, keys and values [B, H, P, Dh]."""

    keys: list[np.ndarray]
    values: list[np.ndarray]

    @property
    def batch(self) -> int:
        """Rows (beams or candidates)."""
        return int(self.keys[0].shape[0])

    @property
    def length(self) -> int:
        """Positions already decoded."""
        return int(self.keys[0].shape[2])

    def select(self, rows: np.ndarray) -> KVCache:
        """Cache whose row i is row ``rows[i]`` of this one (beam reordering, expansion)."""
        return KVCache(
            [np.take(k, rows, axis=0) for k in self.keys],
            [np.take(v, rows, axis=0) for v in self.values],
        )


def _check_names(
    session: onnxruntime.InferenceSession,
    inputs: tuple[str, ...],
    outputs: tuple[str, ...],
    path: Path,
) -> None:
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

    A decoder graph with gated adapters (``adapter_gate`` input) runs plain
    (gate 0) unless :meth:`with_gate` gives a view with another gate.

    Args:
        encoder_path: encoder graph.
        decoder_path: decoder-step graph.
        config: model sizes from the sidecar.
        provider: "auto", "cpu" or "cuda" (see :func:`therapy_app.inference.create_session`).
        threads: intra-op threads per session; None uses the default.
        decoder_initializers: decoder graph initializers replaced at session creation
            (a personal adapter in the named slots, :mod:`therapy_app.asr.personal`).
    """

    def __init__(
        self,
        encoder_path: Path,
        decoder_path: Path,
        config: WhisperConfig,
        provider: str | None = None,
        threads: int | None = None,
        decoder_initializers: Mapping[str, np.ndarray] | None = None,
    ) -> None:
        self.config = config
        self._encoder = create_session(encoder_path, provider=provider, threads=threads)
        self._decoder = create_session(
            decoder_path, provider=provider, threads=threads, initializers=decoder_initializers
        )
        _check_names(self._encoder, *encoder_io(config.n_layers), encoder_path)
        self.gated = ADAPTER_GATE in {i.name for i in self._decoder.get_inputs()}
        self._decoder_inputs, _ = decoder_io(config.n_layers, self.gated)
        _check_names(self._decoder, *decoder_io(config.n_layers, self.gated), decoder_path)
        self._gate = np.zeros(1, np.float32)
        providers = (self._encoder.get_providers()[0], self._decoder.get_providers()[0])
        # What really runs, not what was asked for (onnxruntime falls back silently).
        self.provider = "cuda" if "CUDAExecutionProvider" in providers else "cpu"

    @property
    def gate(self) -> float:
        """Adapter gate fed to a gated decoder (0 plain, 1 adapted); 0 without adapters."""
        return float(self._gate[0]) if self.gated else 0.0

    def with_gate(self, gate: float) -> WhisperOnnx:
        """A view sharing these sessions whose decoder runs with ``gate`` (no-op if not gated)."""
        if not self.gated or gate == self.gate:
            return self
        view = copy.copy(self)
        view._gate = np.asarray([gate], np.float32)
        return view

    def encode(self, mel: np.ndarray) -> CrossAttention:
        """Cross-attention K/V for one log-mel chunk [80, 3000]."""
        outputs = self._encoder.run(None, {"mel": mel[None].astype(np.float32)})
        n = self.config.n_layers
        return CrossAttention(list(outputs[:n]), list(outputs[n:]))

    def empty_cache(self, batch: int = 1) -> KVCache:
        """A cache with no positions."""
        c = self.config
        empty = np.zeros((batch, c.n_heads, 0, c.head_dim), np.float32)
        return KVCache([empty] * c.n_layers, [empty] * c.n_layers)

    def step(
        self, tokens: np.ndarray, cache: KVCache, cross: CrossAttention
    ) -> tuple[np.ndarray, KVCache]:
        """Feed new tokens [B, S] after the cached positions.

        Returns:
            Logits [B, S, V] (float32) and the cache extended by S positions.
        """
        if cache.length + tokens.shape[1] > self.config.n_text_ctx:
            raise ValueError("decoder context exceeded")
        arrays = [tokens.astype(np.int64), *cache.keys, *cache.values, *cross.keys, *cross.values]
        if self.gated:
            arrays.append(self._gate)
        outputs = self._decoder.run(None, dict(zip(self._decoder_inputs, arrays, strict=True)))
        n = self.config.n_layers
        return outputs[0], KVCache(list(outputs[1 : n + 1]), list(outputs[n + 1 :]))
