"""Reads any PCM/float WAV file as a 16 kHz mono clip and writes clips atomically."""

from __future__ import annotations

import io
import logging
import os
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import numpy as np

from therapy_app import atomic
from therapy_app.audio.clip import SAMPLE_RATE, AudioClip
from therapy_app.audio.resample import StreamResampler, resample
from therapy_app.errors import AudioInputError
from therapy_app.input_files import open_regular

_LOGGER = logging.getLogger(__name__)

MAX_DURATION_S = 600.0  # longer recordings are refused: exercises last seconds, not hours
# Plausible recording rates. A header is 44 bytes that anyone can write: 384,001 Hz
# or 4,294,967,295 Hz used to size the resampler's filter table.
MIN_SAMPLE_RATE = 4_000
MAX_SAMPLE_RATE = 192_000
MAX_CHANNELS = 8
# Float WAV files may peak above full scale (1.0), but not by much: +36 dB is far
# beyond any recorder's headroom. 1e30 or 3e38 is a broken or hostile file, and
# downmixing such values overflowed float32 with an English numpy warning.
MAX_FLOAT_SAMPLE = 64.0
# Frames decoded, downmixed and resampled per step: memory stays bounded
# whatever the file's size, rate or channel count.
_BLOCK_FRAMES = 1 << 16

_PCM = 0x0001
_FLOAT = 0x0003
_EXTENSIBLE = 0xFFFE
_FORMAT_NAMES = {0x0002: "ADPCM", 0x0006: "A-law", 0x0007: "mu-law", 0x0055: "MP3"}

_CONVERT_HINT = "Enregistrez à nouveau, ou convertissez le fichier en WAV (PCM 16 bits)."


@dataclass(frozen=True)
class WavInfo:
    """What a WAV header says, read without touching the samples.

    Attributes:
        sample_rate: frames per second.
        channels: interleaved channels per frame.
        sample_format: "pcm" (integers) or "float".
        bits: bits per sample (8, 16, 24, 32 or 64).
        frames: frames actually present (the declared size, capped by the file size).
        data_offset: byte offset of the first sample.
    """

    sample_rate: int
    channels: int
    sample_format: str
    bits: int
    frames: int
    data_offset: int

    @property
    def duration(self) -> float:
        """Length in seconds."""
        return self.frames / float(self.sample_rate)


def _corrupt(detail: str) -> AudioInputError:
    return AudioInputError(
        "Ce fichier audio est illisible ou n'est pas un fichier WAV.", _CONVERT_HINT, detail
    )


def _too_long(duration: float, max_duration_s: float, name: str) -> AudioInputError:
    return AudioInputError(
        f"L'enregistrement est trop long ({duration / 60:.0f} min ; "
        f"maximum {max_duration_s / 60:.0f} min).",
        "Utilisez un enregistrement plus court.",
        f"{name}: {duration:.1f} s exceeds the {max_duration_s:.0f} s limit",
    )


def _no_sound(name: str) -> AudioInputError:
    return AudioInputError(
        "L'enregistrement ne contient aucun son.",
        "Réessayez en parlant près du micro.",
        f"{name}: no samples",
    )


def parse_header(handle: BinaryIO, size: int, name: str = "<wav>") -> WavInfo:
    """Read the RIFF chunks up to the sample data, seeking over everything else.

    The stdlib ``wave`` module (Python 3.11) refuses IEEE-float and
    WAVE_FORMAT_EXTENSIBLE files, which many recorders write, so the few
    chunks that matter are parsed here.

    Args:
        handle: binary file positioned at the start.
        size: total byte size of the file.
        name: used in error details.

    Raises:
        AudioInputError: not a RIFF/WAVE file, unsupported encoding, no data.
    """
    head = handle.read(12)
    if len(head) < 12 or head[:4] not in (b"RIFF", b"RIFX") or head[8:12] != b"WAVE":
        raise _corrupt(f"{name}: no RIFF/WAVE header")
    if head[:4] == b"RIFX":
        raise _corrupt(f"{name}: big-endian RIFX is not supported")
    fmt: tuple[int, int, int, int, int] | None = None
    pos = 12
    while pos + 8 <= size:
        handle.seek(pos)
        chunk_id, chunk_size = struct.unpack("<4sI", handle.read(8))
        body = pos + 8
        if chunk_id == b"fmt ":
            raw = handle.read(min(chunk_size, 40))
            if len(raw) < 16:
                raise _corrupt(f"{name}: fmt chunk too short")
            tag, channels, rate, _, block_align, bits = struct.unpack("<HHIIHH", raw[:16])
            if tag == _EXTENSIBLE and len(raw) >= 26:
                tag = struct.unpack("<H", raw[24:26])[0]  # first bytes of the sub-format GUID
            fmt = (tag, channels, rate, block_align, bits)
        elif chunk_id == b"data":
            if fmt is None:
                raise _corrupt(f"{name}: data chunk before fmt chunk")
            tag, channels, rate, block_align, bits = fmt
            return _make_info(
                name,
                tag,
                channels,
                rate,
                block_align,
                bits,
                available=min(chunk_size, size - body),
                offset=body,
            )
        pos = _next_chunk(handle, body + chunk_size, chunk_size & 1)
    raise _corrupt(f"{name}: no {'fmt' if fmt is None else 'data'} chunk")


def _is_chunk_id(raw: bytes) -> bool:
    return len(raw) == 4 and all(0x20 <= byte <= 0x7E for byte in raw)


def _next_chunk(handle: BinaryIO, end: int, odd: int) -> int:
    """Where the chunk after one ending at ``end`` starts.

    Chunks are word aligned: an odd-sized chunk is followed by a zero pad
    byte. Some writers leave it out; like other readers, accept the next chunk
    where it really is when a chunk id stands where the pad byte should be.
    """
    if not odd:
        return end
    handle.seek(end)
    probe = handle.read(4)
    if probe[:1] != b"\x00" and _is_chunk_id(probe):
        return end
    return end + 1


def _make_info(
    name: str,
    tag: int,
    channels: int,
    rate: int,
    block_align: int,
    bits: int,
    available: int,
    offset: int,
) -> WavInfo:
    if tag not in (_PCM, _FLOAT):
        label = _FORMAT_NAMES.get(tag, f"0x{tag:04x}")
        raise AudioInputError(
            "Ce format audio n'est pas pris en charge.",
            _CONVERT_HINT,
            f"{name}: WAV encoding {label} is not supported (PCM or float only)",
        )
    valid_bits = (8, 16, 24, 32) if tag == _PCM else (32, 64)
    if channels < 1 or rate < 1 or bits not in valid_bits:
        raise _corrupt(f"{name}: bad fmt (channels={channels}, rate={rate}, bits={bits})")
    if not MIN_SAMPLE_RATE <= rate <= MAX_SAMPLE_RATE:
        raise AudioInputError(
            f"La fréquence d'échantillonnage de ce fichier ({rate} Hz) n'est pas prise en charge "
            f"(de {MIN_SAMPLE_RATE} à {MAX_SAMPLE_RATE} Hz).",
            _CONVERT_HINT,
            f"{name}: sample rate {rate} Hz outside {MIN_SAMPLE_RATE}..{MAX_SAMPLE_RATE}",
        )
    if channels > MAX_CHANNELS:
        raise AudioInputError(
            f"Ce fichier audio a trop de canaux ({channels} ; maximum {MAX_CHANNELS}).",
            _CONVERT_HINT,
            f"{name}: {channels} channels (maximum {MAX_CHANNELS})",
        )
    frame_bytes = channels * bits // 8
    if block_align and block_align != frame_bytes:
        raise _corrupt(f"{name}: block align {block_align} != {frame_bytes}")
    return WavInfo(
        rate, channels, "pcm" if tag == _PCM else "float", bits, available // frame_bytes, offset
    )


def _decode(raw: bytes, info: WavInfo) -> np.ndarray:
    """Interleaved bytes -> float32 array of shape (frames, channels)."""
    if info.sample_format == "float":
        floats = np.frombuffer(raw, "<f4" if info.bits == 32 else "<f8")
        _check_float_range(floats)
        data = floats.astype(np.float32)
    elif info.bits == 8:
        data = (np.frombuffer(raw, np.uint8).astype(np.float32) - 128.0) / 128.0
    elif info.bits == 16:
        data = np.frombuffer(raw, "<i2").astype(np.float32) / 32768.0
    elif info.bits == 24:
        b = np.frombuffer(raw, np.uint8).reshape(-1, 3).astype(np.int32)
        ints = (b[:, 0] | (b[:, 1] << 8) | (b[:, 2] << 16)) << 8  # sign lands in bit 31
        data = (ints >> 8).astype(np.float32) / 8388608.0
    else:
        data = np.frombuffer(raw, "<i4").astype(np.float32) / 2147483648.0
    return data.reshape(-1, info.channels)


class _FloatRangeError(ValueError):
    """Float samples that are not finite or far beyond full scale."""


def _check_float_range(samples: np.ndarray) -> None:
    # Checked in the file's own precision: casting 1e300 to float32 overflows.
    if not np.isfinite(samples).all():
        raise _FloatRangeError("NaN or infinite samples")
    if samples.size and float(np.max(np.abs(samples))) > MAX_FLOAT_SAMPLE:
        raise _FloatRangeError(f"float samples beyond ±{MAX_FLOAT_SAMPLE:g}")


def validate_samples(samples: np.ndarray, name: str = "<audio>") -> None:
    """Refuse empty or non-finite audio with a French message.

    Raises:
        AudioInputError: no samples, or NaN/infinite values.
    """
    if samples.size == 0:
        raise _no_sound(name)
    if not np.isfinite(samples).all():
        raise _invalid_values(f"{name}: NaN or infinite samples")


def _invalid_values(detail: str) -> AudioInputError:
    return AudioInputError(
        "Le fichier audio contient des valeurs invalides.", _CONVERT_HINT, detail
    )


def to_clip(frames: np.ndarray, sample_rate: int, name: str = "<audio>") -> AudioClip:
    """Validated (frames, channels) or 1-D float samples -> 16 kHz mono clip.

    Args:
        frames: float samples in [-1, 1], 1-D or (frames, channels).
        sample_rate: their rate in Hz.
        name: used in error details.

    Raises:
        AudioInputError: empty or non-finite samples.
    """
    validate_samples(frames, name)
    mono = frames.mean(axis=1, dtype=np.float32) if frames.ndim == 2 else frames
    if sample_rate != SAMPLE_RATE:
        mono = resample(mono, sample_rate, SAMPLE_RATE)
    return AudioClip(np.ascontiguousarray(mono, dtype=np.float32), SAMPLE_RATE)


def _read(handle: BinaryIO, size: int, name: str, max_duration_s: float) -> AudioClip:
    if size == 0:
        raise AudioInputError(
            "Le fichier audio est vide.", "Réessayez d'enregistrer.", f"{name}: 0 bytes"
        )
    info = parse_header(handle, size, name)
    if info.duration > max_duration_s:
        raise _too_long(info.duration, max_duration_s, name)
    if info.frames == 0:
        raise _no_sound(name)
    _LOGGER.debug(
        "%s: %d Hz, %d ch, %s%d, %.2f s",
        name,
        info.sample_rate,
        info.channels,
        info.sample_format,
        info.bits,
        info.duration,
    )
    return AudioClip(_decode_stream(handle, info, name), SAMPLE_RATE)


def _decode_stream(handle: BinaryIO, info: WavInfo, name: str) -> np.ndarray:
    """The data chunk as 16 kHz mono float32, block by block.

    Only one block of the file and the 16 kHz result are in memory at once: a
    legal 1.8 GB file used to be read whole and decoded (5.4 GB) before use.
    """
    frame_bytes = info.channels * info.bits // 8
    converter = (
        StreamResampler(info.sample_rate, SAMPLE_RATE) if info.sample_rate != SAMPLE_RATE else None
    )
    handle.seek(info.data_offset)
    parts: list[np.ndarray] = []
    remaining = info.frames
    while remaining > 0:
        count = min(remaining, _BLOCK_FRAMES)
        raw = handle.read(count * frame_bytes)
        if len(raw) != count * frame_bytes:
            raise _corrupt(f"{name}: file shorter than its header says (changed while read?)")
        try:
            frames = _decode(raw, info)
        except _FloatRangeError as exc:
            raise _invalid_values(f"{name}: {exc}") from exc
        validate_samples(frames, name)
        mono = frames.mean(axis=1, dtype=np.float32)
        parts.append(converter.process(mono) if converter is not None else mono)
        remaining -= count
    if converter is not None:
        parts.append(converter.flush())
    return np.ascontiguousarray(np.concatenate(parts), dtype=np.float32)


def read_wav(path: str | os.PathLike[str], max_duration_s: float = MAX_DURATION_S) -> AudioClip:
    """Load a WAV file as a 16 kHz mono float32 clip.

    Args:
        path: the file (8/16/24/32-bit PCM or 32/64-bit float, any rate, any channels).
        max_duration_s: longer files are refused from their header, before any sample is read.

    Returns:
        The clip, downmixed to mono and resampled to 16 kHz.

    Raises:
        AudioInputError: missing, empty, corrupt, unsupported, silent-by-construction
            (zero samples), non-finite or too long.
    """
    path = Path(path)
    # A regular file only: a FIFO used to block here forever.
    # No size cap: the header's duration is checked and samples are read in blocks.
    handle, size = open_regular(path, "le fichier audio", max_bytes=None, error=AudioInputError)
    try:
        with handle:
            return _read(handle, size, path.name, max_duration_s)
    except OSError as exc:
        raise AudioInputError(
            "Le fichier audio ne peut pas être lu.",
            "Vérifiez le fichier choisi.",
            f"cannot read {path}: {exc}",
        ) from exc
    except (struct.error, ValueError) as exc:
        raise _corrupt(f"{path.name}: {exc}") from exc


def read_wav_bytes(data: bytes, max_duration_s: float = MAX_DURATION_S) -> AudioClip:
    """Same as :func:`read_wav` for a WAV file held in memory."""
    try:
        return _read(io.BytesIO(data), len(data), "<bytes>", max_duration_s)
    except (struct.error, ValueError) as exc:
        raise _corrupt(f"<bytes>: {exc}") from exc


def wav_bytes(clip: AudioClip) -> bytes:
    """The clip as a complete 16-bit PCM mono WAV file in memory.

    Samples outside [-1, 1] are clipped (not wrapped around) and NaN becomes 0.
    """
    samples = np.nan_to_num(clip.samples, nan=0.0, posinf=1.0, neginf=-1.0)
    pcm: bytes = np.round(np.clip(samples, -1.0, 1.0) * 32767.0).astype("<i2").tobytes()
    header = struct.pack(
        "<4sI4s4sIHHIIHH4sI",
        b"RIFF",
        36 + len(pcm),
        b"WAVE",
        b"fmt ",
        16,
        _PCM,
        1,
        clip.sample_rate,
        clip.sample_rate * 2,
        2,
        16,
        b"data",
        len(pcm),
    )
    return header + pcm


TEMP_SUFFIX = atomic.TEMP_SUFFIX


def temporary_prefix(path: Path) -> str:
    """Start of the temporary name :func:`write_wav` uses beside ``path``.

    ``.<name>.<pid>.``: a start-up clean-up can tell a file left by a killed
    process (its writer is gone) from one another copy of the app is writing.
    """
    return atomic.writer_prefix(path)


def temporary_writer_pid(name: str) -> int | None:
    """The writer's process id in a temporary name from :func:`write_wav`, if any."""
    parts = name.split(".")
    if len(parts) >= 5 and parts[-1] == TEMP_SUFFIX[1:] and parts[-3].isdigit():
        return int(parts[-3])
    return None


def write_wav(path: str | os.PathLike[str], clip: AudioClip) -> Path:
    """Write a clip as 16-bit PCM mono, atomically.

    The file is written to a temporary name in the same folder, flushed to disk,
    then renamed over the target, so a crash never leaves a truncated recording.

    Args:
        path: destination; parent folders are created.
        clip: the audio (any rate; written at its own rate).

    Returns:
        The destination path.

    Raises:
        AudioInputError: the file cannot be written (disk full, no permission).
    """
    path = Path(path)
    data = wav_bytes(clip)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic.write_bytes(path, data, prefix=temporary_prefix(path))
    except OSError as exc:
        raise AudioInputError(
            "Impossible d'enregistrer le fichier audio.",
            "Vérifiez l'espace disque disponible et les droits du dossier.",
            f"cannot write {path}: {exc}",
        ) from exc
    return path
