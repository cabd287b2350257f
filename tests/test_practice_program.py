"""Today's program headless: settings per exercise, custom items, rate, item count, real TTS."""

from __future__ import annotations

import pytest
from practice_fixtures import SpokenClips, make_services

from therapy_app.domain.programs import CustomItem, Program, ProgramStep
from therapy_app.exercises import default_content
from therapy_app.naming import candidates
from therapy_app.naming.bank import default_bank
from therapy_app.practice import catalogue, custom, items, naming_plan
from therapy_app.practice.controller import PracticeController
from therapy_app.practice.events import ExerciseDone, ExerciseKind, ItemPresented, Speaking, State
from therapy_app.practice.program import announcement, chosen_exercise_settings, plan
from therapy_app.practice.scheduling import InlineScheduler
from therapy_app.practice.settings import PracticeSettings
from therapy_app.speech.chain import hear
from therapy_app.speech.services import SilentPlayer, SpeechServices
from therapy_app.storage import SessionRepository

FAMILY = "Ma fille s'appelle Julie."


def _started(
    kind: ExerciseKind,
    services: SpeechServices,
    repository: SessionRepository,
    patient_id: int,
    settings: PracticeSettings,
) -> tuple[PracticeController, list[object]]:
    """A controller run inline with ``settings``, begun, and the events it sent."""
    events: list[object] = []
    controller = PracticeController(
        kind, services, repository, patient_id, InlineScheduler(), settings=settings
    )
    controller.subscribe(events.append)
    controller.begin()
    return controller, events


def _program(**overrides: object) -> Program:
    fields: dict[str, object] = dict(
        patient_id=1,
        steps=(
            ProgramStep("completion", 1, "repas"),
            ProgramStep("repetition", 2),
            ProgramStep("free_speech"),
            ProgramStep("naming_from_a_newer_release"),
        ),
        items_per_session=3,
        speech_rate_percent=80,
    )
    fields.update(overrides)
    return Program(**fields)  # type: ignore[arg-type]


def test_plan_gives_each_exercise_its_settings() -> None:
    own = [CustomItem(1, 1, "sentence", FAMILY), CustomItem(2, 1, "word", "couscous")]
    planned = plan(_program(), PracticeSettings(), 6000, own)
    # In the therapist's order; a kind this version does not know is skipped.
    assert [p.kind for p in planned] == [
        ExerciseKind.COMPLETION,
        ExerciseKind.REPETITION,
        ExerciseKind.FREE_SPEECH,
    ]
    completion, repetition, free = (p.settings for p in planned)
    for settings in (completion, repetition, free):
        assert settings.max_items == 3
        assert settings.rate_factor == pytest.approx(0.8)
        assert settings.trailing_silence_ms == 6000
    assert (completion.completion_level, completion.completion_category) == (1, "repas")
    assert (repetition.repetition_level, repetition.resume) == (2, False)
    assert repetition.custom_items == (FAMILY, "couscous")
    assert free.custom_items == ()
    unused = plan(_program(use_custom_items=False), PracticeSettings(), 3500, own)
    assert all(p.settings.custom_items == () for p in unused)


def test_an_exercise_chosen_outside_the_program_gets_the_patients_own_items() -> None:
    own = [
        CustomItem(1, 1, "sentence", FAMILY),
        CustomItem(2, 1, "word", "Médor", picture="chien"),
    ]
    for program in (None, _program()):
        settings = chosen_exercise_settings(
            ExerciseKind.REPETITION, PracticeSettings(), 6000, program, own
        )
        assert settings.custom_items == (FAMILY, "Médor")
        assert settings.custom_pictures == (("Médor", "chien"),)
        assert settings.trailing_silence_ms == 6000 and settings.max_items is None
    free = chosen_exercise_settings(ExerciseKind.FREE_SPEECH, PracticeSettings(), 6000, None, own)
    assert free.custom_items == ()
    unwanted = _program(use_custom_items=False)
    naming = chosen_exercise_settings(ExerciseKind.NAMING, PracticeSettings(), 6000, unwanted, own)
    assert naming.custom_items == () and naming.rate_factor == pytest.approx(0.8)


def test_a_program_exercise_is_announced_with_its_place() -> None:
    assert announcement(2, 3, ExerciseKind.NAMING) == (
        "Exercice 2 sur 3 : Nommer des images. Dites le nom de ce que vous voyez."
    )


def test_catalogue_difficulties_come_from_the_content() -> None:
    content = default_content()
    labels = [d.label for d in catalogue.difficulties("repetition", content)]
    assert labels[1] == "Phrases courtes (1 à 4 mots)"
    assert [d.level for d in catalogue.difficulties("completion", content)] == [None, 1, 2]
    assert "repas" in catalogue.categories("completion", content)
    assert catalogue.categories("repetition", content) == ()


def test_a_custom_sentence_is_completed_by_its_last_word() -> None:
    source = custom.completion_source(FAMILY)
    assert source is not None
    assert (source.cue, source.answer) == ("Ma fille s'appelle …", "Julie")
    assert source.completed() == FAMILY
    assert custom.completion_source("couscous") is None  # a word is repeated, not completed
    [item] = custom.completion_items((FAMILY, "couscous"), default_content())
    assert "Julie" not in item.distractors and item.accepted[0] == "Julie"


def test_own_items_come_where_the_patient_starts() -> None:
    content = default_content()
    listed = items.repetition_items(content, 1)
    own = custom.repetition_items((FAMILY, "couscous"), content)
    assert [i.target for i in custom.inserted(listed, own)[:3]] == [
        FAMILY,
        "couscous",
        listed[0].target,
    ]
    resumed = custom.inserted(listed, own, 5)
    assert [i.target for i in resumed[4:8]] == [
        listed[4].target,
        FAMILY,
        "couscous",
        listed[5].target,
    ]
    assert [i.target for i in custom.inserted(listed, own, 999)[-2:]] == [FAMILY, "couscous"]


def test_naming_is_an_exercise_a_program_can_set() -> None:
    content = default_content()
    assert catalogue.info("naming").uses_custom_items
    assert [d.level for d in catalogue.difficulties("naming", content)] == [None, 1, 2]
    assert {"fruit", "animal", "vêtement"} <= set(catalogue.categories("naming", content))
    program = _program(steps=(ProgramStep("naming", 1, "fruit"),))
    own = [CustomItem(1, 1, "word", "la pomme"), CustomItem(2, 1, "word", "Mamie Lucette")]
    [naming] = plan(program, PracticeSettings(), 4000, own)
    assert naming.kind is ExerciseKind.NAMING
    assert (naming.settings.naming_level, naming.settings.naming_category) == (1, "fruit")
    assert naming.settings.custom_items == ("la pomme", "Mamie Lucette")


def test_a_naming_session_keeps_to_the_program_and_shows_own_pictures_first() -> None:
    bank = default_bank()
    pool = naming_plan.selected(bank, 1, "fruit")
    assert pool.items and all(i.category == "fruit" and i.frequency_band == 1 for i in pool.items)
    assert naming_plan.selected(bank, None, "no-such-category") is bank  # never empty
    # A word with a picture comes first (determiner or not); one without is left out.
    own = naming_plan.own_pictures(bank, ("le chameau", "Mamie Lucette", "Chameau"))
    assert [i.word for i in own] == ["chameau"]
    planned = naming_plan.plan_session(pool, {}, 3, own)
    assert [p.item.word for p in planned][0] == "chameau"
    assert len(planned) == 3 and all(p.item.category == "fruit" for p in planned[1:])


def test_a_word_given_a_picture_is_named_by_that_word() -> None:
    bank = default_bank()
    own = (CustomItem(1, 1, "word", "Médor", "famille", "chien"), CustomItem(2, 1, "word", "Julie"))
    [naming] = plan(_program(steps=(ProgramStep("naming"),)), PracticeSettings(), 4000, list(own))
    assert naming.settings.custom_pictures == (("Médor", "chien"),)
    [medor] = naming_plan.own_pictures(bank, ("Médor", "Julie"), naming.settings.custom_pictures)
    dog = bank.by_id("chien")
    assert (medor.word, medor.picture, medor.category) == ("Médor", dog.picture, "animal")
    # A name takes no determiner; its first sounds are its own, its meaning the picture's.
    assert candidates.answer_forms(medor) == ("Médor",)
    assert (medor.first_sounds, medor.semantic_cue) == ("Mé", dog.semantic_cue)
    item = items.naming_item(medor, bank)
    assert item.target == "Médor" and item.picture.endswith("chien.svg")
    # A picture id the bank does not have shows nothing rather than failing.
    assert naming_plan.own_pictures(bank, ("Médor",), (("Médor", "licorne-bleue"),)) == ()


@pytest.mark.slow
def test_program_settings_drive_the_controller_and_the_real_voice() -> None:
    repository = SessionRepository()
    try:
        patient = repository.patients.create("Jeanne")
        played = {}
        for factor in (1.0, 0.7):
            player = SilentPlayer()
            services = make_services(SpokenClips(), player)
            settings = PracticeSettings(
                resume=False, max_items=2, rate_factor=factor, custom_items=(FAMILY,)
            )
            controller, events = _started(
                ExerciseKind.REPETITION, services, repository, patient.id, settings
            )
            first = next(e for e in events if isinstance(e, ItemPresented))
            assert first.prompt == FAMILY  # the patient's own sentence comes first
            assert next(e for e in events if isinstance(e, Speaking)).text == FAMILY
            played[factor] = player.played[-1]
            if factor == 1.0:
                # The real TTS said the custom sentence: the recogniser hears it.
                heard = hear(services, played[factor])
                assert heard is not None and "julie" in heard.transcript.text.lower()
                assert controller.next_item()
                assert controller.item is not None and controller.item.target != FAMILY
                assert controller.next_item()  # the second item reaches the count
                assert [e.items for e in events if isinstance(e, ExerciseDone)] == [2]
                assert controller.state is State.IDLE
            controller.end()
        # The program's slower pace reaches the voice.
        assert played[0.7].duration > played[1.0].duration * 1.2
    finally:
        repository.close()


@pytest.mark.slow
def test_resumed_repetition_puts_the_own_items_where_it_resumes() -> None:
    from therapy_app.domain.attempt_record import AttemptRecord

    content = default_content()
    third = content.level(1).sentences[2]
    repository = SessionRepository()
    try:
        patient = repository.patients.create("Jeanne")
        session = repository.sessions.start(patient.id, "repetition")
        repository.attempts.add(
            AttemptRecord(
                session_id=session.id,
                kind="repetition",
                raw_transcript=third,
                target_text=third,
                success=True,
            )
        )
        repository.sessions.end(session.id)
        controller, events = _started(
            ExerciseKind.REPETITION,
            make_services(SpokenClips(), SilentPlayer()),
            repository,
            patient.id,
            PracticeSettings(custom_items=(FAMILY,)),
        )
        first = next(e for e in events if isinstance(e, ItemPresented))
        assert (first.prompt, first.index) == (FAMILY, 3)
        assert controller.next_item()
        assert controller.item is not None
        assert controller.item.target == content.level(1).sentences[3]
        controller.end()
    finally:
        repository.close()


@pytest.mark.slow
def test_a_program_naming_session_shows_its_category_and_ends_after_its_count() -> None:
    repository = SessionRepository()
    try:
        patient = repository.patients.create("Jeanne")
        settings = PracticeSettings(
            max_items=2, naming_level=2, naming_category="animal", custom_items=("le chameau",)
        )
        controller, events = _started(
            ExerciseKind.NAMING,
            make_services(SpokenClips(), SilentPlayer()),
            repository,
            patient.id,
            settings,
        )
        first = next(e for e in events if isinstance(e, ItemPresented))
        assert (first.target, first.count) == ("chameau", 2)
        assert first.picture.endswith("chameau.svg")
        assert controller.next_item()
        second = [e for e in events if isinstance(e, ItemPresented)][-1]
        animal = default_bank().by_word(second.target)
        assert animal is not None and animal.category == "animal" and animal.frequency_band <= 2
        assert controller.next_item()
        assert [e.items for e in events if isinstance(e, ExerciseDone)] == [2]
        controller.end()
    finally:
        repository.close()


@pytest.mark.slow
def test_a_program_shorter_list_counts_and_ends_with_its_real_length() -> None:
    repository = SessionRepository()
    try:
        patient = repository.patients.create("Jeanne")
        politeness = items.completion_items(default_content(), None, "politesse")
        assert len(politeness) == 3  # fewer than the program's count
        settings = PracticeSettings(max_items=10, completion_category="politesse")
        controller, events = _started(
            ExerciseKind.COMPLETION,
            make_services(SpokenClips(), SilentPlayer()),
            repository,
            patient.id,
            settings,
        )
        for _ in range(3):
            shown = [e for e in events if isinstance(e, ItemPresented)]
            assert (shown[-1].number, shown[-1].total) == (len(shown), 3)
            assert controller.next_item()
        # Each item once: no second round of the same questions in one session.
        assert len({e.target for e in events if isinstance(e, ItemPresented)}) == 3
        assert [e.items for e in events if isinstance(e, ExerciseDone)] == [3]
        controller.end()
    finally:
        repository.close()
