"""Therapist password hashing (scrypt) and the lockout policy after wrong passwords."""

from __future__ import annotations

import hashlib
import hmac
import secrets
import unicodedata
from dataclasses import dataclass
from datetime import timedelta

SCRYPT_N = 2**17
"""CPU/memory cost, OWASP's current minimum: 2**17 x r=8 uses 128 MiB and ~0.4 s per check.

Hashes made with a lower cost (2**14 before) are replaced on the next
successful login (``account_store.verify_therapist``)."""
SCRYPT_R = 8
SCRYPT_P = 1
SALT_BYTES = 16
HASH_BYTES = 32
# scrypt needs 128 * n * r bytes (128 MiB at 2**17); leave headroom: OpenSSL's
# default limit is 32 MiB.
_MAXMEM = 256 * 1024 * 1024

MAX_FAILURES = 5
"""Wrong passwords allowed before the account locks."""
BASE_LOCK = timedelta(seconds=30)
MAX_LOCK = timedelta(hours=1)


@dataclass(frozen=True)
class PasswordHash:
    """A stored scrypt hash with the parameters it was made with.

    Keeping n, r, p per account lets a later release raise the cost without
    locking out existing accounts.
    """

    digest: bytes
    salt: bytes
    n: int = SCRYPT_N
    r: int = SCRYPT_R
    p: int = SCRYPT_P


def _normalise(password: str) -> bytes:
    # NFC so that "é" typed as one or two code points gives the same hash.
    return unicodedata.normalize("NFC", password).encode("utf-8")


def _scrypt(password: str, salt: bytes, n: int, r: int, p: int) -> bytes:
    return hashlib.scrypt(
        _normalise(password), salt=salt, n=n, r=r, p=p, maxmem=_MAXMEM, dklen=HASH_BYTES
    )


def hash_password(password: str) -> PasswordHash:
    """Hash a new password with a fresh random salt.

    Raises:
        ValueError: the password is empty.
    """
    if not password:
        raise ValueError("password must not be empty")
    salt = secrets.token_bytes(SALT_BYTES)
    return PasswordHash(_scrypt(password, salt, SCRYPT_N, SCRYPT_R, SCRYPT_P), salt)


def check_password(password: str, stored: PasswordHash) -> bool:
    """Whether ``password`` matches, compared in constant time."""
    candidate = _scrypt(password, stored.salt, stored.n, stored.r, stored.p)
    return hmac.compare_digest(candidate, stored.digest)


def burn_time(password: str) -> None:
    """Spend the time of one check, for unknown usernames (no user enumeration by timing)."""
    _scrypt(password, b"\0" * SALT_BYTES, SCRYPT_N, SCRYPT_R, SCRYPT_P)


def lock_duration(failed_attempts: int) -> timedelta | None:
    """How long to lock after ``failed_attempts`` consecutive failures.

    None below ``MAX_FAILURES``; then 30 s, doubling with each further failure
    (30 s, 1 min, 2 min, ...), capped at one hour.
    """
    if failed_attempts < MAX_FAILURES:
        return None
    doublings = min(failed_attempts - MAX_FAILURES, 16)
    return min(BASE_LOCK * (1 << doublings), MAX_LOCK)
