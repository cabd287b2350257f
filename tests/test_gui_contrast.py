"""Focus ring and disabled buttons at WCAG AA contrast, computed from the style sheets' colours."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("PySide6")

from therapy_app.gui import theme  # noqa: E402
from therapy_app.gui.theme import contrast_ratio  # noqa: E402

pytestmark = pytest.mark.gui

COMPONENT = 3.0  # WCAG 2.1 AA, 1.4.11 non-text contrast (focus ring, borders)
TEXT = 4.5  # WCAG 2.1 AA, 1.4.3 normal text
PAGES = (theme.BACKGROUND, theme.SURFACE)  # what a button sits on (page, card)
NAMED = {"white": "#ffffff", "black": "#000000"}


def _rules(sheet: str) -> list[tuple[list[str], dict[str, str]]]:
    """(selectors, declarations) of each rule of a Qt style sheet."""
    rules = []
    for selectors, body in re.findall(r"([^{}]+)\{([^{}]*)\}", sheet):
        declarations = {}
        for part in body.split(";"):
            if ":" in part:
                name, value = part.split(":", 1)
                declarations[name.strip()] = value.strip()
        rules.append(([s.strip() for s in selectors.split(",")], declarations))
    return rules


def _colour(value: str) -> str:
    found = re.search(r"#[0-9a-fA-F]{6}\b|\b(white|black)\b", value)
    assert found, f"no colour in {value!r}"
    return NAMED.get(found.group(0), found.group(0))


def _sheets() -> dict[str, str]:
    from therapy_app.gui.therapist import style

    return {"patient": theme.style_sheet(), "therapist": style.style_sheet()}


def test_contrast_ratio_matches_wcag_examples() -> None:
    assert contrast_ratio("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast_ratio("#ffffff", "#ffffff") == pytest.approx(1.0)
    assert contrast_ratio("#767676", "#ffffff") == pytest.approx(4.54, abs=0.01)
    # The colours issue 10 measured: the amber ring and the pale primary button.
    assert contrast_ratio("#ffbf00", "#ffffff") < 1.7
    assert contrast_ratio("#f0f0f0", "#9bb3d1") < 2.0


@pytest.mark.parametrize("sheet", ["patient", "therapist"])
def test_every_focus_ring_stands_out_from_the_page(sheet: str) -> None:
    focus_rules = [
        (selectors, d)
        for selectors, d in _rules(_sheets()[sheet])
        if any(":focus" in s for s in selectors)
    ]
    assert focus_rules
    for selectors, declarations in focus_rules:
        ring = declarations.get("border") or declarations.get("border-color")
        assert ring, f"{selectors}: a focus rule must draw a ring"
        ring_colour = _colour(ring)
        assert int(re.search(r"(\d+)px", ring).group(1)) >= 3 if "px" in ring else True
        for page in PAGES:
            assert contrast_ratio(ring_colour, page) >= COMPONENT, (selectors, page)
        if "background" in declarations and "color" in declarations:
            fill, text = _colour(declarations["background"]), _colour(declarations["color"])
            assert contrast_ratio(text, fill) >= TEXT, selectors


def test_the_record_buttons_ring_stands_out_from_its_red() -> None:
    # The record button keeps its red when focused: the ring must also show on it.
    assert contrast_ratio(theme.FOCUS_RING, theme.RECORD) >= COMPONENT
    # A focused blue button turns yellow: the change itself is >= 3:1.
    assert contrast_ratio(theme.FOCUS_FILL, theme.ACCENT) >= COMPONENT


@pytest.mark.parametrize("sheet", ["patient", "therapist"])
def test_disabled_buttons_stay_legible(sheet: str) -> None:
    disabled = [
        (selectors, d)
        for selectors, d in _rules(_sheets()[sheet])
        if any("QPushButton" in s and ":disabled" in s for s in selectors)
    ]
    assert disabled
    for selectors, declarations in disabled:
        fill = _colour(declarations["background"])
        text = _colour(declarations["color"])
        border = _colour(declarations["border"])
        assert contrast_ratio(text, fill) >= TEXT, selectors
        for page in PAGES:
            assert contrast_ratio(border, page) >= COMPONENT, (selectors, page)


def test_a_focused_button_is_drawn_with_the_ring(qtbot) -> None:
    """What is painted, not only what is written: the ring's pixels against the page's."""
    from PySide6.QtGui import QColor
    from PySide6.QtWidgets import QApplication, QVBoxLayout, QWidget

    from therapy_app.gui.widgets import big_button

    theme.apply_theme(QApplication.instance())
    page = QWidget()
    layout = QVBoxLayout(page)
    layout.setContentsMargins(20, 20, 20, 20)
    buttons = [big_button("", "Suivant", "primary"), big_button("", "Ma voix")]
    for button in buttons:
        layout.addWidget(button)
    qtbot.addWidget(page)
    page.show()
    qtbot.waitExposed(page)
    page.activateWindow()
    qtbot.waitUntil(page.isActiveWindow)
    for button in buttons:
        button.setFocus()
        qtbot.waitUntil(button.hasFocus)
        image = button.grab().toImage()
        middle = image.height() // 2
        ring = QColor(image.pixel(1, middle)).name()
        inside = QColor(image.pixel(image.width() // 2, 8)).name()
        assert contrast_ratio(ring, theme.BACKGROUND) >= COMPONENT, (button.text(), ring)
        assert inside == theme.FOCUS_FILL, (button.text(), inside)
