"""A big numbered button holding a rich-text sentence ("Vouliez-vous dire… ?" alternatives)."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLayout, QPushButton, QWidget

from therapy_app.gui import theme
from therapy_app.gui.patient.sentence_view import sentence_html
from therapy_app.gui.widgets import set_role
from therapy_app.practice.events import Proposal


class ChoiceButton(QPushButton):
    """Button "1  <sentence>" whose sentence shows restored words highlighted.

    QPushButton cannot show rich text, so a label sits inside it and lets the
    clicks through.

    Args:
        number: 1-based key that picks it.
        proposal: the sentence and its word diff.
    """

    def __init__(self, number: int, proposal: Proposal, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.number = number
        self.proposal = proposal
        set_role(self, "choice")
        self.setAutoDefault(True)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setAccessibleName(f"Choix {number} : {proposal.text}")
        self.setToolTip(f"Touche {number}")
        key = QLabel(f"{number}")
        key.setFixedSize(44, 44)
        key.setAlignment(Qt.AlignmentFlag.AlignCenter)
        key.setStyleSheet(
            f"background:{theme.ACCENT}; color:white; border-radius:22px;"
            f" font-weight:bold; font-size:{theme.BASE_POINT_SIZE}pt;"
        )
        self.sentence = QLabel(sentence_html(proposal.text, proposal.diff))
        self.sentence.setTextFormat(Qt.TextFormat.RichText)
        self.sentence.setWordWrap(True)
        self.sentence.setStyleSheet(
            f"font-size:{theme.LARGE_POINT_SIZE}pt; background:transparent;"
        )
        for child in (key, self.sentence):
            child.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(14, 6, 14, 6)
        layout.setSpacing(16)
        layout.addWidget(key)
        layout.addWidget(self.sentence, 1)
        # The height follows the sentence at the width given (one line, or
        # two for a long one), not a wrapped guess; the theme's minimum keeps
        # it a big target: three proposals and the record button fit a
        # laptop screen.
        layout.setSizeConstraint(QLayout.SizeConstraint.SetNoConstraint)
        policy = self.sizePolicy()
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)

    def hasHeightForWidth(self) -> bool:  # noqa: N802 - Qt API
        return True

    def heightForWidth(self, width: int) -> int:  # noqa: N802 - Qt API
        layout = self.layout()
        needed = layout.totalHeightForWidth(width) if layout is not None else 0
        return max(self.minimumHeight(), needed)

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt API
        hint = super().sizeHint()
        return QSize(hint.width(), self.heightForWidth(max(self.width(), hint.width())))
