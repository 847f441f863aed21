"""A number field a finger can change: the spin box's own arrows are about 20 px high, half
of a touch target (Material: 48 dp); here they give way to a "−" and a "+" button of full
size on either side of the number, which can still be typed in."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QAbstractSpinBox, QHBoxLayout, QPushButton, QSpinBox, QWidget

from ui.common.style import TOUCH, px


class TouchSpin(QWidget):
    """``spin`` between a "−" and a "+" button (one step each; off at the range's ends and
    while the field is off). The spin box stays the value's owner: read and set it as before;
    after changing its range, call :meth:`sync`."""

    def __init__(self, spin: QSpinBox, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.spin = spin
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(px(4))
        spin.setButtonSymbols(QAbstractSpinBox.ButtonSymbols.NoButtons)
        self.down, self.up = QPushButton("\u2212"), QPushButton("+")
        self.down.setAccessibleName("less")
        self.up.setAccessibleName("more")
        for button, step in ((self.down, spin.stepDown), (self.up, spin.stepUp)):
            button.setFixedSize(px(TOUCH), px(TOUCH))
            button.clicked.connect(step)
        layout.addWidget(self.down)
        layout.addWidget(spin, 1)
        layout.addWidget(self.up)
        spin.valueChanged.connect(self.sync)
        spin.installEventFilter(self)  # the field turned on or off
        self.sync()

    def sync(self) -> None:
        on = self.spin.isEnabled()
        self.down.setEnabled(on and self.spin.value() > self.spin.minimum())
        self.up.setEnabled(on and self.spin.value() < self.spin.maximum())

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt name)
        if watched is self.spin and event.type() == QEvent.Type.EnabledChange:
            self.sync()
        return False
