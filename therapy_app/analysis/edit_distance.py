"""Levenshtein distance between two strings (letters or phonemes), with an optional bound."""

from __future__ import annotations


def edit_distance(a: str, b: str, bound: int | None = None) -> int:
    """The fewest insertions, deletions and substitutions that turn ``a`` into ``b``.

    Args:
        a: one string.
        b: the other.
        bound: once every alignment costs more than this, stop and return
            ``bound + 1`` (most pairs a caller compares are far apart).

    Returns:
        The distance, or ``bound + 1`` when it exceeds ``bound``.
    """
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        current = [i]
        for j, cb in enumerate(b, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        if bound is not None and min(current) > bound:
            return bound + 1
        previous = current
    return previous[-1]
