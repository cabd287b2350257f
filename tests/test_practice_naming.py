"""The naming exercise without Qt: real models, the app's voice as the patient, SQLite."""

from __future__ import annotations

import pytest
from practice_fixtures import SpokenClips, clear_naming_bank

from therapy_app.practice import naming_plan
from therapy_app.practice.controller import PracticeController
from therapy_app.practice.events import (
    CueGiven,
    ExerciseKind,
    Feedback,
    ItemPresented,
    Speaking,
    State,
)
from therapy_app.practice.naming_cues import MAX_NAMING_LEVEL
from therapy_app.practice.scheduling import InlineScheduler
from therapy_app.speech.services import SpeechServices

pytestmark = pytest.mark.slow

WRONG = "parapluie"  # said for every picture the "patient" cannot name


def _say(services: SpeechServices, spoken: SpokenClips, text: str) -> None:
    spoken.say_clip(services.synthesizer.synthesize(text))


def _session(services, repository, patient_id, events) -> PracticeController:
    controller = PracticeController(
        ExerciseKind.NAMING,
        services,
        repository,
        patient_id,
        InlineScheduler(),
        bank=clear_naming_bank(),
    )
    controller.subscribe(events.append)
    controller.begin()
    return controller


def test_naming_right_at_once_then_cues_up_to_the_model_and_the_next_session(
    services: SpeechServices, spoken: SpokenClips, repository
) -> None:
    patient = repository.patients.create("Jeanne Martin").id
    order = naming_plan.teaching_order(clear_naming_bank())
    first, second = order[0], order[1]
    assert WRONG not in (first.word, second.word)
    events: list = []
    controller = _session(services, repository, patient, events)
    shown = [e for e in events if isinstance(e, ItemPresented)]
    assert shown[-1].target == first.word and shown[-1].prompt == ""  # the picture alone
    assert shown[-1].picture.endswith(first.picture) and shown[-1].count == 20
    assert controller.cue.level == 0 and not any(isinstance(e, CueGiven) for e in events)

    # 1. Named at once, with its determiner.
    _say(services, spoken, first.indefinite or first.word)
    controller.toggle_recording()
    feedback = [e for e in events if isinstance(e, Feedback)][-1]
    assert feedback.success and feedback.item_finished

    # 2. The next picture: missed at every level, each miss brings the next cue.
    controller.confirm()
    assert [e for e in events if isinstance(e, ItemPresented)][-1].target == second.word
    levels = []
    for _ in range(MAX_NAMING_LEVEL + 1):
        _say(services, spoken, WRONG)
        controller.toggle_recording()
        feedback = [e for e in events if isinstance(e, Feedback)][-1]
        assert not feedback.success
        levels.append(controller.cue.level)
        if feedback.item_finished:
            break
    assert levels == [1, 2, 3, 4, 4]
    cues = [e.cue for e in events if isinstance(e, CueGiven)]
    assert [c.level for c in cues] == [1, 2, 3, 4]
    assert "C'est" in cues[0].display and cues[1].display.endswith("…")
    spoken_texts = [e.text for e in events if isinstance(e, Speaking)]
    assert second.indefinite in spoken_texts  # the model was said at last
    assert controller.state is State.FEEDBACK
    controller.end()

    stored = repository.attempts.all(session_id=controller.session_id)
    assert [(a.record.kind, a.record.target_text) for a in stored][:2] == [
        ("naming", first.word),
        ("naming", second.word),
    ]
    assert [a.record.cue_level for a in stored] == [0, 0, 1, 2, 3, 4]
    assert [a.success for a in stored] == [True, False, False, False, False, False]
    assert all(repository.attempts.verify_recording(a) for a in stored)

    # 3. Next session: the missed picture comes first, at the written word.
    events2: list = []
    controller2 = _session(services, repository, patient, events2)
    presented = [e for e in events2 if isinstance(e, ItemPresented)][-1]
    assert presented.target == second.word
    first_cue = [e for e in events2 if isinstance(e, CueGiven)]
    assert [c.cue.level for c in first_cue] == [MAX_NAMING_LEVEL - 1]
    assert controller2.cue.display == second.indefinite  # written, to read aloud
    _say(services, spoken, second.indefinite)
    controller2.toggle_recording()
    assert [e for e in events2 if isinstance(e, Feedback)][-1].success
    controller2.end()
    again = repository.attempts.all(session_id=controller2.session_id)
    assert [(a.record.cue_level, a.success) for a in again] == [(MAX_NAMING_LEVEL - 1, True)]
