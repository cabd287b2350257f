"""Run by test_gui_screen_fit under Xvfb and a window manager: prints where the window lands.

``python tests/screen_fit_probe.py NAME`` opens the real window (real engines,
committed speech) for a patient called NAME, walks through the exercise
screens in their tallest states and prints one JSON object: the screen's free
area, the window frame, and the global rectangles of the bottom row.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main() -> int:
    os.environ.setdefault("THERAPY_APP_DATA_DIR", tempfile.mkdtemp(prefix="screen-fit-"))
    from gui_fixtures import preloaded_steps
    from practice_fixtures import SpokenClips
    from PySide6.QtCore import QPoint, QRect
    from PySide6.QtWidgets import QWidget

    from therapy_app.gui.app import create_application
    from therapy_app.gui.main_window import MainWindow
    from therapy_app.practice.events import ExerciseKind, State
    from therapy_app.speech.services import SilentPlayer
    from therapy_app.storage import SessionRepository

    app = create_application([sys.argv[0]])
    repository = SessionRepository()
    repository.create_patient(sys.argv[1])
    spoken = SpokenClips()
    window = MainWindow(
        repository, recorder_factory=spoken, player=SilentPlayer(), load_steps=preloaded_steps()
    )
    window.show()

    def spin(predicate, timeout: float = 120.0) -> None:  # noqa: ANN001
        deadline = time.monotonic() + timeout
        while not predicate():
            if time.monotonic() > deadline:
                raise TimeoutError("the window did not get there")
            app.processEvents()
            time.sleep(0.02)

    def settle(seconds: float = 0.6) -> None:
        end = time.monotonic() + seconds
        spin(lambda: time.monotonic() > end)

    def rect(widget: QWidget) -> list[int]:
        top_left = widget.mapToGlobal(QPoint(0, 0))
        r = QRect(top_left, widget.size())
        return [r.x(), r.y(), r.width(), r.height()]

    def as_list(r: QRect) -> list[int]:
        return [r.x(), r.y(), r.width(), r.height()]

    def state_is(state: State):  # noqa: ANN202
        return lambda: window.practice is not None and window.practice.controller.state is state

    screens: dict[str, dict[str, object]] = {}

    def record(name: str) -> None:
        settle()
        entry: dict[str, object] = {
            "frame": as_list(window.frameGeometry()),
            "window": as_list(window.geometry()),
            "patient_name": rect(window.patient_name),
        }
        practice = window.practice
        if practice is not None:
            entry["buttons"] = {
                b.accessibleName(): rect(b) if b.isVisible() else None
                for b in (practice.replay_button, practice.my_voice_button, practice.next_button)
            }
            entry["record"] = rect(practice.record_button)
        screens[name] = entry

    spin(lambda: window.services is not None and window.current_screen == "chooser")
    record("chooser")

    window.start_exercise(ExerciseKind.REPETITION)
    spin(state_is(State.AWAITING_REPETITION))
    spoken.say("word_01.wav")  # a miss: feedback and a cue, the tallest repetition page
    window.practice.controller.toggle_recording()
    spin(lambda: window.practice.cue_label.isVisible() and state_is(State.AWAITING_REPETITION)())
    record("repetition")

    window.start_exercise(ExerciseKind.FREE_SPEECH)
    spoken.say("telegraphic_01.wav")  # proposals to choose from
    window.practice.controller.toggle_recording()
    spin(state_is(State.REVIEWING))
    record("free_speech")

    window.start_exercise(ExerciseKind.COMPLETION)
    spin(state_is(State.AWAITING_REPETITION))
    record("completion")

    window.start_exercise(ExerciseKind.NAMING)
    spin(state_is(State.AWAITING_REPETITION))
    spoken.say("word_01.wav")  # a miss: the semantic cue beside the picture, the tallest page
    window.practice.controller.toggle_recording()
    spin(lambda: window.practice.cue_text.isVisible() and state_is(State.AWAITING_REPETITION)())
    record("naming")

    free = window.screen().availableGeometry()
    print(json.dumps({"available": as_list(free), "screens": screens}))
    window.shutdown()
    window.close()
    repository.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
