"""Today's program on the patient side: read off the UI thread, then run exercise after exercise."""

from __future__ import annotations

import logging

from PySide6.QtCore import QObject, Signal

from therapy_app.domain.programs import CustomItem, Program
from therapy_app.gui.tasks import TaskRunner
from therapy_app.practice import catalogue, program
from therapy_app.practice.events import ExerciseKind
from therapy_app.practice.settings import PracticeSettings
from therapy_app.storage import Patient, SessionRepository

_LOGGER = logging.getLogger(__name__)

PROGRAM_DONE = "Bravo, le programme du jour est terminé ! Vous pouvez continuer avec un exercice."


def program_summary(plan: list[program.PlannedExercise], stored: Program | None) -> str | None:
    """ "Compléter, puis Répéter · 10 à chaque fois" (None: no program to offer)."""
    if not plan or stored is None:
        return None
    names = [catalogue.info(p.kind.value).name for p in plan]
    return f"{', puis '.join(names)} · {stored.items_per_session} à chaque fois"


class TodaysProgram(QObject):
    """The chosen patient's program, lists and settings, and where a running program stands.

    Args:
        repository: the data.
        runner: the application's task runner (the read runs on its database worker).
        base: the app's practice settings (None: the defaults).

    Signals:
        loaded(Patient, object): the patient as stored now and the summary to
            offer (None when the therapist set no program).
        patient_gone(): the patient was deleted or archived meanwhile.
    """

    loaded = Signal(object, object)
    patient_gone = Signal()

    def __init__(
        self,
        repository: SessionRepository,
        runner: TaskRunner,
        base: PracticeSettings | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._repository = repository
        self._runner = runner
        self._base = base or PracticeSettings()
        self._patient_id: int | None = None
        self.program: Program | None = None
        """The patient's program (None: none set, or not read yet)."""
        self.plan: list[program.PlannedExercise] = []
        self._queue: list[program.PlannedExercise] = []
        self._own: list[CustomItem] = []
        self.position = 0
        """The program's exercise being run (1-based; 0 when none)."""

    def load(self, patient: Patient) -> None:
        """Forget the previous patient's program and read ``patient``'s."""
        self._patient_id = patient.id
        self.program, self.plan, self._queue, self._own = None, [], [], []
        self.position = 0
        repository = self._repository

        def read() -> tuple[Patient, Program | None, list[CustomItem]]:
            # The patient too: the therapist may have changed the pause tolerance.
            return (
                repository.patients.get(patient.id),
                repository.programs.get(patient.id),
                repository.programs.custom_items(patient.id),
            )

        self._runner.submit(
            read, on_done=self._read, on_error=self._failed, pool="db", group="program"
        )

    def _failed(self, exc: BaseException) -> None:
        if isinstance(exc, KeyError):
            self.patient_gone.emit()  # deleted by the therapist meanwhile
            return
        _LOGGER.warning("program not read: %r", exc)

    def _read(self, found: tuple[Patient, Program | None, list[CustomItem]]) -> None:
        patient, stored, own = found
        if patient.id != self._patient_id:
            return  # another patient was chosen meanwhile
        if patient.archived:
            self.patient_gone.emit()
            return
        self.program = stored
        self._own = own
        self.plan = (
            program.plan(stored, self._base, patient.pause_tolerance_ms, own) if stored else []
        )
        self.loaded.emit(patient, program_summary(self.plan, stored))

    def settings_for(self, patient: Patient, kind: ExerciseKind) -> PracticeSettings:
        """An exercise chosen outside the program.

        The patient's pause tolerance, the program's pace, and the patient's
        own words and sentences first, as the program tab and the list say.
        """
        return program.chosen_exercise_settings(
            kind, self._base, patient.pause_tolerance_ms, self.program, self._own
        )

    def start(self) -> program.PlannedExercise | None:
        """The program's first exercise (None: no program)."""
        self._queue = list(self.plan)
        self.position = 0
        return self.next()

    def next(self) -> program.PlannedExercise | None:
        """The program's next exercise (None: it is over)."""
        if not self._queue:
            self.position = 0
            return None
        self.position += 1
        return self._queue.pop(0)

    def announcement(self, planned: program.PlannedExercise) -> str:
        """ "Exercice 2 sur 3 : Nommer des images. …" for the exercise :meth:`next` gave."""
        return program.announcement(self.position, len(self.plan), planned.kind)

    def stop(self) -> None:
        """Leave the program (the patient went back)."""
        self._queue = []
        self.position = 0
