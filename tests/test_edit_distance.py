"""The one edit distance behind phrase matching, naming candidates and sound-alikes."""

from __future__ import annotations

import pytest

from therapy_app.analysis.edit_distance import edit_distance


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ("chat", "chat", 0),
        ("chat", "chats", 1),
        ("chat", "chapeau", 4),
        ("", "ʃa", 2),
        ("ʃa", "sa", 1),
    ],
)
def test_distance(a: str, b: str, expected: int) -> None:
    assert edit_distance(a, b) == expected
    assert edit_distance(b, a) == expected


def test_a_bound_stops_early_with_bound_plus_one() -> None:
    assert edit_distance("abcdef", "uvwxyz", bound=1) == 2
    # Within the bound, the exact distance.
    assert edit_distance("boulanzerie", "boulangerie", bound=1) == 1
