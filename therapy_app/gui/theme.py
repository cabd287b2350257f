"""The patient-facing look: large type, high contrast, big buttons, one style sheet for the app."""

from __future__ import annotations

import logging

from PySide6.QtGui import QColor, QFont, QFontDatabase, QPalette
from PySide6.QtWidgets import QApplication

_LOGGER = logging.getLogger(__name__)

# Sizes: people with aphasia often have a right hemiplegia, visual field
# deficits and reading difficulties. Large type and large targets help all three.
BASE_POINT_SIZE = 18
LARGE_POINT_SIZE = 24
HUGE_POINT_SIZE = 32
BUTTON_MIN_HEIGHT = 64
RECORD_BUTTON_SIZE = 160

# Colours: dark text on white (contrast > 12:1); accents pass WCAG AA on white.
TEXT = "#111111"
BACKGROUND = "#ffffff"
SURFACE = "#f1f4f8"
ACCENT = "#0b4f9c"  # blue buttons, 8.6:1 with white text
ACCENT_DARK = "#083a73"
RECORD = "#b3261e"  # red record button, 6.5:1 with white text
SUCCESS = "#1b6e20"  # green "Bravo", 6.2:1 on white
ENCOURAGE = "#8a4b00"  # warm brown-orange for "Essayons encore" (not red: not a failure)
RESTORED = "#0b6b3a"  # restored words: green, underlined
CHANGED = "#0b4f9c"  # changed words: blue, underlined
MUTED = "#444444"
BORDER = "#5a6470"
# Focus (the amber ring was 1.6:1 on white). As in the GOV.UK design
# system, the focused control turns yellow inside a black ring: the ring stands
# out from any page colour (>= 3:1, WCAG 1.4.11) and the yellow from any fill.
FOCUS_RING = "#000000"  # 21:1 on white, 3.2:1 on the red record button
FOCUS_FILL = "#ffdd00"
FOCUS_TEXT = "#0b0c0c"  # 14:1 on the yellow
FOCUS_FIELD = "#fff7bf"  # a focused text field: pale yellow, the text stays black
# Disabled controls stay legible (they were 1.9:1): grey text at text contrast
# and a dashed grey border at >= 3:1 on the page.
DISABLED_TEXT = "#595959"  # 6:1 on DISABLED_FILL
DISABLED_FILL = "#ececec"
DISABLED_BORDER = "#767676"  # 4.5:1 on white

# Unicode symbols next to short words (DejaVu Sans has them all).
ICON_RECORD = "●"
ICON_STOP = "■"
ICON_PLAY = "▶"
ICON_REPLAY = "↻"
ICON_NEXT = "➜"
ICON_BACK = "←"
ICON_CHECK = "✔"
ICON_STAR = "★"
ICON_STAR_EMPTY = "☆"
ICON_PENCIL = "✎"
ICON_THERAPIST = "⚕"
ICON_ADD = "+"
# No emoji: they are missing from DejaVu Sans and would render as boxes.

FONT_FAMILIES = ("DejaVu Sans", "Segoe UI", "Helvetica Neue", "Arial")


def pick_font_family() -> str:
    """The first installed family of :data:`FONT_FAMILIES` (DejaVu on Linux)."""
    families = set(QFontDatabase.families())
    for family in FONT_FAMILIES:
        if family in families:
            return family
    _LOGGER.warning("none of %s installed; using the default font", FONT_FAMILIES)
    return QFont().family()


def relative_luminance(colour: str) -> float:
    """WCAG 2 relative luminance of ``colour`` ("#rrggbb", "white" or "black")."""
    value = QColor(colour)
    channels = []
    for c in (value.redF(), value.greenF(), value.blueF()):
        channels.append(c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4)
    red, green, blue = channels
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def contrast_ratio(first: str, second: str) -> float:
    """WCAG 2 contrast ratio of two colours (1 to 21; AA: 4.5 text, 3 components)."""
    lighter, darker = sorted((relative_luminance(first), relative_luminance(second)))[::-1]
    return (lighter + 0.05) / (darker + 0.05)


def style_sheet() -> str:
    """The application style sheet (the therapist area reads it too)."""
    return f"""
QWidget {{ font-size: {BASE_POINT_SIZE}pt; color: {TEXT}; }}
QMainWindow, QStackedWidget > QWidget {{ background: {BACKGROUND}; }}
QLabel[role="title"] {{ font-size: {LARGE_POINT_SIZE}pt; font-weight: bold; }}
QLabel[role="huge"] {{ font-size: {HUGE_POINT_SIZE}pt; font-weight: bold; }}
QLabel[role="muted"] {{ color: {MUTED}; }}
QLabel[role="status"] {{ font-size: {LARGE_POINT_SIZE}pt; color: {ACCENT_DARK}; }}
QLabel[role="error"] {{
    color: #7a0000; background: #fdecea; border: 2px solid #b3261e; border-radius: 10px;
}}
QLabel[role="notice"] {{
    color: {TEXT}; background: #fff4d6; border: 2px solid #b27a00; border-radius: 10px;
}}
QLabel[role="success"] {{ font-size: {HUGE_POINT_SIZE}pt; font-weight: bold; color: {SUCCESS}; }}
QLabel[role="encourage"] {{
    font-size: {HUGE_POINT_SIZE}pt; font-weight: bold; color: {ENCOURAGE};
}}
QFrame[role="card"] {{
    background: {SURFACE}; border: 2px solid #c9d1db; border-radius: 14px;
}}
QPushButton {{
    min-height: {BUTTON_MIN_HEIGHT}px; padding: 6px 22px; border-radius: 12px;
    background: {SURFACE}; border: 2px solid {BORDER}; font-size: {BASE_POINT_SIZE}pt;
}}
QPushButton:hover {{ background: #e2e8f0; }}
QPushButton[role="primary"] {{ background: {ACCENT}; color: white; border-color: {ACCENT_DARK}; }}
QPushButton[role="primary"]:hover {{ background: {ACCENT_DARK}; }}
QPushButton:checked {{ background: {ACCENT}; color: white; border-color: {ACCENT_DARK}; }}
QPushButton[role="choice"], QPushButton[role="exercise"], QPushButton[role="profile"] {{
    text-align: left; padding: 8px 20px; background: white; border: 3px solid {ACCENT};
}}
QPushButton[role="choice"] {{ min-height: 56px; padding: 4px 16px; }}
QPushButton[role="choice"]:hover, QPushButton[role="exercise"]:hover,
QPushButton[role="profile"]:hover {{ background: #e8f0fa; }}
QPushButton:focus, QPushButton[role="primary"]:focus, QPushButton:checked:focus {{
    border: 4px solid {FOCUS_RING}; background: {FOCUS_FILL}; color: {FOCUS_TEXT};
}}
QPushButton[role="choice"]:focus, QPushButton[role="exercise"]:focus,
QPushButton[role="profile"]:focus {{
    border: 5px solid {FOCUS_RING}; background: {FOCUS_FILL}; color: {FOCUS_TEXT};
}}
QPushButton:disabled, QPushButton[role="primary"]:disabled, QPushButton:checked:disabled,
QPushButton[role="exercise"]:disabled {{
    color: {DISABLED_TEXT}; background: {DISABLED_FILL};
    border: 2px dashed {DISABLED_BORDER};
}}
QPushButton[role="record"] {{
    background: {RECORD}; color: white; border: 6px solid {RECORD}; padding: 0px;
    min-width: {RECORD_BUTTON_SIZE - 12}px; max-width: {RECORD_BUTTON_SIZE - 12}px;
    min-height: {RECORD_BUTTON_SIZE - 12}px; max-height: {RECORD_BUTTON_SIZE - 12}px;
    border-radius: {RECORD_BUTTON_SIZE // 2}px; font-size: {LARGE_POINT_SIZE}pt;
    font-weight: bold;
}}
QPushButton[role="record"]:focus {{ border: 6px solid {FOCUS_RING}; }}
QPushButton[role="record"][recording="true"] {{ background: #5c0f0a; }}
QPushButton[role="record"]:disabled {{
    background: {DISABLED_FILL}; color: {DISABLED_TEXT}; border: 6px dashed {DISABLED_BORDER};
}}
QLineEdit {{
    min-height: 56px; font-size: {LARGE_POINT_SIZE}pt; padding: 4px 12px;
    border: 3px solid {BORDER}; border-radius: 10px; background: white;
}}
QLineEdit:focus {{ border: 4px solid {FOCUS_RING}; background: {FOCUS_FIELD}; }}
QProgressBar {{
    min-height: 36px; border: 2px solid {BORDER}; border-radius: 10px; text-align: center;
    background: white;
}}
QProgressBar::chunk {{ background: {ACCENT}; border-radius: 8px; }}
QScrollBar:vertical {{ width: 22px; }}
QFrame#header {{ background: {SURFACE}; border-bottom: 2px solid #c9d1db; }}
QFrame#header QPushButton {{ padding: 6px 14px; }}
"""


def apply_theme(app: QApplication) -> None:
    """Font, palette and style sheet for the whole application."""
    font = QFont(pick_font_family())
    font.setPointSize(BASE_POINT_SIZE)
    app.setFont(font)
    palette = app.palette()
    palette.setColor(QPalette.ColorRole.Window, QColor(BACKGROUND))
    palette.setColor(QPalette.ColorRole.WindowText, QColor(TEXT))
    palette.setColor(QPalette.ColorRole.Base, QColor("#ffffff"))
    palette.setColor(QPalette.ColorRole.Text, QColor(TEXT))
    palette.setColor(QPalette.ColorRole.Button, QColor(SURFACE))
    palette.setColor(QPalette.ColorRole.ButtonText, QColor(TEXT))
    palette.setColor(QPalette.ColorRole.Highlight, QColor(ACCENT))
    palette.setColor(QPalette.ColorRole.HighlightedText, QColor("#ffffff"))
    app.setPalette(palette)
    app.setStyleSheet(style_sheet())
