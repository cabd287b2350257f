"""Practice exercises without Qt: the state machine, scoring, cueing and the engines it drives."""

from therapy_app.practice.controller import PracticeController, PracticeSettings
from therapy_app.practice.events import ExerciseKind, State
from therapy_app.practice.scheduling import InlineScheduler, Scheduler
from therapy_app.practice.services import SilentPlayer, SpeechServices, load_services

__all__ = [
    "ExerciseKind",
    "InlineScheduler",
    "PracticeController",
    "PracticeSettings",
    "Scheduler",
    "SilentPlayer",
    "SpeechServices",
    "State",
    "load_services",
]
