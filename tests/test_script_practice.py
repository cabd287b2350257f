"""Script practice (issue 27): a dialogue line by line, patient lines judged like repetition."""

from __future__ import annotations

import contextlib
from datetime import date, timedelta
from pathlib import Path

import pytest
from practice_fixtures import SpokenClips
from storage_fixtures import FakeClock

from therapy_app.audio.wavio import read_wav
from therapy_app.domain.attempt_record import AttemptRecord
from therapy_app.domain.programs import Program, ProgramStep
from therapy_app.exercises import default_content
from therapy_app.exports import build_report_data
from therapy_app.exports.labels import exercise_label
from therapy_app.phrases.model import Script, ScriptTurn, Speaker
from therapy_app.practice import catalogue, program
from therapy_app.practice.controller import PracticeController, PracticeSettings
from therapy_app.practice.custom import repetition_items
from therapy_app.practice.events import (
    CueGiven,
    ExerciseDone,
    ExerciseKind,
    Feedback,
    ItemPresented,
    ListFinished,
    ScriptLine,
    ScriptsOffered,
    Speaking,
    State,
)
from therapy_app.practice.scheduling import InlineScheduler
from therapy_app.practice.script_cycle import script_item
from therapy_app.speech.services import SilentPlayer, SpeechServices
from therapy_app.storage import SessionRepository
from therapy_app.storage.pending import record_from_json, record_to_json
from therapy_app.storage.script_progress import EXAMPLES_TITLE, script_progress
from therapy_app.storage.script_store import bundled_examples
from therapy_app.tts.options import SynthesisOptions

pytest_plugins = ("gui_fixtures",)

BAKERY = (
    ScriptTurn(Speaker.PARTNER, "Bonjour, qu'est-ce que vous désirez ?"),
    ScriptTurn(Speaker.PATIENT, "Je voudrais du pain, s'il vous plaît."),  # sentence_01.wav
    ScriptTurn(Speaker.PARTNER, "Et avec ceci ?"),
    ScriptTurn(Speaker.PATIENT, "Merci, au revoir."),
)


# ----- storage, catalogue, program, reports: no model ---------------------------------


def test_a_script_try_keeps_its_script_in_the_database_and_in_the_queue(repository) -> None:
    patient = repository.patients.create("Jeanne Martin")
    script_id = repository.scripts.save(patient.id, "À la boulangerie", BAKERY)
    session = repository.sessions.start(patient.id, "script")
    record = AttemptRecord(
        session_id=session.id,
        kind="script",
        raw_transcript="je voudrais du pain",
        target_text=BAKERY[1].text,
        success=True,
        script_id=script_id,
    )
    stored = repository.attempts.get(repository.attempts.add(record))
    assert stored.record.kind == "script" and stored.record.script_id == script_id
    # An attempt waiting in the on-disk queue (database busy) keeps it too.
    assert record_from_json(record_to_json(record)).script_id == script_id
    other = repository.attempts.add(
        AttemptRecord(session_id=session.id, kind="script", target_text="Merci, au revoir.")
    )
    assert repository.attempts.get(other).record.script_id is None  # a bundled example
    exported = {row["attempt_id"]: row for row in repository.history.export_rows(patient.id)}
    assert exported[stored.id]["script_title"] == "À la boulangerie"
    assert exported[other]["script_title"] is None


def test_progress_per_script_and_session_is_in_the_report(tmp_path: Path, speech_dir) -> None:
    clock = FakeClock()
    repository = SessionRepository(tmp_path / "data", clock=clock)
    store = repository.scripts
    patient = repository.patients.create("Jeanne Martin")
    bakery = store.save(patient.id, "À la boulangerie", BAKERY)
    doctor = store.save(
        patient.id,
        "Chez le médecin",
        [
            ScriptTurn(Speaker.PARTNER, "Qu'est-ce qui ne va pas ?"),
            ScriptTurn(Speaker.PATIENT, "J'ai mal à la tête."),
        ],
    )
    clip = read_wav(speech_dir / "sentence_01.wav")
    # (day, script, line, verdicts of its tries)
    plan = [
        (0, bakery, BAKERY[1].text, [False, True]),
        (0, bakery, BAKERY[3].text, [False, False, False, False]),
        (0, None, "Une baguette, s'il vous plaît.", [True]),
        (2, bakery, BAKERY[1].text, [True]),
        (2, bakery, BAKERY[3].text, [True]),
        (2, doctor, "J'ai mal à la tête.", [False, True]),
    ]
    sessions = {}
    for day, script_id, line, verdicts in plan:
        clock.now = FakeClock().now + timedelta(days=day)
        if day not in sessions:
            sessions[day] = repository.sessions.start(patient.id, "script").id
        for success in verdicts:
            clock.advance(seconds=10)
            repository.attempts.add(
                AttemptRecord(
                    session_id=sessions[day],
                    kind="script",
                    target_text=line,
                    success=success,
                    script_id=script_id,
                ),
                clip,
            )
    store.archive(doctor)  # archived: its tries stay in the progress

    stats = script_progress(repository, patient.id)
    rows = [
        (s.title, s.session_id, s.tries, s.successes, s.lines, s.lines_succeeded) for s in stats
    ]
    assert rows == [
        ("À la boulangerie", sessions[0], 6, 1, 2, 1),
        (EXAMPLES_TITLE, sessions[0], 1, 1, 1, 1),
        ("À la boulangerie", sessions[2], 2, 2, 2, 2),
        ("Chez le médecin", sessions[2], 2, 1, 1, 1),
    ]
    assert stats[0].success_rate == pytest.approx(1 / 6)

    first = stats[0].started_at.astimezone().date()
    report = build_report_data(
        repository, patient.id, first + timedelta(days=1), first + timedelta(days=5)
    )
    assert [(s.title, s.tries) for s in report.scripts] == [
        ("À la boulangerie", 2),
        ("Chez le médecin", 2),
    ]
    assert (
        build_report_data(repository, patient.id, date(2000, 1, 1), date(2000, 1, 2)).scripts == []
    )
    repository.close()


def test_the_catalogue_programs_and_labels_know_scripts() -> None:
    entry = catalogue.info("script")
    assert entry.kind is ExerciseKind.SCRIPT and entry.name == "Dialogues"
    assert not entry.uses_custom_items  # the dialogues are the patient's own lines already
    assert [d.level for d in catalogue.difficulties("script", default_content())] == [None]
    assert exercise_label("script") == "Scripts de dialogue"
    assert exercise_label("script", short=True) == "Scripts"
    stored = Program(
        patient_id=1,
        steps=(ProgramStep("naming"), ProgramStep("script")),
        items_per_session=6,
        speech_rate_percent=80,
    )
    planned = program.plan(stored, PracticeSettings(), 2500, [])
    assert [p.kind for p in planned] == [ExerciseKind.NAMING, ExerciseKind.SCRIPT]
    script_step = planned[1]
    assert script_step.settings.rate_factor == pytest.approx(0.8)  # the patient's pace
    assert script_step.settings.max_items == 6  # in a program: its end goes on to the next
    assert program.announcement(2, 2, ExerciseKind.SCRIPT) == (
        "Exercice 2 sur 2 : Dialogues. Entraînez-vous à une conversation."
    )


def test_a_patient_line_is_judged_like_a_sentence_of_the_patients_list() -> None:
    content = default_content()
    script = Script(7, "À la boulangerie", BAKERY)
    item = script_item(BAKERY[1].text, script, content)
    # The same item as the patient's own sentence in repetition, kind and script aside.
    (own,) = repetition_items((BAKERY[1].text,), content)
    assert item.kind is ExerciseKind.SCRIPT and item.script_id == 7
    assert (item.target, item.accepted, item.level, item.rank_margin) == (
        own.target,
        own.accepted,
        own.level,
        own.rank_margin,
    )
    # Its rivals of similar length: the dialogue's other patient lines, then the lists'
    # sentences (saying another line of the dialogue is no success).
    lines = (*BAKERY, ScriptTurn(Speaker.PATIENT, "Je voudrais deux croissants, s'il vous plaît."))
    longer = script_item(BAKERY[1].text, Script(7, "À la boulangerie", lines), content)
    assert longer.distractors[0] == "Je voudrais deux croissants, s'il vous plaît."
    assert BAKERY[1].text not in longer.distractors
    example = bundled_examples()[0]
    assert script_item(example.patient_lines[0], example, content).script_id is None


# ----- the exercise on real models ------------------------------------------------------


def _controller(services, repository, patient_id, events, settings=None) -> PracticeController:
    controller = PracticeController(
        ExerciseKind.SCRIPT, services, repository, patient_id, InlineScheduler(), settings=settings
    )
    controller.subscribe(events.append)
    return controller


@pytest.mark.slow
def test_a_dialogue_is_practised_line_by_line_and_each_try_is_stored(
    services: SpeechServices, spoken: SpokenClips, repository, silent_player: SilentPlayer
) -> None:
    patient = repository.patients.create("Jeanne Martin")
    script_id = repository.scripts.save(patient.id, "À la boulangerie", BAKERY)
    events: list = []
    controller = _controller(
        services, repository, patient.id, events, PracticeSettings(rate_factor=0.7)
    )
    controller.begin()
    assert events[-1] == ScriptsOffered(("À la boulangerie",), examples=False)
    assert controller.choosing_script and not controller.can_record

    events.clear()
    assert controller.choose_script(0)
    lines = [e for e in events if isinstance(e, ScriptLine)]
    assert [(e.index, e.speaker) for e in lines] == [(0, "partner"), (1, "patient")]
    # The partner's line is said, at the patient's pace (slower than the voice's usual one).
    said = [e.text for e in events if isinstance(e, Speaking)]
    assert said == [BAKERY[0].text, BAKERY[1].text]
    usual = services.synthesizer.synthesize(BAKERY[0].text, SynthesisOptions(rate_wpm=120.0))
    assert silent_player.played[-2].duration > usual.duration * 1.2
    presented = next(e for e in events if isinstance(e, ItemPresented))
    assert (presented.kind, presented.target, presented.number, presented.total) == (
        ExerciseKind.SCRIPT,
        BAKERY[1].text,
        1,
        2,
    )
    assert controller.state is State.AWAITING_REPETITION

    spoken.say("sentence_01.wav")  # "Je voudrais du pain, s'il vous plaît."
    controller.toggle_recording()
    feedback = [e for e in events if isinstance(e, Feedback)][-1]
    assert feedback.success and feedback.item_finished and feedback.stars >= 2

    events.clear()
    assert controller.next_item()  # Enter: the dialogue goes on
    assert [e.text for e in events if isinstance(e, Speaking)] == [BAKERY[2].text, BAKERY[3].text]
    spoken.say("word_01.wav")  # "pomme": a miss gets repetition's first cue
    controller.toggle_recording()
    assert not [e for e in events if isinstance(e, Feedback)][-1].success
    cue = [e for e in events if isinstance(e, CueGiven)][-1].cue
    assert cue.level == 1 and "lentement" in cue.message

    events.clear()
    assert controller.next_item()  # S: the patient moves on; the dialogue ends
    assert events[-1] == ListFinished(items=2, succeeded=1)
    assert controller.list_finished and not controller.can_record

    assert controller.restart()  # Enter: the same dialogue again, from its first line
    assert [e for e in events if isinstance(e, ScriptLine)][-2].index == 0
    assert controller.choose_another_script()
    assert isinstance(events[-1], ScriptsOffered) and controller.choosing_script
    session_id = controller.session_id
    controller.end()

    assert repository.sessions.get(session_id).exercise_kind == "script"
    attempts = repository.attempts.all(session_id=session_id)
    assert [(a.record.kind, a.record.script_id, a.success) for a in attempts] == [
        ("script", script_id, True),
        ("script", script_id, False),
    ]
    assert [a.record.target_text for a in attempts] == [BAKERY[1].text, BAKERY[3].text]
    assert all(repository.attempts.verify_recording(a) for a in attempts)


@pytest.mark.slow
def test_without_scripts_of_their_own_the_patient_practises_the_examples(
    services: SpeechServices, spoken: SpokenClips, repository
) -> None:
    patient = repository.patients.create("Jeanne Martin")
    events: list = []
    # In today's program: the dialogue's end goes on to the program's next exercise.
    controller = _controller(
        services, repository, patient.id, events, PracticeSettings(max_items=5)
    )
    controller.begin()
    offered = events[-1]
    assert offered == ScriptsOffered(tuple(s.title for s in bundled_examples()), examples=True)
    assert controller.choose_script(0)
    example = bundled_examples()[0]
    while not controller.list_finished:
        if controller.state is State.AWAITING_REPETITION:
            spoken.say("word_02.wav")  # "maison": a miss, then the patient moves on
            controller.toggle_recording()
        assert controller.next_item()
    assert events[-1] == ListFinished(items=len(example.patient_lines), succeeded=0)
    assert controller.restart()
    assert events[-1] == ExerciseDone(len(example.patient_lines))
    session_id = controller.session_id
    controller.end()
    attempts = repository.attempts.all(session_id=session_id)
    assert [a.record.target_text for a in attempts] == list(example.patient_lines)
    assert all(a.record.script_id is None and a.success is False for a in attempts)
    assert [s.title for s in script_progress(repository, patient.id)] == [EXAMPLES_TITLE]


# ----- the patient's screen: the real window, keyboard only --------------------------

LONG_DIALOGUE = (
    ScriptTurn(
        Speaker.PARTNER, "Bonjour, cabinet du docteur Martin, que puis-je faire pour vous ?"
    ),
    ScriptTurn(Speaker.PATIENT, "Je voudrais un rendez-vous, s'il vous plaît."),
    ScriptTurn(Speaker.PARTNER, "C'est pour une consultation ou pour un renouvellement ?"),
    ScriptTurn(Speaker.PATIENT, "J'ai mal à la tête depuis trois jours."),
    ScriptTurn(Speaker.PARTNER, "Je peux vous proposer mardi prochain à dix heures et demie."),
    ScriptTurn(Speaker.PATIENT, "Mardi à dix heures et demie, c'est très bien."),
    ScriptTurn(Speaker.PARTNER, "C'est noté. Pouvez-vous me rappeler votre nom, s'il vous plaît ?"),
    ScriptTurn(Speaker.PATIENT, "Je m'appelle Jeanne Martin. Merci, au revoir."),
)


def _at_the_chooser(open_window):
    driver = open_window()
    driver.wait_screen("chooser")
    driver.wait_ready()
    return driver


@pytest.mark.gui
@pytest.mark.slow
def test_the_patient_practises_a_dialogue_by_keyboard(open_window, repository, spoken) -> None:
    from PySide6.QtCore import Qt

    patient = repository.patients.create("Jeanne Martin")
    script_id = repository.scripts.save(patient.id, "À la boulangerie", BAKERY)
    driver = _at_the_chooser(open_window)
    assert driver.window.chooser.buttons[ExerciseKind.SCRIPT].isEnabled()
    driver.key(Qt.Key.Key_5)  # "5  Dialogues"
    driver.wait_screen("script")
    driver.follow()
    screen = driver.screen
    driver.qtbot.waitUntil(lambda: len(screen.choices) == 1, timeout=10_000)
    assert "À la boulangerie" in screen.choices[0].accessibleName()
    assert screen.choices[0].hasFocus() and not screen.record_button.isEnabled()
    assert screen.status.text() == "Choisissez un dialogue (touche 1)."

    driver.key(Qt.Key.Key_1)
    driver.wait_state(State.AWAITING_REPETITION)
    assert [(b.speaker, b.line) for b in screen.bubbles] == [
        ("partner", BAKERY[0].text),
        ("patient", BAKERY[1].text),
    ]
    assert screen.script_title.text() == "À la boulangerie"
    assert screen.counter.text() == "Votre réplique 1 sur 2"
    assert screen.record_button.isEnabled() and not screen.choices

    spoken.say("sentence_01.wav")  # the patient's line, said right
    with driver.qtbot.waitSignal(screen.attempt_saved, timeout=60_000):
        driver.key(Qt.Key.Key_Space)
    driver.wait_state(State.FEEDBACK)
    assert "✔" in screen.feedback_title.text() and screen.stars.isVisible()
    assert screen.status.text().startswith("S ou Entrée : la suite du dialogue.")

    driver.key(Qt.Key.Key_Return)  # the dialogue goes on: the partner, then the patient
    driver.qtbot.waitUntil(lambda: len(screen.bubbles) == 4, timeout=30_000)
    driver.wait_state(State.AWAITING_REPETITION)
    assert not screen.feedback_panel.isVisible()
    assert screen.counter.text() == "Votre réplique 2 sur 2"

    driver.key(Qt.Key.Key_S)  # the patient moves on without trying: the end
    driver.qtbot.waitUntil(screen.summary.isVisible, timeout=10_000)
    assert screen.summary_title.text() == "Dialogue terminé : 1 réplique sur 2 réussie"
    assert screen.summary_text.text() == "« À la boulangerie »"
    assert not screen.record_panel.isVisible()

    driver.key(Qt.Key.Key_A)  # another dialogue
    driver.qtbot.waitUntil(lambda: len(screen.choices) == 1, timeout=10_000)
    assert not screen.summary.isVisible() and not screen.bubbles
    session_id = screen.controller.session_id
    driver.key(Qt.Key.Key_Escape)
    driver.wait_screen("chooser")
    driver.qtbot.waitUntil(
        lambda: repository.sessions.get(session_id).ended_at is not None, timeout=10_000
    )
    (attempt,) = repository.attempts.all(session_id=session_id)
    assert (attempt.record.kind, attempt.record.script_id, attempt.success) == (
        "script",
        script_id,
        True,
    )
    assert repository.attempts.verify_recording(attempt)


@pytest.mark.gui
@pytest.mark.slow
def test_a_long_dialogue_fits_a_768_pixel_screen(open_window, repository, spoken) -> None:
    from PySide6.QtCore import Qt
    from screen_clipping import problems

    patient = repository.patients.create("Marie-Thérèse de la Fontaine-Dupont-Lefebvre")
    repository.scripts.save(patient.id, "Prendre rendez-vous chez le médecin", LONG_DIALOGUE)
    driver = _at_the_chooser(open_window)
    window = driver.window
    # 1366×768 less a title bar and a panel: the window's own area.
    window.resize(1280, 700)
    driver.qtbot.waitUntil(lambda: window.height() == 700)
    driver.key(Qt.Key.Key_5)
    driver.wait_screen("script")
    driver.follow()
    screen = driver.screen
    driver.qtbot.waitUntil(lambda: bool(screen.choices), timeout=10_000)
    offer = [screen.record_button, screen.next_button, screen.choices[0]]
    # The offer is laid out once the event loop runs (checked at once, the title was cut).
    with contextlib.suppress(driver.qtbot.TimeoutError):
        driver.qtbot.waitUntil(lambda: problems(window, offer) == [], timeout=5_000)
    assert problems(window, offer) == []
    driver.key(Qt.Key.Key_1)
    for number in range(1, 4):  # the first three patient lines: skipped
        driver.wait_state(State.AWAITING_REPETITION)
        assert screen.counter.text() == f"Votre réplique {number} sur 4"
        driver.key(Qt.Key.Key_S)
    driver.wait_state(State.AWAITING_REPETITION)
    assert len(screen.bubbles) == len(LONG_DIALOGUE)
    spoken.say("word_01.wav")  # a miss: feedback and a cue, the tallest page
    driver.key(Qt.Key.Key_Space)
    driver.qtbot.waitUntil(lambda: bool(driver.of_type(CueGiven)), timeout=60_000)
    driver.wait_state(State.AWAITING_REPETITION)
    driver.qtbot.wait(100)  # the chat scrolls to the line being said
    needed = [
        screen.record_button,
        screen.replay_button,
        screen.my_voice_button,
        screen.next_button,
        screen.bubbles[-1],
        screen.feedback_title,
        screen.status,
    ]
    window.grab().save("/tmp/script_fit.png")
    assert problems(window, needed) == []


@pytest.mark.gui
@pytest.mark.slow
def test_in_todays_program_the_dialogue_is_announced_and_the_program_goes_on(
    open_window, repository
) -> None:
    from PySide6.QtCore import Qt

    from therapy_app.gui.main_window import PROGRAM_DONE

    patient = repository.patients.create("Jeanne Martin")
    repository.scripts.save(patient.id, "À la boulangerie", BAKERY)
    repository.programs.save(
        Program(patient.id, (ProgramStep("script"),), items_per_session=3), "claire"
    )
    driver = _at_the_chooser(open_window)
    window = driver.window
    driver.qtbot.waitUntil(lambda: window.chooser.has_program, timeout=10_000)
    assert window.chooser.program_button.hint.text() == "Dialogues · 3 à chaque fois"
    driver.key(Qt.Key.Key_P)
    driver.wait_screen("script")
    screen = driver.screen
    assert screen.announcement.text().startswith("Exercice 1 sur 1 : Dialogues.")
    driver.qtbot.waitUntil(lambda: len(screen.choices) == 1, timeout=30_000)
    assert screen.prompt_card.isVisible()
    driver.key(Qt.Key.Key_1)
    for _ in range(2):  # both patient lines skipped
        driver.wait_state(State.AWAITING_REPETITION)
        driver.key(Qt.Key.Key_S)
    driver.qtbot.waitUntil(screen.summary.isVisible, timeout=10_000)
    assert screen.restart_button.accessibleName() == "Continuer le programme"
    assert screen.restart_button.text() == "➜  Continuer le programme  (Entrée)"
    assert not screen.summary_another.isVisible()
    driver.key(Qt.Key.Key_Return)  # the program goes on: here it is over
    driver.wait_screen("chooser")
    assert window.banner.text() == PROGRAM_DONE


def test_the_patients_lines_agree_with_their_gender_and_the_partners_do_not(repository) -> None:
    from therapy_app.phrases.model import Gender
    from therapy_app.practice.script_cycle import offered_scripts

    patient = repository.patients.create("Jeanne").id
    turns = [
        ScriptTurn(Speaker.PARTNER, "Je suis allé vous chercher un siège."),
        ScriptTurn(Speaker.PATIENT, "Je suis allé(e) chez le médecin."),
        ScriptTurn(Speaker.PATIENT, "Je suis fatigué."),
    ]
    repository.scripts.save(patient, "Chez le médecin", turns)
    repository.phrases.set_gender(patient, Gender.FEMININE, "ortho")
    scripts, examples = offered_scripts(repository, patient)
    assert not examples
    assert [t.text for t in scripts[0].turns] == [
        "Je suis allé vous chercher un siège.",
        "Je suis allée chez le médecin.",
        "Je suis fatiguée.",
    ]
