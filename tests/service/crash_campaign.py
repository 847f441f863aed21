"""SIGKILL the station service at random moments while a screen deals, and count what was
lost (issue 23): ``scripts/crash_test.py --service``. Not part of the test suite.

The service runs as on a station (`dealer-assist station serve --config`), the shoe is a
simulated shoe on a real pty that outlives every kill (it is the campaign's, as a real shoe
is the table's). The campaign is the dealer: it places wagers, stands when asked, keys in
what the service reports (cards in flight by sequence number, a hold after a restart: the
cards that came out and are not recorded) and starts the next round. At the end every card
the shoe delivered must be on record (an event, or settled by a supervisor's void), every
round ended or the one open round, and every ended round must carry its result.
"""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dealer_assist.service.client import ServiceClient, ServiceError
from dealer_assist.store import Store
from hardware.simulator import SimulatedShoe

ROOT = Path(__file__).resolve().parents[2]
SUPERVISOR = {"user": "sue", "pin": "482913"}


@dataclass
class Figures:
    kills: int = 0
    rounds: int = 0
    cards_dealt: int = 0
    cards_recorded: int = 0
    keyed_after_restart: int = 0
    holds_released: int = 0
    voids: int = 0
    set_aside: int = 0
    stuck: list[int] = field(default_factory=list)
    results_missing: list[int] = field(default_factory=list)
    cards_lost: list[str] = field(default_factory=list)
    verify: str = ""
    seconds: float = 0.0
    frames: int = 0  # frames the shoe sent (cards, hellos)
    held_at_end: int = 0  # cards the service holds at the end outside events: in flight, a tentative hit
    dealt_while_down: int = 0
    second_restarts: int = 0  # killed again before the dealer answered what the restart showed
    counts: int = 0  # independent counts (out of the shoe == on record), one after every restart
    count_misses: list[str] = field(default_factory=list)  # "kill N: cards" missing at a count
    refusals: list[str] = field(default_factory=list)  # a recovery the service refused

    def lines(self) -> list[str]:
        return [
            f"service SIGKILLs: {self.kills} in {self.seconds:.0f} s; shoe frames: {self.frames}; "
            f"{self.dealt_while_down} card(s) dealt while the service was down; "
            f"{self.second_restarts} second restart(s) before the dealer answered",
            f"rounds: {self.rounds}; cards dealt by the shoe: {self.cards_dealt}, on record: {self.cards_recorded}"
            f" in events, {self.held_at_end} held by the service at the end (in flight, a tentative hit)",
            f"counts after restarts (cards out of the shoe == cards on record): {self.counts}, "
            f"with a card missing: {len(self.count_misses)}; recoveries refused: {len(self.refusals)}",
            f"after restarts: {self.keyed_after_restart} card(s) keyed in by number, "
            f"{self.holds_released} hold(s) released with no card missing, {self.voids} void(s), "
            f"{self.set_aside} card(s) set aside between rounds by a supervisor",
            f"rounds stuck: {len(self.stuck)}; results missing: {len(self.results_missing)}; "
            f"cards lost: {len(self.cards_lost)}",
            f"verify: {self.verify}",
        ]


class Campaign:
    def __init__(self, where: Path, seed: int, max_delay: float) -> None:
        self.where = where
        self.rng = random.Random(seed)
        self.max_delay = max_delay
        self.sim = SimulatedShoe(game="lucky8", decks=8, seed=seed, penetration=None)
        self.sim.open()
        self.config = where / "station.toml"
        self.config.write_text(f'[table]\nname = "CRASH"\ngame = "lucky8"\ndecks = 8\n[shoe]\nport = "{self.sim.path}"\n')
        self.sock = where / "station.sock"
        self.state = where / "state"
        self.dealt: list[str] = []  # every card that came out of the shoe, in order
        self.figures = Figures()
        self.proc: subprocess.Popen[bytes] | None = None

    # ------------------------------------------------------------------ the service
    def start(self) -> ServiceClient:
        env = {k: v for k, v in os.environ.items() if not k.startswith("DEALER_ASSIST")}
        env["PYTHONPATH"] = str(ROOT)
        if self.sock.exists():
            self.sock.unlink()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "dealer_assist", "station", "--config", str(self.config), "serve",
             "--state-dir", str(self.state), "--socket", str(self.sock), "--log-dir", str(self.where)],
            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.sock.exists():
                try:
                    client = ServiceClient(self.sock, timeout_s=30)
                except ServiceError:
                    time.sleep(0.02)
                    continue
                while time.monotonic() < deadline:  # the service holds the shoe's port
                    shoe = client.request("state")["shoe"]
                    if shoe.get("connected") and shoe.get("last"):  # the shoe's hello read: any gap known
                        return client
                    time.sleep(0.02)
                break
            time.sleep(0.02)
        raise RuntimeError("the service did not start, or never opened the shoe's port")

    def kill_later(self, delay: float) -> threading.Timer:
        proc = self.proc
        assert proc is not None

        def kill() -> None:
            try:
                os.kill(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

        timer = threading.Timer(delay, kill)
        timer.start()
        return timer

    # ------------------------------------------------------------------ the dealer
    def log_in(self, c: ServiceClient) -> None:
        state = c.request("state")
        if state["needs_enrolment"]:
            c.request("enrol", name=SUPERVISOR["user"], pin=SUPERVISOR["pin"])
        try:
            c.request("login", name="ann", pin="730418")
        except ServiceError:
            c.request("add_account", name="ann", new_pin="246810", roles=["dealer"], pin=SUPERVISOR)
            c.request("change_pin", name="ann", old_pin="246810", new_pin="730418")
            c.request("login", name="ann", pin="730418")

    def on_record(self, state: dict[str, Any]) -> tuple[Counter[str], int]:
        """Every card on record now, counted independently of the service's own figures: card
        events, cards in flight (reported now, or settled by a supervisor: voided, set aside),
        cards set aside (keyed in: out of the shoe while the service was down), the tentative
        implied hit; and how many unread cards ("?") stand for one card each."""
        known = Counter(self.recorded_cards())
        db = sqlite3.connect(f"file:{self.state / 'table.db'}?mode=ro", uri=True)
        try:
            rows = [(k, json.loads(d)) for k, d in db.execute(
                "SELECT kind, detail_json FROM audit WHERE kind IN "
                "('card_in_flight', 'in_flight_settled', 'card_set_aside') ORDER BY id")]
        finally:
            db.close()
        flight: dict[int, str] = {}
        settled_cards: list[str] = []
        settled: set[int] = set()
        for kind, d in rows:
            seq = int(d.get("seq", -1)) if isinstance(d.get("seq"), int) else -1
            if kind == "card_in_flight":
                flight[seq] = str(d.get("card"))
            elif kind == "in_flight_settled" and seq not in settled:
                settled.add(seq)
                settled_cards.append(flight.get(seq, "?"))
        aside = [str(d.get("card")) for k, d in rows if k == "card_set_aside"
                 and (not isinstance(d.get("seq"), int) or d.get("keyed") or int(d["seq"]) not in settled)]
        cards = [c for x in settled_cards + aside for c in x.split()]
        cards += [x["card"] for x in state["in_flight"]]
        cards += [e["card"] for e in state.get("tentative", []) if e.get("type") == "card"]
        known.update(c for c in cards if c != "?")
        return known, sum(1 for c in cards if c == "?")

    def unrecorded(self, state: dict[str, Any]) -> list[str]:
        """Cards that came out and nothing on record holds yet, oldest first."""
        on_record, wild = self.on_record(state)
        out = []
        for card in self.dealt:
            if on_record[card] > 0:
                on_record[card] -= 1
            else:
                out.append(card)
        return out[wild:]

    def count(self, c: ServiceClient) -> None:
        """The independent count after a restart and its recovery: every card out of the
        shoe is on record, between rounds too."""
        self.figures.counts += 1
        missing = self.unrecorded(c.request("state"))
        if missing:
            self.figures.count_misses.append(f"after kill {self.figures.kills}: {' '.join(missing)}")

    def recover(self, c: ServiceClient) -> None:
        """After a restart: what the service reports, answered as a dealer would."""
        for _ in range(20):
            state = c.request("state")
            if state["refused"]:
                raise RuntimeError(state["refused"])
            if state["stray"] is not None or (state["tentative_held"]):
                if state["tentative_held"]:
                    c.request("confirm_hit")
                    continue
                self.settle_otherwise(c, None)
                continue
            flight = state["in_flight"]
            if flight:
                first = flight[0]
                card = first["card"]
                extra: dict[str, Any] = {}
                if card == "?":
                    missing = self.unrecorded(state)
                    card = missing[0] if missing else "2C"
                    extra = {"pin": SUPERVISOR}  # an unread card: a supervisor keys it in (5.1)
                try:
                    c.request("key_card", card=card, seq=first["seq"], **extra)
                    self.figures.keyed_after_restart += 1
                except ServiceError:
                    self.settle_otherwise(c, first["seq"])
                continue
            if state["hold"]:
                missing = self.unrecorded(state)
                if missing:
                    try:
                        c.request("key_card", card=missing[0])
                        self.figures.keyed_after_restart += 1
                    except ServiceError as exc:
                        if state["round_id"] is not None and not state["concluded"]:
                            c.request("void", reason=f"crash campaign: keyed card refused: {exc}", rule="5.2",
                                      pin=SUPERVISOR)
                            self.figures.voids += 1
                        else:  # out of the shoe between rounds: removed and discarded (5.1 counts it)
                            c.request("set_aside", card=missing[0], pin=SUPERVISOR)
                            self.figures.set_aside += 1
                else:
                    c.request("release_hold")
                    self.figures.holds_released += 1
                continue
            return

    def settle_otherwise(self, c: ServiceClient, seq: int | None) -> None:
        """A card the round cannot take: the supervisor voids the round, or (no round in play)
        sets the card aside; both are on record."""
        try:
            c.request("void", reason="crash campaign: a card the round cannot take", rule="5.2", pin=SUPERVISOR)
            self.figures.voids += 1
        except ServiceError:
            c.request("set_aside", pin=SUPERVISOR, **({"seq": seq} if seq is not None else {}))
            self.figures.set_aside += 1

    def play(self, c: ServiceClient, until: float) -> None:
        """Deal until ``until`` (or until the connection drops: the kill)."""
        while time.monotonic() < until:
            state = c.request("state")
            if state["hold"] or state["in_flight"] or state["stray"] is not None:
                self.recover(c)
                continue
            if state["concluded"]:
                c.request("next_round")
                self.figures.rounds += 1
                continue
            if state["betting"]:
                if not state["slip"]:
                    c.request("wager", player="p1", bet="main", amount=10, area=1)
                    c.request("wager", player="p2", bet="main", amount=20, area=2)
                    continue
            exp = state["expect"]
            if exp["kind"] == "decision" and state["tentative"]:
                c.request("confirm_hit")
                continue
            if exp["kind"] == "decision" and "stand" in exp["options"] and self.rng.random() < 0.6:
                c.request("decide", action="stand", area=exp["area"], hand=exp["hand"], player=exp["player"])
                continue
            if exp["kind"] in ("card", "decision", "wagers"):
                card = self.sim.deal()
                if card is None:
                    self.sim.shuffle()
                    continue
                self.dealt.append(str(card))
                self.figures.cards_dealt += 1
                time.sleep(self.rng.random() * 0.02)
                continue
            time.sleep(0.01)

    # ------------------------------------------------------------------ the record
    def recorded_cards(self) -> list[str]:
        db = sqlite3.connect(f"file:{self.state / 'table.db'}?mode=ro", uri=True)
        try:
            out: list[str] = []
            for (raw,) in db.execute("SELECT event_json FROM events ORDER BY round_id, seq"):
                import json

                event = json.loads(raw)
                if event.get("type") in ("card", "burn"):
                    out.append(str(event["card"]))
                elif event.get("type") == "multi":
                    out += [str(x) for x in event.get("cards", [])]
            return out
        finally:
            db.close()

    def run(self, kills: int) -> Figures:
        try:
            return self._run(kills)
        finally:
            if self.proc is not None and self.proc.poll() is None:
                self.proc.kill()  # never leave a service behind holding the shoe's port
                self.proc.wait()

    def deal_while_down(self) -> None:
        """The shoe deals on while nobody reads it (in play or between rounds)."""
        for _ in range(self.rng.choice((0, 0, 1, 1, 2))):
            card = self.sim.deal()
            if card is None:
                return
            self.dealt.append(str(card))
            self.figures.cards_dealt += 1
            self.figures.dealt_while_down += 1

    def _run(self, kills: int) -> Figures:
        began = time.monotonic()
        first_seq = self.sim.seq
        try:
            return self._campaign(kills, began, first_seq)
        except (ServiceError, OSError, RuntimeError) as exc:  # the figures so far, and why it stopped
            self.figures.refusals.append(f"after kill {self.figures.kills}: {exc}")
            self.figures.seconds = time.monotonic() - began
            self.figures.frames = (self.sim.seq - first_seq) % 10000
            self.count_final()
            return self.figures

    def count_final(self) -> None:
        """The record as it stands (the service stopped): the check with no state to add."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        try:
            self.check({"in_flight": [], "tentative": [], "round_id": None})
        except Exception as exc:  # noqa: BLE001 - reported, the figures still printed
            self.figures.refusals.append(f"the final check failed: {exc}")

    def _campaign(self, kills: int, began: float, first_seq: int) -> Figures:
        while self.figures.kills < kills:
            c = self.start()
            try:
                self.log_in(c)
                if self.figures.kills and self.rng.random() < 0.15:
                    self.figures.second_restarts += 1  # killed again before the dealer answers
                    raise OSError("second restart")
                self.recover(c)
                self.count(c)
                delay = self.rng.random() * self.max_delay
                timer = self.kill_later(delay)
                try:
                    self.play(c, time.monotonic() + delay + 5)
                except (ServiceError, OSError):
                    pass
                timer.join()
            except (ServiceError, OSError):
                pass
            finally:
                c.close()
            if self.proc is not None:
                if self.proc.poll() is None:
                    os.kill(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
                self.figures.kills += 1
                self.deal_while_down()
        # the last start: recover, then check the record
        c = self.start()
        self.log_in(c)
        self.recover(c)
        self.count(c)
        final = c.request("state")
        c.close()
        assert self.proc is not None
        self.proc.terminate()
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            print("the service did not stop on SIGTERM within 20 s (killed)")
        self.figures.frames = (self.sim.seq - first_seq) % 10000
        self.sim.close()
        self.figures.seconds = time.monotonic() - began
        self.check(final)
        return self.figures

    def check(self, final: dict[str, Any]) -> None:
        """Every card the shoe delivered is on record: a card event, or a card in flight that
        a supervisor settled (a void, 5.2, or set aside between rounds), or one reported in
        flight now; an unread card ("?") settled that way stands for one card."""
        f = self.figures
        recorded = self.recorded_cards()
        f.cards_recorded = len(recorded)
        with Store.open_readonly(self.state / "table.db") as store:
            f.verify = "ok" if store.verify().ok else "FAILED"
            for summary in store.list_rounds(limit=100000):
                detail = store.get_round(summary.id)
                if summary.ended_at is None:  # open: only the round on the table may be
                    if summary.id != final.get("round_id"):
                        f.stuck.append(summary.id)
                elif detail is None or not isinstance(detail.result, dict):
                    f.results_missing.append(summary.id)
        known, wild = self.on_record(final)
        missing = []
        for card in self.dealt:
            if known[card] > 0:
                known[card] -= 1
            else:
                missing.append(card)
        f.cards_lost = missing[wild:]


def run(where: Path, kills: int, *, seed: int = 23, max_delay: float = 1.5) -> Figures:
    return Campaign(where, seed, max_delay).run(kills)
