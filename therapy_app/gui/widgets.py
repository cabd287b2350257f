"""Small reusable widgets: big buttons, elided labels, avatar, level meter, stars, banner."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPaintEvent
from PySide6.QtWidgets import (
    QAbstractScrollArea,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QLabel,
    QPushButton,
    QSizePolicy,
    QWidget,
)

from therapy_app.gui import theme

DIGIT_KEYS: dict[int, tuple[Qt.Key, ...]] = {
    1: (Qt.Key.Key_1, Qt.Key.Key_Ampersand),
    2: (Qt.Key.Key_2, Qt.Key.Key_Eacute),
    3: (Qt.Key.Key_3, Qt.Key.Key_QuoteDbl),
    4: (Qt.Key.Key_4, Qt.Key.Key_Apostrophe),
    5: (Qt.Key.Key_5, Qt.Key.Key_ParenLeft),
    6: (Qt.Key.Key_6, Qt.Key.Key_Minus),
    7: (Qt.Key.Key_7, Qt.Key.Key_Egrave),
    8: (Qt.Key.Key_8, Qt.Key.Key_Underscore),
    9: (Qt.Key.Key_9, Qt.Key.Key_Ccedilla),
}
"""The keys of 1..9: on a French AZERTY keyboard the top row gives & é " ' ( - è _ ç
without Shift (the fifth exercise, the patient's dialogues)."""


def set_role(widget: QWidget, role: str) -> None:
    """Give ``widget`` a style-sheet role and re-apply the sheet."""
    widget.setProperty("role", role)
    widget.style().unpolish(widget)
    widget.style().polish(widget)


def button_text(icon: str, text: str, key: str = "") -> str:
    """ "↻  Réécouter  (R)": symbol, word and the key that does the same."""
    shown = f"{icon}  {text}" if icon else text
    return f"{shown}  ({key})" if key else shown


def big_button(
    icon: str, text: str, role: str = "", tooltip: str = "", key: str = ""
) -> QPushButton:
    """A button with a symbol next to a short word; Enter clicks it when focused.

    Args:
        icon: a symbol shown first (may be empty).
        text: the word, also the accessible name.
        role: the style-sheet role.
        tooltip: the hover text.
        key: the keyboard key doing the same, shown on the button ("R", "Échap").
    """
    button = QPushButton(button_text(icon, text, key))
    button.setAutoDefault(True)  # Enter on a focused button clicks it (no dialog needed)
    button.setMinimumHeight(theme.BUTTON_MIN_HEIGHT)
    button.setCursor(Qt.CursorShape.PointingHandCursor)
    button.setAccessibleName(text)
    if tooltip:
        button.setToolTip(tooltip)
    if role:
        set_role(button, role)
    return button


def label(text: str = "", role: str = "", wrap: bool = True) -> QLabel:
    """A label with a style-sheet role, word-wrapped by default."""
    widget = QLabel(text)
    widget.setWordWrap(wrap)
    widget.setTextFormat(Qt.TextFormat.PlainText)
    if role:
        set_role(widget, role)
    return widget


def written_cue() -> QLabel:
    """The written cue under a sentence to say ("J_ v_ _ _"), hidden until a cue shows it."""
    widget = label("", "title")
    widget.setAlignment(Qt.AlignmentFlag.AlignCenter)
    widget.setStyleSheet(f"color: {theme.ACCENT}; letter-spacing: 1px;")
    widget.hide()
    return widget


def show_written_cue(widget: QLabel, level: int, display: str) -> None:
    """Show a cue's written form from level 2 (the first levels are spoken only)."""
    widget.setText(display if level >= 2 else "")
    widget.setVisible(level >= 2)


class ElidedLabel(QLabel):
    """One line of plain text drawn cut with "…" when space is short; whole in the tooltip.

    Its minimum width does not depend on the text, so a long patient name
    ("Marie-Thérèse de la Fontaine-Dupont-Lefebvre") cannot widen the window.
    ``text()`` stays the whole text; only the drawing is cut.

    Args:
        text: the full text.
        max_width: the widest it asks for, in pixels.
        role: the style-sheet role.
    """

    def __init__(
        self, text: str = "", max_width: int = 360, role: str = "", parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self._max_width = max_width
        self.setTextFormat(Qt.TextFormat.PlainText)  # typed by anyone: never rich text
        if role:
            set_role(self, role)
        self.set_full_text(text)

    def set_full_text(self, text: str) -> None:
        """Show ``text`` (cut to the width the layout gives), whole in the tooltip."""
        self.setText(text)
        self.setToolTip(text)
        self.setAccessibleName(text)
        self.updateGeometry()

    def displayed_text(self) -> str:
        """What is drawn at the current width."""
        return self.fontMetrics().elidedText(
            self.text(), Qt.TextElideMode.ElideRight, max(self.contentsRect().width(), 0)
        )

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt API
        hint = super().sizeHint()
        return QSize(min(hint.width(), self._max_width), hint.height())

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt API
        # Room for a few letters and the ellipsis, whatever the text.
        width = self.fontMetrics().horizontalAdvance("Mmm…") + 4
        hint = super().minimumSizeHint()
        return QSize(min(width, hint.width()), hint.height())

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt API
        painter = QPainter(self)
        painter.setPen(self.palette().color(self.foregroundRole()))
        painter.setFont(self.font())
        painter.drawText(
            self.contentsRect(),
            int(self.alignment() | Qt.AlignmentFlag.AlignVCenter),
            self.displayed_text(),
        )


class Avatar(QWidget):
    """A coloured circle with the patient's initials.

    Args:
        initials: one to three letters.
        colour: "#rrggbb" background.
        size: diameter in pixels.
    """

    def __init__(self, initials: str, colour: str, size: int = 72, parent: QWidget | None = None):
        super().__init__(parent)
        self.initials = initials
        self.colour = colour
        self._size = size
        self.setFixedSize(size, size)
        self.setAccessibleName(f"Initiales {initials}")

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt API
        return QSize(self._size, self._size)

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt API
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setBrush(QColor(self.colour))
        painter.setPen(Qt.PenStyle.NoPen)
        painter.drawEllipse(QRectF(1, 1, self._size - 2, self._size - 2))
        font = QFont(self.font())
        font.setPixelSize(int(self._size * 0.38))
        font.setBold(True)
        painter.setFont(font)
        painter.setPen(QColor("white"))
        painter.drawText(self.rect(), Qt.AlignmentFlag.AlignCenter, self.initials)


class LevelMeter(QWidget):
    """Horizontal bar of the microphone level (0..1), green to amber, with a peak hold."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._level = 0.0
        self._peak = 0.0
        self.setMinimumSize(320, 36)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setAccessibleName("Niveau du micro")

    @property
    def level(self) -> float:
        """Last level shown."""
        return self._level

    def set_level(self, level: float) -> None:
        """Show ``level`` (peak amplitude 0..1; shown on a square-root scale so speech fills it)."""
        self._level = max(0.0, min(1.0, level))
        self._peak = max(self._level, self._peak * 0.9)
        self.update()

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt API
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        rect = QRectF(self.rect()).adjusted(1, 1, -1, -1)
        painter.setPen(QColor(theme.BORDER))
        painter.setBrush(QColor("white"))
        painter.drawRoundedRect(rect, 8, 8)
        fill = rect.adjusted(3, 3, -3, -3)
        shown = self._level**0.5
        if shown > 0.01:
            fill.setWidth(fill.width() * shown)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(QColor("#2e7d32" if shown < 0.85 else "#c77700"))
            painter.drawRoundedRect(fill, 6, 6)
        peak_x = rect.left() + 3 + (rect.width() - 6) * self._peak**0.5
        if self._peak > 0.01:
            painter.setPen(QColor(theme.TEXT))
            painter.drawLine(int(peak_x), int(rect.top() + 4), int(peak_x), int(rect.bottom() - 4))


class Stars(QLabel):
    """Zero to three stars, as text (★☆), large and golden."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setStyleSheet(f"font-size: {theme.HUGE_POINT_SIZE + 4}pt; color: #c98a00;")
        self.set_count(0)

    def set_count(self, count: int) -> None:
        """Show ``count`` filled stars out of 3."""
        count = max(0, min(3, count))
        self.count = count
        self.setText(theme.ICON_STAR * count + theme.ICON_STAR_EMPTY * (3 - count))
        self.setAccessibleName(f"{count} étoile{'s' if count > 1 else ''} sur 3")


class Banner(QLabel):
    """A message box inside the page: French errors and notices, never a modal dialog."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setMargin(14)  # a sheet padding is not counted in a wrapped label's height
        self.hide()

    def show_error(self, text: str) -> None:
        """Show ``text`` as an error (red frame)."""
        set_role(self, "error")
        self.setText(f"⚠  {text}")
        self.show()

    def show_notice(self, text: str) -> None:
        """Show ``text`` as a notice (amber frame)."""
        set_role(self, "notice")
        self.setText(text)
        self.show()

    def clear_message(self) -> None:
        """Hide the banner."""
        self.setText("")
        self.hide()


class _WheelWhenFocused(QObject):
    """Gives the wheel to a spin box or drop-down only when it has the focus.

    Otherwise the page around it scrolls, as the pointer merely passed over it.
    """

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt API
        if event.type() != QEvent.Type.Wheel or not isinstance(watched, QWidget):
            return False
        if watched.hasFocus():
            return False
        parent = watched.parentWidget()
        while parent is not None and not isinstance(parent, QAbstractScrollArea):
            parent = parent.parentWidget()
        if parent is not None:
            QApplication.sendEvent(parent.viewport(), event)
        event.accept()  # never changes the value, never goes on to another field
        return True


def guard_wheel(root: QWidget) -> int:
    """Spin boxes and drop-downs under ``root`` take wheel events only when focused.

    Scrolling a long form with the wheel changed whichever value passed under
    the pointer. Each one gets ``Qt.StrongFocus`` (the wheel does
    not focus it) and, unfocused, passes the wheel to the scrolled page.

    Returns:
        How many widgets were guarded.
    """
    guard = root.findChild(_WheelWhenFocused) or _WheelWhenFocused(root)
    fields: list[QWidget] = [*root.findChildren(QAbstractSpinBox), *root.findChildren(QComboBox)]
    for field in fields:
        field.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        field.installEventFilter(guard)
    return len(fields)
