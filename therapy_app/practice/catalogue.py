"""The exercises the app offers, as data: names, hints, difficulty choices, what a program may set.

The chooser's buttons and the therapist's program editor are both built from
:data:`CATALOGUE`, so a new kind (picture naming) is one more entry here.
"""

from __future__ import annotations

from dataclasses import dataclass

from therapy_app.exercises import ExerciseContent
from therapy_app.naming.bank import default_bank
from therapy_app.practice.events import ExerciseKind


@dataclass(frozen=True)
class Difficulty:
    """One difficulty the therapist can pick for an exercise.

    Attributes:
        level: the list level (None: where the patient is, or all levels).
        label: French name ("Phrases courtes (1 à 4 mots)").
    """

    level: int | None
    label: str


@dataclass(frozen=True)
class ExerciseInfo:
    """One exercise as the screens show it.

    Attributes:
        kind: the exercise kind (also the storage value).
        name: the patient's button title ("Répéter").
        hint: one plain line under it.
        icon: a symbol for the button.
        therapist_name: how the therapist's screens name it.
        has_categories: its content has themes the therapist may choose from.
        uses_custom_items: the patient's own words and sentences are practised in it.
    """

    kind: ExerciseKind
    name: str
    hint: str
    icon: str
    therapist_name: str
    has_categories: bool = False
    uses_custom_items: bool = False


CATALOGUE: tuple[ExerciseInfo, ...] = (
    ExerciseInfo(
        ExerciseKind.FREE_SPEECH,
        "Parler librement",
        "Dites une phrase, je vous aide.",
        "✎",
        "Parole libre",
    ),
    ExerciseInfo(
        ExerciseKind.REPETITION,
        "Répéter",
        "Écoutez une phrase et répétez-la.",
        "↻",
        "Répétition",
        uses_custom_items=True,
    ),
    ExerciseInfo(
        ExerciseKind.COMPLETION,
        "Compléter",
        "Trouvez le mot qui manque.",
        "…",
        "Complétion",
        has_categories=True,
        uses_custom_items=True,
    ),
    ExerciseInfo(
        ExerciseKind.NAMING,
        "Nommer des images",
        "Dites le nom de ce que vous voyez.",
        "▣",
        "Dénomination",
        has_categories=True,
        uses_custom_items=True,
    ),
    # Script training: the patient's own dialogues, written by the
    # therapist; their lines are the patient's own items already.
    ExerciseInfo(
        ExerciseKind.SCRIPT,
        "Dialogues",
        "Entraînez-vous à une conversation.",
        "⇄",
        "Scripts de dialogue",
    ),
)

_COMPLETION_LEVELS = {1: "Séries et expressions", 2: "Dénomination sur définition"}
# Naming difficulty is the word's frequency band (Lexique 3.83, bands 1-3): a
# level keeps the pictures of that band and the more frequent ones.
_NAMING_LEVELS = {1: "Mots très fréquents", 2: "Mots fréquents"}


def info(kind: str) -> ExerciseInfo:
    """The catalogue entry of ``kind`` (an ``ExerciseKind`` or its value).

    Raises:
        KeyError: not in the catalogue.
    """
    for entry in CATALOGUE:
        if entry.kind.value == str(kind):
            return entry
    raise KeyError(f"no exercise {kind!r}")


def difficulties(kind: str, content: ExerciseContent) -> tuple[Difficulty, ...]:
    """The difficulty choices of ``kind``, read from the content where it has them.

    Repetition: by sentence length (the levels' word ranges); completion: set
    phrases or naming from a description; naming: word frequency bands; free
    speech and scripts: none (one entry; the patient picks the dialogue).
    """
    if kind == ExerciseKind.REPETITION.value:
        return (
            Difficulty(None, "Là où le patient s'est arrêté"),
            *(
                Difficulty(lv.level, f"{lv.title} ({lv.min_words} à {lv.max_words} mots)")
                for lv in content.levels
            ),
        )
    if kind == ExerciseKind.COMPLETION.value:
        levels = sorted({item.level for item in content.completion})
        return (
            Difficulty(None, "Tous niveaux"),
            *(Difficulty(n, _COMPLETION_LEVELS.get(n, f"Niveau {n}")) for n in levels),
        )
    if kind == ExerciseKind.NAMING.value:
        return (
            Difficulty(None, "Tous les mots, même rares"),
            *(Difficulty(n, label) for n, label in _NAMING_LEVELS.items()),
        )
    return (Difficulty(None, "—"),)


def categories(kind: str, content: ExerciseContent) -> tuple[str, ...]:
    """The themes of ``kind``'s content, sorted ("" first means all); empty when it has none."""
    if not info(kind).has_categories:
        return ()
    if kind == ExerciseKind.NAMING.value:
        return ("", *sorted(default_bank().categories))
    return ("", *sorted({item.category for item in content.completion if item.category}))
