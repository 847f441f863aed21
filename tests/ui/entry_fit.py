"""Run as a program by test_full_screen.py: the real ``dealer-assist`` entry point at a
screen size (offscreen, one screen of that size) with no station configuration, so the
screen starts this account's station service on the account's store and is its client (the
one path, issue 33); a dealer's log-in through the log-in dialog, then the heaviest round
of a game, the cards out of the service's simulated shoe; after every event it records where
the window and the dealer's controls are. Prints one JSON line: {"events": N, "problems": [...]}.

``python -m tests.ui.entry_fit GAME DIR`` with ``QT_QPA_PLATFORM=offscreen:configfile=...``.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import ui.common.qtfix  # noqa: F401  (first: keeps PySide6 6.12 from aborting CPython 3.11)

DEALER, DEALER_PIN = "dee", "730418"


def prepare(game: str, work: Path) -> tuple[Path, Path]:
    """The account's store (where its station service keeps it) with a supervisor, a dealer
    and the game's heaviest set-up as a supervisor chose it, and the round's cards for the
    service's simulated shoe."""
    from dealer_assist.engine.table_setup import default_setup, setup_to_json
    from dealer_assist.service import station
    from dealer_assist.store import TEST_PIN_COST, Store
    from ui.dealer.heavy_round import heavy_setup, plan

    setup = heavy_setup(game)
    state = station.user_data_dir()
    state.mkdir(parents=True, exist_ok=True, mode=0o700)
    db = state / station.STORE_NAME
    store = Store.open(db, pin_cost=TEST_PIN_COST)
    store.create_user("sue", "482913", ["supervisor"])
    store.create_user(DEALER, DEALER_PIN, ["dealer"])
    old, new = setup_to_json(default_setup()), setup_to_json(setup)
    store.add_audit("table_setup_changed", actor="supervisor:sue", detail={  # as op set_table writes it
        "old": old, "new": new, "changes": {k: [old[k], new[k]] for k in new if old.get(k) != new[k]}})
    store.close()
    cards = work / "cards.txt"
    cards.write_text(" ".join(plan(setup)) + "\n")
    return db, cards


def controls(window: Any) -> list[Any]:
    """The dealer's controls that must always be reachable: the prompt's buttons, a held
    card's and a power failure's buttons, and the action bar."""
    from PySide6.QtWidgets import QAbstractButton

    found = [b for b in window.prompt.buttons.values()]
    for panel in (window.stray, window.power_panel):
        found += panel.findChildren(QAbstractButton)
    found += [*window.report_buttons.values(), window.recall_button]
    return [b for b in found if b.isVisibleTo(window)]


def problems(app: Any, window: Any, what: str) -> list[str]:
    out: list[str] = []
    available = window.screen().availableGeometry()
    if window.frameGeometry() != available:
        out.append(f"{what}: window frame {window.frameGeometry().getRect()} != screen's available "
                   f"{available.getRect()}")
    return out + control_problems(window, what)


def control_problems(window: Any, what: str) -> list[str]:
    """The dealer's controls (controls()) each inside the window, whole, uncovered, and not
    overlapping another (tests/ui/test_fits.py looks with it after every event too)."""
    out: list[str] = []
    inside = window.rect()
    placed_all = []
    for button in controls(window):
        placed_all.append((button, button.rect().translated(button.mapTo(window, button.rect().topLeft()))))
    for i, (a, ra) in enumerate(placed_all):  # squeezed below their size, buttons overlap
        for b, rb in placed_all[i + 1:]:
            if ra.intersects(rb):
                out.append(f"{what}: {a.text()!r} and {b.text()!r} overlap")
    for button in controls(window):
        rect = button.rect()
        top_left = button.mapTo(window, rect.topLeft())
        placed = rect.translated(top_left)
        name = button.text() or button.objectName()
        if not inside.contains(placed):
            out.append(f"{what}: {name!r} at {placed.getRect()} outside the window {inside.getRect()}")
            continue
        if button.visibleRegion().boundingRect() != rect:
            out.append(f"{what}: {name!r} partly hidden ({button.visibleRegion().boundingRect().getRect()} "
                       f"of {rect.getRect()})")
        on_top = window.childAt(placed.center())
        if on_top is None or not (on_top is button or button.isAncestorOf(on_top)):
            out.append(f"{what}: {name!r} covered by {type(on_top).__name__}")
    return out


def drive(app: Any, game: str, result: dict[str, Any]) -> None:
    from PySide6.QtWidgets import QApplication

    from dealer_assist.service.ops import Op
    from ui.common.login import PinDialog
    from ui.dealer.heavy_round import Shooter, heavy_setup, play, wait
    from ui.dealer.main_window import DealerWindow

    def top(kind: type) -> Any:
        return next((w for w in QApplication.topLevelWidgets() if isinstance(w, kind) and w.isVisible()), None)

    try:
        wait(app, lambda: top(PinDialog) is not None, "the log-in", 30)
        login = top(PinDialog)
        login.name.setText(DEALER)
        login.pin.setText(DEALER_PIN)
        login.ok_button.click()
        window = top(DealerWindow)
        c = window.controller
        wait(app, lambda: c.dealer == DEALER and not login.isVisible(), "the shift", 30)
        found: list[str] = problems(app, window, "after the log-in")
        events = 0

        def after(what: str) -> None:
            nonlocal events
            events += 1
            found.extend(problems(app, window, what))

        shooter = Shooter(app, window, Path("."), "", check=lambda name, w: found.extend(problems(app, w, name)))
        shoe = SimpleNamespace(deal=lambda: c.ask(Op.SIM_DEAL))  # the service's simulated shoe deals
        play(app, window, c, shoe, heavy_setup(game), shooter, after_event=after)
        result.update(events=events, problems=found, concluded=bool(c.concluded))
    except BaseException as exc:  # noqa: BLE001  (reported to the test, never swallowed)
        result.update(error=f"{type(exc).__name__}: {exc}")
    finally:
        top(DealerWindow) and top(DealerWindow).close()
        app.quit()


def main() -> int:
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from dealer_assist.cli import main as dealer_assist

    game, work = sys.argv[1], Path(sys.argv[2])
    db, cards = prepare(game, work)
    app = QApplication([])
    result: dict[str, Any] = {}
    QTimer.singleShot(0, lambda: drive(app, game, result))
    started = time.monotonic()
    status = dealer_assist(["--sim-cards", str(cards)])  # as `dealer-assist` starts, no configuration
    result.update(status=status, seconds=round(time.monotonic() - started, 1))
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
