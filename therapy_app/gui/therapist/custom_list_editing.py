"""The patient's list edited with care: a "Mot" is a word; "Retirer" asks and keeps the place.

A sentence is not accepted as a "Mot", and "Retirer" asks first and keeps
the list's place after each removal (it used to remove at once and scroll
back to the top). The checks live here, over :class:`CustomListPanel`.
"""

from __future__ import annotations

import logging

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QSizePolicy, QWidget

from therapy_app.domain.programs import CustomItem
from therapy_app.gui.therapist.confirm import ask_first
from therapy_app.gui.therapist.context import TherapistContext
from therapy_app.gui.therapist.custom_list_panel import CustomListPanel
from therapy_app.gui.therapist.phrase_book_panel import PhraseBookPanel
from therapy_app.naming.bank import default_bank
from therapy_app.practice.custom import word_problem
from therapy_app.storage import Patient

_LOGGER = logging.getLogger(__name__)

REMOVE_TITLE = "Retirer de la liste"
LIST_MIN_HEIGHT = 100
"""Four rows of the list at least (23 px each, and the frame); the phrase book beside it
narrows the panel, so its help takes a line more at 1366×768."""


class CheckedCustomListPanel(CustomListPanel):
    """:class:`CustomListPanel` that refuses a sentence as a "Mot" and confirms each removal.

    Same arguments and signals as :class:`CustomListPanel`; the phrase book
    shares its context.

    Attributes:
        confirm_box: the open "Retirer … ?" question (None when none is open).
        phrase_book: the patient's phrase book, which follows this
            panel's patient and list; the therapist area places it beside the list.
    """

    phrase_book: PhraseBookPanel

    def __init__(self, context: TherapistContext, parent: QWidget | None = None) -> None:
        super().__init__(context, parent)
        self.phrase_book = PhraseBookPanel(context)
        # A sentence added, removed or imported changes the phrase book.
        self.items_loaded.connect(lambda _count: self.phrase_book.reload())
        self.confirm_box: QMessageBox | None = None
        self._items: dict[int, CustomItem] = {}
        self._keep_place: tuple[int, int] | None = None  # (row, scroll) after the next reload
        # The list takes the height left and scrolls: the fields and buttons
        # under it stay in sight on a 768-pixel screen.
        self.list.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Ignored)
        self.list.setMinimumHeight(LIST_MIN_HEIGHT)

    def set_patient(self, patient: Patient | None) -> None:
        """Show ``patient``'s list and phrase book (None: nothing selected)."""
        super().set_patient(patient)
        # CustomListPanel.__init__ calls this before the phrase book exists.
        book = getattr(self, "phrase_book", None)
        if book is not None:
            book.set_patient(patient)

    # -- adding --------------------------------------------------------------------

    def add(self) -> None:
        """Add the typed word or sentence; a "Mot" that is a sentence is refused in French."""
        text = " ".join(self.text.text().split())
        if text and self.kind.currentData() == "word":
            known = {item.word for item in default_bank().items}
            problem = word_problem(text, known)
            if problem is not None:
                self._show_status(problem, "error")
                self.text.setFocus()
                return
        super().add()

    # -- removing ------------------------------------------------------------------

    def remove_selected(self) -> None:
        """Ask "Retirer « … » ?" naming the item; it is removed only on "Retirer"."""
        row = self.list.currentItem()
        if row is None or self.confirm_box is not None:
            return
        item_id = row.data(Qt.ItemDataRole.UserRole)
        item = self._items.get(item_id)
        text = item.text if item is not None else row.text()
        owner = f" de {self._patient.display_name}" if self._patient is not None else ""
        self.confirm_box = ask_first(
            self,
            REMOVE_TITLE,
            f"Retirer « {text} » de la liste{owner} ?\nIl ne sera plus proposé dans les exercices.",
            "Retirer",
            lambda confirmed: self._answered(confirmed, item_id),
        )

    def _answered(self, confirmed: bool, item_id: int) -> None:
        self.confirm_box = None
        if not confirmed:
            return
        # The neighbour takes the removed row's place; the list does not jump.
        self._keep_place = (self.list.currentRow(), self.list.verticalScrollBar().value())
        self._submit(
            self._repository.programs.remove_custom_item, item_id, on_done=lambda _: self.reload()
        )

    def _show_items(self, items: list[CustomItem]) -> None:
        self._items = {item.id: item for item in items}
        place, self._keep_place = self._keep_place, None
        super()._show_items(items)
        if place is not None and self.list.count():
            row, scroll = place
            self.list.setCurrentRow(min(row, self.list.count() - 1))
            self.list.verticalScrollBar().setValue(scroll)
