"""Which pictures a naming session shows, and at which cue level each one starts.

**Start level, per item.** Naming difficulty is a property of the word
(frequency, length, category) as much as of the patient, so the level is
kept per picture: a picture starts one step below the cue level that led to
success the last time it was practised (vanishing cues: the patient is
given the chance to need less help, and the start follows the patient both
ways). A picture never named, even after the spoken model, starts at the
written word. A new picture starts with the picture alone.

**Which pictures.** Up to :data:`SESSION_SIZE`: first the pictures that
still needed help last time (the least recently practised first), at most
half the session; then pictures never shown, in the bank's teaching order
(frequent words first, categories mixed); then, when every picture has been
seen, the mastered ones, least recently practised first.

**Frequent errors.** A wrong answer the patient gave at least twice for a
picture becomes one of its competitors in scoring.
"""

from __future__ import annotations

import re
import zlib
from collections import Counter
from dataclasses import dataclass, field, replace
from datetime import datetime

from therapy_app.analysis.answers import bare_answer
from therapy_app.naming.bank import NamingBank, NamingItem
from therapy_app.practice.events import ExerciseKind
from therapy_app.practice.naming_cues import MAX_NAMING_LEVEL
from therapy_app.storage.repository import SessionRepository

_FIRST_SOUNDS = re.compile(r"[^aeiouyàâäéèêëîïôöùûüœ]*[aeiouyàâäéèêëîïôöùûüœ]+", re.IGNORECASE)
SESSION_SIZE = 20
ERROR_MIN_COUNT = 2
ERRORS_KEPT = 2


@dataclass
class ItemHistory:
    """What the patient did with one picture.

    Attributes:
        needed_level: the cue level of the success in the latest session that
            showed it; ``MAX_NAMING_LEVEL + 1`` when it was not named even
            after the model.
        last_practised: when it was last tried.
        errors: wrong answers (determiners dropped) and how often they came.
    """

    needed_level: int
    last_practised: datetime
    errors: Counter[str] = field(default_factory=Counter)

    @property
    def start_level(self) -> int:
        """One step below what was needed (never above the written word)."""
        return max(0, min(self.needed_level, MAX_NAMING_LEVEL) - 1)

    def frequent_errors(self) -> list[str]:
        """The wrong answers said at least :data:`ERROR_MIN_COUNT` times, most frequent first."""
        common = self.errors.most_common()
        return [text for text, n in common if n >= ERROR_MIN_COUNT][:ERRORS_KEPT]


@dataclass(frozen=True)
class PlannedItem:
    """A picture of the session.

    Attributes:
        item: the picture.
        start_level: its first cue level.
        errors: the patient's frequent wrong answers for it.
    """

    item: NamingItem
    start_level: int
    errors: tuple[str, ...] = ()


def read_histories(repository: SessionRepository, patient_id: int) -> dict[str, ItemHistory]:
    """Each picture's history (by word), from the patient's naming sessions."""
    histories: dict[str, ItemHistory] = {}
    sessions = [
        s
        for s in repository.sessions.all(patient_id)
        if getattr(s.exercise_kind, "value", s.exercise_kind) == ExerciseKind.NAMING.value
    ]
    for session in sessions:  # oldest first: a later session overrides the level
        needed: dict[str, int] = {}
        for attempt in repository.attempts.all(session_id=session.id):
            word = (attempt.record.target_text or "").strip()
            if not word:
                continue
            history = histories.setdefault(
                word, ItemHistory(MAX_NAMING_LEVEL + 1, attempt.created_at)
            )
            history.last_practised = attempt.created_at
            needed.setdefault(word, MAX_NAMING_LEVEL + 1)
            if attempt.success:
                needed[word] = min(needed[word], attempt.record.cue_level or 0)
            else:
                said = bare_answer(attempt.transcript)
                if said and said != word.lower():
                    history.errors[said] += 1
        for word, level in needed.items():
            histories[word].needed_level = level
    return histories


def teaching_order(bank: NamingBank) -> list[NamingItem]:
    """Frequent words first; within a band a fixed shuffle, so categories mix."""
    return sorted(bank.items, key=lambda i: (i.frequency_band, zlib.crc32(i.id.encode())))


def plan_session(
    bank: NamingBank,
    histories: dict[str, ItemHistory],
    size: int = SESSION_SIZE,
    first: tuple[NamingItem, ...] = (),
) -> list[PlannedItem]:
    """The pictures of the next session (see the module docstring).

    ``first``: pictures the therapist put in the patient's own list, shown
    before the others (still at the level their history gives).
    """
    order = teaching_order(bank)
    seen = [i for i in order if i.word in histories]
    due = sorted(
        (i for i in seen if histories[i.word].needed_level > 0),
        key=lambda i: histories[i.word].last_practised,
    )[: size // 2]
    new = [i for i in order if i.word not in histories]
    mastered = sorted(
        (i for i in seen if histories[i.word].needed_level == 0),
        key=lambda i: histories[i.word].last_practised,
    )
    chosen: list[NamingItem] = []
    for item in (*first, *due, *new, *mastered):
        if item not in chosen:
            chosen.append(item)
    out = []
    for item in chosen[:size]:
        history = histories.get(item.word)
        if history is None:
            out.append(PlannedItem(item, 0))
        else:
            out.append(PlannedItem(item, history.start_level, tuple(history.frequent_errors())))
    return out


def selected(bank: NamingBank, level: int | None = None, category: str = "") -> NamingBank:
    """The pictures a program allows: frequency band up to ``level``, one ``category``.

    Falls back to the whole bank when the choice leaves nothing (a category
    renamed by a newer bank), so that a session always has pictures.
    """
    kept = tuple(
        i
        for i in bank.items
        if (level is None or i.frequency_band <= level) and (not category or i.category == category)
    )
    return replace(bank, items=kept) if kept else bank


def own_pictures(
    bank: NamingBank, texts: tuple[str, ...], chosen: tuple[tuple[str, str], ...] = ()
) -> tuple[NamingItem, ...]:
    """The patient's own words that have a picture.

    A word the therapist gave a picture of the set ("Médor" with the dog's)
    is named by that word, without determiner; a word that is a picture's
    name ("le chameau") is that picture. Words with neither are left out.
    """
    pictures = dict(chosen)
    found: list[NamingItem] = []
    for text in texts:
        picture = pictures.get(text, "")
        try:
            shown = bank.by_id(picture) if picture else None
        except KeyError:  # a picture a later bank no longer has: none
            shown = None
        item = custom_item(text, shown) if shown else bank.by_word(bare_answer(text))
        if item is not None and item not in found:
            found.append(item)
    return tuple(found)


def custom_item(text: str, picture: NamingItem) -> NamingItem:
    """``text`` to say for ``picture``: a name, so no determiner (like an action).

    The meaning cue is the picture's; the first sounds are the word's letters up
    to its first vowels ("Médor" -> "Mé"); no phonemes, so the competitors are
    pictures of the same category only.
    """
    word = " ".join(text.split()).rstrip(".!?")
    head = _FIRST_SOUNDS.match(word)
    first = head.group(0) if head else word[:2]
    return replace(
        picture,
        id=f"perso:{picture.id}:{word.lower()}",
        word=word,
        gender="-",
        indefinite="",
        definite="",
        plural="",
        first_sounds=first,
        first_sounds_spoken=first.lower(),
        phon="",
    )


def next_session(
    repository: SessionRepository,
    patient_id: int,
    bank: NamingBank,
    size: int = SESSION_SIZE,
    first: tuple[NamingItem, ...] = (),
) -> list[PlannedItem]:
    """The plan for the patient's next naming session (database worker)."""
    return plan_session(bank, read_histories(repository, patient_id), size, first)
