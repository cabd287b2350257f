"""Rich text of a proposed sentence: restored words green and underlined, changed words blue."""

from __future__ import annotations

import html

from therapy_app.correction.diff import CHANGED, RESTORED, DiffOp
from therapy_app.gui import theme

_STYLES = {
    RESTORED: f"color:{theme.RESTORED}; text-decoration:underline; font-weight:bold;",
    CHANGED: f"color:{theme.CHANGED}; text-decoration:underline;",
}


def sentence_html(text: str, diff: list[DiffOp]) -> str:
    """``text`` as HTML, highlighting the words the correction added or changed.

    Args:
        text: the sentence (used as is when ``diff`` is empty).
        diff: word operations from what was heard to ``text``; "removed"
            words are not shown (they are not in the sentence).

    Returns:
        HTML for a rich-text QLabel.
    """
    if not diff:
        return html.escape(text)
    parts: list[str] = []
    for op in diff:
        if not op.target:
            continue
        words = html.escape(" ".join(op.target))
        style = _STYLES.get(op.kind)
        parts.append(f'<span style="{style}">{words}</span>' if style else words)
    return " ".join(parts)


def restored_words(diff: list[DiffOp]) -> list[str]:
    """The words the correction put back (for tests and accessibility text)."""
    return [w for op in diff if op.kind == RESTORED for w in op.target]
