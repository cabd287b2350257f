"""Builds a phrase book: a patient's own sentences from the database, or a file's for the CLI."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path

from therapy_app.domain.programs import MAX_CUSTOM_TEXT
from therapy_app.errors import TherapyAppError
from therapy_app.input_files import read_text
from therapy_app.phrases.agreement import agree
from therapy_app.phrases.model import Gender, Phrase, PhraseBook, PhraseSource
from therapy_app.storage.repository import SessionRepository
from therapy_app.storage.script_store import visible_text

MAX_FILE_BYTES = 1_000_000
MAX_FILE_SENTENCES = 2000
"""A phrase book is a few hundred sentences; a bigger file is not one."""
MAX_SENTENCE = MAX_CUSTOM_TEXT


class PhraseFileError(TherapyAppError):
    """A ``--phrases`` file cannot be used (French message saying why)."""


@dataclass(frozen=True)
class BookEntry:
    """A sentence of the patient's phrase book as the therapist sees it.

    Attributes:
        phrase: the sentence, agreed with the patient's gender, and its source.
        written: the sentence as stored (what a removal is recorded under).
        removed: True when the therapist took it out of the phrase book.
        origin: the script's title for a script line; "" otherwise.
    """

    phrase: Phrase
    written: str
    removed: bool = False
    origin: str = ""


def _distinct(written: Iterable[tuple[str, PhraseSource, str]], gender: Gender) -> list[BookEntry]:
    """Agreed phrases without case-insensitive duplicates, the first occurrence kept."""
    seen: set[str] = set()
    kept: list[BookEntry] = []
    for raw, source, origin in written:
        text = visible_text(raw)
        if not any(c.isalnum() for c in text):
            continue
        agreed = agree(text, gender)
        key = agreed.casefold()
        if key not in seen:
            seen.add(key)
            kept.append(BookEntry(Phrase(agreed, source), text, origin=origin))
    return kept


def book_entries(repository: SessionRepository, patient_id: int) -> list[BookEntry]:
    """Every sentence of the patient's phrase book, the removed ones included and marked.

    A removal takes a sentence out whether it was recorded under the written
    form ("allé(e)") or an agreed one ("allée", "allé"), in any case.

    Raises:
        KeyError: unknown patient.
    """
    phrases = repository.phrases
    gender = phrases.gender(patient_id)
    written: list[tuple[str, PhraseSource, str]] = [
        (item.text, PhraseSource.CUSTOM, "")
        for item in repository.programs.custom_items(patient_id)
        if item.kind == "sentence"
    ]
    written += [(text, PhraseSource.CHOSEN, "") for text in phrases.chosen_sentences(patient_id)]
    written += [
        (line, PhraseSource.SCRIPT, script.title)
        for script in repository.scripts.all(patient_id)
        for line in script.patient_lines
    ]
    removed = set().union(*(_forms(text) for text in phrases.removals(patient_id)))
    return [
        replace(entry, removed=not removed.isdisjoint(_forms(entry.written)))
        for entry in _distinct(written, gender)
    ]


def give_back(repository: SessionRepository, patient_id: int, written: str) -> int:
    """Undo the removals of a sentence, whichever form each was recorded under.

    Args:
        repository: the data.
        patient_id: whose phrase book.
        written: the sentence as stored (:attr:`BookEntry.written`).

    Returns:
        How many removals were undone (0: it was not removed).
    """
    store = repository.phrases
    forms = _forms(visible_text(written))
    matching = [text for text in store.removals(patient_id) if not forms.isdisjoint(_forms(text))]
    with repository.transaction("restoring a sentence"):
        for text in matching:
            store.restore(patient_id, text)
    return len(matching)


def _forms(text: str) -> set[str]:
    """``text`` as written and agreed with each gender, case-folded.

    A removal holds whichever form the therapist saw: it still applies after
    the patient's gender is changed.
    """
    return {agree(text, gender).casefold() for gender in Gender}


def patient_book(repository: SessionRepository, patient_id: int) -> PhraseBook:
    """The patient's phrase book, for free speech.

    Custom sentences, then sentences chosen in free speech (most recent
    first), then the patient's lines of their scripts; minus the therapist's
    removals; deduplicated case-insensitively; agreed with the patient's gender.

    Raises:
        KeyError: unknown patient.
        StorageError: the database cannot be read.
    """
    gender = repository.phrases.gender(patient_id)
    kept = tuple(e.phrase for e in book_entries(repository, patient_id) if not e.removed)
    return PhraseBook(kept, gender)


def with_chosen(book: PhraseBook, text: str) -> PhraseBook:
    """``book`` with ``text`` the patient just chose in free speech (once, case-insensitive).

    The next utterance of the same session can then find it, not only the next session.
    """
    if any(p.text.casefold() == text.casefold() for p in book.phrases):
        return book
    return replace(book, phrases=(*book.phrases, Phrase(text, PhraseSource.CHOSEN)))


def file_book(path: Path, gender: Gender = Gender.UNSAID) -> PhraseBook:
    """The phrase book of ``therapy-app loop --phrases FILE``.

    UTF-8 text (a byte-order mark is accepted), one sentence per line; blank
    lines and lines starting with ``#`` are ignored; duplicates (any case)
    are kept once.

    Args:
        path: the file.
        gender: agreement of first-person sentences.

    Raises:
        PhraseFileError: missing, not a regular file, too big, not UTF-8, a
            line too long, too many sentences, or no sentence at all.
    """
    text = read_text(path, "le fichier de phrases", max_bytes=MAX_FILE_BYTES, error=PhraseFileError)
    written: list[tuple[str, PhraseSource, str]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        sentence = visible_text(line)
        if not sentence or sentence.startswith("#"):
            continue
        if len(sentence) > MAX_SENTENCE:
            raise PhraseFileError(
                f"La ligne {number} du fichier de phrases est trop longue "
                f"(plus de {MAX_SENTENCE} caractères).",
                "Mettez une seule phrase par ligne.",
                f"{path}: line {number} has {len(sentence)} characters",
            )
        written.append((sentence, PhraseSource.FILE, ""))
        if len(written) > MAX_FILE_SENTENCES:
            raise PhraseFileError(
                f"Le fichier de phrases contient plus de {MAX_FILE_SENTENCES} phrases.",
                "Gardez les phrases qui comptent pour le patient.",
                f"{path}: more than {MAX_FILE_SENTENCES} sentences",
            )
    kept = tuple(entry.phrase for entry in _distinct(written, gender))
    if not kept:
        raise PhraseFileError(
            "Le fichier de phrases ne contient aucune phrase.",
            "Écrivez une phrase par ligne (les lignes commençant par # sont ignorées).",
            f"{path}: no sentence",
        )
    return PhraseBook(kept, gender)
