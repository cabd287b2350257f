"""The patient's own words and sentences: add, remove, export to and import from a file."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from therapy_app.domain.programs import CustomItem
from therapy_app.exports.custom_lists import (
    ImportCounts,
    export_patient_lists,
    import_patient_lists,
    read_list_file,
)
from therapy_app.gui.therapist.context import TherapistContext
from therapy_app.gui.therapist.exports_panel import documents_folder, file_slug
from therapy_app.gui.therapist.failures import UNEXPECTED, error_text
from therapy_app.gui.therapist.style import set_role, show_status, status_label
from therapy_app.naming.bank import default_bank
from therapy_app.practice.naming_plan import own_pictures
from therapy_app.storage import Patient

_LOGGER = logging.getLogger(__name__)

KIND_LABELS = {"word": "Mot", "sentence": "Phrase"}
HELP = (
    "Prénoms de la famille, rue, plats préférés… La répétition les propose en premier ; "
    "une phrase de trois mots ou plus sert aussi en complétion ; un mot qui a son image "
    "(« le chat », ou « Médor » avec l'image du chien) vient en premier dans la "
    "dénomination. La voix les lit."
)
WITH_PICTURE = " · avec image"
NO_PICTURE = "Sans image"


def item_label(item: CustomItem) -> str:
    """ "Phrase · Ma fille s'appelle Julie. (famille)", "Mot · le chat · avec image",
    "Mot · Médor (famille) · image : chien"."""
    theme = f" ({item.category})" if item.category else ""
    picture = ""
    if item.kind == "word" and item.picture:
        try:
            picture = f" · image : {default_bank().by_id(item.picture).word}"
        except KeyError:  # a picture this version's set does not have
            picture = ""
    elif item.kind == "word" and own_pictures(default_bank(), (item.text,)):
        picture = WITH_PICTURE
    return f"{KIND_LABELS.get(item.kind, item.kind)} · {item.text}{theme}{picture}"


class CustomListPanel(QGroupBox):
    """The selected patient's custom list.

    Args:
        context: the data, the task runner and the logged-in therapist (for the
            audit of imports).

    Signals:
        items_loaded(int): the list on screen (count) after any change.
        failed(str): French message.
    """

    items_loaded = Signal(int)
    failed = Signal(str)

    def __init__(self, context: TherapistContext, parent: QWidget | None = None) -> None:
        super().__init__("Mots et phrases du patient", parent)
        self._repository = context.repository
        self._runner = context.runner
        self._editor = context.editor
        self._patient: Patient | None = None
        help_label = QLabel(HELP)
        help_label.setWordWrap(True)
        set_role(help_label, "muted")
        self.list = QListWidget()
        self.list.setAccessibleName("Mots et phrases du patient")
        self.list.setWordWrap(True)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.kind = QComboBox()
        for kind, label in KIND_LABELS.items():
            self.kind.addItem(label, kind)
        self.kind.setCurrentIndex(1)
        self.text = QLineEdit()
        self.text.setPlaceholderText("Ma fille s'appelle Julie.")
        self.text.setAccessibleName("Mot ou phrase à ajouter")
        self.theme = QLineEdit()
        self.theme.setPlaceholderText("thème (famille, repas…)")
        self.theme.setAccessibleName("Thème")
        # A word may be shown with a picture of the naming set ("Médor": the dog).
        self.picture = QComboBox()
        self.picture.addItem(NO_PICTURE, "")
        for entry in sorted(default_bank().items, key=lambda i: i.word):
            self.picture.addItem(entry.word, entry.id)
        self.picture.setAccessibleName("Image du mot (dénomination)")
        self.picture.setToolTip("Image montrée pour ce mot dans la dénomination")
        self.picture.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.picture.setMinimumContentsLength(10)
        self.add_button = QPushButton("Ajouter")
        self.remove_button = QPushButton("Retirer")
        self.export_button = QPushButton("Exporter…")
        self.import_button = QPushButton("Importer…")
        self.status = status_label()
        kind_row = QHBoxLayout()
        kind_row.addWidget(self.kind)
        kind_row.addWidget(self.theme, 1)
        picture_row = QHBoxLayout()
        picture_row.addWidget(QLabel("Image :"))
        picture_row.addWidget(self.picture, 1)
        add_row = QHBoxLayout()
        add_row.addWidget(self.text, 1)
        add_row.addWidget(self.add_button)
        file_row = QHBoxLayout()
        file_row.addWidget(self.export_button)
        file_row.addWidget(self.import_button)
        layout = QVBoxLayout(self)
        layout.addWidget(help_label)
        layout.addWidget(self.list, 1)
        layout.addWidget(self.remove_button, 0, Qt.AlignmentFlag.AlignRight)
        layout.addLayout(kind_row)
        layout.addLayout(picture_row)
        layout.addLayout(add_row)
        layout.addLayout(file_row)
        layout.addWidget(self.status)
        self.setMaximumWidth(440)
        self.kind.currentIndexChanged.connect(self._kind_changed)
        self._kind_changed()
        self.add_button.clicked.connect(self.add)
        self.text.returnPressed.connect(self.add)
        self.remove_button.clicked.connect(self.remove_selected)
        self.export_button.clicked.connect(self._choose_export)
        self.import_button.clicked.connect(self._choose_import)
        self.set_patient(None)

    # -- state ------------------------------------------------------------------

    def set_patient(self, patient: Patient | None) -> None:
        """Show ``patient``'s list (None: nothing selected)."""
        self._patient = patient
        self.list.clear()
        self._show_status("")
        self.setEnabled(patient is not None)
        if patient is not None:
            self.reload()

    def reload(self) -> None:
        """Read the list again (database worker)."""
        if self._patient is None:
            return
        self._submit(
            self._repository.programs.custom_items, self._patient.id, on_done=self._show_items
        )

    def _show_items(self, items: list[CustomItem]) -> None:
        self.list.clear()
        for item in items:
            row = QListWidgetItem(item_label(item))
            row.setData(Qt.ItemDataRole.UserRole, item.id)
            self.list.addItem(row)
        self.items_loaded.emit(len(items))

    def texts(self) -> list[str]:
        """The labels shown, in order."""
        return [self.list.item(i).text() for i in range(self.list.count())]

    # -- editing ------------------------------------------------------------------

    def add(self) -> None:
        """Add the typed word or sentence (a duplicate is said, not added)."""
        text = " ".join(self.text.text().split())
        if self._patient is None or not text:
            return
        self._submit(
            self._repository.programs.add_custom_item,
            self._patient.id,
            self.kind.currentData(),
            text,
            self.theme.text(),
            self.picture.currentData() if self.kind.currentData() == "word" else "",
            on_done=lambda added: self._on_added(added, text),
        )

    def _kind_changed(self) -> None:
        # Only a word is named from a picture.
        is_word = self.kind.currentData() == "word"
        self.picture.setEnabled(is_word)
        if not is_word:
            self.picture.setCurrentIndex(0)

    def _on_added(self, added: CustomItem | None, text: str) -> None:
        if added is None:
            self._show_status(f"« {text} » est déjà dans la liste.", "error")
        else:
            self.text.clear()
            self.picture.setCurrentIndex(0)
            self._show_status("")
        self.reload()

    def remove_selected(self) -> None:
        """Remove the selected item."""
        row = self.list.currentItem()
        if row is None:
            return
        self._submit(
            self._repository.programs.remove_custom_item,
            row.data(Qt.ItemDataRole.UserRole),
            on_done=lambda _: self.reload(),
        )

    # -- files -------------------------------------------------------------------------

    def _choose_export(self) -> None:
        if self._patient is None:
            return
        suggested = documents_folder() / f"{file_slug(self._patient.display_name)}_liste.json"
        path, _ = QFileDialog.getSaveFileName(
            self, "Exporter la liste", str(suggested), "Liste (*.json)"
        )
        if path:
            self.export_to(Path(path))

    def _choose_import(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, "Importer une liste", str(documents_folder()), "Liste (*.json)"
        )
        if path:
            self.import_from(Path(path))

    def export_to(self, path: Path) -> None:
        """Write the patient's list, scripts and phrase-book removals to ``path`` (no name)."""
        if self._patient is None:
            return
        repository, patient_id = self._repository, self._patient.id
        self._submit(
            lambda: export_patient_lists(repository, patient_id, path),
            on_done=lambda counts: self._on_exported(counts, path),
        )

    def _on_exported(self, counts: tuple[int, int], path: Path) -> None:
        items, scripts = counts
        with_scripts = f" et {scripts} script(s)" if scripts else ""
        self._show_status(f"{items} élément(s){with_scripts} exporté(s) dans {path}.", "success")

    def import_from(self, path: Path) -> None:
        """Add the items, scripts and removals of the file at ``path``; nothing is replaced."""
        if self._patient is None:
            return
        repository, patient_id, editor = self._repository, self._patient.id, self._editor()
        self._submit(
            lambda: import_patient_lists(repository, patient_id, read_list_file(path), editor),
            on_done=self._on_imported,
        )

    def _on_imported(self, counts: ImportCounts) -> None:
        message = f"{counts.added} élément(s) ajouté(s)."
        if counts.skipped:
            message += (
                f" {counts.skipped} déjà dans la liste : gardé(s) tel(s) quel(s), non remplacé(s)."
            )
        if counts.scripts_added or counts.scripts_skipped:
            message += f" {counts.scripts_added} script(s) ajouté(s)"
            if counts.scripts_skipped:
                message += f", {counts.scripts_skipped} déjà là (même titre) : non remplacé(s)"
            message += "."
        if counts.removals_added:
            message += f" {counts.removals_added} phrase(s) retirée(s) de ses phrases."
        self._show_status(message, "success")
        self.reload()

    # -- plumbing ------------------------------------------------------------------------

    def _submit(
        self, fn: Callable[..., object], *args: object, on_done: Callable[[Any], None]
    ) -> None:
        self._runner.submit(
            fn, *args, on_done=on_done, on_error=self._on_error, pool="db", group="therapist-lists"
        )

    def _on_error(self, exc: BaseException) -> None:
        message = error_text(
            exc,
            UNEXPECTED,
            "custom list",
            writes_file=True,
            refused="Ce texte ne peut pas être ajouté (vide ou trop long).",
        )
        self._show_status(message, "error")
        self.failed.emit(message)

    def _show_status(self, text: str, role: str = "muted") -> None:
        show_status(self.status, text, role)
