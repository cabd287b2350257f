"""Screenshots of the therapist screens render from the demo data, small enough to commit."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

pytest.importorskip("PySide6")

from PySide6.QtGui import QImage  # noqa: E402

from tools.therapist_screenshots import SIZE, save_screenshots  # noqa: E402

pytestmark = pytest.mark.gui

MAX_BYTES = 300 * 1024


def test_every_screen_is_written(qapp, tmp_path: Path) -> None:
    written = save_screenshots(tmp_path)
    names = {p.name for p in written}
    screens = {
        f"therapist_{name}.png"
        for name in (
            "first_run",
            "login",
            "history",
            "attempt",
            "charts",
            "exports",
            "program",
            "patients",
            "phrase_book",
            "scripts",
        )
    }
    assert screens <= names
    if shutil.which("pdftoppm"):
        assert "therapist_report_page1.png" in names
    for path in written:
        assert path.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
        assert path.stat().st_size < MAX_BYTES, path.name
        if path.name in screens:
            image = QImage(str(path))
            # A child's minimum size must not push the window past a laptop screen.
            assert (image.width(), image.height()) == SIZE, path.name
