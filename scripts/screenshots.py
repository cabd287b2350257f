"""Starts the real app under Xvfb (offscreen without it) and saves a PNG of each main screen.

Usage: ``python scripts/screenshots.py [--out docs/screenshots]``. The "patient"
speaks the committed test recordings (tests/data/speech) through the real
recorder; nothing is played (no sound card needed); data go to a temporary
folder. Needs the built models (``python -m models.build``).
"""

from __future__ import annotations

import argparse
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SPEECH_DIR = ROOT / "tests" / "data" / "speech"

_LOGGER = logging.getLogger("screenshots")


SCREEN = (1366, 768)
"""A common clinic laptop: the screenshots show the window filling it."""


def start_display(
    width: int = SCREEN[0], height: int = SCREEN[1]
) -> subprocess.Popen[bytes] | None:
    """Start Xvfb on a free display and point Qt at it; offscreen when Xvfb is missing."""
    if os.environ.get("QT_QPA_PLATFORM") == "offscreen" or shutil.which("Xvfb") is None:
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
        _LOGGER.info("Xvfb not found: rendering offscreen")
        return None
    for number in range(91, 120):
        if Path(f"/tmp/.X11-unix/X{number}").exists() or Path(f"/tmp/.X{number}-lock").exists():
            continue
        proc = subprocess.Popen(
            ["Xvfb", f":{number}", "-screen", "0", f"{width}x{height}x24", "-nolisten", "tcp"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for _ in range(100):
            if Path(f"/tmp/.X11-unix/X{number}").exists():
                break
            time.sleep(0.05)
        os.environ["DISPLAY"] = f":{number}"
        os.environ["QT_QPA_PLATFORM"] = "xcb"
        _LOGGER.info("Xvfb on :%d", number)
        return proc
    raise RuntimeError("no free X display number")


class SpokenRecordings:
    """Recorder factory: each recording hears the next queued WAV name or clip."""

    def __init__(self) -> None:
        self._queue: deque[tuple[object, bool]] = deque()

    def say(self, item: object, realtime: bool = False) -> None:
        """Queue a file name from tests/data/speech, or an AudioClip (``realtime``: paced)."""
        self._queue.append((item, realtime))

    def __call__(self):  # -> Recorder
        from therapy_app.audio.clip import AudioClip
        from therapy_app.audio.recorder import FileAudioSource, Recorder
        from therapy_app.audio.wavio import read_wav

        item, realtime = self._queue.popleft()
        clip = item if isinstance(item, AudioClip) else read_wav(SPEECH_DIR / str(item))
        return Recorder(FileAudioSource(clip, realtime=realtime, trailing_silence_s=2.5))


def wait_until(predicate: Callable[[], bool], timeout: float = 120.0) -> None:
    """Run the Qt event loop until ``predicate()`` holds."""
    from PySide6.QtWidgets import QApplication

    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError("the app did not reach the expected state")
        QApplication.processEvents()
        time.sleep(0.02)


def settle(seconds: float = 0.3) -> None:
    """Let layouts and animations finish before grabbing."""
    from PySide6.QtWidgets import QApplication

    end = time.monotonic() + seconds
    while time.monotonic() < end:
        QApplication.processEvents()
        time.sleep(0.02)


def run(out: Path) -> list[Path]:
    """Drive the app through its screens and save the PNGs; returns their paths."""
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    from therapy_app.gui.app import create_application
    from therapy_app.gui.main_window import MainWindow
    from therapy_app.practice.events import CueGiven, State
    from therapy_app.speech.services import SilentPlayer
    from therapy_app.storage import SessionRepository

    app = create_application([sys.argv[0]])
    repository = SessionRepository()
    spoken = SpokenRecordings()
    window = MainWindow(repository, recorder_factory=spoken, player=SilentPlayer())
    window.show()
    window.setGeometry(0, 0, *SCREEN)  # as if maximised on the laptop
    window.activateWindow()
    saved: list[Path] = []

    def shot(name: str) -> None:
        settle()
        path = out / f"{name}.png"
        window.grab().save(str(path))
        saved.append(path)
        _LOGGER.info("saved %s", path)

    def key(k: Qt.Key) -> None:
        QTest.keyClick(window.focusWidget() or window, k)

    def state_is(state: State) -> Callable[[], bool]:
        return lambda: window.practice is not None and window.practice.controller.state is state

    def open_exercise(k: Qt.Key) -> None:
        """Back to the chooser, then the exercise of key ``k``, waiting for its first item."""
        key(Qt.Key.Key_Escape)
        wait_until(lambda: window.current_screen == "chooser")
        key(k)
        wait_until(state_is(State.AWAITING_REPETITION))

    def miss_twice(said: object) -> None:
        """Say ``said`` (a file or a clip) twice, each time waiting for the cue it earns."""
        cues: list[CueGiven] = []
        window.practice.event_received.connect(
            lambda e: cues.append(e) if isinstance(e, CueGiven) else None
        )
        for expected in (1, 2):
            spoken.say(said)
            key(Qt.Key.Key_Space)
            wait_until(lambda n=expected: len(cues) == n and state_is(State.AWAITING_REPETITION)())

    # First run: create the first profile.
    wait_until(lambda: window.profiles.pages.currentWidget() is window.profiles.form)
    QTest.keyClicks(window.profiles.form.name, "Jeanne")
    shot("01_first_profile")
    key(Qt.Key.Key_Return)
    wait_until(lambda: window.current_screen == "chooser")
    repository.patients.create("Paul Durand")
    repository.patients.create("Marie-Thérèse de la Fontaine-Dupont-Lefebvre")
    window.show_profiles()
    wait_until(lambda: len(window.profiles.buttons) == 3)
    shot("02_profiles")
    window.select_patient(window.profiles.patients[0])
    wait_until(lambda: window.services is not None, timeout=300)
    shot("03_exercise_chooser")

    # Free speech: a telegraphic utterance, the proposals, then the repetition.
    key(Qt.Key.Key_1)
    spoken.say("telegraphic_01.wav", realtime=True)  # paced like a microphone
    key(Qt.Key.Key_Space)
    wait_until(
        lambda: state_is(State.RECORDING)() and window.practice.meter.level > 0.2, timeout=10
    )
    shot("04_free_speech_listening")
    wait_until(state_is(State.REVIEWING))
    shot("05_free_speech_proposals")
    key(Qt.Key.Key_1)
    wait_until(state_is(State.AWAITING_REPETITION))
    screen = window.practice
    chosen = screen.controller.item.target
    spoken.say(screen.controller.services.synthesizer.synthesize(chosen))
    key(Qt.Key.Key_Space)
    wait_until(state_is(State.FEEDBACK))
    shot("06_free_speech_result")

    # Repetition, medium sentences: two misses give the word-by-word cue.
    open_exercise(Qt.Key.Key_2)
    window.practice.controller.set_level(2)
    wait_until(state_is(State.AWAITING_REPETITION))
    miss_twice("sentence_03.wav")  # "Le chat dort sur le canapé." for "J'ai mal à la tête."
    shot("07_repetition_cue")
    spoken.say("sentence_06.wav")
    key(Qt.Key.Key_Space)
    wait_until(state_is(State.FEEDBACK))
    shot("08_repetition_success")

    # Completion: a wrong word twice gives the first sounds of the answer.
    open_exercise(Qt.Key.Key_3)
    controller = window.practice.controller
    controller.present(controller.index_of("pomme"))
    wait_until(state_is(State.AWAITING_REPETITION))
    shot("09_completion")
    miss_twice("word_02.wav")  # "maison"
    shot("10_completion_cue")

    # Picture naming: the picture alone, then two misses give the first syllable.
    open_exercise(Qt.Key.Key_4)
    shot("12_naming")
    miss_twice(window.practice.controller.services.synthesizer.synthesize("parapluie"))
    shot("13_naming_cue")
    window.shutdown()
    window.close()

    # Missing models: the chooser explains what to do.
    os.environ["THERAPY_APP_MODELS_DIR"] = str(Path(tempfile.mkdtemp()) / "none")
    broken = MainWindow(repository, recorder_factory=spoken, player=SilentPlayer())
    broken.show()
    broken.setGeometry(0, 0, *SCREEN)
    broken.activateWindow()
    wait_until(lambda: broken.loader.error is not None and len(broken.profiles.patients) == 3)
    broken.select_patient(broken.profiles.patients[0])
    settle()
    path = out / "11_missing_models.png"
    broken.grab().save(str(path))
    saved.append(path)
    broken.shutdown()
    broken.close()
    repository.close()
    app.processEvents()
    return saved


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    args.out.mkdir(parents=True, exist_ok=True)
    os.environ["THERAPY_APP_DATA_DIR"] = tempfile.mkdtemp(prefix="therapy-screens-")
    display = start_display()
    try:
        saved = run(args.out)
        from tools.therapist_screenshots import save_screenshots

        saved += save_screenshots(args.out)
    finally:
        if display is not None:
            display.terminate()
            display.wait(10)
        shutil.rmtree(os.environ["THERAPY_APP_DATA_DIR"], ignore_errors=True)
    print("\n".join(str(p) for p in saved))
    return 0


if __name__ == "__main__":
    sys.exit(main())
