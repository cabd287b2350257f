"""Therapist recovery code in the GUI: shown once, regenerated, "Mot de passe oublié ?"."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

pytest.importorskip("PySide6")

from therapist_fixtures import PASSWORD, SIGNAL_TIMEOUT_MS, USERNAME  # noqa: E402

from therapy_app.storage import AccountError, SessionRepository  # noqa: E402
from therapy_app.storage.account_store import WRONG_CODE  # noqa: E402

if TYPE_CHECKING:
    from therapy_app.gui.therapist import TherapistArea

pytestmark = pytest.mark.gui

NEW_PASSWORD = "nouveau-mot-2026"


def test_code_shown_once_at_creation_then_regenerated(
    qtbot, therapist_area: TherapistArea, therapist_repo: SessionRepository
) -> None:
    login = therapist_area.login
    login.username.setText(USERNAME)
    login.password.setText(PASSWORD)
    login.confirmation.setText(PASSWORD)
    with qtbot.waitSignal(login.authenticated, timeout=SIGNAL_TIMEOUT_MS):
        login.submit_button.click()
    box = therapist_area.code_box
    first = box.code.text()
    assert box.isVisible() and len(first) == 23
    box.noted_button.click()
    assert not box.isVisible() and box.code.text() == ""  # not kept on screen

    therapist_area.new_code_button.click()
    qtbot.waitUntil(box.isVisible, timeout=SIGNAL_TIMEOUT_MS)
    second = box.code.text()
    assert second != first
    with pytest.raises(AccountError):
        therapist_repo.accounts.reset_password(
            USERNAME, first, NEW_PASSWORD
        )  # the old code is dead
    therapist_area.lock()
    assert not box.isVisible() and box.code.text() == ""
    therapist_repo.accounts.reset_password(USERNAME, second, NEW_PASSWORD)
    assert therapist_repo.accounts.verify(USERNAME, NEW_PASSWORD)


def test_forgotten_password_reset_with_the_code(
    qtbot, therapist_area: TherapistArea, therapist_repo: SessionRepository
) -> None:
    code = therapist_repo.accounts.create(USERNAME, PASSWORD)
    with qtbot.waitSignal(therapist_area.login.mode_changed, timeout=SIGNAL_TIMEOUT_MS):
        therapist_area.login.refresh()
    login = therapist_area.login
    assert login.forgot_button.isVisible()
    login.username.setText(USERNAME)
    login.forgot_button.click()
    page = therapist_area.reset_page
    assert therapist_area.stack.currentWidget() is page
    assert page.username.text() == USERNAME

    page.code.setText("AAAAA-BBBBB-CCCCC-DDDDD")
    page.password.setText(NEW_PASSWORD)
    page.confirmation.setText(NEW_PASSWORD)
    with qtbot.waitSignal(
        page.message_shown,
        timeout=SIGNAL_TIMEOUT_MS,
        check_params_cb=lambda text: text != "Vérification…",
    ) as wrong:
        page.submit_button.click()
    assert wrong.args[0].startswith(WRONG_CODE)
    assert therapist_repo.accounts.verify(USERNAME, PASSWORD)

    page.code.setText(code.lower())
    page.password.setText(NEW_PASSWORD)
    page.confirmation.setText(NEW_PASSWORD)
    with qtbot.waitSignal(page.reset_done, timeout=SIGNAL_TIMEOUT_MS):
        page.submit_button.click()
    new_code = page.code_box.code.text()
    assert page.code_box.isVisible() and new_code and new_code != code
    with qtbot.waitSignal(login.mode_changed, timeout=SIGNAL_TIMEOUT_MS):
        page.code_box.noted_button.click()
    assert therapist_area.stack.currentWidget() is login

    login.username.setText(USERNAME)
    login.password.setText(NEW_PASSWORD)
    with qtbot.waitSignal(login.authenticated, timeout=SIGNAL_TIMEOUT_MS):
        login.submit_button.click()
    assert not therapist_repo.accounts.verify(USERNAME, PASSWORD)
