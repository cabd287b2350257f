"""A token n-gram language model of telegraphic and everyday French (an experiment, unshipped)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from therapy_app.errors import ModelInvalidError

# Token ids are below 2**16 (Whisper's vocabulary has 51,865), so up to four of
# them pack into one uint64 key without collisions.
_BITS = 16
MAX_ORDER = 4


def pack(tokens: np.ndarray) -> np.ndarray:
    """Pack rows of token ids [n, k] (k <= 4) into uint64 keys [n]."""
    keys = np.zeros(tokens.shape[0], np.uint64)
    for column in range(tokens.shape[1]):
        keys = (keys << np.uint64(_BITS)) | tokens[:, column].astype(np.uint64)
    return keys


@dataclass(frozen=True)
class _Level:
    """Counts of one order n >= 2: contexts (n-1 tokens) and stored n-grams."""

    ctx_keys: np.ndarray  # uint64, sorted
    ctx_total: np.ndarray  # times the context was followed by anything
    ctx_types: np.ndarray  # distinct followers (before pruning)
    gram_keys: np.ndarray  # uint64, sorted
    gram_count: np.ndarray
    discount: float


def _find(sorted_keys: np.ndarray, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Index of each key in ``sorted_keys`` and whether it is there."""
    index = np.searchsorted(sorted_keys, keys)
    index = np.minimum(index, max(0, sorted_keys.size - 1))
    found = sorted_keys[index] == keys if sorted_keys.size else np.zeros(keys.shape, bool)
    return index, found


class TokenLM:
    """Interpolated absolute-discounting n-gram model over lowercased Whisper tokens.

    Built by ``models/asr/lm_build.py`` from the synthetic aphasia corpus (its
    telegraphic sources and their grammatical targets). Whisper's own decoder
    only knows fluent, written French; this model knows what patients say
    ("moi boire eau" beats Whisper's "moi vois ou" by 14 nats). Measured as a
    reranker of the beam (``SearchSettings.lm``) and not adopted: it helped the
    Pico voice and hurt the mixed voices (README, "Halting speech"), so no model
    ships and the app never loads one.

    Args:
        path: the ``.npz`` written by the builder.
    """

    def __init__(self, path: Path) -> None:
        try:
            with np.load(path) as data:
                arrays = {k: data[k] for k in data.files}
        except (OSError, ValueError, KeyError) as exc:
            raise ModelInvalidError(
                "Le modèle de langue de la reconnaissance vocale est illisible.",
                "Reconstruisez les modèles avec « therapy-app build-models ».",
                f"cannot read {path}: {exc}",
            ) from exc
        self.order = int(arrays["order"])
        self.bos = int(arrays["bos"])
        self.eos = int(arrays["eos"])
        self.lower_map = arrays["lower_map"].astype(np.int64)
        self._unigram = arrays["unigram_logp"].astype(np.float32)
        self._levels: dict[int, _Level] = {}
        for n in range(2, self.order + 1):
            self._levels[n] = _Level(
                arrays[f"ctx{n}_keys"],
                arrays[f"ctx{n}_total"].astype(np.float64),
                arrays[f"ctx{n}_types"].astype(np.float64),
                arrays[f"gram{n}_keys"],
                arrays[f"gram{n}_count"].astype(np.float64),
                float(arrays["discounts"][n - 2]),
            )

    def normalise(self, tokens: list[int]) -> list[int]:
        """The model's view of decoder tokens: lowercased where one token says so."""
        size = self.lower_map.size
        return [int(self.lower_map[t]) if t < size else t for t in tokens]

    def logprobs(self, history: list[int], candidates: np.ndarray) -> np.ndarray:
        """Natural-log P(candidate | history) for each candidate id.

        Args:
            history: normalised tokens said so far (``normalise``), without BOS.
            candidates: ids to score (normalised or not; mapped here).
        """
        size = self.lower_map.size
        cand = np.where(candidates < size, self.lower_map[np.minimum(candidates, size - 1)],
                        candidates).astype(np.int64)  # fmt: skip
        context = [self.bos, *history][-(self.order - 1) :]
        prob = np.exp(self._unigram[np.minimum(cand, self._unigram.size - 1)]).astype(np.float64)
        for n in range(2, self.order + 1):
            if len(context) < n - 1:
                break
            level = self._levels[n]
            ctx = np.asarray([context[len(context) - (n - 1) :]], np.int64)
            ctx_key = pack(ctx)
            ci, cfound = _find(level.ctx_keys, ctx_key)
            if not cfound[0]:
                break  # a longer context cannot be known when this one is not
            total = level.ctx_total[ci[0]]
            types = level.ctx_types[ci[0]]
            grams = np.concatenate([np.repeat(ctx, cand.size, axis=0), cand[:, None]], axis=1)
            gi, gfound = _find(level.gram_keys, pack(grams))
            counts = np.where(gfound, level.gram_count[gi], 0.0)
            d = level.discount
            prob = np.maximum(counts - d, 0.0) / total + (d * types / total) * prob
        return np.asarray(np.log(np.maximum(prob, 1e-30)), dtype=np.float32)

    def sentence_logprob(self, tokens: list[int]) -> float:
        """log P(tokens, end) under the model (for checks and tests)."""
        history: list[int] = []
        total = 0.0
        for token in [*self.normalise(tokens), self.eos]:
            total += float(self.logprobs(history, np.asarray([token]))[0])
            history.append(token)
        return total

    def perplexity(self, token_lists: list[list[int]]) -> float:
        """Per-token perplexity (end of sentence included) over several sentences."""
        total, count = 0.0, 0
        for tokens in token_lists:
            total += self.sentence_logprob(tokens)
            count += len(tokens) + 1
        return math.exp(-total / max(1, count))
