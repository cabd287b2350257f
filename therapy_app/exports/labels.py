"""French names of exercise kinds and metrics, shared by exports, reports and screens."""

from __future__ import annotations

from dataclasses import dataclass

EXERCISE_LABELS: dict[str, str] = {
    "free_speech": "Parole libre",
    "repetition": "Répétition de phrases",
    "completion": "Complétion de phrases",
    "naming": "Dénomination d'images",
    "script": "Scripts de dialogue",
}
"""Same titles as the exercise catalogue created with the database (storage.schema)."""

EXERCISE_SHORT_LABELS: dict[str, str] = {
    "free_speech": "Parole libre",
    "repetition": "Répétition",
    "completion": "Complétion",
    "naming": "Dénomination",
    "script": "Scripts",
}
"""For narrow table columns."""


@dataclass(frozen=True)
class ChartMetric:
    """A metric drawn as a progress chart.

    Attributes:
        name: ``storage.row_types.METRIC_NAMES`` entry passed to ``progress()``.
        title: French chart title.
        axis: French unit for the value axis.
        percent: the stored value is a ratio in [0, 1], shown as a percentage.
    """

    name: str
    title: str
    axis: str
    percent: bool


CHART_METRICS: tuple[ChartMetric, ...] = (
    # The session mean of per-attempt word counts is the MLU in words (metrics.py).
    ChartMetric("word_count", "Longueur des énoncés (LME)", "mots", False),
    ChartMetric("function_word_ratio", "Part de mots grammaticaux", "%", True),
    ChartMetric("words_per_minute", "Débit de parole", "mots/min", False),
    ChartMetric("accuracy", "Précision de la répétition", "%", True),
    # Picture naming: pictures named at any cue level, and how much help it took.
    ChartMetric("naming_accuracy", "Images nommées", "%", True),
    ChartMetric("naming_cue_level", "Aide pour nommer (0 à 4)", "indice", False),
)
"""The six progress charts, in display order."""


def exercise_label(kind: str, *, short: bool = False) -> str:
    """French name of an exercise kind (the code itself when unknown)."""
    return (EXERCISE_SHORT_LABELS if short else EXERCISE_LABELS).get(kind, kind)
