"""Bundled content files that cannot be read, or are of another format, are refused in French."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from therapy_app.errors import TherapyAppError
from therapy_app.exercises import load_content
from therapy_app.naming.bank import load_bank

GOOD_REPETITION = {
    "format_version": 1,
    "levels": [
        {"level": 1, "title": "Courtes", "min_words": 1, "max_words": 4, "sentences": ["Bonjour."]}
    ],
}


@pytest.mark.parametrize(
    ("text", "detail"),
    [
        (None, "cannot read"),
        ("{not json", "cannot read"),
        ("[1]", "expected format_version 1"),
        ('{"format_version": 2, "items": [], "categories": {}}', "expected format_version 1"),
    ],
)
def test_an_unreadable_or_newer_bank_names_the_naming_pictures(
    tmp_path: Path, text: str | None, detail: str
):
    if text is not None:
        (tmp_path / "bank.json").write_text(text, encoding="utf-8")
    with pytest.raises(TherapyAppError) as info:
        load_bank(tmp_path)
    assert info.value.user_message == "Les images de l'exercice de dénomination sont illisibles."
    assert info.value.detail.startswith(f"{tmp_path / 'bank.json'}: {detail}")


def test_a_newer_completion_file_names_the_exercises(tmp_path: Path):
    (tmp_path / "repetition.json").write_text(json.dumps(GOOD_REPETITION), encoding="utf-8")
    (tmp_path / "completion.json").write_text('{"format_version": 2}', encoding="utf-8")
    with pytest.raises(TherapyAppError) as info:
        load_content(tmp_path)
    assert info.value.user_message == "Les exercices sont illisibles."
    assert info.value.detail == f"{tmp_path / 'completion.json'}: expected format_version 1"
