"""What every subcommand shares: one error style and checked option values.

Errors are one line on standard error, ``error: ...``; exit status 2 for bad input (the
command line, a file's content), 1 for a check that failed (``history verify``,
``station check``), 0 otherwise.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

BAD_INPUT = 2
CHECK_FAILED = 1

#: ``dealer-assist --dealer NAME`` (no log-in) and ``review --screenshot`` (no PIN) are
#: honoured only with this set to 1: development runs, tests and benchmarks, never a
#: station (issue 15 item 8).
DEV_MODE_VARIABLE = "DEALER_ASSIST_DEV"


def terminal_columns() -> int:
    """shutil.get_terminal_size()'s columns without importing shutil (and with it bz2, lzma,
    fnmatch) on every start: $COLUMNS, else the terminal's, else 80."""
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns if sys.__stdout__ else 0
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns if columns > 0 else 80


class HelpFormatter(argparse.HelpFormatter):
    """argparse's formatter, as wide as the terminal (argparse asks shutil for the width)."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
                 width: int | None = None) -> None:
        super().__init__(prog, indent_increment, max_help_position,
                         terminal_columns() - 2 if width is None else width)


class OneLineParser(argparse.ArgumentParser):
    """An argparse parser whose errors are one line, ``error: ...``, exit status 2."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        sys.stderr.write(f"error: {message}\n")
        raise SystemExit(BAD_INPUT)


def fail(message: str, status: int = BAD_INPUT) -> int:
    """Print ``error: message`` on standard error; returns ``status`` for the caller to return."""
    sys.stderr.write(f"error: {message}\n")
    return status


def whole_number(
    low: int, high: int | None = None, *, what: str = "", bound: str = ""
) -> Callable[[str], int]:
    """An argparse type: a whole number from ``low`` (to ``high``); argparse names the option.
    ``what`` names the value in the message ("round id"); ``bound`` words the range ("positive")."""
    subject = f"{what} must" if what else "must"

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{subject} be a whole number, not {text!r}") from None
        if value < low or (high is not None and value > high):
            words = bound or (f"from {low} to {high}" if high is not None else f"{low} or more")
            raise argparse.ArgumentTypeError(f"{subject} be {words}, not {value}")
        return value

    return parse


def new_file_in_existing_directory() -> Callable[[str], str]:
    """An argparse type for a file that may be created: its directory must exist (a missing
    directory is a typing mistake, never created silently)."""

    def parse(text: str) -> str:
        path = Path(text)
        if path.is_dir():
            raise argparse.ArgumentTypeError(f"{text} is a directory, not a file")
        if not path.parent.is_dir():
            raise argparse.ArgumentTypeError(
                f"{text}: no directory {path.parent} (create it first; it is never created silently)"
            )
        return text

    return parse


def no_display() -> str | None:
    """Why a window cannot be opened here, or None. Checked before Qt starts: without a
    display Qt aborts the process (exit 134) instead of saying so."""
    if not sys.platform.startswith("linux") or os.environ.get("QT_QPA_PLATFORM"):
        return None
    if os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"):
        return None
    return "no display to open the window on (run it in the station's desktop session, or set DISPLAY)"
