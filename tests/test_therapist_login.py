"""Therapist area door: first-run account, password, lockout countdown, nothing shown before."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

pytest.importorskip("PySide6")

from therapist_fixtures import (  # noqa: E402
    PASSWORD,
    SIGNAL_TIMEOUT_MS,
    USERNAME,
    log_in,
)

from therapy_app.gui.therapist.login import lock_message, validate_new_account  # noqa: E402
from therapy_app.storage import AccountLockedError, SessionRepository  # noqa: E402

if TYPE_CHECKING:
    from storage_fixtures import FakeClock

    from therapy_app.gui.therapist import TherapistArea

pytestmark = pytest.mark.gui


def _submit_and_wait_message(qtbot, area: TherapistArea, password: str) -> str:
    """Submit ``password`` and return the verdict message (after "Vérification…")."""
    area.login.username.setText(USERNAME)
    area.login.password.setText(password)
    messages: list[str] = []
    area.login.message_shown.connect(messages.append)
    try:
        with qtbot.waitSignal(
            area.login.message_shown,
            timeout=SIGNAL_TIMEOUT_MS,
            check_params_cb=lambda text: text != "Vérification…",
        ):
            area.login.submit_button.click()
    finally:
        area.login.message_shown.disconnect(messages.append)
    return messages[-1]


def test_first_run_creates_the_account(
    qtbot, therapist_area: TherapistArea, therapist_repo: SessionRepository
) -> None:
    login = therapist_area.login
    assert login.creating and login.confirmation.isVisible()
    assert login.submit_button.text() == "Créer le compte"

    login.username.setText("")
    login.password.setText("longenough")
    login.confirmation.setText("longenough")
    login.submit_button.click()
    assert login.message.text() == "Saisissez un nom d'utilisateur."

    login.username.setText(USERNAME)
    login.password.setText("court")
    login.confirmation.setText("court")
    login.submit_button.click()
    assert "au moins 8 caractères" in login.message.text()

    login.password.setText(PASSWORD)
    login.confirmation.setText(PASSWORD + "x")
    login.submit_button.click()
    assert login.message.text() == "Les deux mots de passe ne sont pas identiques."
    assert not therapist_repo.accounts.exists()

    login.confirmation.setText(PASSWORD)
    with qtbot.waitSignal(login.authenticated, timeout=SIGNAL_TIMEOUT_MS) as blocker:
        login.submit_button.click()
    assert blocker.args == [USERNAME]
    assert therapist_area.is_unlocked and therapist_area.username == USERNAME
    assert therapist_repo.accounts.exists()
    assert therapist_repo.accounts.verify(USERNAME, PASSWORD)
    # The password fields do not keep the secret once used.
    assert login.password.text() == "" and login.confirmation.text() == ""


def test_login_success_shows_the_patients(
    qtbot, seeded_history, therapist_area: TherapistArea
) -> None:
    assert not therapist_area.login.creating
    assert not therapist_area.login.confirmation.isVisible()
    log_in(qtbot, therapist_area)
    assert therapist_area.is_unlocked
    assert therapist_area.stack.currentIndex() == 1
    assert therapist_area.patient_names() == ["Jeanne Dupont", "Paul Martin"]
    assert therapist_area.current_patient == seeded_history.patient
    assert "claire" in therapist_area.user_label.text()


def test_wrong_password_shows_a_message_and_nothing_else(
    qtbot, seeded_history, therapist_area: TherapistArea
) -> None:
    message = _submit_and_wait_message(qtbot, therapist_area, "pas-le-bon")
    assert message == "Nom d'utilisateur ou mot de passe incorrect."
    assert therapist_area.login.message.text() == message
    assert not therapist_area.is_unlocked
    assert therapist_area.stack.currentIndex() == 0
    assert therapist_area.patient_names() == []
    assert therapist_area.history.sessions.rowCount() == 0
    assert not therapist_area.tabs.isEnabled()


def test_lockout_after_five_failures_with_countdown(
    qtbot,
    seeded_history,
    therapist_area: TherapistArea,
    therapist_repo: SessionRepository,
    therapist_clock: FakeClock,
) -> None:
    login = therapist_area.login
    login.clock = therapist_clock  # the countdown and the lock use the same time
    for _ in range(4):
        assert "incorrect" in _submit_and_wait_message(qtbot, therapist_area, "pas-le-bon")
    message = _submit_and_wait_message(qtbot, therapist_area, "pas-le-bon")
    assert message == lock_message(30)
    assert "Réessayez dans 30 s" in login.message.text()
    assert not login.submit_button.isEnabled()
    # Even the right password is refused while locked, by storage itself.
    with pytest.raises(AccountLockedError):
        therapist_repo.accounts.verify(USERNAME, PASSWORD)

    therapist_clock.advance(seconds=12)
    with qtbot.waitSignal(login.message_shown, timeout=SIGNAL_TIMEOUT_MS) as blocker:
        pass  # the countdown ticks every second
    assert blocker.args == [lock_message(18)]

    therapist_clock.advance(seconds=19)
    with qtbot.waitSignal(login.message_shown, timeout=SIGNAL_TIMEOUT_MS) as blocker:
        pass
    assert blocker.args == ["Vous pouvez réessayer."]
    assert login.submit_button.isEnabled()
    log_in(qtbot, therapist_area)
    assert therapist_area.is_unlocked


def test_lock_clears_everything_and_back_closes(qtbot, unlocked_area: TherapistArea) -> None:
    assert unlocked_area.history.sessions.rowCount() == 3
    with qtbot.waitSignal(unlocked_area.closed, timeout=SIGNAL_TIMEOUT_MS):
        unlocked_area.lock_button.click()
    assert not unlocked_area.is_unlocked
    assert unlocked_area.stack.currentIndex() == 0
    assert unlocked_area.patient_names() == []
    assert unlocked_area.history.sessions.rowCount() == 0
    assert unlocked_area.history.attempts.rowCount() == 0
    assert unlocked_area.detail.attempt is None
    assert all(not points for points in unlocked_area.progress.series.values())
    with qtbot.waitSignal(unlocked_area.closed, timeout=SIGNAL_TIMEOUT_MS):
        unlocked_area.login.back_button.click()


def test_idle_timeout_locks(qtbot, unlocked_area: TherapistArea) -> None:
    with qtbot.waitSignal(unlocked_area.closed, timeout=SIGNAL_TIMEOUT_MS):
        unlocked_area.idle_lock_ms = 50  # the real value is ten minutes
    assert not unlocked_area.is_unlocked
    assert unlocked_area.patient_names() == []


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (("", "12345678", "12345678"), "Saisissez un nom d'utilisateur."),
        (("a", "1234567", "1234567"), "Le mot de passe doit contenir au moins 8 caractères."),
        (("a", "12345678", "12345679"), "Les deux mots de passe ne sont pas identiques."),
        (("a", "12345678", "12345678"), None),
    ],
)
def test_validation_messages(args: tuple[str, str, str], expected: str | None) -> None:
    assert validate_new_account(*args) == expected


def test_lock_message_formats_the_wait() -> None:
    assert lock_message(5).endswith("Réessayez dans 5 s.")
    assert lock_message(65).endswith("Réessayez dans 1 min 05 s.")


def test_area_deleted_with_a_job_in_flight(
    qtbot, therapist_repo: SessionRepository, therapist_runner
) -> None:
    from therapy_app.gui.therapist import TherapistArea

    area = TherapistArea(therapist_repo, therapist_runner)  # asks storage at once
    assert therapist_runner.busy
    with qtbot.waitSignal(
        therapist_runner.busy_changed, timeout=SIGNAL_TIMEOUT_MS, check_params_cb=lambda b: not b
    ):
        area.deleteLater()
    # The dropped result arrives before this later job's, and must not reach the dead widget
    # (pytest-qt fails the test on an exception raised in a Qt callback).
    done: list[int] = []
    with qtbot.waitSignal(therapist_runner.finished, timeout=SIGNAL_TIMEOUT_MS):
        therapist_runner.submit(lambda: 1, on_done=done.append, pool="db")
    assert done == [1]


def test_hiding_the_area_locks_it(qtbot, unlocked_area: TherapistArea) -> None:
    unlocked_area.hide()  # the shell shows another screen
    assert not unlocked_area.is_unlocked
    assert unlocked_area.patient_names() == []
    with qtbot.waitSignal(unlocked_area.login.mode_changed, timeout=SIGNAL_TIMEOUT_MS) as b:
        unlocked_area.show()  # back: the login page asks storage again
    assert b.args == [False]
    assert unlocked_area.stack.currentWidget() is unlocked_area.login
