"""CSV export of attempts: Excel-friendly format that parses back to the stored values."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import TYPE_CHECKING

from therapy_app.exports import CSV_HEADERS, export_attempts_csv
from therapy_app.exports.csv_export import format_cell
from therapy_app.storage import EXPORT_COLUMNS, SessionRepository

if TYPE_CHECKING:
    from therapist_fixtures import SeededHistory

pytest_plugins = ("therapist_fixtures",)


def _read(path: Path) -> list[dict[str, str]]:
    raw = path.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf"), "Excel needs the UTF-8 byte-order mark"
    with path.open(encoding="utf-8-sig", newline="") as handle:
        return list(csv.DictReader(handle, delimiter=";"))


def _number(text: str) -> float:
    return float(text.replace(",", "."))


def test_patient_export_parses_back(
    therapist_repo: SessionRepository, seeded_history: SeededHistory, tmp_path: Path
) -> None:
    path = tmp_path / "essais.csv"
    count = export_attempts_csv(therapist_repo, path, seeded_history.patient.id)
    rows = _read(path)
    expected = therapist_repo.export_rows(seeded_history.patient.id)
    assert count == len(rows) == len(expected) == len(seeded_history.attempt_ids)
    assert list(rows[0]) == list(CSV_HEADERS.values())
    assert b"\r\n" in path.read_bytes()
    for row, original in zip(rows, expected, strict=True):
        assert row["Patient"] == "Jeanne Dupont"
        assert int(row["N° essai"]) == original["attempt_id"]
        assert row["Transcription"] == original["transcript"]
        assert row["Cible"] == (original["target_text"] or "")
        assert row["Exercice"] in ("Répétition de phrases", "Parole libre")
        assert row["Réussite"] in ("0", "1", "")
        assert _number(row["Nombre de mots"]) == original["word_count"]
        if original["accuracy"] is not None:
            assert _number(row["Précision de la répétition"]) == original["accuracy"]
        assert abs(_number(row["Durée (s)"]) - original["duration_s"]) < 1e-9
    # The other patient's attempt stays out of this patient's file.
    assert all(row["Patient"] == "Jeanne Dupont" for row in rows)


def test_export_of_everyone_and_quoting(
    therapist_repo: SessionRepository, seeded_history: SeededHistory, tmp_path: Path
) -> None:
    first = seeded_history.attempt_ids[0]
    therapist_repo.edit_transcript(first, "transcript", 'le chat; dort "bien"', "claire")
    path = tmp_path / "tous.csv"
    export_attempts_csv(therapist_repo, path)
    rows = _read(path)
    assert {row["Patient"] for row in rows} == {"Jeanne Dupont", "Paul Martin"}
    edited = next(r for r in rows if int(r["N° essai"]) == seeded_history.attempt_ids[0])
    assert edited["Transcription"] == 'le chat; dort "bien"'
    assert edited["Transcription automatique d'origine"] == "chat dormir canapé"
    assert edited["Transcription corrigée"] == "1"


def test_cell_formats() -> None:
    assert format_cell("accuracy", 0.75) == "0,75"
    assert format_cell("success", True) == "1"
    assert format_cell("cue_level", None) == ""
    assert format_cell("kind", "completion") == "Complétion de phrases"
    assert len(format_cell("created_at", "2025-03-14T09:30:00.000000+00:00")) == 19
    assert len(CSV_HEADERS) == len(EXPORT_COLUMNS)
