"""GUI test fixtures (``pytest_plugins = ("gui_fixtures",)``): the real window, models and WAVs.

The window is built on ``practice_fixtures``' ``spoken``, ``silent_player`` and
``repository``, which ``conftest.py`` loads for every module.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from practice_fixtures import SpokenClips, shared_engines

from therapy_app.audio.recorder import Recorder
from therapy_app.errors import ModelMissingError
from therapy_app.exercises import ExerciseContent
from therapy_app.gui.main_window import MainWindow
from therapy_app.gui.patient.practice_screen import PracticeScreen
from therapy_app.gui.theme import apply_theme
from therapy_app.naming.bank import NamingBank
from therapy_app.practice.events import PracticeEvent, State
from therapy_app.speech.loading import LOAD_STEPS, LoadStep
from therapy_app.speech.services import SilentPlayer
from therapy_app.storage import Patient, SessionRepository

# Real-model steps take a few seconds each on a shared 2-core machine.
MODEL_TIMEOUT_MS = 120_000
STEP_TIMEOUT_MS = 60_000


def preloaded_steps() -> list[LoadStep]:
    """The real load steps, answered from engines loaded once per test process.

    The window still loads them through its loader, off the UI thread, step
    by step; only the seconds of reading the ONNX files are saved.
    """
    engines = shared_engines()
    return [LoadStep(s.key, s.label, lambda key=s.key: engines[key]) for s in LOAD_STEPS]


class WindowDriver:
    """Opens the real :class:`MainWindow` and waits on what it shows.

    Args:
        qtbot: pytest-qt's bot.
        repository: the database (in the test's data dir).
        recorder_factory: recorders the exercises use.
        player: the voice output at the sound-card boundary.
        steps: engines to load; None for :func:`preloaded_steps`.
        content: exercise lists; None for the bundled ones.
    """

    def __init__(
        self,
        qtbot,
        repository: SessionRepository,
        recorder_factory: Callable[[], Recorder],
        player: SilentPlayer,
        steps: list[LoadStep] | None = None,
        content: ExerciseContent | None = None,
        naming_bank: NamingBank | None = None,
    ) -> None:
        from PySide6.QtWidgets import QApplication

        apply_theme(QApplication.instance())
        self.qtbot = qtbot
        self.events: list[PracticeEvent] = []
        self.window = MainWindow(
            repository,
            recorder_factory=recorder_factory,
            player=player,
            load_steps=steps if steps is not None else preloaded_steps(),
            content=content,
            naming_bank=naming_bank,
        )
        qtbot.addWidget(self.window)
        self.window.show()
        qtbot.waitExposed(self.window)
        self.window.activateWindow()
        qtbot.waitUntil(self.window.isActiveWindow, timeout=5000)

    def wait_screen(self, name: str, timeout: int = STEP_TIMEOUT_MS) -> None:
        """Wait until the screen ``name`` is shown."""
        self.qtbot.waitUntil(lambda: self.window.current_screen == name, timeout=timeout)

    def wait_ready(self) -> None:
        """Wait until the engines are loaded."""
        self.qtbot.waitUntil(lambda: self.window.services is not None, timeout=MODEL_TIMEOUT_MS)

    @property
    def screen(self) -> PracticeScreen:
        """The exercise screen shown."""
        screen = self.window.practice
        assert screen is not None, "no exercise screen is open"
        return screen

    def follow(self) -> None:
        """Record every event of the open exercise screen in :attr:`events`."""
        self.events.clear()
        self.screen.event_received.connect(self.events.append)

    def open_exercise(self, key, screen: str) -> PracticeScreen:
        """From the chooser, once the engines are loaded: ``key`` opens ``screen``, followed."""
        self.wait_screen("chooser")
        self.wait_ready()
        self.key(key)
        self.wait_screen(screen)
        self.follow()
        return self.screen

    def open_proposals(self, spoken: SpokenClips, key=None) -> PracticeScreen:
        """From the chooser: free speech opened by ``key`` (default "1"), one utterance said.

        The patient says "moi aller boulangerie hier"; returns once its proposals are offered.
        """
        from PySide6.QtCore import Qt

        screen = self.open_exercise(key or Qt.Key.Key_1, "free_speech")
        spoken.say("telegraphic_01.wav")
        self.key(Qt.Key.Key_Space)
        self.wait_state(State.REVIEWING)
        return screen

    def wait_state(self, state: State, timeout: int = STEP_TIMEOUT_MS) -> None:
        """Wait until the exercise controller reaches ``state``."""
        self.qtbot.waitUntil(lambda: self.screen.controller.state is state, timeout=timeout)

    def key(self, key, text: str = "") -> None:
        """Press ``key`` in the window, as the patient would."""
        from PySide6.QtCore import Qt
        from PySide6.QtTest import QTest

        widget = self.window.focusWidget() or self.window
        QTest.keyClick(widget, key, Qt.KeyboardModifier.NoModifier)

    def of_type(self, kind: type) -> list:
        """Events of the open screen of one type, oldest first."""
        return [e for e in self.events if isinstance(e, kind)]

    def close(self) -> None:
        """Shut the window down (stores pending attempts, stops the workers)."""
        self.window.shutdown()


@pytest.fixture
def offline_steps() -> list[LoadStep]:
    """Load steps that report a missing model at once: for shell tests needing no model."""

    def missing() -> None:
        raise ModelMissingError(
            "Il manque le modèle de reconnaissance vocale.",
            "Pour l'installer, lancez : therapy-app build-models",
            "test without models",
        )

    return [LoadStep("recognizer", "Reconnaissance vocale", missing)]


@pytest.fixture
def patient(repository: SessionRepository) -> Patient:
    """One patient: the profile picker is skipped."""
    return repository.patients.create("Jeanne Martin")


@pytest.fixture
def open_window(qtbot, repository, spoken, silent_player):
    """Factory: ``open_window(steps=None, recorder_factory=None, content=None, naming_bank=None)``.

    Defaults: preloaded real engines, ``spoken`` as microphone, no speaker.
    The window is shut down after the test.
    """
    drivers: list[WindowDriver] = []

    def factory(
        steps: list[LoadStep] | None = None,
        recorder_factory: Callable[[], Recorder] | None = None,
        content: ExerciseContent | None = None,
        naming_bank: NamingBank | None = None,
    ) -> WindowDriver:
        driver = WindowDriver(
            qtbot,
            repository,
            recorder_factory or spoken,
            silent_player,
            steps,
            content,
            naming_bank,
        )
        drivers.append(driver)
        return driver

    yield factory
    for driver in drivers:
        driver.close()
