"""One attempt in full: recording, transcripts, proposals, scores, and the audited correction."""

from __future__ import annotations

import logging
from typing import Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from therapy_app.audio.player import Player
from therapy_app.audio.wavio import read_wav
from therapy_app.domain.attempt_record import Candidate
from therapy_app.exports.labels import exercise_label
from therapy_app.gui.therapist import formatting as fmt
from therapy_app.gui.therapist.context import TherapistContext
from therapy_app.gui.therapist.failures import UNEXPECTED, error_text
from therapy_app.gui.therapist.style import section_label, set_role, show_status
from therapy_app.gui.therapist.transcript_editor import (
    AttemptView,
    TranscriptEditor,
    edit_line,
    load_attempt_view,
    value_label,
)
from therapy_app.gui.therapist.verdict_override import VerdictOverride
from therapy_app.storage import Attempt

_LOGGER = logging.getLogger(__name__)

_PLAYBACK_POLL_MS = 200


SOURCE_LABELS = {"phrase": "phrase du carnet", "corrector": "correcteur"}
"""Where a proposal came from, as the therapist reads it (the patient never sees it)."""


def proposal_line(candidate: Candidate) -> str:
    """One proposal: « text » (source, score)."""
    source = SOURCE_LABELS.get(candidate.source, candidate.source)
    if candidate.source == "phrase":
        score = f"mots retrouvés {fmt.percent(candidate.score)}"
    else:
        score = f"score {fmt.number(candidate.score, 2)}"
    return f"{fmt.quoted(candidate.text)} ({source}, {score})"


class AttemptDetail(QWidget):
    """The detail screen of one attempt.

    Args:
        context: the data, the task runner (queries and playback run on it) and
            the logged-in therapist, recorded with edits.

    Attributes:
        player: plays recordings; tests replace it with a fake.

    Signals:
        attempt_loaded(int): the attempt is shown.
        transcript_saved(int, str): an edit of (attempt id, field) was stored.
        verdict_saved(int): the therapist's verdict of an attempt was stored.
        back_requested(): the therapist wants the history again.
        message_shown(str): every French status or error message.
    """

    attempt_loaded = Signal(int)
    transcript_saved = Signal(int, str)
    verdict_saved = Signal(int)
    back_requested = Signal()
    message_shown = Signal(str)
    playback_started = Signal(int)

    def __init__(self, context: TherapistContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._repository = context.repository
        self._runner = context.runner
        self._editor = context.editor
        self._view: AttemptView | None = None
        self.player: Any = Player()
        self._poll = QTimer(self)
        self._poll.setInterval(_PLAYBACK_POLL_MS)
        self._poll.timeout.connect(self._check_playback)

        self.back_button = QPushButton("← Retour à l'historique")
        self.title = section_label("Essai")
        self.title.setWordWrap(True)
        self.play_button = QPushButton("▶ Écouter l'enregistrement")
        set_role(self.play_button, "primary")
        self.status = value_label()

        self.target = value_label()
        self.raw = value_label()
        self.correction = value_label()
        self.alternatives = value_label()
        self.chosen = value_label()
        self.repetition = value_label()
        texts = QFormLayout()
        texts.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        texts.addRow("Cible :", self.target)
        texts.addRow("Reconnaissance automatique :", self.raw)
        texts.addRow("Correction proposée :", self.correction)
        texts.addRow("Autres propositions :", self.alternatives)
        texts.addRow("Phrase choisie :", self.chosen)
        texts.addRow("Répétition :", self.repetition)

        self.transcript_editor = TranscriptEditor("transcript", "Transcription de l'énoncé :")
        self.repetition_editor = TranscriptEditor(
            "repetition_transcript", "Transcription de la répétition :"
        )

        self.scores: dict[str, QLabel] = {}
        scores = QFormLayout()
        score_names = (
            ("words", "Mots"),
            ("function", "Mots grammaticaux"),
            ("verbs", "Verbes"),
            ("wpm", "Mots/min"),
            ("accuracy", "Précision"),
            ("wer", "Taux d'erreur de mots"),
            ("target_score", "Score de la cible"),
            ("success", "Réussite"),
            ("cue", "Niveau d'indiçage"),
            ("duration", "Durée"),
            ("pauses", "Part de pauses"),
        )
        for key, label in score_names:
            value = value_label()
            # Short values ("100 %") never wrap: the box keeps room for them.
            value.setWordWrap(False)
            self.scores[key] = value
            scores.addRow(label + " :", value)

        # A label, not a list: long lines wrap instead of scrolling sideways.
        self.edit_history = value_label()
        self.no_edit = QLabel("Aucune correction.")
        set_role(self.no_edit, "muted")

        left = QVBoxLayout()
        left.setSpacing(10)
        left.addLayout(texts)
        left.addWidget(_rule())
        # The verdict right under what was said and heard: on a 1366x768
        # screen its buttons show without scrolling.
        self.verdict = VerdictOverride()  # the therapist may decide the verdict
        left.addWidget(section_label("Verdict"))
        left.addWidget(self.verdict)
        left.addWidget(section_label("Corriger la transcription"))
        left.addWidget(self.transcript_editor)
        left.addWidget(self.repetition_editor)
        left.addWidget(section_label("Historique des corrections"))
        left.addWidget(self.no_edit)
        left.addWidget(self.edit_history)
        left.addStretch(1)
        right = QVBoxLayout()
        right.addWidget(section_label("Scores"))
        right.addLayout(scores)
        right.addStretch(1)
        self.score_box = score_box = QFrame()
        score_box.setFrameShape(QFrame.Shape.StyledPanel)
        score_box.setLayout(right)
        content = QWidget()
        body = QHBoxLayout(content)
        body.setSpacing(16)
        # The scores keep their width ("Mots grammatica…" was cut);
        # the texts on the left wrap.
        body.addLayout(left, 1)
        body.addWidget(score_box, 0)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setWidget(content)

        header = QHBoxLayout()
        header.addWidget(self.back_button)
        header.addSpacing(12)
        header.addWidget(self.title, 1)
        header.addWidget(self.play_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(header)
        layout.addWidget(self.status)
        layout.addWidget(scroll, 1)

        self.back_button.clicked.connect(self._back)
        self.play_button.clicked.connect(self.toggle_playback)
        self.transcript_editor.save_requested.connect(self.save_transcript)
        self.repetition_editor.save_requested.connect(self.save_transcript)
        self.verdict.override_requested.connect(self.override_verdict)

    @property
    def attempt(self) -> Attempt | None:
        """The attempt on screen."""
        return self._view.attempt if self._view is not None else None

    # -- loading ----------------------------------------------------------------

    def show_attempt(self, attempt_id: int) -> None:
        """Load and show an attempt (database worker)."""
        self.stop_playback()
        self._show_status("")
        self._runner.submit(
            load_attempt_view,
            self._repository,
            attempt_id,
            on_done=self._populate,
            on_error=self._on_error,
            pool="db",
            group="therapist-attempt",
        )

    def clear(self) -> None:
        """Forget the attempt (the area locks)."""
        self.stop_playback()
        self._runner.cancel_stale("therapist-attempt")
        self._view = None
        for label in (self.target, self.raw, self.correction, self.alternatives, self.chosen):
            label.clear()
        self.repetition.clear()
        self.transcript_editor.edit.clear()
        self.repetition_editor.edit.clear()
        self.edit_history.clear()

    def _populate(self, view: AttemptView) -> None:
        self._view = view
        attempt, record = view.attempt, view.attempt.record
        self.title.setText(
            f"Essai du {fmt.short_datetime(attempt.created_at)} — {exercise_label(record.kind)}"
        )
        self.target.setText(fmt.quoted(record.target_text))
        self.raw.setText(fmt.quoted(record.raw_transcript))
        self.correction.setText(fmt.quoted(record.correction_best))
        self.alternatives.setText(
            "\n".join(proposal_line(c) for c in record.correction_alternatives) or fmt.MISSING
        )
        self.chosen.setText(fmt.quoted(record.chosen_sentence))
        self.repetition.setText(fmt.quoted(attempt.repetition_transcript))
        self.transcript_editor.show_texts(
            attempt.transcript, record.raw_transcript, attempt.edited_transcript is not None
        )
        has_repetition = record.repetition_transcript is not None
        self.repetition_editor.setVisible(has_repetition)
        if has_repetition:
            self.repetition_editor.show_texts(
                attempt.repetition_transcript or "",
                record.repetition_transcript or "",
                attempt.edited_repetition_transcript is not None,
            )
        metrics = attempt.metrics
        values = {
            "words": str(metrics.word_count),
            "function": fmt.percent(metrics.function_word_ratio),
            "verbs": str(metrics.verb_count),
            "wpm": fmt.number(metrics.words_per_minute, 0),
            "accuracy": fmt.percent(metrics.accuracy),
            "wer": fmt.percent(metrics.wer),
            "target_score": fmt.number(record.target_score, 2),
            "success": fmt.yes_no(attempt.success),
            "cue": fmt.MISSING if record.cue_level is None else str(record.cue_level),
            "duration": fmt.MISSING
            if record.duration_s is None
            else f"{fmt.number(record.duration_s)}{fmt.NBSP}s",
            "pauses": fmt.percent(record.pause_ratio),
        }
        for key, text in values.items():
            self.scores[key].setText(text)
        self.verdict.show_attempt(attempt, view.verdict_changes)
        self.edit_history.setText("\n".join(edit_line(e) for e in reversed(view.edits)))
        self.edit_history.setVisible(bool(view.edits))
        self.no_edit.setVisible(not view.edits)
        self.play_button.setEnabled(view.recording is not None)
        if view.recording is None:
            self.play_button.setToolTip("Pas d'enregistrement pour cet essai.")
        self.attempt_loaded.emit(attempt.id)

    # -- correction -------------------------------------------------------------

    def save_transcript(self, field: str, text: str) -> None:
        """Store the therapist's correction of a transcript (the original is kept)."""
        if self._view is None:
            return
        attempt = self._view.attempt
        current = attempt.transcript if field == "transcript" else attempt.repetition_transcript
        new_text = " ".join(text.split())
        if new_text == (current or ""):
            self._show_status("Aucun changement à enregistrer.")
            return
        editor = self._editor()
        attempt_id = attempt.id

        def work() -> AttemptView:
            self._repository.attempts.edit_transcript(attempt_id, field, new_text, editor)
            return load_attempt_view(self._repository, attempt_id)

        self._show_status("Enregistrement…")
        self._runner.submit(
            work,
            on_done=lambda view: self._on_saved(view, field),
            on_error=self._on_error,
            pool="db",
            group="therapist-attempt",
        )

    def _on_saved(self, view: AttemptView, field: str) -> None:
        self._populate(view)
        self._show_status("Correction enregistrée. Le texte d'origine est conservé.", "success")
        self.transcript_saved.emit(view.attempt.id, field)

    def override_verdict(self, success: bool | None) -> None:
        """Store the therapist's verdict (None: back to the rule), audited by storage."""
        if self._view is None:
            return
        attempt_id, editor = self._view.attempt.id, self._editor()

        def work() -> AttemptView:
            self._repository.attempts.override_verdict(attempt_id, success, editor)
            return load_attempt_view(self._repository, attempt_id)

        def done(view: AttemptView) -> None:
            self._populate(view)
            self._show_status("Verdict enregistré.", "success")
            self.verdict_saved.emit(attempt_id)

        self._runner.submit(
            work, on_done=done, on_error=self._on_error, pool="db", group="therapist-attempt"
        )

    # -- playback ---------------------------------------------------------------

    def toggle_playback(self) -> None:
        """Play the recording, or stop it when it is playing."""
        if self.player.is_playing:
            self.stop_playback()
            return
        if self._view is None or self._view.recording is None:
            return
        path, attempt_id = self._view.recording, self._view.attempt.id
        player = self.player

        def play() -> None:
            # Reading the file and opening the audio device can take a moment:
            # never on the UI thread.
            player.play(read_wav(path))

        self.play_button.setEnabled(False)
        self._show_status("")
        self._runner.submit(
            play,
            on_done=lambda _result: self._on_playing(attempt_id),
            on_error=self._on_play_error,
            pool="db",
            group="therapist-playback",
        )

    def _on_playing(self, attempt_id: int) -> None:
        self.play_button.setEnabled(True)
        self.play_button.setText("■ Arrêter")
        self._poll.start()
        self.playback_started.emit(attempt_id)

    def _check_playback(self) -> None:
        if not self.player.is_playing:
            self._poll.stop()
            self.play_button.setText("▶ Écouter l'enregistrement")

    def stop_playback(self) -> None:
        """Stop the recording if it plays."""
        self._runner.cancel_stale("therapist-playback")
        self._poll.stop()
        try:
            self.player.stop()
        except Exception as exc:  # noqa: BLE001 - stopping must never fail the screen
            _LOGGER.warning("stopping playback failed: %s", exc)
        self.play_button.setText("▶ Écouter l'enregistrement")
        self.play_button.setEnabled(self._view is not None and self._view.recording is not None)

    def _on_play_error(self, exc: BaseException) -> None:
        self.play_button.setEnabled(True)
        self._on_error(exc)

    # -- misc -------------------------------------------------------------------

    def _back(self) -> None:
        self.stop_playback()
        self.back_requested.emit()

    def _show_status(self, text: str, role: str = "muted") -> None:
        show_status(self.status, text, role)
        if text:
            self.message_shown.emit(text)

    def _on_error(self, exc: BaseException) -> None:
        self._show_status(error_text(exc, UNEXPECTED, "attempt detail"), "error")


def _rule() -> QFrame:
    line = QFrame()
    line.setFrameShape(QFrame.Shape.HLine)
    line.setFrameShadow(QFrame.Shadow.Sunken)
    return line
