"""What a therapist panel says when a background job fails: the app's French, else a logged bug."""

from __future__ import annotations

import errno
import logging

import pytest

pytest.importorskip("PySide6")

from therapy_app.errors import TherapyAppError  # noqa: E402
from therapy_app.gui.therapist.failures import (  # noqa: E402
    TRY_AGAIN,
    UNEXPECTED,
    error_text,
    therapist_text,
)
from therapy_app.storage.phrase_store import PhraseError  # noqa: E402

FULL = OSError(errno.ENOSPC, "No space left on device")


def test_an_error_of_the_app_says_its_own_french_and_is_not_logged_as_a_bug(
    caplog: pytest.LogCaptureFixture,
) -> None:
    locked = TherapyAppError("La base est occupée.", "Réessayez.", "database is locked")
    with caplog.at_level(logging.ERROR):
        assert error_text(locked, UNEXPECTED, "history query") == "La base est occupée. Réessayez."
    assert caplog.records == []


def test_anything_else_is_a_bug_logged_with_its_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.ERROR):
        assert error_text(KeyError("attempt"), "Lecture impossible.", "history query") == (
            "Lecture impossible."
        )
    (record,) = caplog.records
    assert record.getMessage() == "history query failed" and record.exc_info is not None


def test_a_file_error_is_the_systems_only_where_the_job_writes_a_file() -> None:
    assert error_text(FULL, UNEXPECTED, "export", writes_file=True) == (
        "Impossible d'écrire le fichier : No space left on device."
    )
    assert error_text(FULL, UNEXPECTED, "history query") == UNEXPECTED


def test_refused_input_is_said_unless_the_error_has_its_own_french() -> None:
    refused = "Ce texte ne peut pas être ajouté."
    assert error_text(ValueError("empty"), UNEXPECTED, "custom list", refused=refused) == refused
    assert error_text(ValueError("empty"), UNEXPECTED, "custom list") == UNEXPECTED
    # The app's own refusals are ValueErrors too: their French is more precise.
    own = PhraseError("Cette phrase est vide.", "", "empty phrase")
    assert error_text(own, UNEXPECTED, "phrase book", refused=refused) == "Cette phrase est vide."


def test_an_already_logged_failure_never_tells_the_therapist_to_warn_their_therapist() -> None:
    # The patient screens' generic text ("prévenez votre thérapeute") is wrong here.
    text = therapist_text(RuntimeError("boom"))
    assert text == TRY_AGAIN
    assert "thérapeute" not in text
    locked = TherapyAppError("La base est occupée.", "Réessayez.", "database is locked")
    assert therapist_text(locked) == "La base est occupée. Réessayez."
