"""Exercise items as the controller uses them: target, accepted answers and distractors."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from therapy_app.exercises import BLANK, CompletionItem, ExerciseContent, display_word_count
from therapy_app.naming import sound_alikes
from therapy_app.naming.bank import NamingBank, NamingItem, default_bank
from therapy_app.naming.candidates import (
    accepted_answers,
    answer_forms,
    bare_answer,
    find_competitors,
)
from therapy_app.practice.events import ExerciseKind, ItemPresented
from therapy_app.practice.variants import sentence_variants
from therapy_app.verdict import NAMING_RANK_MARGIN, RANK_MARGIN

DISTRACTORS = 4


@dataclass(frozen=True)
class ExerciseItem:
    """One thing to say.

    Attributes:
        kind: the exercise.
        prompt: written prompt (the sentence, or the cue with its blank).
        target: the main expected answer.
        accepted: every accepted answer, ``target`` first (completion: the
            answer, its variants and the completed sentence).
        distractors: wrong answers of similar length, for scoring.
        level: difficulty (1..3).
        completion: the source item for completion exercises.
        sound_forms: forms the recogniser scores against the distractors
            (None: ``accepted``); completion scores the answer words only.
        allow_within: the answer said inside a longer utterance counts.
        naming: the picture of a naming item.
        start_level: the cue level the item starts at (naming: one step
            below what the patient needed last time).
        picture: absolute path of the naming picture ("" otherwise).
        category_label: how a semantic cue names the item's category.
        rank_margin: the sound rule's margin for this item
            (``verdict.NAMING_RANK_MARGIN`` for a picture, else ``verdict.RANK_MARGIN``).
        script_id: the script a patient line belongs to, stored with each try
            (None outside script practice, and for a bundled example).
        near: what a patient says instead of a sentence to repeat (a word left
            out, a sound-alike word: :func:`~therapy_app.practice.variants.sentence_variants`);
            the target must beat each of them (``verdict.NEAR_MARGIN``).
    """

    kind: ExerciseKind
    prompt: str
    target: str
    accepted: tuple[str, ...]
    distractors: tuple[str, ...]
    level: int
    completion: CompletionItem | None = None
    sound_forms: tuple[str, ...] | None = None
    allow_within: bool = False
    naming: NamingItem | None = None
    start_level: int = 0
    picture: str = ""
    category_label: str = ""
    rank_margin: float = RANK_MARGIN
    script_id: int | None = None
    near: tuple[str, ...] = ()


@dataclass(frozen=True)
class Presentation:
    """An item to put on screen and practise: what a list, a dialogue or free speech hands on.

    Attributes:
        item: the item.
        presented: the event that shows it.
    """

    item: ExerciseItem
    presented: ItemPresented


class ItemList:
    """The ordered items of one exercise and the position reached in it."""

    def __init__(self) -> None:
        self._items: list[ExerciseItem] = []
        self.index = 0

    def __len__(self) -> int:
        return len(self._items)

    def replace(self, new_items: list[ExerciseItem]) -> None:
        """Start a new list (another level) at its first item."""
        self._items = list(new_items)
        self.index = 0

    def all(self) -> list[ExerciseItem]:
        """A copy of the items."""
        return list(self._items)

    def select(self, index: int) -> ExerciseItem:
        """Move to ``index`` and return that item."""
        self.index = index
        return self._items[index]

    def index_of(self, target: str) -> int | None:
        """Position of the item whose target is ``target`` (case-insensitive), or None."""
        wanted = target.strip().lower()
        for index, item in enumerate(self._items):
            if item.target.strip().lower() == wanted:
                return index
        return None


def closest_in_length(target: str, pool: Sequence[str], count: int = DISTRACTORS) -> list[str]:
    """Up to ``count`` texts of ``pool`` nearest to ``target`` in word count.

    Deterministic (ties keep the pool order) so that a stored score can be
    recomputed; the target itself is never chosen.
    """
    n = display_word_count(target)
    key = target.strip().lower()
    others = [p for p in dict.fromkeys(pool) if p.strip().lower() != key]
    ranked = sorted(others, key=lambda p: abs(display_word_count(p) - n))
    return ranked[:count]


@dataclass(frozen=True)
class WordRivals:
    """How a one-word target is judged: as a picture name, against what patients say instead.

    Attributes:
        forms: the word in every determiner form ("chapeau", "un chapeau", "le chapeau"...).
        rivals: same-category words and phonological neighbours in the same forms
            ("chameau", "château"): the errors therapy works on.
    """

    forms: tuple[str, ...]
    rivals: tuple[str, ...]


def word_rivals(target: str, bank: NamingBank | None = None) -> WordRivals | None:
    """The sound-alike (and, for a picture word, same-category) rivals of a one-word target.

    Sentences of similar length are no test of a single word: "chameau" said
    for "le chapeau" beats them all. A word of the picture bank gets its
    competitors (same category, phonological neighbours, every determiner
    form); any frequent word also gets its one-phoneme neighbours of the
    lexicon ("six" for "dix"). None when ``target`` (determiners and "c'est"
    aside) is not one such word.
    """
    word = bare_answer(target)
    if not word or " " in word:
        return None
    near = sound_alikes.neighbours(word)
    bank = bank or default_bank()
    picture = bank.by_word(word)
    if picture is None:
        return WordRivals((word,), near) if near else None
    rivals = find_competitors(picture, bank).forms()
    forms = answer_forms(picture)
    return WordRivals(forms, tuple(dict.fromkeys(r for r in (*rivals, *near) if r not in forms)))


def repetition_item(
    text: str,
    pool: Sequence[str],
    level: int,
    kind: ExerciseKind = ExerciseKind.REPETITION,
    bank: NamingBank | None = None,
) -> ExerciseItem:
    """``text`` to repeat: distractors of similar length from ``pool``.

    A one-word target of the picture bank is also judged against its
    sound-alike and same-category rivals, in every determiner form, with
    naming's margin (the rivals are as close as a picture's competitors). A
    sentence is also judged against itself with a word left out or said as a
    sound-alike (``near``).
    """
    rivals = word_rivals(text, bank)
    distractors = tuple(closest_in_length(text, pool))
    if rivals is None:
        near = sentence_variants(text)
        return ExerciseItem(kind, text, text, (text,), distractors, level, near=near)
    return ExerciseItem(
        kind,
        text,
        text,
        tuple(dict.fromkeys((text, *rivals.forms))),
        tuple(dict.fromkeys((*rivals.rivals, *distractors))),
        level,
        sound_forms=tuple(dict.fromkeys((text, *rivals.forms))),
        rank_margin=NAMING_RANK_MARGIN,
    )


def repetition_items(content: ExerciseContent, level: int) -> list[ExerciseItem]:
    """The sentences of ``level`` in file order, each with same-level distractors."""
    pool = content.all_sentences()
    return [repetition_item(s, pool, level) for s in content.level(level).sentences]


def completion_items(
    content: ExerciseContent, level: int | None = None, category: str = ""
) -> list[ExerciseItem]:
    """Completion items (all levels when ``level`` is None, all themes when ``category`` is "")."""
    chosen = [
        i
        for i in content.completion
        if (level is None or i.level == level) and (not category or i.category == category)
    ]
    answers = [i.answer for i in content.completion]
    return [completion_item(item, answers) for item in chosen]


def completion_item(item: CompletionItem, answers: Sequence[str]) -> ExerciseItem:
    """``item`` as practised; the distractors are ``answers`` other than its own.

    A one-word answer of the picture bank is also judged against its
    sound-alike and same-category rivals (bare forms: the cue holds the determiner).
    """
    own = {x.lower() for x in item.accepted}
    wrong = [a for a in answers if a.lower() not in own]
    distractors = closest_in_length(item.answer, wrong)
    rivals = word_rivals(item.answer)
    margin = RANK_MARGIN
    if rivals is not None:
        near = [r for r in rivals.rivals if " " not in r and r.lower() not in own]
        distractors = list(dict.fromkeys((*near, *distractors)))
        margin = NAMING_RANK_MARGIN
    return ExerciseItem(
        kind=ExerciseKind.COMPLETION,
        prompt=item.cue,
        target=item.answer,
        accepted=(*item.accepted, item.completed()),
        distractors=tuple(distractors),
        level=item.level,
        completion=item,
        sound_forms=item.accepted,
        allow_within=True,
        rank_margin=margin,
    )


def completion_answer_item(answer: str, answers: Sequence[str]) -> ExerciseItem:
    """A completion answer with no cue of the lists (``judge`` on a given text)."""
    return completion_item(CompletionItem(id="donne", cue=BLANK, answer=answer), answers)


def free_speech_item(sentence: str, content: ExerciseContent) -> ExerciseItem:
    """The sentence the patient chose in free speech, as an item to repeat."""
    return repetition_item(sentence, content.all_sentences(), 0, ExerciseKind.FREE_SPEECH)


def naming_item(
    item: NamingItem, bank: NamingBank, start_level: int = 0, errors: Sequence[str] = ()
) -> ExerciseItem:
    """A picture to name: its answer forms, its competitors' forms as distractors.

    Args:
        item: the picture.
        bank: where competitors come from.
        start_level: the first cue level.
        errors: the patient's frequent wrong answers for it (extra competitors).
    """
    competitors = find_competitors(item, bank, errors)
    return ExerciseItem(
        kind=ExerciseKind.NAMING,
        prompt="",
        target=item.word,
        accepted=accepted_answers(item),
        distractors=tuple(competitors.forms()),
        level=item.frequency_band,
        sound_forms=answer_forms(item),
        naming=item,
        start_level=start_level,
        picture=str(bank.picture_path(item)),
        category_label=bank.categories.get(item.category, ""),
        rank_margin=NAMING_RANK_MARGIN,
    )
