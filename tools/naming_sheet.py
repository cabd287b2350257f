"""Contact sheet of the naming pictures with their words, to check them by eye (not shipped)."""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BANK = ROOT / "resources" / "naming" / "bank.json"


def render_sheet(out: Path, start: int = 0, count: int = 80, columns: int = 10) -> Path:
    """Draw ``count`` pictures from item ``start`` on one PNG, each with its word."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QRectF, Qt
    from PySide6.QtGui import QColor, QGuiApplication, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    app = QGuiApplication.instance() or QGuiApplication([])
    items = json.loads(BANK.read_text(encoding="utf-8"))["items"][start : start + count]
    cell, pad = 150, 22
    rows = (len(items) + columns - 1) // columns
    image = QImage(columns * cell, rows * (cell + pad), QImage.Format.Format_ARGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    for index, item in enumerate(items):
        x, y = (index % columns) * cell, (index // columns) * (cell + pad)
        renderer = QSvgRenderer(str(BANK.parent / item["picture"]))
        renderer.render(painter, QRectF(x + 20, y + 10, cell - 40, cell - 40))
        painter.drawText(
            QRectF(x, y + cell - 28, cell, pad + 20),
            Qt.AlignmentFlag.AlignCenter,
            item["word"],
        )
    painter.end()
    image.save(str(out))
    del app
    return out


def main(argv: list[str] | None = None) -> int:
    """``python -m tools.naming_sheet OUT.png [--start N] [--count N]``."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("out", type=Path)
    parser.add_argument("--start", type=int, default=0)
    parser.add_argument("--count", type=int, default=80)
    args = parser.parse_args(argv)
    print(render_sheet(args.out, args.start, args.count))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
