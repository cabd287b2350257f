"""Deterministic hostile inputs for the fault catalogue (issue 24), written at run time.

Nothing binary is committed: every crafted file (WAV, backup archive, custom
list, model sidecar, passphrase, FIFO, link) is built here from a few
parameters, with the same bytes on every run. ``python benchmarks/hostile_files.py
FOLDER`` writes the stand-alone ones into ``FOLDER``.
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
import sys
import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

NESTING = 100_000
"""Depth of the nested JSON (Python's parser recurses once per level)."""
LONG_NAME = 300
"""Characters in an over-long file name (most file systems stop at 255 bytes)."""
BOMB_BYTES = 2 << 30
"""What the zip bomb's recording inflates to (its archive is about 2 MB)."""
MANIFEST = "manifest.json"
LIST_FORMAT = "therapy-app-custom-list"
INVISIBLE = "\u200b\u2060\u200d\ufeff\u00ad"
"""Zero-width space, word joiner, zero-width joiner, BOM, soft hyphen: nothing to read."""
_WORDS = ("le", "chat", "boit", "du", "lait", "et", "la", "fille", "mange", "une", "pomme")


# -- audio --------------------------------------------------------------------


def wav(
    rate: int = 16000,
    channels: int = 1,
    bits: int = 16,
    code: int = 1,
    declared: int | None = None,
    payload: bytes = b"\0" * 3200,
    riff: bytes = b"RIFF",
    wave: bytes = b"WAVE",
) -> bytes:
    """A one-chunk WAV file whose header says what the arguments say (no pad byte)."""
    block = (channels * bits // 8) & 0xFFFF
    fmt = struct.pack("<HHIIHH", code, channels, rate, (rate * block) & 0xFFFFFFFF, block, bits)
    data_len = len(payload) if declared is None else declared
    body = wave + b"fmt " + struct.pack("<I", 16) + fmt + b"data" + struct.pack("<I", data_len)
    return riff + struct.pack("<I", len(body) + len(payload)) + body + payload


def float_wav(value: float, channels: int = 1, frames: int = 16000) -> bytes:
    """One second of a 32-bit float square wave of amplitude ``value`` (1.0 is full scale)."""
    wave = np.where(np.arange(frames) % 32 < 16, value, -value).astype("<f4")
    return wav(code=3, bits=32, channels=channels, payload=np.repeat(wave, channels).tobytes())


def odd_last_chunk_wav(frames: int = 8001) -> bytes:
    """8-bit mono, an odd number of samples: the data chunk ends the file without its pad byte."""
    tone = 128 + 60 * np.sin(np.arange(frames) * 2 * np.pi * 440 / 16000)
    return wav(bits=8, payload=tone.astype(np.uint8).tobytes())


def words(count: int) -> str:
    """``count`` short French words (about 4 characters each), the same every run."""
    return " ".join(_WORDS[(i * 7) % len(_WORDS)] for i in range(count))


def nested(depth: int = NESTING) -> str:
    """A JSON array nested ``depth`` levels deep."""
    return "[" * depth + "]" * depth


# -- backups ------------------------------------------------------------------


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _read_backup(source: Path) -> tuple[list[tuple[str, bytes]], dict[str, Any]]:
    with zipfile.ZipFile(source) as zf:
        members = [(i.filename, zf.read(i)) for i in zf.infolist() if i.filename != MANIFEST]
        manifest = json.loads(zf.read(MANIFEST))
    return members, manifest


def rewrite_backup(
    source: Path,
    target: Path,
    *,
    edit: Callable[[dict[str, Any]], None] | None = None,
    text_edit: Callable[[str], str] | None = None,
    extra: tuple[tuple[str, bytes], ...] = (),
) -> Path:
    """A copy of the backup ``source`` with a changed manifest or more members.

    Args:
        source: a plain (not encrypted) backup made by the app.
        target: the crafted archive.
        edit: changes the parsed manifest.
        text_edit: changes the manifest's JSON text (for what ``json.dumps`` cannot write).
        extra: members added after the others, each listed in the manifest with its SHA-256.
    """
    members, manifest = _read_backup(source)
    for name, content in extra:
        members.append((name, content))
        manifest["files"][name] = _sha256(content)
    if edit is not None:
        edit(manifest)
    text = json.dumps(manifest, ensure_ascii=False, indent=1)
    if text_edit is not None:
        text = text_edit(text)
    with zipfile.ZipFile(target, "w") as out:
        for name, content in members:
            out.writestr(name, content)
        out.writestr(MANIFEST, text)
    return target


def _set(key: str, value: object) -> Callable[[dict[str, Any]], None]:
    return lambda manifest: manifest.__setitem__(key, value)


def zip_bomb(source: Path, target: Path, size: int = BOMB_BYTES) -> Path:
    """The backup ``source`` plus a recording that inflates to ``size`` bytes of zeros.

    Its manifest entry is honest (the SHA-256 of the zeros): only its size is hostile.
    The deflate stream is one compressed, fully flushed MiB of zeros repeated.
    """
    chunk = bytes(1 << 20)
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    block = packer.compress(chunk) + packer.flush(zlib.Z_FULL_FLUSH)
    crc, digest = 0, hashlib.sha256()
    for _ in range(size >> 20):
        crc = zlib.crc32(chunk, crc)
        digest.update(chunk)
    members, manifest = _read_backup(source)
    name = "recordings/1/2025-03/bombe.wav"
    manifest["files"][name] = digest.hexdigest()
    entries = [(n, c, zlib.crc32(c), len(c), 0) for n, c in members]
    entries.append((name, block * (size >> 20) + packer.flush(), crc, size, 8))
    text = json.dumps(manifest, indent=1).encode()
    entries.append((MANIFEST, text, zlib.crc32(text), len(text), 0))
    _write_zip(target, entries)
    return target


def _write_zip(target: Path, entries: list[tuple[str, bytes, int, int, int]]) -> None:
    """A ZIP file from (name, stored bytes, CRC-32, inflated size, method) entries."""
    offset, central = 0, []
    with target.open("wb") as out:
        for name, data, crc, size, method in entries:
            raw = name.encode()
            head = (crc, len(data), size, len(raw))
            local = struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, method, 0, 0x21, *head, 0)
            central.append(
                struct.pack(
                    "<IHHHHHHIIIHHHHHII",
                    0x02014B50,
                    20,
                    20,
                    0,
                    method,
                    0,
                    0x21,
                    *head,
                    0,
                    0,
                    0,
                    0,
                    0,
                    offset,
                )
                + raw  # fmt: skip
            )
            out.write(local + raw + data)
            offset += len(local) + len(raw) + len(data)
        listing = b"".join(central)
        end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(entries), len(entries),
                          len(listing), offset, 0)  # fmt: skip
        out.write(listing + end)


BACKUPS: dict[str, Callable[[Path, Path], Path]] = {
    "made_at is a number": lambda s, t: rewrite_backup(s, t, edit=_set("made_at", 1710408600)),
    "attempts is a text": lambda s, t: rewrite_backup(s, t, edit=_set("attempts", "beaucoup")),
    "format is 1e999": lambda s, t: rewrite_backup(
        s, t, text_edit=lambda text: text.replace('"format": 1,', '"format": 1e999,', 1)
    ),
    "manifest nested 100,000 deep": lambda s, t: rewrite_backup(
        s, t, text_edit=lambda text: text.rstrip()[:-1] + f', "notes": {nested()}}}'
    ),
    "a file named recordings": lambda s, t: rewrite_backup(
        s, t, extra=(("recordings", b"pas un dossier"),)
    ),
    "a file named pending": lambda s, t: rewrite_backup(s, t, extra=(("pending", b"{}"),)),
    "a 300-character member name": lambda s, t: rewrite_backup(
        s, t, extra=((f"recordings/1/2025-03/{'a' * LONG_NAME}.wav", wav()),)
    ),
    "recordings/a then recordings/a/b": lambda s, t: rewrite_backup(
        s, t, extra=(("recordings/a", b"fichier"), ("recordings/a/b", b"dessous"))
    ),
    "zip bomb": zip_bomb,
}
"""Crafted archives: name -> builder(source backup, target path)."""


# -- custom lists, passphrases, model sidecars --------------------------------


def custom_list(items: list[dict[str, Any]], *, version: object = 1, bom: bool = False) -> bytes:
    """A custom-list file as the app exports it (optionally with a UTF-8 BOM)."""
    data = {"format": LIST_FORMAT, "version": version, "exported_at": "2025-03-14T09:30:00"}
    text = json.dumps({**data, "items": items}, ensure_ascii=False, indent=2)
    return ("\ufeff" if bom else "").encode() + text.encode()


def _word(text: str, **more: str) -> dict[str, str]:
    return {"kind": "word", "text": text, "category": "", **more}


LIST_ITEMS = [_word("chat"), {"kind": "sentence", "text": "Ma fille s'appelle Julie."}]
"""The two items of the lists that must be accepted."""


def _nested_list() -> bytes:
    return f'{{"format": "{LIST_FORMAT}", "version": 1, "items": {nested()}}}'.encode()


SIDECAR_DAMAGE = ("a file without path", "files is a list", "nested 100,000 deep")


def damaged_model(source: Path, target: Path, damage: str) -> Path:
    """``target``: the model folder ``source`` (files linked, not copied) with a damaged sidecar.

    Args:
        source: a built model folder (``model.json`` and its files).
        target: the new folder (named like ``source``).
        damage: one of ``SIDECAR_DAMAGE``.
    """
    target.mkdir(parents=True)
    for item in source.iterdir():
        if item.name != "model.json":
            (target / item.name).symlink_to(item.resolve())
    meta = json.loads((source / "model.json").read_text(encoding="utf-8"))
    if damage == SIDECAR_DAMAGE[0]:
        del next(iter(meta["files"].values()))["path"]
    elif damage == SIDECAR_DAMAGE[1]:
        meta["files"] = list(meta["files"].values())
    text = json.dumps(meta, ensure_ascii=False, indent=1)
    if damage == SIDECAR_DAMAGE[2]:
        text = text.rstrip()[:-1] + f', "notes": {nested()}}}'
    (target / "model.json").write_text(text, encoding="utf-8")
    return target


def _symlink_loop(path: Path) -> None:
    path.symlink_to(path.name)


FILES: dict[str, Callable[[Path], object]] = {
    "float-1e30.wav": lambda p: p.write_bytes(float_wav(1e30)),
    "stereo-float-3e38.wav": lambda p: p.write_bytes(float_wav(3e38, channels=2)),
    "odd-last-chunk.wav": lambda p: p.write_bytes(odd_last_chunk_wav()),
    "fifo": os.mkfifo,
    "loop.wav": _symlink_loop,
    "passphrase-latin1.txt": lambda p: p.write_bytes(b"mot de passe tr\xe8s s\xfbr\n"),
    "list-version-true.json": lambda p: p.write_bytes(custom_list(LIST_ITEMS, version=True)),
    "list-900kB-category.json": lambda p: p.write_bytes(
        custom_list([_word("chat", category="a" * 900_000)])
    ),
    "list-invisible.json": lambda p: p.write_bytes(custom_list([_word(INVISIBLE), _word("chat")])),
    "list-unknown-picture.json": lambda p: p.write_bytes(
        custom_list([_word("Médor", picture="licorne-introuvable")])
    ),
    "list-bom.json": lambda p: p.write_bytes(custom_list(LIST_ITEMS, bom=True)),
    "list-nested.json": lambda p: p.write_bytes(_nested_list()),
}
"""Stand-alone hostile files: file name -> builder(path)."""


def build(name: str, folder: Path) -> Path:
    """Write the hostile file ``name`` (a key of ``FILES``) into ``folder``; returns its path."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    FILES[name](path)
    return path


def generate(folder: Path) -> dict[str, Path]:
    """Write every stand-alone hostile file into ``folder``."""
    return {name: build(name, folder) for name in FILES}


if __name__ == "__main__":
    for written in generate(Path(sys.argv[1])).values():
        print(written)
