"""Enter in a dialog (issue 24 item 4): it presses the dialog's one default action, or
nothing; never another button (a PIN's Enter used to press Cancel of the log-in, which
closed the program; *New player*'s Enter discarded the name).

Qt lets Enter press an "auto-default" button (every push button in a dialog is one) even
when the focus is in a field that acts on Enter itself. :func:`enter_submits` turns that
off for every button of the dialog and makes ``default`` (if any) the one Enter presses.
"""

from __future__ import annotations

from PySide6.QtWidgets import QPushButton, QWidget


def enter_submits(dialog: QWidget, default: QPushButton | None) -> None:
    """Enter presses ``default`` only (``None``: no button; the fields' own Enter acts)."""
    for button in dialog.findChildren(QPushButton):
        button.setAutoDefault(False)
        button.setDefault(False)
    if default is not None:
        default.setDefault(True)
