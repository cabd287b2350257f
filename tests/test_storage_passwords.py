"""Therapist accounts: scrypt hashing, constant-time check, lockout, first-run detection."""

from __future__ import annotations

import sqlite3
from datetime import timedelta

import pytest
from storage_fixtures import FakeClock

from therapy_app.storage import AccountError, AccountLockedError, SessionRepository, passwords


def test_hash_uses_memory_hard_scrypt_with_a_random_salt() -> None:
    first, second = passwords.hash_password("motdepasse"), passwords.hash_password("motdepasse")
    assert (first.n, first.r, first.p) == (2**17, 8, 1)
    assert len(first.salt) == 16 and len(first.digest) == 32
    assert first.salt != second.salt and first.digest != second.digest
    assert passwords.check_password("motdepasse", first)
    assert not passwords.check_password("motdepassE", first)
    # NFC and NFD spellings of "é" are the same password.
    accented = passwords.hash_password("caf\u00e9-cr\u00e8me")
    assert passwords.check_password("cafe\u0301-cre\u0300me", accented)


def test_check_compares_in_constant_time(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    real = passwords.hmac.compare_digest

    def spy(a: bytes, b: bytes) -> bool:
        calls.append((a, b))
        return real(a, b)

    monkeypatch.setattr(passwords.hmac, "compare_digest", spy)
    passwords.check_password("x" * 8, passwords.hash_password("y" * 8))
    assert len(calls) == 1


def test_lock_duration_grows_and_is_capped() -> None:
    assert [passwords.lock_duration(n) for n in range(5)] == [None] * 5
    assert passwords.lock_duration(5) == timedelta(seconds=30)
    assert passwords.lock_duration(6) == timedelta(seconds=60)
    assert passwords.lock_duration(7) == timedelta(seconds=120)
    assert passwords.lock_duration(100) == timedelta(hours=1)


def test_first_run_and_account_creation(repo: SessionRepository) -> None:
    assert not repo.accounts.exists()
    repo.accounts.create("orthophoniste", "correct horse")
    assert repo.accounts.exists()
    stored = (
        sqlite3.connect(repo.db_path)
        .execute("SELECT password_hash, password_salt, scrypt_n FROM therapists")
        .fetchone()
    )
    assert b"correct horse" not in stored[0] and stored[2] == 2**17
    assert repo.accounts.verify("orthophoniste", "correct horse")
    assert repo.accounts.verify("ORTHOPHONISTE", "correct horse")  # usernames ignore case
    with pytest.raises(AccountError) as caught:
        repo.accounts.create("Orthophoniste", "another pass")
    assert "existe déjà" in caught.value.user_message
    with pytest.raises(AccountError):
        repo.accounts.create("court", "1234567")
    with pytest.raises(AccountError):
        repo.accounts.create("  ", "long enough")
    assert not repo.accounts.verify("inconnu", "correct horse")


def test_lockout_after_five_failures_with_increasing_delay(
    repo: SessionRepository,
    clock: FakeClock,
) -> None:
    repo.accounts.create("ortho", "bon mot de passe")
    for _ in range(4):
        assert repo.accounts.verify("ortho", "mauvais") is False
    with pytest.raises(AccountLockedError) as caught:
        repo.accounts.verify("ortho", "mauvais")  # 5th failure locks
    assert caught.value.locked_until == clock.now + timedelta(seconds=30)
    assert "bloqué" in caught.value.user_message
    # While locked even the right password is refused, without counting.
    clock.advance(seconds=29)
    with pytest.raises(AccountLockedError):
        repo.accounts.verify("ortho", "bon mot de passe")
    # After the delay one more failure locks again, for twice as long.
    clock.advance(seconds=2)
    with pytest.raises(AccountLockedError) as caught:
        repo.accounts.verify("ortho", "mauvais")
    assert caught.value.locked_until == clock.now + timedelta(seconds=60)
    clock.advance(seconds=61)
    assert repo.accounts.verify("ortho", "bon mot de passe") is True
    # Success resets the count: four more failures do not lock.
    for _ in range(4):
        assert repo.accounts.verify("ortho", "mauvais") is False
    assert repo.accounts.verify("ortho", "bon mot de passe") is True


def test_lock_survives_reopening(tmp_path, clock: FakeClock) -> None:
    with SessionRepository(tmp_path, clock=clock) as first:
        first.accounts.create("ortho", "bon mot de passe")
        for _ in range(4):
            first.accounts.verify("ortho", "mauvais")
        with pytest.raises(AccountLockedError):
            first.accounts.verify("ortho", "mauvais")
    with SessionRepository(tmp_path, clock=clock) as second:
        with pytest.raises(AccountLockedError):
            second.accounts.verify("ortho", "bon mot de passe")
