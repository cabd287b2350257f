"""Repetition, completion and naming lists: which list, where it resumes, the next item."""

from __future__ import annotations

import logging
from collections.abc import Callable

from therapy_app.exercises import ExerciseContent
from therapy_app.naming.bank import NamingBank, NamingItem, default_bank
from therapy_app.practice import custom, items, naming_plan, resume
from therapy_app.practice.events import ExerciseKind, ItemPresented, ListFinished, Notice
from therapy_app.practice.machine import PracticeMachine
from therapy_app.practice.settings import PracticeSettings
from therapy_app.storage.repository import SessionRepository

_LOGGER = logging.getLogger(__name__)

LIST_DONE = "Bravo, vous avez fait toute la liste ! On recommence au début."


class ItemLists:
    """The current list of a repetition, completion or naming session.

    Each method returns the item to present (or the list's end); the
    controller shows it and moves the state.

    Args:
        machine: the session's state machine (its jobs; the state is only read).
        kind: repetition, completion or naming.
        content: the exercise lists.
        settings: the first levels and whether repetition resumes.
        repository, patient_id: where the resume point is read.
        bank: the naming pictures (None: the bundled bank, read when needed).
        items_done: how many items the patient moved on from in this session
            (a program's counter counts them).
    """

    def __init__(
        self,
        machine: PracticeMachine,
        kind: ExerciseKind,
        content: ExerciseContent,
        settings: PracticeSettings,
        repository: SessionRepository,
        patient_id: int,
        bank: NamingBank | None = None,
        items_done: Callable[[], int] = lambda: 0,
    ) -> None:
        self._machine = machine
        self._kind = kind
        self._content = content
        self._settings = settings
        self._repository = repository
        self._patient_id = patient_id
        self._bank = bank
        self._items_done = items_done
        self.list = items.ItemList()
        self.level = settings.repetition_level
        """Current list level (repetition 1..3, completion 0 = all)."""
        self.finished = False
        """The patient reached the end of the list (outside a program): nothing is presented."""
        self._results: dict[int, bool] = {}  # list index -> got right, since the list started

    def begin(self, on_ready: Callable[[items.Presentation | None], None]) -> None:
        """The first item, or where the patient stopped last time (repetition).

        Args:
            on_ready: receives it, at once or once read on the database worker.
        """
        if self._kind is ExerciseKind.NAMING:
            # The pictures due and their start levels come from the history (db
            # worker), within what the program allows, the patient's own first.
            self._machine.submit(
                naming_plan.next_session,
                self._repository,
                self._patient_id,
                self._naming_pool(),
                self._settings.max_items or naming_plan.SESSION_SIZE,
                self._own_pictures(),
                pool="db",
                on_done=lambda plan: on_ready(self._planned(plan)),
                on_error=lambda exc: on_ready(self._plan_unknown(exc)),
            )
            return
        if self._kind is ExerciseKind.REPETITION and self._settings.resume:
            # Pick up where the patient stopped last time, read on
            # the database worker; the first list's first sentence otherwise.
            self._machine.submit(
                resume.repetition_resume_point,
                self._repository,
                self._patient_id,
                self._content,
                pool="db",
                on_done=lambda point: on_ready(self._resume(point)),
                on_error=lambda exc: on_ready(self._resume_unknown(exc)),
            )
            return
        self._load()
        on_ready(self.present(0))

    @property
    def bank(self) -> NamingBank:
        """The naming pictures."""
        if self._bank is None:
            self._bank = default_bank()
        return self._bank

    def _own_pictures(self) -> tuple[NamingItem, ...]:
        settings = self._settings
        return naming_plan.own_pictures(self.bank, settings.custom_items, settings.custom_pictures)

    def _naming_pool(self) -> NamingBank:
        return naming_plan.selected(
            self.bank, self._settings.naming_level, self._settings.naming_category
        )

    def _planned(self, plan: list[naming_plan.PlannedItem]) -> items.Presentation | None:
        bank = self.bank
        self.list.replace([items.naming_item(p.item, bank, p.start_level, p.errors) for p in plan])
        self.level = 0
        self._results = {}
        return self.present(0)

    def _plan_unknown(self, exc: BaseException) -> items.Presentation | None:
        _LOGGER.warning("cannot read the naming history, starting afresh: %r", exc)
        return self._planned(
            naming_plan.plan_session(
                self._naming_pool(),
                {},
                self._settings.max_items or naming_plan.SESSION_SIZE,
                self._own_pictures(),
            )
        )

    def _resume_unknown(self, exc: BaseException) -> items.Presentation | None:
        _LOGGER.warning("cannot read where repetition stopped, starting over: %r", exc)
        return self._resume(None)

    def _resume(self, point: resume.ResumePoint | None) -> items.Presentation | None:
        if point is not None:
            self.level = point.level
        index = point.index if point is not None else 0
        # The patient's own items go where the patient starts today.
        self._load(custom_at=index)
        return self.present(index)

    def _load(self, custom_at: int = 0) -> None:
        # The patient's own words and sentences come first (the therapist's lists).
        self._results = {}
        own = self._settings.custom_items
        if self._kind is ExerciseKind.REPETITION:
            self.list.replace(
                custom.inserted(
                    items.repetition_items(self._content, self.level),
                    custom.repetition_items(own, self._content),
                    custom_at,
                )
            )
        else:
            completion_level = self._settings.completion_level
            category = self._settings.completion_category
            self.list.replace(
                custom.completion_items(own, self._content)
                + items.completion_items(self._content, completion_level, category)
            )
            self.level = completion_level or 0

    def set_level(self, level: int) -> items.Presentation | None:
        """Switch the repetition list to ``level`` (1..3); its first sentence."""
        self.level = level
        self._load()
        return self.present(0)

    @property
    def session_length(self) -> int | None:
        """Items today's session will have: the program's count, never more than the list.

        None outside a program (the list's end shows a summary instead).
        """
        limit = self._settings.max_items
        if limit is None:
            return None
        return min(limit, len(self.list)) if len(self.list) else limit

    def present(self, index: int) -> items.Presentation | None:
        """Item ``index`` of the list (past the end: back to the start; None: empty list).

        In a program the list goes on from its start when the session started
        late in it (repetition resumes); outside a program :meth:`next` stops
        at the end instead.
        """
        if not len(self.list):
            return None
        if index >= len(self.list):
            if self._settings.max_items is None:
                self._machine.emit(Notice(LIST_DONE))
            index = 0
        self.finished = False
        item = self.list.select(index)
        self._results.setdefault(index, False)
        length = self.session_length
        if length is None:
            number, total = index + 1, len(self.list)
        else:
            # The counter tells the truth about today's session.
            number, total = min(self._items_done() + 1, length), length
        presented = ItemPresented(
            self._kind,
            item.prompt,
            item.target,
            item.level,
            index,
            len(self.list),
            item.picture,
            number,
            total,
        )
        return items.Presentation(item, presented)

    def next(self, succeeded: bool | None) -> items.Presentation | ListFinished | None:
        """The next item; outside a program, after the last one: :class:`ListFinished`.

        Args:
            succeeded: whether the patient got the item on screen right (None: no item).
        """
        index = self.list.index
        if succeeded is not None:
            self._results[index] = self._results.get(index, False) or succeeded
        if self._settings.max_items is None and index + 1 >= len(self.list):
            return self._finish()
        return self.present(index + 1)

    def _finish(self) -> ListFinished:
        # A summary, then the patient chooses to start again: no
        # silent restart, no item on screen that an answer could be scored against.
        results = self._results
        self._results = {}
        self.finished = True
        return ListFinished(len(results), sum(results.values()))

    def restart(self) -> items.Presentation | None:
        """After :class:`ListFinished`: the list again from its first item (None: refused)."""
        if not self.finished or self._machine.waiting_for_engines:
            return None
        return self.present(0)
