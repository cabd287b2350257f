"""Issue 11, item 9: no user enumeration by lockout, one account, scrypt cost raised on login."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest
from storage_fixtures import FakeClock

from therapy_app.storage import AccountError, AccountLockedError, SessionRepository, passwords

OLD_N = 2**14


def _lock_out(repo: SessionRepository, username: str) -> AccountLockedError:
    for _ in range(passwords.MAX_FAILURES - 1):
        assert repo.accounts.verify(username, "mauvais mot") is False
    with pytest.raises(AccountLockedError) as caught:
        repo.accounts.verify(username, "mauvais mot")
    return caught.value


def test_lockout_looks_the_same_for_an_unknown_username(repo: SessionRepository) -> None:
    repo.accounts.create("ortho", "bon mot de passe")
    known = _lock_out(repo, "ortho")
    unknown = _lock_out(repo, "personne")
    # Same message, same delay, same hint: the lockout tells nothing about who exists.
    assert known.user_message == unknown.user_message
    assert known.hint == unknown.hint
    assert known.locked_until == unknown.locked_until
    assert "ortho" not in known.french() and "personne" not in unknown.french()
    # Locking one name does not lock another.
    assert repo.accounts.verify("quelquun", "mauvais mot") is False


def test_lockout_is_per_typed_name_ignoring_case_and_spaces(
    repo: SessionRepository, clock: FakeClock
) -> None:
    repo.accounts.create("ortho", "bon mot de passe")
    _lock_out(repo, "  ORTHO ")
    with pytest.raises(AccountLockedError):
        repo.accounts.verify("ortho", "bon mot de passe")
    clock.advance(seconds=31)
    assert repo.accounts.verify("ortho", "bon mot de passe") is True


def test_no_second_account_after_first_run(repo: SessionRepository) -> None:
    repo.accounts.create("ortho", "bon mot de passe")
    for name in ("autre", "ORTHO"):
        with pytest.raises(AccountError) as caught:
            repo.accounts.create(name, "un autre mot de passe")
        assert "existe déjà" in caught.value.user_message
    count = sqlite3.connect(repo.db_path).execute("SELECT COUNT(*) FROM therapists").fetchone()
    assert count == (1,)


def test_two_first_run_windows_create_one_account(tmp_path: Path) -> None:
    repos = [SessionRepository(tmp_path) for _ in range(2)]
    barrier = threading.Barrier(2)
    outcomes: list[str] = []

    def create(repository: SessionRepository, name: str) -> None:
        barrier.wait()
        try:
            repository.accounts.create(name, "bon mot de passe")
            outcomes.append("created")
        except AccountError:
            outcomes.append("refused")

    threads = [threading.Thread(target=create, args=(r, f"ortho{i}")) for i, r in enumerate(repos)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    for repository in repos:
        repository.close()
    assert sorted(outcomes) == ["created", "refused"]


def _store_old_hash(repo: SessionRepository, password: str) -> None:
    """What an account made by the previous release holds: scrypt N = 2**14."""
    salt = b"0123456789abcdef"
    digest = passwords._scrypt(password, salt, OLD_N, 8, 1)  # noqa: SLF001 - the old format
    conn = sqlite3.connect(repo.db_path)
    with conn:
        conn.execute(
            "UPDATE therapists SET password_hash = ?, password_salt = ?, scrypt_n = ?",
            (digest, salt, OLD_N),
        )
    conn.close()


def _stored_n(repo: SessionRepository) -> int:
    conn = sqlite3.connect(repo.db_path)
    try:
        return conn.execute("SELECT scrypt_n FROM therapists").fetchone()[0]
    finally:
        conn.close()


def test_old_scrypt_hash_is_upgraded_on_the_next_login(repo: SessionRepository) -> None:
    assert passwords.SCRYPT_N == 2**17  # OWASP's current minimum
    repo.accounts.create("ortho", "bon mot de passe")
    assert _stored_n(repo) == 2**17
    _store_old_hash(repo, "bon mot de passe")
    assert repo.accounts.verify("ortho", "mauvais mot") is False
    assert _stored_n(repo) == OLD_N  # a wrong password changes nothing
    assert repo.accounts.verify("ortho", "bon mot de passe") is True
    assert _stored_n(repo) == 2**17
    assert repo.accounts.verify("ortho", "bon mot de passe") is True
    assert repo.accounts.verify("ortho", "mauvais mot") is False
