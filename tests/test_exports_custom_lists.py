"""Custom word and sentence lists as files: round trip between databases, French refusals."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from storage_fixtures import T0, FakeClock

from therapy_app.exports.custom_lists import (
    CustomListFileError,
    read_custom_list,
    write_custom_list,
)
from therapy_app.storage import SessionRepository


def test_round_trip_between_two_computers_never_overwrites(tmp_path: Path) -> None:
    with SessionRepository(tmp_path / "first", clock=FakeClock()) as first:
        jeanne = first.create_patient("Jeanne")
        first.add_custom_item(jeanne.id, "sentence", "Ma fille s'appelle Julie.", "famille")
        first.add_custom_item(jeanne.id, "word", "couscous", "repas")
        first.add_custom_item(jeanne.id, "word", "Médor", "famille", picture="chien")
        file = tmp_path / "liste.json"
        assert write_custom_list(file, first.custom_items(jeanne.id), T0) == 3
    data = json.loads(file.read_text(encoding="utf-8"))
    assert data["version"] == 1 and "Jeanne" not in file.read_text(encoding="utf-8")

    with SessionRepository(tmp_path / "second", clock=FakeClock()) as second:
        patient = second.create_patient("Jeanne D.")
        # Already there with another theme: kept as it is, not replaced.
        second.add_custom_item(patient.id, "word", "Couscous", "plats")
        imported = read_custom_list(file)
        added, skipped = second.import_custom_items(
            patient.id, [(i.kind, i.text, i.category, i.picture) for i in imported], "claire"
        )
        assert (added, skipped) == (2, 1)
        assert [(i.text, i.category, i.picture) for i in second.custom_items(patient.id)] == [
            ("Couscous", "plats", ""),
            ("Ma fille s'appelle Julie.", "famille", ""),
            ("Médor", "famille", "chien"),  # the chosen picture travels with the word
        ]
        assert second.patient_changes(patient.id)[-1].action == "import"


def _write(tmp_path: Path, content: object) -> Path:
    path = tmp_path / "liste.json"
    text = content if isinstance(content, str) else json.dumps(content)
    path.write_text(text, encoding="utf-8")
    return path


GOOD_ITEM = {"kind": "word", "text": "pomme"}


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{pas du json", "n'est pas une liste de mots de l'application (contenu illisible)"),
        ({"items": [GOOD_ITEM]}, "n'est pas une liste de mots de l'application."),
        ({"format": "therapy-app-custom-list", "items": []}, "version de ce fichier"),
        (
            {"format": "therapy-app-custom-list", "version": 2, "items": []},
            "version plus récente",
        ),
        ({"format": "therapy-app-custom-list", "version": 1}, "ne contient pas de liste"),
        (
            {
                "format": "therapy-app-custom-list",
                "version": 1,
                "items": [GOOD_ITEM, {"kind": "x"}],
            },
            "L'élément n° 2 n'est ni un mot ni une phrase.",
        ),
        (
            {
                "format": "therapy-app-custom-list",
                "version": 1,
                "items": [{"kind": "word", "text": " "}],
            },
            "L'élément n° 1 n'a pas de texte.",
        ),
        (
            {
                "format": "therapy-app-custom-list",
                "version": 1,
                "items": [{"kind": "sentence", "text": "mot " * 100}],
            },
            "trop long",
        ),
    ],
)
def test_bad_files_are_refused_in_french(tmp_path: Path, content: object, message: str) -> None:
    with pytest.raises(CustomListFileError) as caught:
        read_custom_list(_write(tmp_path, content))
    assert message in caught.value.french()


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(CustomListFileError) as caught:
        read_custom_list(tmp_path / "absent.json")
    assert caught.value.french().startswith("Le fichier de la liste est introuvable.")
