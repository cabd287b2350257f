"""Free speech: an utterance, its proposals and the chosen sentence; the utterance stored once."""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable

from therapy_app.asr.utterance import HeardUtterance
from therapy_app.domain.attempt_record import AttemptRecord
from therapy_app.exercises import ExerciseContent
from therapy_app.phrases.book import patient_book, with_chosen
from therapy_app.phrases.match import index_book
from therapy_app.phrases.model import PhraseBook
from therapy_app.practice import attempts, cues, items
from therapy_app.practice.events import Corrected, Cue, ExerciseKind, ItemPresented, Proposal, State
from therapy_app.practice.machine import PracticeMachine
from therapy_app.practice.session_store import SessionStore
from therapy_app.speech import chain
from therapy_app.speech.services import SpeechServices
from therapy_app.storage.repository import SessionRepository

_LOGGER = logging.getLogger(__name__)

NOT_UNDERSTOOD = "Je n'ai pas bien compris. Essayons encore."
NOTHING_OFFERED = chain.CorrectionResult()
"""What an utterance is stored with when the patient left before any sentence was offered."""


class FreeSpeechCycle:
    """One utterance at a time: its proposals and the patient's choice (tries are the controller's).

    Args:
        machine: the session's state machine (its jobs; the state is only read).
        services: the engines (the corrector may be absent).
        store: where the utterance is saved.
        content: the exercise lists (distractors for scoring the choice).
        repository: where the patient's phrase book is read (None: no book).
        patient_id: whose phrase book.
    """

    def __init__(
        self,
        machine: PracticeMachine,
        services: SpeechServices,
        store: SessionStore,
        content: ExerciseContent,
        repository: SessionRepository | None = None,
        patient_id: int | None = None,
    ) -> None:
        self._machine = machine
        self._services = services
        self._store = store
        self._content = content
        self._utterance: HeardUtterance | None = None
        self._correction: chain.CorrectionResult | None = None
        self.chosen: str | None = None
        """The sentence the patient chose to repeat (None before a choice)."""
        self._saved = True  # the utterance's record is stored (or queued)
        self._repository = repository
        self._patient_id = patient_id
        self.book: PhraseBook | None = None
        """The patient's phrase book once read (None before, or without one)."""

    def begin(self) -> None:
        """Read the patient's phrase book on the database worker (free speech starts at once).

        An utterance heard before the book is read is corrected without it;
        a book that cannot be read leaves free speech as it was (logged).
        """
        if self._repository is None or self._patient_id is None:
            return
        self._machine.submit(
            _read_book,
            self._repository,
            self._patient_id,
            pool="db",
            on_done=self._book_read,
            on_error=self._book_unread,
        )

    def _book_read(self, book: PhraseBook) -> None:
        self.book = book

    def _book_unread(self, exc: BaseException) -> None:
        _LOGGER.warning("the phrase book could not be read, free speech goes on without: %r", exc)

    def new_cycle(self) -> None:
        """Store the previous utterance if needed and forget it: a new utterance comes."""
        self.save()
        self._utterance = self._correction = None
        self.chosen = None

    def understood(self, utterance: HeardUtterance) -> bool:
        """False when nothing was understood in a new utterance (nothing to correct)."""
        if utterance.transcript.text.strip():
            return True
        self._services.forget_heard()  # no phrase-book check: drop its encoder output
        return False

    def correct(self, utterance: HeardUtterance, on_corrected: Callable[[], None]) -> None:
        """Seek sentences for a new utterance; ``on_corrected()`` once they are offered."""
        self._utterance = utterance
        # "Which of my sentences is this?" first, then the corrector (speech.chain).
        correct = functools.partial(chain.correct, book=self.book, utterance=utterance)

        def corrected(result: chain.CorrectionResult) -> None:
            self._corrected(result)
            on_corrected()

        def failed(exc: BaseException) -> None:
            # What the patient said is kept even when no sentence can be offered for it.
            if self._utterance is utterance:
                self._utterance = None
                self._keep(utterance, NOTHING_OFFERED, None)
            self._machine.fail(exc)

        self._machine.submit(
            correct, self._services, utterance.transcript.text, on_done=corrected, on_error=failed
        )

    def _corrected(self, result: chain.CorrectionResult) -> None:
        self._correction = result
        heard = self._utterance.transcript.text if self._utterance else ""
        self._saved = False
        refusal = result.correction.refusal if result.correction is not None else None
        corrected = result.correction is not None and refusal is None
        self._machine.emit(Corrected(heard, list(result.proposals), corrected, refusal))

    @property
    def proposals(self) -> list[Proposal]:
        """The sentences offered (empty before a correction)."""
        return list(self._correction.proposals) if self._correction else []

    def choosing(self) -> bool:
        """True while the patient picks a proposal (also while one is read out)."""
        state = self._machine.state
        offered = self._correction is not None and self.chosen is None
        return offered and state in (State.REVIEWING, State.SPEAKING)

    def _proposal(self, index: int) -> str | None:
        if not self.choosing() or self._correction is None:
            return None
        if not 0 <= index < len(self._correction.proposals):
            return None
        return self._correction.proposals[index].text

    def proposal_cue(self, index: int) -> Cue | None:
        """Proposal ``index`` to say slowly without choosing it (None: no such proposal now)."""
        text = self._proposal(index)
        if text is None:
            return None
        return Cue(0, "", text, text, cues.SLOW_RATE_WPM)

    def choose(self, index: int) -> items.Presentation | None:
        """Pick proposal ``index``: stored with the utterance; returns the sentence to repeat."""
        text = self._proposal(index)
        if text is None:
            return None
        self.chosen = text
        if self.book is not None:
            self.book = with_chosen(self.book, text)
        self.save()  # the utterance and the choice, before any repetition try
        item = items.free_speech_item(text, self._content)
        presented = ItemPresented(ExerciseKind.FREE_SPEECH, text, text, 0, 0, 1)
        return items.Presentation(item, presented)

    def save(self) -> None:
        """Store the utterance once: when a proposal is chosen, or when leaving.

        Leaving the proposals without choosing stores no chosen sentence (and
        so no repetition score): nothing is invented.
        """
        if self._saved or self._utterance is None or self._correction is None:
            return
        self._saved = True
        self._keep(self._utterance, self._correction, self.chosen)

    def leave(self) -> None:
        """The patient leaves: the utterance is stored once, alone if it was being corrected."""
        utterance = self._utterance
        if self._machine.state is State.CORRECTING and utterance is not None:
            self._utterance = None  # its correction, still running, is dropped
            self._keep(utterance, NOTHING_OFFERED, None)
            return
        self.save()

    def store_alone(self, utterance: HeardUtterance) -> None:
        """Store ``utterance`` without proposals: heard after the patient left, never corrected."""
        self._services.forget_heard()  # no phrase-book check: drop its encoder output
        self._keep(utterance, NOTHING_OFFERED, None)

    def _keep(
        self, utterance: HeardUtterance, correction: chain.CorrectionResult, chosen: str | None
    ) -> None:
        """Store ``utterance`` with what was offered for it and the patient's choice."""
        services = self._services

        def build(session_id: int) -> AttemptRecord:
            return attempts.free_speech_record(
                session_id,
                utterance,
                correction,
                chosen,
                services.provider,
                services.model_versions,
            )

        self._store.save(build, utterance.clip)


def _read_book(repository: SessionRepository, patient_id: int) -> PhraseBook:
    """The patient's book, indexed for matching (both off the UI thread)."""
    book = patient_book(repository, patient_id)
    index_book(book)  # the lexicon and the book's words, before the first utterance
    return book
