"""Kill the dealer's window at random moments, restart it on the store, count what was lost.

Used by ``tests/ui/test_crash.py`` (a few kills) and ``scripts/crash_test.py`` (hundreds,
printing the figures). Each kill: start ``tests.ui.crash_table`` on the store, let it play
(rounds of all five games, through the real window and controller), SIGKILL it after a
random delay, then check the file with ``verify``; the next start is the restart. At the
end a last window finishes the restored round and closes the store, and every round in
the file is checked:

- *stuck*: a live round that never ended (``ended_at`` NULL);
- *results missing*: a round whose recorded events end it (re-settled through the engine)
  without that result recorded as its status and settle output;
- *wagers lost*: a round whose start the store acknowledged (``START id n``) with fewer
  than n wagers recorded, or any round whose first events are not its whole betting slip
  followed by *no more bets*;
- *cards lost*: a card shown on screen as an implied hit (``SHOWN id card``: on disk by then)
  that its round never recorded as a card event;
- *unactionable restores*: a restarted window that showed a state the dealer could not act
  on (the child says ``STUCK``).
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path

from dealer_assist.engine.transcript import new_round, parse_event, round_output
from dealer_assist.store import Store, canonical_json

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Figures:
    kills: int = 0
    restores: int = 0  # restarts that found an open round and put it back on screen
    restored_over: int = 0  # ... of which the round's result was derived at recovery
    verify_failures: list[str] = field(default_factory=list)
    unactionable: list[str] = field(default_factory=list)
    rounds: int = 0
    rounds_by_game: Counter[str] = field(default_factory=Counter)
    stuck: list[int] = field(default_factory=list)
    results_missing: list[int] = field(default_factory=list)
    wagers_lost: list[int] = field(default_factory=list)
    cards_lost: list[str] = field(default_factory=list)
    implied_shown: int = 0
    held_after_restart: int = 0  # restarts that asked Hit or Double for an implied card
    acknowledged_starts: int = 0
    seconds: float = 0.0

    def ok(self) -> bool:
        return not (self.verify_failures or self.unactionable or self.stuck
                    or self.results_missing or self.wagers_lost or self.cards_lost)

    def lines(self) -> list[str]:
        return [
            f"kills (SIGKILL at random moments): {self.kills}",
            f"restarts that restored an open round: {self.restores} "
            f"(result derived at recovery: {self.restored_over})",
            f"verify after each kill: {self.kills - len(self.verify_failures)} passed, "
            f"{len(self.verify_failures)} failed",
            f"unactionable states after a restart: {len(self.unactionable)}",
            f"rounds recorded: {self.rounds} ("
            + ", ".join(f"{g} {n}" for g, n in sorted(self.rounds_by_game.items())) + ")",
            f"round starts acknowledged: {self.acknowledged_starts}",
            f"rounds stuck: {len(self.stuck)}",
            f"results missing: {len(self.results_missing)}",
            f"rounds with wagers lost: {len(self.wagers_lost)}",
            f"implied-hit cards shown: {self.implied_shown}, lost: {len(self.cards_lost)}; "
            f"restarts that held one and asked Hit or Double: {self.held_after_restart}",
            f"time: {self.seconds:.1f} s",
        ]


def _child(db: Path, intents: Path, seed: int, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "tests.ui.crash_table", str(db), str(intents), str(seed), *extra],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
    )


def _read_report(figures: Figures, out: str) -> None:
    for line in out.splitlines():
        if line.startswith("RESTORED"):
            figures.restores += 1
            if line.split()[-2] == "1":
                figures.restored_over += 1
            if line.split()[-1] == "1":
                figures.held_after_restart += 1
        elif line.startswith("STUCK"):
            figures.unactionable.append(line)


def run(db: Path, kills: int, seed: int = 15, max_delay: float = 2.0) -> Figures:
    """``kills`` SIGKILLs of the window at random moments, then the checks above."""
    rng = random.Random(seed)
    intents = db.with_suffix(".intents")
    figures = Figures()
    started = time.monotonic()
    for n in range(kills):
        child = _child(db, intents, seed * 1000 + n)
        try:
            assert child.stdout is not None
            while True:  # the store is open and the restore (if any) is done
                line = child.stdout.readline()
                if not line or line.startswith(("PLAYING", "STUCK")):
                    break
                _read_report(figures, line)
            if line.startswith("STUCK"):
                figures.unactionable.append(line.strip())
            time.sleep(rng.uniform(0.0, max_delay))
            if child.poll() is None:
                os.kill(child.pid, signal.SIGKILL)
                figures.kills += 1
            rest, _ = child.communicate(timeout=30)
            _read_report(figures, rest)
        finally:
            if child.poll() is None:
                child.kill()
                child.wait(30)
        with Store.open_readonly(db) as store:
            result = store.verify()
        if not result.ok:
            figures.verify_failures.append(f"after kill {n + 1}: {result.problem}")
    final = _child(db, intents, seed * 1000 + kills, "--finish")
    out, _ = final.communicate(timeout=120)
    _read_report(figures, out)
    if "CLEAN" not in out:
        figures.unactionable.append(f"the last restart did not finish cleanly: {out.strip()}")
    with Store.open_readonly(db) as store:
        result = store.verify()
    if not result.ok:
        figures.verify_failures.append(f"at the end: {result.problem}")
    check_rounds(db, intents, figures)
    figures.seconds = time.monotonic() - started
    return figures


def check_rounds(db: Path, intents: Path, figures: Figures) -> None:
    """Count stuck rounds, missing results and lost wagers over every round in the file."""
    placed: dict[int, int] = {}
    shown: list[tuple[int, str]] = []
    if intents.exists():
        for line in intents.read_text(encoding="utf-8").splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[0] == "START":
                placed[int(parts[1])] = int(parts[2])
            elif len(parts) == 3 and parts[0] == "SHOWN":
                shown.append((int(parts[1]), parts[2]))
    figures.implied_shown = len(shown)
    figures.acknowledged_starts = len(placed)
    with Store.open_readonly(db) as store:
        conn = store.db.conn
        rows = conn.execute(
            "SELECT id, game, config_json, status, ended_at, result_json FROM rounds "
            "WHERE source = 'live' ORDER BY id"
        ).fetchall()
        for rid, game, config_json, status, ended_at, result_json in rows:
            figures.rounds += 1
            figures.rounds_by_game[game] += 1
            events = store.events(rid)
            # the slip and "no more bets" (or a void) came in together
            kinds = [e["type"] for e in events]
            first = next((i for i, k in enumerate(kinds) if k not in ("wager", "claim")), len(kinds))
            if first == len(kinds) or kinds[first] not in ("no_more_bets", "void"):
                figures.wagers_lost.append(rid)
            elif rid in placed and kinds[:first].count("wager") < placed[rid]:
                figures.wagers_lost.append(rid)
            rnd = new_round(json.loads(config_json))
            for raw in events:
                rnd.apply(parse_event(json.loads(json.dumps(raw), parse_float=Decimal)))
            output = round_output(rnd)
            over = output["status"] in ("settled", "void") or (
                output["status"] == "in_progress" and rnd.expectation().kind == "none")
            if ended_at is None and status == "in_progress":
                figures.stuck.append(rid)
            if over and (status != output["status"] or result_json != canonical_json(output)):
                figures.results_missing.append(rid)
        for rid in placed:
            if store.get_round(rid) is None:
                figures.wagers_lost.append(rid)
        for rid, card in shown:
            if card not in [e.get("card") for e in store.events(rid) if e.get("type") == "card"]:
                figures.cards_lost.append(f"{card} of round {rid}")
