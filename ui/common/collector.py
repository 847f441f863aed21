"""Garbage collection between rounds, not on a card (the dealer's screen).

Python's automatic collection runs in whichever thread allocates when its count is
reached. On the card that brings a settlement (63 settlement entries and their cells with
the heaviest layout) a collection took 6-19 ms in ``ui.dealer.bench``, destroying the Qt objects of
the cycles it found, and a full pass over everything the program holds took 45-95 ms.
"""

from __future__ import annotations

import gc


def collect_between_rounds() -> None:
    """Once the screen is built: what exists (modules, Qt's wrappers, the window; it lives as
    long as the screen) is frozen out of every pass, automatic collection is off, and the
    window collects (:func:`collect_now`) after it has painted a new round's betting, when
    no card is due. Reference counting still frees at once everything not in a cycle.
    (No collection first: it would delay the first window by tens of milliseconds.)"""
    gc.freeze()
    gc.disable()


def collect_now() -> None:
    """A full collection, if :func:`collect_between_rounds` turned automatic collection off."""
    if not gc.isenabled():
        gc.collect()
