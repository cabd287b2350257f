"""The « Voix » tab: usable recordings, last adaptation, revert, adapt, enrolment (issue 26).

Real repository, real voice folder (enrolment recordings through
``add_enrolment``, decisions through the store), real WAVs through the real
recorder and end-of-speech detector, the real French voice. Only the
adaptation handle is scripted, at the trainer-process boundary: a real run
trains for minutes. The real ``start_adaptation`` is exercised too, where it
refuses at once.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

pytest.importorskip("PySide6")

import shiboken6  # noqa: E402
from practice_fixtures import SpokenClips, require_models  # noqa: E402
from therapist_fixtures import SIGNAL_TIMEOUT_MS, log_in, open_area  # noqa: E402
from voice_fixtures import voice_decision  # noqa: E402

from therapy_app.audio.recorder import Recorder, SoundDeviceSource  # noqa: E402
from therapy_app.audio.wavio import read_wav  # noqa: E402
from therapy_app.errors import TherapyAppError  # noqa: E402
from therapy_app.model_store import sha256_file  # noqa: E402
from therapy_app.speech.services import SilentPlayer  # noqa: E402
from therapy_app.storage import SessionRepository  # noqa: E402
from therapy_app.voice import store  # noqa: E402
from therapy_app.voice.adaptation import MIN_SAMPLES, AdaptationCancelledError  # noqa: E402
from therapy_app.voice.enrolment import add_enrolment, samples_dir, stored_samples  # noqa: E402
from therapy_app.voice.model import AdaptProgress, VoiceDecision  # noqa: E402
from therapy_app.voice.samples import usable_counts  # noqa: E402

if TYPE_CHECKING:
    from therapist_fixtures import SeededHistory

    from therapy_app.gui.therapist import TherapistArea
    from therapy_app.gui.therapist.voice_panel import VoicePanel
    from therapy_app.gui.therapist.voice_recording import EnrolmentAudio

pytestmark = pytest.mark.gui

SPEECH = Path(__file__).resolve().parent / "data" / "speech"
WORDS = ("word_01.wav", "word_02.wav", "word_03.wav", "word_04.wav")
LAPTOP_AREA = (1256, 600)
"""The therapist area inside the window on a 1366×768 screen (as the program tab's test)."""


# -- the adaptation at the process boundary ------------------------------------------


class ScriptedRun:
    """An adaptation handle whose trainer reports what the test says, then ends as told.

    Ending with a decision writes it through the real store, as a real run does.
    """

    def __init__(self, repository: SessionRepository, patient_id: int) -> None:
        self._repository = repository
        self._patient_id = patient_id
        self._reports: deque[AdaptProgress] = deque()
        self._done = False
        self._decision: VoiceDecision | None = None
        self._error: TherapyAppError | None = None
        self.cancel_calls = 0

    def report(self, progress: AdaptProgress) -> None:
        self._reports.append(progress)

    def finish(self, decision: VoiceDecision | None, adapter: Path | None = None) -> None:
        if decision is not None:
            store.save_decision(self._repository.data_dir, self._patient_id, decision, adapter)
        self._decision = decision
        self._done = True

    def poll(self) -> AdaptProgress | None:
        return self._reports.popleft() if self._reports else None

    def cancel(self) -> None:
        self.cancel_calls += 1
        self._error = AdaptationCancelledError(
            "L'adaptation de la reconnaissance a été arrêtée.",
            "Relancez-la : l'apprentissage reprendra où il s'était arrêté.",
        )
        self._done = True

    @property
    def done(self) -> bool:
        return self._done

    def wait(self, timeout: float | None = None) -> bool:
        return self._done

    def result(self) -> VoiceDecision | None:
        return self._decision if self._done else None

    @property
    def error(self) -> TherapyAppError | None:
        return self._error if self._done else None


# -- data through the real API -------------------------------------------------------------


def _enrol(repo: SessionRepository, patient_id: int, names: tuple[str, ...], ok: bool) -> None:
    for number, name in enumerate(names):
        add_enrolment(repo, patient_id, read_wav(SPEECH / name), f"mot {number} {name}", ok)


def _adapter(folder: Path) -> Path:
    path = folder / "adapter.npz"
    path.write_bytes(b"a personal adapter: the store only checks its sha256" * 10)
    return path


@pytest.fixture
def voice_data(
    seeded_history: SeededHistory, therapist_repo: SessionRepository, tmp_path: Path
) -> SeededHistory:
    """The first patient: a confirmed try, an edited transcript, 3 right and 1 wrong enrolment
    recordings, and an adopted personal model."""
    first, second = seeded_history.attempt_ids[:2]
    therapist_repo.attempts.override_verdict(first, True, "claire")
    therapist_repo.attempts.edit_transcript(second, "transcript", "le train demain", "claire")
    pid = seeded_history.patient.id
    _enrol(therapist_repo, pid, WORDS[:3], ok=True)
    _enrol(therapist_repo, pid, WORDS[3:], ok=False)
    adapter = _adapter(tmp_path)
    store.save_decision(therapist_repo.data_dir, pid, voice_decision(sha256_file(adapter)), adapter)
    return seeded_history


def _voice_area(qtbot, repo, runner, **kwargs) -> TherapistArea:  # noqa: ANN001
    area = open_area(qtbot, repo, runner, **kwargs)
    log_in(qtbot, area)
    return area


def _panel(qtbot, context, runs, patient, start=None) -> VoicePanel:  # noqa: ANN001
    """A VoicePanel with the test's run registry (and trainer), showing ``patient``."""
    from therapy_app.gui.therapist.voice_panel import VoicePanel

    panel = VoicePanel(context, runs=runs, start=start)
    qtbot.addWidget(panel)
    panel.show()
    with qtbot.waitSignal(panel.status_loaded, timeout=SIGNAL_TIMEOUT_MS):
        panel.set_patient(patient)
    return panel


def _adapting(qtbot, context, runs, patient) -> tuple[VoicePanel, ScriptedRun]:  # noqa: ANN001
    """A :func:`_panel` on ``patient`` whose scripted adaptation has started."""
    run = ScriptedRun(context.repository, patient.id)
    panel = _panel(qtbot, context, runs, patient, lambda r, p: run)
    with qtbot.waitSignal(panel.adaptation_started, timeout=SIGNAL_TIMEOUT_MS):
        panel.adapt()
    return panel, run


def _open_voice_tab(qtbot, area: TherapistArea) -> VoicePanel:  # noqa: ANN001
    """The « Voix » tab, shown once the status of the selected patient is read."""
    from therapy_app.gui.therapist.area import TAB_VOICE

    assert area.tabs.tabText(TAB_VOICE) == "Voix"
    with qtbot.waitSignal(area.voice.status_loaded, timeout=SIGNAL_TIMEOUT_MS):
        area.tabs.setCurrentIndex(TAB_VOICE)
    return area.voice


@pytest.fixture
def runs():  # noqa: ANN201
    """A registry of runs of this test only (the app's one outlives the area)."""
    from therapy_app.gui.therapist.voice_runs import AdaptationRuns

    registry = AdaptationRuns()
    yield registry
    registry.cancel_all(wait_s=5)


@pytest.fixture
def enrolment_audio() -> Iterator[tuple[EnrolmentAudio, SpokenClips, SilentPlayer]]:
    """The real voice and detector; the "patient" speaks committed WAVs; no speaker."""
    require_models()
    from therapy_app.gui.therapist.voice_recording import EnrolmentAudio
    from therapy_app.tts.synthesizer import SpeechSynthesizer
    from therapy_app.vad.silero import VoiceActivityDetector

    spoken, player = SpokenClips(), SilentPlayer()
    yield (
        EnrolmentAudio(SpeechSynthesizer.load(), VoiceActivityDetector.load(), spoken, player),
        spoken,
        player,
    )


# -- what the therapist sees ---------------------------------------------------------------------


def test_the_tab_shows_usable_recordings_the_model_in_use_and_the_last_adaptation(
    qtbot, voice_data, therapist_repo, therapist_runner
) -> None:
    area = _voice_area(qtbot, therapist_repo, therapist_runner)
    panel = _open_voice_tab(qtbot, area)
    counts = usable_counts(therapist_repo, voice_data.patient.id)
    assert counts["confirmed"] == 1 and counts["edited"] == 1 and counts["enrolment"] == 3
    total = sum(counts.values())
    assert panel.title.text() == "Voix de Jeanne Dupont"
    assert panel.usable_label.text() == f"{total} enregistrements utilisables"
    sources = panel.sources_label.text()
    assert "1 confirmé par le thérapeute" in sources
    assert "1 transcription corrigée" in sources
    assert "3 de la séance « Enregistrer la voix »" in sources  # the wrong one is not taught
    assert "importés" not in sources  # none: not listed
    assert panel.needed_label.isVisible()
    assert f"au moins {MIN_SAMPLES}" in panel.needed_label.text()
    assert panel.model_label.text() == "Modèle utilisé : Modèle personnel"
    assert panel.decision_label.text().startswith("Le 14/03/2025")
    assert "modèle personnel adopté" in panel.decision_label.text()
    assert panel.reason_label.text().startswith("Moins de mots mal reconnus")
    cells = {field: (g.text(), p.text()) for field, (g, p) in panel.figure_cells.items()}
    assert cells["wer"] == ("42\u00a0%", "18\u00a0%")
    assert cells["words_right"] == ("50\u00a0%", "75\u00a0%")
    assert cells["verdict_true_accept"] == ("60\u00a0%", "90\u00a0%")
    assert "12 enregistrements du patient mis de côté" in panel.figures_caption.text()
    assert "48 enregistrements en 14,5\u00a0min" in panel.figures_caption.text()
    assert panel.revert_button.isEnabled() and panel.record_button.isEnabled()
    assert panel.adapt_button.isEnabled() and not panel.progress.isVisible()

    # Another patient: nothing learnt, nothing usable.
    with qtbot.waitSignal(panel.status_loaded, timeout=SIGNAL_TIMEOUT_MS):
        area.select_patient(voice_data.other.id)
    assert panel.title.text() == "Voix de Paul Martin"
    assert panel.model_label.text() == "Modèle utilisé : Modèle général"
    assert panel.decision_label.text() == "Aucune adaptation n'a encore été faite."
    assert not panel.figures_box.isVisible() and not panel.revert_button.isEnabled()

    area.lock()  # nothing of any patient stays on screen
    assert panel.title.text() == "" and panel.usable_label.text() == ""


def test_revert_asks_first_then_the_generic_model_is_used_and_can_be_taken_back(
    qtbot, voice_data, therapist_repo, therapist_runner
) -> None:
    area = _voice_area(qtbot, therapist_repo, therapist_runner)
    panel = _open_voice_tab(qtbot, area)
    data_dir, pid = therapist_repo.data_dir, voice_data.patient.id
    assert store.personal_model(data_dir, pid) is not None

    panel.revert_button.click()
    box = panel.confirm_box
    assert box is not None and "Revenir au modèle général pour Jeanne Dupont" in box.text()
    assert box.defaultButton().text() == "Annuler"  # Enter by mistake changes nothing
    box.defaultButton().click()
    qtbot.waitUntil(lambda: panel.confirm_box is None)
    assert store.personal_model(data_dir, pid) is not None

    panel.revert_button.click()
    yes = next(b for b in panel.confirm_box.buttons() if b.text() == "Revenir au modèle général")
    with qtbot.waitSignal(panel.status_loaded, timeout=SIGNAL_TIMEOUT_MS):
        yes.click()
    assert store.personal_model(data_dir, pid) is None
    assert panel.model_label.text() == "Modèle utilisé : Modèle général"
    assert "retour au modèle général" in panel.decision_label.text()
    assert panel.message.text() == "Le modèle général est de nouveau utilisé."
    assert not panel.revert_button.isVisible() and panel.undo_button.isVisible()

    with qtbot.waitSignal(panel.status_loaded, timeout=SIGNAL_TIMEOUT_MS):
        panel.undo_button.click()
    assert store.personal_model(data_dir, pid) is not None
    assert panel.model_label.text() == "Modèle utilisé : Modèle personnel"
    assert panel.revert_button.isVisible() and panel.revert_button.isEnabled()


# -- adapting -------------------------------------------------------------------------------------


def test_adapting_shows_the_progress_keeps_the_panel_usable_and_shows_the_decision(
    qtbot, voice_data, therapist_repo, therapist_runner, therapist_context, runs, tmp_path
) -> None:
    pid = voice_data.patient.id
    run = ScriptedRun(therapist_repo, pid)
    started: list[int] = []

    def start(repository: SessionRepository, patient_id: int) -> ScriptedRun:
        started.append(patient_id)
        return run

    area = _voice_area(qtbot, therapist_repo, therapist_runner)
    # The area's panel with the scripted trainer and this test's registry.
    panel = _panel(qtbot, therapist_context, runs, voice_data.patient, start)
    with qtbot.waitSignal(panel.adaptation_started, timeout=SIGNAL_TIMEOUT_MS):
        panel.adapt_button.click()
    assert started == [pid]
    assert panel.progress.isVisible() and panel.cancel_button.isVisible()
    assert not panel.adapt_button.isEnabled() and not panel.revert_button.isEnabled()

    run.report(AdaptProgress("train", 30, 100, eta_s=360.0))
    qtbot.waitUntil(lambda: panel.progress.value() == 30, timeout=SIGNAL_TIMEOUT_MS)
    assert panel.progress.maximum() == 100
    assert panel.progress_label.text() == "Apprentissage : 30/100 (encore environ 6 min)…"
    # The panel stays usable: another patient, then back to the one adapting.
    with qtbot.waitSignal(panel.status_loaded, timeout=SIGNAL_TIMEOUT_MS):
        panel.set_patient(voice_data.other)
    assert not panel.progress.isVisible() and panel.adapt_button.isEnabled()
    with qtbot.waitSignal(panel.status_loaded, timeout=SIGNAL_TIMEOUT_MS):
        panel.set_patient(voice_data.patient)
    assert panel.progress.isVisible()
    assert panel.progress_label.text() == "Apprentissage : 30/100 (encore environ 6 min)…"
    run.report(AdaptProgress("validate", 4, 12))
    qtbot.waitUntil(
        lambda: panel.progress_label.text().startswith("Vérification"), timeout=SIGNAL_TIMEOUT_MS
    )

    adapter = _adapter(tmp_path)
    better = voice_decision(sha256_file(adapter))
    with qtbot.waitSignal(panel.adaptation_ended, timeout=SIGNAL_TIMEOUT_MS) as ended:
        run.finish(better, adapter)
    assert ended.args == [better]
    assert panel.message.text().startswith("Adaptation terminée : le modèle personnel est adopté.")
    qtbot.waitUntil(lambda: panel.adapt_button.isEnabled(), timeout=SIGNAL_TIMEOUT_MS)
    assert not panel.progress.isVisible() and not panel.cancel_button.isVisible()
    assert panel.model_label.text() == "Modèle utilisé : Modèle personnel"
    assert runs.get(therapist_repo.data_dir, pid) is None
    area.close()


def test_annuler_stops_the_run_and_says_it_resumes(
    qtbot, voice_data, therapist_repo, therapist_context, runs
) -> None:
    panel, run = _adapting(qtbot, therapist_context, runs, voice_data.patient)
    with qtbot.waitSignal(panel.adaptation_ended, timeout=SIGNAL_TIMEOUT_MS) as ended:
        panel.cancel_button.click()
    assert ended.args == [None] and run.cancel_calls == 1
    assert "reprendra où il s'était arrêté" in panel.message.text()
    assert panel.message.property("role") == "muted"
    # The personal model in use before the run is still in use.
    assert store.personal_model(therapist_repo.data_dir, voice_data.patient.id) is not None


def test_a_run_outlives_the_area_and_stops_when_the_app_quits(
    qtbot, voice_data, therapist_context, runs
) -> None:
    first, run = _adapting(qtbot, therapist_context, runs, voice_data.patient)
    run.report(AdaptProgress("train", 10, 100, eta_s=600.0))
    qtbot.waitUntil(lambda: first.progress.value() == 10, timeout=SIGNAL_TIMEOUT_MS)
    # The therapist left the area: the panel is gone (deleted here, not at some
    # later point of the suite), the run goes on.
    first.close()
    shiboken6.delete(first)
    qtbot.wait(50)
    assert run.cancel_calls == 0

    again = _panel(qtbot, therapist_context, runs, voice_data.patient)
    assert again.progress.isVisible() and again.progress.value() == 10
    assert not again.adapt_button.isEnabled()

    runs.cancel_all(wait_s=1)  # what the application does when it quits
    assert run.cancel_calls == 1


def test_the_real_adaptation_refuses_at_once_with_too_few_recordings(
    qtbot, seeded_history, therapist_repo, therapist_runner
) -> None:
    area = _voice_area(qtbot, therapist_repo, therapist_runner)
    panel = _open_voice_tab(qtbot, area)
    assert panel.status.usable_total < MIN_SAMPLES
    with qtbot.waitSignal(panel.failed, timeout=SIGNAL_TIMEOUT_MS) as failed:
        panel.adapt_button.click()
    assert failed.args[0].startswith(f"Il faut au moins {MIN_SAMPLES} enregistrements utilisables")
    assert panel.message.isVisible() and panel.message.text() == failed.args[0]
    assert panel.message.property("role") == "error"
    assert panel.adapt_button.isEnabled() and not panel.progress.isVisible()
    assert not store.is_running(therapist_repo.data_dir, seeded_history.patient.id)


# -- « Enregistrer la voix » --------------------------------------------------------------------


def _activate(qtbot, dialog) -> None:  # noqa: ANN001
    dialog.activateWindow()
    qtbot.waitUntil(dialog.isActiveWindow, timeout=5000)


def test_the_recording_session_stores_a_right_and_a_wrong_try_with_the_keyboard(
    qtbot, seeded_history, therapist_repo, therapist_runner, enrolment_audio
) -> None:
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    from therapy_app.gui.therapist.voice_recording import Step

    audio, spoken, player = enrolment_audio
    area = _voice_area(qtbot, therapist_repo, therapist_runner, audio=lambda: audio)
    panel = _open_voice_tab(qtbot, area)
    panel.record_button.click()
    dialog = panel.enrolment
    assert dialog is not None and dialog.isVisible()
    qtbot.waitUntil(lambda: dialog.step is Step.READY, timeout=SIGNAL_TIMEOUT_MS)
    _activate(qtbot, dialog)
    items = dialog.items
    assert len(items) == 50 and dialog.counter.text() == "1 / 50"
    assert dialog.text.text() == items[0]
    assert not dialog.right_button.isEnabled()  # nothing recorded yet

    QTest.keyClick(dialog, Qt.Key.Key_E)  # « Écouter »: the real voice says the item
    qtbot.waitUntil(lambda: len(player.played) == 1, timeout=SIGNAL_TIMEOUT_MS)
    qtbot.waitUntil(lambda: dialog.step is Step.READY, timeout=SIGNAL_TIMEOUT_MS)
    assert player.played[0].duration > 0.3

    spoken.say(WORDS[0])
    with qtbot.waitSignal(dialog.recording_done, timeout=60_000) as done:
        QTest.keyClick(dialog, Qt.Key.Key_Space)  # ends at the patient's own silence
    assert done.args == [True] and dialog.step is Step.JUDGING
    with qtbot.waitSignal(dialog.item_stored, timeout=SIGNAL_TIMEOUT_MS) as stored:
        QTest.keyClick(dialog, Qt.Key.Key_J)
    assert stored.args == [0, True]
    assert dialog.counter.text() == "2 / 50" and dialog.text.text() == items[1]

    spoken.say(WORDS[1])
    with qtbot.waitSignal(dialog.recording_done, timeout=60_000):
        dialog.record_button.click()
    with qtbot.waitSignal(dialog.item_stored, timeout=SIGNAL_TIMEOUT_MS) as stored:
        dialog.right_button.click()
    assert stored.args == [1, True]
    spoken.say(WORDS[2])
    with qtbot.waitSignal(dialog.recording_done, timeout=60_000):
        QTest.keyClick(dialog, Qt.Key.Key_Space)
    with qtbot.waitSignal(dialog.item_stored, timeout=SIGNAL_TIMEOUT_MS) as stored:
        QTest.keyClick(dialog, Qt.Key.Key_F)
    assert stored.args == [2, False]
    assert dialog.counter.text() == "4 / 50"
    assert dialog.tally.text() == "3 enregistré(s) : 2 juste(s), 1 faux"

    samples = stored_samples(therapist_repo.data_dir, seeded_history.patient.id)
    assert [(s.text, s.accepted, s.source) for s in samples] == [
        (items[0], True, "enrolment"),
        (items[1], True, "enrolment"),
        (items[2], False, "enrolment"),
    ]
    for sample in samples:
        clip = read_wav(sample.audio)
        assert sample.duration_s == pytest.approx(clip.duration, abs=0.01) and clip.duration > 0.5
    assert usable_counts(therapist_repo, seeded_history.patient.id)["enrolment"] == 2

    with qtbot.waitSignal(panel.status_loaded, timeout=SIGNAL_TIMEOUT_MS):
        dialog.finish_button.click()  # « Terminer »: the tab counts them
    assert panel.enrolment is None  # closed (and deleted)
    assert "2 de la séance « Enregistrer la voix »" in panel.sources_label.text()
    assert panel.message.text().startswith("« Enregistrer la voix » : 3 enregistrement(s)")


def test_no_microphone_or_a_failed_save_is_said_in_french_and_loses_nothing(
    qtbot, seeded_history, therapist_repo, therapist_runner, enrolment_audio
) -> None:
    from dataclasses import replace

    from therapy_app.gui.therapist.voice_recording import EnrolmentDialog, Step

    audio, spoken, _player = enrolment_audio
    # The first recording is the patient's; then the microphone is unplugged.
    microphones = iter([spoken, lambda: Recorder(SoundDeviceSource("micro débranché"))])

    def next_microphone() -> Recorder:
        return next(microphones)()

    dialog = EnrolmentDialog(
        therapist_repo,
        therapist_runner,
        seeded_history.patient,
        replace(audio, recorder_factory=next_microphone),
        items=["une pomme", "Bonjour."],
    )
    qtbot.addWidget(dialog)
    dialog.show()
    spoken.say(WORDS[0])
    with qtbot.waitSignal(dialog.recording_done, timeout=60_000):
        dialog.start_recording()
    # Recording again with the microphone gone: a French message, the try is still there.
    with qtbot.waitSignal(dialog.failed, timeout=SIGNAL_TIMEOUT_MS) as failed:
        dialog.start_recording()
    assert "micro" in failed.args[0] and dialog.status.text() == failed.args[0]
    assert dialog.step is Step.JUDGING and dialog.right_button.isEnabled()
    # Storing fails (the samples folder cannot be made): the try stays, marked again later.
    blocker = samples_dir(therapist_repo.data_dir, seeded_history.patient.id)
    blocker.parent.mkdir(parents=True)
    blocker.write_text("not a folder")
    with qtbot.waitSignal(dialog.failed, timeout=SIGNAL_TIMEOUT_MS):
        dialog.right_button.click()
    assert dialog.step is Step.JUDGING and dialog.stored == 0
    assert dialog.status.property("role") == "error"
    blocker.unlink()
    with qtbot.waitSignal(dialog.item_stored, timeout=SIGNAL_TIMEOUT_MS):
        dialog.right_button.click()
    assert [s.text for s in stored_samples(therapist_repo.data_dir, seeded_history.patient.id)] == [
        "une pomme"
    ]
    # The last item, skipped: the session ends, nothing more stored.
    dialog.skip_button.click()
    assert dialog.step is Step.FINISHED and dialog.counter.text() == "2 / 2"
    assert dialog.status.text().startswith("1 enregistrement(s) gardé(s)")
    assert not dialog.record_button.isEnabled()


# -- the screen -----------------------------------------------------------------------------------


def test_the_voice_tab_and_the_session_fit_a_laptop_screen(
    qtbot, voice_data, therapist_repo, therapist_runner, runs, enrolment_audio
) -> None:
    from screen_clipping import problems

    from therapy_app.gui.therapist.voice_recording import EnrolmentDialog, Step

    audio, _spoken, _player = enrolment_audio
    area = _voice_area(qtbot, therapist_repo, therapist_runner, audio=lambda: audio)
    run = ScriptedRun(therapist_repo, voice_data.patient.id)
    # The area's own panel, with this test's runs: the tallest state has a run under way.
    area.voice._runs = runs  # noqa: SLF001 - the registry is chosen at construction
    area.voice._start = lambda r, p: run  # noqa: SLF001
    area.resize(*LAPTOP_AREA)
    _open_voice_tab(qtbot, area)
    with qtbot.waitSignal(area.voice.adaptation_started, timeout=SIGNAL_TIMEOUT_MS):
        area.voice.adapt_button.click()
    run.report(AdaptProgress("train", 30, 100, eta_s=360.0))
    qtbot.waitUntil(lambda: area.voice.progress.value() == 30, timeout=SIGNAL_TIMEOUT_MS)
    qtbot.wait(50)
    panel: VoicePanel = area.voice
    assert area.voice_scroll.horizontalScrollBar().maximum() == 0
    actions = (panel.adapt_button, panel.record_button, panel.revert_button, panel.cancel_button)
    assert problems(area, (*actions, panel.progress, panel.progress_label)) == []
    panel.cancel_button.click()

    dialog = EnrolmentDialog(therapist_repo, therapist_runner, voice_data.patient, audio)
    qtbot.addWidget(dialog)
    dialog.resize(900, 620)
    dialog.show()
    qtbot.waitUntil(lambda: dialog.step is Step.READY, timeout=SIGNAL_TIMEOUT_MS)
    longest = max(range(len(dialog.items)), key=lambda i: len(dialog.items[i]))
    for _ in range(longest):
        dialog.skip()
    qtbot.wait(50)
    assert dialog.text.text() == max(dialog.items, key=len)
    buttons = (dialog.listen_button, dialog.record_button, dialog.right_button)
    assert problems(dialog, (*buttons, dialog.wrong_button, dialog.finish_button)) == []
    assert dialog.minimumSizeHint().height() <= 700 and dialog.minimumSizeHint().width() <= 1300
