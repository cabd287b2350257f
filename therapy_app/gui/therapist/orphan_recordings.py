"""The backup tab's « Enregistrements sans essai »: finished recordings no attempt refers to.

A crash between writing a recording and storing its attempt leaves one, and
a restore leaves the previous data's; the app never deletes them. Here the
therapist sees how many there are, where they are, and can listen to them.
"""

from __future__ import annotations

import logging

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QHideEvent, QShowEvent
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from therapy_app.audio.player import Player
from therapy_app.audio.wavio import read_wav
from therapy_app.gui.repository_widget import RepositoryWidget
from therapy_app.gui.therapist.context import TherapistContext
from therapy_app.gui.therapist.failures import UNEXPECTED, error_text
from therapy_app.gui.therapist.style import section_label, show_status, status_label
from therapy_app.speech.services import AudioOutput
from therapy_app.storage.orphans import OrphanRecording, orphan_recordings
from therapy_app.storage.recording_files import RECORDINGS_DIR

_LOGGER = logging.getLogger(__name__)

LOAD_GROUP = "therapist-orphans"
PLAY_GROUP = "therapist-orphan-playback"
NONE_TEXT = "Aucun enregistrement sans essai."
PLAY_TEXT = "▶ Écouter"
STOP_TEXT = "■ Arrêter"
_PLAYBACK_POLL_MS = 200
_VISIBLE_ROWS = 6


def orphan_line(orphan: OrphanRecording) -> str:
    """One recording as the therapist reads it: patient folder and date, else its path."""
    if orphan.patient_folder is None or orphan.month is None:
        return orphan.relative_path
    if orphan.written_at is not None:
        when = f"{orphan.written_at.astimezone():%d/%m/%Y à %H:%M}"
    else:
        year, month = orphan.month.split("-")
        when = f"{month}/{year}"
    return f"Patient n° {orphan.patient_folder} · {when}"


class OrphanRecordingsSection(RepositoryWidget):
    """Lists the recordings without an attempt and plays the selected one; deletes nothing.

    The list is read on the database worker each time the section is shown.

    Args:
        context: the data and the task runner (listing and playback run on it).

    Attributes:
        player: plays recordings; tests replace it with a fake.

    Signals:
        loaded(int): the list is shown (how many recordings).
        playback_started(str): a recording plays (its path relative to the data folder).
    """

    loaded = Signal(int)
    playback_started = Signal(str)

    def __init__(self, context: TherapistContext, parent: QWidget | None = None) -> None:
        super().__init__(context.repository, context.runner, parent)
        self.player: AudioOutput = Player()
        self._orphans: list[OrphanRecording] = []
        self._poll = QTimer(self)
        self._poll.setInterval(_PLAYBACK_POLL_MS)
        self._poll.timeout.connect(self._check_playback)
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.summary.setTextFormat(Qt.TextFormat.PlainText)  # the folder's path
        self.list = QListWidget()
        self.list.setAccessibleName("Enregistrements sans essai")
        self.list.setMaximumHeight(_VISIBLE_ROWS * self.list.fontMetrics().height() * 2)
        self.play_button = QPushButton(PLAY_TEXT)
        self.play_button.setAccessibleName("Écouter l'enregistrement choisi")
        self.status = status_label()
        row = QHBoxLayout()
        row.addWidget(self.list, 1)
        row.addWidget(self.play_button, 0, Qt.AlignmentFlag.AlignTop)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(section_label("Enregistrements sans essai"))
        layout.addWidget(self.summary)
        layout.addLayout(row)
        layout.addWidget(self.status)
        self.clear()
        self.play_button.clicked.connect(self.toggle_playback)
        self.list.itemActivated.connect(lambda _item: self.toggle_playback())
        self.list.currentRowChanged.connect(lambda _row: self._enable_play())

    def load(self) -> None:
        """Read the list again (database worker); :attr:`loaded` says when it is shown."""
        self._show_status("")
        self._runner.submit(
            orphan_recordings,
            self._repository,
            on_done=self._show_list_and_say,
            on_error=self._failed,
            pool="db",
            group=LOAD_GROUP,
        )

    def clear(self) -> None:
        """Forget what is shown and stop the sound (the area is locked)."""
        self._runner.cancel_stale(LOAD_GROUP)
        self.stop_playback()
        self._show_list([])
        self.summary.clear()

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 - Qt override
        if not event.spontaneous():  # the tab opened, not the window restored
            self.load()
        super().showEvent(event)

    def hideEvent(self, event: QHideEvent) -> None:  # noqa: N802 - Qt override
        if not event.spontaneous():
            self.stop_playback()
        super().hideEvent(event)

    # -- the list -------------------------------------------------------------------

    def _show_list_and_say(self, orphans: list[OrphanRecording]) -> None:
        self._show_list(orphans)
        self.loaded.emit(len(orphans))

    def _show_list(self, orphans: list[OrphanRecording]) -> None:
        self._orphans = orphans
        self.list.clear()
        for orphan in orphans:
            item = QListWidgetItem(orphan_line(orphan))
            item.setToolTip(orphan.relative_path)
            self.list.addItem(item)
        folder = self._repository.data_dir / RECORDINGS_DIR
        self.summary.setText(
            f"{len(orphans)} enregistrement(s) sans essai : l'application s'est arrêtée avant "
            "d'enregistrer leur essai, ou ils viennent des données remplacées par une "
            "restauration (le numéro de patient est alors celui de ces données). Ils ne sont "
            f"jamais effacés ; ils sont dans « {folder} »."
            if orphans
            else NONE_TEXT
        )
        self.list.setVisible(bool(orphans))
        self.play_button.setVisible(bool(orphans))
        if orphans:
            self.list.setCurrentRow(0)
        self._enable_play()

    def _failed(self, exc: BaseException) -> None:
        self._show_status(error_text(exc, UNEXPECTED, "listing orphan recordings"), "error")

    # -- playback -------------------------------------------------------------------

    def toggle_playback(self) -> None:
        """Play the selected recording off the UI thread, or stop the one playing."""
        if self.player.is_playing:
            self.stop_playback()
            return
        row = self.list.currentRow()
        if not 0 <= row < len(self._orphans):
            return
        orphan, player = self._orphans[row], self.player

        def play() -> None:
            # Reading the file and opening the speaker take a moment.
            player.play(read_wav(orphan.path))

        self.play_button.setEnabled(False)
        self._show_status("")
        self._runner.submit(
            play,
            on_done=lambda _result: self._on_playing(orphan.relative_path),
            on_error=self._on_play_error,
            pool="db",
            group=PLAY_GROUP,
        )

    def stop_playback(self) -> None:
        """Stop the recording if one plays."""
        self._runner.cancel_stale(PLAY_GROUP)
        self._poll.stop()
        try:
            self.player.stop()
        except Exception as exc:  # noqa: BLE001 - stopping must never fail the tab
            _LOGGER.warning("stopping playback failed: %s", exc)
        self.play_button.setText(PLAY_TEXT)
        self._enable_play()

    def _on_playing(self, relative_path: str) -> None:
        self.play_button.setText(STOP_TEXT)
        self.play_button.setEnabled(True)
        self._poll.start()
        self.playback_started.emit(relative_path)

    def _check_playback(self) -> None:
        if not self.player.is_playing:
            self._poll.stop()
            self.play_button.setText(PLAY_TEXT)

    def _on_play_error(self, exc: BaseException) -> None:
        self._enable_play()
        self._show_status(error_text(exc, UNEXPECTED, "playing an orphan recording"), "error")

    def _enable_play(self) -> None:
        self.play_button.setEnabled(0 <= self.list.currentRow() < len(self._orphans))

    def _show_status(self, text: str, role: str = "muted") -> None:
        show_status(self.status, text, role)
