"""The practice session the screens observe: what they may read, the intents they send, events."""

from __future__ import annotations

from collections.abc import Callable

from therapy_app.exercises import ExerciseContent, default_content
from therapy_app.naming.bank import NamingBank
from therapy_app.phrases.model import Script
from therapy_app.practice import items
from therapy_app.practice.events import Cue, ExerciseKind, PracticeEvent, Proposal, State
from therapy_app.practice.flow import AFTER_REPLAY, Parts, PracticeFlow
from therapy_app.practice.free_speech import FreeSpeechCycle
from therapy_app.practice.listening import Listening
from therapy_app.practice.lists import ItemLists
from therapy_app.practice.machine import PracticeMachine
from therapy_app.practice.scheduling import Scheduler
from therapy_app.practice.script_cycle import ScriptCycle
from therapy_app.practice.session_store import SessionStore
from therapy_app.practice.settings import PracticeSettings as PracticeSettings
from therapy_app.practice.tries import ItemTries
from therapy_app.practice.voice import Voice
from therapy_app.speech.services import SpeechServices
from therapy_app.storage.repository import SessionRepository


class PracticeController:
    """One exercise session for one patient. Not thread-safe: call it from one thread.

    A facade: what the screens may read, and the intents they send, each
    checked here. The parts do one job each and report outcomes:
    :mod:`~therapy_app.practice.voice` (says a cue),
    :mod:`~therapy_app.practice.listening` (records, hears: ``Listened``, ``Hearing``),
    :mod:`~therapy_app.practice.tries` (scores: ``Verdict``),
    :mod:`~therapy_app.practice.free_speech` (proposals, the choice),
    :mod:`~therapy_app.practice.lists` and :mod:`~therapy_app.practice.script_cycle`
    (what comes next: ``Presentation``, ``ScriptStep``, ``ListFinished``).
    Its moving half, :class:`~therapy_app.practice.flow.PracticeFlow`, alone
    moves the :class:`~therapy_app.practice.machine.PracticeMachine` through
    its transition table (docs/ARCHITECTURE.md, "Practice: states and the
    path of one utterance").

    Args:
        kind: which exercise.
        services: the loaded engines (the speech path's).
        repository: where sessions and attempts go.
        patient_id: who practises.
        scheduler: runs slow steps (the GUI's TaskRunner, or ``InlineScheduler``).
        content: exercise lists; None for the bundled ones.
        settings: limits and starting level.
        bank: naming pictures; None for the bundled bank.
    """

    def __init__(
        self,
        kind: ExerciseKind,
        services: SpeechServices,
        repository: SessionRepository,
        patient_id: int,
        scheduler: Scheduler,
        content: ExerciseContent | None = None,
        settings: PracticeSettings | None = None,
        bank: NamingBank | None = None,
    ) -> None:
        self.kind = kind
        self.services = services
        self.repository = repository
        self.patient_id = patient_id
        self.settings = settings or PracticeSettings()
        self.content = content or default_content()
        self.early_verdicts = True
        """Judge a try at a known target at the patient's settled pauses, and end an
        accepted one there (:mod:`therapy_app.practice.early`); False waits for the
        whole pause tolerance, then judges (benchmarks compare the two)."""
        self._machine = machine = PracticeMachine(kind, scheduler)
        self._store = SessionStore(repository, patient_id, kind.value, scheduler, machine.emit)
        self._voice = Voice(machine, services, self.settings.rate_factor)
        self._listening = Listening(machine, services, self.settings)
        self._tries = ItemTries(machine, services, kind)
        self._lists = ItemLists(
            machine,
            kind,
            self.content,
            self.settings,
            repository,
            patient_id,
            bank,
            lambda: self._flow.items_done,
        )
        self._free = FreeSpeechCycle(
            machine, services, self._store, self.content, repository, patient_id
        )
        self._script = ScriptCycle(
            machine,
            self.content,
            repository,
            patient_id,
            in_program=self.settings.max_items is not None,
        )
        parts = Parts(
            machine,
            self._store,
            self._voice,
            self._listening,
            self._tries,
            self._lists,
            self._free,
            self._script,
        )
        self._flow = PracticeFlow(kind, services, self.settings, parts)

    # ----- observation -------------------------------------------------------
    def subscribe(self, listener: Callable[[PracticeEvent], None]) -> None:
        """Call ``listener(event)`` for every event, on the controller's thread."""
        self._machine.subscribe(listener)

    def unsubscribe(self, listener: Callable[[PracticeEvent], None]) -> None:
        """Stop calling ``listener`` (a closed screen must not receive late events)."""
        self._machine.unsubscribe(listener)

    @property
    def state(self) -> State:
        """Current state."""
        return self._machine.state

    @property
    def item(self) -> items.ExerciseItem | None:
        """The item being practised (None in free speech before a choice)."""
        return self._tries.item

    @property
    def cue(self) -> Cue:
        """The help currently given."""
        return self._voice.cue

    @property
    def level(self) -> int:
        """Current list level (repetition 1..3, completion and naming 0 = all)."""
        return self._lists.level

    @property
    def session_id(self) -> int | None:
        """The database session, once started."""
        return self._store.session_id

    @property
    def input_level(self) -> float:
        """Microphone peak 0..1 while recording (poll it for a meter)."""
        return self._listening.input_level

    @property
    def can_replay(self) -> bool:
        """True when :meth:`replay` has something to say."""
        at_rest = self.state in AFTER_REPLAY and not self.list_finished
        return bool(self._voice.cue.spoken) and at_rest

    @property
    def can_record(self) -> bool:
        """True when Space would start (or stop) a recording now.

        A list exercise records only once its item is on screen: never before
        the first picture arrives, during a program's announcement, or after
        the list's end (an answer scored against a picture not seen).
        """
        state = self.state
        if state is State.RECORDING:
            return True
        if self._machine.waiting_for_engines:
            return False
        return self.kind is ExerciseKind.FREE_SPEECH or self._tries.item is not None

    @property
    def list_finished(self) -> bool:
        """The end of the list (outside a program) or of the dialogue was reached.

        :meth:`restart` starts it again (a dialogue in a program: the program goes on).
        """
        if self.kind is ExerciseKind.SCRIPT:
            return self._script.finished
        return self._lists.finished

    @property
    def has_recording(self) -> bool:
        """True when the patient's last recording can be played back."""
        return self._listening.last_clip is not None

    @property
    def proposals(self) -> list[Proposal]:
        """The sentences offered in free speech (empty outside REVIEWING)."""
        return self._free.proposals

    # ----- session ----------------------------------------------------------
    def begin(self, announcement: str = "") -> None:
        """Open the database session and present the first item (or wait for speech).

        Args:
            announcement: said and shown first (:class:`Announced`), before the
                first item: a program's next exercise starts visibly, and
                nothing can be recorded until its first item is on screen.
        """
        self._flow.begin(announcement)

    def end(self) -> None:
        """Leave: stop sound and recording, store what is pending, close the session."""
        self._flow.end()

    @property
    def finishing(self) -> bool:
        """True after :meth:`end` while what the patient said is still heard or scored.

        Its attempt is stored once that job's result is delivered: keep the
        scheduler running meanwhile (closing the app waits for it).
        """
        return self._flow.finishing

    # ----- items ------------------------------------------------------------
    @property
    def item_count(self) -> int:
        """Items in the current list."""
        return len(self._lists.list)

    @property
    def all_items(self) -> list[items.ExerciseItem]:
        """The current list (a copy)."""
        return self._lists.list.all()

    def index_of(self, target: str) -> int | None:
        """Position of the item whose target is ``target`` (case-insensitive), or None."""
        return self._lists.list.index_of(target)

    def set_level(self, level: int) -> bool:
        """Switch the repetition list to ``level`` (1..3) and present its first sentence."""
        if self.kind is not ExerciseKind.REPETITION or self._machine.waiting_for_engines:
            return False
        self._flow.show_item(self._lists.set_level(level))
        return True

    def present(self, index: int) -> None:
        """Show item ``index`` of the list and say it."""
        self._flow.show_item(self._lists.present(index))

    def next_item(self) -> bool:
        """Go on to the next item (free speech: get ready for a new utterance).

        Also while the item's cue is being said (the voice stops). With
        ``settings.max_items`` (the therapist's program), the item that
        reaches the count (never more than the list has) ends the exercise:
        :class:`ExerciseDone` is reported and nothing new is presented.
        Outside a program the list's last item leads to :class:`ListFinished`.
        False while recording or while the engines work, and when no item is
        on screen.
        """
        if self._machine.waiting_for_engines:
            return False
        return self._flow.next_item()

    def restart(self) -> bool:
        """After the list's summary: the list again from its first item.

        After a dialogue's summary: the same dialogue again, or in a program
        the program's next exercise (:class:`ExerciseDone`).
        """
        return self._flow.restart()

    # ----- script practice ------------------------------------------------------------
    @property
    def scripts(self) -> list[Script]:
        """The dialogues offered in script practice (empty until read, and in other exercises)."""
        return list(self._script.scripts)

    @property
    def script(self) -> Script | None:
        """The dialogue being practised (None while the patient picks one)."""
        return self._script.script

    @property
    def choosing_script(self) -> bool:
        """True while the dialogues are offered and none is chosen."""
        return self.kind is ExerciseKind.SCRIPT and self._script.picking

    def choose_script(self, index: int) -> bool:
        """Practise dialogue ``index`` (0-based) of :attr:`scripts` from its first line."""
        return self.kind is ExerciseKind.SCRIPT and self._flow.choose_script(index)

    def choose_another_script(self) -> bool:
        """Leave the dialogue and offer the dialogues again."""
        return self.kind is ExerciseKind.SCRIPT and self._flow.choose_another_script()

    # ----- speaking ---------------------------------------------------------
    def replay(self) -> bool:
        """Say the current sentence, cue or chosen sentence again (R)."""
        if not self.can_replay:
            return False
        self._flow.replay()
        return True

    def play_recording(self) -> bool:
        """Play the patient's last recording back."""
        clip = self._listening.last_clip
        if clip is None or self.state not in (*AFTER_REPLAY, State.REVIEWING):
            return False
        self._voice.play_recording(clip)
        return True

    # ----- recording ----------------------------------------------------------
    def toggle_recording(self) -> bool:
        """Space: start recording, or stop it when already recording."""
        if self.state is State.RECORDING:
            return self.stop_recording()
        return self.start_recording()

    def start_recording(self) -> bool:
        """Listen to the patient (stops the voice first). False when not possible now."""
        if not self.can_record or self.state is State.RECORDING:
            return False
        return self._flow.record(self.early_verdicts)

    def stop_recording(self) -> bool:
        """End the recording now (the button); the clip is then heard."""
        return self._listening.stop()

    # ----- free speech: proposals -----------------------------------------------
    def hear_proposal(self, index: int) -> bool:
        """Say proposal ``index`` slowly without choosing it (many patients read slowly)."""
        return self._flow.hear_proposal(index)

    def choose(self, index: int) -> bool:
        """Pick proposal ``index`` (0-based; keys 1/2/3): it is spoken slowly, then repeated."""
        return self._flow.choose(index)

    def confirm(self) -> bool:
        """Enter: take the first proposal, or go on after the feedback."""
        if self._free.choosing():
            return self.choose(0)
        if self.state is State.FEEDBACK:
            return self.next_item()
        return False
