"""Look of the therapist area: the app theme's colours and focus ring, denser sizes (14 pt)."""

from __future__ import annotations

import importlib
import logging
from types import ModuleType

from PySide6.QtGui import QFont
from PySide6.QtWidgets import QLabel, QWidget

_LOGGER = logging.getLogger(__name__)


def _theme() -> ModuleType | None:
    # The shell's theme module may be missing from a trimmed build: the area
    # then stands alone with the same colours written here.
    try:
        return importlib.import_module("therapy_app.gui.theme")
    except ImportError:
        return None


_THEME = _theme()

BASE_POINT_SIZE = 14
"""Therapists are not the patients: 14 pt is large enough and leaves room for tables
(the patient screens use the theme's 18 pt)."""
TITLE_POINT_SIZE = 20
ACCENT: str = getattr(_THEME, "ACCENT", "#0b4f9c")
ACCENT_DARK: str = getattr(_THEME, "ACCENT_DARK", "#083a73")
FOCUS_RING: str = getattr(_THEME, "FOCUS_RING", "#000000")
FOCUS_FILL: str = getattr(_THEME, "FOCUS_FILL", "#ffdd00")
FOCUS_TEXT: str = getattr(_THEME, "FOCUS_TEXT", "#0b0c0c")
FOCUS_FIELD: str = getattr(_THEME, "FOCUS_FIELD", "#fff7bf")
DISABLED_TEXT: str = getattr(_THEME, "DISABLED_TEXT", "#595959")
DISABLED_FILL: str = getattr(_THEME, "DISABLED_FILL", "#ececec")
DISABLED_BORDER: str = getattr(_THEME, "DISABLED_BORDER", "#767676")
BORDER: str = getattr(_THEME, "BORDER", "#5a6470")
SURFACE: str = getattr(_THEME, "SURFACE", "#f1f4f8")
SUCCESS: str = getattr(_THEME, "SUCCESS", "#1b6e20")
MUTED: str = getattr(_THEME, "MUTED", "#444444")
ERROR = "#7a0000"
SERIES_COLOURS = (ACCENT, "#2e7d32", "#c45100", "#6a1b9a", "#00695c", "#8d3b00")
"""One colour per progress chart, in ``exports.labels.CHART_METRICS`` order."""

# Rules after the theme's: the same selectors with the therapist sizes win, the
# theme's colours, borders and focus ring stay. The size sits in the sheet, not
# only in setFont(): a rule that sets any font property would otherwise fall
# back to the application's default size.
_STYLE_SHEET = f"""
QWidget {{ font-size: {BASE_POINT_SIZE}pt; }}
QLabel[role="title"] {{ font-size: {TITLE_POINT_SIZE}pt; font-weight: bold; }}
QLabel[role="section"] {{ font-size: {BASE_POINT_SIZE + 2}pt; font-weight: bold; }}
QLabel[role="muted"] {{ color: {MUTED}; }}
QLabel[role="error"] {{
    color: {ERROR}; font-weight: bold; background: #fdecea; border: 2px solid #b3261e;
    border-radius: 8px; padding: 6px 10px;
}}
QLabel[role="success"] {{ font-size: {BASE_POINT_SIZE}pt; color: {SUCCESS}; font-weight: bold; }}
QPushButton {{
    min-height: 36px; padding: 4px 16px; border-radius: 8px; font-size: {BASE_POINT_SIZE}pt;
    background: {SURFACE}; border: 2px solid {BORDER};
}}
QPushButton:hover {{ background: #e2e8f0; }}
QPushButton[role="primary"] {{ background: {ACCENT}; color: white; border-color: {ACCENT_DARK}; }}
QPushButton[role="primary"]:hover {{ background: {ACCENT_DARK}; }}
QPushButton:focus, QPushButton[role="primary"]:focus {{
    border: 3px solid {FOCUS_RING}; background: {FOCUS_FILL}; color: {FOCUS_TEXT};
}}
QPushButton:disabled, QPushButton[role="primary"]:disabled {{
    color: {DISABLED_TEXT}; background: {DISABLED_FILL}; border: 2px dashed {DISABLED_BORDER};
}}
QLineEdit {{
    min-height: 32px; font-size: {BASE_POINT_SIZE}pt; padding: 2px 8px;
    border: 2px solid {BORDER}; border-radius: 6px; background: white;
}}
QLineEdit:focus {{ border: 3px solid {FOCUS_RING}; background: {FOCUS_FIELD}; }}
QTableView {{ gridline-color: #d0d0d0; }}
QHeaderView::section {{ font-size: {BASE_POINT_SIZE - 2}pt; font-weight: bold; padding: 3px; }}
QCheckBox::indicator {{ width: 20px; height: 20px; }}
QGroupBox {{ font-weight: bold; }}
QGroupBox QWidget {{ font-weight: normal; }}
"""


def style_sheet() -> str:
    """The theme's sheet (when there is one) followed by the therapist overrides."""
    base = ""
    if _THEME is not None and callable(getattr(_THEME, "style_sheet", None)):
        base = _THEME.style_sheet()
    return base + _STYLE_SHEET


def apply_style(widget: QWidget) -> None:
    """Give the therapist area its font size and style sheet (children inherit both)."""
    font = QFont(widget.font())
    font.setPointSize(BASE_POINT_SIZE)
    widget.setFont(font)
    widget.setStyleSheet(style_sheet())


def set_role(widget: QWidget, role: str) -> None:
    """Tag a widget for the style sheet (``title``, ``section``, ``muted``, ``error``...)."""
    widget.setProperty("role", role)
    widget.style().unpolish(widget)
    widget.style().polish(widget)


def show_status(label: QLabel, text: str, role: str = "muted") -> None:
    """A panel's status line: ``text`` in ``role`` (``muted``, ``error``...), hidden when empty."""
    set_role(label, role)
    label.setText(text)
    label.setVisible(bool(text))
