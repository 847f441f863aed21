"""The heavy round (ui/dealer/heavy_round.py) looked at, at some of its moments, on each of the
three table screens' sizes in turn (the type, the printed 8's word, the split hands' tags)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.ui.window_checks import SIZES
from ui.common.idle import wait_idle

__all__ = ["SIZES", "at_every_size"]


def at_every_size(steps: tuple[str, ...], look: Callable[[str, tuple[int, int], Any], None]) -> Callable[[str, Any], None]:
    """A ``check`` for heavy_round.run: at each of ``steps`` (``3_play``, ``4_settled`` ...)
    the window is set to each size of SIZES and laid out (twice idle: the cards are placed,
    then the pay tags beside them), then ``look(step, size, window)``."""

    def check(step: str, window: Any) -> None:
        if step not in steps:
            return
        for size in SIZES:
            window.setGeometry(0, 0, *size)
            wait_idle()
            wait_idle()
            look(step, size, window)

    return check
