"""Therapist area, "Sauvegarde" tab: the recordings without an attempt, listed and played."""

from __future__ import annotations

import threading
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

pytest.importorskip("PySide6")

from test_therapist_history import FakePlayer  # noqa: E402
from therapist_fixtures import (  # noqa: E402
    SIGNAL_TIMEOUT_MS,
    SeededHistory,
    add_patient_with_attempt,
)

from therapy_app.audio.wavio import read_wav  # noqa: E402
from therapy_app.errors import AudioDeviceError  # noqa: E402

if TYPE_CHECKING:
    from therapy_app.gui.therapist import TherapistArea
    from therapy_app.gui.therapist.context import TherapistContext
    from therapy_app.gui.therapist.orphan_recordings import OrphanRecordingsSection
    from therapy_app.storage import SessionRepository

pytestmark = pytest.mark.gui


def _stray_recording(repo: SessionRepository, patient_id: int, clip_file: Path) -> Path:
    """A real recording where the app writes them, whose attempt row never came (a crash)."""
    saved = repo.attempts.save_recording(read_wav(clip_file), patient_id)
    return repo.data_dir / saved.relative_path


def _shown_section(
    qtbot,  # noqa: ANN001
    context: TherapistContext,
    player: FakePlayer,
) -> OrphanRecordingsSection:
    """The section alone, playing through ``player``, shown and listed."""
    from therapy_app.gui.therapist.orphan_recordings import OrphanRecordingsSection

    section = OrphanRecordingsSection(context)
    qtbot.addWidget(section)
    section.player = player
    with qtbot.waitSignal(section.loaded, timeout=SIGNAL_TIMEOUT_MS):
        section.show()  # listed each time it is shown
    return section


def test_a_recording_without_attempt_is_listed_and_plays_off_the_ui_thread(
    qtbot, therapist_context: TherapistContext, therapist_repo: SessionRepository, speech_dir: Path
) -> None:
    from therapy_app.gui.therapist.orphan_recordings import PLAY_TEXT, STOP_TEXT

    add_patient_with_attempt(therapist_repo, "Paul Martin", read_wav(speech_dir / "word_01.wav"))
    patient = therapist_repo.patients.create("Jeanne Dupont")
    stray = _stray_recording(therapist_repo, patient.id, speech_dir / "sentence_06.wav")

    player = FakePlayer()
    section = _shown_section(qtbot, therapist_context, player)
    assert section.list.count() == 1  # Paul's recording has its attempt
    item = section.list.item(0)
    written = datetime.fromtimestamp(stray.stat().st_mtime)
    assert item.text() == f"Patient n° {patient.id} · {written:%d/%m/%Y à %H:%M}"
    assert item.toolTip() == stray.relative_to(therapist_repo.data_dir).as_posix()
    assert section.summary.text().startswith("1 enregistrement(s) sans essai :")
    assert str(therapist_repo.data_dir / "recordings") in section.summary.text()

    with qtbot.waitSignal(section.playback_started, timeout=SIGNAL_TIMEOUT_MS) as started:
        section.play_button.click()
    assert started.args == [item.toolTip()]
    assert len(player.clips) == 1
    assert player.clips[0].duration == pytest.approx(read_wav(stray).duration)
    assert player.threads[0] != threading.get_ident()
    assert section.play_button.text() == STOP_TEXT
    section.play_button.click()
    assert not player.playing
    assert section.play_button.text() == PLAY_TEXT
    assert stray.is_file()  # nothing deletes it


def test_without_orphans_the_section_says_so_in_one_line(
    qtbot, therapist_context: TherapistContext, therapist_repo: SessionRepository, speech_dir: Path
) -> None:
    add_patient_with_attempt(therapist_repo, "Paul Martin", read_wav(speech_dir / "word_01.wav"))
    section = _shown_section(qtbot, therapist_context, FakePlayer())
    assert section.summary.text() == "Aucun enregistrement sans essai."
    assert section.list.isHidden() and section.play_button.isHidden()


def test_playing_without_a_speaker_says_so_in_french(
    qtbot, therapist_context: TherapistContext, therapist_repo: SessionRepository, speech_dir: Path
) -> None:
    patient = therapist_repo.patients.create("Jeanne Dupont")
    _stray_recording(therapist_repo, patient.id, speech_dir / "word_01.wav")
    error = AudioDeviceError("Aucun haut-parleur n'est disponible.", "Branchez un casque.")
    section = _shown_section(qtbot, therapist_context, FakePlayer(error))
    section.play_button.click()
    qtbot.waitUntil(lambda: section.status.isVisible(), timeout=SIGNAL_TIMEOUT_MS)
    assert section.status.text() == error.french()
    assert section.play_button.isEnabled()


def test_the_backup_tab_lists_them_and_locking_forgets_them(
    qtbot,
    unlocked_area: TherapistArea,
    therapist_repo: SessionRepository,
    seeded_history: SeededHistory,
    speech_dir: Path,
) -> None:
    stray = _stray_recording(therapist_repo, seeded_history.other.id, speech_dir / "word_02.wav")
    section, player = unlocked_area.backup.orphans, FakePlayer()
    section.player = player
    with qtbot.waitSignal(section.loaded, timeout=SIGNAL_TIMEOUT_MS) as loaded:
        unlocked_area.tabs.setCurrentWidget(unlocked_area.backup)
    assert loaded.args == [1]  # the seeded attempts' recordings are not listed
    assert section.list.item(0).toolTip() == stray.relative_to(therapist_repo.data_dir).as_posix()
    with qtbot.waitSignal(section.playback_started, timeout=SIGNAL_TIMEOUT_MS):
        section.play_button.click()
    unlocked_area.lock()
    assert section.list.count() == 0 and section.summary.text() == ""
    assert not player.playing
    assert stray.is_file()


def test_a_line_shows_the_month_without_a_date_and_the_path_off_the_layout(tmp_path: Path) -> None:
    from therapy_app.gui.therapist.orphan_recordings import orphan_line
    from therapy_app.storage.orphans import OrphanRecording

    unread = OrphanRecording("recordings/4/2025-03/a.wav", 4, "2025-03", None, tmp_path / "a.wav")
    assert orphan_line(unread) == "Patient n° 4 · 03/2025"
    odd = OrphanRecording("recordings/copie.wav", None, None, None, tmp_path / "copie.wav")
    assert orphan_line(odd) == "recordings/copie.wav"
