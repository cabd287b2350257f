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
from dataclasses import replace

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
    State,
)
from therapy_app.practice.listening import Listening
from therapy_app.practice.machine import PracticeMachine
from therapy_app.practice.tries import ItemTries
from therapy_app.practice.voice import NO_CUE, Voice
from therapy_app.storage.phrase_store import PhraseStore
from therapy_app.storage.repository import SessionRepository
from therapy_app.storage.script_store import ScriptStore, bundled_examples

_LOGGER = logging.getLogger(__name__)


def offered_scripts(repository: SessionRepository, patient_id: int) -> tuple[list[Script], bool]:
    """The dialogues the patient may practise (database worker).

    Returns:
        Their own dialogues, or the bundled examples when they have none, and
        whether they are the examples. A dialogue without a patient line is
        left out (nothing to practise in it).
    """
    gender = PhraseStore(repository).gender(patient_id)
    own = [s for s in ScriptStore(repository).scripts(patient_id) if s.patient_lines]
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


class ScriptCycle:
    """The patient's pick of a dialogue, then its lines in order, then a summary.

    Args:
        machine: the session's state machine.
        voice: says the partner's lines (and the patient's as models, via ``tries``).
        tries: practises each patient line.
        listening: its last recording belongs to the line on screen.
        content: the repetition lists (distractors for scoring).
        repository, patient_id: where the patient's dialogues are read.
        in_program: the exercise is a step of today's program: after the
            summary the program goes on instead of the dialogue starting again.
    """

    def __init__(
        self,
        machine: PracticeMachine,
        voice: Voice,
        tries: ItemTries,
        listening: Listening,
        content: ExerciseContent,
        repository: SessionRepository,
        patient_id: int,
        in_program: bool = False,
    ) -> None:
        self._machine = machine
        self._voice = voice
        self._tries = tries
        self._listening = listening
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
    def begin(self) -> None:
        """Read the patient's dialogues (database worker), then offer them."""
        self._rest()
        self._machine.submit(
            offered_scripts,
            self._repository,
            self._patient_id,
            pool="db",
            on_done=self._offered,
            on_error=self._not_read,
        )

    def _not_read(self, exc: BaseException) -> None:
        _LOGGER.warning("the patient's scripts could not be read, offering the examples: %r", exc)
        try:
            examples = [s for s in bundled_examples() if s.patient_lines]
        except Exception as error:  # noqa: BLE001 - reported to the patient in French
            self._machine.fail(error)
            return
        self._offered((examples, True))

    def _offered(self, found: tuple[list[Script], bool]) -> None:
        self.scripts, self.examples = found
        self._offer()

    def _offer(self) -> None:
        self.script = None
        self.index = -1
        self.finished = False
        self._clear_line()
        self._rest()
        self._machine.emit(ScriptsOffered(tuple(s.title for s in self.scripts), self.examples))

    @property
    def picking(self) -> bool:
        """True while the dialogues are offered and none is chosen."""
        return self.script is None and bool(self.scripts)

    def choose(self, index: int) -> bool:
        """Practise dialogue ``index`` of the offer (0-based) from its first line."""
        if self.script is not None or not 0 <= index < len(self.scripts):
            return False
        if self._machine.waiting_for_engines:
            return False
        self._start(self.scripts[index])
        return True

    def choose_another(self) -> bool:
        """Back to the offer of dialogues (the voice stops)."""
        if not self.scripts or self._machine.waiting_for_engines:
            return False
        self._voice.interrupt()
        self._offer()
        return True

    # ----- the dialogue -----------------------------------------------------------
    def _start(self, script: Script) -> None:
        self.script = script
        self.finished = False
        self._results = {}
        self._line(0)

    def _line(self, index: int) -> None:
        script = self.script
        if script is None:
            return
        self.index = index
        self._clear_line()
        turns = script.turns
        if index >= len(turns):
            self._finish()
            return
        turn = turns[index]
        count = len(turns)
        self._machine.emit(ScriptLine(script.title, index, count, turn.speaker.value, turn.text))
        if turn.speaker is Speaker.PARTNER:
            # Said at the patient's pace; whatever the voice does (no speaker,
            # an error), the dialogue goes on: the line is on screen.
            self._machine.rest_state = State.IDLE
            self._voice.announce(turn.text, lambda: self._line(index + 1))
            return
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
        self._tries.start(item, presented)

    def next(self) -> bool:
        """The dialogue's next line (after the feedback, or skipping the line on screen)."""
        if self.script is None or self.finished:
            return False
        if self._tries.item is not None:
            self._results[self.index] = self._results.get(self.index, False) or (
                self._tries.succeeded
            )
        self._voice.interrupt()
        self._line(self.index + 1)
        return True

    def _finish(self) -> None:
        script = self.script
        assert script is not None
        self.finished = True
        self._rest()
        self._machine.emit(ListFinished(len(script.patient_lines), sum(self._results.values())))

    def restart(self) -> bool:
        """After the summary: the same dialogue again (in a program: the program goes on)."""
        if not self.finished or self.script is None or self._machine.waiting_for_engines:
            return False
        if self._in_program:
            self._machine.emit(ExerciseDone(len(self.script.patient_lines)))
            return True
        self._start(self.script)
        return True

    # ----- helpers --------------------------------------------------------------------
    def _clear_line(self) -> None:
        self._tries.clear()
        self._voice.cue = NO_CUE
        self._listening.last_clip = None  # "Ma voix" on a new line: nothing yet

    def _rest(self) -> None:
        self._machine.rest_state = State.IDLE
        if not self._machine.waiting_for_engines:
            self._machine.set_state(State.IDLE)
