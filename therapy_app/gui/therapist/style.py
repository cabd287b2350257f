"""Look of the therapist area: large type, the app theme when present, a few local rules."""

from __future__ import annotations

import importlib
import logging

from PySide6.QtGui import QFont
from PySide6.QtWidgets import QWidget

_LOGGER = logging.getLogger(__name__)

BASE_POINT_SIZE = 14
"""Therapists are not the patients: 14 pt is large enough and leaves room for tables."""
TITLE_POINT_SIZE = 20
ACCENT = "#1f5fa8"
ERROR = "#b00020"
MUTED = "#555555"
SERIES_COLOURS = ("#1f5fa8", "#2e7d32", "#c45100", "#6a1b9a")
"""One colour per progress chart, in ``exports.labels.CHART_METRICS`` order."""

# The size goes in the sheet, not only setFont(): a sheet rule that sets any font
# property (bold) would otherwise fall back to the application's default size.
_STYLE_SHEET = f"""
QWidget {{ font-size: {BASE_POINT_SIZE}pt; }}
QLabel[role="title"] {{ font-size: {TITLE_POINT_SIZE}pt; font-weight: bold; }}
QLabel[role="section"] {{ font-size: {BASE_POINT_SIZE + 2}pt; font-weight: bold; }}
QLabel[role="muted"] {{ color: {MUTED}; }}
QLabel[role="error"] {{ color: {ERROR}; font-weight: bold; }}
QLabel[role="success"] {{ color: #2e7d32; font-weight: bold; }}
QPushButton {{ padding: 6px 14px; }}
QPushButton[role="primary"] {{
    background: {ACCENT}; color: white; border: none; border-radius: 6px; padding: 8px 18px;
}}
QPushButton[role="primary"]:disabled {{ background: #9bb3d1; }}
QTableView {{ gridline-color: #d0d0d0; }}
QHeaderView::section {{ font-size: {BASE_POINT_SIZE - 2}pt; font-weight: bold; padding: 3px; }}
QCheckBox::indicator {{ width: 20px; height: 20px; }}
QGroupBox {{ font-weight: bold; }}
QGroupBox QWidget {{ font-weight: normal; }}
"""


def _app_theme_sheet() -> str:
    # The shell's theme module may not exist yet (or ever, in a trimmed build):
    # use its style sheet when it offers one, else stand alone.
    try:
        theme = importlib.import_module("therapy_app.gui.theme")
    except ImportError:
        return ""
    for name in ("style_sheet", "stylesheet", "STYLE_SHEET", "STYLESHEET"):
        value = getattr(theme, name, None)
        if callable(value):
            try:
                value = value()
            except TypeError:
                continue
        if isinstance(value, str):
            return value
    return ""


def apply_style(widget: QWidget) -> None:
    """Give the therapist area its font size and style sheet (children inherit both)."""
    font = QFont(widget.font())
    font.setPointSize(BASE_POINT_SIZE)
    widget.setFont(font)
    widget.setStyleSheet(_app_theme_sheet() + _STYLE_SHEET)


def set_role(widget: QWidget, role: str) -> None:
    """Tag a widget for the style sheet (``title``, ``section``, ``muted``, ``error``...)."""
    widget.setProperty("role", role)
    widget.style().unpolish(widget)
    widget.style().polish(widget)
