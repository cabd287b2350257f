"""Dialogue scripts: saved and replaced in one transaction, French refusals, bundled examples."""

from __future__ import annotations

import sqlite3

import pytest

from therapy_app.phrases.model import Script, ScriptTurn, Speaker
from therapy_app.storage import SessionRepository
from therapy_app.storage.script_store import (
    ScriptError,
    bundled_examples,
    script_from_dict,
    script_to_dict,
)

PARTNER, PATIENT = Speaker.PARTNER, Speaker.PATIENT
BAKERY = (
    ScriptTurn(PARTNER, "Bonjour, vous désirez ?"),
    ScriptTurn(PATIENT, "Une baguette, s'il vous plaît."),
    ScriptTurn(PARTNER, "Et avec ceci ?"),
    ScriptTurn(PATIENT, "C'est tout, merci."),
)


def test_save_read_replace_and_archive(repo: SessionRepository) -> None:
    jeanne = repo.patients.create("Jeanne").id
    paul = repo.patients.create("Paul").id
    store = repo.scripts
    bakery = store.save(jeanne, "  À la   boulangerie ", BAKERY)
    doctor = store.save(
        jeanne, "Chez le médecin", [ScriptTurn(PARTNER, "Ça va ?"), ScriptTurn(PATIENT, "Non.")]
    )
    store.save(paul, "Au téléphone", [ScriptTurn(PATIENT, "Allô ?"), ScriptTurn(PARTNER, "Oui.")])
    assert store.get(bakery) == Script(bakery, "À la boulangerie", BAKERY)
    assert [s.title for s in store.all(jeanne)] == ["À la boulangerie", "Chez le médecin"]
    assert store.get(bakery).patient_lines == (
        "Une baguette, s'il vous plaît.",
        "C'est tout, merci.",
    )

    shorter = (ScriptTurn(PARTNER, "Bonjour !"), ScriptTurn(PATIENT, "Un pain, merci."))
    assert store.save(jeanne, "La boulangerie", shorter, script_id=bakery) == bakery
    assert store.get(bakery) == Script(bakery, "La boulangerie", shorter)
    with pytest.raises(KeyError):
        store.save(paul, "Volé", shorter, script_id=bakery)  # not Paul's script
    with pytest.raises(KeyError):
        store.save(999, "Personne", shorter)

    store.archive(doctor)
    store.archive(doctor)  # twice: nothing more
    assert [s.id for s in store.all(jeanne)] == [bakery]
    assert store.get(doctor).title == "Chez le médecin"  # its attempts stay readable
    with pytest.raises(KeyError):
        store.archive(999)
    with pytest.raises(KeyError):
        store.get(999)


def test_a_failed_replacement_keeps_the_old_lines(repo: SessionRepository) -> None:
    jeanne = repo.patients.create("Jeanne").id
    store = repo.scripts
    bakery = store.save(jeanne, "À la boulangerie", BAKERY)
    # A line the database refuses half-way: what was written before it is rolled back.
    with repo.transaction("test"), repo.connection("test") as db:
        db.execute("CREATE TRIGGER refuse BEFORE INSERT ON script_turns WHEN NEW.position = 1"
                   " BEGIN SELECT RAISE(ABORT, 'refused'); END")  # fmt: skip
    with pytest.raises(sqlite3.IntegrityError):
        store.save(jeanne, "Autre", [ScriptTurn(PATIENT, "Un."), ScriptTurn(PATIENT, "Deux.")])
    assert store.get(bakery) == Script(bakery, "À la boulangerie", BAKERY)
    with pytest.raises(sqlite3.IntegrityError):
        store.save(
            jeanne,
            "Autre",
            [ScriptTurn(PATIENT, "Un."), ScriptTurn(PATIENT, "Deux.")],
            script_id=bakery,
        )
    assert store.get(bakery) == Script(bakery, "À la boulangerie", BAKERY)
    assert [s.id for s in store.all(jeanne)] == [bakery]


@pytest.mark.parametrize(
    ("title", "turns", "message"),
    [
        (" \u200b ", BAKERY, "Le script n'a pas de titre."),
        ("x" * 81, BAKERY, "Le titre est trop long (plus de 80 caractères)."),
        ("Court", BAKERY[:1], "Un script a de 2 à 12 répliques (1 ici)."),
        ("Long", BAKERY * 4, "Un script a de 2 à 12 répliques (16 ici)."),
        ("Vide", (BAKERY[0], ScriptTurn(PATIENT, " ... ")), "La réplique n° 2 est vide."),
        (
            "Bavard",
            (BAKERY[0], ScriptTurn(PATIENT, "a" * 201)),
            "La réplique n° 2 est trop longue (plus de 200 caractères).",
        ),
        (
            "Muet",
            (BAKERY[0], BAKERY[2]),
            "Le patient n'a aucune réplique dans ce script.",
        ),
        (
            "Qui ?",
            (BAKERY[1], ScriptTurn("voisin", "Salut.")),  # type: ignore[arg-type]
            "On ne sait pas qui dit la réplique n° 2.",
        ),
    ],
)
def test_refusals_in_french_store_nothing(
    repo: SessionRepository, title: str, turns: tuple[ScriptTurn, ...], message: str
) -> None:
    jeanne = repo.patients.create("Jeanne").id
    with pytest.raises(ScriptError) as caught:
        repo.scripts.save(jeanne, title, turns)
    assert caught.value.user_message == message and caught.value.hint
    assert isinstance(caught.value, ValueError)
    assert repo.scripts.all(jeanne) == []


def test_bundled_examples_are_short_everyday_dialogues() -> None:
    examples = bundled_examples()
    assert [s.title for s in examples] == [
        "À la boulangerie",
        "Chez le médecin",
        "Au téléphone",
        "À la pharmacie",
    ]
    for script in examples:
        assert script.id == 0 and 4 <= len(script.turns) <= 8
        assert all(2 <= len(line.split()) <= 7 for line in script.patient_lines)
        assert script_from_dict(script_to_dict(script)) == script
    examples.clear()  # a caller's list: the next call is whole again
    assert len(bundled_examples()) == 4


def test_examples_can_be_given_to_a_patient(repo: SessionRepository) -> None:
    jeanne = repo.patients.create("Jeanne").id
    store = repo.scripts
    for example in bundled_examples():
        store.save(jeanne, example.title, example.turns)
    # By title, accents aside (SQLite's NOCASE would put "À" after "C").
    assert [s.title for s in store.all(jeanne)] == [
        "À la boulangerie",
        "À la pharmacie",
        "Au téléphone",
        "Chez le médecin",
    ]
