"""The bundled picture-naming bank (resources/naming/bank.json), read and validated once."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from therapy_app.errors import TherapyAppError
from therapy_app.exercises import read_content_file
from therapy_app.paths import resources_dir

_LOGGER = logging.getLogger(__name__)

BANK_FORMAT = 1
BANK_FILE = "bank.json"


@dataclass(frozen=True)
class NamingItem:
    """One picture to name.

    Attributes:
        id: ASCII slug of the word ("pomme-de-terre").
        word: the French name, without determiner ("pomme de terre"); an
            infinitive for an action ("courir").
        gender: "m", "f", or "-" for an action (no determiner).
        category: semantic category (``NamingBank.categories`` key).
        semantic_cue: French sentence on the category's use or a salient
            feature, without the word ("Il miaule et ronronne.").
        indefinite: "un chat" ("" for an action).
        definite: "le chat", "l'arbre" ("" for an action).
        plural: "des chats" ("" for an action).
        first_sounds: written first syllable for the phonemic cue ("cha", "ch").
        first_sounds_spoken: the same as the voice says it ("cha", "che").
        phon: Lexique 3.83 phonemes (its own alphabet), for phonological neighbours.
        frequency_band: 1 frequent, 2 medium, 3 rare (Lexique film-subtitle frequency).
        picture: SVG path inside the bank folder.
    """

    id: str
    word: str
    gender: str
    category: str
    semantic_cue: str
    indefinite: str
    definite: str
    plural: str
    first_sounds: str
    first_sounds_spoken: str
    phon: str
    frequency_band: int
    picture: str

    @property
    def is_action(self) -> bool:
        """An action is named by a verb, without determiner."""
        return self.gender == "-"


@dataclass(frozen=True)
class NamingBank:
    """Every naming item and where its pictures are.

    Attributes:
        items: the items, in bank order.
        categories: category -> how a cue names it ("un fruit").
        folder: the folder holding ``bank.json`` and ``pictures/``.
    """

    items: tuple[NamingItem, ...]
    categories: dict[str, str]
    folder: Path

    def picture_path(self, item: NamingItem) -> Path:
        """The SVG file of ``item``."""
        return self.folder / item.picture

    def by_id(self, item_id: str) -> NamingItem:
        """The item ``item_id``.

        Raises:
            KeyError: no such item.
        """
        for item in self.items:
            if item.id == item_id:
                return item
        raise KeyError(item_id)

    def by_word(self, word: str) -> NamingItem | None:
        """The item named ``word`` (case-insensitive), or None."""
        wanted = word.strip().lower()
        return next((i for i in self.items if i.word.lower() == wanted), None)


def _bank_error(path: Path, detail: str) -> TherapyAppError:
    return TherapyAppError(
        "Les images de l'exercice de dénomination sont illisibles.",
        "Réinstallez l'application.",
        f"{path}: {detail}",
    )


def _item(raw: dict[str, Any]) -> NamingItem:
    forms = raw.get("forms") or {}
    return NamingItem(
        id=str(raw["id"]),
        word=str(raw["word"]),
        gender=str(raw["gender"]),
        category=str(raw["category"]),
        semantic_cue=str(raw["semantic_cue"]),
        indefinite=str(forms.get("indefinite", "")),
        definite=str(forms.get("definite", "")),
        plural=str(forms.get("plural", "")),
        first_sounds=str(raw["first_sounds"]),
        first_sounds_spoken=str(raw["first_sounds_spoken"]),
        phon=str(raw["phon"]),
        frequency_band=int(raw["frequency_band"]),
        picture=str(raw["picture"]),
    )


def load_bank(folder: Path | None = None) -> NamingBank:
    """Read and check the bank.

    Args:
        folder: the folder of ``bank.json``; None for ``resources/naming``.

    Raises:
        TherapyAppError: the file is missing or invalid, or a picture is missing (French).
    """
    folder = folder if folder is not None else resources_dir() / "naming"
    path = folder / BANK_FILE
    data = read_content_file(path, BANK_FORMAT, _bank_error)
    try:
        items = tuple(_item(raw) for raw in data["items"])
        categories = {str(k): str(v) for k, v in data["categories"].items()}
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise _bank_error(path, f"bad item: {exc!r}") from exc
    ids = {item.id for item in items}
    if not items or len(ids) != len(items):
        raise _bank_error(path, "no items, or duplicate ids")
    for item in items:
        if item.category not in categories or not (folder / item.picture).is_file():
            raise _bank_error(path, f"{item.id}: unknown category or missing picture")
    _LOGGER.debug("naming bank: %d items", len(items))
    return NamingBank(items, categories, folder)


@lru_cache(maxsize=1)
def default_bank() -> NamingBank:
    """The bundled bank, read once per process."""
    return load_bank()
