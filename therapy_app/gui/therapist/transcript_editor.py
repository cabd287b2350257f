"""The correction side of an attempt: what is read for it, the edit field, the audit lines."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QPushButton, QVBoxLayout, QWidget

from therapy_app.gui.therapist import formatting as fmt
from therapy_app.gui.therapist.style import set_role
from therapy_app.storage import Attempt, SessionRepository, TranscriptEdit, VerdictChange

FIELD_LABELS = {"transcript": "transcription", "repetition_transcript": "répétition"}
"""French names of the correctable transcript fields, for the edit history."""


@dataclass(frozen=True)
class AttemptView:
    """Everything the detail screen shows, read in one database job.

    Attributes:
        attempt: the stored attempt (original record, edits, metrics).
        edits: its audited corrections, oldest first.
        recording: the recording file when it exists on disk.
        verdict_changes: audited changes of its verdict, oldest first.
    """

    attempt: Attempt
    edits: list[TranscriptEdit]
    recording: Path | None
    verdict_changes: list[VerdictChange] = field(default_factory=list)


def load_attempt_view(repository: SessionRepository, attempt_id: int) -> AttemptView:
    """Read an attempt, its edit history and its recording path (database worker)."""
    attempt = repository.attempts.get(attempt_id)
    path = repository.attempts.recording_path(attempt)
    return AttemptView(
        attempt,
        repository.attempts.transcript_edits(attempt_id),
        path if path is not None and path.is_file() else None,
        repository.attempts.verdict_changes(attempt_id),
    )


def edit_line(edit: TranscriptEdit) -> str:
    """``14/03/2025 10:40 — claire — transcription : « a » → « b »``."""
    return (
        f"{fmt.short_datetime(edit.edited_at)} — {edit.editor} — "
        f"{FIELD_LABELS.get(edit.field, edit.field)} : "
        f"{fmt.quoted(edit.old_text)} → {fmt.quoted(edit.new_text)}"
    )


def value_label(text: str = "") -> QLabel:
    label = QLabel(text)
    label.setTextFormat(Qt.TextFormat.PlainText)  # transcripts and names, never markup
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


class TranscriptEditor(QWidget):
    """An edit field for one transcript, with its original ASR text below."""

    save_requested = Signal(str, str)  # (field, new text)

    def __init__(self, field: str, title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.field = field
        self.title = QLabel(title)
        self.edit = QLineEdit()
        self.edit.setAccessibleName(title)
        self.save_button = QPushButton("Enregistrer la correction")
        set_role(self.save_button, "primary")
        self.original = value_label()
        set_role(self.original, "muted")
        row = QHBoxLayout()
        row.addWidget(self.edit, 1)
        row.addWidget(self.save_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.title)
        layout.addLayout(row)
        layout.addWidget(self.original)
        self.save_button.clicked.connect(self._save)
        self.edit.returnPressed.connect(self._save)

    def show_texts(self, current: str, original: str, edited: bool) -> None:
        """Fill the field with the text in force and say where it comes from."""
        self.edit.setText(current)
        if edited:
            self.original.setText(
                f"Corrigée. Texte d'origine (reconnaissance automatique) : {fmt.quoted(original)}"
            )
        else:
            self.original.setText("Texte de la reconnaissance automatique, non corrigé.")

    def _save(self) -> None:
        self.save_requested.emit(self.field, self.edit.text())
