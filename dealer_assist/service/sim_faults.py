"""What the dealer may do with the station service's simulated shoe (a demonstration station
with no shoe configured): every fault hardware/simulator.py has, named once here so the
screen shows them all (op ``sim_deal`` with ``fault``) and decides nothing itself. Its
re-read (the unread card through the reader again) answers the dealer's op ``reread`` (5.1)."""

from __future__ import annotations

from typing import Any, Final

LOST_SHOE_S: Final = 5.0  # the cable out this long: the driver reports the shoe lost, then back

# key -> the button's words, in the order shown
SIM_FAULTS: Final[dict[str, str]] = {
    "deal": "Deal a card",
    "burn": "Burn a card",
    "noread": "Unreadable card (NOREAD)",
    "reread": "Re-read the unread card",
    "double": "Double feed",
    "double_unread": "Double feed, 1 unread",
    "damaged": "Damaged frame",
    "lost_frame": "Lost frame",
    "lost_shoe": f"Lost shoe ({LOST_SHOE_S:g} s)",
}


def simulate(shoe: Any, fault: str) -> None:
    """Do ``fault`` on the simulated shoe (hardware.simulator.SimulatedShoe); ValueError for
    a key that is not one of :data:`SIM_FAULTS`."""
    if fault == "deal":
        shoe.deal()
    elif fault == "burn":
        shoe.burn()
    elif fault == "noread":
        shoe.noread()
    elif fault == "reread":
        shoe.reread()  # the card it could not read, read this time (nothing sent if none)
    elif fault == "double":
        shoe.multi(2)
    elif fault == "double_unread":
        shoe.multi(2, unreadable=1)
    elif fault == "damaged":
        shoe.deal(corrupt=True)  # a bad checksum: the frame is dropped, the next one shows the gap
    elif fault == "lost_frame":
        shoe.drop(1)  # this card's frame is lost on the line
        shoe.deal()
    elif fault == "lost_shoe":
        shoe.unplug(LOST_SHOE_S)
    else:
        raise ValueError(f"no such fault of the simulated shoe: {fault!r} (one of {', '.join(SIM_FAULTS)})")
