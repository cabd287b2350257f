"""The therapist recovery code: reset, wrong code, regeneration, throttle, no clear text."""

from __future__ import annotations

import sqlite3

import pytest
from storage_fixtures import FakeClock

from therapy_app.storage import AccountError, AccountLockedError, SessionRepository
from therapy_app.storage.account_store import WRONG_CODE
from therapy_app.storage.passwords import MAX_FAILURES
from therapy_app.storage.recovery_codes import ALPHABET, normalise

PASSWORD = "ancien-mot-de-passe"
NEW_PASSWORD = "nouveau-mot-de-passe"


def test_reset_with_the_right_code_changes_the_password(repo: SessionRepository) -> None:
    code = repo.accounts.create("claire", PASSWORD)
    assert len(normalise(code)) == 20 and set(normalise(code)) <= set(ALPHABET)
    # Typed by hand: lower case, spaces instead of dashes, O for 0.
    typed = code.lower().replace("-", " ").replace("0", "o")
    new_code = repo.accounts.reset_password("Claire", typed, NEW_PASSWORD)
    assert repo.accounts.verify("claire", NEW_PASSWORD)
    assert not repo.accounts.verify("claire", PASSWORD)
    # The used code is spent: only the new one works now.
    assert new_code != code
    with pytest.raises(AccountError):
        repo.accounts.reset_password("claire", code, "encore-un-autre")
    repo.accounts.reset_password("claire", new_code, "encore-un-autre")
    assert repo.accounts.verify("claire", "encore-un-autre")


def test_wrong_code_fails_in_french_and_keeps_the_password(repo: SessionRepository) -> None:
    code = repo.accounts.create("claire", PASSWORD)
    wrong = ("1" if code[0] != "1" else "2") + code[1:]
    with pytest.raises(AccountError) as caught:
        repo.accounts.reset_password("claire", wrong, NEW_PASSWORD)
    assert caught.value.french().startswith(WRONG_CODE)
    # An unknown name gets the very same answer (no hint which names exist).
    with pytest.raises(AccountError) as unknown:
        repo.accounts.reset_password("personne", code, NEW_PASSWORD)
    assert unknown.value.french() == caught.value.french()
    assert repo.accounts.verify("claire", PASSWORD)
    assert not repo.accounts.verify("claire", NEW_PASSWORD)


def test_regenerating_invalidates_the_old_code(repo: SessionRepository) -> None:
    old = repo.accounts.create("claire", PASSWORD)
    new = repo.accounts.regenerate_recovery_code("claire")
    assert new != old
    with pytest.raises(AccountError):
        repo.accounts.reset_password("claire", old, NEW_PASSWORD)
    repo.accounts.reset_password("claire", new, NEW_PASSWORD)
    assert repo.accounts.verify("claire", NEW_PASSWORD)


def test_wrong_codes_share_the_login_throttle(repo: SessionRepository, clock: FakeClock) -> None:
    code = repo.accounts.create("claire", PASSWORD)
    for _ in range(MAX_FAILURES - 1):
        assert not repo.accounts.verify("claire", "mauvais-mot")
    # The fifth failure, by the recovery door, locks the account like a fifth password.
    with pytest.raises(AccountLockedError):
        repo.accounts.reset_password("claire", "AAAAA-AAAAA-AAAAA-AAAAA", NEW_PASSWORD)
    # Locked: even the right code is not checked, and the login is locked too.
    with pytest.raises(AccountLockedError):
        repo.accounts.reset_password("claire", code, NEW_PASSWORD)
    with pytest.raises(AccountLockedError):
        repo.accounts.verify("claire", PASSWORD)
    clock.advance(minutes=2)
    repo.accounts.reset_password("claire", code, NEW_PASSWORD)
    assert repo.accounts.verify("claire", NEW_PASSWORD)


def test_short_new_password_is_refused(repo: SessionRepository) -> None:
    code = repo.accounts.create("claire", PASSWORD)
    with pytest.raises(AccountError, match="trop court"):
        repo.accounts.reset_password("claire", code, "court")
    assert repo.accounts.verify("claire", PASSWORD)


def test_only_a_hash_of_the_code_is_stored(repo: SessionRepository) -> None:
    code = repo.accounts.create("claire", PASSWORD)
    repo.close()  # checkpoints the WAL into the file
    raw = repo.db_path.read_bytes()
    with sqlite3.connect(repo.db_path) as db:
        digest, salt = db.execute("SELECT recovery_hash, recovery_salt FROM therapists").fetchone()
    assert len(digest) == 32 and len(salt) == 16 and digest in raw
    for form in (code, normalise(code), code.lower()):
        assert form.encode() not in raw
