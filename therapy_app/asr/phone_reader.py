"""The phone reader: the recogniser's encoder frames of a try read as phoneme posteriors (ONNX)."""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from therapy_app.asr.phones import (
    INVENTORY,
    best_logprobs,
    free_logprob,
    label_of,
    pronunciations,
)
from therapy_app.errors import ModelInvalidError, ModelMissingError, TherapyAppError
from therapy_app.inference import create_session
from therapy_app.model_store import PHONE_MODEL, SIDECAR, ModelBundle, load_model, read_sidecar

if TYPE_CHECKING:
    from therapy_app.asr.recognizer import EncodedAudio

_LOGGER = logging.getLogger(__name__)

GRAPH_ROLE = "reader"
FRAMES_PER_SECOND = 50
"""Whisper's encoder frames per second of audio (a 30 s window gives 1500)."""


def frames_of(encoded: EncodedAudio) -> np.ndarray:
    """The reader's input for a try: first decoder layer's cross values over the clip [T, 512]."""
    values: np.ndarray = encoded.cross.values[0][0]  # [heads, 1500, head_dim]
    n = min(values.shape[1], math.ceil(encoded.audio_seconds * FRAMES_PER_SECOND) + 2)
    frames: np.ndarray = values[:, :n].transpose(1, 0, 2).reshape(n, -1).astype(np.float32)
    return frames


@dataclass(frozen=True)
class PhoneScores:
    """How well each candidate text's phonemes fit a try.

    Attributes:
        frames: frames read.
        free: the best unconstrained phoneme path (:func:`therapy_app.asr.phones.free_logprob`).
        scores: candidate text -> its best CTC log-probability; None when a word
            of it has no pronunciation in the lexicon.
        lengths: candidate text -> its phonemes.
        voiced: frames whose likeliest class is a phoneme, not the blank.
    """

    frames: int
    free: float
    scores: dict[str, float | None]
    lengths: dict[str, int]
    voiced: int = 0

    def fit(self, text: str) -> float | None:
        """``text``'s score less the free path: 0 when the frames say exactly ``text``,
        more negative the worse it fits (a goodness of pronunciation).

        Divided by the phonemes the frames show (``voiced``) plus those of
        ``text``: a count of sounds on either side, so leading and trailing
        silence (which the blank takes on both paths) changes nothing, and a
        long word is not judged more harshly than a short one. On the
        calibration tries this scale separated as well as a division by all
        frames, which silence would have moved (docs/decisions/0029).
        """
        score = self.scores.get(text)
        if score is None:
            return None
        return (score - self.free) / max(self.voiced + self.lengths.get(text, 0), 1)


class PhoneReader:
    """Loads ``phones.onnx`` and scores candidate texts against a try's encoder frames.

    Args:
        folder: the reader's folder; None finds ``phone-reader`` with the model
            store (shipped in ``resources/models``).
        threads: intra-op threads; None uses the default.

    Raises:
        ModelMissingError: the reader is not there.
        ModelInvalidError: its sidecar or graph does not match (another inventory,
            a missing file).
    """

    def __init__(self, folder: Path | None = None, threads: int | None = None) -> None:
        if folder is None:
            bundle = load_model(PHONE_MODEL)
        elif not (folder / SIDECAR).is_file():
            raise ModelMissingError(
                "Il manque le lecteur de phonèmes.", "Réinstallez l'application.", f"no {folder}"
            )
        else:
            bundle = ModelBundle(PHONE_MODEL, folder, read_sidecar(folder, PHONE_MODEL))
        meta = bundle.meta
        if meta.get("inventory") != INVENTORY:
            raise ModelInvalidError(
                "Le lecteur de phonèmes n'a pas le format attendu.",
                "Réinstallez l'application.",
                f"inventory {meta.get('inventory')!r} != {INVENTORY!r}",
            )
        graph = bundle.file(GRAPH_ROLE)
        if not graph.is_file():
            raise ModelInvalidError(
                "Le lecteur de phonèmes est incomplet.",
                "Réinstallez l'application.",
                f"missing {graph}",
            )
        self.meta = meta
        # Read with the models, not on the patient's first try (about 0.3 s).
        pronunciations()
        # Tiny (1 M parameters): the CPU, whatever runs the recogniser.
        self._session = create_session(graph, provider="cpu", threads=threads)

    @classmethod
    def for_encoder(cls, encoder_version: str, threads: int | None = None) -> PhoneReader | None:
        """The shipped reader when it was trained on this encoder's frames, else None.

        The reader reads one encoder's frames: with another recogniser (a
        rebuilt model of another version) its posteriors mean nothing, so the
        verdict goes without them (logged) rather than judge on them.
        """
        try:
            reader = cls(threads=threads)
        except TherapyAppError as error:
            _LOGGER.warning("phone reader not used: %s", error.detail or error)
            return None
        trained_on = str(reader.meta.get("encoder_version", ""))
        if not trained_on or not encoder_version.startswith(trained_on):
            _LOGGER.warning(
                "phone reader not used: trained on encoder %r, recogniser is %r",
                trained_on,
                encoder_version,
            )
            return None
        return reader

    def posteriors(self, encoded: EncodedAudio) -> np.ndarray:
        """Log posteriors [T, 1 + phonemes] of the try's frames."""
        logp: np.ndarray = self._session.run(None, {"frames": frames_of(encoded)})[0]
        return logp

    def score(self, encoded: EncodedAudio, texts: list[str]) -> PhoneScores:
        """Each text's fit to the try (a text with an unknown word gets None)."""
        logp = self.posteriors(encoded)
        labels = {text: label_of(text) for text in texts}
        known = [text for text, label in labels.items() if label]
        found = dict(zip(known, best_logprobs(logp, [labels[t] or "" for t in known]), strict=True))
        scores: dict[str, float | None] = {text: found.get(text) for text in labels}
        lengths = {text: len(label or "") for text, label in labels.items()}
        voiced = int(np.sum(logp.argmax(axis=1) != 0))
        return PhoneScores(int(logp.shape[0]), free_logprob(logp), scores, lengths, voiced)
