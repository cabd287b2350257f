"""Look of the therapist area: the app theme's colours and focus ring, denser sizes (14 pt)."""

from __future__ import annotations

import logging

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from therapy_app.gui import theme
from therapy_app.gui.theme import (
    ACCENT,
    ACCENT_DARK,
    BORDER,
    DISABLED_BORDER,
    DISABLED_FILL,
    DISABLED_TEXT,
    FOCUS_FIELD,
    FOCUS_FILL,
    FOCUS_RING,
    FOCUS_TEXT,
    MUTED,
    SUCCESS,
    SURFACE,
)

_LOGGER = logging.getLogger(__name__)

BASE_POINT_SIZE = 14
"""Therapists are not the patients: 14 pt is large enough and leaves room for tables
(the patient screens use the theme's 18 pt)."""
TITLE_POINT_SIZE = 20
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
    """The app theme's sheet followed by the therapist overrides."""
    return theme.style_sheet() + _STYLE_SHEET


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


def section_label(title: str) -> QLabel:
    """The title over one part of a panel."""
    label = QLabel(title)
    set_role(label, "section")
    return label


def flush_column() -> tuple[QWidget, QVBoxLayout]:
    """A widget and its vertical layout without margins, e.g. for one side of a splitter."""
    widget = QWidget()
    layout = QVBoxLayout(widget)
    layout.setContentsMargins(0, 0, 0, 0)
    return widget, layout


def status_label() -> QLabel:
    """A panel's status line for :func:`show_status`, hidden until it has something to say.

    Plain text: it shows names and paths the therapist typed or chose, never markup.
    """
    label = QLabel()
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.hide()
    return label


def show_status(label: QLabel, text: str, role: str = "muted") -> None:
    """A panel's status line: ``text`` in ``role`` (``muted``, ``error``...), hidden when empty."""
    set_role(label, role)
    label.setText(text)
    label.setVisible(bool(text))
