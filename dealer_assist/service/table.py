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
from collections import deque
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field, replace
from decimal import Decimal
from pathlib import Path
from typing import Any

from dealer_assist.base.cards import CardNotationError, parse_card
from dealer_assist.base.errors import (
    DealerAssistError,
    EventFormatError,
    RuleRefusal,
    TranscriptError,
)
from dealer_assist.base.money import ZERO, AmountError, parse_amount, to_json_number
from dealer_assist.engine.events import Burn, CardDrawn, Event, Multi, PowerFailure, Timeout, Void
from dealer_assist.engine.picture import picture_to_json
from dealer_assist.engine.power_failure import still_to_answer
from dealer_assist.engine.session import UNREAD, Step, TableSession, cards_out
from dealer_assist.engine.table_setup import (
    DECISION_SECONDS,
    SetupError,
    TableSetup,
    setup_problem,
    setup_to_json,
)
from dealer_assist.engine.transcript import (
    event_to_transcript,
    new_round,
    parse_event,
    parse_target,
    round_output,
)
from dealer_assist.games import GAMES
from dealer_assist.protect.report import listed_before
from dealer_assist.service import credits
from dealer_assist.service.anchor import (
    ANCHOR_NAME,
    Anchor,
    acknowledgement,
    clear_acknowledgement,
    copy_name,
    note_refusal,
    read_anchor,
    rollback_problem,
    write_anchor,
)
from dealer_assist.service.decision_clock import DecisionClock
from dealer_assist.service.journal import JOURNAL_NAME, SEQ_MODULO, ShoeJournal, frames_between
from dealer_assist.service.ops import (
    INPUT_EVENTS,
    REGISTRY,
    SUPERVISED_EVENTS,
    ApprovalReply,
    ApproveRequest,
    BuyInRequest,
    ChangePinRequest,
    DealerReply,
    DoubleRequest,
    EnrolReply,
    EnrolRequest,
    Entry,
    EventRequest,
    KeyCardRequest,
    LoginReply,
    LoginRequest,
    NameReply,
    NoArgs,
    NoteReply,
    NoteRequest,
    Op,
    Permission,
    PlaceCardRequest,
    PlaceNextRequest,
    PlayerRequest,
    ReferRequest,
    ResetPinRequest,
    RootUnlockRequest,
    RoundIntegrityReply,
    RoundIntegrityRequest,
    SetAsideRequest,
    SetDisabledRequest,
    SetTableRequest,
    ShoeCountReply,
    ShoeCountRequest,
    SimDealRequest,
    SlipRequest,
    SnapshotReply,
    SnapshotRequest,
    SupervisedRequest,
    TableState,
    TakeBackCheckReply,
    TakeBackRequest,
    TerminalOverrideRequest,
    TokenRequest,
    UnlockRequest,
    UserRow,
    check_complete,
    check_fields,
    handler,
)
from dealer_assist.service.ops import AddAccountRequest as AddAccount
from dealer_assist.service.pins import PinWorker, RefusalSummary, Throttle, Verified
from dealer_assist.service.protocol import ROUND_TOLD, ProtocolError
from dealer_assist.service.resume import RESUME_NAME, ResumeTokens
from dealer_assist.service.review_token import (
    REVIEW_NAME,
    ReviewTokenRefused,
    ReviewTokens,
    iso_time,
)
from dealer_assist.service.seat_view import seat_view
from dealer_assist.service.shoe_count import (
    ShoeTally,
    carried_into,
    round_cards,
    shoe_figures,
    shoe_rounds_after,
    tally_for,
)
from dealer_assist.service.sim_faults import SIM_FAULTS, simulate
from dealer_assist.store import Store, StoreError
from dealer_assist.store.audit import AuditEntry, audit_entries
from dealer_assist.store.common import format_time
from dealer_assist.store.users import PinCheck, lock_seconds

PENDING_CARD_KIND = "implied_card"  # as the screen wrote it: the tentative implied hit
IN_FLIGHT_KIND = "card_in_flight"
SETTLED_KIND = "in_flight_settled"
GAP_ANSWERED_KIND = "gap_answered"  # a restart gap's answer: {gap: its shoe_fault entry, how}
GAP_CARD_KIND = "gap_card_keyed"  # a card keyed in (or set aside) for a restart gap: {gap, card}
REFUSED_KIND = "store_refused"
SETUP_CHANGED_KIND = "table_setup_changed"  # a supervisor's change of the table's set-up, old -> new
SHOE_LOADED_KIND = "shoe_loaded"  # a shuffle (the shoe's LOADED frame): {replaces: the shoe id it ends}
REREAD_ASKED_KIND = "card_reread_asked"  # the dealer puts the unread card through the reader again (5.1)
REREAD_KIND = "card_reread"  # the unread card, read again: {card, seq: its frame, frame: the reading's}
INTERRUPTED_KIND = "terminal_interrupted"  # 5.9.1: a dropped terminal's seat played by the default decision
# 5.9.2: a terminal down when the bets closed: its wagers were not accepted, off the slip ({seat, rule, wagers})
NOT_ACCEPTED_KIND = "terminal_not_accepted"
# a supervisor's override of a Player Terminal that cannot be used: the dealer enters its seat's
# decisions this round (3.17: otherwise the player decides at the terminal)
OVERRIDE_KIND = "terminal_override"
STAYS_KIND = "power_failure_stays"  # a player stays after the round's power failure (5.29.1)
# a seat whose wager its terminal placed: its terminal went down in the open round (5.9), or
# came back ({seat, rule}); a restart mid-round reads them (5.9.1: the default decision at once)
DOWN_KIND = "terminal_down"
BACK_KIND = "terminal_back"
# the concluded round's result is written this long after the screens are told of its last card
# (or first thing in the next input, whichever comes first): not while the screens paint it
RESULT_AFTER_S = 0.2
CLOCK_ACTOR = "service:decision_clock"  # who records a time-out the service's clock ran out (3.18)
SETUP_FIELDS = ("game", "decks", "areas", "limits", "seated", "terminals", "decision_seconds", "chips")
# The ops, their handlers and permissions: dealer_assist/service/ops.py (the registry; the
# handlers below register themselves with ``@handler``).
ENROL_CODE_NAME = "enrol-code"  # the first enrolment's one-time code (station init writes it; root's eyes)
HOLDING = ("noread", "gap", "error")
RECALL_SIZE = 10  # the dealer's recall: the last ten rounds
APPROVAL_KINDS = ("void", "resolve", "correction", "override", "accounts", "review", "undo", "key_card", "setup",
                  "buy_in")


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
    seat: str | None = None  # a player terminal's seat, from its certificate (terminal_server.py)
    # its hello asked for the round as deltas: a table op's reply is the version it was told
    # just before (protocol.ROUND_TOLD), not the whole state a second time
    round_told: bool = False


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
        # the notifications of one tell sent together (the server's StationServer.sending_together):
        # a card's shoe status and its round in one write, one wake-up of each screen
        self.together: Callable[[], AbstractContextManager[None]] = nullcontext
        self.log = log or logging.getLogger("dealer_assist.service")
        self.lock = threading.RLock()
        self.refused = ""  # the store was refused at start: every op answers this
        # a review service's store (``station serve --review FILE``): no table is dealt here, only
        # the ops marked ``review`` in the registry are served ("" : a table's service)
        self.review_only = ""
        self.store_error = ""
        self.session = TableSession(table, store.under_min_players())
        self.round_id: int | None = None
        self.session_id: int | None = None
        self.hold = ""  # a card may be missing: later cards wait until the dealer keys it in
        # the unread card's frame while the dealer puts it through the reader again (op reread):
        # the next card the shoe reads is that card
        self.rereading: int | None = None
        self.queue: list[dict[str, Any]] = []  # shoe cards waiting behind a hold or a held card
        self.stray: dict[str, Any] | None = None  # a card that fits no reading: {seq, card, reason}
        self.in_flight: dict[int, dict[str, Any]] = {}  # seq -> {card, audit}: delivered, unrecorded
        self.shoe: dict[str, Any] = {"connected": False}
        self.shoe_tally: ShoeTally | None = None  # the count's earlier rounds of the shoe (op shoe_count)
        self.floor: Callable[[], dict[str, Any]] | None = None  # the floor link's state, if any
        self.simulator: Any = None  # the simulated shoe (no shoe configured): op sim_deal deals from it
        self.face_up_next = False
        # the dealer referred the round to the Gaming Shift Manager (6.1): {rule, text, by}; no card
        # is assigned and no input taken until the shift manager's decision (op resolve)
        self.referral: dict[str, Any] | None = None
        # the restart gaps not answered yet (frames the shoe sent while the service was down),
        # each {after, before, lost, audit, keyed}: on record (shoe_fault restart_gap), held
        # across restarts, released only by their own answer (cards keyed in, "none missing", a void)
        self.gaps: list[dict[str, Any]] = []
        self.anchor_path = state_dir / ANCHOR_NAME
        self.anchor_copy_dir: Path | None = None  # the log directory: a copy a rolled-back state directory lacks
        self.anchor_slot = 0
        self.anchor_due: int | None = None  # the round whose anchor is to be written
        # the concluded round's result (round id, settle output, 5.26 names, actor): its last
        # events are on disk and the screens told; written before the table takes anything else
        self.result_due: tuple[int, dict[str, Any], list[str] | None, str] | None = None
        self.result_timer: threading.Timer | None = None  # writes result_due (tell_screens)
        self.transcripts_kept: list[tuple[Event, dict[str, Any]]] = []  # (_transcripts)
        self.journal = ShoeJournal(state_dir / JOURNAL_NAME)
        self.resume_tokens = ResumeTokens(state_dir / RESUME_NAME)
        self.review_tokens = ReviewTokens(state_dir / REVIEW_NAME)
        self.last_frame: int | None = None  # the seq of the last frame read before this start
        self.version = 0  # the state's version: one more at each change the screens are told of
        # notifications made under the table's lock, sent in order after it (tell_screens): a
        # screen slow to read never holds the table
        self.outbox: deque[tuple[str, dict[str, Any]]] = deque()
        self.telling = threading.Lock()
        self.pins = PinWorker()  # PIN checks: never under self.lock (dealer_assist/service/pins.py)
        self.throttle = Throttle()
        self.refusals = RefusalSummary(lambda name, detail: self.store.add_audit(
            "pin_refusals", actor="service", detail=detail))
        # Electronic's decision time (3.17, 3.18): the seats pending, each with its clock
        # (decision_clock.py; its thread started by start_clock)
        self.clock = DecisionClock(self.decision_time_out, self.log)
        self.terminal_links: dict[str, int] = {}  # seat -> its terminal connections now (terminal_server.py)
        # the seats a terminal is paired to now (terminal_server.py sets it from the station's
        # CA; none without a terminal endpoint): their wagers are placed from credits (1.1.10)
        self.paired_seats: Callable[[], set[str]] = set
        self.interrupted: set[str] = set()  # seats whose terminal dropped and is not back (5.9)
        # seat -> the supervisor whose override (op terminal_override) lets the dealer enter its
        # decisions this round: its terminal cannot be used; cleared when the next round opens
        self.overrides: dict[str, str] = {}
        self.power_stays: set[str] = set()  # players who stay after this round's power failure (5.29.1)
        self.pending_seats: dict[str, tuple[tuple[Any, ...], dict[str, Any]]] = {}  # at the last change
        self.state_at_change: TableState | None = None  # the state told at the last change (op seat cuts it)
        # whether the store has no supervisor yet, as the last state read it; a shoe frame's
        # state takes it as it is (a card changes no account: one store query less a card)
        self.enrolment_known: bool | None = None
        self.on_card = False  # within a shoe frame's change (on_shoe)
        self.slip_by_terminal: set[str] = set()  # seats whose wagers (this round) their terminal placed
        self.last_round: dict[str, Any] | None = None  # the last round taken off the table (its result)
        self.recall: list[dict[str, Any]] = []  # the dealer's last rounds (RECALL_SIZE), newest first
        # the settle output last worked out: the round, its (events, tentative events), the output
        self.output_made: tuple[Any, tuple[int, int], dict[str, Any]] | None = None
        self.taken_back = ""  # the last take-back, in words (engine/retraction.py)
        self.restored = False  # an open round came back at the start, no power failure recorded yet
        self.next_to: str | None = None  # where the dealer said the next card lies (op place_next)
        # the terminals' credit meters on record (1.1.10; store/credits.py): seat -> meter, only
        # seats that bought in; the round whose results were paid to them and what was paid;
        # each seat's last voucher
        self.meters: dict[str, Decimal] = {}
        self.paid: tuple[int | None, dict[str, Decimal]] = (None, {})
        self.vouchers: dict[str, dict[str, Any]] = {}
        # (version, this round's part of each meter, the seats with wagers in play) for the views
        self.parts_at: tuple[int, dict[str, Decimal], set[str]] = (-1, {}, set())

    # ------------------------------------------------------------------ start
    def start(self) -> None:
        """Refuse an old store (rollback, its anchor or head file gone) or one that fails
        verify until a technician acknowledges it (`station acknowledge`, audited); then
        restore the open round and the cards in flight."""
        problem = self._trust_problem()
        earlier = [e for e in self.store.audit_entries(kind="start_acknowledged")
                   if e.detail.get("problem") == problem] if problem else []
        if earlier:  # the same problem a technician acknowledged before (a failed row stays failed)
            self.log.warning("the store's problem was acknowledged by %s: %s", earlier[-1].actor, problem)
        elif problem:
            ack = acknowledgement(self.state_dir, problem)
            if ack is None:
                self.refused = (f"the store {self.store.path} is refused: {problem} (the table stays closed until "
                                "a technician checks it and runs `dealer-assist station acknowledge` as root)")
                self.log.critical("significant event: %s", self.refused)
                note_refusal(self.state_dir, problem)
                return
            self.store.add_audit("start_acknowledged", actor=f"technician:{ack['by']}",
                                 detail={"problem": problem, "acknowledged_at": ack["at"]})
            self.log.critical("significant event: the store was opened after %s acknowledged: %s", ack["by"], problem)
            clear_acknowledgement(self.state_dir)
            self._write_anchor(fresh=True)  # the anchors say what the store holds now
        elif not anchor_exists(self.anchor_path):
            self._write_anchor(fresh=True)  # from the first start on: a store with rounds has one
        self._restore_setup()
        self.meters = self.store.meters()
        self.vouchers = {v.seat: v.to_json() for v in self.store.vouchers()}
        open_round = self.store.find_open_round()
        if open_round is not None:
            self._restore(open_round)
            self.restored = True  # 5.29: the open round came back after a restart
        else:
            self._continue_shoe()
            self._restore_last_round()
            self._restore_overrides()  # made while the next round's bets are open
        self._restore_in_flight()
        self._restore_gaps()
        self._restore_recall()

    def _restore_recall(self) -> None:
        """The last rounds taken off the table, for the dealer's recall (their settle output
        as the store recorded it)."""
        self.recall = []
        for summary in self.store.list_rounds(limit=RECALL_SIZE + 1):
            if summary.ended_at is None:
                continue
            detail = self.store.get_round(summary.id)
            if detail is not None and isinstance(detail.result, dict):
                self.recall.append({"round": summary.id, **detail.result})
        del self.recall[RECALL_SIZE:]

    def _restore_last_round(self) -> None:
        """After a restart between rounds: the last round taken off the table, replayed for
        the terminals' ``last_round`` (a terminal back after the restart sees its result)."""
        last = self.store.latest_round()
        if last is None:
            return
        try:
            rnd = new_round(dict(last.config))
            rnd.apply_all([parse_event(e) for e in last.events])
        except (DealerAssistError, TranscriptError, KeyError, TypeError, ValueError) as exc:
            self.log.error("the last round %s cannot be replayed for the terminals: %s", last.round_id, exc)
            return
        self.last_round = {"round_id": last.round_id, "output": round_output(rnd), "events": list(last.events)}
        if self.last_round["output"].get("status") in ("settled", "void"):
            self._pay(last.round_id, rnd)  # a restart between its end and its payment pays it now

    def _trust_problem(self) -> str:
        """Why the store cannot be trusted as it is ("" when it can)."""
        key = self.store.station_key or b""
        newest, generation, head = self.store.read_with(_progress)
        outside = _outside_generation(self.store, key)
        try:
            anchors = [a for a in (read_anchor(self.anchor_path, key), self._read_copy(key)) if a is not None]
            anchor = max(anchors, key=lambda a: (a.round_id, a.generation), default=None)
            problem = rollback_problem(anchor, newest, generation, outside)
        except ValueError as exc:
            return str(exc)
        if problem:
            return problem
        if newest and not anchor_exists(self.anchor_path) and key:
            return (f"its rollback anchor {self.anchor_path} is missing though the store holds rounds "
                    "(deleted, or the store was brought from elsewhere)")
        if head is not None and outside is None and key:
            return f"its head file {self.store.head_path} is missing though the store has commits (deleted?)"
        if head is None and newest == 0:
            return ""
        result = self.store.verify()
        if not result.ok:
            return f"it fails verify: {result.problem or 'a row does not match its chain'}"
        return ""

    def _read_copy(self, key: bytes) -> Anchor | None:
        if self.anchor_copy_dir is None or not key:
            return None
        return read_anchor(self.anchor_copy_dir / copy_name(key), key)

    def _continue_shoe(self) -> None:
        """The shoe of the last recorded round goes on (spec/round-script.md ``shoe``), unless
        the shoe was reloaded (shuffled) during or after that round: then the next round is
        dealt from the shoe loaded (its id on record), as it would have been without the
        restart. The cards set aside since (audited ``card_set_aside``; after the shuffle, if
        one came after that round) are the shoe's again: the next round's ``dealt`` and
        ``shoe_dealt`` count them (5.1)."""
        last = self.store.latest_round()
        shoe = last.config.get("shoe") if last is not None else None
        shuffle = self.store.read_with(_last_shuffle)
        config = last.config if last is not None else None
        taken_from: int | None = 0  # the last round's cards before those that left the shoe going on
        after: tuple[int, str] | None = None  # set-asides after this audit id, or at/after this time
        if isinstance(shoe, dict) and shuffle is not None and shuffle.detail.get("replaces") == shoe.get("id"):
            new, at = shuffle.detail.get("shoe"), shuffle.detail.get("at")
            if last is not None and shuffle.round_id is None and isinstance(new, str):
                # shuffled between rounds, after that round: the next round deals from that shoe, full
                config, taken_from, after = {**last.config, "shoe": {"id": new, "dealt": 0}}, None, (shuffle.id, "")
            elif last is None or shuffle.round_id != last.round_id or not isinstance(new, str) \
                    or not isinstance(at, int):
                return  # shuffled after that round (or not known where): a full new shoe
            else:
                config, taken_from = {**last.config, "shoe": {"id": new, "dealt": 0}}, at
        if last is not None and config is not None:
            try:
                taken = cards_out(parse_event(e) for e in last.events)
                # the faces of the shoe's cards so far, for the next round's shoe_dealt (5.1)
                faces = [str(c) for c in round_cards(last.config, last.events)]
                prior = last.config.get("shoe_dealt")
                known: list[str] | None
                if len(faces) != taken:
                    known = None  # a card of the round unread: not all faces known
                elif config is not last.config:  # a new shoe: its cards of the round (none if loaded after it)
                    known = [] if taken_from is None else faces[taken_from:]
                else:
                    known = [*(map(str, prior) if isinstance(prior, list) else []), *faces]
                self.session.continue_shoe(config, max(0, taken - (taken if taken_from is None else taken_from)),
                                           known)
            except (EventFormatError, KeyError, TypeError, ValueError) as exc:
                self.log.error("the last round's shoe cannot be continued: %s", exc)
                return
            if after is None:
                row = self.store.read_with(
                    lambda conn: conn.execute("SELECT started_at FROM rounds WHERE id = ?", (last.round_id,)).fetchone())
                after = (0, str(row[0]) if row else "")
            for entry in self.store.audit_entries(kind="card_set_aside"):
                if entry.round_id is None and entry.id > after[0] and entry.at >= after[1]:
                    for one in str(entry.detail.get("card", "")).split():
                        if one != UNREAD:
                            self.session.discard(one)  # 5.1: the shoe's copies count it

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

    def _restore(self, open_round: Any, *, audit: bool = True) -> None:
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
        # who said they stay after this round's power failure (5.29.1), as audited
        self.power_stays = {str(a.detail.get("player")) for a in self.store.audit_entries(
            round_id=open_round.round_id, kind=STAYS_KIND)}
        self._restore_overrides()
        self._restore_terminals(open_round.round_id, links=audit)
        # shuffled during this round (once or more, in order): the next round is dealt from the
        # last shoe loaded, after this round's last cards
        own = open_round.config.get("shoe") if isinstance(open_round.config.get("shoe"), dict) else {}
        for shuffle in self.store.audit_entries(round_id=self.round_id, kind=SHOE_LOADED_KIND):
            detail = shuffle.detail
            at = detail.get("at")
            if detail.get("shoe") == own.get("id"):
                continue  # loaded while the round took bets: the round is dealt from it
            self.session.reloaded(str(detail.get("shoe") or self.session.shoe_ids()),
                                  at if isinstance(at, int) else None)
        if audit:
            self.store.add_audit("recovered", actor="system", round_id=self.round_id,
                                 detail={"events": len(open_round.events)})
        if open_round.status == "referred" and self.session.round.status() == "in_progress":
            referrals = self.store.audit_entries(round_id=self.round_id, kind="referral")
            detail = referrals[-1].detail if referrals else {}
            self.referral = {"rule": str(detail.get("rule") or self._refer_clause()),
                             "text": str(detail.get("text", "")), "by": referrals[-1].actor if referrals else ""}
        if self.session.concluded and audit:  # killed between the last event and its result
            self._write_result()
            self._write_anchor()
        elif self.session.concluded and self.round_id is not None:  # read back after a failed write
            self.result_due = self._restored_result(self.round_id)

    def _restore_overrides(self) -> None:
        """The supervisors' terminal overrides (3.17) of the round on the table, from their
        audit entries: a restart leaves the dealer entering the seats overridden before it. An
        override is for the round it was made in until that round ends (op next_round clears
        them): with the round open, its own entries and those made while its bets were open,
        before it had an id (``after_round``: the round before it); between rounds (bets
        open, no round id yet), those made since the last round, none of an ended round."""
        self.overrides = {}
        if self.round_id is not None:
            entries = self.store.audit_entries(round_id=self.round_id, kind=OVERRIDE_KIND)
            before = self.store.latest_round_id(before=self.round_id)
        else:
            entries, before = [], self.store.latest_round_id()
        early = [e for e in self.store.audit_entries(kind=OVERRIDE_KIND)
                 if e.round_id is None and "after_round" in e.detail and e.detail["after_round"] == before]
        for entry in sorted([*early, *entries], key=lambda e: e.id):
            seat = entry.detail.get("seat")
            if isinstance(seat, str) and seat not in self.overrides:
                self.overrides[seat] = entry.actor.removeprefix("supervisor:")

    def _restore_terminals(self, round_id: int, *, links: bool) -> None:
        """The open round's seats whose wager their terminal placed (its wager events recorded
        as ``terminal:SEAT``'s), and at a start (``links``) those of them whose terminal was
        down when the service stopped (their last ``terminal_down``/``terminal_back``): a
        restart mid-round gives those the default decision at once (5.9.1), the others their
        decision time. (A store error's reload keeps the connections as they are.)"""
        detail = self.store.get_round(round_id)
        events = detail.events if detail is not None else []
        self.slip_by_terminal = {str(e.event.get("player")) for e in events
                                 if e.event.get("type") == "wager" and e.actor == f"terminal:{e.event.get('player')}"}
        if not links:
            return
        down: set[str] = set()
        for entry in self.store.audit_entries(round_id=round_id):
            seat = entry.detail.get("seat")
            if entry.kind in (DOWN_KIND, BACK_KIND) and isinstance(seat, str):
                (down.add if entry.kind == DOWN_KIND else down.discard)(seat)
        self.interrupted = down

    def _restore_in_flight(self, *, journal: bool = True) -> None:
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
        if journal:
            self._journal_in_flight(recorded, pending)
        for seq, flight in sorted(self.in_flight.items()):  # double feeds: dealt together, in turn
            if "cards" in flight:
                self.session.double_feed(seq, [c for c in flight["cards"] if c != UNREAD], len(flight["cards"]))
                self.queue.append(_feed_event(seq, flight["cards"]))
        if self.session.unread:
            self.hold = "a card came out of the shoe unread before the restart: key it in by its number"

    def _journal_in_flight(self, recorded: set[int], pending: tuple[Event, ...]) -> None:
        """Every frame the journal holds that was read and not done (killed before it was
        recorded, or the store could not be written): a card in flight now, on disk first,
        whatever number of restarts came since; the newest frame's number for the gap."""
        newest = self.journal.read()
        if newest is not None and isinstance(newest.get("seq"), int):
            self.last_frame = int(newest["seq"])
        settled = {int(e.detail.get("seq", -1)) for e in self.store.audit_entries(kind=SETTLED_KIND)}
        for entry in self.journal.undone():
            last = entry.frame
            seq = last.get("seq")
            if not isinstance(seq, int):
                self.journal.done(entry.number, last)
                continue
            reread = last.get("reread")
            if isinstance(reread, int):  # a re-read's frame: the unread card of frame `reread`, never another
                self._reread_frame(reread, last)  # read, then the service stopped before recording it
                self.journal.done(entry.number, last)
                continue
            unrecorded = seq not in recorded and seq not in self.in_flight and seq not in settled \
                and seq not in self.session.in_flight and seq not in self.session.feeds
            held = any(isinstance(e, CardDrawn) and e.shoe_seq == seq for e in pending)
            if unrecorded and not held and last.get("event") in ("card", "multi", "noread"):
                # read, then the service stopped before recording it: in flight now
                self._in_flight({"seq": seq, "card": last.get("card") or UNREAD}
                                if last.get("event") != "multi" else last)
            elif unrecorded and last.get("event") in ("gap", "error"):  # the shoe's own loss report
                self.store.add_audit("shoe_fault", actor="shoe", round_id=self.round_id, detail=last)
                self.hold = _hold_text(last)
            self.journal.done(entry.number, last)

    def _restore_gaps(self) -> None:
        """The restart gaps on record that no answer closed (kept over any number of restarts)."""
        answered = {int(e.detail.get("gap", -1)) for e in self.store.audit_entries(kind=GAP_ANSWERED_KIND)}
        keyed: dict[int, int] = {}
        for e in self.store.audit_entries(kind=GAP_CARD_KIND):
            keyed[int(e.detail.get("gap", -1))] = keyed.get(int(e.detail.get("gap", -1)), 0) + 1
        for e in self.store.audit_entries(kind="shoe_fault"):
            if e.detail.get("event") == "restart_gap" and e.id not in answered:
                self.gaps.append({k: e.detail.get(k) for k in ("after", "before", "lost")}
                                 | {"audit": e.id, "keyed": keyed.get(e.id, 0)})

    def _reload(self) -> None:
        """The table as the store holds it (a write failed: nothing of it is shown, and no
        later input builds on it): the open round, its cards in flight and the gaps replayed
        from the store, as after a restart, nothing written."""
        self.session = TableSession(self.session.table, self.store.under_min_players())
        self.round_id, self.hold, self.queue, self.stray = None, "", [], None
        self.rereading = None
        self.in_flight, self.referral, self.gaps, self.face_up_next = {}, None, [], False
        open_round = self.store.find_open_round()
        if open_round is not None:
            self._restore(open_round, audit=False)
        self._restore_in_flight(journal=False)
        self._restore_gaps()

    def _store_failed(self, exc: StoreError) -> None:
        """A write failed (a full disk, say): the table holds until the store takes writes
        again (:meth:`retry_store`); the screens see only what is on disk; cards from the
        shoe wait in the journal, read and not done."""
        self.store_error = (f"{exc}: the table holds until the store can be written again (is the disk "
                            "full?); cards from the shoe are kept and recorded then")
        self.log.error("the store failed: %s", exc)
        try:
            self._reload()
        except (StoreError, DealerAssistError, TranscriptError) as again:
            self.log.error("the table cannot be read back from the store: %s", again)

    def retry_store(self) -> bool:
        """After a failed write: the table as on disk again, then every frame the journal
        holds not done, in order, as it came; True once the store takes writes again."""
        with self.lock:
            if not self.store_error or self.refused:
                return not self.store_error
            error, self.store_error = self.store_error, ""
            try:
                self._reload()
                self.store.add_audit("store_resumed", actor="system", detail={"after": error[:500]})
                recorded = set(self.store.read_with(_recorded_seqs))
                settled = {int(e.detail.get("seq", -1)) for e in self.store.audit_entries(kind=SETTLED_KIND)}
                for entry in self.journal.undone():
                    seq = entry.frame.get("seq")
                    if entry.frame.get("event") in ("card", "multi", "noread") and isinstance(seq, int) and (
                            seq in recorded or seq in settled or seq in self.in_flight):
                        self.journal.done(entry.number, entry.frame)  # its write got through
                        continue
                    self._shoe(entry.frame, number=entry.number)
                    if self.store_error:
                        break
                    self.journal.done(entry.number, entry.frame)
                    self._release()
            except StoreError as exc:
                self._store_failed(exc)
            if not self.store_error:
                self.log.warning("the store takes writes again: the table resumes")
            self._changed()
            return not self.store_error

    # ------------------------------------------------------------------ state
    @handler(Op.STATE, Permission.ANYONE, NoArgs, TableState, review=True)
    def _op_state(self, client: Client, args: dict[str, Any]) -> TableState:
        """The round (events, slip, tentative hit, expectation, settle output, and its `picture`
        as the engine made it: engine/picture.py), hold, cards in flight, shoe,
        `needs_enrolment` (and `enrol_code_needed`: this connection's enrolment needs root's
        code), `refused`, the table's `setup`, and the state's `version`."""
        state = self.state()  # and whether this client's enrolment needs root's code
        state["enrol_code_needed"] = bool(state["needs_enrolment"]) and self.enrol_code_needed(client)
        return state

    @handler(Op.SEAT, Permission.TERMINAL, NoArgs, dict, terminal=True)
    def _op_seat(self, client: Client, args: dict[str, Any]) -> dict[str, Any]:
        """A player terminal's view of the table: its own seat's wagers, decisions and results,
        the cards and the dealer's hand, bets open or closed (3.1, 3.2); no other seat's data."""
        assert client.seat is not None  # Permission.TERMINAL
        return self.seat_reply(client.seat)

    def seat_reply(self, seat: str) -> dict[str, Any]:
        """``seat``'s view (op ``seat``; the reply to every table op of a terminal: never the
        screens' state, which holds every seat's data)."""
        # its own decision (kept since the last change), also while another seat's card is awaited
        pending = self.pending_seats.get(seat, (None, None))[1]
        clock = self.clock.get(seat) if pending is not None else None
        state = self.state_at_change
        if state is None or state["version"] != self.version:
            state = self.state()
        meter = self.meter(seat, shown=True)
        # 1.1.10: it may cash out with credits on its meter and no wager in play or unpaid
        may_cash_out = bool(meter) and meter == self.meters.get(seat) and seat not in self.parts_at[2]
        return seat_view(state, seat, pending=pending, last=self.last_round,
                         clock=None if clock is None else {"seconds_left": clock.seconds_left(),
                                                           "deadline": clock.deadline},
                         meter=None if meter is None else to_json_number(meter) if meter else 0,
                         voucher=self.vouchers.get(seat), may_cash_out=may_cash_out,
                         override=self.overrides.get(seat))

    # ------------------------------------------------------------------ credit meters (1.1.10)
    def meter(self, seat: str, *, shown: bool = False) -> Decimal | None:
        """``seat``'s credit meter now (None: it never bought in): the meter on record, less
        what this round took from it, plus what it paid back (service/credits.py). ``shown``:
        as the last change left it (every seat's worked out once per change, for the views)."""
        if seat not in self.meters:
            return None
        paid = self.paid[1] if self.paid[0] == self.round_id and self.round_id is not None else {}
        if shown:
            if self.parts_at[0] != self.version:
                self.parts_at = (self.version, *credits.round_parts(self.session.round))
            part = self.parts_at[1].get(seat, ZERO)
        else:
            part = credits.round_part(self.session.round, seat)
        return self.meters[seat] + part - paid.get(seat, ZERO)

    def _from_meter(self, seat: str, kind: str, args: dict[str, Any], event: Event, actor: str) -> None:
        """A seat's input, its wagers taken from its credit meter (1.1.10: they are placed from
        the credits bought at its terminal): refused when the meter is short, or when the seat
        never bought credits; a wager on the slip is first checked by the rules (limits, 2.2),
        then the meter, the slip put back as it was when it is short."""
        meter = self.meter(seat)
        need, what = credits.wanted(self.session.round, seat, kind, args)
        if need and meter is None:
            raise refused(f"seat {seat} has no credits: buy credits at its terminal first (1.1.10)", "1.1.10")
        if kind == "wager" and self.session.betting and meter is not None:
            slip = list(self.session.slip)
            step = self.session.apply(event)  # the rules' refusals first
            if (self.meter(seat) or ZERO) < 0:
                self.session.set_slip(slip)
                raise refused(f"seat {seat}'s meter holds {meter}: {what} needs more credits (1.1.10)", "1.1.10")
            self._record(step, actor)
            return
        if need and meter is not None and need > meter:
            raise refused(f"seat {seat}'s meter holds {meter}: {what} needs more credits (1.1.10)", "1.1.10")
        self._record(self.session.apply(event), actor)

    def _pay(self, round_id: int | None, rnd: Any) -> None:
        """A round that ended: each bought-in seat's net result paid to its meter on record
        (once; a result changed later pays the difference), then the reconciliation checked
        (buy-ins - cash-outs + net results = meters): a failure is audited and logged."""
        if round_id is None or not self.meters or not rnd.rules.shared_hand:
            return  # credits are Electronic Blackjack's terminals' (1.1.10)
        due = credits.nets(rnd, self.meters)
        if self.paid == (round_id, due):
            return
        try:
            self.meters = self.store.pay_results(round_id, due, actor="service:credits")
            self.paid = (round_id, due)
            problem = self.store.reconcile_credits(audit_round=round_id)
        except StoreError as exc:
            self.log.error("round %s's results were not paid to the meters: %s", round_id, exc)
            return
        if problem:
            self.log.error("significant event: the credit meters do not reconcile after round %s: %s",
                           round_id, problem)


    def _transcripts(self, events: tuple[Event, ...]) -> list[dict[str, Any]]:
        """The round's events as transcript entries: those of the last state kept (the same
        event objects, in the same places: a card adds one), the others written anew."""
        kept = self.transcripts_kept
        same = 0
        for event, (was, _) in zip(events, kept, strict=False):  # (the shorter of the two)
            if event is not was:
                break
            same += 1
        kept[same:] = [(e, event_to_transcript(e)) for e in events[same:]]
        return [entry for _, entry in kept]

    def state(self) -> TableState:
        rnd = self.session.round
        exp = rnd.expectation()
        paired = sorted(self.paired_seats()) if rnd.rules.shared_hand else []
        return {
            "version": self.version,
            "refused": self.refused, "store_error": self.store_error,
            "round_id": self.round_id, "betting": self.session.betting,
            "config": self.session.config,
            "events": self._transcripts(self.session.recorded),
            "slip": [event_to_transcript(e) for e in self.session.slip],
            "tentative": [event_to_transcript(e) for e in self.session.tentative],
            "tentative_held": self.session.tentative_held,
            "expect": {"kind": exp.kind, "target": exp.target, "area": exp.area, "hand": exp.hand,
                       "player": exp.player, "options": list(exp.options), "rule": exp.rule, "text": exp.text},
            "output": self._round_output(), "picture": picture_to_json(rnd), "concluded": self.session.concluded,
            "hold": self._hold_now(), "unread": self._unread_now(), "gap": self.gaps[0] if self.gaps else None, "referral": self.referral, "queued": len(self.queue), "stray": self.stray,
            "face_up_next": self.face_up_next, "restored": self.restored, "next_to": self.next_to,
            "in_flight": [{"seq": s, "card": card} for s, v in sorted(self.in_flight.items())
                          for card in v.get("cards") or [v["card"]]],
            "under_min": sorted(self.session.under_min), "shoe": dict(self.shoe),
            "floor": self.floor() if self.floor is not None else None,
            "needs_enrolment": self._needs_enrolment(), "simulated_shoe": self.simulator is not None,
            "sim_faults": list(SIM_FAULTS.items()) if self.simulator is not None else [],
            "setup": setup_to_json(self.setup),
            "recall": list(self.recall),
            "clocks": self._clocks_now(),
            "taken_back": self.taken_back,
            # Electronic: the seats paired to a Player Terminal (their players decide there,
            # 3.17), those whose terminal is connected now, the supervisors' overrides this round
            "paired": paired,
            "linked": sorted(s for s in self.terminal_links if s in paired),
            "overrides": {s: who for s, who in sorted(self.overrides.items()) if s in paired},
            "power_failure": self._power_failure_answers(),
        }

    def _round_output(self) -> dict[str, Any]:
        """The round's settle output, worked out once for one change (the same round, events and
        tentative events): the card that concludes a round needs it for its result (_record)
        and for the state told (_changed forgets it)."""
        rnd = self.session.round
        made, events = self.output_made, (len(self.session.recorded), len(self.session.tentative))
        if made is None or made[0] is not rnd or made[1] != events:
            made = self.output_made = (rnd, events, round_output(rnd))
        return made[2]

    def _needs_enrolment(self) -> bool:
        """Read from the store for every request's state; a shoe frame's takes the last one read."""
        if self.enrolment_known is None or not self.on_card:
            self.enrolment_known = self.store.needs_enrolment()
        return self.enrolment_known

    def _power_failure_answers(self) -> dict[str, Any] | None:
        """The players still to say whether they withdraw or stay after the round's power
        failure (the engine's reading, engine/power_failure.py), with the clause; None: nobody."""
        rnd = self.session.round
        players = still_to_answer(self.session, self.power_stays)
        if not players:
            return None
        # Electronic's 5.9: the round continues and nobody withdraws; a stay is the only answer
        return {"players": players, "rule": rnd.rules.clause("power_failure"),
                "withdraw": rnd.rules.has("power_failure.withdraw")}

    def _clocks_now(self) -> dict[str, int]:
        """The pending seats' decision time left (3.17): the service's clock, the only one."""
        clocks = {}
        for seat in self.pending_seats:
            clock = self.clock.get(seat)
            if clock is not None:
                clocks[seat] = clock.seconds_left()
        return clocks

    def _hold_now(self) -> str:
        """What holds the table: a card missing or unread, then any restart gap not answered."""
        parts = [self._reread_text() if self._rereading_now() is not None else self.hold] if self.hold else []
        for gap in self.gaps:
            before, lost = int(gap.get("before") or 0), int(gap.get("lost") or 0)
            keyed = f" ({gap['keyed']} card(s) keyed in for it)" if gap.get("keyed") else ""
            first, last = (before - lost) % SEQ_MODULO, (before - 1) % SEQ_MODULO  # the shoe's numbers wrap
            parts.append(f"{lost} frame(s) from the shoe (numbers {first:04d} to {last:04d}) came while the "
                         f"service was down{keyed}: a card may be missing; key in every card that came out "
                         "(between rounds: set it aside with a supervisor), or say none is missing")
        return "; ".join(parts)

    def _reread_text(self) -> str:
        clause = self.session.round.rules.clause("void.foreign_card")
        return f"re-read: put the unread card through the shoe's reader again ({clause} if it cannot be identified)"

    def _held(self) -> bool:
        return bool(self.hold or self.gaps)

    def _answer_gaps(self, actor: str, how: str) -> None:
        for gap in self.gaps:
            self.store.add_audit(GAP_ANSWERED_KIND, actor=actor, round_id=self.round_id,
                                 detail={"gap": gap["audit"], "how": how, "keyed": gap.get("keyed", 0)})
        self.gaps = []

    def _gap_card(self, actor: str, card: str) -> None:
        """A card keyed in for the oldest open gap: once as many cards as the gap lost frames
        are keyed in, nothing more can be missing from it."""
        gap = self.gaps[0]
        self.store.add_audit(GAP_CARD_KIND, actor=actor, round_id=self.round_id,
                             detail={"gap": gap["audit"], "card": card})
        gap["keyed"] = int(gap.get("keyed") or 0) + 1
        if gap["keyed"] >= int(gap.get("lost") or 0):
            self.store.add_audit(GAP_ANSWERED_KIND, actor=actor, round_id=self.round_id,
                                 detail={"gap": gap["audit"], "how": "every frame's card keyed in",
                                         "keyed": gap["keyed"]})
            self.gaps.pop(0)

    def _changed(self) -> None:
        if self.session.concluded:
            self.face_up_next = False  # 5.5's report is for this round's next card: none comes
        if self.round_id is not None and self.session.concluded and not self.store_error and self.result_due is None:
            self._pay(self.round_id, self.session.round)  # (the result on disk: the meters reconcile with it)
        self._set_clocks()
        self.version += 1
        self.state_at_change = self.state()
        self.output_made = None  # worked out for this change only (_round_output)
        self.outbox.append(("round", dict(self.state_at_change)))

    # ------------------------------------------------------------------ the decision clock (3.17, 3.18)
    def start_clock(self) -> None:
        """The decision clock's thread (serve.start; Running.stop stops it), and the clocks of
        a round restored in its decisions (a restart gives every pending seat its full time)."""
        with self.lock:
            self._set_clocks()
        self.clock.start()

    def _decisions_pending(self) -> dict[str, tuple[tuple[Any, ...], dict[str, Any]]]:
        """Electronic: each seat whose decision the round waits on now (its hand in turn, or an
        offer open to it, 3.9), with its decision's key (the round and the seat's events and
        cards so far: a decision made, a card taken: the next decision is another) and its
        entry (``player``, ``hand``, ``options``). None while the round is referred (6.1) or
        the table holds no round in decisions."""
        rnd = self.session.round
        if not rnd.rules.shared_hand or rnd.phase != "decisions" or self.referral is not None \
                or self.session.tentative_held:
            return {}
        pending: dict[str, tuple[tuple[Any, ...], dict[str, Any]]] = {}
        for t in rnd.view().terminals:
            if t.options and not t.default_strategy:
                own = sum(1 for e in rnd.events if getattr(e, "player", None) == t.player)
                key = (self.round_id, t.player, own, t.in_turn, len(t.hands), sum(len(h.cards) for h in t.hands))
                pending[t.player] = (key, {"player": t.player, "hand": t.in_turn or 1, "options": list(t.options)})
        return pending

    def _set_clocks(self) -> None:
        """After each change (under the table's lock): the pending seats' clocks of the table's
        ``decision_seconds`` (3.17); a seat whose terminal placed its wager and then dropped,
        none at all (5.9.1), unless a supervisor overrode that terminal before (``_default_at_once``)."""
        self.pending_seats = self._decisions_pending()  # kept until the next change (op seat reads it)
        self.clock.set({seat: key for seat, (key, _) in self.pending_seats.items()}, self.setup.decision_seconds,
                       self._default_at_once())

    def _down(self) -> set[str]:
        """The seats whose wager was accepted at their terminal and whose terminal is down now
        (5.9.1); a seat whose wager the dealer's screen placed is decided there, on its clock."""
        return self.interrupted & self.slip_by_terminal

    def _default_at_once(self) -> set[str]:
        """The seats 5.9.1 plays by the default decision at once: down after their wager was
        accepted at their terminal, and not overridden. Our reading (docs/station.md, "A
        terminal that drops"): 5.9 is about the Player Terminals a technical interruption
        affects, and 5.9.1 applies the default decision "in accordance with Rule 3.18", the
        rule for a hand on which no selection is made (3.9: made on the Player Terminal).
        Once a supervisor overrode a terminal that cannot be used, its player's decisions are
        entered by the dealer, not made on that terminal (3.17 read with 6.1, 6.2), so its
        drop afterwards interrupts none of them: the seat keeps its decision time and 3.18
        applies only if none is entered in it. A drop before any override is 5.9.1's (the
        default decision applies; op terminal_override is then refused, nothing decided twice)."""
        return self._down() - set(self.overrides)

    def decision_time_out(self, seat: str, key: Any) -> None:
        """A seat's decision time ran out (the clock's thread): its ``timeout`` recorded, once,
        only if that same decision is still pending (3.18; a decision that came first stands)."""
        with self.lock:
            self._result_now()
            if self.refused or self.store_error or self._decisions_pending().get(seat, (None,))[0] != key:
                return
            dropped = seat in self._default_at_once()
            try:
                self._record(self.session.apply(Timeout(seat)), CLOCK_ACTOR)
                if dropped:  # 5.9.1: bets closed, its wager accepted: the default decision (3.18)
                    rule = self.session.round.rules.clause("power_failure.accepted")
                    self.store.add_audit(INTERRUPTED_KIND, actor=CLOCK_ACTOR, round_id=self.round_id,
                                         detail={"seat": seat, "rule": rule})
            except RuleRefusal as exc:
                self.log.error("seat %s's time-out was refused: %s", seat, exc)
                return
            except StoreError as exc:
                self._store_failed(exc)
                self._changed()
                return
            self.log.info("seat %s: %s (3.18)", seat, "its terminal is down: the default decision (5.9.1)"
                          if dropped else "its decision time ran out: the default strategy plays")
            self._release()
            self._changed()
        self.tell_screens()

    def terminal_joined(self, seat: str) -> None:
        """A terminal of ``seat`` connected (terminal_server.py): it decides for itself again."""
        with self.lock:
            self._result_now()
            self.terminal_links[seat] = self.terminal_links.get(seat, 0) + 1
            if seat in self.interrupted:
                self.interrupted.discard(seat)
                self._link_on_record(BACK_KIND, seat)
            if self.terminal_links[seat] == 1:  # the screens show it up again
                self._changed()
        self.tell_screens()

    def terminal_left(self, seat: str) -> None:
        """A terminal of ``seat`` disconnected; its seat's last one gone, the seat is
        interrupted (5.9): an accepted wager plays by the default decision when its turn
        comes (5.9.1); with no wager accepted, the seat takes no part (5.9.2)."""
        with self.lock:
            self._result_now()
            left = self.terminal_links.get(seat, 0) - 1
            if left > 0:
                self.terminal_links[seat] = left
                return
            self.terminal_links.pop(seat, None)
            self.interrupted.add(seat)
            self._link_on_record(DOWN_KIND, seat)
            self._changed()  # its clock (5.9.1), and the screens show it down
        self.tell_screens()

    def _link_on_record(self, kind: str, seat: str) -> None:
        """A terminal's drop or return audited (``_note_link``); a store that takes no write
        holds the table as after any failed write."""
        try:
            self._note_link(kind, seat)
        except StoreError as exc:
            self._store_failed(exc)

    # ------------------------------------------------------------------ ops
    def handle(self, client: Client, op: str, args: dict[str, Any]) -> Any:
        """One request, dispatched from the registry (dealer_assist/service/ops.py);
        ProtocolError (refused, pin, auth, bad_request, busy) when it is not done. The entry's
        permission is checked first, then a PIN in it, on the PIN worker, outside the table's lock."""
        entry = REGISTRY.get(op)
        if entry is None:
            raise ProtocolError("bad_request", f"no op {op!r} (docs/station.md lists the ops)")
        check_fields(entry, args)
        if self.review_only and not entry.review:
            raise refused(f"this service serves the review of {self.review_only} only: no table is dealt "
                          f"from it (op {entry.op} is a table's)")
        try:
            if entry.op is not Op.STATE and (not entry.table or isinstance(args.get("pin"), dict)):
                self._open_or_refuse()
                self._permit(entry, client)  # no PIN checked for nobody
                args = self._check_pin_first(client, op, args)
                if not entry.locked:
                    return self._off_table(client, entry, args)
            with self.lock:
                self._result_now()
                return self._locked(client, entry, args)
        finally:
            self.tell_screens()  # before the reply: a screen is told of a change before its answer

    def tell_screens(self) -> None:
        """The notifications made under the table's lock, in their order, outside it; returns
        once every one made before the call is sent (a reply then follows its notifications)."""
        with self.telling, self.together():
            while self.outbox:
                name, data = self.outbox.popleft()
                self.notify(name, data)
        if self.result_due is not None:
            with self.lock:
                if self.result_timer is None and self.result_due is not None:
                    self.result_timer = threading.Timer(RESULT_AFTER_S, self.write_result_due)
                    self.result_timer.daemon = True
                    self.result_timer.start()
            return
        if self.anchor_due is not None:  # a round's result is on disk: its anchor, once the screens know (_anchor)
            with self.lock:
                try:
                    self._write_anchor()
                except OSError as exc:  # the next round's anchor is written then; the store is ahead, no rollback
                    self.log.error("the rollback anchor cannot be written: %s", exc)

    def _locked(self, client: Client, entry: Entry, args: dict[str, Any]) -> Any:
        """The request under the table's lock (its PIN already checked)."""
        if entry.op is Op.STATE:
            return entry.run(self, client, args)
        self._open_or_refuse()
        self._permit(entry, client)
        if not entry.table:
            return entry.run(self, client, args)
        try:
            return self._table_op(client, entry, args)
        except RuleRefusal as exc:
            raise refused(str(exc), _clause_of(str(exc))) from None
        except (EventFormatError, TranscriptError, CardNotationError, AmountError) as exc:
            raise ProtocolError("bad_request", str(exc)) from None
        except StoreError as exc:
            self._store_failed(exc)
            self._changed()  # the screens see the table as on disk, and why it holds
            raise ProtocolError("internal", f"not recorded: {self.store_error}") from None

    def _permit(self, entry: Entry, client: Client) -> None:
        """The entry's permission (ops.Permission); a supervisor's PIN is checked by the
        handler's approval (:meth:`_approval`), after this."""
        need = entry.permission
        if need in (Permission.DEALER, Permission.SUPERVISOR) and client.dealer is None:
            raise ProtocolError("auth", "no dealer is logged in on this screen: log in first")
        if need is Permission.DEALER_OR_TERMINAL and client.kind == "terminal" and client.seat is None:
            raise ProtocolError("auth", "a player terminal acts only once paired to a seat (1.1.10)")
        if need is Permission.DEALER_OR_TERMINAL and client.kind != "terminal" and client.dealer is None:
            raise ProtocolError("auth", "no dealer is logged in on this screen: log in first")
        if need is Permission.SIGNED_IN and client.dealer is None and \
                not any(kind == "accounts" for kind, _ in client.approvals.values()):
            # never before a log-in (the accounts' names are half of a guess)
            raise ProtocolError("auth", "the accounts are shown after a log-in (or a supervisor's PIN)")
        if need is Permission.TERMINAL and (client.kind != "terminal" or client.seat is None):
            raise ProtocolError("auth", "a player terminal's op: only a terminal paired to a seat calls it")
        if need is Permission.ROOT and client.uid != 0:
            raise ProtocolError("auth", "only root clears a lock this way (a supervisor: op unlock)")

    def _open_or_refuse(self) -> None:
        """Refused while the table is not open (trust at start) or its store takes no writes
        (a full disk: tried again first, the journal's frames recorded in order)."""
        if self.refused:
            raise refused(self.refused)
        if self.store_error and not self.retry_store():
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
            if op == Op.BUY_IN:  # a refused buy-in is refused before any PIN is checked (nothing written)
                self._buy_in_args(client, args)
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
        # a wrong PIN that locked the name says so now (a known name's and an unknown one's alike)
        locked_now = check.reason == "wrong" and bool(check.locked_until)
        raise ProtocolError("pin", _pin_text(check), None, reason="locked" if locked_now else check.reason)

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

    def _off_table(self, client: Client, entry: Entry, args: dict[str, Any]) -> Any:
        """An account op that changes no table state: without the table's lock; one that
        hashes a new PIN on the PIN worker."""
        try:
            if entry.op is Op.ENROL:  # root's code, its refusal waiting the throttle's delay here
                self._enrol_code(client, args)
            if entry.pin_worker:
                return self.pins.run(lambda: entry.run(self, client, args))
            return entry.run(self, client, args)
        except StoreError as exc:
            raise ProtocolError("internal", f"the store failed: {exc}") from None

    @handler(Op.CHANGE_PIN, Permission.ANYONE, ChangePinRequest, NameReply, locked=False, review=True)
    def _op_change_pin(self, client: Client, args: dict[str, Any]) -> NameReply:
        """The account itself changes its PIN (`name`, `old_pin`, `new_pin`); a refusal waits
        the throttle's delay here, never on the PIN worker."""
        name = str(args.get("name", ""))
        self._ghost_locked(client, name)
        check = self.pins.run(lambda: self.store.change_pin(
            name, str(args.get("old_pin", "")), str(args.get("new_pin", "")), audit_locked=False))
        if not check.ok:
            self._pin_refused(client, name, check)
        self.throttle.passed(name)
        return {"changed": name}

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

    @handler(Op.ENROL, Permission.ANYONE, EnrolRequest, EnrolReply, locked=False, pin_worker=True)
    def _op_enrol(self, client: Client, args: dict[str, Any]) -> EnrolReply:
        """The first supervisor, only while the store has none (first start); `code`: root's
        one-time enrolment code (`station init`, `station enrol-code`), not needed from the
        service's own account (a development run) or root. Answers the new supervisor's
        `accounts` approval on this connection.

        On the PIN worker (a new PIN's hash), after :meth:`_enrol_code`."""
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

    @handler(Op.LOGIN, Permission.ANYONE, LoginRequest, LoginReply)
    def _op_login(self, client: Client, args: dict[str, Any]) -> LoginReply:
        """A dealer's shift on this connection (audited `shift_start`); the answer's `resume`
        token resumes it after the service restarted (op resume)."""
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

    @handler(Op.RESUME, Permission.ANYONE, TokenRequest, DealerReply)
    def _op_resume(self, client: Client, args: dict[str, Any]) -> DealerReply:
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

    @handler(Op.LOGOUT, Permission.ANYONE, NoArgs, NameReply)
    def _op_logout(self, client: Client, args: dict[str, Any]) -> NameReply:
        """The shift on this connection ends (audited `shift_end`); its resume token too."""
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
            self._result_now()
            client.approvals.clear()
            if client.dealer is not None and not self.refused and not self.store_error:
                self.log.info("dealer %s logged out: the connection closed (account %s)", client.dealer, client.account)
                self._op_logout(client, {})

    @handler(Op.UNLOCK, Permission.SUPERVISOR_PIN, UnlockRequest, NameReply)
    def _op_unlock(self, client: Client, args: dict[str, Any]) -> NameReply:
        """A locked name's lock cleared by another supervisor's PIN (issue 23 item 7)."""
        name = str(args.get("name", ""))
        approval, _ = self._approval(client, args, "accounts", None, forbid=name)
        self.store.clear_lockout(name, approval=approval)
        return {"unlocked": name}

    @handler(Op.ADD_ACCOUNT, Permission.SUPERVISOR_PIN, AddAccount, NameReply, locked=False, pin_worker=True)
    def _op_add_account(self, client: Client, args: dict[str, Any]) -> NameReply:
        """A supervisor adds an account (its PIN to be changed at its first log-in)."""
        name, roles = str(args.get("name", "")), args.get("roles") or ["dealer"]
        approval, who = self._approval(client, args, "accounts", None)
        try:
            self.store.add_account(name, str(args.get("new_pin", "")), [str(r) for r in roles], approval=approval,
                                   actor=f"supervisor:{who}")
        except StoreError as exc:
            raise refused(str(exc)) from None
        return {"added": name}

    @handler(Op.ADD_NOTE, Permission.SUPERVISOR_PIN, NoteRequest, NoteReply, locked=False, review=True)
    def _op_add_note(self, client: Client, args: dict[str, Any]) -> NoteReply:
        """A supervisor's note (`text`) on round `round_id` (none: on the table) in the audit
        log, after the supervisor's PIN (`pin`): audited `note` by the supervisor. The review of
        the station's copy adds its notes so (the copy is read only)."""
        pin = args.get("pin")
        if not isinstance(pin, Verified):
            raise ProtocolError("pin", "a supervisor's PIN is needed for a note")
        text = str(args.get("text", "")).strip()
        if not text:
            raise ProtocolError("bad_request", "write the note first: its text is empty")
        round_id = args.get("round_id")
        if round_id is not None and (isinstance(round_id, bool) or not isinstance(round_id, int)
                                     or self.store.get_round(round_id) is None):
            raise ProtocolError("bad_request", f"no round {round_id!r} on this table's store")
        return {"note": self.store.add_note(round_id, author=f"supervisor:{pin.user}", text=text)}

    @handler(Op.SET_DISABLED, Permission.SUPERVISOR_PIN, SetDisabledRequest, NameReply, locked=False)
    def _op_set_disabled(self, client: Client, args: dict[str, Any]) -> NameReply:
        """A supervisor disables an account or enables it again (audited)."""
        name, disabled = str(args.get("name", "")), bool(args.get("disabled"))
        approval, who = self._approval(client, args, "accounts", None)
        try:
            self.store.set_account_disabled(name, disabled, approval=approval, actor=f"supervisor:{who}")
        except StoreError as exc:
            raise refused(str(exc)) from None
        return {"name": name, "disabled": disabled}

    @handler(Op.RESET_PIN, Permission.SUPERVISOR_PIN, ResetPinRequest, NameReply, locked=False, pin_worker=True)
    def _op_reset_pin(self, client: Client, args: dict[str, Any]) -> NameReply:
        """A supervisor gives an account a new PIN, to be changed at its next log-in (audited)."""
        name = str(args.get("name", ""))
        approval, who = self._approval(client, args, "accounts", None)
        try:
            self.store.reset_pin(name, str(args.get("new_pin", "")), approval=approval, actor=f"supervisor:{who}")
        except StoreError as exc:
            raise refused(str(exc)) from None
        return {"reset": name}

    @handler(Op.SNAPSHOT, Permission.SUPERVISOR_PIN, SnapshotRequest, SnapshotReply, review=True)
    def _op_snapshot(self, client: Client, args: dict[str, Any]) -> SnapshotReply:
        """The review's read-only copy of the store without PIN hashes, passed with the reply
        as an open file, with `supervisor` and `expires` (UTC); with the PIN also a review
        `token`, which gives a fresh copy from the same OS account for 60 minutes after the
        PIN (never extended; refused `auth` from another account, expired or ended).

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

    @handler(Op.END_REVIEW, Permission.ANYONE, TokenRequest, NameReply, review=True)
    def _op_end_review(self, client: Client, args: dict[str, Any]) -> NameReply:
        """The review's window closed: its token gives no copy any more."""
        return {"ended": self.review_tokens.end(str(args.get("token", "")), client.account)}

    @handler(Op.ROUND_INTEGRITY, Permission.ANYONE, RoundIntegrityRequest, RoundIntegrityReply, locked=False,
              review=True)
    def _op_round_integrity(self, client: Client, args: dict[str, Any]) -> RoundIntegrityReply:
        """The integrity of round `round_id` checked here, with the station key the review's copy
        is made without (op snapshot): each of its hash links and records, as the review's
        Integrity tab shows them (`checks`: `name`, `ok`, `detail`, `checked`). For the review
        `token` of a supervisor's PIN (same OS account, not expired, not ended); refused `auth`
        otherwise. Reads the store file on a connection of its own."""
        from dealer_assist.store import StoreReader
        from dealer_assist.store.review_queries import round_integrity

        try:
            self.review_tokens.check(str(args.get("token", "")), client.account)
        except ReviewTokenRefused as exc:
            raise ProtocolError("auth", f"{exc}: the supervisor's PIN is needed again") from None
        round_id = args.get("round_id")
        if not isinstance(round_id, int) or isinstance(round_id, bool) or round_id < 1:
            raise ProtocolError("bad_request", "round_id: a round's number (1 or more)")
        try:
            with StoreReader.open(self.store.path, key_file=self.store.key_path) as reader:
                checks = round_integrity(reader, round_id)
        except StoreError as exc:
            raise ProtocolError("internal", f"the store cannot be read: {exc}") from None
        return {"round_id": round_id, "checks": [{"name": c.name, "ok": c.ok, "detail": c.detail,
                                                  "checked": c.checked} for c in checks]}

    @handler(Op.SHOE_COUNT, Permission.SUPERVISOR_PIN, ShoeCountRequest, ShoeCountReply, locked=False)
    def _op_shoe_count(self, client: Client, args: dict[str, Any]) -> ShoeCountReply:
        """The shoe in play's count for a supervisor or surveillance, never the dealer's screen:
        `shoe`, `cards_out`, `decks_remaining`, `running_count`, `true_count`, the estimated
        `edge` of the next round's main wager and the `count` (name, tags), each side bet's
        player's expected return from the cards left (`side_bets`, with the 6-7-8 bonus per
        unit of main wager and `insurance_ace_up`, insurance given the dealer's Ace up), after a
        supervisor's PIN or `review` approval (audited); a game with no count says so in `note`.

        (dealer_assist/service/shoe_count.py; the game's own count, protect/counts.py.)"""
        if not isinstance(args.get("pin"), dict | Verified) and not isinstance(args.get("approval"), int):
            raise ProtocolError("pin", "the shoe's count is read by a supervisor only (never on the dealer's "
                                "screen): a supervisor's PIN (`pin`) or `review` approval is needed")
        with self.lock:  # the shoe's cards as the table has them now
            who, shoe_cards = self._shoe_count_cards(client, args)
        # the figures (side bets by enumeration: seconds for some games) with the table's lock
        # free: the cards and the dealer's inputs never wait for a supervisor's read
        return {**shoe_figures(*shoe_cards), "supervisor": who}  # type: ignore[typeddict-item]

    def _shoe_count_cards(self, client: Client, args: dict[str, Any]) -> tuple[str, tuple[Any, ...]]:
        """Under the table's lock: the approval used (audited) and shoe_figures' arguments."""
        _, who = self._approval(client, {**args, "read": "shoe_count"}, "review", None)
        config = self.session.config
        game, decks = str(config.get("game", "")), int(config.get("decks") or 0)
        shoe = config.get("shoe") if isinstance(config.get("shoe"), dict) else None
        events = [event_to_transcript(e) for e in (*self.session.recorded, *self.session.tentative)]
        here = round_cards(config, events)
        flying = sum(len(v.get("cards") or [v["card"]]) for v in self.in_flight.values())
        if self.session.shoe_reloaded or shoe is None:
            # shuffled during this round: the new shoe, the round's cards after the shuffle out of it
            at = self.session.reloaded_at if self.session.reloaded_at is not None else len(here) + flying
            out = max(0, len(here) + flying - at) + len(self.session.discarded)
            aside = [parse_card(c) for c in self.session.discarded]  # set aside after the shuffle
            return who, (game, decks, self.session.next_shoe or None, [*here[at:], *aside], out)
        shoe_id, dealt = str(shoe.get("id", "")), int(shoe.get("dealt") or 0)
        after = self.shoe_tally.through if self.shoe_tally is not None and self.shoe_tally.shoe == shoe_id else 0
        table = self.store.table
        rounds = self.store.read_with(lambda conn: shoe_rounds_after(conn, table, shoe_id, after, self.round_id))
        self.shoe_tally = tally_for(
            self.shoe_tally, shoe_id, rounds, self.round_id, dealt,
            lambda first, n: self.store.read_with(lambda conn: carried_into(conn, table, shoe_id, first, n)), config)
        # the round's header lists the shoe's cards before it (cards set aside between rounds
        # included: its `dealt` counts them, spec/round-script.md): that list when complete
        listed = listed_before(config, dealt)
        before = listed if listed is not None else self.shoe_tally.seen
        out = dealt + len(here) + flying + len(self.session.discarded)
        aside = [parse_card(c) for c in self.session.discarded]  # set aside since the round: faces known
        return who, (game, decks, shoe_id, [*before, *here, *aside], out)

    @handler(Op.APPROVE, Permission.SUPERVISOR_PIN, ApproveRequest, ApprovalReply, review=True)
    def _op_approve(self, client: Client, args: dict[str, Any]) -> ApprovalReply:
        """A supervisor's PIN (`user`, `pin`, checked first, on the PIN worker) for `kind` (void,
        resolve, correction, override, accounts, review, undo, key_card, setup), audited; the
        answer's `approval` id is good on this connection only: once, or for the rest of the
        connection for `accounts`."""
        kind = str(args.get("kind", ""))
        detail = args.get("detail") if isinstance(args.get("detail"), dict) else {}
        pin = args.get("pin")
        if not isinstance(pin, Verified):
            raise ProtocolError("pin", "wrong name or PIN", reason="wrong")
        approval = self.store.add_audit(kind, actor=pin.user, round_id=self.round_id if self.round_id else None,
                                        detail=detail)
        client.approvals[approval] = (kind, pin.user)
        return {"approval": approval, "user": pin.user}

    @handler(Op.USERS, Permission.SIGNED_IN, NoArgs, list[UserRow], locked=False)
    def _op_users(self, client: Client, args: dict[str, Any]) -> list[dict[str, Any]]:
        """The accounts (names, roles, locks; never hashes): to a logged-in dealer or a
        supervisor's accounts dialog; never before a log-in (the names are half of a guess)."""
        return [{k: u[k] for k in ("username", "roles", "disabled", "must_change", "locked_until") if k in u}
                for u in self.store.users()]

    @handler(Op.ROOT_UNLOCK, Permission.ROOT, RootUnlockRequest, NameReply, locked=False)
    def _op_root_unlock(self, client: Client, args: dict[str, Any]) -> NameReply:
        """Root clears a name's wrong PINs and lock (`sudo dealer-assist station unlock NAME`),
        audited `pin_failures_cleared` by `root`."""
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

    def _table_op(self, client: Client, entry: Entry, args: dict[str, Any]) -> TableState | dict[str, Any]:
        """A table op: its handler, then the cards held behind it released and the screens
        told; a terminal's answered with its seat's view (1.1.10)."""
        if self.referral is not None and not entry.during_referral:
            raise refused("the round is referred to the Gaming Shift Manager: nothing is taken until the "
                          f"shift manager decides ({self.referral['rule']})", self.referral["rule"])
        entry.run(self, client, args)
        self._release()
        self._changed()
        if client.kind == "terminal" and client.seat is not None:
            return self.seat_reply(client.seat)
        if client.round_told:  # the ``round`` notification of this change goes to it first
            return {ROUND_TOLD: self.version}
        return self.state_at_change if self.state_at_change is not None else self.state()

    # ------------------------------------------------------------------ table ops (ops.py)
    @handler(Op.REFER, Permission.DEALER, ReferRequest, TableState, table=True)
    def _op_refer(self, client: Client, args: dict[str, Any]) -> None:
        """A round in play referred to the Gaming Shift Manager (6.1): audited `referral`, the
        round's record `referred`; until `resolve`, cards stay in flight and every other input
        is refused naming 6.1."""
        actor = f"dealer:{client.dealer}"
        self._refer(str(args.get("text", "")).strip(), actor)

    def _dealer_input(self, client: Client, args: dict[str, Any], kind: str) -> None:
        """An input the dealer gives: the op names the event's type, the client never does."""
        actor = f"dealer:{client.dealer}"
        event = parse_event({k: v for k, v in args.items() if k != "type"} | {"type": kind})
        if kind == "decision":
            self._dealer_may_decide(event)
        elif kind in ("withdraw", "absent", "claim") and self._for_paired_seat(kind, event, actor):
            return
        player = args.get("player")
        if isinstance(player, str) and self.session.round.rules.shared_hand and (
                player in self.meters or (kind == "wager" and player in self.paired_seats())):
            # 1.1.10: a seat with credits, or with a paired terminal (its wagers are placed from
            # the credits bought at it: none bought, none placed), plays from its meter
            self._from_meter(player, kind, args, event, actor)
            return
        self._record(self.session.apply(event), actor)

    def _dealer_may_decide(self, event: Event) -> None:
        """Electronic: a seat paired to a Player Terminal decides there (1.1.10, 3.9, 3.17); the
        dealer enters its decisions only after a supervisor's override of that terminal (op
        terminal_override) this round. Refused before the engine sees the decision."""
        if not self.session.round.rules.shared_hand:
            return
        named = {str(getattr(event, "player", None))} | {str(p) for p, _ in getattr(event, "followers", ())}
        for seat in sorted(named & self.paired_seats()):
            if seat not in self.overrides:
                raise refused(f"seat {seat}'s player decides at its own Player Terminal (1.1.10): the dealer "
                              "enters its decisions only after a supervisor's override of a terminal that "
                              "cannot be used (3.17)", "3.17")

    def _for_paired_seat(self, kind: str, event: Event, actor: str) -> bool:
        """Electronic: the dealer's ``withdraw``, ``absent`` or ``claim`` naming a seat paired to
        a Player Terminal, whose player wagers, withdraws and decides there (1.1.10, 3.17), is
        refused naming the clause before the engine sees it, unless a supervisor's override of
        that terminal is in force (the reading: docs/station.md, "Player terminals").
        Withdraw: 1.1.10 while the bets are open (overridden: off the slip, as its terminal
        would), 5.4 after "No more bets", 5.9 after a power failure (the round continues; the
        answer is op power_stays), overridden or not. Absent: 3.17 while its terminal is
        connected (the service's clock applies 3.18); 5.9.1 once it dropped after its wager
        was accepted. Claim: 1.1.10; 5.3 after "No more bets". True: done here."""
        rnd = self.session.round
        if not rnd.rules.shared_hand:
            return False
        named = {getattr(event, "player", None), getattr(event, "declined_by", None)}
        named |= {c.player for c in getattr(event, "claimants", ())}
        seats = sorted({p for p in named if isinstance(p, str)} & self.paired_seats())
        betting = self.session.betting
        for seat in seats:
            overridden = seat in self.overrides
            if kind == "withdraw" and not betting:
                if any(isinstance(e, PowerFailure) for e in rnd.events):
                    clause = rnd.rules.clause("power_failure")
                    raise refused(f"after the power failure the round continues ({clause}): seat {seat}'s accepted "
                                  f"wager plays the default decision ({rnd.rules.clause('power_failure.accepted')}) "
                                  "and is not withdrawn: the seat stays (op power_stays)", clause)
                clause = rnd.rules.clause("no_withdraw")
                raise refused(f'no wager may be withdrawn after "No more bets" ({clause}): seat {seat}\'s wagers '
                              "stay in the round", clause)
            if kind == "withdraw" and not overridden:
                raise refused(f"seat {seat}'s player withdraws its wagers at its own Player Terminal before \"No "
                              f"more bets\" (1.1.10, {rnd.rules.clause('no_withdraw')}): the dealer withdraws them only "
                              "after a supervisor's override of a terminal that cannot be used (3.17)", "1.1.10")
            if kind == "absent" and not overridden:
                if seat in self._down():
                    clause = rnd.rules.clause("power_failure.accepted")
                    raise refused(f"seat {seat}'s terminal went down after its wager was accepted: the default "
                                  f"decision applies ({clause})", clause)
                if seat in self.terminal_links:
                    raise refused(f"seat {seat}'s player decides at its own Player Terminal, which is connected, "
                                  f"within the time it shows ({rnd.rules.clause('decision_time')}); none made in "
                                  f"time, the service applies the default decision "
                                  f"({rnd.rules.clause('no_selection')})", rnd.rules.clause("decision_time"))
            if kind == "claim" and not overridden:
                if not betting:
                    clause = rnd.rules.clause("bets_closed")
                    raise refused(f'no wager may be placed after "No more bets" ({clause}): seat {seat} claims '
                                  "nothing", clause)
                raise refused(f"seat {seat}'s player places its wagers at its own Player Terminal (1.1.10): the "
                              "dealer claims nothing for it without a supervisor's override of its terminal (3.17)",
                              "1.1.10")
        if kind == "withdraw" and seats:  # overridden, bets open: from the slip, as its terminal would
            (seat,) = seats
            self._withdraw_from_slip(seat, actor)
            return True
        return False

    def _withdraw_from_slip(self, seat: str, who: str) -> None:
        """``seat``'s wagers taken off the slip while the bets are open (5.4, read the other
        way); refused when it has none there."""
        clause = self.session.round.rules.clause("no_withdraw")
        slip = self.session.slip
        kept = [e for e in slip if getattr(e, "player", None) != seat]
        if len(kept) == len(slip):
            raise refused(f"nothing to withdraw: seat {seat} has no wager on the slip ({clause})", clause)
        self.session.set_slip(kept)
        self.slip_by_terminal.discard(seat)
        self.log.info("seat %s's wagers withdrawn before the bets closed (%s, by %s)", seat, clause, who)

    def _terminal_input(self, client: Client, args: dict[str, Any], kind: str) -> None:
        """An input a player terminal gives for its own seat (1.1.10), as the dealer's screen
        sends it: ``player`` is the seat (filled in when missing); another seat, another
        player's part (``followers``, ``claimants``), a wager once the bets closed (3.2), and
        any wager, withdrawal or decision while a supervisor's override of this terminal is in
        force (3.17: the dealer enters them this round) are refused before the engine sees
        them. Every refusal leaves the round as it was."""
        seat = str(client.seat)
        if not self.session.round.rules.shared_hand:
            raise refused("player terminals play Electronic Blackjack only: this table plays "
                          f"{self.session.round.rules.name} (1.1.10)", "1.1.10")
        player = args.get("player", seat)
        if player != seat:
            raise refused(f"this terminal is seat {seat}'s: it acts for no other seat ({player!r}) (1.1.10)",
                          "1.1.10")
        others = sorted(k for k in ("followers", "claimants", "declined_by") if k in args)
        if others:
            raise refused(f"a terminal decides for its own seat only: not {', '.join(others)} (1.1.10)", "1.1.10")
        if seat in self.overrides:
            # 3.17 (6.1, 6.2): overridden, the seat's decisions and wagers this round are the
            # dealer's, who enters them as the player says; one source of them, never two
            raise refused(f"this terminal is overridden by supervisor {self.overrides[seat]} for this round: the "
                          f"dealer enters seat {seat}'s decisions and wagers until the round ends (3.17)", "3.17")
        betting = self.session.betting
        if kind == "wager" and not betting:
            raise refused('the bets are closed: the terminals show "No more bets" (3.2); no wager may be '
                          "placed or increased now (5.3)", "3.2")
        actor = f"terminal:{seat}"
        if kind == "withdraw":
            clause = self.session.round.rules.clause("no_withdraw")
            if not betting:  # 5.4: withdrawn only while the terminals show the bets open
                raise refused(f'no wager may be withdrawn after "No more bets" ({clause})', clause)
            self._withdraw_from_slip(seat, actor)
            return
        event = parse_event({k: v for k, v in args.items() if k != "type"} | {"player": seat, "type": kind})
        self._from_meter(seat, kind, args, event, actor)
        if kind == "wager":
            self.slip_by_terminal.add(seat)

    def _input(self, client: Client, args: dict[str, Any], op: Op) -> None:
        """A screen's input (the dealer's), or a player terminal's for its own seat."""
        if client.kind == "terminal":
            self._terminal_input(client, args, INPUT_EVENTS[op])
        else:
            self._dealer_input(client, args, INPUT_EVENTS[op])

    @handler(Op.WAGER, Permission.DEALER_OR_TERMINAL, EventRequest, TableState, table=True, open_fields=True,
             terminal=True)
    def _op_wager(self, client: Client, args: dict[str, Any]) -> None:
        """A wager as its transcript event: while the bets are open it joins the slip (a
        terminal's, for its own seat: refused naming 3.2 once the bets closed); after, e.g. a
        double or a split's (the dealer's screen)."""
        self._input(client, args, Op.WAGER)

    @handler(Op.CLAIM, Permission.DEALER, EventRequest, TableState, table=True, open_fields=True)
    def _op_claim(self, client: Client, args: dict[str, Any]) -> None:
        """A player's claim, as its transcript event. Electronic: refused for a seat paired to a
        Player Terminal (its wagers are placed there, 1.1.10; after "No more bets" 5.3) unless a
        supervisor overrode that terminal this round."""
        self._dealer_input(client, args, INPUT_EVENTS[Op.CLAIM])

    @handler(Op.DECIDE, Permission.DEALER_OR_TERMINAL, EventRequest, TableState, table=True, open_fields=True,
             terminal=True)
    def _op_decide(self, client: Client, args: dict[str, Any]) -> None:
        """A player's decision (the transcript's `decision`); a terminal's for its own seat
        (3.9), taken as it arrives: before its decision time ran out, or never (3.17, 3.18)."""
        self._input(client, args, Op.DECIDE)

    @handler(Op.CLOSE_OFFERS, Permission.DEALER, EventRequest, TableState, table=True, open_fields=True)
    def _op_close_offers(self, client: Client, args: dict[str, Any]) -> None:
        """The offers closed (the transcript's `close_offers`)."""
        self._dealer_input(client, args, INPUT_EVENTS[Op.CLOSE_OFFERS])

    @handler(Op.TIMEOUT, Permission.DEALER, EventRequest, TableState, table=True, open_fields=True)
    def _op_timeout(self, client: Client, args: dict[str, Any]) -> None:
        """A decision's time ran out (the transcript's `timeout`). Electronic: the service's
        clock records it itself (3.18); a screen's changes nothing while that clock still
        counts (the time the terminal shows governs, 3.17) or once the default strategy plays
        the seat (never a second time-out)."""
        rnd = self.session.round
        player = str(args.get("player"))
        if rnd.rules.shared_hand and (self.clock.counting(player) or any(
                t.player == player and t.default_strategy for t in rnd.view().terminals)):
            self.log.info("a screen's time-out of seat %s left to the service's clock (3.17, 3.18)", player)
            return
        self._dealer_input(client, args, INPUT_EVENTS[Op.TIMEOUT])

    @handler(Op.ABSENT, Permission.DEALER, EventRequest, TableState, table=True, open_fields=True)
    def _op_absent(self, client: Client, args: dict[str, Any]) -> None:
        """A player is not present to decide (the transcript's `absent`). Electronic: refused for a
        paired seat whose terminal is connected (its player decides there in the time shown, 3.17;
        the service's clock applies 3.18) or went down after its wager was accepted there (the
        default decision at once, 5.9.1), unless a supervisor overrode that terminal this round."""
        self._dealer_input(client, args, INPUT_EVENTS[Op.ABSENT])

    @handler(Op.WITHDRAW, Permission.DEALER_OR_TERMINAL, EventRequest, TableState, table=True, open_fields=True,
             terminal=True)
    def _op_withdraw(self, client: Client, args: dict[str, Any]) -> None:
        """A player withdraws their remaining wagers (the transcript's `withdraw`); a terminal
        its own seat's wagers from the slip, only before "No more bets" (5.4). The dealer's for
        a seat paired to a terminal: refused naming 1.1.10 (its player withdraws there), 5.4
        after "No more bets", 5.9 after a power failure (the round continues; op `power_stays`);
        with a supervisor's override of that terminal this round, from the slip as it would."""
        self._input(client, args, Op.WITHDRAW)

    @handler(Op.POWER_FAILURE, Permission.DEALER, EventRequest, TableState, table=True, open_fields=True)
    def _op_power_failure(self, client: Client, args: dict[str, Any]) -> None:
        """A power failure (technical interruption) in this round (the transcript's `power_failure`)."""
        self._dealer_input(client, args, INPUT_EVENTS[Op.POWER_FAILURE])
        self.restored = False
        # a significant event (GLI-24) too: in the audit log with its round
        self.store.add_audit("power_failure", actor=f"dealer:{client.dealer}", round_id=self.round_id,
                             detail={k: v for k, v in args.items() if k != "type"})

    @handler(Op.NO_MORE_BETS, Permission.DEALER, NoArgs, TableState, table=True)
    def _op_no_more_bets(self, client: Client, args: dict[str, Any]) -> None:
        """The bets close: the slip the service holds becomes the round's wagers, less those a
        terminal placed that is down at this moment: not accepted, its player takes no part
        (5.9.2; audited `terminal_not_accepted`)."""
        actor = f"dealer:{client.dealer}"
        kept = (list(self.session.slip), set(self.slip_by_terminal))
        unaccepted = self._not_accepted_off_slip()
        try:
            self._record(self.session.close_bets(), actor)
        except BaseException:
            self._slip_back(kept, unaccepted)  # refused: the slip as it was
            raise
        self._audit_not_accepted(unaccepted)

    def _slip_back(self, kept: tuple[list[Any], set[str]], gone: dict[str, list[dict[str, Any]]]) -> None:
        """The slip as it was before ``_not_accepted_off_slip``, when the close it was for did
        not happen (refused): the bets are still open, so a wager may still be accepted."""
        if gone and self.session.betting:
            self.session.set_slip(kept[0])
            self.slip_by_terminal = kept[1]

    def _not_accepted_off_slip(self) -> dict[str, list[dict[str, Any]]]:
        """At the closing of bets (op ``no_more_bets``, or the first card out of the shoe, 5.3):
        the wagers of each seat whose terminal placed them and is down now, taken off the slip;
        returned by seat (transcript form) for ``_audit_not_accepted``. Our reading
        (docs/station.md, "A terminal that drops"): 5.9 lets the round continue for the Player
        Terminals a technical interruption affects; 5.9.1 applies the default decision only
        where "the closing of bets has taken place on the Player Terminal and the Player's
        wager was successfully accepted". A terminal down when "No more bets" is shown never
        showed the closing of bets, so its wager was not accepted: 5.9.2, the player is deemed
        not to have participated: no wager in the round, no decision clock, no default
        decision, no settlement, its credits still on its meter (they are taken only by a
        wager in the round, service/credits.py). Until the close a wager may still be withdrawn
        (5.4), so a terminal that comes back before it keeps its wager; after it, a drop is
        5.9.1's. A wager the dealer's screen placed (not in ``slip_by_terminal``) stays, and so
        do those of a seat a supervisor overrode (its wagers and decisions are the dealer's
        this round, not its terminal's, 3.17: ``_default_at_once``). Every
        wager taken off, the bets close on what is left, as for any slip (an empty one: a round
        with no wager, settled at once)."""
        if not self.session.betting or not self.session.round.rules.shared_hand:
            return {}
        down = self._down() - set(self.overrides)
        if not down:
            return {}
        slip = self.session.slip
        gone: dict[str, list[dict[str, Any]]] = {}
        for e in slip:
            seat = getattr(e, "player", None)
            if seat in down:
                gone.setdefault(str(seat), []).append(event_to_transcript(e))
        if gone:
            self.session.set_slip([e for e in slip if getattr(e, "player", None) not in gone])
            self.slip_by_terminal -= set(gone)
            for seat in sorted(gone):
                self.log.info("seat %s's terminal is down as the bets close: its wagers were not accepted, it takes "
                              "no part in the round (5.9.2)", seat)
        return gone

    def _audit_not_accepted(self, gone: dict[str, list[dict[str, Any]]]) -> None:
        """The wagers ``_not_accepted_off_slip`` took off, audited with the round the close began
        (none when no round began)."""
        if not gone:
            return
        clause = self.session.round.rules.clause("power_failure.not_accepted")
        for seat, wagers in sorted(gone.items()):
            self.store.add_audit(NOT_ACCEPTED_KIND, actor=f"terminal:{seat}", round_id=self.round_id,
                                 detail={"seat": seat, "rule": clause, "wagers": wagers})

    @handler(Op.SET_SLIP, Permission.DEALER, SlipRequest, TableState, table=True)
    def _op_set_slip(self, client: Client, args: dict[str, Any]) -> None:
        """The betting slip (`wagers`: the transcript's wager fields; a claim for free slots
        with its `type` "claim", 3.17.2), held until the bets close. The wagers a terminal
        placed for its seat stay as the terminal left them (a screen's slip sent before it
        heard of them does not drop them, 1.1.10)."""
        entries = list(args.get("wagers", []))
        if any(not isinstance(w, dict) or w.get("type", "wager") not in ("wager", "claim") for w in entries):
            raise ProtocolError("bad_request", "the slip holds wagers and claims only (5.3)")
        slip = [parse_event({"type": "wager", **w}) for w in entries]
        if self.slip_by_terminal:
            own = [e for e in self.session.slip if getattr(e, "player", None) in self.slip_by_terminal]
            slip = own + [e for e in slip if getattr(e, "player", None) not in self.slip_by_terminal]
        metered = (set(self.meters) | self.paired_seats()) if self.session.round.rules.shared_hand else set()
        for seat in sorted({str(getattr(e, "player", "")) for e in slip} & metered):
            placed = sum((getattr(e, "amount", ZERO) for e in slip if getattr(e, "player", None) == seat), ZERO)
            if seat not in self.meters and placed:  # a paired terminal's seat that bought no credits (1.1.10)
                raise refused(f"seat {seat} has no credits: buy credits at its terminal first (1.1.10)", "1.1.10")
            if placed > self.meters.get(seat, ZERO):
                raise refused(f"seat {seat}'s meter holds {self.meters[seat]}: wagers of {placed} need more "
                              "credits (1.1.10)", "1.1.10")
        self.session.set_slip(slip)

    def _supervised(self, client: Client, args: dict[str, Any], op: Op) -> None:
        """An input that needs a supervisor's PIN (docs/store.md, the authority table)."""
        kind, approval_kind = SUPERVISED_EVENTS[op]
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

    @handler(Op.VOID, Permission.SUPERVISOR, SupervisedRequest, TableState, table=True, during_referral=True,
             open_fields=True)
    def _op_void(self, client: Client, args: dict[str, Any]) -> None:
        """A void (the event's fields), under a supervisor's PIN (approval `void`); its cards in
        flight settled. A void under 6.1 without a referral is refused."""
        self._supervised(client, args, Op.VOID)

    @handler(Op.RESOLVE, Permission.SUPERVISOR, SupervisedRequest, TableState, table=True, during_referral=True,
             open_fields=True)
    def _op_resolve(self, client: Client, args: dict[str, Any]) -> None:
        """A ruling (the event's fields), under a supervisor's PIN; on a referred round the
        shift manager's decision: `ruling` `continue` (the round goes on) or `void` (a void
        under 6.1), audited `referral_resolved`."""
        if self.referral is not None:
            self._resolve_referral(client, args)
        else:
            self._supervised(client, args, Op.RESOLVE)

    @handler(Op.CORRECT, Permission.SUPERVISOR, SupervisedRequest, TableState, table=True, open_fields=True)
    def _op_correct(self, client: Client, args: dict[str, Any]) -> None:
        """A correction (the transcript's `correction`), under a supervisor's PIN."""
        self._supervised(client, args, Op.CORRECT)

    @handler(Op.PICK, Permission.DEALER, SupervisedRequest, TableState, table=True, open_fields=True)
    def _op_pick(self, client: Client, args: dict[str, Any]) -> None:
        """A pick of the cards drawn together (the transcript's `pick`, 5.23): the player's
        (`by` `player`) as the dealer records it; the pit manager's (`by` `pit_manager`, an
        override of the dealing order) under a supervisor's PIN (approval `override`)."""
        if str(args.get("by", "")) == "pit_manager":
            self._supervised(client, args, Op.PICK)
        else:
            self._dealer_input(client, {k: v for k, v in args.items() if k not in ("pin", "approval")}, "pick")

    @handler(Op.TAKE_BACK, Permission.DEALER, TakeBackRequest, TableState, table=True)
    def _op_take_back(self, client: Client, args: dict[str, Any]) -> None:
        """Undo: the dealer's last input before the next card; more with a supervisor's `undo`
        approval. Audited `event_withdrawn`; a shoe card taken back is held to be placed again."""
        self._take_back(client, args, f"dealer:{client.dealer}")

    @handler(Op.TAKE_BACK_CHECK, Permission.DEALER, NoArgs, TakeBackCheckReply)
    def _op_take_back_check(self, client: Client, args: dict[str, Any]) -> TakeBackCheckReply:
        """Whether an undo would be refused now, as the engine rules it: `dealer` the dealer's
        refusal, `supervisor` the refusal with a supervisor's PIN ("" when it would be taken back)."""
        return {"dealer": self.session.take_back_refusal(),
                "supervisor": self.session.take_back_refusal(supervisor=True)}

    @handler(Op.KEY_CARD, Permission.DEALER, KeyCardRequest, TableState, table=True)
    def _op_key_card(self, client: Client, args: dict[str, Any]) -> None:
        """The dealer keys in a card (`card`): the one a hold waits for, or a card in flight by
        its `seq`, to `to`; an unread card with a supervisor's `key_card` approval (5.1)."""
        self._key_card(client, args, f"dealer:{client.dealer}")

    @handler(Op.PLACE_CARD, Permission.DEALER, PlaceCardRequest, TableState, table=True)
    def _op_place_card(self, client: Client, args: dict[str, Any]) -> None:
        """The dealer says where a card that fits no reading lies (`to`): held, never dropped."""
        self._place_stray(args, f"dealer:{client.dealer}")

    @handler(Op.PLACE_NEXT, Permission.DEALER, PlaceNextRequest, TableState, table=True)
    def _op_place_next(self, client: Client, args: dict[str, Any]) -> None:
        """The dealer says where the next card out of the shoe lies (`to`, e.g. "dealer" or
        "area:2/1"; null: where the rules deal it): the engine rules on it as it comes (a card
        dealt in error, 5.6-5.8); a card no place can take is held, never dropped."""
        to = args.get("to")
        if to is None or to == "":
            self.next_to = None
            return
        try:
            parse_target(str(to))
        except EventFormatError as exc:
            raise ProtocolError("bad_request", exc.message) from None
        self.next_to = str(to)

    @handler(Op.DOUBLE_LAST_CARD, Permission.DEALER, DoubleRequest, TableState, table=True)
    def _op_double_last_card(self, client: Client, args: dict[str, Any]) -> None:
        """The tentative implied hit was a double (`amount`, optional)."""
        actor = f"dealer:{client.dealer}"
        amount = args.get("amount")
        value = None
        if amount is not None:
            value = parse_amount(amount)
        self._record(self.session.double_tentative(value), actor)

    @handler(Op.CONFIRM_HIT, Permission.DEALER, NoArgs, TableState, table=True)
    def _op_confirm_hit(self, client: Client, args: dict[str, Any]) -> None:
        """The tentative implied hit confirmed."""
        actor = f"dealer:{client.dealer}"
        self._record(self.session.confirm_tentative(), actor)

    @handler(Op.SET_ASIDE, Permission.SUPERVISOR, SetAsideRequest, TableState, table=True)
    def _op_set_aside(self, client: Client, args: dict[str, Any]) -> None:
        """A supervisor sets aside a card no round can take (`seq`, optional), or one that came
        out between rounds while the service was down (`card`: keyed in under the restart
        gap): audited `card_set_aside` with the card and the clause (5.1), counted among the
        shoe's cards."""
        self._set_aside(client, args)

    @handler(Op.RELEASE_HOLD, Permission.DEALER, NoArgs, TableState, table=True)
    def _op_release_hold(self, client: Client, args: dict[str, Any]) -> None:
        """The dealer checked the table: no card (more) missing (refused while an unread card is
        in flight, and when nothing holds the table); answers every open restart gap
        (`gap_answered`)."""
        actor = f"dealer:{client.dealer}"
        # the dealer checked the table: no card is missing (unread cards must be keyed in, 5.1)
        if not self._held():
            raise refused("nothing holds the table: no card is missing")
        if refusal := self.session.no_card_missed_refusal():
            raise refused(refusal, _clause_of(refusal))
        self.store.add_audit("hold_released", actor=actor, round_id=self.round_id,
                             detail={"hold": self._hold_now(), "gaps": [g["audit"] for g in self.gaps]})
        self._answer_gaps(actor, "none (more) missing: the dealer checked the table")
        self.hold = ""

    @handler(Op.REREAD, Permission.DEALER, NoArgs, TableState, table=True)
    def _op_reread(self, client: Client, args: dict[str, Any]) -> None:
        """The card the shoe could not read goes through its reader again: the next card the
        shoe reads is that card, placed as a key-in would place it (audited `card_reread_asked`,
        then `card_reread`). Refused naming 5.1 when no unread card holds the table, or another
        card came out after it (then: key it in under a supervisor's PIN, or void)."""
        self._reread(f"dealer:{client.dealer}")

    @handler(Op.SIM_DEAL, Permission.DEALER, SimDealRequest, TableState, table=True, during_referral=True)
    def _op_sim_deal(self, client: Client, args: dict[str, Any]) -> None:
        """A card (or a burn, `burn`, or any fault the simulator has, `fault`: the state's
        `sim_faults`) out of the service's simulated shoe, on a station with no shoe configured:
        it comes back through the driver as any card."""
        # a demonstration station: the dealer's "Deal" takes a card out of the simulated
        # shoe; it comes back through the driver as any card does (recorded, then shown)
        if self.simulator is None:
            raise refused("this station has a real shoe: cards come out of it")
        try:  # any fault the simulator has (service/sim_faults.py)
            simulate(self.simulator, str(args.get("fault") or ("burn" if args.get("burn") else "deal")))
        except ValueError as exc:
            raise ProtocolError("bad_request", str(exc)) from exc

    @handler(Op.SET_TABLE, Permission.SUPERVISOR, SetTableRequest, TableState, table=True)
    def _op_set_table(self, client: Client, args: dict[str, Any]) -> None:
        """A supervisor changes the table's set-up (`setup`: game, decks, areas, limits, seated,
        terminals, decision_seconds, chips) between rounds, audited `table_setup_changed`."""
        self._set_table(client, args)

    @handler(Op.FACE_UP, Permission.DEALER, NoArgs, TableState, table=True)
    def _op_face_up(self, client: Client, args: dict[str, Any]) -> None:
        """The next card came out of the shoe face up (5.5)."""
        self.face_up_next = True  # 5.5: the next card came out face up

    @handler(Op.NEXT_ROUND, Permission.DEALER, NoArgs, TableState, table=True)
    def _op_next_round(self, client: Client, args: dict[str, Any]) -> None:
        """The settlement confirmed: the next round takes bets."""
        actor = f"dealer:{client.dealer}"
        if not self.session.concluded:
            raise refused("the round is not over yet")
        if self.stray is not None:  # never carried into the next round, never dropped
            raise refused(f"{self.stray['card']} is held: say where it lies first ({self.stray['reason']})")
        self._record(self.session.confirm_tentative(), actor)
        output = round_output(self.session.round)
        self.last_round = {"round_id": self.round_id, "output": output,
                           "events": [event_to_transcript(e) for e in self.session.recorded]}
        if self.round_id is not None:
            self.recall = [{"round": self.round_id, **output}, *(r for r in self.recall if r.get("round") != self.round_id)]
            del self.recall[RECALL_SIZE:]
        self.session.new_round()
        self.round_id = None
        self.slip_by_terminal = set()
        self.overrides = {}  # a terminal's override is for one round
        self.power_stays = set()
        self.restored = False

    @handler(Op.BUY_IN, Permission.DEALER_OR_TERMINAL, BuyInRequest, TableState, table=True, during_referral=True,
             terminal=True)
    def _op_buy_in(self, client: Client, args: dict[str, Any]) -> None:
        """Credits bought for a player terminal's seat (1.1.10): `amount` more than 0, to the
        cent; a supervisor's PIN (`pin`) or approval (`buy_in`), at the terminal (its own seat)
        or the dealer's screen (`seat`); audited `meter_buy_in` with the meter after it."""
        seat, amount = self._buy_in_args(client, args)
        if seat not in self.meters and self._in_play(seat):
            raise refused(f"seat {seat} has wagers in play that were not placed from credits: it buys credits "
                          "once this round is over (1.1.10)", "1.1.10")
        approval, user = self._approval(client, args, "buy_in", self.round_id)
        _, after = self.store.buy_in(seat, amount, actor=f"supervisor:{user}", approval=approval)
        self.meters[seat] = after
        self.log.info("seat %s bought %s of credits (supervisor %s): its meter on record %s", seat, amount, user,
                      after)

    @handler(Op.TERMINAL_OVERRIDE, Permission.SUPERVISOR, TerminalOverrideRequest, TableState, table=True)
    def _op_terminal_override(self, client: Client, args: dict[str, Any]) -> None:
        """A supervisor's override of `seat`'s Player Terminal that cannot be used (a broken
        screen): with a supervisor's PIN (`pin`) or approval (`override`), audited
        `terminal_override`; the dealer then enters that seat's decisions until the round ends
        (otherwise refused naming 3.17); made while the bets are open, for the round they open;
        kept over a restart until that round ends. Meanwhile that terminal's own `wager`,
        `withdraw` and `decide` are refused naming 3.17 (one source of the seat's decisions; its
        view's `override` names the supervisor). Its terminal dropping afterwards changes
        nothing: the dealer goes on entering them in the seat's decision time (3.17, 3.18; not
        5.9.1). Refused for a seat with no terminal paired, for one whose terminal went
        down after its wager was accepted (the default decision, 5.9.1), and for one whose
        terminal went down after placing its wager while the bets are open (not accepted if
        still down at the close, 5.9.2)."""
        seat = str(args.get("seat", ""))
        paired = self.paired_seats()
        if not self.session.round.rules.shared_hand:
            raise refused("player terminals play Electronic Blackjack only: this table plays "
                          f"{self.session.round.rules.name} (1.1.10)", "1.1.10")
        if seat not in paired:
            raise refused(f"seat {seat!r} has no Player Terminal paired: the dealer enters its decisions "
                          "as it is (1.1.10)", "1.1.10")
        if seat in self.overrides:
            raise refused(f"seat {seat}'s terminal is overridden already this round (supervisor "
                          f"{self.overrides[seat]}) (3.17)", "3.17")
        if seat in self._down() and self.session.betting:
            clause = self.session.round.rules.clause("power_failure.not_accepted")
            raise refused(f"seat {seat}'s terminal went down after placing its wager, before the bets closed: "
                          f"unless it connects again before they close, its wager is not accepted and the seat "
                          f"takes no part ({clause})", clause)
        if seat in self._down():
            clause = self.session.round.rules.clause("power_failure.accepted")
            raise refused(f"seat {seat}'s terminal went down after its wager was accepted: the default "
                          f"decision applies ({clause})", clause)
        approval, user = self._approval(client, args, "override", self.round_id)
        detail: dict[str, Any] = {"seat": seat, "approval": approval, "dealer": client.dealer,
                                  "rule": self.session.round.rules.clause("decision_time")}
        if self.round_id is None:  # bets open, no round id yet: for the round after the last one
            detail["after_round"] = self.store.latest_round_id()
        self.store.add_audit(OVERRIDE_KIND, actor=f"supervisor:{user}", round_id=self.round_id, detail=detail)
        self.overrides[seat] = user
        self.log.warning("significant event: supervisor %s overrode seat %s's terminal: the dealer enters its "
                         "decisions this round", user, seat)

    @handler(Op.POWER_STAYS, Permission.DEALER, PlayerRequest, TableState, table=True)
    def _op_power_stays(self, client: Client, args: dict[str, Any]) -> None:
        """After a power failure in the round, `player` stays in it (5.29.1; 5.26.1 in Dueling
        8's; a withdrawal is op `withdraw`; in Electronic the round continues, 5.9, and a stay
        is the only answer): audited `power_failure_stays`, kept over a restart. Refused for a
        player with nothing to answer."""
        player = str(args.get("player", ""))
        rnd = self.session.round
        clause = rnd.rules.clause("power_failure")
        if player not in still_to_answer(self.session, self.power_stays):
            raise refused(f"{player!r} has nothing to answer: after a power failure each player with a wager "
                          f"in the round says once whether they withdraw or stay ({clause})", clause)
        self.store.add_audit(STAYS_KIND, actor=f"dealer:{client.dealer}", round_id=self.round_id,
                             detail={"player": player, "rule": clause})
        self.power_stays.add(player)

    def _buy_in_args(self, client: Client, args: dict[str, Any]) -> tuple[str, Decimal]:
        """A buy-in's seat and amount, or its refusal (1.1.10)."""
        seat = str(client.seat) if client.kind == "terminal" else args.get("seat")
        if client.kind == "terminal" and args.get("seat", seat) != seat:
            raise refused(f"this terminal is seat {seat}'s: it buys credits for no other seat (1.1.10)", "1.1.10")
        if not self.setup.electronic or seat not in self.setup.terminals:
            raise refused(f"credits are bought for a player terminal's seat ({', '.join(self.setup.terminals)} "
                          f"at Electronic Blackjack), not {seat!r} (1.1.10)", "1.1.10")
        try:
            amount = parse_amount(args.get("amount"))
        except AmountError as exc:
            raise refused(f"a buy-in's {exc} (1.1.10)", "1.1.10") from None
        return str(seat), amount

    def _in_play(self, seat: str) -> bool:
        """``seat`` has a wager on the slip or in the round not yet paid to its meter."""
        if credits.in_play(self.session.round, seat):
            return True
        meter = self.meter(seat)
        return meter is not None and meter != self.meters[seat]

    @handler(Op.CASH_OUT, Permission.TERMINAL, NoArgs, dict, table=True, terminal=True)
    def _op_cash_out(self, client: Client, args: dict[str, Any]) -> None:
        """A terminal cashes out its whole meter (1.1.10): a voucher (`validation`, 18 random
        digits; `amount`, `seat`, `at`) written to the store, audited `meter_cash_out`, the
        meter to 0 (the seat's view shows the voucher); refused while its seat has wagers in play."""
        seat = str(client.seat)
        if self._in_play(seat):
            raise refused(f"seat {seat} has wagers in play: it cashes out once they are settled (1.1.10)", "1.1.10")
        if not self.meters.get(seat):
            raise refused(f"seat {seat}'s meter is 0: there is nothing to cash out (1.1.10)", "1.1.10")
        voucher = self.store.cash_out(seat, actor=f"terminal:{seat}")
        self.meters[seat] = ZERO
        self.vouchers[seat] = voucher.to_json()
        self.log.info("seat %s cashed out %s: voucher %s", seat, voucher.amount, voucher.validation)

    # ------------------------------------------------------------------ the table's set-up
    def _set_table(self, client: Client, args: dict[str, Any]) -> None:
        """A supervisor changes the table's set-up (game, decks, areas, limits of the main
        wager and the side bets, seats): checked as the engine opens a round with it, between
        rounds only, after the supervisor's PIN (approval ``setup``), audited old -> new."""
        new = _entered_setup(args.get("setup"))
        if setup_to_json(new) == setup_to_json(self.setup):
            return  # the set-up the table has: nothing changes (also mid-round)
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
            output = self._round_output() if step.concluded else None
            under = list(step.under_min) if step.concluded else None
            if step.begins or self.round_id is None:
                self.round_id = self.store.start_round(
                    self.session.config, raws, session_id=self.session_id, actor=actor, result=output,
                    approval=approval, under_min=under, actors=[self._placed_by(raw, actor) for raw in raws])
                self._anchor()
                self._down_at_start()
            else:
                # the round's last events on disk now; its result (derived from them: the settle
                # output, the settlement rows, the seal) once the screens are told (_result_now)
                self.store.append_events(self.round_id, raws, actor=actor, approval=approval)
                if output is not None:
                    self.result_due = (self.round_id, output, under, actor)
            for e in step.record:
                if isinstance(e, CardDrawn) and e.shoe_seq is not None and e.shoe_seq in self.in_flight:
                    self.in_flight.pop(e.shoe_seq)
        if step.tentative and self.round_id is not None:
            hit, card = step.tentative
            self.store.add_audit(PENDING_CARD_KIND, actor=actor, round_id=self.round_id, detail={
                "events": len(self.session.recorded), "hit": event_to_transcript(hit),
                "card": event_to_transcript(card)})

    def _placed_by(self, raw: dict[str, Any], actor: str) -> str:
        """Who a round's first event is recorded as from: a wager its seat's terminal placed,
        that terminal (1.1.10; a restart reads which wagers were accepted at a terminal from
        it, 5.9.1); every other, ``actor``."""
        player = raw.get("player")
        if raw.get("type") == "wager" and isinstance(player, str) and player in self.slip_by_terminal:
            return f"terminal:{player}"
        return actor

    def _down_at_start(self) -> None:
        """The round began with seats whose terminal placed their wager and is down now: on
        record (``terminal_down``), so a restart mid-round still plays them by the default
        decision (5.9.1)."""
        for seat in sorted(self._down()):
            self._note_link(DOWN_KIND, seat)

    def _note_link(self, kind: str, seat: str) -> None:
        """``seat``'s terminal went down or came back in the open round (5.9), audited; only a
        seat whose wager its terminal placed (the seats 5.9.1 concerns)."""
        if self.round_id is None or seat not in self.slip_by_terminal or self.refused or self.session.concluded:
            return
        self.store.add_audit(kind, actor=f"terminal:{seat}", round_id=self.round_id,
                             detail={"seat": seat, "rule": self.session.round.rules.clause("power_failure")})

    def write_result_due(self, *, stopping: bool = False) -> None:
        """The concluded round's result written now if it is still due (its timer; the service's
        stop, ``stopping``: no timer runs after it), and what that changed told."""
        with self.lock:
            if stopping and self.result_timer is not None:
                self.result_timer.cancel()
            self.result_timer = None
            self._result_now()
        if not stopping:
            self.tell_screens()

    def _result_now(self) -> None:
        """The concluded round's result (:attr:`result_due`), written before the table takes
        anything else: under the table's lock, once the screens were told of the round's last
        card (tell_screens), or first thing in the next input. A write that fails holds the
        table as any failed write; the store read back has the round concluded with no
        result, which is then due again (_restore)."""
        due = self.result_due
        if due is None or self.refused or self.store_error:
            return  # (a store that takes no write: due again once it does, retry_store)
        self.result_due = None
        round_id, output, under, actor = due
        try:
            self.store.finish_round(round_id, output, actor=actor, under_min=under)
        except StoreError as exc:
            self._store_failed(exc)
            self._changed()
            return
        self.anchor_due = round_id
        if self.meters and self.session.round.rules.shared_hand and round_id == self.round_id:
            self._changed()  # the results paid to the credit meters (_pay), to the screens and terminals

    def _restored_result(self, round_id: int) -> tuple[int, dict[str, Any], list[str] | None, str]:
        """A concluded round read back from the store without its result: that result, as
        :attr:`result_due` holds one (the service's own, ``system``)."""
        return (round_id, round_output(self.session.round), list(self.session.round.under_minimum_first_time()),
                "system")

    def _write_result(self) -> None:
        if self.round_id is None:
            return
        round_id, output, under, actor = self._restored_result(self.round_id)
        self.store.finish_round(round_id, output, actor=actor, under_min=under)
        self._anchor()

    def _anchor(self) -> None:
        """The anchor is due: written once the screens are told (``tell_screens``). A store ahead of
        its anchor is no rollback (only an older one is refused), so the screens need not wait
        for the anchor's fsync; a crash in between leaves the anchor one commit behind."""
        if self.round_id is not None:
            self.anchor_due = self.round_id

    def _write_anchor(self, *, fresh: bool = False) -> None:
        key, round_id = self.store.station_key, self.anchor_due
        if not fresh and round_id is None:
            return
        newest, generation, _ = self.store.read_with(_progress)
        round_id = newest if fresh else round_id
        if key is None or round_id is None:
            return
        self.anchor_due = None
        self.anchor_slot ^= 1
        write_anchor(self.anchor_path, Anchor(round_id, generation), key, self.anchor_slot)
        if self.anchor_copy_dir is not None:
            try:
                write_anchor(self.anchor_copy_dir / copy_name(key), Anchor(round_id, generation), key,
                             self.anchor_slot)
            except OSError as exc:
                self.log.error("the anchor's copy in %s cannot be written: %s", self.anchor_copy_dir, exc)

    # ------------------------------------------------------------------ the shoe
    def on_shoe(self, event: dict[str, Any]) -> None:
        """One shoe event (``event_to_json`` form), from the driver's thread."""
        with self.lock:
            self._result_now()
            if self.store_error and not self.refused:
                self.retry_store()  # space back? the frames kept are recorded first, in order
            number = None
            reread = self._rereading_now()
            if reread is not None and event.get("event") in ("card", "noread") and not event.get("burn"):
                # the journal says which unread card this reading is for (after a restart, a full
                # disk): never a card of its own
                event = {**event, "reread": reread}
            try:
                number = self._shoe(event)
                if number is not None and not self.store_error and not self.refused:
                    self.journal.done(number, event)
            except StoreError as exc:
                self._store_failed(exc)
            except OSError as exc:  # the journal cannot be written: the frame is not acted on
                self.log.critical("the shoe journal cannot be written (%s): frame not taken: %s", exc, event)
            if self.journal.full:
                self.log.critical("the shoe journal held 1,024 frames not recorded: the oldest was overwritten")
                self.journal.full = False
            self.outbox.append(("shoe", dict(self.shoe)))
            self.on_card = True
            try:
                self._changed()
            finally:
                self.on_card = False
        self.tell_screens()

    def _shoe(self, event: dict[str, Any], *, number: int | None = None) -> int | None:
        """One frame; its journal number (marked done by the caller once it is on record), or
        None for a frame without a number. ``number``: a frame the journal kept, taken again."""
        name = event.get("event")
        seq = event.get("seq")
        if name == "error":  # bytes that decode as no frame (a wrong codec sends only these)
            self.shoe["damaged"] = int(self.shoe.get("damaged", 0)) + 1
        elif isinstance(seq, int) or name in ("card", "hello"):
            self.shoe["frames"] = int(self.shoe.get("frames", 0)) + 1  # frames read whole (`station check`)
        if isinstance(seq, int) and number is None:
            number = self.journal.write(event)  # before anything is done with it
            if self.last_frame is not None:
                lost = frames_between(self.last_frame, seq)
                self.last_frame = None
                if lost and not (name == "hello" and seq == 0) and not self.refused:
                    # frames the shoe sent while the service was down: a card may be missing
                    detail = {"after": seq - lost - 1, "before": seq, "lost": lost}
                    audit = self.store.add_audit("shoe_fault", actor="shoe", round_id=self.round_id,
                                                 detail={"event": "restart_gap", **detail})
                    self.gaps.append({**detail, "audit": audit, "keyed": 0})
        if name in ("connected", "disconnected"):
            self.shoe.update(connected=name == "connected", port=event.get("port", ""),
                             codec=event.get("codec", self.shoe.get("codec", "")),
                             weak_checksum=bool(event.get("weak_checksum", self.shoe.get("weak_checksum"))),
                             # a format with no sequence numbers cannot show a lost card: the
                             # screen says so (spec/shoe-protocol.md, codec beetek)
                             guaranteed=bool(event.get("guaranteed", self.shoe.get("guaranteed", True))),
                             reason=str(event.get("reason") or ""))
            if name == "connected":
                self.shoe.pop("warning", None)  # the shoe's last warning was of the link before
            if not self.refused:
                self.store.add_audit("shoe_connected" if name == "connected" else "shoe_lost",
                                     actor="shoe", detail=event)
            return number
        if name in ("loaded", "card", "multi", "noread"):
            self.shoe.pop("empty", None)
        if name == "loaded":
            # the shuffle on record: a restart deals from the new shoe (``shoe``), after the
            # cards of the round in play past its first ``at`` (those came out of the new shoe);
            # ``replaces`` the shoe the cards came from until now (a second shuffle in one round
            # ends the shoe the first one loaded: its cards are those between the two ``at``)
            new = self.session.shoe_ids()
            at = 0 if self.session.betting else self.session.cards_out_now()
            if not self.refused:
                self.store.add_audit(SHOE_LOADED_KIND, actor="shoe", round_id=self.round_id,
                                     detail={"replaces": self.session.shoe_in_play, "shoe": new, "at": at})
            self.session.shoe_loaded(new)
            return number
        if name in ("cut", "empty", "alive", "hello", "warning", "duplicate"):
            self.shoe["last"] = name
            if name == "empty":  # until a shoe is loaded or a card is read (the screen says so)
                self.shoe["empty"] = True
            elif name == "warning":  # the shoe's own code (beetek <W0x..>), shown until it reconnects
                self.shoe["warning"] = str(event.get("code") or "")
                self.log.warning("shoe warning %s", self.shoe["warning"])
            return number
        if self.refused or self.store_error:
            if name in ("card", "multi"):  # not lost: kept in the log for the technician
                self.log.critical("card not recorded (store refused): %s", event)
            return number
        if name == "fault":  # with the round it happened in (the review's "who did what")
            self.store.add_audit("shoe_fault", actor="shoe", round_id=self.round_id, detail=event)
            self.shoe["fault"] = f"{event.get('code', '')} {event.get('text', '')}".strip()
            self.shoe["faults"] = int(self.shoe.get("faults", 0)) + 1  # a screen's "cleared" is for one fault
            return number
        mark = event.get("reread")
        if isinstance(mark, int):  # the unread card's reading (on_shoe marked it): that card, never another
            self.rereading = None
            self._reread_frame(mark, event)
            return number
        if self._rereading_now() is not None and name in ("card", "multi", *HOLDING):
            self.rereading = None  # a burn, cards together, a lost or damaged frame: not the unread card alone
            if name in ("card", "multi"):
                clause = self.session.round.rules.clause("void.foreign_card")
                self.hold = ("a card came out of the shoe while the unread card was being re-read, so its place is "
                             f"not known: key it in under a supervisor's PIN, or void the round ({clause})")
        if name in HOLDING or (name == "multi" and int(event.get("count", 0)) > len(event.get("cards", []))):
            self.store.add_audit("shoe_fault", actor="shoe", round_id=self.round_id, detail=event)
            if name == "multi":  # the read cards of a double feed with unread ones: in flight
                self.queue.append(event)
                self._in_flight(event)
            elif name == "noread":  # an unread card: in flight as "?" until the dealer keys it in
                self._in_flight({"seq": event.get("seq"), "card": UNREAD})
                if self.hold or self.queue:  # after a card that may be missing: it holds in its turn
                    self.queue.append(event)
                    return number
            self.hold = _hold_text(event)
            return number
        if name not in ("card", "multi"):
            return number
        if self._held() or self.stray is not None or self.session.tentative_held or self.queue \
                or self.referral is not None or self._awaiting_pick():  # 6.1: none while referred
            self._in_flight(event)
            self.queue.append(event)
            return number
        self._take(event)
        return number

    # ------------------------------------------------------------------ re-read (5.1)
    def _reread(self, actor: str) -> None:
        """Op ``reread``: only while one card the shoe could not read holds the table and no
        other card came out of the shoe since (its place is known: where the next card would
        have gone); else a supervisor's key-in or a void (5.1). Refused: nothing changed."""
        clause = self.session.round.rules.clause("void.foreign_card")
        seq = self.session.first_unread()
        if seq is None or not self.hold:
            raise refused(f"nothing to re-read: no card the shoe could not read holds the table ({clause})", clause)
        if "cards" in self.in_flight.get(seq, {}):
            raise refused("the unread card came out together with other cards (a double feed): key it in under a "
                          f"supervisor's PIN, or void the round ({clause})", clause)
        stray = self.stray.get("seq") if self.stray is not None else None
        others = [s for s in self.in_flight if s not in (seq, stray)]
        if others or self.session.unread > 1 or self.queue:
            count = max(len(others), self.session.unread - 1, len(self.queue))
            raise refused(f"{count} card(s) came out of the shoe after the unread card, so its place is not known: "
                          f"key it in under a supervisor's PIN, or void the round ({clause})", clause)
        if self.gaps:
            raise refused("frames from the shoe were lost while the service was down, so the unread card's place is "
                          f"not known: key it in under a supervisor's PIN, or void the round ({clause})", clause)
        self.store.add_audit(REREAD_ASKED_KIND, actor=actor, round_id=self.round_id,
                             detail={"seq": seq, "rule": clause})
        self.rereading = seq

    def _rereading_now(self, seq: int | None = None) -> int | None:
        """The unread card's frame whose re-read is awaited (``seq``, else the one asked), or
        None: none asked, or it was accounted for meanwhile (keyed in, voided), or the round
        was referred since (6.1)."""
        seq = self.rereading if seq is None else seq
        if seq is None or self.in_flight.get(seq, {}).get("card") != UNREAD or self.referral is not None:
            return None
        return seq

    def _reread_frame(self, seq: int, event: dict[str, Any]) -> None:
        """The frame that answers the re-read of the unread card of frame ``seq`` (marked so in
        the journal: also a frame kept over a restart or a full disk, taken again): its reading,
        placed as the unread card; or a NOREAD again (the hold stays: re-read again, key it in
        or void, 5.1). Nothing when that card is on record already (the same card)."""
        if self.in_flight.get(seq, {}).get("card") != UNREAD:
            return
        if event.get("event") == "noread":
            clause = self.session.round.rules.clause("void.foreign_card")
            self.store.add_audit("shoe_fault", actor="shoe", round_id=self.round_id, detail=event)
            self.hold = ("the unread card could not be read again: re-read it again, key it in under a supervisor's "
                         f"PIN, or void the round ({clause})")
            return
        if self.referral is None:
            self._take_reread(seq, event)
            return
        # a kept frame taken again while the round is referred (6.1): in flight, its face known
        self._in_flight({"seq": seq, "card": str(event["card"])})
        self.store.add_audit(REREAD_KIND, actor="shoe", round_id=self.round_id,
                             detail={"card": str(event["card"]), "seq": seq, "frame": event.get("seq")})

    def _take_reread(self, seq: int, event: dict[str, Any]) -> None:
        """The unread card of frame ``seq``, read again (frame ``event``): placed as a key-in for
        it would be, without a supervisor (the shoe read it); a card that fits no reading there
        is held to be placed, never dropped."""
        card = parse_card(str(event["card"]))
        step = self.session.read_again(CardDrawn(card, shoe_seq=seq))
        self._record(step, "shoe")
        self.store.add_audit(REREAD_KIND, actor="shoe", round_id=self.round_id,
                             detail={"card": str(card), "seq": seq, "frame": event.get("seq")})
        if step.held:  # its face known now: in flight as read (after any restart too), held to be placed
            audit = self.store.add_audit(IN_FLIGHT_KIND, actor="shoe", round_id=self.round_id,
                                         detail={"seq": seq, "card": str(card)})
            self.in_flight[seq] = {"card": str(card), "audit": audit}
            self.session.delivered(seq, str(card))
            self.stray = {"seq": seq, "card": str(card), "reason": step.held}
        elif seq in self.in_flight:  # a tentative implied hit: in flight until made final
            self._settle(seq, "shoe", "read again")
        if not self._unread_now():
            self.hold = ""

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

    def _unread_queued(self) -> int:
        """Unread cards that came out behind another hold and wait their turn in the queue."""
        return sum(1 for q in self.queue if q.get("event") == "noread")

    def _unread_now(self) -> int:
        """The unread cards the table is held for now (5.1: keyed in under a supervisor's PIN)."""
        return max(0, self.session.unread - self._unread_queued())

    def _take(self, event: dict[str, Any]) -> None:
        seq = event.get("seq") if isinstance(event.get("seq"), int) else None
        if event.get("event") == "noread":  # its turn: the table holds for it (5.1)
            self.hold = _hold_text(event)
            return
        # a card out of the shoe while the bets are open closes them (5.3): a terminal down
        # then had no wager accepted (5.9.2)
        kept = (list(self.session.slip), set(self.slip_by_terminal))
        gone = self._not_accepted_off_slip()
        try:
            self._take_out(event, seq)
        except BaseException:
            self._slip_back(kept, gone)
            raise
        if gone and self.session.betting:  # the card closed nothing (held): the slip as it was
            self._slip_back(kept, gone)
            return
        self._audit_not_accepted(gone)

    def _take_out(self, event: dict[str, Any], seq: int | None) -> None:
        """A card (or cards, or a burn card) out of the shoe, taken by the round."""
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
        to, self.next_to = self.next_to, None  # the dealer's word is for this one card
        drawn = CardDrawn(card, face_up=self.face_up_next, to=parse_target(to) if to else None, shoe_seq=seq)
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

    def _awaiting_pick(self) -> bool:
        """The round waits for the pick of cards that came out together (5.23): a card from
        the shoe now waits for it (taken now, no hand could have it)."""
        exp = self.session.round.expectation()
        return exp.kind == "decision" and "pick" in exp.options

    def _release(self) -> None:
        """Cards that waited behind a hold, in order, once nothing holds them."""
        while self.queue and not self._held() and self.stray is None and not self.session.tentative_held \
                and self.referral is None and not self._awaiting_pick():
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
        if approval is not None and self.session.tentative and not self.session.take_back_refusal(supervisor=True):
            # a card waiting for Hit or Double is a hit: recorded, then taken back with its card
            self._record(self.session.confirm_tentative(), who)
        taken = self.session.take_back(supervisor=approval is not None)
        self.store.withdraw_events(self.round_id, len(taken.events), actor=who,
                                   reason=f"undo: {taken.describe}", approval=approval)
        self.taken_back = taken.describe  # what the screen says was taken back
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
        if not isinstance(seq, int) and self.hold and self._unread_now():
            seq = self.session.first_unread()  # the hold waits for the unread card
        # no frame named and no unread card waiting: the card came out in a restart gap
        for_gap = bool(self.gaps) and not isinstance(seq, int)
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
        elif not self._held():
            raise refused("no card is missing: cards come from the shoe")
        to = parse_target(args["to"]) if args.get("to") else None
        drawn = CardDrawn(card, to=to, shoe_seq=seq if isinstance(seq, int) else None)
        try:
            # no frame named while every unread card waits its turn behind this hold: the card
            # whose frame was lost or damaged, before them (never taken for an unread one)
            missing = not isinstance(seq, int) and not self._unread_now()
            step = self.session.key_in(drawn, approved=approved, missing=missing)
        except RuleRefusal as exc:
            raise refused(str(exc), _clause_of(str(exc))) from None
        if step.held:
            if isinstance(seq, int) and self.in_flight.get(seq, {}).get("card") == UNREAD:
                self.session.came_out_unread(seq)  # the key-in refused: that card is still unread (5.1)
            raise refused(step.held, _clause_of(step.held))
        self._record(step, actor)
        if isinstance(seq, int) and seq in self.in_flight:
            self._settle(seq, actor, "keyed in")
        if for_gap:
            self._gap_card(actor, str(card))
        if not self._unread_now():
            self.hold = ""  # a restart gap stays until its own answer

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
        if not self._unread_now():
            self.hold = ""

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
        the round it belonged to is over): audited with the card, never silently dropped. A
        card that came out while the service was down (a restart gap), or unread, is keyed in
        (``card``): removed from the shoe and discarded, counted for 5.1 (copies too many)."""
        rule = self.session.round.rules.clause("void.foreign_card")
        if self.round_id is not None and not self.session.concluded:
            raise refused("a round is in play: key the card in, place it, or void the round")
        seq = args.get("seq")
        keyed = args.get("card")
        known = str(parse_card(str(keyed))) if keyed is not None else None
        flight = self.in_flight.get(seq) if isinstance(seq, int) else None
        if flight is None and self.stray is None and not (known and self.gaps):
            raise refused("no card waits to be set aside" + (
                ": a card that came out while the service was down is keyed in with it" if self.gaps else ""))
        if flight is not None and "cards" not in flight and known and flight["card"] not in (UNREAD, known):
            raise refused(f"the shoe read card {seq} as {flight['card']}, not {known}")
        approval, user = self._approval(client, args, "void", None)
        who = f"supervisor:{user}"
        for_gap = False
        if flight is not None:
            read = list(flight.get("cards") or [flight["card"]])
            if known and UNREAD in read:
                read[read.index(UNREAD)] = known
            card = " ".join(read)
            assert isinstance(seq, int)
            self._settle(seq, who, "set aside between rounds")
        elif self.stray is not None:
            card, seq = self.stray["card"], self.stray.get("seq")
            if isinstance(seq, int) and seq in self.in_flight:
                self._settle(seq, who, "set aside between rounds")
            self.stray = None
        else:
            card, seq, for_gap = str(known), None, True
        self.store.add_audit("card_set_aside", actor=who, round_id=None, detail={
            "seq": seq, "card": card, "approval": approval, "rule": rule,
            **({"keyed": True} if known else {}), **({"gap": self.gaps[0]["audit"]} if for_gap else {})})
        for one in card.split():
            if one != UNREAD:
                self.session.discard(one)  # 5.1: the shoe's copies count it
        if for_gap:
            self._gap_card(who, card)
        if not self._unread_now():
            self.hold = ""

    def _void_in_flight(self, who: str) -> None:
        """A supervisor's void ends the round: its cards in flight are settled by it."""
        for seq in list(self.in_flight):
            self._settle(seq, who, "round voided")
        self.queue.clear()
        self.stray = None
        self.hold = ""
        self.rereading = None
        if self.gaps:  # 5.1: the void accounts for any card missing from the round
            self._answer_gaps(who, "round voided")

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


def _last_shuffle(conn: Any) -> AuditEntry | None:
    """The newest shuffle on record (its ``round_id`` the round it came in, None between rounds;
    its detail {replaces, shoe, at}, older records name only ``replaces``), or None."""
    newest = audit_entries(conn, kind=SHOE_LOADED_KIND, limit=1, newest_first=True)
    if not newest:
        return None
    entry = newest[0]
    return entry if isinstance(entry.detail, dict) else replace(entry, detail={})


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
    if check.reason == "wrong" and check.locked_until:
        return f"wrong name or PIN: too many wrong PINs, locked until {check.locked_until} (another supervisor can clear it)"
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
        read = [str(c) for c in event.get("cards") or []]
        count = int(event.get("count") or len(read))
        return (f"{count} cards came out together and {count - len(read)} could not be read "
                f"(read: {' '.join(read) or 'none'}): key in the unread card(s)")
    return "the shoe sent a damaged frame: a card may be missing"


check_complete()  # every op of ops.Op has its handler above, each with its doc line

__all__ = ["Client", "TableService"]
