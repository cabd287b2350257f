"""Passphrase encryption of backup files: scrypt key, AES-256-GCM in authenticated chunks.

The format streams (a backup with years of recordings does not fit in
memory) and detects any change, truncation or reordering:

* header: ``MAGIC`` (8 bytes), salt (16), log2 of scrypt's N (1), r (1),
  p (1), nonce prefix (7), chunk size (4, big-endian);
* chunks of ``chunk size`` plaintext bytes (the last one shorter, possibly
  empty), each sealed with AES-256-GCM under the nonce
  ``prefix || counter (4, big-endian) || last flag (1)`` and the header as
  associated data: the STREAM construction (Hoang, Reyhanitabar, Rogaway
  and Vizár, 2015), so a cut-off file fails instead of decrypting short.

The primitives are the ``cryptography`` package's (OpenSSL), not ours.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import struct
import unicodedata
from pathlib import Path
from typing import BinaryIO

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from therapy_app.errors import TherapyAppError

MAGIC = b"THBKENC1"
SALT_BYTES = 16
PREFIX_BYTES = 7
TAG_BYTES = 16
CHUNK_BYTES = 1 << 20
SCRYPT_LOG2_N = 17
SCRYPT_R = 8
SCRYPT_P = 1
_HEADER = struct.Struct(f">8s{SALT_BYTES}sBBB{PREFIX_BYTES}sI")
_MAXMEM = 256 * 1024 * 1024
MIN_PASSPHRASE_LENGTH = 8


class BackupPassphraseError(TherapyAppError):
    """The passphrase does not open the backup (or the file was changed)."""


def is_encrypted(path: Path) -> bool:
    """Whether ``path`` starts like an encrypted backup."""
    with path.open("rb") as raw:
        return raw.read(len(MAGIC)) == MAGIC


def _key(passphrase: str, salt: bytes, log2_n: int, r: int, p: int) -> bytes:
    if not 10 <= log2_n <= 22 or not 1 <= r <= 32 or not 1 <= p <= 4:
        raise BackupPassphraseError(
            "Ce fichier de sauvegarde est abîmé.", "", f"implausible scrypt parameters {log2_n}"
        )
    secret = unicodedata.normalize("NFC", passphrase).encode("utf-8")
    return hashlib.scrypt(secret, salt=salt, n=1 << log2_n, r=r, p=p, maxmem=_MAXMEM, dklen=32)


def _nonce(prefix: bytes, counter: int, last: bool) -> bytes:
    return prefix + struct.pack(">I", counter) + (b"\x01" if last else b"\x00")


def check_passphrase(passphrase: str) -> None:
    """Refuse a passphrase too short to protect health data.

    Raises:
        BackupPassphraseError: shorter than ``MIN_PASSPHRASE_LENGTH``.
    """
    if len(passphrase) < MIN_PASSPHRASE_LENGTH:
        raise BackupPassphraseError(
            "Le mot de passe de la sauvegarde est trop court.",
            f"Choisissez au moins {MIN_PASSPHRASE_LENGTH} caractères.",
        )


def encrypt_stream(source: BinaryIO, target: BinaryIO, passphrase: str) -> None:
    """Encrypt ``source`` into ``target`` (see the module docstring)."""
    check_passphrase(passphrase)
    salt = secrets.token_bytes(SALT_BYTES)
    prefix = secrets.token_bytes(PREFIX_BYTES)
    header = _HEADER.pack(MAGIC, salt, SCRYPT_LOG2_N, SCRYPT_R, SCRYPT_P, prefix, CHUNK_BYTES)
    cipher = AESGCM(_key(passphrase, salt, SCRYPT_LOG2_N, SCRYPT_R, SCRYPT_P))
    target.write(header)
    counter = 0
    chunk = source.read(CHUNK_BYTES)
    while True:
        following = source.read(CHUNK_BYTES)
        last = not following
        target.write(cipher.encrypt(_nonce(prefix, counter, last), chunk, header))
        if last:
            return
        chunk, counter = following, counter + 1


def decrypt_stream(source: BinaryIO, target: BinaryIO, passphrase: str) -> None:
    """Decrypt what :func:`encrypt_stream` wrote.

    Raises:
        BackupPassphraseError: wrong passphrase, or the file was changed or cut.
    """
    header = source.read(_HEADER.size)
    if len(header) != _HEADER.size:
        raise BackupPassphraseError("Ce fichier de sauvegarde est abîmé.", "", "short header")
    magic, salt, log2_n, r, p, prefix, chunk_bytes = _HEADER.unpack(header)
    if magic != MAGIC or not 1024 <= chunk_bytes <= 64 << 20:
        raise BackupPassphraseError("Ce fichier de sauvegarde est abîmé.", "", "bad header")
    cipher = AESGCM(_key(passphrase, salt, log2_n, r, p))
    sealed = chunk_bytes + TAG_BYTES
    counter = 0
    chunk = source.read(sealed)
    while True:
        following = source.read(sealed)
        last = not following
        try:
            target.write(cipher.decrypt(_nonce(prefix, counter, last), chunk, header))
        except InvalidTag:
            raise BackupPassphraseError(
                "Le mot de passe ne correspond pas à cette sauvegarde, ou le fichier est abîmé.",
                "Vérifiez le mot de passe et réessayez.",
                f"authentication failed at chunk {counter}",
            ) from None
        if last:
            return
        chunk, counter = following, counter + 1


def encrypt_file(source: Path, target: Path, passphrase: str) -> None:
    """Encrypt the file ``source`` to ``target`` (created 0600)."""
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with source.open("rb") as plain, os.fdopen(fd, "wb") as sealed:
        encrypt_stream(plain, sealed, passphrase)
        sealed.flush()
        os.fsync(sealed.fileno())


def decrypt_file(source: Path, target: Path, passphrase: str) -> None:
    """Decrypt the file ``source`` to ``target`` (created 0600)."""
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with source.open("rb") as sealed, os.fdopen(fd, "wb") as plain:
        decrypt_stream(sealed, plain, passphrase)
