"""Exercise content: graded repetition sentences and sentence-completion items, validated."""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from therapy_app.errors import TherapyAppError
from therapy_app.paths import resources_dir

_LOGGER = logging.getLogger(__name__)

FORMAT_VERSION = 1
REPETITION_FILE = "repetition.json"
COMPLETION_FILE = "completion.json"
BLANK = "…"

_WORD = re.compile(r"\w")


def display_word_count(text: str) -> int:
    """Words as the patient sees them: "J'ai", "aujourd'hui", "Pouvez-vous" count as one.

    This is the unit the levels are defined in (not the metric words of
    :func:`therapy_app.analysis.metrics.words`, which split elisions).
    """
    return sum(1 for token in text.split() if _WORD.search(token))


@dataclass(frozen=True)
class RepetitionLevel:
    """One difficulty level of the repetition exercise.

    Attributes:
        level: 1 (short), 2 (medium) or 3 (long).
        title: French name shown to the therapist and the patient.
        min_words: fewest display words of a sentence of this level.
        max_words: most display words.
        sentences: the sentences, in the order they are proposed.
    """

    level: int
    title: str
    min_words: int
    max_words: int
    sentences: tuple[str, ...]


@dataclass(frozen=True)
class CompletionItem:
    """A sentence to complete, or an object to name from a cue.

    Attributes:
        id: stable identifier (ASCII slug of the answer).
        cue: written cue with the blank ``…`` where the answer goes.
        answer: the expected word or phrase.
        variants: other accepted answers ("clef" for "clé", "frigo").
        level: 1 (automatic series, set phrases) or 2 (naming from a description).
        category: theme, for the therapist ("repas", "objets", ...).
    """

    id: str
    cue: str
    answer: str
    variants: tuple[str, ...] = ()
    level: int = 1
    category: str = ""

    @property
    def accepted(self) -> tuple[str, ...]:
        """The answer first, then its variants."""
        return (self.answer, *self.variants)

    @property
    def spoken_cue(self) -> str:
        """The cue as the voice reads it: the blank becomes a pause."""
        return self.cue.replace(BLANK, ' <break time="700ms"/> ').strip()

    def completed(self, answer: str | None = None) -> str:
        """The cue with the blank filled ("Le matin, je bois un café.")."""
        text = self.cue.replace(BLANK, answer or self.answer)
        text = re.sub(r"'\s+", "'", text)  # "l'… " → "l'eau"
        text = text.strip()
        return text if text.endswith((".", "!", "?")) else text + "."


@dataclass(frozen=True)
class ExerciseContent:
    """Everything the exercises draw from.

    Attributes:
        levels: repetition levels, by increasing difficulty.
        completion: sentence-completion items.
    """

    levels: tuple[RepetitionLevel, ...]
    completion: tuple[CompletionItem, ...] = field(default_factory=tuple)

    def level(self, number: int) -> RepetitionLevel:
        """The repetition level ``number``.

        Raises:
            KeyError: no such level.
        """
        for level in self.levels:
            if level.level == number:
                return level
        raise KeyError(f"no repetition level {number}")

    def all_sentences(self) -> list[str]:
        """Every repetition sentence, level by level."""
        return [s for level in self.levels for s in level.sentences]


def _content_error(path: Path, detail: str) -> TherapyAppError:
    return TherapyAppError(
        "Les exercices sont illisibles.",
        "Réinstallez l'application.",
        f"{path}: {detail}",
    )


def read_content_file(
    path: Path,
    format_version: int = FORMAT_VERSION,
    error: Callable[[Path, str], TherapyAppError] = _content_error,
) -> dict[str, Any]:
    """A bundled content file's JSON object (these files, the naming bank), format checked.

    Args:
        path: the JSON file.
        format_version: the one ``format_version`` this code reads.
        error: the French error for ``path`` and an English detail; the
            default names the exercises.

    Raises:
        TherapyAppError: built by ``error``: the file cannot be read, is not a
            JSON object, or has another format version.
    """
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise error(path, f"cannot read: {exc}") from exc
    if not isinstance(data, dict) or data.get("format_version") != format_version:
        raise error(path, f"expected format_version {format_version}")
    return data


def parse_repetition(data: dict[str, Any], path: Path) -> tuple[RepetitionLevel, ...]:
    """Validate and convert the repetition file's ``levels``.

    Raises:
        TherapyAppError: missing fields, empty or duplicate sentences, or a
            sentence whose length does not fit its level.
    """
    levels: list[RepetitionLevel] = []
    seen: set[str] = set()
    for raw in data.get("levels", []):
        try:
            level = RepetitionLevel(
                level=int(raw["level"]),
                title=str(raw["title"]),
                min_words=int(raw["min_words"]),
                max_words=int(raw["max_words"]),
                sentences=tuple(str(s).strip() for s in raw["sentences"]),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise _content_error(path, f"bad level entry: {exc!r}") from exc
        for sentence in level.sentences:
            count = display_word_count(sentence)
            if not level.min_words <= count <= level.max_words:
                raise _content_error(path, f"level {level.level}: {sentence!r} has {count} words")
            if sentence.lower() in seen:
                raise _content_error(path, f"duplicate sentence {sentence!r}")
            seen.add(sentence.lower())
        levels.append(level)
    if not levels:
        raise _content_error(path, "no levels")
    return tuple(sorted(levels, key=lambda lv: lv.level))


def parse_completion(data: dict[str, Any], path: Path) -> tuple[CompletionItem, ...]:
    """Validate and convert the completion file's ``items``.

    Raises:
        TherapyAppError: missing fields, a cue without exactly one blank, or a
            duplicate id.
    """
    items: list[CompletionItem] = []
    ids: set[str] = set()
    for raw in data.get("items", []):
        try:
            item = CompletionItem(
                id=str(raw["id"]),
                cue=str(raw["cue"]),
                answer=str(raw["answer"]).strip(),
                variants=tuple(str(v).strip() for v in raw.get("variants", [])),
                level=int(raw.get("level", 1)),
                category=str(raw.get("category", "")),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise _content_error(path, f"bad item: {exc!r}") from exc
        if item.cue.count(BLANK) != 1 or not item.answer:
            raise _content_error(path, f"item {item.id!r}: one blank and an answer needed")
        if item.id in ids:
            raise _content_error(path, f"duplicate item id {item.id!r}")
        ids.add(item.id)
        items.append(item)
    if not items:
        raise _content_error(path, "no items")
    return tuple(items)


def load_content(directory: Path | None = None) -> ExerciseContent:
    """Read and validate the exercise files.

    Args:
        directory: folder holding the JSON files; None for ``resources/exercises``.

    Raises:
        TherapyAppError: a file is missing or invalid (French message).
    """
    folder = directory if directory is not None else resources_dir() / "exercises"
    rep_path, comp_path = folder / REPETITION_FILE, folder / COMPLETION_FILE
    content = ExerciseContent(
        levels=parse_repetition(read_content_file(rep_path), rep_path),
        completion=parse_completion(read_content_file(comp_path), comp_path),
    )
    _LOGGER.debug(
        "exercise content: %d sentences, %d completion items",
        len(content.all_sentences()),
        len(content.completion),
    )
    return content


@lru_cache(maxsize=1)
def default_content() -> ExerciseContent:
    """The bundled content, read once per process."""
    return load_content()
