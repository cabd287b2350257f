"""Today's program on the patient's screen: each exercise announced, a counter that tells the truth.

Issue 25: the switch to the next exercise was silent (the next answer was
scored against a picture the patient had not seen), and a program's list
said "Phrase 2 sur 56" but stopped after 10.
"""

from __future__ import annotations

import pytest

pytest.importorskip("PySide6")

from practice_fixtures import HeldSpeaker  # noqa: E402
from PySide6.QtCore import Qt  # noqa: E402

from therapy_app.domain.programs import Program, ProgramStep  # noqa: E402
from therapy_app.gui.main_window import PROGRAM_DONE  # noqa: E402
from therapy_app.naming.bank import default_bank  # noqa: E402
from therapy_app.practice.events import Feedback, ItemPresented, State  # noqa: E402
from therapy_app.speech.chain import hear  # noqa: E402

pytest_plugins = ("gui_fixtures",)
pytestmark = [pytest.mark.gui, pytest.mark.slow]

TIMEOUT_MS = 60_000


@pytest.fixture
def silent_player() -> HeldSpeaker:
    """The app's speaker: a sentence lasts until the app stops it (or the test lets go)."""
    return HeldSpeaker()


def _program_window(open_window, repository, *steps: ProgramStep, items: int):  # noqa: ANN202
    patient = repository.patients.create("Jeanne Martin")
    repository.programs.save(
        Program(patient.id, steps, items_per_session=items, use_custom_items=False), "claire"
    )
    driver = open_window()
    window = driver.window
    driver.wait_screen("chooser")
    driver.wait_ready()
    driver.qtbot.waitUntil(lambda: window.chooser.has_program, timeout=TIMEOUT_MS)
    return driver


def test_the_next_exercise_is_announced_and_nothing_is_recorded_before_its_picture(
    open_window, repository, spoken, silent_player
):
    driver = _program_window(
        open_window,
        repository,
        ProgramStep("completion"),
        ProgramStep("naming", 1),
        items=1,
    )
    window, qtbot = driver.window, driver.qtbot
    driver.key(Qt.Key.Key_P)
    driver.wait_screen("completion")
    screen = driver.screen
    assert screen.announcement.isVisible()
    assert screen.announcement.text().startswith("Exercice 1 sur 2 : Compléter.")
    driver.wait_state(State.AWAITING_REPETITION)

    silent_player.hold()
    driver.key(Qt.Key.Key_S)  # the completion's only item: on to the naming
    driver.wait_screen("naming")
    screen = driver.screen
    driver.follow()
    qtbot.waitUntil(lambda: silent_player.playing, timeout=TIMEOUT_MS)
    # Seen: what starts now, in the page and the header.
    assert screen.announcement.isVisible()
    assert screen.announcement.text() == (
        "Exercice 2 sur 2 : Nommer des images. Dites le nom de ce que vous voyez."
    )
    assert window.title.text() == "Nommer des images"
    # Heard: the real voice says it (the recogniser hears the exercise's name).
    heard = hear(window.services, silent_player.played[-1])
    assert heard is not None and "image" in heard.transcript.text.lower()
    # Meanwhile no picture, and no answer can be recorded or skipped.
    assert screen.controller.item is None and not screen.prompt_card.isVisible()
    assert not screen.record_button.isEnabled() and not screen.next_button.isEnabled()
    for key in (Qt.Key.Key_Space, Qt.Key.Key_S, Qt.Key.Key_Return):
        driver.key(key)
    assert screen.controller.state is State.SPEAKING
    assert not driver.of_type(ItemPresented)

    silent_player.let_go()
    driver.wait_state(State.AWAITING_REPETITION)
    shown = driver.of_type(ItemPresented)
    assert len(shown) == 1 and screen.picture.renderer().isValid()
    assert screen.prompt_card.isVisible() and screen.picture.isVisible()
    assert screen.counter.text() == "Image 1 sur 1"
    assert screen.record_button.isEnabled()
    picture = default_bank().by_word(shown[0].target)
    assert picture is not None
    spoken.say_clip(window.services.synthesizer.synthesize(picture.indefinite))
    driver.key(Qt.Key.Key_Space)
    qtbot.waitUntil(lambda: bool(driver.of_type(Feedback)), timeout=TIMEOUT_MS)
    feedback = driver.of_type(Feedback)[-1]
    assert feedback.target == shown[0].target  # scored against the picture on screen
    assert not screen.announcement.isVisible()  # gone once the patient answered

    driver.wait_state(State.FEEDBACK)
    driver.key(Qt.Key.Key_S)
    driver.wait_screen("chooser")
    assert window.banner.text() == PROGRAM_DONE


def test_a_program_list_counts_the_items_of_the_session(open_window, repository):
    driver = _program_window(open_window, repository, ProgramStep("repetition", 1), items=3)
    driver.key(Qt.Key.Key_P)
    driver.wait_screen("repetition")
    screen = driver.screen
    for number in (1, 2, 3):
        driver.wait_state(State.AWAITING_REPETITION)
        assert screen.counter.text() == f"Phrase {number} sur 3"
        driver.key(Qt.Key.Key_S)
    driver.wait_screen("chooser")
    assert driver.window.banner.text() == PROGRAM_DONE
