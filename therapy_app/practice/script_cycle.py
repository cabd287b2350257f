"""Script practice: a dialogue line by line, the partner's said by the voice, the patient's judged.

Script training (Cherney's AphasiaScripts) practises a short
dialogue the patient needs in everyday life until its lines come
automatically. The patient picks one of their dialogues (the bundled examples
when the therapist wrote none); each partner line is shown and said by the
app's voice at the patient's pace, then the dialogue goes on; each patient
line is shown, said as a model and practised exactly like a sentence to
repeat (:func:`therapy_app.practice.items.repetition_item`, the same cues,
scoring and feedback through :class:`~therapy_app.practice.tries.ItemTries`),
each try stored as a ``script`` attempt with its script and recording. The
dialogue goes on when the patient moves on (after a success or the last
cue); its end shows how many of their lines they got right.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, replace

from therapy_app.exercises import ExerciseContent
from therapy_app.phrases.agreement import agree
from therapy_app.phrases.model import Gender, Script, Speaker
from therapy_app.practice import items
from therapy_app.practice.custom import CUSTOM_LEVEL
from therapy_app.practice.events import (
    ExerciseDone,
    ExerciseKind,
    ItemPresented,
    ListFinished,
    ScriptLine,
    ScriptsOffered,
)
from therapy_app.practice.machine import PracticeMachine
from therapy_app.storage.repository import SessionRepository
from therapy_app.storage.script_store import bundled_examples

_LOGGER = logging.getLogger(__name__)


def offered_scripts(repository: SessionRepository, patient_id: int) -> tuple[list[Script], bool]:
    """The dialogues the patient may practise (database worker).

    Returns:
        Their own dialogues, or the bundled examples when they have none, and
        whether they are the examples. A dialogue without a patient line is
        left out (nothing to practise in it).
    """
    gender = repository.phrases.gender(patient_id)
    own = [s for s in repository.scripts.all(patient_id) if s.patient_lines]
    if own:
        return [agreed(s, gender) for s in own], False
    return [agreed(s, gender) for s in bundled_examples() if s.patient_lines], True


def agreed(script: Script, gender: Gender) -> Script:
    """``script`` with the patient's lines agreed with their gender ("je suis allé(e)").

    Partner lines are left as written: their "je" is the partner.
    """
    turns = tuple(
        replace(t, text=agree(t.text, gender)) if t.speaker is Speaker.PATIENT else t
        for t in script.turns
    )
    return replace(script, turns=turns)


def script_item(text: str, script: Script, content: ExerciseContent) -> items.ExerciseItem:
    """A patient line as an item to repeat, judged exactly like a sentence of the patient's list.

    Its distractors come from the dialogue's other patient lines and the
    repetition lists (as for the patient's own sentences); each try is
    stored with the script's id (None for a bundled example: it has no row).
    """
    pool = [*script.patient_lines, *content.all_sentences()]
    item = items.repetition_item(text, pool, CUSTOM_LEVEL, ExerciseKind.SCRIPT)
    return replace(item, script_id=script.id or None)


@dataclass(frozen=True)
class PartnerLine:
    """The partner's line comes on screen: the voice says it, then the dialogue goes on."""

    line: ScriptLine


@dataclass(frozen=True)
class PatientLine:
    """The patient's line comes on screen: it is practised as an item."""

    line: ScriptLine
    shown: items.Presentation


ScriptStep = PartnerLine | PatientLine | ListFinished
"""What comes next in a dialogue: a line, or its end (the summary's numbers)."""


class ScriptCycle:
    """The patient's pick of a dialogue, then its lines in order, then a summary.

    Each method returns what comes next; the controller shows it and moves the state.

    Args:
        machine: the session's state machine (its jobs; the state is only read).
        content: the repetition lists (distractors for scoring).
        repository, patient_id: where the patient's dialogues are read.
        in_program: the exercise is a step of today's program: after the
            summary the program goes on instead of the dialogue starting again.
    """

    def __init__(
        self,
        machine: PracticeMachine,
        content: ExerciseContent,
        repository: SessionRepository,
        patient_id: int,
        in_program: bool = False,
    ) -> None:
        self._machine = machine
        self._content = content
        self._repository = repository
        self._patient_id = patient_id
        self._in_program = in_program
        self.scripts: list[Script] = []
        """The dialogues offered (empty until read)."""
        self.examples = False
        """The dialogues offered are the bundled examples."""
        self.script: Script | None = None
        """The dialogue being practised (None while the patient picks one)."""
        self.index = -1
        """The line on screen (-1 before the first)."""
        self.finished = False
        """The dialogue's end was reached: its summary is shown."""
        self._results: dict[int, bool] = {}  # patient line index -> got right

    # ----- picking ------------------------------------------------------------------
    def begin(self, on_offered: Callable[[ScriptsOffered], None]) -> None:
        """Read the patient's dialogues (database worker); ``on_offered`` receives the offer."""

        def offered(found: tuple[list[Script], bool]) -> None:
            self.scripts, self.examples = found
            on_offered(self._offer())

        def not_read(exc: BaseException) -> None:
            _LOGGER.warning(
                "the patient's scripts could not be read, offering the examples: %r", exc
            )
            try:
                examples = [s for s in bundled_examples() if s.patient_lines]
            except Exception as error:  # noqa: BLE001 - reported to the patient in French
                self._machine.fail(error)
                return
            offered((examples, True))

        self._machine.submit(
            offered_scripts,
            self._repository,
            self._patient_id,
            pool="db",
            on_done=offered,
            on_error=not_read,
        )

    def _offer(self) -> ScriptsOffered:
        self.script = None
        self.index = -1
        self.finished = False
        return ScriptsOffered(tuple(s.title for s in self.scripts), self.examples)

    @property
    def picking(self) -> bool:
        """True while the dialogues are offered and none is chosen."""
        return self.script is None and bool(self.scripts)

    def choose(self, index: int) -> ScriptStep | None:
        """Dialogue ``index`` of the offer (0-based) from its first line (None: refused)."""
        if self.script is not None or not 0 <= index < len(self.scripts):
            return None
        if self._machine.waiting_for_engines:
            return None
        return self._start(self.scripts[index])

    def choose_another(self) -> ScriptsOffered | None:
        """Back to the offer of dialogues (None: refused)."""
        if not self.scripts or self._machine.waiting_for_engines:
            return None
        return self._offer()

    # ----- the dialogue -----------------------------------------------------------
    def _start(self, script: Script) -> ScriptStep:
        self.script = script
        self.finished = False
        self._results = {}
        return self._line(0)

    def _line(self, index: int) -> ScriptStep:
        script = self.script
        assert script is not None
        self.index = index
        turns = script.turns
        if index >= len(turns):
            return self._finish()
        turn = turns[index]
        count = len(turns)
        line = ScriptLine(script.title, index, count, turn.speaker.value, turn.text)
        if turn.speaker is Speaker.PARTNER:
            return PartnerLine(line)
        lines = [i for i, t in enumerate(turns) if t.speaker is Speaker.PATIENT]
        self._results.setdefault(index, False)
        item = script_item(turn.text, script, self._content)
        presented = ItemPresented(
            ExerciseKind.SCRIPT,
            item.prompt,
            item.target,
            item.level,
            index,
            count,
            number=lines.index(index) + 1,
            total=len(lines),
        )
        return PatientLine(line, items.Presentation(item, presented))

    def next(self, succeeded: bool | None) -> ScriptStep | None:
        """The dialogue's next line (after the feedback, or skipping the line on screen).

        Args:
            succeeded: whether the patient got the line on screen right (None:
                not a line of theirs).

        Returns:
            What comes next; None when there is no dialogue going on.
        """
        if self.script is None or self.finished:
            return None
        if succeeded is not None:
            self._results[self.index] = self._results.get(self.index, False) or succeeded
        return self._line(self.index + 1)

    def partner_said(self) -> ScriptStep | None:
        """The partner's line was said: the next line (None: no dialogue going on)."""
        return self.next(None)

    def _finish(self) -> ListFinished:
        script = self.script
        assert script is not None
        self.finished = True
        return ListFinished(len(script.patient_lines), sum(self._results.values()))

    def restart(self) -> ScriptStep | ExerciseDone | None:
        """After the summary: the same dialogue again (in a program: the program goes on).

        Returns:
            The dialogue's first line, :class:`ExerciseDone` in a program, or
            None (refused: no summary shown, or the engines work).
        """
        if not self.finished or self.script is None or self._machine.waiting_for_engines:
            return None
        if self._in_program:
            return ExerciseDone(len(self.script.patient_lines))
        return self._start(self.script)
