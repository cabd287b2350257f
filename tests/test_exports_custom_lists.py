"""Custom word and sentence lists as files: round trip between databases, French refusals."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from storage_fixtures import T0, FakeClock

from therapy_app.exports.custom_lists import (
    CustomListFileError,
    ImportCounts,
    export_patient_lists,
    import_patient_lists,
    read_custom_list,
    read_list_file,
    write_custom_list,
)
from therapy_app.phrases.book import patient_book
from therapy_app.phrases.model import Gender, ScriptTurn, Speaker
from therapy_app.storage import SessionRepository


def test_round_trip_between_two_computers_never_overwrites(tmp_path: Path) -> None:
    with SessionRepository(tmp_path / "first", clock=FakeClock()) as first:
        jeanne = first.patients.create("Jeanne")
        first.programs.add_custom_item(
            jeanne.id, "sentence", "Ma fille s'appelle Julie.", "famille"
        )
        first.programs.add_custom_item(jeanne.id, "word", "couscous", "repas")
        first.programs.add_custom_item(jeanne.id, "word", "Médor", "famille", picture="chien")
        file = tmp_path / "liste.json"
        assert write_custom_list(file, first.programs.custom_items(jeanne.id), T0) == 3
    data = json.loads(file.read_text(encoding="utf-8"))
    assert data["version"] == 1 and "Jeanne" not in file.read_text(encoding="utf-8")

    with SessionRepository(tmp_path / "second", clock=FakeClock()) as second:
        patient = second.patients.create("Jeanne D.")
        # Already there with another theme: kept as it is, not replaced.
        second.programs.add_custom_item(patient.id, "word", "Couscous", "plats")
        imported = read_custom_list(file)
        added, skipped = second.programs.import_custom_items(
            patient.id, [(i.kind, i.text, i.category, i.picture) for i in imported], "claire"
        )
        assert (added, skipped) == (2, 1)
        assert [
            (i.text, i.category, i.picture) for i in second.programs.custom_items(patient.id)
        ] == [
            ("Couscous", "plats", ""),
            ("Ma fille s'appelle Julie.", "famille", ""),
            ("Médor", "famille", "chien"),  # the chosen picture travels with the word
        ]
        assert second.patients.changes(patient.id)[-1].action == "import"


BAKERY = (
    ScriptTurn(Speaker.PARTNER, "Bonjour, vous désirez ?"),
    ScriptTurn(Speaker.PATIENT, "Une baguette, s'il vous plaît."),
    ScriptTurn(Speaker.PARTNER, "Voilà."),
    ScriptTurn(Speaker.PATIENT, "Merci, au revoir."),
)


def test_scripts_and_removals_move_to_another_computer(tmp_path: Path) -> None:
    file = tmp_path / "liste.json"
    with SessionRepository(tmp_path / "first", clock=FakeClock()) as first:
        jeanne = first.patients.create("Jeanne").id
        first.programs.add_custom_item(jeanne, "sentence", "Je suis allé(e) au marché.")
        first.programs.add_custom_item(jeanne, "sentence", "Il fait beau.")
        scripts = first.scripts
        scripts.save(jeanne, "À la boulangerie", BAKERY)
        archived = scripts.save(jeanne, "Ancien", BAKERY[:2])
        scripts.archive(archived)  # archived: not exported
        first.phrases.remove(jeanne, "Il fait beau.", "claire")
        assert export_patient_lists(first, jeanne, file) == (2, 1)
    data = json.loads(file.read_text(encoding="utf-8"))
    assert data["version"] == 2 and "Jeanne" not in file.read_text(encoding="utf-8")
    assert data["phrase_removals"] == ["Il fait beau."]

    with SessionRepository(tmp_path / "second", clock=FakeClock()) as second:
        patient = second.patients.create("Jeanne D.").id
        second.phrases.set_gender(patient, Gender.FEMININE, "claire")
        content = read_list_file(file)
        assert [s.title for s in content.scripts] == ["À la boulangerie"]
        assert import_patient_lists(second, patient, content, "claire") == ImportCounts(
            added=2, skipped=0, scripts_added=1, scripts_skipped=0, removals_added=1
        )
        [script] = second.scripts.all(patient)
        assert (script.title, script.turns) == ("À la boulangerie", BAKERY)
        assert [p.text for p in patient_book(second, patient).phrases] == [
            "Je suis allée au marché.",
            "Une baguette, s'il vous plaît.",
            "Merci, au revoir.",
        ]
        # Again: nothing doubled, nothing replaced.
        assert import_patient_lists(second, patient, content, "claire") == ImportCounts(
            added=0, skipped=2, scripts_added=0, scripts_skipped=1, removals_added=0
        )
        assert len(second.scripts.all(patient)) == 1


def test_a_list_without_scripts_stays_readable_by_older_versions(tmp_path: Path) -> None:
    file = tmp_path / "liste.json"
    with SessionRepository(tmp_path / "first", clock=FakeClock()) as first:
        jeanne = first.patients.create("Jeanne").id
        first.programs.add_custom_item(jeanne, "word", "couscous")
        assert export_patient_lists(first, jeanne, file) == (1, 0)
    data = json.loads(file.read_text(encoding="utf-8"))
    assert data["version"] == 1 and set(data) == {"format", "version", "exported_at", "items"}


def test_a_version_1_file_is_read_as_before(tmp_path: Path) -> None:
    # Written by the previous release; keys it never wrote are ignored as they were.
    old = {
        "format": "therapy-app-custom-list",
        "version": 1,
        "exported_at": "2025-03-14T09:30:00+00:00",
        "items": [{"kind": "sentence", "text": "Ma fille s'appelle Julie.", "category": ""}],
        "scripts": "not read in version 1",
    }
    content = read_list_file(_write(tmp_path, old))
    assert [i.text for i in content.items] == ["Ma fille s'appelle Julie."]
    assert content.scripts == [] and content.removals == []
    with SessionRepository(tmp_path / "db", clock=FakeClock()) as repo:
        patient = repo.patients.create("Jeanne").id
        counts = import_patient_lists(repo, patient, content, "claire")
        assert counts == ImportCounts(added=1, skipped=0)


def test_a_bad_script_refuses_the_whole_file(tmp_path: Path) -> None:
    data = {
        "format": "therapy-app-custom-list",
        "version": 2,
        "items": [GOOD_ITEM],
        "scripts": [
            {"title": "Bien", "turns": [{"speaker": "patient", "text": "Oui."}] * 2},
            {"title": "Muet", "turns": [{"speaker": "partner", "text": "Allô ?"}] * 2},
        ],
        "phrase_removals": [],
    }
    with pytest.raises(CustomListFileError) as caught:
        read_list_file(_write(tmp_path, data))
    assert caught.value.user_message == (
        "Le script n° 2 du fichier ne peut pas être importé : "
        "Le patient n'a aucune réplique dans ce script."
    )
    data["scripts"] = []
    data["phrase_removals"] = ["Bonjour.", 3]
    with pytest.raises(CustomListFileError) as caught:
        read_list_file(_write(tmp_path, data))
    assert caught.value.user_message == "La phrase retirée n° 2 du fichier est illisible."


def test_a_failed_import_adds_nothing(tmp_path: Path) -> None:
    data = {
        "format": "therapy-app-custom-list",
        "version": 2,
        "items": [GOOD_ITEM],
        "scripts": [{"title": "Bien", "turns": [{"speaker": "patient", "text": "Oui."}] * 2}],
        "phrase_removals": ["Bonjour."],
    }
    content = read_list_file(_write(tmp_path, data))
    with SessionRepository(tmp_path / "db", clock=FakeClock()) as repo:
        patient = repo.patients.create("Jeanne").id
        with repo.transaction("test"), repo.connection("test") as db:
            db.execute("CREATE TRIGGER refuse BEFORE INSERT ON phrase_removals"
                       " BEGIN SELECT RAISE(ABORT, 'refused'); END")  # fmt: skip
        with pytest.raises(sqlite3.IntegrityError):
            import_patient_lists(repo, patient, content, "claire")
        assert repo.programs.custom_items(patient) == [] and repo.scripts.all(patient) == []


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
            {"format": "therapy-app-custom-list", "version": 3, "items": []},
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
