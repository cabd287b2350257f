"""Attempts as a CSV file that French Excel and LibreOffice open without an import wizard.

Format (chosen for a French spreadsheet opened by double-click):

* UTF-8 with a byte-order mark: without it Excel reads the accents as Latin-1.
* ``;`` between fields and ``,`` as the decimal separator: the French Excel
  list and decimal separators, so numbers land in cells as numbers. R reads
  it with ``read.csv2``, pandas with ``sep=";", decimal=","``.
* One header line of French column names (:data:`CSV_HEADERS`, in the order of
  ``storage.EXPORT_COLUMNS``); booleans as 1/0; empty field for no value;
  times in local time as ``AAAA-MM-JJ HH:MM:SS``; exercise kinds by their
  French names (:mod:`therapy_app.exports.labels`).
* Lines end with CRLF (RFC 4180), fields quoted only when needed.
* Text that a spreadsheet would run as a formula (starting with ``=``, ``+``,
  ``-``, ``@``, a tab or a carriage return) gets a leading ``'``, as OWASP
  recommends against CSV injection: patient names are typed on an
  unauthenticated screen and transcripts come from the microphone. Numbers are
  never escaped, so ``-0,5`` stays a number.
"""

from __future__ import annotations

import csv
import logging
from collections.abc import Iterable, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from therapy_app.exports.files import atomic_text_writer
from therapy_app.exports.labels import exercise_label
from therapy_app.storage import EXPORT_COLUMNS, SessionRepository

_LOGGER = logging.getLogger(__name__)

CSV_DELIMITER = ";"
CSV_DECIMAL = ","
CSV_ENCODING = "utf-8-sig"
"""Python's name for UTF-8 with a byte-order mark."""

CSV_HEADERS: dict[str, str] = {
    "patient_id": "N° patient",
    "patient_name": "Patient",
    "session_id": "N° séance",
    "exercise_kind": "Exercice",
    "session_started_at": "Début de la séance",
    "attempt_id": "N° essai",
    "created_at": "Date de l'essai",
    "kind": "Type d'essai",
    "target_text": "Cible",
    "script_title": "Script",
    "transcript": "Transcription",
    "raw_transcript": "Transcription automatique d'origine",
    "transcript_edited": "Transcription corrigée",
    "chosen_sentence": "Phrase choisie",
    "repetition_transcript": "Transcription de la répétition",
    "word_count": "Nombre de mots",
    "function_word_ratio": "Part de mots grammaticaux",
    "verb_count": "Nombre de verbes",
    "words_per_minute": "Mots par minute",
    "pause_ratio": "Part de pauses",
    "wer": "Taux d'erreur de mots",
    "accuracy": "Précision de la répétition",
    "target_score": "Score de la cible",
    "success": "Réussite",
    "cue_level": "Niveau d'indiçage",
    "duration_s": "Durée (s)",
    "recording_path": "Enregistrement",
    "recording_sha256": "Empreinte SHA-256",
    "provider": "Moteur de calcul",
}
"""Column key -> French header, in export order."""
assert tuple(CSV_HEADERS) == EXPORT_COLUMNS, "keep CSV_HEADERS in step with EXPORT_COLUMNS"

FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
"""First characters that make Excel or LibreOffice evaluate a cell (OWASP CSV injection)."""
_FULL_WIDTH_PREFIXES = ("＝", "＋", "－", "＠")

_TIME_COLUMNS = frozenset({"session_started_at", "created_at"})
_KIND_COLUMNS = frozenset({"exercise_kind", "kind"})


def format_cell(column: str, value: Any) -> str:
    """The text written for one value (see the module docstring for the rules)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "1" if value else "0"
    if column in _TIME_COLUMNS:
        try:
            moment = datetime.fromisoformat(value) if isinstance(value, str) else value
            return moment.astimezone().strftime("%Y-%m-%d %H:%M:%S")
        except (ValueError, TypeError, AttributeError):
            # A damaged time is exported as stored (escaped below): one bad row
            # must not make the whole export fail.
            pass
    if column in _KIND_COLUMNS:
        return exercise_label(str(value))
    if isinstance(value, float):
        # repr keeps every digit (round trip); only the separator changes.
        return repr(value).replace(".", CSV_DECIMAL)
    if isinstance(value, int):
        return str(value)
    return escape_formula(str(value))


def escape_formula(text: str) -> str:
    """``text`` with a leading ``'`` when a spreadsheet would read it as a formula.

    The apostrophe is what OWASP recommends: Excel and LibreOffice then show
    the cell as text. Full-width variants (``＝``, ``＋``…) are escaped too,
    as some Excel locales treat them as formulas.
    """
    stripped = text.lstrip(" ")
    first = stripped[:1]
    if first and (first in FORMULA_PREFIXES or first in _FULL_WIDTH_PREFIXES):
        return "'" + text
    return text


def write_attempts_csv(rows: Iterable[Mapping[str, Any]], path: Path) -> int:
    """Write export rows (``HistoryStore.export_rows``) to ``path``, atomically.

    Args:
        rows: dicts keyed by ``storage.EXPORT_COLUMNS``.
        path: the ``.csv`` file to create or replace.

    Returns:
        The number of attempts written.

    Raises:
        OSError: the folder cannot be written.
    """
    count = 0
    with atomic_text_writer(Path(path), encoding=CSV_ENCODING) as handle:
        writer = csv.writer(handle, delimiter=CSV_DELIMITER, lineterminator="\r\n")
        writer.writerow(CSV_HEADERS.values())
        for row in rows:
            writer.writerow(format_cell(col, row.get(col)) for col in EXPORT_COLUMNS)
            count += 1
    _LOGGER.info("wrote %d attempts to %s", count, path)
    return count


def export_attempts_csv(
    repository: SessionRepository, path: Path, patient_id: int | None = None
) -> int:
    """Export the attempts of one patient (or of everyone) to a CSV file.

    Returns:
        The number of attempts written.
    """
    return write_attempts_csv(repository.history.export_rows(patient_id), path)
