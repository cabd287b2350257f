"""The therapist's script editor (issue 27): write, check, copy an example, archive, listen."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

pytest.importorskip("PySide6")

from screen_clipping import problems  # noqa: E402
from therapist_fixtures import SIGNAL_TIMEOUT_MS, log_in, pdf_text  # noqa: E402

from therapy_app.audio.wavio import read_wav  # noqa: E402
from therapy_app.domain.attempt_record import AttemptRecord  # noqa: E402
from therapy_app.exports import build_report_data  # noqa: E402
from therapy_app.gui.therapist.area import TAB_SCRIPTS  # noqa: E402
from therapy_app.gui.therapist.report_pdf import write_report_pdf  # noqa: E402
from therapy_app.gui.therapist.script_editor import (  # noqa: E402
    ALREADY,
    NO_SCRIPT,
    ScriptEditor,
)
from therapy_app.phrases.model import ScriptTurn, Speaker  # noqa: E402
from therapy_app.storage import SessionRepository  # noqa: E402
from therapy_app.storage.script_progress import script_progress  # noqa: E402
from therapy_app.storage.script_store import bundled_examples  # noqa: E402

pytestmark = pytest.mark.gui

CAFE = (
    ("partner", "Bonjour, vous désirez ?"),
    ("patient", "Un café, s'il vous plaît."),
    ("partner", "Avec du sucre ?"),
    ("patient", "Non merci."),
)


@pytest.fixture
def patient(therapist_repo: SessionRepository):
    return therapist_repo.patients.create("Jeanne Martin")


@pytest.fixture
def editor(qtbot, therapist_context, patient):
    widget = ScriptEditor(therapist_context)
    qtbot.addWidget(widget)
    widget.resize(1100, 700)
    widget.show()
    with qtbot.waitSignal(widget.scripts_loaded, timeout=SIGNAL_TIMEOUT_MS):
        widget.set_patient(patient)
    return widget


def _write(editor: ScriptEditor, title: str, lines) -> None:
    editor.title_edit.setText(title)
    while len(editor.rows) < len(lines):
        editor.add_turn()
    while len(editor.rows) > len(lines):
        editor.remove_turn(len(editor.rows) - 1)
    for row, (speaker, text) in zip(editor.rows, lines, strict=True):
        row.speaker.setCurrentIndex(row.speaker.findData(speaker))
        row.text.setText(text)


def _save(qtbot, editor: ScriptEditor) -> None:
    with qtbot.waitSignal(editor.scripts_loaded, timeout=SIGNAL_TIMEOUT_MS):
        editor.save_button.click()


def _answer(qtbot, editor: ScriptEditor, answer: str) -> None:
    qtbot.waitUntil(lambda: editor.confirm_box is not None and editor.confirm_box.isVisible())
    box = editor.confirm_box
    assert box is not None
    (button,) = [b for b in box.buttons() if b.text() == answer]
    button.click()
    qtbot.waitUntil(lambda: editor.confirm_box is None)


def test_a_new_script_is_checked_then_saved(qtbot, editor, therapist_repo, patient) -> None:
    assert editor.status.text() == NO_SCRIPT
    # A new script starts as a dialogue: four lines, the partner first.
    assert [r.turn().speaker for r in editor.rows] == [Speaker.PARTNER, Speaker.PATIENT] * 2
    _write(editor, "Au café", CAFE)
    editor.rows[2].text.setText("   ")
    with qtbot.waitSignal(editor.failed, timeout=SIGNAL_TIMEOUT_MS) as refused:
        editor.save_button.click()
    assert refused.args[0].startswith("La réplique n° 3 est vide.")
    assert editor.status.text() == refused.args[0] and editor.status.property("role") == "error"
    assert therapist_repo.scripts.all(patient.id) == []
    assert editor.rows[1].text.text() == "Un café, s'il vous plaît."  # nothing typed is lost

    editor.rows[2].text.setText("Avec du sucre ?")
    _save(qtbot, editor)
    (stored,) = therapist_repo.scripts.all(patient.id)
    assert stored.title == "Au café"
    assert [(t.speaker.value, t.text) for t in stored.turns] == list(CAFE)
    assert editor.titles == ["Au café"] and editor.list.item(0).text() == "Au café (4 répliques)"
    assert editor.status.text() == "Script enregistré." and not editor.dirty


def test_lines_are_added_moved_and_removed_then_the_script_is_updated(
    qtbot, editor, therapist_repo, patient
) -> None:
    _write(editor, "Au café", CAFE)
    _save(qtbot, editor)
    (first,) = therapist_repo.scripts.all(patient.id)
    row = editor.add_turn()
    assert row is not None and row.turn().speaker is Speaker.PARTNER  # after a patient line
    row.text.setText("Ça fait deux euros.")
    assert editor.dirty and editor.status.text() == "Modifications non enregistrées."
    editor.rows[4].up.click()  # before "Non merci."
    editor.rows[1].delete.click()
    assert editor.count.text() == "4 répliques"
    _save(qtbot, editor)
    (again,) = therapist_repo.scripts.all(patient.id)
    assert again.id == first.id  # the same script, changed
    assert [t.text for t in again.turns] == [
        "Bonjour, vous désirez ?",
        "Avec du sucre ?",
        "Ça fait deux euros.",
        "Non merci.",
    ]


def test_an_example_is_copied_to_the_patient_once(qtbot, editor, therapist_repo, patient) -> None:
    example = bundled_examples()[1]
    editor.example.setCurrentIndex(1)
    _save_example = editor.add_example_button.click
    with qtbot.waitSignal(editor.scripts_loaded, timeout=SIGNAL_TIMEOUT_MS):
        _save_example()
    (copy,) = therapist_repo.scripts.all(patient.id)
    assert copy.id > 0 and (copy.title, copy.turns) == (example.title, example.turns)
    assert editor.title_edit.text() == example.title  # shown, ready to adapt
    assert len(editor.rows) == len(example.turns)
    _save_example()
    assert editor.status.text() == ALREADY.format(title=example.title)
    assert len(therapist_repo.scripts.all(patient.id)) == 1


def test_archiving_asks_first_and_keeps_the_tries(
    qtbot, editor, therapist_repo, patient, speech_dir: Path
) -> None:
    _write(editor, "Au café", CAFE)
    _save(qtbot, editor)
    (script,) = therapist_repo.scripts.all(patient.id)
    session = therapist_repo.sessions.start(patient.id, "script")
    therapist_repo.attempts.add(
        AttemptRecord(
            session_id=session.id,
            kind="script",
            target_text="Non merci.",
            success=True,
            script_id=script.id,
        ),
        read_wav(speech_dir / "word_04.wav"),
    )
    editor.archive_button.click()
    assert "Archiver « Au café » ?" in editor.confirm_box.text()
    _answer(qtbot, editor, "Annuler")
    assert editor.titles == ["Au café"]
    editor.archive_button.click()
    with qtbot.waitSignal(editor.scripts_loaded, timeout=SIGNAL_TIMEOUT_MS):
        _answer(qtbot, editor, "Archiver")
    assert editor.titles == [] and therapist_repo.scripts.all(patient.id) == []
    # Its tries stay in the progress, under its title.
    assert [(s.title, s.tries) for s in script_progress(therapist_repo, patient.id)] == [
        ("Au café", 1)
    ]


def test_unsaved_changes_are_not_dropped_without_asking(qtbot, editor) -> None:
    _write(editor, "Au café", CAFE)
    editor.new_button.click()
    _answer(qtbot, editor, "Continuer l'édition")
    assert editor.title_edit.text() == "Au café" and editor.rows[1].text.text() == CAFE[1][1]
    editor.new_button.click()
    assert editor.confirm_box.defaultButton().text() == "Continuer l'édition"
    _answer(qtbot, editor, "Abandonner")
    assert editor.title_edit.text() == "" and not editor.dirty
    assert all(not r.text.text() for r in editor.rows)


@pytest.mark.slow
def test_listen_says_a_line_with_the_apps_voice(qtbot, therapist_context, patient) -> None:
    from practice_fixtures import SpokenClips, make_services

    from therapy_app.gui.therapist.voice_recording import EnrolmentAudio
    from therapy_app.speech.services import SilentPlayer

    player = SilentPlayer()
    services = make_services(SpokenClips(), player)
    editor = ScriptEditor(
        replace(therapist_context, audio=lambda: EnrolmentAudio.from_services(services))
    )
    qtbot.addWidget(editor)
    editor.show()
    with qtbot.waitSignal(editor.scripts_loaded, timeout=SIGNAL_TIMEOUT_MS):
        editor.set_patient(patient)
    editor.rows[0].text.setText("Bonjour, qu'est-ce que vous désirez ?")
    with qtbot.waitSignal(editor.spoken, timeout=60_000) as said:
        editor.rows[0].listen.click()
    assert said.args == ["Bonjour, qu'est-ce que vous désirez ?"]
    assert len(player.played) == 1 and player.played[0].duration > 1.0
    editor.rows[1].listen.click()  # an empty line: nothing to say
    qtbot.wait(200)
    assert len(player.played) == 1


# ----- in the therapist area: the « Scripts » tab, the progress table, the report ---------


def test_the_scripts_tab_progress_table_and_report(
    qtbot, seeded_history, therapist_area, therapist_repo, speech_dir: Path, tmp_path: Path
) -> None:
    # (the account exists before the area asks whether one does)
    patient = seeded_history.patient
    store = therapist_repo.scripts
    script_id = store.save(patient.id, "Au café", [ScriptTurn(Speaker(s), t) for s, t in CAFE])
    session = therapist_repo.sessions.start(patient.id, "script")
    for success in (False, True, True):
        therapist_repo.attempts.add(
            AttemptRecord(
                session_id=session.id,
                kind="script",
                target_text="Un café, s'il vous plaît." if success is not True else "Non merci.",
                success=success,
                script_id=script_id,
            ),
            read_wav(speech_dir / "word_04.wav"),
        )
    therapist_repo.sessions.end(session.id)
    area = therapist_area
    with qtbot.waitSignal(area.progress.scripts_updated, timeout=SIGNAL_TIMEOUT_MS):
        log_in(qtbot, area)

    # The progress tab: one row per script and session.
    table = area.progress.scripts
    assert table.table.rowCount() == 1
    assert [table.cell(0, c) for c in (0, 2, 3, 4)] == ["Au café", "3", "67\u00a0%", "1 sur 2"]

    # The « Scripts » tab follows the selected patient, and fits a laptop's width.
    assert area.tabs.tabText(TAB_SCRIPTS) == "Scripts"
    area.resize(1256, 600)  # the area in the window on a 1366x768 screen
    area.tabs.setCurrentIndex(TAB_SCRIPTS)
    qtbot.waitUntil(lambda: area.scripts.titles == ["Au café"], timeout=SIGNAL_TIMEOUT_MS)
    qtbot.waitUntil(area.scripts.isVisible)
    assert area.scripts_scroll.horizontalScrollBar().maximum() == 0
    # Nothing cut; a line of the dialogue shows whole in its field.
    qtbot.wait(50)
    assert problems(area, [area.scripts.title_edit]) == []
    field = area.scripts.rows[1].text
    assert field.fontMetrics().horizontalAdvance(field.text()) < field.width() - 20
    with qtbot.waitSignal(area.scripts.scripts_loaded, timeout=SIGNAL_TIMEOUT_MS):
        area.select_patient(seeded_history.other.id)
    assert area.scripts.titles == []
    area.lock()
    assert not area.scripts.isEnabled() and area.scripts.list.count() == 0
    assert table.table.rowCount() == 0  # nothing about a patient stays on screen

    # The report: the scripts' table with the period's sessions.
    day = session.started_at.astimezone().date()
    data = build_report_data(therapist_repo, patient.id, day, day)
    path = tmp_path / "rapport.pdf"
    write_report_pdf(data, path)
    text = pdf_text(path)
    assert "Scripts de dialogue" in text and "Au café" in text and "1 sur 2" in text


def test_a_dialogue_too_long_to_save_says_why(qtbot, editor) -> None:
    for _ in range(20):
        editor.add_turn(text="Oui.")
    assert len(editor.rows) == 12 and not editor.add_turn_button.isEnabled()
    assert "au plus 12 répliques" in editor.status.text()
