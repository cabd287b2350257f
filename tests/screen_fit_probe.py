"""Run by test_gui_screen_fit under Xvfb and a window manager: prints where the window lands.

``python tests/screen_fit_probe.py NAME [SHOTS_DIR]`` opens the real window
(real engines, committed speech, the demo data) for a patient called NAME,
walks through the exercise screens in their tallest states and the
therapist's screens, and prints one JSON object: the screen's free area, the
window's title as the window manager shows it, and per screen the window
frame, the global rectangles of the bottom row and what is cut
(:mod:`screen_clipping`). With SHOTS_DIR each screen is also saved as a PNG.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

NAMING_WORDS = ("oreille", "avocat", "bière")
"""A short naming list: its end (and summary) is reached in three steps."""


def window_manager_title(window_id: int) -> str | None:
    """The title the window manager shows (``_NET_WM_NAME``), None without xprop."""
    tool = shutil.which("xprop")
    if tool is None:
        return None
    done = subprocess.run(
        [tool, "-id", str(window_id), "_NET_WM_NAME"],
        capture_output=True,
        text=True,
        timeout=10,
        check=False,
    )
    _, _, value = done.stdout.partition("=")
    return value.strip().strip('"') if value else None


def main() -> int:  # noqa: PLR0915 - one walk through every screen, in order
    data = Path(os.environ.setdefault("THERAPY_APP_DATA_DIR", tempfile.mkdtemp(prefix="fit-")))
    shots = Path(sys.argv[2]) if len(sys.argv) > 2 else None
    from gui_fixtures import preloaded_steps
    from practice_fixtures import SpokenClips
    from PySide6.QtCore import QPoint, QRect
    from PySide6.QtWidgets import QWidget
    from screen_clipping import problems

    from therapy_app.domain.programs import Program, ProgramStep
    from therapy_app.gui.app import create_application
    from therapy_app.gui.main_window import MainWindow
    from therapy_app.gui.therapist.area import (
        TAB_EXPORTS,
        TAB_LIST,
        TAB_PROGRAM,
        TAB_PROGRESS,
    )
    from therapy_app.naming.bank import default_bank
    from therapy_app.practice.events import ExerciseKind, State
    from therapy_app.speech.services import SilentPlayer
    from therapy_app.storage import SessionRepository
    from tools.demo_data import DEMO_PASSWORD, DEMO_USERNAME, DemoClock, seed_demo

    app = create_application([sys.argv[0]])
    clock = DemoClock()
    repository = SessionRepository(data, clock=clock)
    demo = seed_demo(repository, clock, with_account=False)
    clock.now = datetime.now(UTC)
    patient = repository.patients.create(sys.argv[1])
    newcomer = repository.patients.create("Paul Nouveau")  # no session: empty charts
    # The longest choices of every drop-down, and long sentences in the list.
    repository.programs.save(
        Program(
            demo.patient.id,
            (
                ProgramStep("repetition"),
                ProgramStep("completion", 2, "politesse"),
                ProgramStep("naming"),
            ),
        ),
        DEMO_USERNAME,
    )
    for text in ("Ma fille s'appelle Julie et elle habite à Marseille.", "le chameau"):
        repository.programs.add_custom_item(demo.patient.id, "sentence", text)
    full = default_bank()
    bank = replace(full, items=tuple(i for i in full.items if i.word in NAMING_WORDS))
    spoken = SpokenClips()
    window = MainWindow(
        repository,
        recorder_factory=spoken,
        player=SilentPlayer(),
        load_steps=preloaded_steps(),
        naming_bank=bank,
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

    def record(name: str, *must_show: QWidget) -> None:
        settle()
        entry: dict[str, object] = {
            "frame": as_list(window.frameGeometry()),
            "window": as_list(window.geometry()),
        }
        if window.patient_name.isVisible():
            entry["patient_name"] = rect(window.patient_name)
        practice = window.practice
        shown = list(must_show)
        if practice is not None:
            bottom = (practice.replay_button, practice.my_voice_button, practice.next_button)
            entry["buttons"] = {
                b.accessibleName(): rect(b) if b.isVisible() else None for b in bottom
            }
            shown += bottom
            if practice.record_button.isVisible():
                entry["record"] = rect(practice.record_button)
                shown.append(practice.record_button)
        found = list(problems(window, shown))
        area = getattr(window, "therapist", None)
        if area is not None and area.isVisible() and area.tabs.tabBar().isVisible():
            # Scroll arrows on the tab bar hide tab names (« Historique » was cut).
            bar = area.tabs.tabBar()
            if bar.sizeHint().width() > bar.width():
                found.append(f"tab bar needs {bar.sizeHint().width()} px, has {bar.width()}")
        entry["problems"] = found
        screens[name] = entry
        if shots is not None:
            shots.mkdir(parents=True, exist_ok=True)
            window.grab().save(str(shots / f"{name}.png"))

    spin(lambda: window.current_screen == "profiles" and bool(window.profiles.patients))
    window.select_patient(patient)
    spin(lambda: window.services is not None and window.current_screen == "chooser")
    record("chooser")

    window.start_exercise(ExerciseKind.REPETITION)
    spin(state_is(State.AWAITING_REPETITION))
    spoken.say("word_01.wav")  # a miss: feedback and a cue, the tallest repetition page
    window.practice.controller.toggle_recording()
    spin(lambda: window.practice.cue_label.isVisible() and state_is(State.AWAITING_REPETITION)())
    record("repetition")

    window.start_exercise(ExerciseKind.FREE_SPEECH)
    spoken.say("telegraphic_01.wav")  # « Vouliez-vous dire… ? » with its proposals
    window.practice.controller.toggle_recording()
    spin(state_is(State.REVIEWING))
    free = window.practice
    record("free_speech", *free.choices, *free.listen_buttons)

    window.start_exercise(ExerciseKind.COMPLETION)
    spin(state_is(State.AWAITING_REPETITION))
    record("completion")

    window.start_exercise(ExerciseKind.NAMING)
    spin(state_is(State.AWAITING_REPETITION))
    spoken.say("word_01.wav")  # a miss: the semantic cue beside the picture, the tallest page
    window.practice.controller.toggle_recording()
    spin(lambda: window.practice.cue_text.isVisible() and state_is(State.AWAITING_REPETITION)())
    record("naming", window.practice.picture)
    for _ in NAMING_WORDS:  # on to the end of the list
        spin(lambda: window.practice.controller.state is not State.SPEAKING)
        spin(lambda: window.practice.next_button.isEnabled())
        window.practice.next_button.click()
    spin(lambda: window.practice.summary.isVisible())
    summary = window.practice
    record("naming_summary", summary.restart_button, summary.summary_text)

    # The therapist area, first run: the recovery code is shown above the tabs.
    window.open_therapist_area()
    area = window.therapist
    login = area.login
    spin(lambda: login.submit_button.isEnabled() and login.creating)
    record("therapist_login", login.submit_button)
    login.username.setText(DEMO_USERNAME)
    login.password.setText(DEMO_PASSWORD)
    login.confirmation.setText(DEMO_PASSWORD)
    login.submit()
    spin(lambda: area.is_unlocked and area.code_box.isVisible() and area.patient_list.count())
    area.select_patient(demo.patient.id)
    spin(lambda: area.history.sessions.rowCount() > 0)
    record("therapist_first_run", area.code_box.noted_button)
    area.code_box.noted_button.click()

    area.open_attempt(demo.edited_attempt_id)
    spin(lambda: area.detail.attempt is not None)
    verdict = area.detail.verdict
    record(
        "therapist_attempt",
        *area.detail.scores.values(),
        verdict.success_button,
        verdict.failure_button,
        verdict.automatic_button,
    )
    area.tabs.setCurrentIndex(TAB_PROGRESS)
    spin(lambda: bool(area.progress.series))
    record("therapist_progress", *area.progress.views.values())
    area.select_patient(newcomer.id)  # no session yet: every chart says so under its title
    spin(lambda: not any(area.progress.series.values()))
    spin(
        lambda: all(
            v.chart().title().endswith("aucune donnée") for v in area.progress.views.values()
        )
    )
    record("therapist_progress_empty", *area.progress.views.values())
    area.select_patient(demo.patient.id)
    spin(lambda: any(area.progress.series.values()))
    area.tabs.setCurrentIndex(TAB_EXPORTS)
    exports = area.exports
    record("therapist_exports", exports.csv_button, exports.chat_button, exports.pdf_button)
    area.tabs.setCurrentIndex(TAB_PROGRAM)
    program = area.program
    spin(lambda: any(row.included.isChecked() for row in program.rows))
    combos = [c for row in program.rows for c in (row.difficulty, row.theme) if c.isVisible()]
    record("therapist_program", program.save_button, *combos, program.items, program.rate)
    area.tabs.setCurrentIndex(TAB_LIST)
    lists = area.custom_lists
    spin(lambda: lists.list.count() == 2)
    record("therapist_list", lists.add_button, lists.remove_button, lists.import_button)

    free_area = window.screen().availableGeometry()
    title = window_manager_title(int(window.winId()))
    print(json.dumps({"available": as_list(free_area), "title": title, "screens": screens}))
    window.close()
    window.shutdown()
    repository.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
