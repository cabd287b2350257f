"""How a patient looks in the therapist's list: avatar disc, name, archived patients marked."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont, QIcon, QPainter, QPixmap
from PySide6.QtWidgets import QListWidgetItem

from therapy_app.storage import Patient

ARCHIVED_SUFFIX = " (archivé)"
ARCHIVED_COLOUR = "#595959"
"""Grey for archived patients, still 7:1 on white (readable, clearly set apart)."""


def avatar_icon(patient: Patient, size: int = 40) -> QIcon:
    """A coloured disc with the patient's initials (same look as the patient screens)."""
    pixmap = QPixmap(size, size)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setBrush(QColor(patient.avatar_colour))
    painter.setPen(Qt.PenStyle.NoPen)
    painter.drawEllipse(0, 0, size, size)
    font = QFont()
    font.setPixelSize(int(size * 0.4))
    font.setBold(True)
    painter.setFont(font)
    painter.setPen(QColor("white"))
    painter.drawText(pixmap.rect(), Qt.AlignmentFlag.AlignCenter, patient.initials)
    painter.end()
    return QIcon(pixmap)


def show_patient_item(item: QListWidgetItem, patient: Patient) -> None:
    """Name and avatar of ``patient`` in the list; an archived one is marked and greyed."""
    text = patient.display_name + (ARCHIVED_SUFFIX if patient.archived else "")
    item.setText(text)
    item.setToolTip(text)
    item.setIcon(avatar_icon(patient))
    if patient.archived:
        item.setForeground(QColor(ARCHIVED_COLOUR))
    else:
        item.setData(Qt.ItemDataRole.ForegroundRole, None)
