"""Names and transcripts typed by anyone are shown as plain text, never as Qt rich text."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtWidgets import QLabel, QWidget  # noqa: E402
from therapist_fixtures import add_patient_with_attempt, log_in, open_attempt  # noqa: E402

from therapy_app.audio.wavio import read_wav  # noqa: E402
from therapy_app.storage import SessionRepository  # noqa: E402

pytest_plugins = ("gui_fixtures",)
pytestmark = pytest.mark.gui

# Sorted before every seeded name, so the therapist area selects this patient first.
HOSTILE_NAME = "<b>Bob</b><img src='x'>"
HOSTILE_TRANSCRIPT = "<i>moi</i> <a href='file:///etc/passwd'>aller</a>"


def _labels_showing(root: QWidget, marker: str) -> list[QLabel]:
    return [label for label in root.findChildren(QLabel) if marker in label.text()]


def _not_plain(labels: list[QLabel]) -> list[str]:
    return [
        f"{label.objectName() or type(label.parent()).__name__}: {label.text()!r}"
        for label in labels
        if label.textFormat() != Qt.TextFormat.PlainText
    ]


def test_patient_name_is_plain_text_on_the_patient_screens(open_window, repository, offline_steps):
    repository.patients.create(HOSTILE_NAME)
    driver = open_window(steps=offline_steps)
    window = driver.window
    driver.qtbot.waitUntil(lambda: len(window.profiles.buttons) == 1, timeout=5000)
    shown = _labels_showing(window, "<b>Bob</b>")
    assert shown, "the profile button shows the name"
    assert not _not_plain(shown)
    driver.key(Qt.Key.Key_Return)
    driver.wait_screen("chooser")
    shown = _labels_showing(window, "<b>Bob</b>")
    assert len(shown) >= 2  # the greeting and the name in the header
    assert not _not_plain(shown)


def test_patient_name_and_transcripts_are_plain_text_in_the_therapist_area(
    qtbot, therapist_repo: SessionRepository, seeded_history, therapist_area, speech_dir: Path
):
    clip = read_wav(speech_dir / "word_01.wav")
    attempt_id = add_patient_with_attempt(
        therapist_repo,
        HOSTILE_NAME,
        clip,
        raw_transcript=HOSTILE_TRANSCRIPT,
        target_text="<u>pomme</u>",
    )
    log_in(qtbot, therapist_area)  # the first patient by name is the hostile one
    open_attempt(qtbot, therapist_area, attempt_id)
    shown = _labels_showing(therapist_area, "<b>Bob</b>") + _labels_showing(
        therapist_area, "<i>moi</i>"
    )
    assert any("<i>moi</i>" in label.text() for label in shown), "the transcript is shown"
    assert any("<b>Bob</b>" in label.text() for label in shown), "the name is shown"
    assert not _not_plain(shown)
