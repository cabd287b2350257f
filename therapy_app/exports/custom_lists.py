"""A patient's own words and sentences as a JSON file to share between computers, validated.

The file holds no patient name: only the items. Format::

    {"format": "therapy-app-custom-list", "version": 1, "exported_at": "...",
     "items": [{"kind": "sentence", "text": "Ma fille s'appelle Julie.", "category": "famille"}]}
"""

from __future__ import annotations

import json
import unicodedata
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from therapy_app.errors import TherapyAppError
from therapy_app.exports.files import atomic_text_writer
from therapy_app.input_files import parse_json, read_text
from therapy_app.naming.bank import default_bank
from therapy_app.storage.programs import CUSTOM_KINDS, MAX_CUSTOM_TEXT, CustomItem

FORMAT = "therapy-app-custom-list"
VERSION = 1
MAX_FILE_BYTES = 1_000_000
MAX_ITEMS = 2000
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


def write_custom_list(path: Path, items: list[CustomItem], now: datetime) -> int:
    """Write ``items`` to ``path`` (atomically).

    Returns:
        The number of items written.

    Raises:
        OSError: the file cannot be written.
    """
    data = {
        "format": FORMAT,
        "version": VERSION,
        "exported_at": now.isoformat(timespec="seconds"),
        # "picture" only where there is one: the version-1 readers ignore it.
        "items": [
            {"kind": i.kind, "text": i.text, "category": i.category}
            | ({"picture": i.picture} if i.picture else {})
            for i in items
        ],
    }
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
    made only of them looked empty in the list (issue 24, item 6).
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
    """Read and validate a list file; nothing is imported from a file with any error.

    Raises:
        CustomListFileError: unreadable, not such a file, a newer version, or
            a bad item (French message naming the item).
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
    return [_item(raw, number, pictures) for number, raw in enumerate(raw_items, start=1)]
