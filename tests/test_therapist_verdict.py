"""Issue 10 in the therapist area: the verdict follows a correction and can be overridden."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

pytest.importorskip("PySide6")

from therapist_fixtures import SIGNAL_TIMEOUT_MS, USERNAME  # noqa: E402

from therapy_app.storage import SessionRepository  # noqa: E402

if TYPE_CHECKING:
    from therapy_app.gui.therapist import TherapistArea

pytestmark = pytest.mark.gui


def test_correction_recomputes_and_override_decides_the_verdict(
    qtbot, unlocked_area: TherapistArea, therapist_repo: SessionRepository, short_attempt: int
) -> None:
    attempt_id = short_attempt
    detail = unlocked_area.detail
    assert therapist_repo.attempts.get(attempt_id).success is False
    assert "échoué (calcul automatique)" in detail.verdict.state.text()
    assert not detail.verdict.automatic_button.isEnabled()

    detail.transcript_editor.edit.setText("Le chat dort sur le canapé.")
    with qtbot.waitSignal(detail.transcript_saved, timeout=SIGNAL_TIMEOUT_MS):
        detail.transcript_editor.save_button.click()
    assert therapist_repo.attempts.get(attempt_id).success is True
    assert "réussi (calcul automatique)" in detail.verdict.state.text()
    assert "recalculé après une correction : échoué → réussi" in detail.verdict.history.text()

    with qtbot.waitSignal(detail.verdict_saved, timeout=SIGNAL_TIMEOUT_MS):
        detail.verdict.failure_button.click()
    stored = therapist_repo.attempts.get(attempt_id)
    assert (stored.success, stored.verdict_override, stored.computed_success) == (
        False,
        False,
        True,
    )
    assert "décidé par le thérapeute" in detail.verdict.state.text()
    assert USERNAME in detail.verdict.history.text()
    assert not detail.verdict.failure_button.isEnabled()
    assert detail.verdict.automatic_button.isEnabled()
    assert detail.status.text() == "Verdict enregistré."

    with qtbot.waitSignal(detail.verdict_saved, timeout=SIGNAL_TIMEOUT_MS):
        detail.verdict.automatic_button.click()
    assert therapist_repo.attempts.get(attempt_id).success is True
    causes = [c.cause for c in therapist_repo.attempts.verdict_changes(attempt_id)]
    assert causes == ["transcript_edit", "override", "override_removed"]
