"""The patient's phrase book: its sources, removals, gender agreement, the CLI's file book."""

from __future__ import annotations

from pathlib import Path

import pytest
from storage_fixtures import FakeClock, make_utterance

from therapy_app.phrases.book import (
    PhraseFileError,
    book_entries,
    file_book,
    give_back,
    patient_book,
)
from therapy_app.phrases.model import Gender, Phrase, PhraseSource, ScriptTurn, Speaker
from therapy_app.storage import SessionRepository
from therapy_app.storage.phrase_store import PhraseError

CUSTOM, CHOSEN, SCRIPT = PhraseSource.CUSTOM, PhraseSource.CHOSEN, PhraseSource.SCRIPT


def _choose(repo: SessionRepository, clock: FakeClock, patient_id: int, sentence: str) -> None:
    """A free-speech attempt where the patient chose ``sentence``."""
    session = repo.sessions.start(patient_id, "free_speech")
    clock.advance(minutes=1)
    repo.attempts.add(make_utterance(session.id, chosen_sentence=sentence))


def test_sources_in_order_without_duplicates(repo: SessionRepository, clock: FakeClock) -> None:
    jeanne = repo.patients.create("Jeanne").id
    other = repo.patients.create("Paul").id
    repo.programs.add_custom_item(jeanne, "sentence", "Je voudrais un café.")
    repo.programs.add_custom_item(jeanne, "word", "Médor")  # a word is not a sentence of the book
    repo.programs.add_custom_item(jeanne, "sentence", "Ma fille s'appelle Julie.")
    _choose(repo, clock, jeanne, "J'ai mal au dos.")
    _choose(repo, clock, jeanne, "je voudrais un CAFÉ.")  # a custom one chosen again
    _choose(repo, clock, jeanne, "Il fait  beau.")
    _choose(repo, clock, other, "Paul's sentence.")
    repo.scripts.save(
        jeanne,
        "À la boulangerie",
        [
            ScriptTurn(Speaker.PARTNER, "Bonjour, vous désirez ?"),
            ScriptTurn(Speaker.PATIENT, "Une baguette, s'il vous plaît."),
            ScriptTurn(Speaker.PARTNER, "Voilà."),
            ScriptTurn(Speaker.PATIENT, "J'ai mal au dos."),
        ],
    )
    book = patient_book(repo, jeanne)
    assert [(p.text, p.source) for p in book.phrases] == [
        ("Je voudrais un café.", CUSTOM),
        ("Ma fille s'appelle Julie.", CUSTOM),
        ("Il fait beau.", CHOSEN),  # most recently chosen first, spaces collapsed
        ("J'ai mal au dos.", CHOSEN),
        ("Une baguette, s'il vous plaît.", SCRIPT),  # partner lines are not the patient's
    ]
    assert len(book) == 5 and book.gender is Gender.UNSAID
    assert [e.origin for e in book_entries(repo, jeanne)] == [""] * 4 + ["À la boulangerie"]


def test_removed_sentences_leave_the_book_and_come_back(
    repo: SessionRepository, clock: FakeClock
) -> None:
    jeanne = repo.patients.create("Jeanne").id
    repo.programs.add_custom_item(jeanne, "sentence", "Je voudrais un café.")
    _choose(repo, clock, jeanne, "Il fait beau.")
    store = repo.phrases
    store.remove(jeanne, "il fait BEAU.", "claire")
    store.remove(jeanne, "Il fait beau.", "claire")  # twice: nothing more
    assert store.removals(jeanne) == ["il fait BEAU."]
    assert [p.text for p in patient_book(repo, jeanne).phrases] == ["Je voudrais un café."]
    entries = book_entries(repo, jeanne)
    assert [(e.phrase.text, e.removed) for e in entries] == [
        ("Je voudrais un café.", False),
        ("Il fait beau.", True),
    ]
    # The history is not rewritten: the attempt still holds the chosen sentence.
    assert repo.attempts.all(patient_id=jeanne)[0].record.chosen_sentence == "Il fait beau."
    store.restore(jeanne, "IL FAIT BEAU.")
    assert store.removals(jeanne) == []
    assert len(patient_book(repo, jeanne)) == 2


def test_gender_agrees_every_source(repo: SessionRepository, clock: FakeClock) -> None:
    jeanne = repo.patients.create("Jeanne").id
    repo.programs.add_custom_item(jeanne, "sentence", "Je suis allé(e) chez le médecin.")
    repo.programs.add_custom_item(
        jeanne, "sentence", "Je suis allée chez le médecin."
    )  # same once agreed
    _choose(repo, clock, jeanne, "Je suis fatigué.")
    store = repo.phrases
    assert store.gender(jeanne) is Gender.UNSAID
    unsaid = [p.text for p in patient_book(repo, jeanne).phrases]
    assert unsaid == [
        "Je suis allé(e) chez le médecin.",  # no gender invented
        "Je suis allée chez le médecin.",
        "Je suis fatigué.",
    ]
    store.set_gender(jeanne, Gender.FEMININE, "claire")
    assert repo.patients.get(jeanne).gender is Gender.FEMININE
    book = patient_book(repo, jeanne)
    assert book.gender is Gender.FEMININE
    assert book.phrases == (
        Phrase("Je suis allée chez le médecin.", CUSTOM),
        Phrase("Je suis fatiguée.", CHOSEN),
    )
    # A removal recorded under the agreed form takes the written form out too.
    store.remove(jeanne, "Je suis fatiguée.", "claire")
    store.set_gender(jeanne, Gender.MASCULINE, "claire")
    assert [p.text for p in patient_book(repo, jeanne).phrases] == ["Je suis allé chez le médecin."]
    # « Remettre » undoes it from the written form, whatever form it was recorded under.
    assert give_back(repo, jeanne, "Je suis fatigué.") == 1
    assert give_back(repo, jeanne, "Je suis fatigué.") == 0
    assert store.removals(jeanne) == []
    assert len(patient_book(repo, jeanne)) == 2


def test_store_refusals(repo: SessionRepository) -> None:
    store = repo.phrases
    with pytest.raises(KeyError):
        store.set_gender(999, Gender.FEMININE, "claire")
    with pytest.raises(KeyError):
        store.remove(999, "Bonjour.", "claire")
    jeanne = repo.patients.create("Jeanne").id
    with pytest.raises(ValueError, match="editor"):
        store.set_gender(jeanne, Gender.FEMININE, " ")
    with pytest.raises(PhraseError) as caught:
        store.remove(jeanne, " … ", "claire")
    assert caught.value.user_message == "La phrase est vide."
    with pytest.raises(PhraseError) as caught:
        store.remove(jeanne, "a" * 201, "claire")
    assert caught.value.user_message.startswith("La phrase est trop longue")
    assert repo.phrases.removals(jeanne) == []
    with pytest.raises(KeyError):
        patient_book(repo, 999)


def test_deleting_a_patient_takes_their_removals_and_scripts(repo: SessionRepository) -> None:
    jeanne = repo.patients.create("Jeanne").id
    repo.phrases.remove(jeanne, "Bonjour.", "claire")
    script_id = repo.scripts.save(
        jeanne,
        "Bonjour",
        [ScriptTurn(Speaker.PARTNER, "Bonjour !"), ScriptTurn(Speaker.PATIENT, "Bonjour.")],
    )
    repo.patients.delete(jeanne, "claire")
    with pytest.raises(KeyError):
        repo.scripts.get(script_id)
    assert repo.phrases.removals(jeanne) == []


def _file(tmp_path: Path, content: str | bytes) -> Path:
    path = tmp_path / "phrases.txt"
    if isinstance(content, str):
        path.write_text(content, encoding="utf-8")
    else:
        path.write_bytes(content)
    return path


def test_file_book_reads_one_sentence_per_line(tmp_path: Path) -> None:
    content = "\ufeff# mes phrases\nJe voudrais un café.\n\n  Je suis allé(e) au marché.  \r\n"
    content += "je voudrais un café.\n#Je suis fatigué.\nJ'ai mal\u200b au dos.\n"
    book = file_book(_file(tmp_path, content), Gender.FEMININE)
    assert book.phrases == (
        Phrase("Je voudrais un café.", PhraseSource.FILE),
        Phrase("Je suis allée au marché.", PhraseSource.FILE),
        Phrase("J'ai mal au dos.", PhraseSource.FILE),
    )
    assert file_book(_file(tmp_path, content)).phrases[1].text == "Je suis allé(e) au marché."


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("# rien\n\n", "ne contient aucune phrase"),
        (b"Je voudrais un caf\xe9.\n", "n'est pas un texte lisible (encodage UTF-8 attendu)"),
        ("Bonjour.\n" + "a" * 201 + "\n", "La ligne 2 du fichier de phrases est trop longue"),
        ("".join(f"Phrase {i}.\n" for i in range(2001)), "plus de 2000 phrases"),
    ],
)
def test_file_book_refuses_bad_files_in_french(
    tmp_path: Path, content: str | bytes, message: str
) -> None:
    with pytest.raises(PhraseFileError) as caught:
        file_book(_file(tmp_path, content))
    assert message in caught.value.user_message and caught.value.hint


def test_file_book_refuses_what_is_not_a_file(tmp_path: Path) -> None:
    big = tmp_path / "big.txt"
    big.write_bytes(b"Bonjour.\n" * 200_000)
    for path, message in [
        (tmp_path / "absent.txt", "Le fichier de phrases est introuvable."),
        (tmp_path, "Le fichier de phrases n'est pas un fichier ordinaire (c'est un dossier)"),
        (big, "Le fichier de phrases est trop gros"),
    ]:
        with pytest.raises(PhraseFileError) as caught:
            file_book(path)
        assert caught.value.user_message.startswith(message)
