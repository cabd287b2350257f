"""The therapist's recovery code: made once, stored only as an scrypt hash, sets a new password.

Nothing in the database is encrypted with a key derived from the password
(the password only guards the therapist area; backups have their own
passphrase, ``backup_crypto``), so there is no key to re-wrap: the code's
hash only proves who may choose a new password. Without the code nothing can
be recovered. ``account_store.reset_password`` checks a code: wrong codes count in
the same per-username throttle as wrong passwords, so guessing is no faster
by this door.
"""

from __future__ import annotations

import logging
import secrets
import unicodedata

from sqlite_utils import Database

from therapy_app.storage import passwords
from therapy_app.storage.database import fetch_all, transaction
from therapy_app.storage.errors import AccountError

_LOGGER = logging.getLogger(__name__)

ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
"""Crockford's base 32: no I, L, O or U, which read like 1, 1, 0 and V."""
GROUPS, GROUP_LENGTH = 4, 5
"""20 symbols of 5 bits: 100 random bits, grouped for copying by hand."""
_LOOK_ALIKES = str.maketrans({"O": "0", "I": "1", "L": "1", "U": "V"})


def new_code() -> str:
    """A fresh random code, "7K3QD-…" (four groups of five)."""
    symbols = "".join(secrets.choice(ALPHABET) for _ in range(GROUPS * GROUP_LENGTH))
    return "-".join(symbols[i : i + GROUP_LENGTH] for i in range(0, len(symbols), GROUP_LENGTH))


def normalise(code: str) -> str:
    """The code as hashed: capitals, no spaces or dashes, look-alike letters read as digits."""
    text = unicodedata.normalize("NFKC", code).upper().translate(_LOOK_ALIKES)
    return "".join(ch for ch in text if ch.isalnum())


def store_new_code(db: Database, therapist_id: int) -> str:
    """Replace the account's code hash with a new code's; the caller holds the transaction.

    Returns:
        The code, to show once: it is not stored.
    """
    code = new_code()
    hashed = passwords.hash_password(normalise(code))
    db.execute(
        "UPDATE therapists SET recovery_hash = ?, recovery_salt = ?, recovery_n = ? WHERE id = ?",
        (hashed.digest, hashed.salt, hashed.n, therapist_id),
    )
    return code


def regenerate(db: Database, username: str) -> str:
    """A new code for the (logged-in) therapist; the old one stops working at once.

    Raises:
        AccountError: no such account.
    """
    with transaction(db, "making a recovery code"):
        found = fetch_all(db, "SELECT id FROM therapists WHERE username = ?", (username.strip(),))
        if not found:
            raise AccountError("Ce compte n'existe pas.", "", "no account to regenerate a code")
        code = store_new_code(db, found[0]["id"])
    _LOGGER.info("therapist recovery code regenerated")
    return code
