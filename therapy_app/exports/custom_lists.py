"""A patient's own words, sentences and scripts as a JSON file to share between computers.

The file holds no patient name: only the items. Format::

    {"format": "therapy-app-custom-list", "version": 2, "exported_at": "...",
     "items": [{"kind": "sentence", "text": "Ma fille s'appelle Julie.", "category": "famille"}],
     "scripts": [{"title": "À la boulangerie",
                  "turns": [{"speaker": "partner", "text": "Bonjour !"}, ...]}],
     "phrase_removals": ["Il fait beau."]}

Version 2 added the patient's dialogue scripts and the sentences
the therapist took out of their phrase book; a file without either is still
written as version 1, which older installations read. Version-1 files are read
as before (no scripts, no removals).
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from therapy_app.domain.programs import CUSTOM_KINDS, MAX_CUSTOM_TEXT, CustomItem
from therapy_app.errors import TherapyAppError
from therapy_app.exports.files import atomic_text_writer
from therapy_app.input_files import parse_json, read_text
from therapy_app.naming.bank import default_bank
from therapy_app.phrases.model import Script
from therapy_app.storage.repository import SessionRepository
from therapy_app.storage.script_store import (
    ScriptError,
    script_from_dict,
    script_to_dict,
)

FORMAT = "therapy-app-custom-list"
VERSION = 2
PLAIN_VERSION = 1
"""Written when the file has no script and no removal: older installations read it."""
MAX_FILE_BYTES = 1_000_000
MAX_ITEMS = 2000
MAX_SCRIPTS = 200
SUFFIX = ".json"


class CustomListFileError(TherapyAppError):
    """A list file cannot be imported (French message saying why)."""


@dataclass(frozen=True)
class ImportedItem:
    """One item read from a file, validated.

    Attributes:
        kind: "word" or "sentence".
        text: the word or sentence.
        category: its theme ("" if none).
        picture: the naming picture id of a word ("" if none).
    """

    kind: str
    text: str
    category: str = ""
    picture: str = ""


@dataclass(frozen=True)
class ListFile:
    """What a list file holds, validated.

    Attributes:
        items: the custom words and sentences.
        scripts: the dialogue scripts (id 0: not stored yet).
        removals: sentences taken out of the patient's phrase book.
    """

    items: list[ImportedItem] = field(default_factory=list)
    scripts: list[Script] = field(default_factory=list)
    removals: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class ImportCounts:
    """What an import added; what was there already is kept, never replaced.

    Attributes:
        added: words and sentences added.
        skipped: words and sentences the patient had already.
        scripts_added: scripts added.
        scripts_skipped: scripts whose title the patient has already.
        removals_added: phrase-book removals the patient did not have.
    """

    added: int
    skipped: int
    scripts_added: int = 0
    scripts_skipped: int = 0
    removals_added: int = 0


def write_custom_list(
    path: Path,
    items: list[CustomItem],
    now: datetime,
    *,
    scripts: Sequence[Script] = (),
    removals: Sequence[str] = (),
) -> int:
    """Write ``items``, ``scripts`` and phrase-book ``removals`` to ``path`` (atomically).

    Returns:
        The number of words and sentences written.

    Raises:
        OSError: the file cannot be written.
    """
    data: dict[str, object] = {
        "format": FORMAT,
        "version": VERSION if scripts or removals else PLAIN_VERSION,
        "exported_at": now.isoformat(timespec="seconds"),
        # "picture" only where there is one: the version-1 readers ignore it.
        "items": [
            {"kind": i.kind, "text": i.text, "category": i.category}
            | ({"picture": i.picture} if i.picture else {})
            for i in items
        ],
    }
    if scripts or removals:
        data["scripts"] = [script_to_dict(s) for s in scripts]
        data["phrase_removals"] = list(removals)
    with atomic_text_writer(Path(path)) as handle:
        json.dump(data, handle, ensure_ascii=False, indent=2)
        handle.write("\n")
    return len(items)


def _refuse(message: str, detail: str) -> CustomListFileError:
    return CustomListFileError(
        message, "Choisissez un fichier exporté par « Exporter la liste ».", detail
    )


def _visible(text: str) -> str:
    """``text`` without invisible characters, its spaces collapsed.

    Zero-width spaces, joiners, byte-order marks and bidirectional marks
    (category Cf) and control characters (Cc) display as nothing: an item
    made only of them looked empty in the list.
    """
    kept = "".join(c for c in text if unicodedata.category(c) not in ("Cf", "Cc") or c.isspace())
    return " ".join(kept.split())


def _item(raw: object, number: int, pictures: frozenset[str]) -> ImportedItem:
    if not isinstance(raw, dict):
        raise _refuse(
            f"L'élément n° {number} de la liste est mal formé.", f"item {number}: {raw!r:.80}"
        )
    kind, text, category = raw.get("kind"), raw.get("text"), raw.get("category", "")
    if kind not in CUSTOM_KINDS:
        raise _refuse(
            f"L'élément n° {number} n'est ni un mot ni une phrase.",
            f"item {number} kind {kind!r:.80}",
        )
    text = _visible(text) if isinstance(text, str) else ""
    if not any(c.isalnum() for c in text):
        raise _refuse(f"L'élément n° {number} n'a pas de texte.", f"item {number} text")
    if len(text) > MAX_CUSTOM_TEXT:
        raise _refuse(
            f"L'élément n° {number} est trop long (plus de {MAX_CUSTOM_TEXT} caractères).",
            f"item {number} too long",
        )
    # A theme as long as an item at most: the app's own exports always fit.
    if not isinstance(category, str) or len(_visible(category)) > MAX_CUSTOM_TEXT:
        raise _refuse(f"Le thème de l'élément n° {number} est illisible.", f"item {number}")
    picture = raw.get("picture", "")
    if not isinstance(picture, str) or len(picture) > MAX_CUSTOM_TEXT:
        raise _refuse(f"L'image de l'élément n° {number} est illisible.", f"item {number}")
    picture = _visible(picture)
    if picture and picture not in pictures:
        raise _refuse(
            f"L'image de l'élément n° {number} n'existe pas dans cette version de l'application.",
            f"item {number}: unknown picture id {picture!r:.80}",
        )
    return ImportedItem(str(kind), text, _visible(category), picture)


def read_custom_list(path: Path) -> list[ImportedItem]:
    """The words and sentences of a list file (see :func:`read_list_file`).

    Raises:
        CustomListFileError: see :func:`read_list_file`.
    """
    return read_list_file(path).items


def _script(raw: object, number: int) -> Script:
    try:
        return script_from_dict(raw)
    except ScriptError as exc:
        raise _refuse(
            f"Le script n° {number} du fichier ne peut pas être importé : {exc.user_message}",
            f"script {number}: {exc.detail}",
        ) from exc


def _removal(raw: object, number: int) -> str:
    text = _visible(raw) if isinstance(raw, str) else ""
    if not any(c.isalnum() for c in text) or len(text) > MAX_CUSTOM_TEXT:
        raise _refuse(
            f"La phrase retirée n° {number} du fichier est illisible.",
            f"removal {number}: {raw!r:.80}",
        )
    return text


def _optional_list(data: dict[str, object], key: str, limit: int, path: Path) -> list[object]:
    raw = data.get(key, [])
    if not isinstance(raw, list):
        raise _refuse("Ce fichier est mal formé.", f"{path}: {key}")
    if len(raw) > limit:
        raise _refuse(f"Ce fichier contient plus de {limit} éléments.", f"{path}: {key}")
    return raw


def read_list_file(path: Path) -> ListFile:
    """Read and validate a list file; nothing is imported from a file with any error.

    Raises:
        CustomListFileError: unreadable, not such a file, a newer version, or
            a bad item or script (French message naming it).
    """
    path = Path(path)
    # A regular file of at most MAX_FILE_BYTES, read without blocking: a FIFO
    # used to hang the GUI's database worker, /dev/zero to fill the memory.
    text = read_text(
        path, "le fichier de la liste", max_bytes=MAX_FILE_BYTES, error=CustomListFileError
    )
    try:
        data = parse_json(text)
    except ValueError as exc:
        raise _refuse(
            "Ce fichier n'est pas une liste de mots de l'application (contenu illisible).",
            f"{path}: {exc}",
        ) from exc
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise _refuse("Ce fichier n'est pas une liste de mots de l'application.", f"{path}: format")
    version = data.get("version")
    # bool is an int in Python: "version": true is no version.
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise _refuse("La version de ce fichier est illisible.", f"{path}: version {version!r}")
    if version > VERSION:
        raise CustomListFileError(
            "Ce fichier vient d'une version plus récente de l'application.",
            "Mettez l'application à jour sur cet ordinateur, puis réessayez.",
            f"{path}: version {version} > {VERSION}",
        )
    raw_items = data.get("items")
    if not isinstance(raw_items, list):
        raise _refuse("Ce fichier ne contient pas de liste.", f"{path}: items")
    if len(raw_items) > MAX_ITEMS:
        raise _refuse(f"Ce fichier contient plus de {MAX_ITEMS} éléments.", f"{path}: too many")
    pictures = frozenset(item.id for item in default_bank().items)
    items = [_item(raw, number, pictures) for number, raw in enumerate(raw_items, start=1)]
    if version < 2:
        return ListFile(items)
    scripts = _optional_list(data, "scripts", MAX_SCRIPTS, path)
    removals = _optional_list(data, "phrase_removals", MAX_ITEMS, path)
    return ListFile(
        items,
        [_script(raw, number) for number, raw in enumerate(scripts, start=1)],
        [_removal(raw, number) for number, raw in enumerate(removals, start=1)],
    )


def export_patient_lists(
    repository: SessionRepository, patient_id: int, path: Path
) -> tuple[int, int]:
    """Write the patient's words, sentences, scripts and phrase-book removals to ``path``.

    Returns:
        (words and sentences, scripts) written.

    Raises:
        OSError: the file cannot be written.
        StorageError: the database cannot be read.
    """
    scripts = repository.scripts.all(patient_id)
    count = write_custom_list(
        path,
        repository.programs.custom_items(patient_id),
        repository.now(),
        scripts=scripts,
        removals=repository.phrases.removals(patient_id),
    )
    return count, len(scripts)


def import_patient_lists(
    repository: SessionRepository, patient_id: int, content: ListFile, editor: str
) -> ImportCounts:
    """Add what ``content`` holds to the patient's lists, in one transaction; nothing is replaced.

    A script is skipped when the patient has one of the same title (any
    case); a removal the patient has already changes nothing.

    Raises:
        KeyError: unknown patient.
        ValueError: empty editor.
        StorageError: the database cannot be written.
    """
    scripts, phrases = repository.scripts, repository.phrases
    with repository.transaction("importing lists"):
        added, skipped = repository.programs.import_custom_items(
            patient_id,
            [(i.kind, i.text, i.category, i.picture) for i in content.items],
            editor,
        )
        titles = {s.title.casefold() for s in scripts.all(patient_id)}
        scripts_added = 0
        for script in content.scripts:
            if script.title.casefold() not in titles:
                scripts.save(patient_id, script.title, script.turns)
                titles.add(script.title.casefold())
                scripts_added += 1
        before = len(phrases.removals(patient_id))
        for text in content.removals:
            phrases.remove(patient_id, text, editor)
        removals_added = len(phrases.removals(patient_id)) - before
    return ImportCounts(
        added,
        skipped,
        scripts_added,
        len(content.scripts) - scripts_added,
        removals_added,
    )
