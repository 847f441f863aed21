"""SIGKILL the dealer's screen — a client of the station service — at random moments while it
deals, and count what was lost (issue 23): ``scripts/crash_test.py --screen-client``.

The service runs as on a station (`station serve --config`, tests/service/crash_campaign.py
starts it), the shoe a simulated shoe on a real pty held by the campaign, which deals a card
whenever the round asks for one while a screen is up (the shoe is the table's, the screen
only the dealer's). The screen (tests/ui_service/screen_player.py, its own process, offscreen)
logs in, wagers, stands, confirms; the campaign kills it after 0..max_delay s from its start
(during its start-up and log-in too), starts it again, and it carries on from the service's
round. At the end: 0 rounds stuck, 0 results missing, 0 cards lost (the service campaign's
check), `verify` of the store.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from dealer_assist.service.client import ServiceClient, ServiceError
from hardware.simulator import SimulatedShoe
from tests.service.crash_campaign import ROOT, Campaign, Figures


class ScreenCampaign(Campaign):
    def __init__(self, where: Path, seed: int, max_delay: float, budget_s: float | None = None,
                 game: str = "lucky8") -> None:
        super().__init__(where, seed, max_delay)
        if game != "lucky8":  # the station's game (its configuration), the shoe's deck with it
            self.sim.close()
            decks = 6 if game in ("electronic", "star_elements") else 8  # their configurations allow up to 6
            self.sim = SimulatedShoe(game=game, decks=decks, seed=seed, penetration=None)
            self.sim.open()
            self.config.write_text(f'[table]\nname = "CRASH"\ngame = "{game}"\ndecks = {decks}\n'
                                   f'[shoe]\nport = "{self.sim.path}"\n')
        self.budget_s = budget_s  # stop killing after this much wall time (the figures say how many)
        self.screen: subprocess.Popen[bytes] | None = None
        self.ready_starts = 0

    def start_screen(self) -> subprocess.Popen[bytes]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("DEALER_ASSIST")}
        env.update(PYTHONPATH=str(ROOT), QT_QPA_PLATFORM="offscreen")
        return subprocess.Popen([sys.executable, "-m", "tests.ui_service.screen_player", str(self.sock),
                                 str(self.rng.randrange(1 << 30))],
                                cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)

    def shoe(self, obs: ServiceClient, until: float) -> None:
        """The shoe's side: a card whenever the round asks for one (or, at a decision, a hit)."""
        assert self.screen is not None
        while time.monotonic() < until and self.screen.poll() is None:
            state = obs.request("state")
            exp = state["expect"]
            wants = (exp["kind"] == "card" and not state["concluded"]) or \
                (state["betting"] and state["round_id"] is None and len(state["slip"]) >= 2) or \
                (exp["kind"] == "decision" and not state["tentative"] and self.rng.random() < 0.15)
            if wants and not (state["hold"] or state["in_flight"] or state["stray"]):
                card = self.sim.deal()
                if card is None:
                    self.sim.shuffle()
                    continue
                self.dealt.append(str(card))
                self.figures.cards_dealt += 1
            time.sleep(0.03 + self.rng.random() * 0.03)

    def _run(self, kills: int) -> Figures:
        began = time.monotonic()
        obs = self.start()  # the service (never killed here) and the campaign's own connection
        self.log_in(obs)  # accounts made once (sue, ann); this connection then logs out
        obs.request("logout")
        while self.figures.kills < kills and (self.budget_s is None or time.monotonic() - began < self.budget_s):
            self.screen = self.start_screen()
            spawned = time.monotonic()
            delay = self.rng.random() * self.max_delay
            try:
                self.shoe(obs, spawned + delay)
            except (ServiceError, OSError):
                pass
            self.screen.send_signal(signal.SIGKILL)
            self.screen.wait()
            out = self.screen.stdout.read() if self.screen.stdout else b""
            self.ready_starts += b"ready" in out
            self.screen = None
            self.figures.kills += 1
        # the last card may still be on its way from the pty when the last screen is killed: the
        # service is given (at most 10 s) to take what the shoe sent before it is stopped and
        # counted (a card still missing then is counted lost, as before)
        deadline = time.monotonic() + 10
        final = obs.request("state")
        while len(self.recorded_cards()) + held(final) < self.figures.cards_dealt \
                and time.monotonic() < deadline:
            time.sleep(0.1)
            final = obs.request("state")
        self.figures.held_at_end = held(final)
        self.figures.rounds = self.rounds_ended()
        obs.close()
        assert self.proc is not None
        self.proc.terminate()
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.sim.close()
        self.figures.seconds = time.monotonic() - began
        self.check(final)
        return self.figures

    def rounds_ended(self) -> int:
        import sqlite3

        db = sqlite3.connect(f"file:{self.state / 'table.db'}?mode=ro", uri=True)
        try:
            return int(db.execute("SELECT count(*) FROM rounds WHERE ended_at IS NOT NULL").fetchone()[0])
        finally:
            db.close()

    def run(self, kills: int) -> Figures:
        try:
            return super().run(kills)
        finally:
            if self.screen is not None and self.screen.poll() is None:
                self.screen.kill()
                self.screen.wait()


def held(state: dict[str, Any]) -> int:
    """Cards out of the shoe the service holds outside a round's events: reported in flight
    (journaled, 5.1) or the tentative implied hit of the last decision (journaled until the
    dealer confirms it or the next card makes it final)."""
    return len(state["in_flight"]) + sum(1 for e in state.get("tentative", []) if e.get("type") == "card")


def run(where: Path, kills: int, *, seed: int = 2323, max_delay: float = 5.0,
        budget_s: float | None = None, game: str = "lucky8") -> tuple[Figures, list[str]]:
    campaign = ScreenCampaign(where, seed, max_delay, budget_s, game)
    figures = campaign.run(kills)
    lines = figures.lines()
    lines[0] = f"{game}: screen SIGKILLs: {figures.kills} in {figures.seconds:.0f} s (the service never killed); " \
               f"{campaign.ready_starts} of the killed screens had logged in and were dealing"
    return figures, lines
