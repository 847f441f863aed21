"""Run as a program by test_full_screen.py: the real ``dealer-assist`` entry point at a
screen size (offscreen, one screen of that size), a dealer's log-in through the log-in
dialog, then the heaviest round of a game; after every event it records where the window
and the dealer's controls are. Prints one JSON line: {"events": N, "problems": [...]}.

``python -m tests.ui.entry_fit GAME DIR`` with ``QT_QPA_PLATFORM=offscreen:configfile=...``.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import ui.common.qtfix  # noqa: F401  (first: keeps PySide6 6.12 from aborting CPython 3.11)

DEALER, DEALER_PIN = "dee", "730418"


def prepare(game: str, work: Path) -> tuple[Path, Path]:
    """A store with a supervisor, a dealer and the game's heaviest set-up remembered, and
    the round's cards for the simulated shoe."""
    if "+" in game:  # "saved+start": the saved setup of one game, the start with --game another
        game = game.partition("+")[0]
    from dealer_assist.base.cards import parse_card  # noqa: F401
    from dealer_assist.engine.table_setup import SETUP_AUDIT_KIND, setup_to_json
    from dealer_assist.store import TEST_PIN_COST, Store
    from ui.dealer.heavy_round import heavy_setup, plan

    setup = heavy_setup(game)
    db = work / "table.db"
    store = Store.open(db, pin_cost=TEST_PIN_COST)
    store.create_user("sue", "482913", ["supervisor"])
    store.create_user(DEALER, DEALER_PIN, ["dealer"])
    store.add_audit(SETUP_AUDIT_KIND, actor="supervisor:sue", detail=setup_to_json(setup))
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

    from ui.common.login import PinDialog
    from ui.dealer.heavy_round import Shooter, heavy_setup, play, wait
    from ui.dealer.main_window import DealerWindow

    def top(kind: type) -> Any:
        return next((w for w in QApplication.topLevelWidgets() if isinstance(w, kind) and w.isVisible()), None)

    try:
        start_only = "+" in game
        wait(app, lambda: top(PinDialog) is not None, "the log-in", 30)
        login = top(PinDialog)
        login.name.setText(DEALER)
        login.pin.setText(DEALER_PIN)
        login.ok_button.click()
        window = top(DealerWindow)
        c = window.controller
        wait(app, lambda: c.dealer == DEALER and not login.isVisible(), "the shift", 30)
        found: list[str] = problems(app, window, "after the log-in")
        if start_only:  # a start with a saved setup that does not fit: the table is usable
            wait(app, lambda: c.rnd is not None and c.betting, "the first round", 30)
            result.update(game=c.setup.game, limits=sorted(c.setup.limits), notice=window.notice.text(),
                          notice_shown=window.notice.isVisibleTo(window), betting=c.betting, problems=found,
                          events=0, concluded=True)
            return
        events = 0

        def after(what: str) -> None:
            nonlocal events
            events += 1
            found.extend(problems(app, window, what))

        shooter = Shooter(app, window, Path("."), "", check=lambda name, w: found.extend(problems(app, w, name)))
        play(app, window, c, window.sim_panel.shoe, heavy_setup(game), shooter, after_event=after)
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
    extra = ["--game", game.partition("+")[2]] if "+" in game else []
    status = dealer_assist(["--db", str(db), "--sim-cards", str(cards), *extra])  # as `dealer-assist` starts
    result.update(status=status, seconds=round(time.monotonic() - started, 1))
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
