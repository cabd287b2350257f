"""What the phrase book stores: the gender, sentences chosen in free speech, removals."""

from __future__ import annotations

from therapy_app.domain.programs import MAX_CUSTOM_TEXT
from therapy_app.errors import TherapyAppError
from therapy_app.phrases.model import Gender
from therapy_app.storage import row_codec
from therapy_app.storage.store_base import Store


class PhraseError(TherapyAppError, ValueError):
    """A sentence cannot be taken out of the phrase book (empty, too long)."""


def _sentence(text: str) -> str:
    cleaned = " ".join(text.split())
    if not any(c.isalnum() for c in cleaned):
        raise PhraseError("La phrase est vide.", "", "empty sentence")
    if len(cleaned) > MAX_CUSTOM_TEXT:
        raise PhraseError(
            f"La phrase est trop longue (plus de {MAX_CUSTOM_TEXT} caractères).",
            "",
            f"sentence of {len(cleaned)} characters",
        )
    return cleaned


class PhraseStore(Store):
    """Reads and writes what the phrase book keeps per patient.

    The sentences themselves live elsewhere: custom sentences in
    ``custom_items``, chosen ones in ``attempts.chosen_sentence`` (history, never
    rewritten), script lines in ``script_turns``. A therapist's "remove from
    their sentences" is a row of ``phrase_removals``, so the history stays and
    "Remettre" gives the sentence back.
    """

    # -- gender ---------------------------------------------------------------------

    def gender(self, patient_id: int) -> Gender:
        """The patient's gender as the profile says (``UNSAID`` by default).

        Raises:
            KeyError: unknown patient.
        """
        return self._repository.patients.get(patient_id).gender

    def set_gender(self, patient_id: int, gender: Gender, editor: str) -> None:
        """Store the gender that chooses the agreement of the patient's sentences.

        Not written to ``patient_changes``: its CHECK has no action for it, and
        the value is visible in the patient's settings.

        Raises:
            ValueError: empty editor.
            KeyError: unknown patient.
        """
        row_codec.editor_name(editor)
        value = Gender(gender).value
        self._repository.patients.set_setting(
            patient_id, "gender", value, "saving the patient's gender"
        )

    # -- chosen sentences -----------------------------------------------------------

    def chosen_sentences(self, patient_id: int) -> list[str]:
        """Sentences the patient chose in free speech, most recently chosen first.

        One per sentence regardless of case (its most recent spelling);
        spaces are collapsed, empty ones skipped.
        """
        with self._repository.connection("reading chosen sentences") as db:
            found = db.execute(
                "SELECT a.chosen_sentence FROM attempts AS a"
                " JOIN sessions AS s ON s.id = a.session_id"
                " WHERE s.patient_id = ? AND a.kind = 'free_speech'"
                " AND a.chosen_sentence IS NOT NULL"
                " ORDER BY a.created_at DESC, a.id DESC",
                (patient_id,),
            ).fetchall()
        seen: set[str] = set()
        sentences: list[str] = []
        for (raw,) in found:
            text = " ".join(str(raw).split())
            key = text.casefold()
            if text and key not in seen:
                seen.add(key)
                sentences.append(text)
        return sentences

    # -- removals -------------------------------------------------------------------

    def removals(self, patient_id: int) -> list[str]:
        """Sentences the therapist took out of the patient's phrase book, most recent first."""
        with self._repository.connection("reading phrase removals") as db:
            found = db.execute(
                "SELECT text FROM phrase_removals WHERE patient_id = ?"
                " ORDER BY removed_at DESC, id DESC",
                (patient_id,),
            ).fetchall()
        return [str(r[0]) for r in found]

    def remove(self, patient_id: int, text: str, editor: str) -> None:
        """Take ``text`` out of the patient's phrase book (removing it twice changes nothing).

        The comparison ignores case and extra spaces.

        Raises:
            PhraseError: empty or too long text (a ValueError, French message).
            ValueError: empty editor.
            KeyError: unknown patient.
        """
        row_codec.editor_name(editor)
        cleaned = _sentence(text)
        with self._repository.transaction("removing a sentence") as db:
            self._repository.patients.get(patient_id)
            db.execute(
                "INSERT OR IGNORE INTO phrase_removals (patient_id, text, removed_at)"
                " VALUES (?, ?, ?)",
                (patient_id, cleaned, row_codec.to_db_time(self._repository.now())),
            )

    def restore(self, patient_id: int, text: str) -> None:
        """Give a removed sentence back to the phrase book (unknown ones are ignored)."""
        cleaned = " ".join(text.split())
        with self._repository.transaction("restoring a sentence") as db:
            db.execute(
                "DELETE FROM phrase_removals WHERE patient_id = ? AND text = ?",
                (patient_id, cleaned),
            )
