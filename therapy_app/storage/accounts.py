"""Therapist accounts in the database: creation, password check, failure count and lockout."""

from __future__ import annotations

import logging
import sqlite3
from datetime import datetime

from sqlite_utils import Database

from therapy_app.storage import passwords
from therapy_app.storage.database import transaction
from therapy_app.storage.errors import AccountError, AccountLockedError
from therapy_app.storage.queries import fetch_all
from therapy_app.storage.rows import from_db_time, to_db_time

_LOGGER = logging.getLogger(__name__)

MIN_PASSWORD_LENGTH = 8


def has_therapist(db: Database) -> bool:
    """Whether any therapist account exists (False on first run)."""
    return bool(fetch_all(db, "SELECT 1 FROM therapists LIMIT 1"))


def create_therapist(db: Database, username: str, password: str, now: datetime) -> None:
    """Insert an account with an scrypt hash of ``password``.

    Raises:
        AccountError: empty or taken username (case-insensitive), password
            shorter than ``MIN_PASSWORD_LENGTH``.
    """
    name = username.strip()
    if not name:
        raise AccountError("Le nom d'utilisateur est vide.", "Saisissez un nom.")
    if len(password) < MIN_PASSWORD_LENGTH:
        raise AccountError(
            "Le mot de passe est trop court.",
            f"Choisissez au moins {MIN_PASSWORD_LENGTH} caractères.",
        )
    hashed = passwords.hash_password(password)
    try:
        with transaction(db, "creating a therapist"):
            db.execute(
                "INSERT INTO therapists (username, password_hash, password_salt, scrypt_n,"
                " scrypt_r, scrypt_p, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (name, hashed.digest, hashed.salt, hashed.n, hashed.r, hashed.p, to_db_time(now)),
            )
    except sqlite3.IntegrityError as exc:
        raise AccountError(
            "Ce nom d'utilisateur existe déjà.", "Choisissez-en un autre.", str(exc)
        ) from exc


def verify_therapist(db: Database, username: str, password: str, now: datetime) -> bool:
    """Check a password, counting consecutive failures (see ``passwords.lock_duration``).

    Returns:
        True for the right password (the count is reset), False for a wrong
        one or an unknown username (which costs the same scrypt time).

    Raises:
        AccountLockedError: the account is locked (the password is not even
            checked), or this failure locked it.
    """
    found = fetch_all(db, "SELECT * FROM therapists WHERE username = ?", (username.strip(),))
    if not found:
        passwords.burn_time(password)
        return False
    row = found[0]
    locked_until = from_db_time(row["locked_until"])
    if locked_until is not None and now < locked_until:
        raise AccountLockedError(row["username"], locked_until)
    stored = passwords.PasswordHash(
        row["password_hash"],
        row["password_salt"],
        row["scrypt_n"],
        row["scrypt_r"],
        row["scrypt_p"],
    )
    if passwords.check_password(password, stored):
        with transaction(db, "resetting failures"):
            db.execute(
                "UPDATE therapists SET failed_attempts = 0, locked_until = NULL WHERE id = ?",
                (row["id"],),
            )
        return True
    with transaction(db, "counting a failure"):
        # Increment in SQL so that two windows failing at once both count.
        db.execute(
            "UPDATE therapists SET failed_attempts = failed_attempts + 1 WHERE id = ?",
            (row["id"],),
        )
        failures = fetch_all(
            db, "SELECT failed_attempts FROM therapists WHERE id = ?", (row["id"],)
        )[0][0]
        delay = passwords.lock_duration(failures)
        until = now + delay if delay is not None else None
        if until is not None:
            db.execute(
                "UPDATE therapists SET locked_until = ? WHERE id = ?",
                (to_db_time(until), row["id"]),
            )
    _LOGGER.warning("wrong password for therapist %r (%d in a row)", row["username"], failures)
    if until is not None:
        # Raised after the commit: the lock must be stored before we say so.
        raise AccountLockedError(row["username"], until)
    return False
