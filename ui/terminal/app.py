"""``dealer-assist terminal``: the player terminal's window, full screen. The options, the
pairing, the display check and ``--text`` are dealer_assist/cli/terminal.py's; Qt is loaded
only when the window opens."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from dealer_assist.cli import terminal as cli
from dealer_assist.service.terminal_client import TerminalConnection

__all__ = ["configure", "run", "run_window"]

configure = cli.configure


def run(args: argparse.Namespace) -> int:
    return cli.run(args, lambda first, connect, exit_after_show: run_window(
        first, connect, exit_after_show=exit_after_show))


def run_window(first: TerminalConnection, connect: Callable[[], TerminalConnection], *,
               exit_after_show: bool = False) -> int:
    """The window on ``first`` (connected, paired); ``connect`` makes another connection of
    the seat (the link's second, and after the station went away)."""
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from ui.common.collector import collect_on_gui_thread_only
    from ui.terminal.controller import TerminalController
    from ui.terminal.link import TerminalLink
    from ui.terminal.window import TerminalWindow

    existing = QApplication.instance()
    app = existing if isinstance(existing, QApplication) else QApplication(sys.argv[:1])
    collect_on_gui_thread_only()
    app.setApplicationName("dealer-assist-terminal")
    link = TerminalLink(first, connect)
    controller = TerminalController(link)
    window = TerminalWindow(controller, link.table_name)
    window.showFullScreen()
    link.start()
    if exit_after_show:
        def shown() -> None:
            window.repaint()
            print("shown", flush=True)
            app.quit()

        QTimer.singleShot(0, shown)
    try:
        return int(app.exec())
    finally:
        link.close()
        window.close()
