"""History table, attempt detail, audited transcript correction and playback (therapist area)."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import Qt  # noqa: E402
from therapist_fixtures import SIGNAL_TIMEOUT_MS, USERNAME, log_in, open_attempt  # noqa: E402

from therapy_app import pause_tolerance  # noqa: E402
from therapy_app.audio.clip import AudioClip  # noqa: E402
from therapy_app.audio.wavio import read_wav  # noqa: E402
from therapy_app.errors import AudioDeviceError  # noqa: E402
from therapy_app.gui.therapist import formatting as fmt  # noqa: E402
from therapy_app.gui.therapist.history import ID_ROLE  # noqa: E402
from therapy_app.storage import SessionRepository  # noqa: E402

if TYPE_CHECKING:
    from therapist_fixtures import SeededHistory

    from therapy_app.gui.therapist import TherapistArea

pytestmark = pytest.mark.gui


class FakePlayer:
    """Records what it was asked to play; can fail like a machine without a speaker."""

    def __init__(self, error: Exception | None = None) -> None:
        self.clips: list[AudioClip] = []
        self.threads: list[int] = []
        self.error = error
        self.playing = False

    @property
    def is_playing(self) -> bool:
        return self.playing

    def play(self, clip: AudioClip) -> None:
        self.threads.append(threading.get_ident())
        if self.error is not None:
            raise self.error
        self.clips.append(clip)
        self.playing = True

    def stop(self) -> None:
        self.playing = False


def _table_texts(view) -> list[list[str]]:  # noqa: ANN001
    model = view.model()
    return [
        [model.index(r, c).data() for c in range(model.columnCount())]
        for r in range(model.rowCount())
    ]


def test_history_table_lists_sessions_newest_first(
    unlocked_area: TherapistArea, therapist_repo: SessionRepository, seeded_history: SeededHistory
) -> None:
    rows = _table_texts(unlocked_area.history.session_view)
    summaries = therapist_repo.history.summaries(seeded_history.patient.id)
    assert len(rows) == len(summaries) == 3
    header = unlocked_area.history.session_view.model()
    headers = [header.headerData(c, Qt.Orientation.Horizontal) for c in range(len(rows[0]))]
    assert headers == [
        "Date", "Exercice", "Essais", "Réussite", "LME", "Mots gram.", "Mots/min", "Précision",
    ]  # fmt: skip
    for row, summary in zip(rows, summaries, strict=True):
        assert row[0] == fmt.short_datetime(summary.started_at)
        assert row[2] == str(summary.attempt_count)
        assert row[3] == fmt.percent(summary.success_rate)
        assert row[4] == fmt.number(summary.mean_word_count)
        assert row[5] == fmt.percent(summary.mean_function_word_ratio)
        assert row[6] == fmt.number(summary.mean_words_per_minute, 0)
        assert row[7] == fmt.percent(summary.mean_accuracy)
    assert [r[1] for r in rows] == ["Répétition", "Parole libre", "Répétition"]
    assert [r[2] for r in rows] == ["3", "1", "2"]
    # The newest session is selected and its attempts listed below.
    attempts = _table_texts(unlocked_area.history.attempt_view)
    assert [a[1] for a in attempts] == [
        "Le chat dort sur le canapé.",
        "J'ai mal à la tête.",
        "Il fait beau aujourd'hui.",
    ]
    assert [a[2] for a in attempts] == ["Le chat dort.", "j'ai mal tête", "Il fait beau."]


def test_sessions_without_attempts_are_not_listed_nor_opened(
    qtbot,
    therapist_repo: SessionRepository,
    seeded_history: SeededHistory,
    request: pytest.FixtureRequest,
) -> None:
    # Opening an exercise and leaving at once: the newest session has no attempt.
    empty = therapist_repo.sessions.start(seeded_history.patient.id, "completion")
    therapist_repo.sessions.end(empty.id)
    therapist_area = request.getfixturevalue("therapist_area")  # after the account exists
    log_in(qtbot, therapist_area)
    rows = _table_texts(therapist_area.history.session_view)
    assert [r[1] for r in rows] == ["Répétition", "Parole libre", "Répétition"]
    assert "0" not in [r[2] for r in rows]
    attempts = _table_texts(therapist_area.history.attempt_view)
    assert [a[2] for a in attempts] == ["Le chat dort.", "j'ai mal tête", "Il fait beau."]


def test_other_patient_has_only_their_session(
    qtbot, unlocked_area: TherapistArea, seeded_history: SeededHistory
) -> None:
    with qtbot.waitSignal(unlocked_area.history.attempts_loaded, timeout=SIGNAL_TIMEOUT_MS):
        unlocked_area.select_patient(seeded_history.other.id)
    assert len(_table_texts(unlocked_area.history.session_view)) == 1
    assert [a[2] for a in _table_texts(unlocked_area.history.attempt_view)] == ["pomme"]
    assert unlocked_area.exports.patient_label.text() == "Exports pour Paul Martin"


def test_selecting_an_older_session_lists_its_attempts(
    qtbot, unlocked_area: TherapistArea, seeded_history: SeededHistory
) -> None:
    with qtbot.waitSignal(unlocked_area.history.attempts_loaded, timeout=SIGNAL_TIMEOUT_MS) as b:
        unlocked_area.history.select_session(seeded_history.session_ids[0])
    assert b.args == [seeded_history.session_ids[0]]
    texts = [a[2] for a in _table_texts(unlocked_area.history.attempt_view)]
    assert texts == ["chat dormir canapé", "train demain"]


def test_attempt_detail_shows_transcripts_and_scores(
    qtbot,
    unlocked_area: TherapistArea,
    therapist_repo: SessionRepository,
    seeded_history: SeededHistory,
) -> None:
    free = seeded_history.attempt_ids[2]  # the free-speech attempt
    view = unlocked_area.history.attempt_view
    with qtbot.waitSignal(unlocked_area.history.attempts_loaded, timeout=SIGNAL_TIMEOUT_MS):
        unlocked_area.history.select_session(seeded_history.session_ids[1])
    assert view.model().index(0, 0).data(ID_ROLE) == free
    with qtbot.waitSignal(unlocked_area.detail.attempt_loaded, timeout=SIGNAL_TIMEOUT_MS):
        unlocked_area.history.open_button.click()
    detail = unlocked_area.detail
    assert unlocked_area.history_stack.currentWidget() is detail
    attempt = therapist_repo.attempts.get(free)
    assert detail.transcript_editor.edit.text() == "moi aller boulangerie hier"
    assert detail.raw.text() == fmt.quoted("moi aller boulangerie hier")
    assert detail.chosen.text() == fmt.quoted("Hier, je suis allé à la boulangerie.")
    assert detail.repetition.text() == fmt.quoted("hier je suis allé boulangerie")
    assert detail.repetition_editor.isVisibleTo(detail)
    assert detail.scores["words"].text() == str(attempt.metrics.word_count)
    assert detail.scores["accuracy"].text() == fmt.percent(attempt.metrics.accuracy)
    assert detail.no_edit.isVisibleTo(detail)
    assert detail.play_button.isEnabled()
    # A repetition attempt: target shown, no repetition editor.
    open_attempt(qtbot, unlocked_area, seeded_history.attempt_ids[0])
    assert detail.target.text() == fmt.quoted("Le chat dort sur le canapé.")
    assert "Le chat sort du canapé." in detail.alternatives.text()
    assert not detail.repetition_editor.isVisibleTo(detail)
    detail.back_button.click()
    assert unlocked_area.history_stack.currentWidget() is unlocked_area.history


def test_transcript_correction_is_saved_and_audited(
    qtbot,
    unlocked_area: TherapistArea,
    therapist_repo: SessionRepository,
    seeded_history: SeededHistory,
    short_attempt: int,
) -> None:
    attempt_id = short_attempt
    detail = unlocked_area.detail
    before = therapist_repo.attempts.get(attempt_id)
    detail.transcript_editor.edit.setText("Le chat dort sur le canapé.")
    with (
        qtbot.waitSignal(detail.transcript_saved, timeout=SIGNAL_TIMEOUT_MS) as saved,
        qtbot.waitSignal(unlocked_area.history.attempts_loaded, timeout=SIGNAL_TIMEOUT_MS),
    ):
        detail.transcript_editor.save_button.click()
    assert saved.args == [attempt_id, "transcript"]
    after = therapist_repo.attempts.get(attempt_id)
    assert after.edited_transcript == "Le chat dort sur le canapé."
    assert after.record.raw_transcript == "Le chat dort."  # the original is kept
    assert after.metrics.accuracy == 1.0 and before.metrics.accuracy < 1.0
    edits = therapist_repo.attempts.transcript_edits(attempt_id)
    assert [(e.field, e.old_text, e.new_text, e.editor) for e in edits] == [
        ("transcript", "Le chat dort.", "Le chat dort sur le canapé.", USERNAME)
    ]
    # The screen shows the original and the audit line.
    assert fmt.quoted("Le chat dort.") in detail.transcript_editor.original.text()
    assert "Corrigée" in detail.transcript_editor.original.text()
    assert USERNAME in detail.edit_history.text()
    assert fmt.quoted("Le chat dort sur le canapé.") in detail.edit_history.text()
    assert detail.status.text() == "Correction enregistrée. Le texte d'origine est conservé."
    # The session's mean accuracy was recomputed and the table refreshed.
    newest = _table_texts(unlocked_area.history.session_view)[0]
    summary = therapist_repo.history.summaries(seeded_history.patient.id)[0]
    assert newest[7] == fmt.percent(summary.mean_accuracy)
    # The attempt list marks the corrected transcript.
    said = [row[2] for row in _table_texts(unlocked_area.history.attempt_view)]
    assert said[0] == "Le chat dort sur le canapé. ✎"

    # Saving the same text again records nothing.
    detail.transcript_editor.save_button.click()
    assert detail.status.text() == "Aucun changement à enregistrer."
    assert len(therapist_repo.attempts.transcript_edits(attempt_id)) == 1


def test_repetition_transcript_correction(
    qtbot,
    unlocked_area: TherapistArea,
    therapist_repo: SessionRepository,
    seeded_history: SeededHistory,
) -> None:
    free = seeded_history.attempt_ids[2]
    open_attempt(qtbot, unlocked_area, free)
    editor = unlocked_area.detail.repetition_editor
    editor.edit.setText("hier je suis allé à la boulangerie")
    with qtbot.waitSignal(unlocked_area.detail.transcript_saved, timeout=SIGNAL_TIMEOUT_MS) as b:
        editor.save_button.click()
    assert b.args == [free, "repetition_transcript"]
    attempt = therapist_repo.attempts.get(free)
    assert attempt.edited_repetition_transcript == "hier je suis allé à la boulangerie"
    assert attempt.record.repetition_transcript == "hier je suis allé boulangerie"
    assert "répétition" in unlocked_area.detail.edit_history.text()


def test_play_reads_the_recording_off_the_ui_thread(
    qtbot,
    unlocked_area: TherapistArea,
    therapist_repo: SessionRepository,
    seeded_history: SeededHistory,
) -> None:
    attempt_id = seeded_history.attempt_ids[0]
    open_attempt(qtbot, unlocked_area, attempt_id)
    player = FakePlayer()
    unlocked_area.detail.player = player
    with qtbot.waitSignal(unlocked_area.detail.playback_started, timeout=SIGNAL_TIMEOUT_MS):
        unlocked_area.detail.play_button.click()
    expected = read_wav(
        therapist_repo.attempts.recording_path(therapist_repo.attempts.get(attempt_id))
    )
    assert len(player.clips) == 1
    assert player.clips[0].duration == pytest.approx(expected.duration)
    assert player.threads[0] != threading.get_ident()
    assert unlocked_area.detail.play_button.text() == "■ Arrêter"
    unlocked_area.detail.play_button.click()
    assert not player.playing
    assert unlocked_area.detail.play_button.text() == "▶ Écouter l'enregistrement"


def test_play_without_speaker_says_so_in_french(
    qtbot, unlocked_area: TherapistArea, seeded_history: SeededHistory
) -> None:
    open_attempt(qtbot, unlocked_area, seeded_history.attempt_ids[0])
    error = AudioDeviceError("Aucun haut-parleur n'est disponible.", "Branchez un casque.")
    unlocked_area.detail.player = FakePlayer(error)
    with qtbot.waitSignal(unlocked_area.detail.message_shown, timeout=SIGNAL_TIMEOUT_MS) as b:
        unlocked_area.detail.play_button.click()
    assert b.args == [error.french()]
    assert unlocked_area.detail.play_button.isEnabled()


def test_pause_tolerance_is_set_per_patient(
    qtbot, unlocked_area: TherapistArea, therapist_repo: SessionRepository, seeded_history
) -> None:
    settings = unlocked_area.patient_settings
    assert settings.isEnabled()
    assert settings.pause.value() == pause_tolerance.DEFAULT_MS / 1000
    settings.pause.setFocus()
    settings.pause.setValue(6.0)
    with qtbot.waitSignal(settings.saved, timeout=SIGNAL_TIMEOUT_MS) as saved:
        settings.pause.editingFinished.emit()
    assert saved.args[0].pause_tolerance_ms == 6000
    assert therapist_repo.patients.get(seeded_history.patient.id).pause_tolerance_ms == 6000
    assert therapist_repo.patients.get(seeded_history.other.id).pause_tolerance_ms == 3500
    # Another patient shows their own value; back to the first shows the saved one.
    with qtbot.waitSignal(unlocked_area.history.attempts_loaded, timeout=SIGNAL_TIMEOUT_MS):
        unlocked_area.select_patient(seeded_history.other.id)
    assert settings.pause.value() == 3.5
    with qtbot.waitSignal(unlocked_area.history.attempts_loaded, timeout=SIGNAL_TIMEOUT_MS):
        unlocked_area.select_patient(seeded_history.patient.id)
    assert settings.pause.value() == 6.0
