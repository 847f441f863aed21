"""The table as the station service runs it: the engine's table session, the store, the
logged-in dealer of each connection, the supervisor PIN checks, the shoe's events and the
cards in flight. No sockets here (server.py) and no device (the shoe's events arrive as
the JSON of ``hardware.events.event_to_json``).

Every input goes through the session, which decides; what it records is written to the
store (one transaction) before any client is told (:attr:`TableService.notify`). A card
the shoe delivered that no event records yet (held, or waiting behind a hold) is written
first as a ``card_in_flight`` audit entry, so that after any restart it is reported by
its sequence number until the dealer keys it in or a supervisor voids it.
"""

from __future__ import annotations

import datetime as dt
import hmac
import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dealer_assist.base.cards import CardNotationError, parse_card
from dealer_assist.base.errors import (
    DealerAssistError,
    EventFormatError,
    RuleRefusal,
    TranscriptError,
)
from dealer_assist.base.money import AmountError, parse_amount
from dealer_assist.engine.events import Burn, CardDrawn, Event, Multi, Void
from dealer_assist.engine.session import UNREAD, Step, TableSession, cards_out
from dealer_assist.engine.table_setup import SetupError, TableSetup, setup_problem, setup_to_json
from dealer_assist.engine.transcript import (
    event_to_transcript,
    parse_event,
    parse_target,
    round_output,
)
from dealer_assist.games import GAMES
from dealer_assist.service.anchor import (
    ANCHOR_NAME,
    Anchor,
    read_anchor,
    rollback_problem,
    write_anchor,
)
from dealer_assist.service.journal import JOURNAL_NAME, ShoeJournal, frames_between
from dealer_assist.service.pins import PinWorker, RefusalSummary, Throttle, Verified
from dealer_assist.service.protocol import ProtocolError
from dealer_assist.service.resume import RESUME_NAME, ResumeTokens
from dealer_assist.service.review_token import (
    REVIEW_NAME,
    ReviewTokenRefused,
    ReviewTokens,
    iso_time,
)
from dealer_assist.service.sim_faults import SIM_FAULTS, simulate
from dealer_assist.store import Store, StoreError
from dealer_assist.store.common import format_time
from dealer_assist.store.users import PinCheck, lock_seconds

PENDING_CARD_KIND = "implied_card"  # as the screen wrote it: the tentative implied hit
IN_FLIGHT_KIND = "card_in_flight"
SETTLED_KIND = "in_flight_settled"
REFUSED_KIND = "store_refused"
SETUP_CHANGED_KIND = "table_setup_changed"  # a supervisor's change of the table's set-up, old -> new
SETUP_FIELDS = ("game", "decks", "areas", "limits", "seated", "terminals", "decision_seconds", "chips")
DECISION_SECONDS = (5, 120)  # Electronic's decision time, as the set-up dialog offers it
# Inputs a dealer gives, by op name: the op names the event's type, the client never does.
DEALER_INPUTS = {
    "wager": "wager", "claim": "claim", "decide": "decision", "close_offers": "close_offers",
    "timeout": "timeout", "absent": "absent", "withdraw": "withdraw", "power_failure": "power_failure",
}
# Inputs that need a supervisor's PIN (docs/store.md, the authority table): op -> (type, approval kind)
SUPERVISED = {"void": ("void", "void"), "resolve": ("resolve", "resolve"),
              "correct": ("correction", "correction"), "pick": ("pick", "override")}
ACCOUNT_OPS = ("enrol", "login", "resume", "logout", "unlock", "users", "add_account", "change_pin", "approve",
               "set_disabled", "reset_pin", "snapshot", "end_review", "root_unlock")
# account ops that touch no table state: run outside the table's lock (those hashing a new
# PIN on the PIN worker: dealer_assist/service/pins.py)
OFF_TABLE = ("enrol", "change_pin", "add_account", "reset_pin", "set_disabled", "users", "root_unlock")
ENROL_CODE_NAME = "enrol-code"  # the first enrolment's one-time code (station init writes it; root's eyes)
TABLE_OPS = ("refer", "no_more_bets", "set_slip", "take_back", "key_card", "place_card", "double_last_card",
             "confirm_hit",
             "face_up", "next_round", "release_hold", "set_aside", "sim_deal", "set_table")
OPS = frozenset(("state", *ACCOUNT_OPS, *DEALER_INPUTS, *SUPERVISED, *TABLE_OPS))
HOLDING = ("noread", "gap", "error")
APPROVAL_KINDS = ("void", "resolve", "correction", "override", "accounts", "review", "undo", "key_card", "setup")


@dataclass
class Client:
    """One connection: the OS account (SO_PEERCRED), its kind and who logged in on it."""

    account: str
    kind: str
    dealer: str | None = None
    # approvals the service granted on this connection (op ``approve``): id -> (kind, supervisor);
    # an ``accounts`` approval serves the accounts dialog it opened, any other is used once
    approvals: dict[int, tuple[str, str]] = field(default_factory=dict)
    pass_fd: int | None = None  # a descriptor the server sends with the reply (op snapshot), then closes
    uid: int = -1  # the peer's uid (SO_PEERCRED): the per-peer PIN throttle, root's op root_unlock


def refused(message: str, clause: str | None = None) -> ProtocolError:
    return ProtocolError("refused", message, clause)


def _clause_of(text: str) -> str | None:
    """The clause a refusal names last, e.g. '... (5.3)' -> '5.3'."""
    if text.endswith(")") and "(" in text:
        inner = text[text.rindex("(") + 1:-1].split()[0].rstrip(",")
        if inner[:1].isdigit():
            return inner
    return None


class TableService:
    """One table: the session and its store, behind one lock (every op and shoe event in turn)."""

    def __init__(self, store: Store, table: dict[str, Any], *, state_dir: Path, station: dict[str, Any],
                 notify: Callable[[str, dict[str, Any]], None] | None = None,
                 log: logging.Logger | None = None, setup: TableSetup | None = None) -> None:
        self.store = store
        # the table's set-up (game, decks, areas, limits, seats ...): the station's, then as a
        # supervisor changes it (op set_table)
        self.setup = setup or TableSetup(game=str(table["game"]), decks=int(table["decks"]),
                                         areas=int(table.get("areas") or 7),
                                         limits={k: list(v) for k, v in (table.get("limits") or {}).items()},
                                         seated=dict(table.get("seated") or {}))
        self.state_dir = state_dir
        self.station = station
        self.notify = notify or (lambda name, data: None)
        self.log = log or logging.getLogger("dealer_assist.service")
        self.lock = threading.RLock()
        self.refused = ""  # the store was refused at start: every op answers this
        self.store_error = ""
        self.session = TableSession(table, store.under_min_players())
        self.round_id: int | None = None
        self.session_id: int | None = None
        self.hold = ""  # a card may be missing: later cards wait until the dealer keys it in
        self.queue: list[dict[str, Any]] = []  # shoe cards waiting behind a hold or a held card
        self.stray: dict[str, Any] | None = None  # a card that fits no reading: {seq, card, reason}
        self.in_flight: dict[int, dict[str, Any]] = {}  # seq -> {card, audit}: delivered, unrecorded
        self.shoe: dict[str, Any] = {"connected": False}
        self.floor: Callable[[], dict[str, Any]] | None = None  # the floor link's state, if any
        self.simulator: Any = None  # the simulated shoe (no shoe configured): op sim_deal deals from it
        self.face_up_next = False
        # the dealer referred the round to the Gaming Shift Manager (6.1): {rule, text, by}; no card
        # is assigned and no input taken until the shift manager's decision (op resolve)
        self.referral: dict[str, Any] | None = None
        self.gap: dict[str, Any] | None = None  # the frames a restart gap covers
        self.anchor_path = state_dir / ANCHOR_NAME
        self.anchor_slot = 0
        self.anchor_due: int | None = None  # the round whose anchor is to be written
        self.journal = ShoeJournal(state_dir / JOURNAL_NAME)
        self.resume_tokens = ResumeTokens(state_dir / RESUME_NAME)
        self.review_tokens = ReviewTokens(state_dir / REVIEW_NAME)
        self.last_frame: int | None = None  # the seq of the last frame read before this start
        self.pins = PinWorker()  # PIN checks: never under self.lock (dealer_assist/service/pins.py)
        self.throttle = Throttle()
        self.refusals = RefusalSummary(lambda name, detail: self.store.add_audit(
            "pin_refusals", actor="service", detail=detail))

    # ------------------------------------------------------------------ start
    def start(self) -> None:
        """Refuse an old store (rollback), then restore the open round and the cards in flight."""
        key = self.store.station_key or b""
        newest, generation, head = self.store.read_with(_progress)
        outside = _outside_generation(self.store, key)
        try:
            anchor = read_anchor(self.anchor_path, key)
            problem = rollback_problem(anchor, newest, generation, outside)
        except ValueError as exc:
            problem = str(exc)
        if head is None and newest == 0:
            problem = problem if anchor_exists(self.anchor_path) else ""
        if problem:
            self.refused = f"the store {self.store.path} is refused: {problem}"
            self.log.critical("significant event: %s", self.refused)
            return
        self._restore_setup()
        open_round = self.store.find_open_round()
        if open_round is not None:
            self._restore(open_round)
        else:
            self._continue_shoe()
        self._restore_in_flight()

    def _continue_shoe(self) -> None:
        """The shoe of the last recorded round goes on (spec/round-script.md ``shoe``)."""
        last = self.store.latest_round()
        if last is not None:
            try:
                self.session.continue_shoe(last.config, cards_out(parse_event(e) for e in last.events))
            except (EventFormatError, KeyError, TypeError, ValueError) as exc:
                self.log.error("the last round's shoe cannot be continued: %s", exc)

    def _restore_setup(self) -> None:
        """The set-up a supervisor last chose at this table (kept over a restart)."""
        entries = self.store.audit_entries(kind=SETUP_CHANGED_KIND)
        if not entries:
            return
        try:
            setup = TableSetup(**entries[-1].detail["new"])
            if setup_problem(setup) is None:
                self.use_setup(setup)
        except (KeyError, TypeError, DealerAssistError, TranscriptError, SetupError) as exc:
            self.log.error("the table's last set-up cannot be used: %s", exc)

    def adopt_station_setup(self, setup: TableSetup, source: str) -> None:
        """Root changed the table's set-up in the station's file (``source``): it is the table's
        from now on, audited old -> new like a supervisor's change (the latest entry wins at
        the next start)."""
        old, wanted = setup_to_json(self.setup), setup_to_json(setup)
        changes = {k: [old[k], wanted[k]] for k in SETUP_FIELDS if old[k] != wanted[k]}
        if changes:
            self.store.add_audit(SETUP_CHANGED_KIND, actor="service", detail={
                "old": old, "new": wanted, "changes": changes, "source": source})
        self.use_setup(setup)

    def use_setup(self, setup: TableSetup) -> None:
        """``setup`` from the next round on (this one too while it is taking no wager yet)."""
        self.session.set_table(setup.config([]))
        self.setup = setup
        if self.round_id is None and self.session.betting and not self.session.slip:
            self.session.new_round()

    def _restore(self, open_round: Any) -> None:
        pending: list[Event] = []
        entries = self.store.audit_entries(round_id=open_round.round_id, kind=PENDING_CARD_KIND)
        if entries and entries[-1].detail.get("events") == len(open_round.events):
            try:
                pending = [parse_event(entries[-1].detail.get("hit")), parse_event(entries[-1].detail.get("card"))]
            except EventFormatError:
                pending = []
        try:
            self.session.restore(open_round.config, [parse_event(e) for e in open_round.events], pending)
        except (DealerAssistError, TranscriptError) as exc:
            self.log.error("the open round %s cannot be replayed: %s", open_round.round_id, exc)
            return
        self.round_id = open_round.round_id
        self.store.add_audit("recovered", actor="system", round_id=self.round_id,
                             detail={"events": len(open_round.events)})
        if open_round.status == "referred" and self.session.round.status() == "in_progress":
            referrals = self.store.audit_entries(round_id=self.round_id, kind="referral")
            detail = referrals[-1].detail if referrals else {}
            self.referral = {"rule": str(detail.get("rule") or self._refer_clause()),
                             "text": str(detail.get("text", "")), "by": referrals[-1].actor if referrals else ""}
        if self.session.concluded:  # killed between the last event and its result
            self._write_result()
            self._write_anchor()

    def _restore_in_flight(self) -> None:
        recorded = set(self.store.read_with(_recorded_seqs))
        settled = {int(e.detail.get("seq", -1)) for e in self.store.audit_entries(kind=SETTLED_KIND)}
        for entry in self.store.audit_entries(kind=IN_FLIGHT_KIND):
            seq = int(entry.detail.get("seq", -1))
            if seq in recorded or seq in settled:
                continue
            place = entry.detail.get("feed")
            if isinstance(place, int):  # one card of a double feed (a keyed-in one written later)
                count = int(entry.detail.get("count", place + 1))
                known = self.in_flight.get(seq, {}).get("cards") or [UNREAD] * count
                known[place] = str(entry.detail.get("card"))
                self.in_flight[seq] = {"card": known[0], "cards": known, "audit": entry.id}
                continue
            self.in_flight[seq] = {"card": str(entry.detail.get("card")), "audit": entry.id}
            self.session.delivered(seq, str(entry.detail.get("card")))
        pending = self.session.tentative
        for event in pending:
            if isinstance(event, CardDrawn) and event.shoe_seq is not None:
                self.in_flight.pop(event.shoe_seq, None)
        last = self.journal.read()
        if last is not None and isinstance(last.get("seq"), int):
            self.last_frame = int(last["seq"])
            seq = self.last_frame
            settled = {int(e.detail.get("seq", -1)) for e in self.store.audit_entries(kind=SETTLED_KIND)}
            unrecorded = seq not in recorded and seq not in self.in_flight and seq not in settled
            held = any(isinstance(e, CardDrawn) and e.shoe_seq == seq for e in pending)
            if unrecorded and not held and last.get("event") in ("card", "multi", "noread"):
                # read, then the service stopped before recording it: in flight now
                self._in_flight({"seq": seq, "card": last.get("card") or UNREAD}
                                if last.get("event") != "multi" else last)
        for seq, flight in sorted(self.in_flight.items()):  # double feeds: dealt together, in turn
            if "cards" in flight:
                self.session.double_feed(seq, [c for c in flight["cards"] if c != UNREAD], len(flight["cards"]))
                self.queue.append(_feed_event(seq, flight["cards"]))
        if self.session.unread:
            self.hold = "a card came out of the shoe unread before the restart: key it in by its number"

    # ------------------------------------------------------------------ state
    def state(self) -> dict[str, Any]:
        rnd = self.session.round
        exp = rnd.expectation()
        return {
            "refused": self.refused, "store_error": self.store_error,
            "round_id": self.round_id, "betting": self.session.betting,
            "config": self.session.config,
            "events": [event_to_transcript(e) for e in self.session.recorded],
            "slip": [event_to_transcript(e) for e in self.session.slip],
            "tentative": [event_to_transcript(e) for e in self.session.tentative],
            "tentative_held": self.session.tentative_held,
            "expect": {"kind": exp.kind, "target": exp.target, "area": exp.area, "hand": exp.hand,
                       "player": exp.player, "options": list(exp.options), "rule": exp.rule, "text": exp.text},
            "output": round_output(rnd), "concluded": self.session.concluded,
            "hold": self.hold, "gap": self.gap, "referral": self.referral, "queued": len(self.queue), "stray": self.stray,
            "in_flight": [{"seq": s, "card": card} for s, v in sorted(self.in_flight.items())
                          for card in v.get("cards") or [v["card"]]],
            "under_min": sorted(self.session.under_min), "shoe": dict(self.shoe),
            "floor": self.floor() if self.floor is not None else None,
            "needs_enrolment": self.store.needs_enrolment(), "simulated_shoe": self.simulator is not None,
            "sim_faults": list(SIM_FAULTS.items()) if self.simulator is not None else [],
            "setup": setup_to_json(self.setup),
        }

    def _changed(self) -> None:
        self.notify("round", self.state())
        self._write_anchor()

    # ------------------------------------------------------------------ ops
    def handle(self, client: Client, op: str, args: dict[str, Any]) -> Any:
        """One request; ProtocolError (refused, pin, auth, bad_request, busy) when it is not done.
        A PIN in it is checked first, on the PIN worker, outside the table's lock."""
        if op not in OPS:
            raise ProtocolError("bad_request", f"no op {op!r} (docs/station.md lists the ops)")
        if op != "state" and (op in ACCOUNT_OPS or isinstance(args.get("pin"), dict)):
            self._open_or_refuse()
            if op not in ACCOUNT_OPS and client.dealer is None:  # no PIN checked for nobody
                raise ProtocolError("auth", "no dealer is logged in on this screen: log in first")
            args = self._check_pin_first(client, op, args)
            if op in OFF_TABLE:
                return self._off_table(client, op, args)
        with self.lock:
            if op == "state":
                state = self.state()  # and whether this client's enrolment needs root's code
                state["enrol_code_needed"] = bool(state["needs_enrolment"]) and self.enrol_code_needed(client)
                return state
            self._open_or_refuse()
            if op in ACCOUNT_OPS:
                return getattr(self, f"_op_{op}")(client, args)
            if client.dealer is None:
                raise ProtocolError("auth", "no dealer is logged in on this screen: log in first")
            try:
                return self._table_op(client, op, args)
            except RuleRefusal as exc:
                raise refused(str(exc), _clause_of(str(exc))) from None
            except (EventFormatError, TranscriptError, CardNotationError, AmountError) as exc:
                raise ProtocolError("bad_request", str(exc)) from None
            except StoreError as exc:
                self.store_error = str(exc)
                self.log.error("the store failed: %s", exc)
                raise ProtocolError("internal", f"the store failed: {exc}") from None

    def _open_or_refuse(self) -> None:
        if self.refused:
            raise refused(self.refused)
        if self.store_error:
            raise refused(f"not recorded: {self.store_error}")

    # ------------------------------------------------------------------ PINs (pins.py)
    def _check_pin_first(self, client: Client, op: str, args: dict[str, Any]) -> dict[str, Any]:
        """The request's PIN checked on the PIN worker (outside the table's lock): the args
        with :class:`Verified` in its place, or ProtocolError(pin) after the throttle's delay."""
        if op == "login":
            key, user, pin, role = "pin", args.get("name", ""), args.get("pin", ""), "dealer"
        elif op == "approve":
            if str(args.get("kind", "")) not in APPROVAL_KINDS:
                raise ProtocolError("bad_request", f"no approval of kind {args.get('kind')!r}: one of "
                                    f"{', '.join(APPROVAL_KINDS)}")
            key, user, pin, role = "pin", args.get("user", ""), args.get("pin", ""), "supervisor"
        elif isinstance(args.get("pin"), dict):
            key, user, pin, role = "pin", args["pin"].get("user", ""), args["pin"].get("pin", ""), "supervisor"
            if op == "unlock" and str(user) == str(args.get("name", "")):
                raise ProtocolError("pin", "another supervisor must clear this lock")
        else:
            return args
        name = str(user)
        self._ghost_locked(client, name)
        check = self.pins.run(lambda: self.store.check_pin(
            name, str(pin), role=role, purpose="login" if op == "login" else "approval", audit_locked=False))
        if check.ok:
            self.throttle.passed(name)
            return {**args, key: Verified(name)}
        self._pin_refused(client, name, check)
        raise AssertionError("unreachable")  # _pin_refused raises

    def _pin_refused(self, client: Client, name: str, check: PinCheck) -> None:
        """Raise the refusal of a PIN, after the throttle's delay (a guesser is slowed; a
        right PIN never waits). An unknown name is answered as a known one would be: wrong,
        then locked for as long (in memory, no row)."""
        if check.reason in ("must_change", "new_pin", "error"):
            raise ProtocolError("pin", _pin_text(check), reason=check.reason)
        if check.reason == "locked":  # not checked (no scrypt): a refusal of the peer, summarised
            self.refusals.note(name, "locked", format_time(_now()))
            delay = self.throttle.failed(name, client.uid, by_name=False)
        else:
            delay = self.throttle.failed(name, client.uid)
            count = self.throttle.by_name.get(name, 0)
            if not check.known and lock_seconds(count):  # as the store locks a known name
                until = format_time(_now() + dt.timedelta(seconds=lock_seconds(count)))
                self.throttle.ghosts[name] = until
                check = PinCheck(False, "wrong", locked_until=until)
        if delay:
            time.sleep(delay)
        raise ProtocolError("pin", _pin_text(check), None, reason=check.reason)

    def _ghost_locked(self, client: Client, name: str) -> None:
        """An unknown name "locked" by the throttle is refused as a locked name is: at once."""
        until = self.throttle.ghosts.get(name)
        if until is not None and until > format_time(_now()):
            delay = self.throttle.failed(name, client.uid, by_name=False)
            if delay:
                time.sleep(delay)
            raise ProtocolError("pin", _pin_text(PinCheck(False, "locked", locked_until=until)), reason="locked")

    def flush_refusals(self) -> None:
        """The refusals' summary rows that are due (the server's health thread, each few s)."""
        if self.refused or self.store_error:
            return
        try:
            self.refusals.flush()
        except StoreError as exc:
            self.log.error("the PIN refusals' summary was not written: %s", exc)

    def _off_table(self, client: Client, op: str, args: dict[str, Any]) -> Any:
        """An account op that changes no table state: without the table's lock; one that
        hashes a new PIN on the PIN worker."""
        try:
            if op == "change_pin":  # its refusal waits the throttle's delay here, never on the worker
                name = str(args.get("name", ""))
                self._ghost_locked(client, name)
                check = self.pins.run(lambda: self.store.change_pin(
                    name, str(args.get("old_pin", "")), str(args.get("new_pin", "")), audit_locked=False))
                if not check.ok:
                    self._pin_refused(client, name, check)
                self.throttle.passed(name)
                return {"changed": name}
            if op == "enrol":
                self._enrol_code(client, args)
            if op in ("users", "set_disabled", "root_unlock"):
                return getattr(self, f"_op_{op}")(client, args)
            return self.pins.run(lambda: getattr(self, f"_op_{op}")(client, args))
        except StoreError as exc:
            raise ProtocolError("internal", f"the store failed: {exc}") from None

    def enrol_code_needed(self, client: Client) -> bool:
        """The first enrolment needs root's one-time code, except from the service's own
        account (a development service: its private socket) or root."""
        return client.uid not in (0, os.getuid())

    def _enrol_code(self, client: Client, args: dict[str, Any]) -> None:
        """Refuse a first enrolment without root's one-time code (when one is needed)."""
        if not self.store.needs_enrolment():
            raise refused("this station already has a supervisor: accounts are added by a supervisor")
        code_file = self.state_dir / ENROL_CODE_NAME
        if self.enrol_code_needed(client):
            try:
                code = code_file.read_text(encoding="utf-8").strip()
            except OSError:
                code = ""
            given = str(args.get("code", "")).strip()
            if not code or not hmac.compare_digest(given.encode(), code.encode()):
                delay = self.throttle.failed("enrolment code", client.uid)
                time.sleep(delay)
                self.log.warning("first enrolment refused (account %s): %s", client.account,
                                 "wrong enrolment code" if given else "no enrolment code")
                raise refused("the first supervisor is enrolled with the enrolment code root has: `sudo "
                              "dealer-assist station enrol-code` prints one" + (" (that code is not it)"
                                                                                 if given else ""))

    def _op_enrol(self, client: Client, args: dict[str, Any]) -> Any:
        """The first supervisor (on the PIN worker: a new PIN's hash), after :meth:`_enrol_code`."""
        name, pin = str(args.get("name", "")), str(args.get("pin", ""))
        if not self.store.needs_enrolment():
            raise refused("this station already has a supervisor: accounts are added by a supervisor")
        code_file = self.state_dir / ENROL_CODE_NAME
        try:
            approval = self.store.enrol_supervisor(name, pin)
        except StoreError as exc:
            raise ProtocolError("bad_request", str(exc)) from None
        try:
            code_file.unlink()  # one time
        except FileNotFoundError:
            pass
        client.approvals[approval] = ("accounts", name)  # the new supervisor adds the dealers next
        self.log.info("first supervisor %s enrolled from account %s", name, client.account)
        return {"enrolled": name, "approval": approval}

    def _op_login(self, client: Client, args: dict[str, Any]) -> Any:
        name, pin = str(args.get("name", "")), args.get("pin")
        if not isinstance(pin, Verified) or pin.user != name:
            raise ProtocolError("pin", "wrong name or PIN", reason="wrong")
        self.store.add_audit("shift_start", actor=name, detail={"role": "dealer"})
        self._on_shift(client, name)
        self.log.info("dealer %s logged in (account %s)", name, client.account)
        return {"dealer": name, "resume": self.resume_tokens.issue(name, client.account)}

    def _on_shift(self, client: Client, name: str) -> None:
        client.dealer = name
        self.session_id = self.store.start_session(
            game=self.session.table["game"], decks=int(self.session.table["decks"]),
            areas=self.session.table.get("areas"), limits=None, dealer=name)

    def _op_resume(self, client: Client, args: dict[str, Any]) -> Any:
        """The screen reconnected after the service restarted: its dealer's shift goes on (no PIN)."""
        name = self.resume_tokens.take(str(args.get("token", "")), client.account)
        if name is None:
            raise ProtocolError("auth", "this shift cannot be resumed: log in again")
        if not any(u["username"] == name and not u.get("disabled") for u in self.store.users()):
            self.resume_tokens.end(name, client.account)
            raise ProtocolError("auth", f"{name} cannot log in any more: log in again")
        self.store.add_audit("shift_resumed", actor=name, detail={"role": "dealer", "account": client.account})
        self._on_shift(client, name)
        self.log.info("dealer %s's shift resumed after a restart (account %s)", name, client.account)
        return {"dealer": name}

    def _op_logout(self, client: Client, args: dict[str, Any]) -> Any:
        if client.dealer is not None:
            if self.session_id is not None:
                self.store.end_session(self.session_id, actor=client.dealer)
                self.session_id = None
            self.store.end_shift(client.dealer)
            self.resume_tokens.end(client.dealer, client.account)
        client.dealer = None
        return {}

    def disconnected(self, client: Client) -> None:
        """A connection closed (the screen closed or was killed): its dealer's shift ends."""
        with self.lock:
            client.approvals.clear()
            if client.dealer is not None and not self.refused and not self.store_error:
                self.log.info("dealer %s logged out: the connection closed (account %s)", client.dealer, client.account)
                self._op_logout(client, {})

    def _op_unlock(self, client: Client, args: dict[str, Any]) -> Any:
        """A locked name's lock cleared by another supervisor's PIN (issue 23 item 7)."""
        name = str(args.get("name", ""))
        approval, _ = self._approval(client, args, "accounts", None, forbid=name)
        self.store.clear_lockout(name, approval=approval)
        return {"unlocked": name}

    def _op_add_account(self, client: Client, args: dict[str, Any]) -> Any:
        """A supervisor adds an account (its PIN to be changed at its first log-in)."""
        name, roles = str(args.get("name", "")), args.get("roles") or ["dealer"]
        approval, who = self._approval(client, args, "accounts", None)
        try:
            self.store.add_account(name, str(args.get("new_pin", "")), [str(r) for r in roles], approval=approval,
                                   actor=f"supervisor:{who}")
        except StoreError as exc:
            raise refused(str(exc)) from None
        return {"added": name}

    def _op_set_disabled(self, client: Client, args: dict[str, Any]) -> Any:
        name, disabled = str(args.get("name", "")), bool(args.get("disabled"))
        approval, who = self._approval(client, args, "accounts", None)
        try:
            self.store.set_account_disabled(name, disabled, approval=approval, actor=f"supervisor:{who}")
        except StoreError as exc:
            raise refused(str(exc)) from None
        return {"name": name, "disabled": disabled}

    def _op_reset_pin(self, client: Client, args: dict[str, Any]) -> Any:
        name = str(args.get("name", ""))
        approval, who = self._approval(client, args, "accounts", None)
        try:
            self.store.reset_pin(name, str(args.get("new_pin", "")), approval=approval, actor=f"supervisor:{who}")
        except StoreError as exc:
            raise refused(str(exc)) from None
        return {"reset": name}

    def _op_snapshot(self, client: Client, args: dict[str, Any]) -> Any:
        """The review's read-only copy of the store, passed with the reply as an open file
        (dealer_assist/service/snapshot.py): after a supervisor's PIN (audited ``review``), which
        also answers a review token; or again with that token (same OS account, not expired,
        not ended: dealer_assist/service/review_token.py), no PIN."""
        from dealer_assist.service.snapshot import make_snapshot

        token = args.get("token")
        if token is not None:
            try:
                grant = self.review_tokens.check(str(token), client.account)
            except ReviewTokenRefused as exc:
                self.log.warning("review copy refused (account %s): %s", client.account, exc)
                raise ProtocolError("auth", f"{exc}: the supervisor's PIN is needed again") from None
            client.pass_fd = make_snapshot(self.store, self.state_dir)
            self.log.info("review copy refreshed for supervisor %s (account %s, token until %s)",
                          grant.supervisor, client.account, iso_time(grant.expires))
            return {"snapshot": True, "supervisor": grant.supervisor, "expires": iso_time(grant.expires)}
        _, who = self._approval(client, args, "review", None)
        client.pass_fd = make_snapshot(self.store, self.state_dir)
        new_token, grant = self.review_tokens.issue(who, client.account)
        self.log.info("review copy of the store for supervisor %s (account %s)", who, client.account)
        return {"snapshot": True, "supervisor": who, "token": new_token, "expires": iso_time(grant.expires)}

    def _op_end_review(self, client: Client, args: dict[str, Any]) -> Any:
        """The review's window closed: its token gives no copy any more."""
        return {"ended": self.review_tokens.end(str(args.get("token", "")), client.account)}

    def _op_approve(self, client: Client, args: dict[str, Any]) -> Any:
        """A supervisor's PIN (checked first, on the PIN worker) for ``kind``; the approval's id
        goes with the op it authorises, on this connection only (void, resolve, correction, ...)."""
        kind = str(args.get("kind", ""))
        detail = args.get("detail") if isinstance(args.get("detail"), dict) else {}
        pin = args.get("pin")
        if not isinstance(pin, Verified):
            raise ProtocolError("pin", "wrong name or PIN", reason="wrong")
        approval = self.store.add_audit(kind, actor=pin.user, round_id=self.round_id if self.round_id else None,
                                        detail=detail)
        client.approvals[approval] = (kind, pin.user)
        return {"approval": approval, "user": pin.user}

    def _op_users(self, client: Client, args: dict[str, Any]) -> Any:
        """The accounts: to a logged-in dealer or a supervisor's accounts dialog; never before
        a log-in (the names are half of a guess)."""
        if client.dealer is None and \
                not any(kind == "accounts" for kind, _ in client.approvals.values()):
            raise ProtocolError("auth", "the accounts are shown after a log-in (or a supervisor's PIN)")
        return [{k: u[k] for k in ("username", "roles", "disabled", "must_change", "locked_until") if k in u}
                for u in self.store.users()]

    def _op_root_unlock(self, client: Client, args: dict[str, Any]) -> Any:
        """Root clears a name's wrong PINs and lock (``dealer-assist station unlock NAME``), audited."""
        if client.uid != 0:
            raise ProtocolError("auth", "only root clears a lock this way (a supervisor: op unlock)")
        name = str(args.get("name", ""))
        if not any(u["username"] == name for u in self.store.users()):
            raise refused(f"no account {name!r}")
        cleared = self.store.clear_lockout_by_root(name)
        self.throttle.passed(name)
        self.log.warning("significant event: root cleared %s's wrong PINs (%s)", name,
                         "a lock" if cleared else "none were counted")
        return {"unlocked": name, "cleared": cleared}

    def _approval(self, client: Client, args: dict[str, Any], kind: str, round_id: int | None, *,
                  forbid: str = "") -> tuple[int, str]:
        """(approval id, supervisor): a PIN in the request, checked now, or an approval this
        connection was granted (op ``approve``) for ``kind``."""
        granted = args.get("approval")
        if isinstance(granted, int) and not isinstance(granted, bool):
            held = client.approvals.get(granted)
            if held is None or held[0] != kind:
                raise ProtocolError("pin", f"no supervisor's approval for this ({kind}): enter the PIN again")
            if forbid and held[1] == forbid:
                raise ProtocolError("pin", "another supervisor must clear this lock")
            if kind != "accounts":
                del client.approvals[granted]  # used once
            return granted, held[1]
        pin = args.get("pin")
        if isinstance(pin, Verified):  # checked on the PIN worker before the table's lock
            if forbid and pin.user == forbid:
                raise ProtocolError("pin", "another supervisor must clear this lock")
            approval = self.store.add_audit(kind, actor=pin.user, round_id=round_id,
                                            detail={k: v for k, v in args.items() if k != "pin"})
            return approval, pin.user
        if not isinstance(pin, dict):
            raise ProtocolError("pin", f"a supervisor's PIN is needed ({kind})")
        user = str(pin.get("user", ""))
        if forbid and user == forbid:
            raise ProtocolError("pin", "another supervisor must clear this lock")
        check = self.store.authorise(user, str(pin.get("pin", "")), kind=kind, round_id=round_id,
                                     detail={k: v for k, v in args.items() if k != "pin"})
        if not check.ok or check.approval is None:
            raise ProtocolError("pin", _pin_text(check), reason=check.reason)
        return check.approval, user

    def _table_op(self, client: Client, op: str, args: dict[str, Any]) -> Any:
        actor = f"dealer:{client.dealer}"
        if self.referral is not None and op not in ("resolve", "void", "sim_deal"):
            raise refused("the round is referred to the Gaming Shift Manager: nothing is taken until the "
                          f"shift manager decides ({self.referral['rule']})", self.referral["rule"])
        if op == "refer":
            self._refer(str(args.get("text", "")).strip(), actor)
        elif op == "resolve" and self.referral is not None:
            self._resolve_referral(client, args)
        elif op in DEALER_INPUTS:
            event = parse_event({k: v for k, v in args.items() if k != "type"} | {"type": DEALER_INPUTS[op]})
            self._record(self.session.apply(event), actor)
        elif op == "no_more_bets":
            self._record(self.session.close_bets(), actor)
        elif op == "set_slip":
            slip = [parse_event({**w, "type": "wager"}) for w in args.get("wagers", [])]
            self.session.set_slip(slip)
        elif op in SUPERVISED:
            kind, approval_kind = SUPERVISED[op]
            if op == "void" and self.referral is None and str(args.get("rule", "")) == self._refer_clause():
                raise refused(f"a void under {self._refer_clause()} is the shift manager's decision on a "
                              "referred round: refer it first", self._refer_clause())
            event = parse_event({k: v for k, v in args.items() if k not in ("pin", "approval")} | {"type": kind})
            approval, user = self._approval(client, args, approval_kind, self.round_id if self.round_id else None)
            who = f"supervisor:{user}"
            self._record(self.session.apply(event), who, approval)
            if kind == "void":
                self._void_in_flight(who)
                self.referral = None
        elif op == "take_back":
            self._take_back(client, args, actor)
        elif op == "key_card":
            self._key_card(client, args, actor)
        elif op == "place_card":
            self._place_stray(args, actor)
        elif op == "double_last_card":
            amount = args.get("amount")
            value = None
            if amount is not None:
                value = parse_amount(amount)
            self._record(self.session.double_tentative(value), actor)
        elif op == "confirm_hit":
            self._record(self.session.confirm_tentative(), actor)
        elif op == "set_aside":
            self._set_aside(client, args)
        elif op == "release_hold":
            # the dealer checked the table: no card is missing (unread cards must be keyed in, 5.1)
            if not self.hold and self.gap is None:
                raise refused("nothing is held: there is no hold to release")
            if refusal := self.session.no_card_missed_refusal():
                raise refused(refusal, _clause_of(refusal))
            self.store.add_audit("hold_released", actor=actor, round_id=self.round_id,
                                 detail={"hold": self.hold, "gap": self.gap})
            self.hold, self.gap = "", None
        elif op == "sim_deal":
            # a demonstration station: the dealer's "Deal" takes a card out of the simulated
            # shoe; it comes back through the driver as any card does (recorded, then shown)
            if self.simulator is None:
                raise refused("this station has a real shoe: cards come out of it")
            try:  # any fault the simulator has (service/sim_faults.py)
                simulate(self.simulator, str(args.get("fault") or ("burn" if args.get("burn") else "deal")))
            except ValueError as exc:
                raise ProtocolError("bad_request", str(exc)) from exc
        elif op == "set_table":
            self._set_table(client, args)
        elif op == "face_up":
            self.face_up_next = True  # 5.5: the next card came out face up
        elif op == "next_round":
            if not self.session.concluded:
                raise refused("the round is not over yet")
            if self.stray is not None:  # never carried into the next round, never dropped
                raise refused(f"{self.stray['card']} is held: say where it lies first ({self.stray['reason']})")
            self._record(self.session.confirm_tentative(), actor)
            self.session.new_round()
            self.round_id = None
        else:
            raise ProtocolError("bad_request", f"no op {op!r}")
        self._release()
        self._changed()
        return self.state()

    # ------------------------------------------------------------------ the table's set-up
    def _set_table(self, client: Client, args: dict[str, Any]) -> None:
        """A supervisor changes the table's set-up (game, decks, areas, limits of the main
        wager and the side bets, seats): checked as the engine opens a round with it, between
        rounds only, after the supervisor's PIN (approval ``setup``), audited old -> new."""
        new = _entered_setup(args.get("setup"))
        rules = GAMES[self.setup.game]
        limits_rule = rules.clauses.get("limits")
        if self.round_id is not None or not self.session.betting or self.session.slip or self.in_flight \
                or self.stray is not None:
            raise refused("the table's set-up changes between rounds, before any wager is placed: the limits "
                          f"displayed at the table govern the wagers on it ({limits_rule})", limits_rule)
        problem = setup_problem(new)
        if problem is not None:
            clause = _clause_of(problem)
            if clause is None and problem.startswith("limits"):
                clause = GAMES[new.game].clauses.get("limits")
                problem = f"{problem} ({clause})" if clause else problem
            raise refused(f"this set-up cannot be used: {problem}", clause)
        old, wanted = setup_to_json(self.setup), setup_to_json(new)
        changes = {k: [old[k], wanted[k]] for k in SETUP_FIELDS if old[k] != wanted[k]}
        if not changes:
            return
        approval, user = self._approval(client, args, "setup", None)
        who = f"supervisor:{user}"
        self.store.add_audit(SETUP_CHANGED_KIND, actor=who, detail={
            "old": old, "new": wanted, "changes": changes, "approval": approval, "dealer": client.dealer})
        self.use_setup(new)
        self.log.info("table set-up changed by %s (dealer %s): %s", who, client.dealer, changes)

    # ------------------------------------------------------------------ referral (6.1)
    def _refer_clause(self) -> str:
        return GAMES[str(self.session.config.get("game") or self.session.table["game"])].clause("refer")

    def _refer(self, text: str, actor: str) -> None:
        """6.1: an irregularity the rules do not cover, referred for the decision of the Gaming
        Shift Manager: audited with the round, the round's record "referred", cards held."""
        rule = self._refer_clause()
        if self.round_id is None or self.session.concluded:
            raise refused(f"nothing to refer: no round is in play ({rule})", rule)
        if not text:
            raise ProtocolError("bad_request", f"a referral says what happened ({rule})")
        self.store.add_audit("referral", actor=actor, round_id=self.round_id, detail={"rule": rule, "text": text})
        output = {**round_output(self.session.round), "status": "referred",
                  "next": {"expect": "ruling", "rule": rule, "text": text}}
        self.store.finish_round(self.round_id, output, actor=actor)
        self.referral = {"rule": rule, "text": text, "by": actor}

    def _resolve_referral(self, client: Client, args: dict[str, Any]) -> None:
        """The shift manager's decision, under a supervisor's PIN: ``continue`` (the round goes
        on, its record in progress again) or ``void`` (a void under 6.1, cards in flight settled)."""
        assert self.referral is not None
        ruling = str(args.get("ruling", ""))
        if ruling not in ("continue", "void"):
            raise ProtocolError("bad_request", "the shift manager's decision is continue or void")
        rule, text = self.referral["rule"], self.referral["text"]
        approval, user = self._approval(client, args, "resolve", self.round_id)
        who = f"supervisor:{user}"
        if ruling == "void":
            self._record(self.session.apply(Void(f"shift manager's decision: {text}", rule)), who, approval)
            self._void_in_flight(who)
        else:
            assert self.round_id is not None
            self.store.finish_round(self.round_id, round_output(self.session.round), actor=who)
        self.store.add_audit("referral_resolved", actor=who, round_id=self.round_id,
                             detail={"rule": rule, "text": text, "ruling": ruling, "approval": approval})
        self.referral = None

    # ------------------------------------------------------------------ writing
    def _record(self, step: Step, actor: str, approval: int | None = None) -> None:
        """What the session accepted, on disk before anyone is told (one transaction)."""
        if step.record:
            raws = [event_to_transcript(e) for e in step.record]
            output = round_output(self.session.round) if step.concluded else None
            under = list(step.under_min) if step.concluded else None
            if step.begins or self.round_id is None:
                self.round_id = self.store.start_round(
                    self.session.config, raws, session_id=self.session_id, actor=actor, result=output,
                    approval=approval, under_min=under)
                self._anchor()
            else:
                self.store.append_events(self.round_id, raws, actor=actor, result=output,
                                         approval=approval, under_min=under)
                if output is not None:
                    self._anchor()
            for e in step.record:
                if isinstance(e, CardDrawn) and e.shoe_seq is not None and e.shoe_seq in self.in_flight:
                    self.in_flight.pop(e.shoe_seq)
        if step.tentative and self.round_id is not None:
            hit, card = step.tentative
            self.store.add_audit(PENDING_CARD_KIND, actor=actor, round_id=self.round_id, detail={
                "events": len(self.session.recorded), "hit": event_to_transcript(hit),
                "card": event_to_transcript(card)})

    def _write_result(self) -> None:
        if self.round_id is None:
            return
        self.store.finish_round(self.round_id, round_output(self.session.round), actor="system",
                                under_min=list(self.session.round.under_minimum_first_time()))
        self._anchor()

    def _anchor(self) -> None:
        """The anchor is due: written once the screens are told (``_changed``). A store ahead of
        its anchor is no rollback (only an older one is refused), so the screens need not wait
        for the anchor's fsync; a crash in between leaves the anchor one commit behind."""
        if self.round_id is not None:
            self.anchor_due = self.round_id

    def _write_anchor(self) -> None:
        key, round_id = self.store.station_key, self.anchor_due
        if key is None or round_id is None:
            return
        self.anchor_due = None
        _, generation, _ = self.store.read_with(_progress)
        self.anchor_slot ^= 1
        write_anchor(self.anchor_path, Anchor(round_id, generation), key, self.anchor_slot)

    # ------------------------------------------------------------------ the shoe
    def on_shoe(self, event: dict[str, Any]) -> None:
        """One shoe event (``event_to_json`` form), from the driver's thread."""
        with self.lock:
            try:
                self._shoe(event)
            except StoreError as exc:
                self.store_error = str(exc)
                self.log.error("the store failed: %s", exc)
            self.notify("shoe", dict(self.shoe))
            self._changed()

    def _shoe(self, event: dict[str, Any]) -> None:
        name = event.get("event")
        seq = event.get("seq")
        if isinstance(seq, int):
            self.journal.write(event)  # before anything is done with it
            if self.last_frame is not None:
                lost = frames_between(self.last_frame, seq)
                self.last_frame = None
                if lost and not (name == "hello" and seq == 0) and not self.refused:
                    # frames the shoe sent while the service was down: a card may be missing
                    detail = {"after": seq - lost - 1, "before": seq, "lost": lost}
                    self.store.add_audit("shoe_fault", actor="shoe", round_id=self.round_id,
                                         detail={"event": "restart_gap", **detail})
                    self.hold = (f"{lost} frame(s) from the shoe (numbers {seq - lost} to {seq - 1}) came while "
                                 "the service was down: a card may be missing")
                    self.gap = detail
        if name in ("connected", "disconnected"):
            self.shoe.update(connected=name == "connected", port=event.get("port", ""),
                             codec=event.get("codec", self.shoe.get("codec", "")))
            if not self.refused:
                self.store.add_audit("shoe_connected" if name == "connected" else "shoe_lost",
                                     actor="shoe", detail=event)
            return
        if name == "loaded":
            self.session.shoe_loaded()
            return
        if name in ("cut", "empty", "alive", "hello", "warning", "duplicate"):
            self.shoe["last"] = name
            return
        if self.refused or self.store_error:
            if name in ("card", "multi"):  # not lost: kept in the log for the technician
                self.log.critical("card not recorded (store refused): %s", event)
            return
        if name == "fault":
            self.store.add_audit("shoe_fault", actor="shoe", detail=event)
            self.shoe["fault"] = f"{event.get('code', '')} {event.get('text', '')}".strip()
            return
        if name in HOLDING or (name == "multi" and int(event.get("count", 0)) > len(event.get("cards", []))):
            self.store.add_audit("shoe_fault", actor="shoe", round_id=self.round_id, detail=event)
            if name == "multi":  # the read cards of a double feed with unread ones: in flight
                self.queue.append(event)
                self._in_flight(event)
            elif name == "noread":  # an unread card: in flight as "?" until the dealer keys it in
                self._in_flight({"seq": event.get("seq"), "card": UNREAD})
            self.hold = _hold_text(event)
            return
        if name not in ("card", "multi"):
            return
        if self.hold or self.stray is not None or self.session.tentative_held or self.queue \
                or self.referral is not None:  # 6.1: no card assigned while referred
            self._in_flight(event)
            self.queue.append(event)
            return
        self._take(event)

    def _in_flight(self, event: dict[str, Any]) -> None:
        """A delivered card no event records yet: on disk first (reported after any restart).
        A double feed's cards each, the unread ones as such (keyed in later, 5.1)."""
        seq = event.get("seq")
        if event.get("event") == "multi":
            if isinstance(seq, int):
                self._feed_in_flight(seq, [str(c) for c in event.get("cards", [])], int(event.get("count", 0)))
            return
        cards = [event["card"]] if "card" in event else []
        if not isinstance(seq, int):
            return
        for card in cards[:1] if cards else [UNREAD]:
            audit = self.store.add_audit(IN_FLIGHT_KIND, actor="shoe", round_id=self.round_id,
                                         detail={"seq": seq, "card": card})
            self.in_flight[seq] = {"card": card, "audit": audit}
            self.session.delivered(seq, card)

    def _feed_in_flight(self, seq: int, read: list[str], count: int) -> None:
        """The cards of a double feed (frame ``seq``), each on disk as in flight under its place
        in the feed: the read ones, then one :data:`UNREAD` per card the shoe could not read."""
        cards = [*read, *[UNREAD] * max(0, count - len(read))]
        audit = 0
        for place, card in enumerate(cards):
            audit = self.store.add_audit(IN_FLIGHT_KIND, actor="shoe", round_id=self.round_id,
                                         detail={"seq": seq, "card": card, "feed": place, "count": len(cards)})
        self.in_flight[seq] = {"card": cards[0] if cards else UNREAD, "cards": cards, "audit": audit}
        self.session.double_feed(seq, read, len(cards))

    def _take(self, event: dict[str, Any]) -> None:
        seq = event.get("seq") if isinstance(event.get("seq"), int) else None
        if event.get("event") == "multi":
            cards = tuple(parse_card(c) for c in event.get("cards", []))
            if len(cards) == 1:
                event = {"event": "card", "card": str(cards[0]), "seq": seq}
            else:
                self._take_together(cards, seq)
                return
        card = parse_card(str(event["card"]))
        if event.get("burn"):
            self._record(self.session.apply(Burn(card)), "shoe")
            return
        drawn = CardDrawn(card, face_up=self.face_up_next, shoe_seq=seq)
        step = self.session.card(drawn)
        self._record(step, "shoe")
        if step.held:
            if seq is not None and seq not in self.in_flight:
                self._in_flight({"seq": seq, "card": str(card)})
            self.stray = {"seq": seq, "card": str(card), "reason": step.held}
        else:
            self.face_up_next = False

    def _take_together(self, cards: tuple[Any, ...], seq: int | None) -> None:
        """Cards that left the shoe together, every one known: one ``multi``, their order
        unknown and none disclosed (the shoe's reading shows no card to the table): the
        game's double-feed clause rules (5.23; 5.8 in Electronic voids the round). Refused
        (no hand expects a card): kept in flight, the table held, nothing dropped."""
        try:
            step = self.session.apply(Multi(cards, ()))
        except RuleRefusal as exc:
            if isinstance(seq, int) and seq not in self.in_flight:
                self._feed_in_flight(seq, [str(c) for c in cards], len(cards))
            self.hold = f"the cards that came out together fit no reading: {exc}"
            return
        self._record(step, "shoe")
        if isinstance(seq, int):  # recorded: no longer in flight, after any restart either
            self._settle(seq, "shoe", "dealt together")

    def _release(self) -> None:
        """Cards that waited behind a hold, in order, once nothing holds them."""
        while self.queue and not self.hold and self.stray is None and not self.session.tentative_held \
                and self.referral is None:
            self._take(self.queue.pop(0))

    def _take_back(self, client: Client, args: dict[str, Any], actor: str) -> None:
        """Undo (engine/retraction.py says what may be taken back): the dealer's last input
        before the next card; more with a supervisor's ``undo`` approval. The store takes the
        events out of the round and audits them (``event_withdrawn``); a shoe card taken back
        is held to be placed again, never dropped."""
        approval: int | None = None
        who = actor
        if args.get("approval") is not None or args.get("pin"):
            approval, user = self._approval(client, args, "undo", self.round_id if self.round_id else None)
            who = f"supervisor:{user}"
        if self.round_id is None:
            raise refused("nothing taken back: the round has not begun (5.3)")
        taken = self.session.take_back(supervisor=approval is not None)
        self.store.withdraw_events(self.round_id, len(taken.events), actor=who,
                                   reason=f"undo: {taken.describe}", approval=approval)
        for card in taken.cards:  # in flight again, on disk first (reported after any restart)
            seq = card.shoe_seq
            if seq is not None:
                audit = self.store.add_audit(IN_FLIGHT_KIND, actor=who, round_id=self.round_id,
                                             detail={"seq": seq, "card": str(card.card)})
                self.in_flight[seq] = {"card": str(card.card), "audit": audit}
            self.stray = {"card": str(card.card), "seq": seq,
                          "reason": f"taken back by {who}: say where this card lies"}

    def _key_card(self, client: Client, args: dict[str, Any], actor: str) -> None:
        """The dealer keys in a card: the one a hold waits for, or a card in flight by its seq.
        A card the shoe could not read is keyed in only with a supervisor's ``key_card``
        approval (a card not accounted for voids the round, 5.1)."""
        card = parse_card(str(args.get("card", "")))
        seq = args.get("seq")
        if not isinstance(seq, int) and self.hold:
            seq = self.session.first_unread()  # the hold waits for the unread card
        approved = False
        if isinstance(seq, int) and "cards" in self.in_flight.get(seq, {}):
            self._key_feed_card(client, args, seq, str(card))
            return
        if isinstance(seq, int) and seq in self.in_flight:
            known = self.in_flight[seq]["card"]
            if known not in (UNREAD, str(card)):
                raise refused(f"the shoe read card {seq} as {known}, not {card}")
            needs = self.session.key_in_refusal(seq, approved=False)  # the session's rule (5.1)
            if needs:
                if args.get("approval") is None and not args.get("pin"):
                    raise ProtocolError("pin", needs, _clause_of(needs))
                approval, user = self._approval(client, args, "key_card", self.round_id if self.round_id else None)
                self.store.add_audit("card_keyed", actor=f"supervisor:{user}", round_id=self.round_id,
                                     detail={"seq": seq, "card": str(card), "approval": approval})
                approved = True
            self.queue = [q for q in self.queue if q.get("seq") != seq]
        elif not self.hold:
            raise refused("no card is missing: cards come from the shoe")
        to = parse_target(args["to"]) if args.get("to") else None
        drawn = CardDrawn(card, to=to, shoe_seq=seq if isinstance(seq, int) else None)
        try:
            step = self.session.key_in(drawn, approved=approved)
        except RuleRefusal as exc:
            raise refused(str(exc), _clause_of(str(exc))) from None
        if step.held:
            raise refused(step.held, _clause_of(step.held))
        self._record(step, actor)
        if isinstance(seq, int) and seq in self.in_flight:
            self._settle(seq, actor, "keyed in")
        if not self.session.unread:
            self.hold, self.gap = "", None

    def _key_feed_card(self, client: Client, args: dict[str, Any], seq: int, card: str) -> None:
        """A card keyed in for an unread card of the double feed of frame ``seq``, with a
        supervisor's ``key_card`` approval (the session's rule, 5.1). Once every card of the
        feed is known they are dealt together, in their turn among the cards held."""
        rules = self.session.round.rules
        if args.get("to"):
            clause = rules.clause("multi.order_unknown" if rules.shared_hand else "multi")
            raise refused(f"cards that came out together go where the rules for them say, not to a "
                          f"place keyed in ({clause})", clause)
        needs = self.session.key_in_refusal(seq, approved=False)
        if not needs:  # none of its cards is unread: the session says so (RuleRefusal)
            self.session.key_in_feed(seq, card, approved=False)
        if args.get("approval") is None and not args.get("pin"):
            raise ProtocolError("pin", needs, _clause_of(needs))
        approval, user = self._approval(client, args, "key_card", self.round_id if self.round_id else None)
        place = self.in_flight[seq]["cards"].index(UNREAD)
        cards = self.session.key_in_feed(seq, card, approved=True)
        who = f"supervisor:{user}"
        self.store.add_audit("card_keyed", actor=who, round_id=self.round_id,
                             detail={"seq": seq, "card": card, "approval": approval})
        self.store.add_audit(IN_FLIGHT_KIND, actor=who, round_id=self.round_id,
                             detail={"seq": seq, "card": card, "feed": place, "count": len(cards)})
        self.in_flight[seq].update(card=cards[0], cards=list(cards))
        if UNREAD not in cards:  # every card known: dealt together in the feed's turn
            queued = [i for i, q in enumerate(self.queue) if q.get("seq") == seq]
            if queued:
                self.queue[queued[0]] = _feed_event(seq, list(cards))
            else:
                self.queue.append(_feed_event(seq, list(cards)))
        if not self.session.unread:
            self.hold, self.gap = "", None

    def _place_stray(self, args: dict[str, Any], actor: str) -> None:
        if self.stray is None:
            raise refused("no card is held")
        to = parse_target(str(args.get("to", "")))
        seq = self.stray.get("seq")
        step = self.session.apply(CardDrawn(parse_card(self.stray["card"]), to=to, shoe_seq=seq))
        self._record(step, actor)
        if isinstance(seq, int) and seq in self.in_flight:
            self._settle(seq, actor, f"placed {to}")
        self.stray = None

    def _set_aside(self, client: Client, args: dict[str, Any]) -> None:
        """A supervisor sets aside a card no round can take (it came out between rounds, or
        the round it belonged to is over): audited with the card, never silently dropped."""
        if self.round_id is not None and not self.session.concluded:
            raise refused("a round is in play: key the card in, place it, or void the round")
        seq = args.get("seq")
        approval, user = self._approval(client, args, "void", None)
        who = f"supervisor:{user}"
        if isinstance(seq, int) and seq in self.in_flight:
            card = " ".join(self.in_flight[seq].get("cards") or [self.in_flight[seq]["card"]])
            self._settle(seq, who, "set aside between rounds")
        elif self.stray is not None:
            card, seq = self.stray["card"], self.stray.get("seq")
            if isinstance(seq, int) and seq in self.in_flight:
                self._settle(seq, who, "set aside between rounds")
            self.stray = None
        else:
            raise refused("no card waits to be set aside")
        self.store.add_audit("card_set_aside", actor=who, round_id=None,
                             detail={"seq": seq, "card": card, "approval": approval})
        if not self.session.unread:
            self.hold, self.gap = "", None

    def _void_in_flight(self, who: str) -> None:
        """A supervisor's void ends the round: its cards in flight are settled by it."""
        for seq in list(self.in_flight):
            self._settle(seq, who, "round voided")
        self.queue.clear()
        self.stray = None
        self.hold = ""

    def _settle(self, seq: int, actor: str, how: str) -> None:
        self.store.add_audit(SETTLED_KIND, actor=actor, round_id=self.round_id, detail={"seq": seq, "how": how})
        self.in_flight.pop(seq, None)
        self.queue = [q for q in self.queue if q.get("seq") != seq]  # nothing of it dealt later
        self.session.settle_in_flight(seq)


def anchor_exists(path: Path) -> bool:
    return path.exists()


def _progress(conn: Any) -> tuple[int, int, int | None]:
    """(newest round id, the store's commit generation, the same from the head row or None)."""
    newest = conn.execute("SELECT COALESCE(MAX(id), 0) FROM rounds").fetchone()[0]
    row = conn.execute("SELECT generation FROM head WHERE id = 1").fetchone()
    generation = int(row[0]) if row else 0
    return int(newest), generation, (generation if row else None)


def _recorded_seqs(conn: Any) -> list[int]:
    rows = conn.execute(
        "SELECT json_extract(event_json, '$.shoe_seq') FROM events "
        "WHERE json_extract(event_json, '$.shoe_seq') IS NOT NULL").fetchall()
    return [int(r[0]) for r in rows]


def _outside_generation(store: Store, key: bytes) -> int | None:
    from dealer_assist.store.keys import read_head_file

    head = read_head_file(store.head_path, key or None)
    return head.generation if head is not None else None


def _entered_setup(raw: Any) -> TableSetup:
    """The set-up a client sent (``setup_to_json``'s fields), its types checked."""
    if not isinstance(raw, dict) or set(raw) - set(SETUP_FIELDS) or "game" not in raw:
        raise ProtocolError("bad_request", f"a set-up has the fields {', '.join(SETUP_FIELDS)} (game required)")
    if raw["game"] not in GAMES:
        raise refused(f"no game {raw['game']!r}: the station deals {', '.join(GAMES)}")
    whole = {k: raw[k] for k in ("decks", "areas", "decision_seconds") if k in raw}
    if any(isinstance(v, bool) or not isinstance(v, int) for v in whole.values()):
        raise ProtocolError("bad_request", "decks, areas and decision_seconds are whole numbers")
    if not isinstance(raw.get("limits", {}), dict) or not isinstance(raw.get("seated", {}), dict) \
            or not isinstance(raw.get("terminals", []), list) or not isinstance(raw.get("chips", [5]), list):
        raise ProtocolError("bad_request", "limits and seated are maps, terminals and chips lists")
    try:
        setup = TableSetup(**raw)  # limits exact: a fraction of a cent refused naming 3.6 / 2.2
    except SetupError as exc:
        raise refused(exc.message, exc.clause) from None
    low, high = DECISION_SECONDS
    if not low <= setup.decision_seconds <= high:
        rule = setup.rules.clauses.get("default_strategy")  # Electronic 3.18: no selection in time
        raise refused(f"a terminal's decision time is {low} to {high} seconds, not {setup.decision_seconds}"
                      + (f" ({rule})" if rule else ""), rule)
    return setup


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def _pin_text(check: Any) -> str:
    if check.reason == "locked":
        return f"locked until {check.locked_until} after wrong PINs (another supervisor can clear it)"
    if check.reason == "must_change":
        return check.message or "the PIN must be changed"
    return check.message or "wrong name or PIN"


def _feed_event(seq: int, cards: list[str]) -> dict[str, Any]:
    """A double feed as the shoe's event (its known cards; ``count`` all of them)."""
    return {"event": "multi", "count": len(cards), "cards": [c for c in cards if c != UNREAD], "seq": seq}


def _hold_text(event: dict[str, Any]) -> str:
    name = event.get("event")
    if name == "noread":
        return "the shoe could not read a card: key in that card"
    if name == "gap":
        return f"{event.get('lost', 0)} frame(s) from the shoe were lost: a card may be missing"
    if name == "multi":
        return "cards came out together and some could not be read: key in the unread card(s)"
    return "the shoe sent a damaged frame: a card may be missing"


__all__ = ["Client", "TableService"]
