"""The adaptation manifest: the recordings with the words said, the start adapter, the seed."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from therapy_app.asr.verbatim import verbatim_text

VERSION = 1
MAX_TEXT_CHARS = 400  # a recording of an exercise says a few words, not a page
MAX_MANIFEST_BYTES = 16 << 20


class ManifestError(ValueError):
    """The manifest, or a file it names, cannot be used (exit code 2)."""


@dataclass(frozen=True)
class ManifestItem:
    """One recording to learn from.

    Attributes:
        audio: absolute path of the WAV file.
        text: the words really said, as the app writes them (capitals and
            punctuation allowed: they are kept for the written form).
    """

    audio: Path
    text: str


@dataclass(frozen=True)
class Manifest:
    """What ``python -m therapy_voice adapt`` learns from.

    Attributes:
        items: the recordings, in the order the app listed them.
        init: adapters to start from (the shipped halting ones), or None for zero.
        seed: seeds the order of the items and the adapter dropout.
        sha256: hash of the manifest file's bytes: the prepared states and the
            checkpoint belong to it.
    """

    items: tuple[ManifestItem, ...]
    init: Path | None
    seed: int
    sha256: str


def _item(number: int, raw: object) -> ManifestItem:
    if not isinstance(raw, dict):
        raise ManifestError(f"item {number}: not an object")
    audio, text = raw.get("audio"), raw.get("text")
    if not isinstance(audio, str) or not Path(audio).is_absolute():
        raise ManifestError(f"item {number}: 'audio' must be an absolute path")
    if not Path(audio).is_file():
        raise ManifestError(f"item {number}: no file {audio}")
    if not isinstance(text, str) or not verbatim_text(text):
        raise ManifestError(f"item {number}: 'text' must say at least one word")
    if len(text) > MAX_TEXT_CHARS:
        raise ManifestError(f"item {number}: 'text' is longer than {MAX_TEXT_CHARS} characters")
    return ManifestItem(Path(audio), text.strip())


def read_manifest(path: Path) -> Manifest:
    """Parse and check a manifest; every named file must exist.

    Raises:
        ManifestError: unreadable, not JSON, wrong version, no items, a missing
            file, an empty text, a bad ``init`` or ``seed``.
    """
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ManifestError(f"cannot read the manifest {path}: {exc.strerror or exc}") from exc
    if len(raw) > MAX_MANIFEST_BYTES:
        raise ManifestError(f"manifest {path} is larger than {MAX_MANIFEST_BYTES} bytes")
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise ManifestError(f"manifest {path} is not JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise ManifestError("the manifest is not a JSON object")
    if data.get("version") != VERSION:
        raise ManifestError(f"manifest version {data.get('version')!r}, expected {VERSION}")
    items = data.get("items")
    if not isinstance(items, list) or not items:
        raise ManifestError("the manifest has no items")
    init = data.get("init")
    if init is not None and (not isinstance(init, str) or not Path(init).is_file()):
        raise ManifestError(f"'init' names no file: {init!r}")
    seed = data.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ManifestError(f"'seed' must be an integer, not {seed!r}")
    return Manifest(
        tuple(_item(n, it) for n, it in enumerate(items, start=1)),
        None if init is None else Path(init),
        seed,
        hashlib.sha256(raw).hexdigest(),
    )
