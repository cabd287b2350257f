"""PNG screenshots of every therapist screen and of the PDF report, from the demo data.

``python -m tools.therapist_screenshots docs/screenshots`` (offscreen
when there is no display); ``scripts/screenshots.py`` calls :func:`save_screenshots`.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

from PySide6.QtCore import QEventLoop, QTimer, SignalInstance
from PySide6.QtWidgets import QApplication

from therapy_app.domain.programs import Program, ProgramStep
from therapy_app.exports import build_report_data
from therapy_app.gui.therapist.area import (
    TAB_EXPORTS,
    TAB_LIST,
    TAB_PATIENT,
    TAB_PROGRAM,
    TAB_PROGRESS,
    TAB_SCRIPTS,
    TAB_VOICE,
    TherapistArea,
)
from therapy_app.gui.therapist.report_pdf import write_report_pdf
from therapy_app.model_store import sha256_file
from therapy_app.storage import SessionRepository
from therapy_app.storage.script_store import bundled_examples
from therapy_app.voice import store as voice_store
from therapy_app.voice.enrolment import add_enrolment, enrolment_items
from therapy_app.voice.model import VoiceDecision, VoiceFigures
from tools.demo_data import DEMO_PASSWORD, DEMO_USERNAME, DemoClock, hum, seed_demo

_LOGGER = logging.getLogger(__name__)

SIZE = (1366, 768)
"""A common clinic laptop screen: the screenshots show what fits on it."""
PREFIX = "therapist_"
_TIMEOUT_MS = 30_000
_PDF_DPI = 70
"""Rendering resolution of the report pages: readable, and well under 300 KB a page."""


@contextlib.contextmanager
def _waiting(signal: SignalInstance, timeout_ms: int = _TIMEOUT_MS) -> Iterator[None]:
    """Run the body, then spin the event loop until ``signal`` fires (at most ``timeout_ms``)."""
    fired: list[bool] = []
    loop = QEventLoop()

    def done(*_args: object) -> None:
        fired.append(True)
        loop.quit()

    signal.connect(done)
    try:
        yield
        if not fired:
            QTimer.singleShot(timeout_ms, loop.quit)
            loop.exec()
        if not fired:
            raise TimeoutError(f"no signal within {timeout_ms} ms while taking screenshots")
    finally:
        signal.disconnect(done)


def _settle() -> None:
    # Layouts and chart geometry are applied on posted events: let them run.
    for _ in range(3):
        QApplication.processEvents()


def _grab(area: TherapistArea, path: Path) -> Path:
    area.resize(*SIZE)
    _settle()
    if (area.width(), area.height()) != SIZE:
        # A child's minimum size won over ours: the screen would not fit a laptop.
        hint = area.minimumSizeHint()
        _LOGGER.warning(
            "%s: area is %dx%d (minimum %dx%d), not %dx%d",
            path.name, area.width(), area.height(), hint.width(), hint.height(), *SIZE,
        )  # fmt: skip
    if not area.grab().save(str(path)):
        raise OSError(f"cannot write {path}")
    _LOGGER.info("wrote %s (%d KB)", path, path.stat().st_size // 1024)
    return path


def _render_pdf_pages(pdf: Path, out_dir: Path) -> list[Path]:
    tool = shutil.which("pdftoppm")
    if tool is None:
        _LOGGER.warning("pdftoppm not found (apt-get install poppler-utils): no report PNG")
        return []
    stem = out_dir / f"{PREFIX}report"
    subprocess.run(
        [tool, "-png", "-r", str(_PDF_DPI), "-f", "1", "-l", "2", str(pdf), str(stem)],
        check=True,
        timeout=120,
    )
    pages = sorted(out_dir.glob(f"{PREFIX}report-*.png"))
    renamed = []
    for number, page in enumerate(pages, start=1):
        target = out_dir / f"{PREFIX}report_page{number}.png"
        page.replace(target)
        renamed.append(target)
    return renamed


def _demo_program(repository: SessionRepository, patient_id: int) -> None:
    """A program, a custom list and an archived-then-restored history for the demo patient."""
    repository.programs.save(
        Program(
            patient_id,
            (
                ProgramStep("repetition", 1),
                ProgramStep("completion", None, "repas"),
                ProgramStep("naming", 1, "animal"),
            ),
            items_per_session=8,
            speech_rate_percent=90,
        ),
        DEMO_USERNAME,
    )
    repository.programs.import_custom_items(
        patient_id,
        [
            ("sentence", "Ma fille s'appelle Julie.", "famille", ""),
            ("sentence", "J'habite rue des Lilas.", "maison", ""),
            ("word", "couscous", "repas", ""),
            ("word", "Médor", "famille", "chien"),
            ("word", "la pomme", "repas", ""),
        ],
        DEMO_USERNAME,
    )
    repository.patients.set_archived(patient_id, True, DEMO_USERNAME)
    repository.patients.set_archived(patient_id, False, DEMO_USERNAME)


def _demo_voice(repository: SessionRepository, patient_id: int, folder: Path) -> None:
    """A « Enregistrer la voix » session and an adopted personal model, with invented figures.

    The recordings are the demo's hums and the adapter a placeholder file: the
    screenshot shows the tab, not a real adaptation (that takes minutes and the
    voice pack).
    """
    for number, text in enumerate(enrolment_items(30)):
        clip = hum(1.2 + 0.1 * (number % 5), seed=9000 + number)
        add_enrolment(repository, patient_id, clip, text, accepted=number % 7 != 3)
    adapter = folder / "demo-adapter.npz"
    adapter.write_bytes(b"demo adapter, not a model\n")
    decision = VoiceDecision(
        adopted=True,
        reason="Le modèle personnel reconnaît mieux ce patient : 31 % de mots mal "
        "reconnus au lieu de 47 %.",
        generic=VoiceFigures(wer=0.47, words_right=0.52, items=9, verdict_true_accept=0.67),
        personal=VoiceFigures(wer=0.31, words_right=0.71, items=9, verdict_true_accept=0.78),
        train_items=36,
        held_out_items=9,
        minutes=18.4,
        created_at=repository.now().isoformat(timespec="seconds"),
        adapter_sha256=sha256_file(adapter),
    )
    voice_store.save_decision(repository.data_dir, patient_id, decision, adapter)


def save_screenshots(out_dir: Path) -> list[Path]:
    """Write ``therapist_*.png`` for each screen into ``out_dir``.

    Needs a ``QApplication`` (one is created when there is none). Seeds the
    demo data into a temporary folder; nothing of the user's data is read.

    Returns:
        The files written.
    """
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    app = QApplication.instance() or QApplication(sys.argv[:1])
    written: list[Path] = []
    with tempfile.TemporaryDirectory(prefix="therapist-shots-") as tmp:
        clock = DemoClock()
        repository = SessionRepository(Path(tmp), clock=clock)
        demo = seed_demo(repository, clock, with_account=False)
        area = TherapistArea(repository)
        try:
            area.resize(*SIZE)
            area.show()
            with _waiting(area.login.mode_changed):
                pass
            area.login.username.setText(DEMO_USERNAME)
            area.login.password.setText(DEMO_PASSWORD)
            area.login.confirmation.setText("demo")
            with _waiting(area.login.message_shown):
                area.login.submit()
            written.append(_grab(area, out_dir / f"{PREFIX}first_run.png"))

            repository.accounts.create(DEMO_USERNAME, DEMO_PASSWORD)
            with _waiting(area.login.mode_changed):
                area.login.refresh()
            area.login.username.setText(DEMO_USERNAME)
            area.login.password.setText("mauvais-mot")
            with _waiting(area.login.message_shown):
                area.login.submit()
            with _waiting(area.login.message_shown):
                pass  # "Vérification…" first, then the verdict
            area.login.password.setText(DEMO_PASSWORD[:9])
            written.append(_grab(area, out_dir / f"{PREFIX}login.png"))

            area.login.password.setText(DEMO_PASSWORD)
            with _waiting(area.history.attempts_loaded):
                area.login.submit()
            written.append(_grab(area, out_dir / f"{PREFIX}history.png"))

            with _waiting(area.detail.attempt_loaded):
                area.open_attempt(demo.edited_attempt_id)
            written.append(_grab(area, out_dir / f"{PREFIX}attempt.png"))

            area.tabs.setCurrentIndex(TAB_PROGRESS)
            with _waiting(area.progress.charts_updated):
                area.progress.reload()
            written.append(_grab(area, out_dir / f"{PREFIX}charts.png"))

            area.tabs.setCurrentIndex(TAB_EXPORTS)
            start = demo.start.date()
            end = (demo.end + timedelta(days=1)).date()
            area.exports.set_period(start, end)
            written.append(_grab(area, out_dir / f"{PREFIX}exports.png"))

            _demo_program(repository, demo.patient.id)
            area.select_patient(demo.patient.id)
            area.tabs.setCurrentIndex(TAB_PROGRAM)
            with _waiting(area.custom_lists.items_loaded):
                area.custom_lists.reload()
            with _waiting(area.program.program_loaded):
                area.program.set_patient(repository.patients.get(demo.patient.id))
            written.append(_grab(area, out_dir / f"{PREFIX}program.png"))

            area.tabs.setCurrentIndex(TAB_PATIENT)
            with _waiting(area.patient_panel.changes_loaded):
                area.patient_panel.set_patient(repository.patients.get(demo.patient.id))
            area.patient_panel.ask_delete()
            written.append(_grab(area, out_dir / f"{PREFIX}patients.png"))
            area.patient_panel.set_patient(repository.patients.get(demo.patient.id))

            # « Ses mots »: the custom list and, beside it, the phrase book with its sources.
            patient = repository.patients.get(demo.patient.id)
            with _waiting(area.custom_lists.phrase_book.entries_loaded):
                area.tabs.setCurrentIndex(TAB_LIST)
                area.custom_lists.phrase_book.set_patient(patient)
            written.append(_grab(area, out_dir / f"{PREFIX}phrase_book.png"))

            # « Scripts »: one bundled dialogue given to the patient.
            example = bundled_examples()[0]
            repository.scripts.save(patient.id, example.title, list(example.turns))
            with _waiting(area.scripts.scripts_loaded):
                area.tabs.setCurrentIndex(TAB_SCRIPTS)
                area.scripts.set_patient(patient)
            written.append(_grab(area, out_dir / f"{PREFIX}scripts.png"))

            _demo_voice(repository, demo.patient.id, Path(tmp))
            with _waiting(area.voice.status_loaded):
                area.tabs.setCurrentIndex(TAB_VOICE)
            written.append(_grab(area, out_dir / f"{PREFIX}voice.png"))

            pdf = Path(tmp) / "rapport.pdf"
            write_report_pdf(build_report_data(repository, demo.patient.id, start, end), pdf)
            written += _render_pdf_pages(pdf, out_dir)
        finally:
            area.lock()
            area.runner.shutdown()
            area.deleteLater()
            repository.close()
            _settle()
    del app
    return written


def main(argv: list[str] | None = None) -> int:
    """Command line: ``python -m tools.therapist_screenshots [OUT_DIR]``."""
    args = sys.argv[1:] if argv is None else argv
    if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    out_dir = Path(args[0]) if args else Path("docs/screenshots")
    for path in save_screenshots(out_dir):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
