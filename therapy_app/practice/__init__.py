"""Practice exercises without Qt: the state machine, scoring and cueing over the speech path."""

from therapy_app.practice.controller import PracticeController, PracticeSettings
from therapy_app.practice.events import ExerciseKind, State
from therapy_app.practice.scheduling import InlineScheduler, Scheduler

__all__ = [
    "ExerciseKind",
    "InlineScheduler",
    "PracticeController",
    "PracticeSettings",
    "Scheduler",
    "State",
]
