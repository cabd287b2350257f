"""Progress per dialogue script: tries and successes of its patient lines, session by session."""

from __future__ import annotations

import logging
import unicodedata
from dataclasses import dataclass
from datetime import datetime

from therapy_app.storage.repository import SessionRepository
from therapy_app.storage.row_codec import from_db_time

_LOGGER = logging.getLogger(__name__)

EXAMPLES_TITLE = "Exemples de l'application"
"""What the bundled examples' tries are shown as (they have no script row: ``script_id`` NULL)."""


@dataclass(frozen=True)
class ScriptSessionStats:
    """One script practised in one session.

    Attributes:
        script_id: the script (None: the bundled examples, practised before the
            therapist gave the patient a script of their own).
        title: its title (an archived script keeps it).
        session_id: the session.
        started_at: when the session started (aware).
        tries: the tries at its patient lines.
        successes: the tries judged right.
        lines: the patient lines tried.
        lines_succeeded: those got right at least once (with or without help).
    """

    script_id: int | None
    title: str
    session_id: int
    started_at: datetime
    tries: int
    successes: int
    lines: int
    lines_succeeded: int

    @property
    def success_rate(self) -> float | None:
        """Successes over tries (None without a try)."""
        return self.successes / self.tries if self.tries else None


def title_key(title: str) -> str:
    """Sort key of a title in French order ("À la boulangerie" before "Chez le médecin")."""
    bare = unicodedata.normalize("NFKD", title)
    return "".join(c for c in bare if not unicodedata.combining(c)).casefold()


def _title(script_id: int | None, title: str | None) -> str:
    if title is not None:
        return str(title)
    # No row: the bundled examples, or a script deleted since (its tries stay).
    return EXAMPLES_TITLE if script_id is None else f"Script n° {script_id} (supprimé)"


def script_progress(repository: SessionRepository, patient_id: int) -> list[ScriptSessionStats]:
    """The patient's scripts, session by session (oldest first, then by title, the examples last).

    A session with an unreadable start time is left out (logged), as in the
    history: one damaged row must not hide the rest.
    """
    with repository.connection("reading the scripts' progress") as db:
        found = db.execute(
            """
            SELECT a.script_id, sc.title, s.id, s.started_at,
                   COUNT(a.id) AS tries,
                   COALESCE(SUM(a.success = 1), 0) AS successes,
                   COUNT(DISTINCT a.target_text) AS lines,
                   COUNT(DISTINCT CASE WHEN a.success = 1 THEN a.target_text END) AS won
            FROM attempts AS a
            JOIN sessions AS s ON s.id = a.session_id
            LEFT JOIN scripts AS sc ON sc.id = a.script_id
            WHERE s.patient_id = ? AND a.kind = 'script'
            GROUP BY a.script_id, s.id
            ORDER BY s.started_at, s.id
            """,
            (patient_id,),
        ).fetchall()
    out = []
    for script_id, title, session_id, started, tries, successes, lines, won in found:
        try:
            started_at = from_db_time(started)
        except ValueError:
            _LOGGER.error("skipping session %s: unreadable time %r", session_id, started)
            continue
        if started_at is None:
            continue
        out.append(
            ScriptSessionStats(
                script_id,
                _title(script_id, title),
                session_id,
                started_at,
                tries,
                successes,
                lines,
                won,
            )
        )
    # Within a session: by title in French order, the examples after the patient's own.
    position = {session: i for i, session in enumerate(dict.fromkeys(s.session_id for s in out))}
    return sorted(
        out,
        key=lambda s: (position[s.session_id], s.script_id is None, title_key(s.title)),
    )
