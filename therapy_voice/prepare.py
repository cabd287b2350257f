"""A recording heard as the app hears it, then encoded once: Whisper's encoder states (fp16).

Shared by the halting-speech data (``models.asr.finetune_data``) and a patient's
recordings (``therapy_voice.adapt``): VAD trim and pauses capped exactly as
``therapy_app.asr.utterance.prepare`` does before every transcription, the
app's log-mel features, then the frozen fp32 encoder.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import torch
from numpy.typing import NDArray
from torch import nn

from therapy_app.asr.features import MelSettings, log_mel_spectrogram
from therapy_app.asr.utterance import prepare
from therapy_app.audio.clip import AudioClip
from therapy_app.audio.wavio import read_wav
from therapy_app.errors import AudioInputError
from therapy_voice.ct2 import read_ct2_model
from therapy_voice.manifest import ManifestError
from therapy_voice.whisper_torch import WhisperDecoderStep, WhisperEncoder, load_from_ct2

if TYPE_CHECKING:
    from therapy_app.vad.silero import VoiceActivityDetector

N_FRAMES, D_MODEL = 1500, 512  # encoder positions and width of Whisper base
LOG_FILE = "items.jsonl"  # one line per prepared recording, appended as each is done


def load_weights(model_bin: Path) -> tuple[WhisperEncoder, WhisperDecoderStep]:
    """The fp32 encoder and decoder (PyTorch) of a CTranslate2 Whisper ``model.bin``."""
    return load_from_ct2(read_ct2_model(model_bin))


def encoder_states(encoder: WhisperEncoder, mel: NDArray[np.float32]) -> torch.Tensor:
    """The encoder's final hidden states [1500, 512] (before the cross-attention projections)."""
    with torch.no_grad():
        x = torch.from_numpy(mel[None])
        x = nn.functional.gelu(encoder.conv1(x))
        x = nn.functional.gelu(encoder.conv2(x)).transpose(1, 2)
        x = x + encoder.positions
        for block in encoder.blocks:
            x = block(x)
        states: torch.Tensor = encoder.ln(x)[0]
        return states


def heard_states(
    vad: VoiceActivityDetector, encoder: WhisperEncoder, mel: MelSettings, clip: AudioClip
) -> NDArray[np.float16] | None:
    """fp16 encoder states [1500, 512] of what the recogniser hears in ``clip``.

    Returns:
        None when the VAD finds no speech, or when the speech left after capping
        the pauses is longer than the encoder's window (the app refuses it too).
    """
    prepared = prepare(vad, clip)
    if prepared is None or prepared[1].duration > mel.chunk_seconds:
        return None
    features = log_mel_spectrogram(prepared[1].samples, mel)
    return encoder_states(encoder, features).numpy().astype(np.float16)


@dataclass(frozen=True)
class PreparedItem:
    """One manifest item after preparation.

    Attributes:
        index: its position in the manifest.
        states: the ``.npy`` file of its fp16 encoder states; None when no
            usable speech was heard (it is left out of training).
        seconds: time its preparation took.
        cpu_seconds: process CPU time it took (all threads).
    """

    index: int
    states: Path | None
    seconds: float
    cpu_seconds: float = 0.0


def read_prepared(folder: Path) -> dict[int, PreparedItem]:
    """The items already prepared in ``folder`` (a run killed mid-item left no line for it)."""
    done: dict[int, PreparedItem] = {}
    log = folder / LOG_FILE
    if not log.is_file():
        return done
    for line in log.read_text(encoding="utf-8").splitlines():
        try:
            row = json.loads(line)
            states = folder / row["states"] if row["states"] else None
            seconds, cpu = float(row["seconds"]), float(row.get("cpu", 0.0))
            item = PreparedItem(int(row["index"]), states, seconds, cpu)
        except (ValueError, KeyError, TypeError):
            break  # the last line of a killed run
        if item.states is None or item.states.is_file():
            done[item.index] = item
    return done


def prepare_recordings(
    audio: Sequence[Path],
    folder: Path,
    hear: Callable[[AudioClip], NDArray[np.float16] | None],
    on_item: Callable[[int], None],
) -> list[PreparedItem]:
    """Prepare every recording not prepared yet, one at a time, each result kept at once.

    Args:
        audio: the WAV files, in manifest order.
        folder: where the states and the log go (created).
        hear: :func:`heard_states` with its models bound.
        on_item: called before each item with the number already done (it may
            raise to stop: what is done is kept).

    Raises:
        ManifestError: a file cannot be read as a WAV recording.
    """
    folder.mkdir(parents=True, exist_ok=True)
    done = read_prepared(folder)
    with (folder / LOG_FILE).open("a", encoding="utf-8") as log:
        for index, path in enumerate(audio):
            if index in done:
                continue
            on_item(len(done))
            start, cpu = time.perf_counter(), time.process_time()
            try:
                clip = read_wav(path)
            except AudioInputError as exc:
                raise ManifestError(f"item {index + 1}: {exc.detail or exc}") from exc
            states = hear(clip)
            name = None
            if states is not None:
                name = f"{index:05d}.npy"
                tmp = folder / (name + ".tmp")
                with tmp.open("wb") as handle:
                    np.save(handle, states)
                tmp.replace(folder / name)
            item = PreparedItem(
                index,
                None if name is None else folder / name,
                time.perf_counter() - start,
                time.process_time() - cpu,
            )
            row = {
                "index": index,
                "states": name,
                "seconds": round(item.seconds, 3),
                "cpu": round(item.cpu_seconds, 3),
            }
            log.write(json.dumps(row) + "\n")
            log.flush()
            done[index] = item
    return [done[i] for i in range(len(audio))]
