"""Therapist accounts: creation, password check, failure count and lockout, recovery codes."""

from __future__ import annotations

import logging
from datetime import datetime

from sqlite_utils import Database

from therapy_app.storage import passwords, recovery_codes
from therapy_app.storage.database import fetch_all, transaction
from therapy_app.storage.errors import AccountError, AccountLockedError
from therapy_app.storage.row_codec import from_db_time, to_db_time
from therapy_app.storage.store_base import Store

_LOGGER = logging.getLogger(__name__)

MIN_PASSWORD_LENGTH = 8
WRONG_CODE = "Nom d'utilisateur ou code de secours incorrect."


def has_therapist(db: Database) -> bool:
    """Whether any therapist account exists (False on first run)."""
    return bool(fetch_all(db, "SELECT 1 FROM therapists LIMIT 1"))


def create_therapist(db: Database, username: str, password: str, now: datetime) -> str:
    """Insert the therapist account with an scrypt hash of ``password`` and a recovery code.

    There is one account, created on first run: afterwards nobody can add a
    second one through the API (an unauthenticated screen could otherwise
    make itself an account and read every patient). The
    check and the insert share one write transaction, so two first-run
    windows cannot both create one.

    Returns:
        The recovery code, to show once (only its hash is stored; see ``recovery_codes``).

    Raises:
        AccountError: an account exists already, the username is empty, the
            password is shorter than ``MIN_PASSWORD_LENGTH``.
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
    with transaction(db, "creating a therapist"):
        if has_therapist(db):
            raise AccountError(
                "Le compte thérapeute existe déjà.",
                "Connectez-vous avec ce compte.",
                "refused a second therapist account after first run",
            )
        db.execute(
            "INSERT INTO therapists (username, password_hash, password_salt, scrypt_n,"
            " scrypt_r, scrypt_p, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (name, hashed.digest, hashed.salt, hashed.n, hashed.r, hashed.p, to_db_time(now)),
        )
        therapist_id = fetch_all(db, "SELECT id FROM therapists WHERE username = ?", (name,))
        return recovery_codes.store_new_code(db, therapist_id[0]["id"])


def _throttle(db: Database, username: str) -> tuple[int, datetime | None]:
    found = fetch_all(
        db,
        "SELECT failed_attempts, locked_until FROM login_throttle WHERE username = ?",
        (username,),
    )
    if not found:
        return 0, None
    try:
        until = from_db_time(found[0]["locked_until"])
    except ValueError:
        until = None
    return int(found[0]["failed_attempts"]), until


def count_failure(db: Database, username: str, now: datetime) -> datetime | None:
    """Add one failure for ``username`` (existing or not); returns the lock end if it locks."""
    with transaction(db, "counting a failure"):
        # Increment in SQL so that two windows failing at once both count.
        db.execute(
            "INSERT INTO login_throttle (username, failed_attempts) VALUES (?, 1)"
            " ON CONFLICT(username) DO UPDATE SET failed_attempts = failed_attempts + 1",
            (username,),
        )
        failures = _throttle(db, username)[0]
        delay = passwords.lock_duration(failures)
        until = now + delay if delay is not None else None
        if until is not None:
            db.execute(
                "UPDATE login_throttle SET locked_until = ? WHERE username = ?",
                (to_db_time(until), username),
            )
    _LOGGER.warning("wrong therapist credentials (%d in a row for that name)", failures)
    return until


def check_not_locked(db: Database, username: str, now: datetime) -> None:
    """Raises AccountLockedError while ``username`` is locked out."""
    _, locked_until = _throttle(db, username)
    if locked_until is not None and now < locked_until:
        raise AccountLockedError(username, locked_until)


def verify_therapist(
    db: Database, username: str, password: str, now: datetime, *, read_only: bool = False
) -> bool:
    """Check a password, counting consecutive failures (see ``passwords.lock_duration``).

    Failures are counted per typed username whether or not the account
    exists, and an unknown username costs the same scrypt time: neither the
    lockout nor the timing tells which usernames exist. A
    hash made with a lower scrypt cost than :data:`passwords.SCRYPT_N` is
    replaced on the first successful login.

    Args:
        db: the database.
        username: as typed (case and surrounding spaces ignored).
        password: as typed.
        now: the current aware time.
        read_only: the database cannot be written (read-only mode): the
            password is checked but nothing is counted or upgraded.

    Returns:
        True for the right password (the count is reset), False otherwise.

    Raises:
        AccountLockedError: this username is locked (the password is not even
            checked), or this failure locked it.
    """
    name = username.strip()
    check_not_locked(db, name, now)
    found = fetch_all(db, "SELECT * FROM therapists WHERE username = ?", (name,))
    if found:
        row = found[0]
        stored = passwords.PasswordHash(
            row["password_hash"],
            row["password_salt"],
            row["scrypt_n"],
            row["scrypt_r"],
            row["scrypt_p"],
        )
        right = passwords.check_password(password, stored)
        if stored.n < passwords.SCRYPT_N and not right:
            # An old, cheaper hash answers faster than an unknown name would.
            passwords.burn_time(password)
    else:
        passwords.burn_time(password)
        right = False
    if read_only:
        return right
    if right:
        with transaction(db, "resetting failures"):
            db.execute("DELETE FROM login_throttle WHERE username = ?", (name,))
            if stored.n < passwords.SCRYPT_N:
                _upgrade_hash(db, row["id"], password)
        return True
    until = count_failure(db, name, now)
    if until is not None:
        # Raised after the commit: the lock must be stored before we say so.
        raise AccountLockedError(name, until)
    return False


def _upgrade_hash(db: Database, therapist_id: int, password: str) -> None:
    """Re-hash with today's scrypt cost; the caller holds the transaction."""
    hashed = passwords.hash_password(password)
    db.execute(
        "UPDATE therapists SET password_hash = ?, password_salt = ?, scrypt_n = ?,"
        " scrypt_r = ?, scrypt_p = ? WHERE id = ?",
        (hashed.digest, hashed.salt, hashed.n, hashed.r, hashed.p, therapist_id),
    )
    _LOGGER.info("therapist password hash upgraded to scrypt n=%d", hashed.n)


def reset_password(db: Database, username: str, code: str, new_password: str, now: datetime) -> str:
    """Set a new password with the recovery code; the used code is replaced by a new one.

    Args:
        db: the database.
        username: as typed.
        code: the recovery code as typed (case, spaces and dashes ignored).
        new_password: at least ``MIN_PASSWORD_LENGTH`` characters.
        now: the current aware time (throttle).

    Returns:
        The new recovery code, to show once.

    Raises:
        AccountError: password too short, or wrong username or code (French
            message that does not say which).
        AccountLockedError: too many wrong passwords or codes for this username.
    """
    name = username.strip()
    if len(new_password) < MIN_PASSWORD_LENGTH:
        raise AccountError(
            "Le nouveau mot de passe est trop court.",
            f"Choisissez au moins {MIN_PASSWORD_LENGTH} caractères.",
        )
    check_not_locked(db, name, now)
    found = fetch_all(db, "SELECT * FROM therapists WHERE username = ?", (name,))
    typed = recovery_codes.normalise(code)
    right = False
    if found and found[0]["recovery_hash"] is not None and typed:
        row = found[0]
        stored = passwords.PasswordHash(
            row["recovery_hash"],
            row["recovery_salt"],
            row["recovery_n"],
            passwords.SCRYPT_R,
            passwords.SCRYPT_P,
        )
        right = passwords.check_password(typed, stored)
    else:
        # Same time as a real check: the answer must not tell which names exist.
        passwords.burn_time(typed or "-")
    if not right:
        until = count_failure(db, name, now)
        if until is not None:
            raise AccountLockedError(name, until)
        raise AccountError(WRONG_CODE, "Vérifiez le code, en majuscules ou non.", "wrong code")
    hashed = passwords.hash_password(new_password)
    with transaction(db, "resetting a password"):
        db.execute(
            "UPDATE therapists SET password_hash = ?, password_salt = ?, scrypt_n = ?,"
            " scrypt_r = ?, scrypt_p = ? WHERE id = ?",
            (hashed.digest, hashed.salt, hashed.n, hashed.r, hashed.p, found[0]["id"]),
        )
        db.execute("DELETE FROM login_throttle WHERE username = ?", (name,))
        new = recovery_codes.store_new_code(db, found[0]["id"])
    _LOGGER.info("therapist password reset with the recovery code")
    return new


class AccountStore(Store):
    """The therapist account: first-run creation, login with lockout, recovery code."""

    def exists(self) -> bool:
        """False on first run: the GUI then asks to create the therapist account."""
        with self._repository.connection("checking accounts") as db:
            return has_therapist(db)

    def create(self, username: str, password: str) -> str:
        """Create the therapist account (first run only) with an scrypt-hashed password.

        Returns:
            The recovery code, to show once (only its hash is stored).

        Raises:
            AccountError: an account exists already, empty username, password
                shorter than 8 characters.
        """
        self._repository.require_writable("creating a therapist")
        with self._repository.connection("creating a therapist") as db:
            return create_therapist(db, username, password, self._repository.now())

    def regenerate_recovery_code(self, username: str) -> str:
        """A new recovery code for the logged-in therapist; the old one stops working.

        Raises:
            AccountError: no such account.
        """
        self._repository.require_writable("making a recovery code")
        with self._repository.connection("making a recovery code") as db:
            return recovery_codes.regenerate(db, username)

    def reset_password(self, username: str, code: str, new_password: str) -> str:
        """Set a new password with the recovery code (throttled like the login).

        Returns:
            The new recovery code (the used one stops working), to show once.

        Raises:
            AccountError: wrong username or code (French message), short password.
            AccountLockedError: too many wrong tries for this username.
        """
        self._repository.require_writable("resetting a password")
        with self._repository.connection("resetting a password") as db:
            return reset_password(db, username, code, new_password, self._repository.now())

    def verify(self, username: str, password: str) -> bool:
        """Check a password; count failures and lock the account after too many.

        Returns:
            True for the right password (the failure count is reset), False for a
            wrong one or an unknown username.

        Raises:
            AccountLockedError: the account is locked, or this failure locked it.
        """
        with self._repository.connection("verifying a therapist") as db:
            return verify_therapist(
                db, username, password, self._repository.now(), read_only=self._repository.read_only
            )
