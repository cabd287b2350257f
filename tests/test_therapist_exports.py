"""Exports tab: CSV and CHAT of the selected patient, PDF report with the charts for a period."""

from __future__ import annotations

import csv
import re
from dataclasses import replace
from datetime import date, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

pytest.importorskip("PySide6")

from therapist_fixtures import SIGNAL_TIMEOUT_MS, pdf_text  # noqa: E402

from therapy_app.exports import build_report_data  # noqa: E402
from therapy_app.exports.labels import CHART_METRICS  # noqa: E402
from therapy_app.gui.therapist.exports_panel import file_slug  # noqa: E402
from therapy_app.gui.therapist.report_pdf import REPORT_TITLE, write_report_pdf  # noqa: E402
from therapy_app.storage import SessionRepository  # noqa: E402

if TYPE_CHECKING:
    from therapist_fixtures import SeededHistory

    from therapy_app.gui.therapist import TherapistArea

pytestmark = pytest.mark.gui


def _period(repo: SessionRepository, patient_id: int) -> tuple[date, date]:
    sessions = repo.sessions.all(patient_id)
    return sessions[0].started_at.astimezone().date(), sessions[-1].started_at.astimezone().date()


def _pdf_pages(raw: bytes) -> int:
    # Page objects, not the /Pages tree node.
    return len(re.findall(rb"/Type\s*/Page(?![s\w])", raw))


def test_csv_export_of_the_selected_patient(
    qtbot, unlocked_area: TherapistArea, seeded_history: SeededHistory, tmp_path: Path
) -> None:
    path = tmp_path / "essais.csv"
    panel = unlocked_area.exports
    with qtbot.waitSignal(panel.export_finished, timeout=SIGNAL_TIMEOUT_MS) as blocker:
        panel.export_csv(path)
    assert blocker.args == ["csv", str(path)]
    with path.open(encoding="utf-8-sig", newline="") as handle:
        rows = list(csv.DictReader(handle, delimiter=";"))
    assert len(rows) == len(seeded_history.attempt_ids)
    assert {r["Patient"] for r in rows} == {"Jeanne Dupont"}
    assert "6 essai(s) exporté(s)" in panel.status.text()

    panel.csv_everyone.setChecked(True)
    with qtbot.waitSignal(panel.export_finished, timeout=SIGNAL_TIMEOUT_MS):
        panel.export_csv(path)
    with path.open(encoding="utf-8-sig", newline="") as handle:
        rows = list(csv.DictReader(handle, delimiter=";"))
    assert {r["Patient"] for r in rows} == {"Jeanne Dupont", "Paul Martin"}


def test_chat_export_writes_one_file_per_session(
    qtbot, unlocked_area: TherapistArea, seeded_history: SeededHistory, tmp_path: Path
) -> None:
    folder = tmp_path / "chat"
    panel = unlocked_area.exports
    panel.chat_media.setChecked(False)
    with qtbot.waitSignal(panel.export_finished, timeout=SIGNAL_TIMEOUT_MS):
        panel.export_chat(folder)
    files = sorted(folder.glob("*.cha"))
    assert len(files) == len(seeded_history.session_ids)
    assert not list(folder.glob("*.wav"))
    text = files[0].read_text(encoding="utf-8")
    assert text.startswith("@UTF8\n@Begin\n") and text.endswith("@End\n")
    assert text.count("\n*PAR:\t") == 2


def test_pdf_report_has_patient_headings_and_charts(
    qtbot,
    unlocked_area: TherapistArea,
    therapist_repo: SessionRepository,
    seeded_history: SeededHistory,
    tmp_path: Path,
) -> None:
    start, end = _period(therapist_repo, seeded_history.patient.id)
    panel = unlocked_area.exports
    panel.set_period(start, end)
    path = tmp_path / "rapport.pdf"
    with qtbot.waitSignal(panel.export_finished, timeout=SIGNAL_TIMEOUT_MS) as blocker:
        panel.export_pdf(path)
    assert blocker.args == ["pdf", str(path)]
    raw = path.read_bytes()
    assert raw.startswith(b"%PDF-") and raw.rstrip().endswith(b"%%EOF")
    assert _pdf_pages(raw) >= 1
    assert "Rapport de 2 page(s)" in panel.status.text()
    text = pdf_text(path)
    for expected in (
        REPORT_TITLE,
        "Patient : Jeanne Dupont",
        "Séances de la période",
        "Évolution",
        "Répétition de phrases",
        "Parole libre",
        *(metric.title for metric in CHART_METRICS),
    ):
        assert expected in text, expected
    assert "Paul Martin" not in text
    # One table row per session, dated.
    for session in therapist_repo.sessions.all(seeded_history.patient.id):
        assert session.started_at.astimezone().strftime("%d/%m/%Y %H:%M") in text


def test_pdf_for_an_empty_period_says_so(
    therapist_repo: SessionRepository, seeded_history: SeededHistory, tmp_path: Path, qtbot
) -> None:
    start, _ = _period(therapist_repo, seeded_history.patient.id)
    data = build_report_data(
        therapist_repo,
        seeded_history.patient.id,
        start - timedelta(days=30),
        start - timedelta(days=1),
    )
    path = tmp_path / "vide.pdf"
    assert write_report_pdf(data, path) == 2
    text = pdf_text(path)
    assert "Aucune séance sur cette période." in text
    assert "aucune donnée" in text


def test_period_ending_before_it_starts_is_refused(
    qtbot, unlocked_area: TherapistArea, tmp_path: Path
) -> None:
    panel = unlocked_area.exports
    panel.set_period(date(2025, 3, 10), date(2025, 3, 1))
    with qtbot.waitSignal(panel.export_failed, timeout=SIGNAL_TIMEOUT_MS) as blocker:
        panel.export_pdf(tmp_path / "x.pdf")
    assert blocker.args == ["La date de fin est avant la date de début."]
    assert not (tmp_path / "x.pdf").exists()


def test_unwritable_destination_gives_a_french_message(
    qtbot, unlocked_area: TherapistArea, tmp_path: Path
) -> None:
    panel = unlocked_area.exports
    with qtbot.waitSignal(panel.export_failed, timeout=SIGNAL_TIMEOUT_MS) as blocker:
        panel.export_csv(tmp_path / "absent" / "essais.csv")
    assert blocker.args[0].startswith("Impossible d'écrire le fichier")


def test_file_slug() -> None:
    assert file_slug("Jeanne Dupont") == "Jeanne_Dupont"
    assert file_slug("Zoé O'Neil / test") == "Zoé_O_Neil_test"
    assert file_slug("///") == "patient"


def test_long_history_continues_the_table_on_more_pages(
    therapist_repo: SessionRepository, seeded_history: SeededHistory, tmp_path: Path, qtbot
) -> None:
    start, end = _period(therapist_repo, seeded_history.patient.id)
    data = build_report_data(therapist_repo, seeded_history.patient.id, start, end)
    many = [
        replace(data.sessions[i % 3], session_id=100 + i, started_at=data.sessions[0].started_at)
        for i in range(90)
    ]
    path = tmp_path / "long.pdf"
    pages = write_report_pdf(replace(data, sessions=many), path)
    assert pages >= 4  # at least two pages of table, then the charts
    assert _pdf_pages(path.read_bytes()) == pages
    text = pdf_text(path)
    assert "Séances de la période (suite)" in text
    assert f"page {pages}" in text


def test_file_dialogs_open_in_documents_and_the_chat_folder_names_no_one(
    qtbot,
    unlocked_area: TherapistArea,
    seeded_history: SeededHistory,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from PySide6.QtWidgets import QFileDialog

    home = tmp_path / "home"
    (home / "Documents").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_DOCUMENTS_DIR", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    chosen = tmp_path / "cle-usb"
    chosen.mkdir()
    asked: list[tuple[str, str]] = []

    def pick_folder(parent, caption, folder, *args):  # noqa: ANN001, ANN202
        asked.append((caption, folder))
        return str(chosen)

    def save_as(parent, caption, suggested, *args):  # noqa: ANN001, ANN202
        asked.append((caption, suggested))
        return "", ""

    monkeypatch.setattr(QFileDialog, "getExistingDirectory", pick_folder)
    monkeypatch.setattr(QFileDialog, "getSaveFileName", save_as)
    panel = unlocked_area.exports
    panel.chat_media.setChecked(False)
    with qtbot.waitSignal(panel.export_finished, timeout=SIGNAL_TIMEOUT_MS) as blocker:
        panel.chat_button.click()
    # Not the bare home folder: Documents, the first time.
    assert asked[0][1] == str(home / "Documents")
    folder = Path(blocker.args[1])
    assert folder.parent == chosen
    # The transcripts are anonymised (PAR, patient<id>_…): so is their folder.
    patient = seeded_history.patient
    assert folder.name.startswith(f"patient{patient.id}_CHAT_")
    for part in patient.display_name.split():
        assert part.lower() not in folder.name.lower()
    assert list(folder.glob("*.cha"))

    # The next dialog opens where the therapist just wrote.
    panel.pdf_button.click()
    assert Path(asked[-1][1]).parent == chosen


def test_the_export_confirmation_is_seen_on_a_laptop_screen(
    qtbot, unlocked_area: TherapistArea, tmp_path: Path
) -> None:
    unlocked_area.resize(1366, 680)  # a 768-pixel screen less title bar and panel
    panel = unlocked_area.exports
    unlocked_area.tabs.setCurrentWidget(panel)
    with qtbot.waitSignal(panel.export_finished, timeout=SIGNAL_TIMEOUT_MS):
        panel.export_csv(tmp_path / "essais.csv")
    qtbot.waitUntil(panel.status.isVisible)
    # Not inside the scrolled boxes, and inside the visible page.
    assert not panel.scroll_area.isAncestorOf(panel.status)
    top = panel.status.mapTo(unlocked_area, panel.status.rect().topLeft()).y()
    assert 0 <= top and top + panel.status.height() <= unlocked_area.height()
    assert "exporté" in panel.status.text()


def test_qt_dialogs_speak_french(qapp) -> None:
    from PySide6.QtCore import QCoreApplication, QLocale

    from therapy_app.gui import app as gui_app

    previous = QLocale()
    try:
        assert gui_app.install_french(qapp)
        assert QCoreApplication.translate("QFileDialog", "&Save") == "&Enregistrer"
        assert QCoreApplication.translate("QFileDialog", "Look in:").startswith("Voir dans")
        assert QLocale().language() is QLocale.Language.French
    finally:
        for translator in gui_app._TRANSLATORS:
            qapp.removeTranslator(translator)
        gui_app._TRANSLATORS.clear()
        QLocale.setDefault(previous)
