"""Render packaging/icons/dealer-assist.svg to the PNG sizes the hicolor icon theme uses.

Run after changing the SVG: ``QT_QPA_PLATFORM=offscreen .venv/bin/python packaging/make_icons.py``.
The PNGs are committed, so a build needs neither this script nor QtSvg.
"""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

ICONS = Path(__file__).resolve().parent / "icons"
SIZES = (16, 24, 32, 48, 64, 128, 256)


def main() -> int:
    app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])  # fonts for the SVG's text
    renderer = QSvgRenderer(str(ICONS / "dealer-assist.svg"))
    if not renderer.isValid():
        print("make_icons: the SVG did not parse", file=sys.stderr)
        return 1
    for size in SIZES:
        image = QImage(size, size, QImage.Format.Format_ARGB32)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        renderer.render(painter)
        painter.end()
        out = ICONS / f"dealer-assist-{size}.png"
        if not image.save(str(out)):
            print(f"make_icons: could not write {out}", file=sys.stderr)
            return 1
        print(out.relative_to(ICONS.parent.parent))
    del app
    return 0


if __name__ == "__main__":
    sys.exit(main())
