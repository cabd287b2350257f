"""The patients' dialogue scripts (script training): validation, storage, bundled examples."""

from __future__ import annotations

import functools
import json
import unicodedata
from collections.abc import Sequence

from therapy_app.errors import TherapyAppError
from therapy_app.paths import resources_dir
from therapy_app.phrases.model import Script, ScriptTurn, Speaker
from therapy_app.storage import row_codec
from therapy_app.storage.store_base import Store

MAX_TITLE = 80
"""Longest title, in characters."""
MIN_TURNS, MAX_TURNS = 2, 12
"""Lines a script may have (the editor suggests 4 to 8, as a dialogue of the issue)."""
SUGGESTED_TURNS = (4, 8)
MAX_TURN_TEXT = 200
"""Longest line, in characters (as a custom sentence)."""
EXAMPLES = ("scripts", "examples.json")


class ScriptError(TherapyAppError, ValueError):
    """A script cannot be saved as written (French message saying what to change)."""


def visible_text(text: str) -> str:
    """``text`` without invisible or control characters (zero-width spaces...), spaces collapsed."""
    kept = "".join(c for c in text if unicodedata.category(c) not in ("Cf", "Cc") or c.isspace())
    return " ".join(kept.split())


def _sort_key(title: str) -> str:
    decomposed = unicodedata.normalize("NFD", title.casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def checked(title: str, turns: Sequence[ScriptTurn]) -> tuple[str, tuple[ScriptTurn, ...]]:
    """The title and lines cleaned (spaces collapsed, invisible characters dropped), or why not.

    Args:
        title: the script's title.
        turns: its lines in order.

    Returns:
        The cleaned title and lines.

    Raises:
        ScriptError: empty or too long title or line, too few or too many
            lines, no line for the patient, an unknown speaker.
    """
    clean_title = visible_text(title)
    if not clean_title:
        raise ScriptError("Le script n'a pas de titre.", "Donnez-lui un titre.", "empty title")
    if len(clean_title) > MAX_TITLE:
        raise ScriptError(
            f"Le titre est trop long (plus de {MAX_TITLE} caractères).",
            "Raccourcissez-le.",
            f"title of {len(clean_title)} characters",
        )
    if not MIN_TURNS <= len(turns) <= MAX_TURNS:
        raise ScriptError(
            f"Un script a de {MIN_TURNS} à {MAX_TURNS} répliques ({len(turns)} ici).",
            f"Un dialogue de {SUGGESTED_TURNS[0]} à {SUGGESTED_TURNS[1]} répliques convient bien.",
            f"{len(turns)} turns",
        )
    cleaned: list[ScriptTurn] = []
    for number, turn in enumerate(turns, start=1):
        try:
            speaker = Speaker(turn.speaker)
        except ValueError as exc:
            raise ScriptError(
                f"On ne sait pas qui dit la réplique n° {number}.",
                "Choisissez le patient ou son interlocuteur.",
                f"turn {number}: speaker {turn.speaker!r:.40}",
            ) from exc
        text = visible_text(turn.text) if isinstance(turn.text, str) else ""
        if not any(c.isalnum() for c in text):
            raise ScriptError(
                f"La réplique n° {number} est vide.",
                "Écrivez-la ou supprimez-la.",
                f"turn {number}: empty",
            )
        if len(text) > MAX_TURN_TEXT:
            raise ScriptError(
                f"La réplique n° {number} est trop longue (plus de {MAX_TURN_TEXT} caractères).",
                "Coupez-la en deux répliques.",
                f"turn {number}: {len(text)} characters",
            )
        cleaned.append(ScriptTurn(speaker, text))
    if not any(t.speaker is Speaker.PATIENT for t in cleaned):
        raise ScriptError(
            "Le patient n'a aucune réplique dans ce script.",
            "Indiquez au moins une réplique que le patient dit.",
            "no patient turn",
        )
    return clean_title, tuple(cleaned)


def script_to_dict(script: Script) -> dict[str, object]:
    """JSON-ready form (title and lines; the id is local to one database)."""
    return {
        "title": script.title,
        "turns": [{"speaker": t.speaker.value, "text": t.text} for t in script.turns],
    }


def script_from_dict(data: object) -> Script:
    """Inverse of :func:`script_to_dict`, validated (id 0: not stored).

    Raises:
        ScriptError: not a script, or a script :func:`checked` refuses.
    """
    if not isinstance(data, dict):
        raise ScriptError("Un script est mal formé.", "", f"script {data!r:.80}")
    title, raw_turns = data.get("title"), data.get("turns")
    if not isinstance(title, str) or not isinstance(raw_turns, list):
        raise ScriptError("Un script est mal formé.", "", f"script {data!r:.80}")
    turns: list[ScriptTurn] = []
    for raw in raw_turns[: MAX_TURNS + 1]:  # one more than allowed: checked() says why
        if not isinstance(raw, dict) or not isinstance(raw.get("text"), str):
            raise ScriptError(
                f"Une réplique du script « {title[:MAX_TITLE]} » est mal formée.",
                "",
                f"turn {raw!r:.80}",
            )
        turns.append(ScriptTurn(raw.get("speaker"), raw["text"]))  # type: ignore[arg-type]
    clean_title, clean_turns = checked(title, turns)
    return Script(0, clean_title, clean_turns)


def bundled_examples() -> list[Script]:
    """The dialogues shipped with the app (``resources/scripts/examples.json``), id 0.

    Raises:
        ScriptError: the bundled file is damaged (a broken installation).
    """
    return list(_examples())


@functools.cache
def _examples() -> tuple[Script, ...]:
    path = resources_dir().joinpath(*EXAMPLES)
    data = json.loads(path.read_text(encoding="utf-8"))
    return tuple(script_from_dict(raw) for raw in data["scripts"])


class ScriptStore(Store):
    """Scripts the therapist wrote for a patient; archived ones keep their attempts."""

    def all(self, patient_id: int) -> list[Script]:
        """The patient's scripts that are not archived, by title."""
        with self._repository.connection("listing scripts") as db:
            found = db.execute(
                "SELECT id FROM scripts WHERE patient_id = ? AND archived_at IS NULL ORDER BY id",
                (patient_id,),
            ).fetchall()
        scripts = [self.get(int(r[0])) for r in found]
        # SQLite's NOCASE folds ASCII only: "À la pharmacie" would come after "Chez...".
        return sorted(scripts, key=lambda s: _sort_key(s.title))

    def get(self, script_id: int) -> Script:
        """One script, archived or not (its attempts stay in the charts).

        Raises:
            KeyError: unknown id.
        """
        with self._repository.connection("reading a script") as db:
            head = db.execute("SELECT title FROM scripts WHERE id = ?", (script_id,)).fetchone()
            if head is None:
                raise KeyError(f"no script with id {script_id!r}")
            turns = db.execute(
                "SELECT speaker, text FROM script_turns WHERE script_id = ? ORDER BY position",
                (script_id,),
            ).fetchall()
        return Script(
            script_id, str(head[0]), tuple(ScriptTurn(Speaker(s), str(t)) for s, t in turns)
        )

    def save(
        self,
        patient_id: int,
        title: str,
        turns: Sequence[ScriptTurn],
        script_id: int | None = None,
    ) -> int:
        """Create a script, or replace the title and lines of ``script_id``, in one transaction.

        Args:
            patient_id: whose script.
            title: shown to patient and therapist.
            turns: the lines in order (see :func:`checked`).
            script_id: the script to change; None to create one.

        Returns:
            The script's id.

        Raises:
            ScriptError: the title or lines are refused (French message).
            KeyError: unknown patient, or ``script_id`` is not this patient's.
        """
        clean_title, clean_turns = checked(title, turns)
        now = row_codec.to_db_time(self._repository.now())
        with self._repository.transaction("saving a script") as db:
            self._repository.patients.get(patient_id)
            if script_id is None:
                cursor = db.execute(
                    "INSERT INTO scripts (patient_id, title, created_at, updated_at)"
                    " VALUES (?, ?, ?, ?)",
                    (patient_id, clean_title, now, now),
                )
                script_id = int(cursor.lastrowid)  # type: ignore[arg-type]
            else:
                cursor = db.execute(
                    "UPDATE scripts SET title = ?, updated_at = ? WHERE id = ? AND patient_id = ?",
                    (clean_title, now, script_id, patient_id),
                )
                if not cursor.rowcount:
                    raise KeyError(f"no script {script_id} for patient {patient_id}")
                db.execute("DELETE FROM script_turns WHERE script_id = ?", (script_id,))
            db.conn.executemany(
                "INSERT INTO script_turns (script_id, position, speaker, text) VALUES (?, ?, ?, ?)",
                [
                    (script_id, position, turn.speaker.value, turn.text)
                    for position, turn in enumerate(clean_turns)
                ],
            )
        return script_id

    def archive(self, script_id: int) -> None:
        """Hide a script from the lists; its attempts and lines stay (archiving twice is fine).

        Raises:
            KeyError: unknown id.
        """
        with self._repository.transaction("archiving a script") as db:
            cursor = db.execute(
                "UPDATE scripts SET archived_at = COALESCE(archived_at, ?) WHERE id = ?",
                (row_codec.to_db_time(self._repository.now()), script_id),
            )
            if not cursor.rowcount:
                raise KeyError(f"no script with id {script_id!r}")
