"""The patient's phrase book as the therapist sees it: each sentence and its source."""

from __future__ import annotations

import logging
from collections.abc import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from therapy_app.gui.therapist.confirm import ask_first
from therapy_app.gui.therapist.context import TherapistContext
from therapy_app.gui.therapist.failures import UNEXPECTED, error_text
from therapy_app.gui.therapist.style import set_role, show_status, status_label
from therapy_app.phrases.book import BookEntry, book_entries, give_back
from therapy_app.phrases.model import Gender, PhraseSource
from therapy_app.storage import Patient

_LOGGER = logging.getLogger(__name__)

TITLE = "Ses phrases (parole libre)"
HELP = (
    "Proposées en premier en parole libre quand le patient semble dire l'une d'elles : "
    "sa liste, ses choix passés, ses répliques de scripts."
)
SOURCE_LABELS = {
    PhraseSource.CUSTOM: "Liste personnelle",
    PhraseSource.CHOSEN: "Choisie en parole libre",
    PhraseSource.SCRIPT: "Script",
    PhraseSource.FILE: "Fichier",
}
REMOVED_SUFFIX = " · retirée"
GENDER_NOTES = {
    Gender.FEMININE: "Accordées au féminin (réglage dans « Programme »).",
    Gender.MASCULINE: "Accordées au masculin (réglage dans « Programme »).",
    Gender.UNSAID: "Accords non précisés : phrases telles qu'écrites (réglage dans « Programme »).",
}
EMPTY = "Aucune phrase pour l'instant."
REMOVE_TITLE = "Retirer de ses phrases"
LIST_MIN_HEIGHT = 120
MAX_WIDTH = 420
"""Beside the custom list, which keeps the width its fields and help need (1366×768)."""
GROUP = "therapist-phrase-book"
"""The task-runner group of every job of the panel (the area cancels it when it goes)."""


def entry_label(entry: BookEntry) -> str:
    """ "Je voudrais un café. — Liste personnelle", "Merci. — Script : À la boulangerie"."""
    source = SOURCE_LABELS.get(entry.phrase.source, entry.phrase.source.value)
    if entry.origin:
        source += f" : {entry.origin}"
    return f"{entry.phrase.text} — {source}" + (REMOVED_SUFFIX if entry.removed else "")


class PhraseBookPanel(QGroupBox):
    """The selected patient's phrase book; « Retirer de ses phrases » asks first.

    A removal keeps the history (the sentence stays in the attempt where it
    was chosen, in the custom list or the script): it only stops the
    sentence being proposed. « Remettre » gives it back.

    Args:
        context: the data, the task runner and the logged-in therapist.

    Signals:
        entries_loaded(int): the sentences on screen (count, removed ones included).
        failed(str): French message.

    Attributes:
        confirm_box: the open "Retirer … ?" question (None when none is open).
    """

    entries_loaded = Signal(int)
    failed = Signal(str)

    def __init__(self, context: TherapistContext, parent: QWidget | None = None) -> None:
        super().__init__(TITLE, parent)
        self._repository = context.repository
        self._runner = context.runner
        self._editor = context.editor
        self._patient: Patient | None = None
        self._entries: list[BookEntry] = []
        self._keep_row: int | None = None
        self.confirm_box: QMessageBox | None = None
        help_label = QLabel(HELP)
        help_label.setWordWrap(True)
        set_role(help_label, "muted")
        self.gender_note = QLabel()
        self.gender_note.setWordWrap(True)
        set_role(self.gender_note, "muted")
        self.list = QListWidget()
        self.list.setAccessibleName("Phrases du patient en parole libre")
        self.list.setWordWrap(True)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        # The list takes the height left and scrolls (a 768-pixel screen).
        self.list.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Ignored)
        self.list.setMinimumHeight(LIST_MIN_HEIGHT)
        self.remove_button = QPushButton(REMOVE_TITLE)
        self.restore_button = QPushButton("Remettre")
        self.status = status_label()
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.restore_button)
        buttons.addWidget(self.remove_button)
        layout = QVBoxLayout(self)
        layout.addWidget(help_label)
        layout.addWidget(self.gender_note)
        layout.addWidget(self.list, 1)
        layout.addLayout(buttons)
        layout.addWidget(self.status)
        self.setMaximumWidth(MAX_WIDTH)
        self.list.currentRowChanged.connect(lambda _row: self._update_buttons())
        self.remove_button.clicked.connect(self.remove_selected)
        self.restore_button.clicked.connect(self.restore_selected)
        self.set_patient(None)

    # -- state --------------------------------------------------------------------

    def set_patient(self, patient: Patient | None) -> None:
        """Show ``patient``'s phrase book (None: nothing selected)."""
        self._patient = patient
        self._entries = []
        self.list.clear()
        self.gender_note.clear()
        self._show_status("")
        self.setEnabled(patient is not None)
        self._update_buttons()
        if patient is not None:
            self.reload()

    def reload(self) -> None:
        """Read the phrase book again (database worker)."""
        if self._patient is None:
            return
        repository, patient_id = self._repository, self._patient.id

        def run() -> tuple[Gender, list[BookEntry]]:
            return repository.phrases.gender(patient_id), book_entries(repository, patient_id)

        self._runner.submit(
            run,
            on_done=self._show_entries,
            on_error=self._on_error,
            pool="db",
            group=GROUP,
        )

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 - Qt's name
        """Read again when shown: a session, a script or the gender may have changed it."""
        super().showEvent(event)
        self.reload()

    def _show_entries(self, found: tuple[Gender, list[BookEntry]]) -> None:
        gender, entries = found
        row = self._keep_row if self._keep_row is not None else self.list.currentRow()
        self._keep_row = None
        scroll = self.list.verticalScrollBar().value()
        self._entries = entries
        self.list.clear()
        for entry in entries:
            item = QListWidgetItem(entry_label(entry))
            item.setToolTip(entry.written)
            if entry.removed:
                font = item.font()
                font.setItalic(True)
                item.setFont(font)
                item.setForeground(self.palette().placeholderText())
            self.list.addItem(item)
        self.gender_note.setText(GENDER_NOTES[gender])
        if entries and row >= 0:
            self.list.setCurrentRow(min(row, len(entries) - 1))
            self.list.verticalScrollBar().setValue(scroll)
        if not entries:
            self._show_status(EMPTY)
        elif self.status.text() == EMPTY:
            self._show_status("")
        self._update_buttons()
        self.entries_loaded.emit(len(entries))

    def texts(self) -> list[str]:
        """The labels shown, in order."""
        return [self.list.item(i).text() for i in range(self.list.count())]

    def _selected(self) -> BookEntry | None:
        row = self.list.currentRow()
        return self._entries[row] if 0 <= row < len(self._entries) else None

    def _update_buttons(self) -> None:
        entry = self._selected()
        self.remove_button.setEnabled(entry is not None and not entry.removed)
        self.restore_button.setEnabled(entry is not None and entry.removed)

    # -- removing and giving back --------------------------------------------------

    def remove_selected(self) -> None:
        """Ask "Retirer « … » de ses phrases ?"; removed only on « Retirer »."""
        entry = self._selected()
        if entry is None or entry.removed or self.confirm_box is not None:
            return
        owner = f" de {self._patient.display_name}" if self._patient is not None else ""
        self.confirm_box = ask_first(
            self,
            REMOVE_TITLE,
            f"Retirer « {entry.phrase.text} » des phrases{owner} ?\n"
            "Elle ne sera plus proposée en parole libre. L'historique la garde ; "
            "« Remettre » la rend.",
            "Retirer",
            lambda confirmed: self._answered(confirmed, entry),
        )

    def _answered(self, confirmed: bool, entry: BookEntry) -> None:
        self.confirm_box = None
        if not confirmed or self._patient is None:
            return
        store, patient_id, editor = self._repository.phrases, self._patient.id, self._editor()
        # Recorded as shown (agreed): it stays removed whatever the gender becomes.
        self._act(lambda: store.remove(patient_id, entry.phrase.text, editor))

    def restore_selected(self) -> None:
        """Give the selected removed sentence back to the phrase book."""
        entry = self._selected()
        if entry is None or not entry.removed or self._patient is None:
            return
        repository, patient_id = self._repository, self._patient.id
        self._act(lambda: give_back(repository, patient_id, entry.written))

    def _act(self, fn: Callable[[], object]) -> None:
        self._keep_row = self.list.currentRow()
        self._show_status("")
        # One database worker runs jobs in order: a reload submitted later (which
        # drops this job's callback, same group) still reads after the change.
        self._runner.submit(
            fn, on_done=lambda _: self.reload(), on_error=self._on_error, pool="db", group=GROUP
        )

    # -- plumbing --------------------------------------------------------------------

    def _on_error(self, exc: BaseException) -> None:
        message = error_text(exc, UNEXPECTED, "phrase book")
        self._show_status(message, "error")
        self.failed.emit(message)

    def _show_status(self, text: str, role: str = "muted") -> None:
        show_status(self.status, text, role)
