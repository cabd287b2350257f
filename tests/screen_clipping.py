"""What is cut on a screen: text narrower than it needs, widgets out of sight, chart titles cut.

Used by ``screen_fit_probe.py`` (real windows under Xvfb) and by offscreen
tests. A widget inside a scroll area may be scrolled out of view (the page
is reachable); anything else must show whole, and so must the widgets a
screen names as needed at once (``must_show``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from PySide6.QtCharts import QChartView
from PySide6.QtCore import QRect
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractScrollArea,
    QAbstractSpinBox,
    QComboBox,
    QGraphicsTextItem,
    QLabel,
    QLineEdit,
    QStyle,
    QStyleOptionComboBox,
    QWidget,
)

SLACK_PX = 3
"""Rounding between a font's line height and a layout's row (no glyph is cut by it)."""
_TAG = re.compile(r"<br\s*/?>", re.IGNORECASE)


def describe(widget: QWidget) -> str:
    """ "QPushButton 'Retirer'": a widget as a problem line names it."""
    text = ""
    for name in ("text", "currentText", "title"):
        read = getattr(widget, name, None)
        if callable(read):
            try:
                text = str(read())
            except TypeError:
                text = ""
            if text:
                break
    shown = widget.accessibleName() or text or widget.objectName()
    return f"{type(widget).__name__} {shown[:50]!r}"


def _in_scroll_area(widget: QWidget) -> bool:
    parent = widget.parentWidget()
    while parent is not None:
        if isinstance(parent, QAbstractScrollArea):
            return True
        parent = parent.parentWidget()
    return False


def shown_part(widget: QWidget) -> QRect:
    """The part of ``widget`` its ancestors let through (scroll viewports, the window's edge)."""
    seen = widget.rect()
    child: QWidget = widget
    parent = widget.parentWidget()
    while parent is not None and not child.isWindow():
        seen = QRect(child.mapTo(parent, seen.topLeft()), seen.size()) & parent.rect()
        child, parent = parent, parent.parentWidget()
        if seen.isEmpty():
            return QRect()
    return QRect(widget.mapFrom(child, seen.topLeft()), seen.size())


def fully_shown(widget: QWidget) -> bool:
    """True when every pixel of ``widget`` can be seen (not scrolled away, not cut)."""
    return widget.isVisible() and shown_part(widget) == widget.rect()


def _combo_cut(combo: QComboBox) -> str | None:
    option = QStyleOptionComboBox()
    option.initFrom(combo)
    option.rect = combo.rect()
    option.editable = combo.isEditable()
    field = combo.style().subControlRect(
        QStyle.ComplexControl.CC_ComboBox, option, QStyle.SubControl.SC_ComboBoxEditField, combo
    )
    metrics = combo.fontMetrics()
    for index in range(combo.count()):
        text = combo.itemText(index)
        if metrics.horizontalAdvance(text) > field.width() + 1:
            return text
    return None


def text_cut(widget: QWidget) -> str | None:
    """Why the text of ``widget`` does not show whole at its size, or None."""
    if isinstance(widget, QLabel) and widget.text() and type(widget).__name__ != "ElidedLabel":
        if widget.wordWrap():
            needed = widget.heightForWidth(widget.width())
            if needed > widget.height() + SLACK_PX:
                return f"needs {needed} px of height, has {widget.height()}"
            return None
        hint = widget.sizeHint()
        if hint.width() > widget.width() + 1 or hint.height() > widget.height() + SLACK_PX:
            return f"needs {hint.width()}x{hint.height()}, has {widget.width()}x{widget.height()}"
        return None
    if isinstance(widget, QAbstractButton) and widget.text():
        hint = widget.sizeHint()
        if hint.width() > widget.width() + 1:
            return f"needs {hint.width()} px, has {widget.width()}"
        return None
    if isinstance(widget, QComboBox):
        cut = _combo_cut(widget)
        return f"choice {cut!r} does not fit" if cut is not None else None
    return None


def chart_titles_cut(root: QWidget) -> list[str]:
    """Chart titles Qt Charts shortened with "..." for lack of width."""
    problems = []
    for view in root.findChildren(QChartView):
        if not view.isVisible():
            continue
        chart = view.chart()
        wanted = _TAG.sub("\n", chart.title())
        for item in chart.childItems():
            if isinstance(item, QGraphicsTextItem) and item.toPlainText().endswith("..."):
                problems.append(f"chart title {wanted!r} shown as {item.toPlainText()!r}")
    return problems


def problems(window: QWidget, must_show: Iterable[QWidget] = ()) -> list[str]:
    """Everything cut on ``window`` as it is now (empty: nothing).

    Args:
        window: the top-level window.
        must_show: widgets that must be in view without scrolling.
    """
    found: list[str] = []
    kinds = (QLabel, QAbstractButton, QComboBox, QAbstractSpinBox, QLineEdit)
    for widget in window.findChildren(QWidget):
        if not widget.isVisible() or widget.window() is not window or not widget.width():
            continue
        if not isinstance(widget, kinds):
            continue
        cut = text_cut(widget)
        if cut is not None:
            found.append(f"{describe(widget)}: text cut ({cut})")
        elif not _in_scroll_area(widget) and not fully_shown(widget):
            found.append(f"{describe(widget)}: partly out of sight")
    for widget in must_show:
        if not fully_shown(widget):
            seen = shown_part(widget)
            found.append(
                f"{describe(widget)}: not in view ({seen.width()}x{seen.height()} of "
                f"{widget.width()}x{widget.height()})"
            )
    return found + chart_titles_cut(window)
