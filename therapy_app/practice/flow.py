"""How a practice session moves: the parts' outcomes in, the next state out (the one mover)."""

from __future__ import annotations

from dataclasses import dataclass

from therapy_app.asr.utterance import HeardUtterance
from therapy_app.errors import AudioDeviceError
from therapy_app.practice import attempts, items
from therapy_app.practice.early import AnswerJudge, Listened
from therapy_app.practice.events import (
    Announced,
    Cue,
    CueGiven,
    ExerciseDone,
    ExerciseKind,
    Heard,
    ListFinished,
    Notice,
    ScriptsOffered,
    State,
)
from therapy_app.practice.free_speech import NOT_UNDERSTOOD, FreeSpeechCycle
from therapy_app.practice.listening import NOTHING_HEARD, Hearing, Listening
from therapy_app.practice.lists import ItemLists
from therapy_app.practice.machine import PracticeMachine, Trigger
from therapy_app.practice.scoring import ScoreResult
from therapy_app.practice.script_cycle import PartnerLine, ScriptCycle, ScriptStep
from therapy_app.practice.session_store import SessionStore
from therapy_app.practice.settings import PracticeSettings
from therapy_app.practice.tries import ItemTries, Verdict
from therapy_app.practice.voice import Voice
from therapy_app.speech.services import SpeechServices

AFTER_REPLAY = {
    State.AWAITING_REPETITION: Trigger.AWAIT_TRY,
    State.FEEDBACK: Trigger.SHOW_VERDICT,
    State.IDLE: Trigger.REST,
}
"""The states where the cue may be said again, and the way back to each once it is said."""


@dataclass(frozen=True)
class Parts:
    """The parts of one exercise session, each with one job, sharing one machine."""

    machine: PracticeMachine
    store: SessionStore
    voice: Voice
    listening: Listening
    tries: ItemTries
    lists: ItemLists
    free: FreeSpeechCycle
    script: ScriptCycle


class PracticeFlow:
    """The controller's moving half: the only code that changes the practice state.

    Every intent the controller accepts and every outcome a part reports
    (``Listened``, ``Hearing``, ``Verdict``, ``Presentation``, ``ScriptStep``…)
    comes here; the flow picks the trigger (``machine.TRANSITIONS``) and what
    to ask of the parts next. The path of one utterance reads top to bottom
    under "the path of one utterance".

    Args:
        kind: which exercise.
        services: the loaded engines.
        settings: limits and starting level.
        parts: the parts of the session.
    """

    def __init__(
        self,
        kind: ExerciseKind,
        services: SpeechServices,
        settings: PracticeSettings,
        parts: Parts,
    ) -> None:
        self.kind = kind
        self._services = services
        self._settings = settings
        self._machine = parts.machine
        self._store = parts.store
        self._voice = parts.voice
        self._listening = parts.listening
        self._tries = parts.tries
        self._lists = parts.lists
        self._free = parts.free
        self._script = parts.script
        self.items_done = 0
        """Items the patient moved on from (counted against ``settings.max_items``)."""
        self._trying = False
        """The recording under way, and its hearing, is a try at the item (not a new utterance)."""
        self._left = False
        """The patient left: what is still being heard is stored, and nothing more is shown."""
        parts.machine.recover_with(self._recover)

    # ----- session ----------------------------------------------------------------
    def begin(self, announcement: str) -> None:
        """Open the session; say ``announcement`` (if any), then the first item."""
        self._store.open()
        if announcement:
            self._machine.emit(Announced(announcement))
            self._move(Trigger.SPEAK)
            self._voice.announce(announcement, on_said=self._announced)
            return
        self._first_item()

    def _announced(self) -> None:
        # The first item may be read on the database worker: wait at rest meanwhile.
        self._move(Trigger.REST)
        self._first_item()

    def _first_item(self) -> None:
        if self.kind is ExerciseKind.SCRIPT:
            self._rest()
            self._script.begin(on_offered=self._offer_scripts)
            return
        if self.kind is ExerciseKind.FREE_SPEECH:
            self._free.begin()  # the patient's phrase book, read on the database worker
            self._move(Trigger.REST)
            return
        self._lists.begin(on_ready=self.show_item)

    def end(self) -> None:
        """Leave at once: stop sound and recording, store what is pending, close the session.

        Nothing the patient said is lost: an utterance being corrected is
        stored without proposals (none was offered), and a recording under
        way ends there, as if their pause had ended it: it, or a try or an
        utterance still being heard or scored, is stored when its job ends
        (:meth:`_heard_after_leaving`), shown to nobody. The session's end is
        the moment the patient left.
        """
        self._left = True
        self._free.leave()
        self._machine.drop_jobs()  # not the recording, hearing or scoring (``outlives_end``)
        self._voice.interrupt()
        self._listening.stop()
        self._store.close()
        self._move(Trigger.END)

    @property
    def finishing(self) -> bool:
        """True after :meth:`end` while what the patient said is still heard or scored."""
        return self._machine.finishing

    # ----- items ------------------------------------------------------------------
    def next_item(self) -> bool:
        """Go on: the next item or line, a new utterance, or the end of the exercise."""
        if self.kind is ExerciseKind.SCRIPT:
            step = self._script.next(self._succeeded())
            if step is None:
                return False
            self._voice.interrupt()
            self._script_step(step)
            return True
        if self.kind is not ExerciseKind.FREE_SPEECH and self._tries.item is None:
            return False  # nothing on screen yet (or the list's summary)
        # "Suivant" while a cue is said moves on at once (S was ignored,
        # and the next answer was scored against the old item).
        self._voice.interrupt()
        self.items_done += 1
        free = self.kind is ExerciseKind.FREE_SPEECH
        limit = self._settings.max_items if free else self._lists.session_length
        if limit is not None and self.items_done >= limit:
            self._tries.clear()
            self._voice.clear()
            self._move(Trigger.REST)
            self._machine.emit(ExerciseDone(self.items_done))
            return True
        if free:
            self._new_cycle()
            self._rest()
            return True
        shown = self._lists.next(self._succeeded())
        if isinstance(shown, ListFinished):
            self._list_finished(shown)
        else:
            self.show_item(shown)
        return True

    def restart(self) -> bool:
        """After a summary: the list or the dialogue again (a dialogue in a program: go on)."""
        if self.kind is not ExerciseKind.SCRIPT:
            shown = self._lists.restart()
            self.show_item(shown)
            return shown is not None
        step = self._script.restart()
        if isinstance(step, ExerciseDone):
            self._machine.emit(step)
        elif step is not None:
            self._script_step(step)
        return step is not None

    def _succeeded(self) -> bool | None:
        """Whether the patient got the item on screen right (None: no item)."""
        return None if self._tries.item is None else self._tries.succeeded

    def show_item(self, shown: items.Presentation | None) -> None:
        """A list's item: on screen, its first cue said (None: nothing to show)."""
        if shown is None:
            return
        self._listening.forget_clip()  # "Ma voix" on a new item: nothing yet
        self._practise(shown)

    def _practise(self, shown: items.Presentation) -> None:
        """Put ``shown`` on screen and say its first cue (SPEAKING → AWAITING_REPETITION).

        A first cue above level 0 (naming, below the help needed last time) is
        reported as a :class:`CueGiven` too.
        """
        cue = self._tries.start(shown.item)
        self._machine.emit(shown.presented)
        if shown.item.start_level > 0:
            self._machine.emit(CueGiven(cue))
        self._say(cue, Trigger.AWAIT_TRY, current=True)

    def _list_finished(self, summary: ListFinished) -> None:
        # No item on screen that an answer could be scored against.
        self._tries.clear()
        self._listening.forget_clip()
        self._move(Trigger.REST)
        self._machine.emit(summary)

    # ----- script practice --------------------------------------------------------
    def choose_script(self, index: int) -> bool:
        """Practise dialogue ``index`` from its first line."""
        step = self._script.choose(index)
        if step is None:
            return False
        self._script_step(step)
        return True

    def choose_another_script(self) -> bool:
        """Leave the dialogue and offer the dialogues again."""
        offer = self._script.choose_another()
        if offer is None:
            return False
        self._voice.interrupt()
        self._offer_scripts(offer)
        return True

    def _offer_scripts(self, offer: ScriptsOffered) -> None:
        self._clear_line()
        self._rest()
        self._machine.emit(offer)

    def _script_step(self, step: ScriptStep) -> None:
        """The dialogue's next line on screen (said, or practised), or its summary."""
        self._clear_line()
        if isinstance(step, ListFinished):
            self._rest()
            self._machine.emit(step)
            return
        self._machine.emit(step.line)
        if isinstance(step, PartnerLine):
            # Said at the patient's pace; whatever the voice does (no speaker,
            # an error), the dialogue goes on: the line is on screen.
            self._move(Trigger.SPEAK)
            self._voice.announce(step.line.text, on_said=self._partner_said)
            return
        self._practise(step.shown)

    def _partner_said(self) -> None:
        step = self._script.partner_said()
        if step is not None:
            self._script_step(step)

    def _clear_line(self) -> None:
        self._tries.clear()
        self._voice.clear()
        self._listening.forget_clip()  # "Ma voix" on a new line: nothing yet

    # ----- speaking -----------------------------------------------------------------
    def replay(self) -> None:
        """Say the current cue again, then go back to where the patient was."""
        self._say(self._voice.cue, AFTER_REPLAY[self._machine.state])

    def _say(self, cue: Cue, then: Trigger, current: bool = False) -> None:
        """Say ``cue`` (SPEAKING), then take ``then``; a failing voice is reported first.

        Args:
            cue: what to say.
            then: where the patient goes on once it is said.
            current: ``cue`` becomes the help "Réécouter" says again.
        """
        self._move(Trigger.SPEAK)

        def said() -> None:
            self._move(then)

        def failed(exc: BaseException) -> None:
            self._machine.report(exc)
            self._move(then)

        self._voice.say(cue, said, failed, current=current)

    # ----- the path of one utterance ---------------------------------------------
    # record → end of speech → hear → judge (a try) or correct (free speech) →
    # feedback → store → next: each step calls the next one.
    def record(self, early: bool) -> bool:
        """Open the microphone (RECORDING); False when it cannot be opened (reported).

        Args:
            early: judge a try at each settled pause and end an accepted one there.
        """
        trying = self.kind is not ExerciseKind.FREE_SPEECH or self._repeating_next()
        if not trying:
            self._new_cycle()
        self._voice.interrupt()
        self._trying = trying
        judge = self._tries.judge(self._voice.cue.level) if trying else None
        try:
            self._listening.open()
        except AudioDeviceError as exc:
            self._machine.report(exc)
            self._move(Trigger.AWAIT_TRY if trying else Trigger.REST)
            return False
        self._move(Trigger.RECORD)
        self._listening.listen(judge, early, on_recorded=lambda done: self._recorded(done, judge))
        return True

    def _repeating_next(self) -> bool:
        """Free speech: True when the next recording is a try at the chosen sentence."""
        if self._free.chosen is None:
            return False
        state = self._machine.state
        if state is State.FEEDBACK and self._tries.last_outcome is not None:
            # After the cycle ended the next recording is a new utterance.
            return not self._tries.finished
        return state in (State.AWAITING_REPETITION, State.SPEAKING)

    def _recorded(self, listened: Listened, judge: AnswerJudge | None) -> None:
        """End of speech: nothing said, or the recording is heard (RECOGNISING).

        After leaving, the same without a move or a notice: heard and stored
        by :meth:`_heard_after_leaving`, or nothing kept.
        """
        if listened.silent:
            if not self._left:
                self._nothing_heard(NOTHING_HEARD)
            return
        if not self._left:
            self._move(Trigger.RECOGNISE)
        self._listening.hear(listened, judge, on_heard=self._heard)

    def _heard(self, hearing: Hearing) -> None:
        """Heard: a try is judged (SCORING), a free-speech utterance corrected (CORRECTING)."""
        if self._left:
            self._heard_after_leaving(hearing)
            return
        heard = hearing.heard
        if heard is None:
            self._nothing_heard(NOTHING_HEARD)
            return
        self._machine.emit(Heard(heard.transcript.text, heard.clip.duration, self._trying))
        if self._trying:
            self._move(Trigger.SCORE)
            self._score(heard, hearing.result)
            return
        if not self._free.understood(heard):
            self._nothing_heard(NOT_UNDERSTOOD)
            return
        self._move(Trigger.CORRECT)
        self._free.correct(heard, on_corrected=lambda: self._move(Trigger.OFFER_PROPOSALS))

    def _score(self, heard: HeardUtterance, result: ScoreResult | None) -> None:
        """Judge the try ``heard`` (``result``: its verdict when already made) → :meth:`_judged`."""
        cue = self._voice.cue
        self._tries.score(heard, result, cue.level, self._voice.tts_s, self._judged)

    def _judged(self, verdict: Verdict) -> None:
        """The verdict: the try is stored first, then reported (FEEDBACK), then the next cue."""
        self._store_try(verdict.outcome)
        if self._left:
            return  # judged after the patient left: stored, shown to nobody
        self._move(Trigger.SHOW_VERDICT)
        self._machine.emit(verdict.feedback)
        if verdict.next_cue is not None:
            self._machine.emit(CueGiven(verdict.next_cue))
            self._say(verdict.next_cue, Trigger.AWAIT_TRY, current=True)

    def _store_try(self, outcome: attempts.TryOutcome) -> None:
        services = self._services
        self._store.save(
            lambda session_id: attempts.item_record(
                session_id, outcome, services.provider, services.model_versions
            ),
            outcome.analysis.clip,
        )

    def _heard_after_leaving(self, hearing: Hearing) -> None:
        """Heard once the patient left: stored as in the exercise, nothing shown, no move.

        A try is judged by the item's rule, so its verdict counts in the
        patient's progress like any other; an utterance is stored without
        proposals (no correction starts after leaving). Nothing heard, or
        nothing understood, is not stored, as in the exercise.
        """
        heard = hearing.heard
        if heard is None:
            return
        if self._trying:
            self._score(heard, hearing.result)
        elif self._free.understood(heard):
            self._free.store_alone(heard)

    def _nothing_heard(self, message: str) -> None:
        """Say why, and wait for the patient's next try or utterance."""
        self._machine.emit(Notice(message))
        self._move(Trigger.AWAIT_TRY if self._trying else Trigger.REST)

    def _recover(self) -> None:
        """After a failed step (reported): the patient tries again, or speaks anew."""
        state = self._machine.state
        if state is State.RECORDING or state.busy:
            self._move(Trigger.AWAIT_TRY if self._trying else Trigger.REST)

    # ----- free speech: proposals -----------------------------------------------
    def hear_proposal(self, index: int) -> bool:
        """Say proposal ``index`` slowly without choosing it."""
        cue = self._free.proposal_cue(index)
        if cue is None:
            return False
        self._voice.stop_sound()
        self._say(cue, Trigger.OFFER_PROPOSALS)
        return True

    def choose(self, index: int) -> bool:
        """Pick proposal ``index``: stored with the utterance, said slowly, then repeated."""
        shown = self._free.choose(index)
        if shown is None:
            return False
        self._voice.stop_sound()  # a proposal being read out
        self._practise(shown)
        return True

    def _new_cycle(self) -> None:
        """Free speech: the last utterance stored and forgotten, ready for a new one."""
        self._free.new_cycle()
        self._tries.clear()
        self._listening.forget_clip()
        self._voice.clear()

    # ----- state --------------------------------------------------------------------
    def _move(self, trigger: Trigger) -> None:
        self._machine.move(trigger)

    def _rest(self) -> None:
        """Nothing to try now (IDLE), unless a recording or the engines are still at work."""
        if not self._machine.waiting_for_engines:
            self._move(Trigger.REST)
