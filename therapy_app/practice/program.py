"""Today's program as practice sessions: the exercises in order, each with its settings."""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace

from therapy_app.domain.programs import CustomItem, Program, ProgramStep
from therapy_app.practice import catalogue
from therapy_app.practice.events import ExerciseKind
from therapy_app.practice.settings import PracticeSettings

_LOGGER = logging.getLogger(__name__)


@dataclass(frozen=True)
class PlannedExercise:
    """One exercise of today's program, ready to start.

    Attributes:
        kind: the exercise.
        settings: its settings (items, rate, pause tolerance, level, lists).
    """

    kind: ExerciseKind
    settings: PracticeSettings


def patient_settings(
    base: PracticeSettings, pause_tolerance_ms: int, program: Program | None
) -> PracticeSettings:
    """Settings of any exercise of the patient: their pause tolerance and the program's pace."""
    rate = program.speech_rate_percent / 100 if program is not None else base.rate_factor
    return replace(base, trailing_silence_ms=pause_tolerance_ms, rate_factor=rate)


def own_items(
    custom_items: list[CustomItem],
) -> tuple[tuple[str, ...], tuple[tuple[str, str], ...]]:
    """The patient's own texts, and (word, picture id) for the words given a picture."""
    texts = tuple(item.text for item in custom_items)
    pictures = tuple((item.text, item.picture) for item in custom_items if item.picture)
    return texts, pictures


def chosen_exercise_settings(
    kind: ExerciseKind,
    base: PracticeSettings,
    pause_tolerance_ms: int,
    program: Program | None,
    custom_items: list[CustomItem],
) -> PracticeSettings:
    """An exercise the patient picks outside the program: their pace, and their own items first.

    The patient's own words and sentences come first whenever the program
    says so (its "Commencer par les mots et phrases du patient"), and when
    no program is set; only exercises that use them get them.
    """
    settings = patient_settings(base, pause_tolerance_ms, program)
    wanted = program is None or program.use_custom_items
    if not (wanted and catalogue.info(kind).uses_custom_items):
        return settings
    texts, pictures = own_items(custom_items)
    return replace(settings, custom_items=texts, custom_pictures=pictures)


def announcement(position: int, count: int, kind: ExerciseKind) -> str:
    """What is shown and said when a program's exercise starts.

    "Exercice 2 sur 3 : Nommer des images. Dites le nom de ce que vous voyez."
    """
    entry = catalogue.info(kind)
    return f"Exercice {position} sur {count} : {entry.name}. {entry.hint}"


def step_settings(
    step: ProgramStep,
    program: Program,
    base: PracticeSettings,
    own: tuple[str, ...],
    pictures: tuple[tuple[str, str], ...] = (),
) -> PracticeSettings:
    """The settings of one program step (``base`` already the patient's, see above)."""
    entry = catalogue.info(step.kind)
    used = program.use_custom_items and entry.uses_custom_items
    settings = replace(
        base,
        max_items=program.items_per_session,
        custom_items=own if used else (),
        custom_pictures=pictures if used else (),
    )
    if entry.kind is ExerciseKind.REPETITION:
        # A level chosen by the therapist starts at that list's beginning;
        # otherwise the patient picks up where they stopped.
        if step.level is not None:
            settings = replace(settings, repetition_level=step.level, resume=False)
    elif entry.kind is ExerciseKind.COMPLETION:
        settings = replace(settings, completion_level=step.level, completion_category=step.category)
    elif entry.kind is ExerciseKind.NAMING:
        settings = replace(settings, naming_level=step.level, naming_category=step.category)
    return settings


def plan(
    program: Program,
    base: PracticeSettings,
    pause_tolerance_ms: int,
    custom_items: list[CustomItem],
) -> list[PlannedExercise]:
    """The exercises of ``program`` in order, with their settings.

    Args:
        program: what the therapist set.
        base: the app's practice settings.
        pause_tolerance_ms: the patient's (``Patient.pause_tolerance_ms``).
        custom_items: the patient's own words and sentences.

    Returns:
        One entry per step this version knows (a step of an exercise added by
        a newer release is skipped, with a log line).
    """
    own, pictures = own_items(custom_items)
    settings = patient_settings(base, pause_tolerance_ms, program)
    planned = []
    for step in program.steps:
        try:
            entry = catalogue.info(step.kind)
        except KeyError:
            _LOGGER.warning("program step %r is not an exercise of this version", step.kind)
            continue
        planned.append(
            PlannedExercise(entry.kind, step_settings(step, program, settings, own, pictures))
        )
    return planned
