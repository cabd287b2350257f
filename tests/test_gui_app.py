"""The app shell: first profile, profile picker, missing models, no microphone, therapist area."""

from __future__ import annotations

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import Qt  # noqa: E402
from therapist_fixtures import PASSWORD, USERNAME, log_in, open_attempt  # noqa: E402

from therapy_app.audio.recorder import Recorder, SoundDeviceSource  # noqa: E402
from therapy_app.practice.events import ErrorOccurred, State  # noqa: E402
from therapy_app.speech.loading import LOAD_STEPS  # noqa: E402

pytest_plugins = ("gui_fixtures",)
pytestmark = pytest.mark.gui


def test_first_run_creates_the_profile_with_the_keyboard(open_window, repository, offline_steps):
    driver = open_window(steps=offline_steps)
    window = driver.window
    driver.qtbot.waitUntil(lambda: window.profiles.pages.currentWidget() is window.profiles.form)
    form = window.profiles.form
    assert form.heading.text() == "Bienvenue !"
    assert not form.cancel_button.isVisible()
    driver.qtbot.waitUntil(form.name.hasFocus, timeout=5000)
    driver.key(Qt.Key.Key_Return)  # nothing typed: a French hint, no profile
    assert form.error.isVisible() and "prénom" in form.error.text()
    driver.qtbot.keyClicks(form.name, "Marcel")
    driver.key(Qt.Key.Key_Return)
    driver.wait_screen("chooser")
    assert [p.display_name for p in repository.patients.all()] == ["Marcel"]
    assert "Bonjour Marcel" in window.chooser.greeting.text()
    assert window.patient_name.text() == "Marcel"


def test_several_profiles_are_listed_and_picked_with_the_keyboard(
    open_window, repository, offline_steps
):
    repository.patients.create("Jeanne Martin")
    repository.patients.create("Paul Durand")
    driver = open_window(steps=offline_steps)
    window = driver.window
    driver.qtbot.waitUntil(lambda: len(window.profiles.buttons) == 2, timeout=5000)
    assert window.current_screen == "profiles"
    names = [b.patient.display_name for b in window.profiles.buttons]
    assert names == ["Jeanne Martin", "Paul Durand"]
    driver.qtbot.waitUntil(window.profiles.buttons[0].hasFocus, timeout=5000)
    driver.key(Qt.Key.Key_Tab)
    driver.key(Qt.Key.Key_Return)
    driver.wait_screen("chooser")
    assert window.patient.display_name == "Paul Durand"
    driver.key(Qt.Key.Key_Escape)
    driver.wait_screen("profiles")


@pytest.mark.slow
def test_a_damaged_corrector_is_noticed_in_french_and_the_app_goes_on(
    open_window, repository, tmp_path, monkeypatch
):
    from gui_fixtures import preloaded_steps
    from practice_fixtures import damaged_corrector_models

    from therapy_app.speech.loading import load_corrector

    engines = preloaded_steps()  # loaded before the corrector is broken
    models = damaged_corrector_models(tmp_path / "models", "flipped")
    monkeypatch.setenv("THERAPY_APP_MODELS_DIR", str(models))
    # The real corrector step (the one `therapy-app loop` runs too).
    steps = [s for s in engines if s.key != "corrector"]
    steps += [s for s in LOAD_STEPS if s.key == "corrector"]
    repository.patients.create("Jeanne Martin")
    driver = open_window(steps=steps)
    driver.wait_ready()
    window = driver.window
    notice = load_corrector().notice  # the text the command line prints
    assert window.services.corrector is None
    assert window.services.notices == (notice,)
    driver.qtbot.waitUntil(window.banner.isVisible, timeout=5000)
    assert window.banner.text() == notice
    assert window.loader.error is None
    driver.wait_screen("chooser")
    assert all(b.isEnabled() for b in window.chooser.buttons.values())


@pytest.mark.slow
def test_missing_models_are_explained_in_french(open_window, repository, tmp_path, monkeypatch):
    monkeypatch.setenv("THERAPY_APP_MODELS_DIR", str(tmp_path / "no-models"))
    repository.patients.create("Jeanne Martin")
    driver = open_window(steps=list(LOAD_STEPS))  # the real loaders
    window = driver.window
    driver.qtbot.waitUntil(lambda: window.loader.error is not None, timeout=60_000)
    driver.wait_screen("chooser")
    message = window.loader.error
    assert message.startswith("Il manque")
    assert "therapy-app build-models" in message
    chooser = window.chooser
    driver.qtbot.waitUntil(chooser.banner.isVisible, timeout=5000)
    assert "Il manque" in chooser.banner.text()
    assert chooser.retry_button.isVisible()
    driver.qtbot.waitUntil(chooser.retry_button.hasFocus, timeout=5000)  # Space tries again
    assert not any(b.isEnabled() for b in chooser.buttons.values())
    driver.key(Qt.Key.Key_1)  # nothing opens without the models
    assert window.current_screen == "chooser"


@pytest.mark.slow
def test_a_missing_microphone_is_explained_in_french(open_window, repository):
    repository.patients.create("Jeanne Martin")

    def no_microphone() -> Recorder:
        # The real sounddevice source, asked for a device that does not exist.
        return Recorder(SoundDeviceSource(device="micro-qui-n-existe-pas"))

    driver = open_window(recorder_factory=no_microphone)
    driver.open_exercise(Qt.Key.Key_1, "free_speech")
    driver.key(Qt.Key.Key_Space)
    driver.qtbot.waitUntil(lambda: bool(driver.of_type(ErrorOccurred)), timeout=10_000)
    screen = driver.screen
    assert screen.controller.state is State.IDLE
    assert screen.banner.isVisible()
    text = screen.banner.text()
    try:  # the message says which is missing: the sound system, or this microphone
        import sounddevice  # noqa: F401

        expected = "Le micro choisi est introuvable"
    except OSError:
        expected = "Aucun système audio"
    assert expected in text, text
    assert screen.record_button.isEnabled()  # the patient can try again


def test_therapist_button_opens_the_area_and_comes_back(open_window, repository, offline_steps):
    repository.patients.create("Jeanne Martin")
    driver = open_window(steps=offline_steps)
    window = driver.window
    driver.wait_screen("chooser")
    window.therapist_button.click()
    driver.wait_screen("therapist")
    assert window.therapist is not None
    window.therapist.closed.emit()
    driver.wait_screen("chooser")


def test_therapist_area_missing_says_soon_available(
    open_window, repository, monkeypatch, offline_steps
):
    import importlib

    real_import = importlib.import_module

    def without_area(name, *args):
        if name == "therapy_app.gui.therapist":
            raise ImportError("not written yet")
        return real_import(name, *args)

    monkeypatch.setattr(importlib, "import_module", without_area)
    repository.patients.create("Jeanne Martin")
    driver = open_window(steps=offline_steps)
    window = driver.window
    driver.wait_screen("chooser")
    window.therapist_button.click()
    assert window.current_screen == "chooser"
    assert window.banner.isVisible() and "bientôt disponible" in window.banner.text()


def test_restored_words_are_highlighted_in_the_proposals(qtbot):
    from therapy_app.correction.diff import word_diff
    from therapy_app.gui.patient.choices import ChoiceButton
    from therapy_app.gui.patient.sentence_view import restored_words, sentence_html
    from therapy_app.practice.events import Proposal

    sentence = "Je suis allé à la boulangerie hier."
    diff = word_diff("moi aller boulangerie hier", sentence)
    html = sentence_html(sentence, diff)
    assert "text-decoration:underline" in html
    for word in restored_words(diff):
        assert word in html
    assert {"à", "la"} <= set(restored_words(diff))
    button = ChoiceButton(2, Proposal(sentence, -0.3, diff))
    qtbot.addWidget(button)
    assert button.sentence.text() == html
    assert button.accessibleName() == f"Choix 2 : {sentence}"
    assert sentence_html("Bonjour <toi>.", []) == "Bonjour &lt;toi&gt;."


def test_storage_notices_are_shown_to_the_patient(open_window, repository, offline_steps):
    from therapy_app.storage.opening import READ_ONLY_NOTICE

    # The read-only opening itself is tested in test_storage_faults (root ignores
    # folder permissions); here: the window shows what storage reports.
    repository.notices.append(READ_ONLY_NOTICE)
    driver = open_window(steps=offline_steps)
    assert driver.window.banner.isVisible()
    assert driver.window.banner.text() == READ_ONLY_NOTICE


def test_attempts_queued_behind_a_lock_are_written_by_the_retry_timer(
    open_window, repository, offline_steps, monkeypatch
):
    import sqlite3

    from storage_fixtures import make_clip, make_record

    from therapy_app.gui import main_window
    from therapy_app.storage import database

    monkeypatch.setattr(database, "BUSY_TIMEOUT_MS", 300)
    patient = repository.patients.create("Jeanne Martin")
    session = repository.sessions.start(patient.id, "repetition")
    other_program = sqlite3.connect(repository.db_path, isolation_level=None)
    other_program.execute("BEGIN IMMEDIATE")
    saved = repository.queue.save_attempt(
        make_record(session.id, raw_transcript="chat"), make_clip()
    )
    assert saved.queued and repository.queue.queued_attempt_count() == 1
    other_program.execute("ROLLBACK")
    other_program.close()

    driver = open_window(steps=offline_steps)
    assert driver.window._retry.interval() == main_window.QUEUE_RETRY_MS
    driver.window.retry_pending()  # what the timer does every minute
    driver.qtbot.waitUntil(lambda: repository.queue.queued_attempt_count() == 0, timeout=10_000)
    [attempt] = repository.attempts.all(session_id=session.id)
    assert attempt.transcript == "chat" and repository.attempts.verify_recording(attempt)


def test_escape_in_the_therapist_area_goes_back_as_its_header_says(
    open_window, repository, offline_steps, speech_dir
):
    from therapy_app.audio.wavio import read_wav
    from therapy_app.domain.attempt_record import AttemptRecord

    patient = repository.patients.create("Jeanne Martin")
    repository.accounts.create(USERNAME, PASSWORD)
    session = repository.sessions.start(patient.id, "repetition")
    attempt_id = repository.attempts.add(
        AttemptRecord(session_id=session.id, kind="repetition", raw_transcript="pomme"),
        read_wav(speech_dir / "word_01.wav"),
    )
    repository.sessions.end(session.id)
    driver = open_window(steps=offline_steps)
    window, qtbot = driver.window, driver.qtbot
    driver.wait_screen("chooser")
    assert window.back_button.text().endswith("(Échap)")
    window.therapist_button.click()
    driver.wait_screen("therapist")
    area = window.therapist
    assert area is not None and window.back_button.isVisible()
    login = area.login  # storage said an account exists: "Se connecter"
    qtbot.waitUntil(lambda: login.submit_button.isEnabled() and not login.creating, timeout=15_000)
    log_in(qtbot, area)
    open_attempt(qtbot, area, attempt_id)
    assert area.history_stack.currentWidget() is area.detail

    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=5000)
    driver.key(Qt.Key.Key_Escape)  # an attempt's detail: back to the history
    assert area.history_stack.currentWidget() is area.history
    assert window.current_screen == "therapist" and area.is_unlocked

    driver.key(Qt.Key.Key_Escape)  # the history: lock and back to the patient screens
    driver.wait_screen("chooser")
    assert window.therapist is None

    window.therapist_button.click()  # the password page too
    driver.wait_screen("therapist")
    driver.key(Qt.Key.Key_Escape)
    driver.wait_screen("chooser")


def test_the_window_title_names_the_app_once(qapp, open_window, repository, offline_steps):
    from therapy_app.gui import app as gui_app

    previous = qapp.applicationDisplayName()
    qapp.setApplicationDisplayName(gui_app.APP_NAME)  # as create_application() does
    try:
        driver = open_window(steps=offline_steps)
        title = driver.window.windowTitle()
        # Qt adds " — <display name>" to a title that does not end with it
        # (QPlatformWindow::formatWindowTitle): what the title bar shows.
        shown = title if title.endswith(gui_app.APP_NAME) else f"{title} — {gui_app.APP_NAME}"
        assert shown == "Entraînement à la parole — Orthophonie"
    finally:
        qapp.setApplicationDisplayName(previous)


def test_a_file_dialog_speaks_french_throughout(qapp) -> None:
    from PySide6.QtCore import QLocale
    from PySide6.QtWidgets import QFileDialog, QLabel

    from therapy_app.gui import app as gui_app

    previous = QLocale()
    try:
        assert gui_app.install_french(qapp)
        dialog = QFileDialog(None, "Exporter la liste", "", "Liste (*.json)")
        dialog.setOption(QFileDialog.Option.DontUseNativeDialog)  # Qt's own dialog, as on Linux
        labels = {label.objectName(): label.text() for label in dialog.findChildren(QLabel)}
        assert labels["lookInLabel"] == "&Voir dans\u00a0:"
        assert labels["fileTypeLabel"] == "&Fichiers de type\u00a0:"
        assert labels["fileNameLabel"] == "&Nom de fichier\u00a0:"
        dialog.deleteLater()
    finally:
        for translator in gui_app._TRANSLATORS:
            qapp.removeTranslator(translator)
        gui_app._TRANSLATORS.clear()
        QLocale.setDefault(previous)
