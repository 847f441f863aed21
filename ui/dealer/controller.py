"""The table controller: between the engine, the store, the shoe and the widgets.

It owns the round (the engine's ``TableRound`` / ``ElectronicRound``), the store
(used only through a :class:`~ui.common.worker.Worker`) and what the shoe reported. Widgets
never decide a rule: they read ``rnd.expectation()``, ``round_output(rnd)`` and the
round's lists, and hand the round typed events (``dealer_assist.engine.events``) through
:meth:`TableController.submit`. An accepted event is appended durably to the store, in
its transcript form (spec/round-script.md, ``transcript.event_to_transcript``), before
the screen shows it; a refused one is shown with its clause and the round is
unchanged (the engine guarantees that).

Wagers placed before "no more bets" are a betting slip: the dealer can change or
remove them freely (5.3 closes bets at "no more bets"); each is checked against the
rules as it is placed, and the whole slip is written to the store, with the
``no_more_bets`` event, as the round's first events.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from decimal import Decimal
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal

from dealer_assist.base.cards import CardNotationError, parse_card
from dealer_assist.base.errors import (
    DealerAssistError,
    EventFormatError,
    RuleRefusal,
    TranscriptError,
)
from dealer_assist.base.money import AmountError, parse_amount
from dealer_assist.engine.events import (
    Burn,
    CardDrawn,
    Claim,
    Claimant,
    Correction,
    Decision,
    Event,
    Multi,
    NoMoreBets,
    Resolve,
    Void,
    Wager,
)
from dealer_assist.engine.outcome import Expectation
from dealer_assist.engine.round_api import Round
from dealer_assist.engine.session import Step, TableSession
from dealer_assist.engine.table_setup import SETUP_AUDIT_KIND, TableSetup, setup_to_json
from dealer_assist.engine.transcript import (
    describe_event,
    event_to_transcript,
    parse_event,
    parse_target,
    round_output,
)
from dealer_assist.games import GAMES, GameRules
from dealer_assist.store import PinCheck, Store, StoreError
from hardware.events import (
    POSSIBLE_MISSED_CARD,
    CardRead,
    Connected,
    CutCard,
    DecodeError,
    Disconnected,
    Hello,
    MultiCard,
    NoRead,
    SequenceGap,
    ShoeEmpty,
    ShoeEvent,
    ShoeFault,
    ShoeLoaded,
    ShoeWarning,
    event_to_json,
    holds_cards,
)
from ui.common.worker import Worker

RECALL_SIZE = 10
# Round events that are significant events of GLI-24 too: also written to the audit log.
# (A void and the shift manager's decision are audited by the supervisor's approval:
# kinds "void" and "supervisor_decision".)
SIGNIFICANT_EVENTS = ("power_failure",)
# The audit entry that keeps an implied hit's card durable while Double may still claim it:
# detail {"events": n, "hit": {...}, "card": {...}} (n = the round's events stored before it).
# Once the round has more than n events the card was stored (as hit + card or double + card);
# while it has exactly n, a restart shows the card held on its hand and asks Hit or Double.
PENDING_CARD_KIND = "implied_card"


@dataclass
class ShoeInfo:
    """What the shoe status bar shows."""

    connected: bool = False
    port: str = ""
    model: str = ""
    remaining: int | None = None
    cut_seen: bool = False
    last_event: str = ""
    warning: str = ""
    fault: str = ""  # a shoe fault (jam ...) until the dealer says it is cleared
    ever_connected: bool = False
    codec: str = ""
    # the shoe's checksum misses some two-bit errors (da1-xor): the status line says so
    weak_checksum: bool = False


class TableController(QObject):
    """Owns the round, the store writer and the shoe state; widgets listen to its signals."""

    changed = Signal()  # the round (as stored) changed: redraw
    refused = Signal(str)  # a refusal or error line to show the dealer
    accepted = Signal()  # an event was accepted: the last refusal is stale
    shoe_changed = Signal()
    recall_changed = Signal()
    hold_changed = Signal()  # cards held after a possible missed card
    store_failed = Signal(str)

    def __init__(self, setup: TableSetup, dealer: str = "dealer", parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.setup = setup
        # the approval kind a set-up change needs first (a supervisor's PIN), or None
        self.setup_approval: str | None = None
        self.dealer = dealer
        self.store: Store | None = None
        self.store_worker = Worker("store-writer", self)
        self.session_id: int | None = None
        self.round_id: int | None = None
        self.config: dict[str, Any] = {}
        self._worker_store: Store | None = None  # the store as the writer thread knows it
        self.face_up_next = False  # the dealer reported the next card was face up in the shoe
        # the table session (engine): the round, the shoe across rounds (5.1), the bets closed
        # by the first card (5.3), the 5.26 history and the implied hit; None until the store
        # is open (no round without a store to record it)
        self.session: TableSession | None = None
        self._recorded_under_min: list[str] = []  # the store's 5.26 history, read at opening
        # accepted events of the open round, as the store records them (transcript form);
        # the round holds the same events typed (rnd.events)
        self.events: list[dict[str, Any]] = []
        self.unacknowledged = 0  # events applied but not yet on disk
        self.recall: list[dict[str, Any]] = []  # the last rounds' settle output, newest first
        self.clocks: dict[str, int] | None = None  # the station service's decision clocks (3.17); None: none
        self.restored = False  # the open round came back after a restart (5.29)
        self.last_refusal = ""
        self.last_refusal_text = ""
        self.shoe = ShoeInfo()
        self.hold_reason = ""  # non-empty: stop assigning cards until the dealer confirms
        self.hold_event: ShoeEvent | None = None  # the shoe event the hold answers
        self.rereading = False  # the unread card goes through the reader again: the next card read is it
        # shoe events that came after the hold, in order (cards, double feeds, unread cards)
        self.held_cards: list[ShoeEvent] = []
        self.placement: str | None = None  # where the dealer says the next card lies ("to")
        self.store_error = ""
        self.finished_outputs = 0
        self._finished_at = -1  # len(events) when the settle output was last recorded
        self.paint_hook: Callable[[], None] | None = None
        self._store_rid: int | None = None  # written and read only by jobs on the store thread
        self._referral_audited = False  # the open round's 6.1 referral is in the audit log
        # the table's rhythm (the session's implied hit): a card while the hand in turn may
        # be hit is a hit; when that hand could also double, the two events are tentative
        # until the next event (``implied``), on disk meanwhile as a PENDING_CARD_KIND audit
        # entry, written before they are shown.
        # a card that fits no reading: held (never dropped) until the dealer says where it lies
        self.stray_card: str | None = None
        self.stray_event: CardDrawn | None = None
        self.stray_reason = ""
        self.stray_queue: list[ShoeEvent] = []
        self.referred = ""  # the dealer referred the round to the shift manager (6.1): why
        self.power_answers: set[str] = set()  # players who said they stay after a power failure
        self._store_sid: int | None = None  # the session, as the store thread knows it
        self.table_name = "table"  # the table this window records for (its restore takes only its rounds)
        self.last_undo = ""  # what the last undo took back, for the dealer to see

    @property
    def rnd(self) -> Round | None:
        """The round on the table (the session's), None before the store is open."""
        return self.session.round if self.session is not None else None

    @rnd.setter
    def rnd(self, value: Round) -> None:
        """A round put on the table as it is (a test's prepared shoe); the session keeps it."""
        self._session().round = value

    @property
    def slip(self) -> list[dict[str, Any]]:
        """Wagers (and claims) before "no more bets", in transcript form."""
        return [event_to_transcript(e) for e in self.session.slip] if self.session is not None else []

    @property
    def implied(self) -> list[Event]:
        """The tentative implied hit and its card (empty when none)."""
        return list(self.session.tentative) if self.session is not None else []

    @property
    def implied_held(self) -> bool:
        """The implied card came back after a restart: Hit or Double before anything else."""
        return self.session is not None and self.session.tentative_held

    @property
    def under_min(self) -> list[str]:
        """Players whose under-minimum wager was settled once at this table (5.26)."""
        if self.session is None:
            return sorted(self._recorded_under_min)
        return sorted(self.session.under_min)

    @property
    def shoe_reloaded(self) -> bool:
        return self.session is not None and self.session.shoe_reloaded

    def _session(self) -> TableSession:
        if self.session is None:
            self.session = TableSession(self.setup.config([]), self._recorded_under_min)
        return self.session

    # ------------------------------------------------------------------ store
    def open_store(self, path: str | None, done: Callable[[bool], None] | None = None) -> None:
        """Open the store on the writer thread, recover an open round or start a new one."""

        def job() -> tuple[Store, Any, list[str], list[dict[str, Any]], dict[str, Any] | None]:
            store = Store.open(path, table=self.table_name) if path else Store.open(table=self.table_name)
            self._worker_store = store  # for jobs queued before the GUI thread hears of it
            open_round = store.find_open_round()
            pending: dict[str, Any] | None = None
            if open_round is not None:
                entries = store.audit_entries(round_id=open_round.round_id, kind=PENDING_CARD_KIND)
                if entries and entries[-1].detail.get("events") == len(open_round.events):
                    pending = dict(entries[-1].detail)  # the card is in no event yet
            under = store.under_min_players()
            recall: list[dict[str, Any]] = []
            for summary in store.list_rounds(limit=RECALL_SIZE + 1):
                if summary.ended_at is None:
                    continue
                detail = store.get_round(summary.id)
                if detail is not None and isinstance(detail.result, dict):
                    recall.append({"round": summary.id, **detail.result})
            return store, open_round, under, recall, pending

        def finished(result: Any, error: BaseException | None) -> None:
            if error is not None:
                self._store_failed(f"cannot open the store: {error}")
                if done:
                    done(False)
                return
            store, open_round, under, recall, pending = result
            self.store = store
            self._recorded_under_min = list(under)
            self.recall = recall[:RECALL_SIZE]
            self.recall_changed.emit()
            if open_round is not None and self._restore(open_round, pending):
                pass
            else:
                self.new_round()
            if self.dealer:  # else the session starts with the dealer's shift (start_shift)
                self.store_worker.submit(lambda: self._start_session(store), self._session_started)
            if done:
                done(True)

        self.store_worker.submit(job, finished)

    def _start_session(self, store: Store) -> int:
        """On the store thread: start the session; later jobs of this thread see its id."""
        sid = store.start_session(
            game=self.setup.game, decks=self.setup.decks,
            areas=None if self.setup.electronic else self.setup.areas,
            limits=self.setup.limits, dealer=self.dealer,
        )
        self._store_sid = sid
        return sid

    def _session_started(self, result: Any, error: BaseException | None) -> None:
        if error is None:
            self.session_id = int(result)

    def _restore(self, open_round: Any, pending: dict[str, Any] | None = None) -> bool:
        """Replay the open round's events (crash or power cut); True if it is back on screen.

        ``pending``: an implied hit's card that was on disk only as its PENDING_CARD_KIND
        entry (the app stopped while Double could still claim it): shown on its hand and
        held until the dealer says Hit or Double."""
        tentative: list[Event] = []
        if pending is not None:
            try:
                hit, card = parse_event(pending.get("hit")), parse_event(pending.get("card"))
                tentative = [hit, card]
            except EventFormatError as exc:
                self.refused.emit(f"the card read before the restart cannot be read back: {exc.message}")
        config = dict(open_round.config)
        game = config.get("game")
        if isinstance(game, str) and game in GAMES and game != self.setup.game:
            self.setup.game = game
        session = self._session()
        try:
            session.restore(config, [parse_event(raw) for raw in open_round.events], tentative)
        except (DealerAssistError, TranscriptError) as exc:
            self.refused.emit(f"the open round {open_round.round_id} cannot be replayed: {exc}")
            return False
        rnd = session.round
        self.config = config
        self.round_id = open_round.round_id
        self._store_rid = open_round.round_id
        self.events = [dict(e) for e in open_round.events]
        self.restored = True
        self._referral_audited = rnd.status() == "referred"
        # the round was open when the app stopped: a crash or a power failure (5.29.1)
        self.audit("recovered", {"events": len(self.events)}, actor="system")
        if open_round.status == "referred" and rnd.status() == "in_progress":
            # referred by the dealer (6.1): still waiting for the shift manager
            self.referred = f"the round was referred to the Gaming Shift Manager ({self.rules.clause('refer')})"
        self._finished_at = -1
        self.changed.emit()
        if self.concluded:
            # The crash came between the round's last event and its result: the result is
            # derived from the recorded events now, so the round is never left unfinished.
            self._finish()
        elif len(tentative) == 2 and not session.tentative_held and isinstance(tentative[1], CardDrawn):
            # it fits no reading now: held like any such card, never lost
            self._hold_stray(tentative[1], "it no longer fits the round as recorded")
        elif session.tentative_held:
            self.hold_changed.emit()
            self.changed.emit()
        return True

    def _store_failed(self, text: str) -> None:
        self.store_error = text
        self.store_failed.emit(text)
        self.refused.emit(text)

    def close(self) -> None:
        """Finish the queued writes and close the store (on its own thread). An implied hit's
        card that Double may still claim stays pending in the store (asked after the restart)."""
        store = self.store
        if store is not None:
            session = self.session_id
            if session is not None:
                self.store_worker.submit(lambda: store.end_session(session, actor=self.dealer))
            self.store_worker.submit(store.close)
        self.store_worker.stop()

    # ------------------------------------------------------------------ the round
    @property
    def review_socket(self) -> Path | None:
        """The station service's socket, whose copy of the store the review reads (None: the
        store is this process's own)."""
        return None

    @property
    def rules(self) -> GameRules:
        return GAMES[self.config.get("game", self.setup.game)]

    def new_round(self) -> None:
        """A fresh round in betting, with the table's current setup."""
        session = self._session()
        session.set_table(self.setup.config([]))
        session.new_round()  # the shoe carried (5.1) and the 5.26 history: the session's
        self.config = dict(session.config)
        self.round_id = None
        self.events = []
        self._referral_audited = False
        self.restored = False
        self.placement = None
        self.face_up_next = False  # a face-up report belongs to its round (5.5)
        self.referred = ""
        self.power_answers = set()
        self._finished_at = -1
        self.changed.emit()

    @property
    def current(self) -> Round:
        """The round on the table; only asked for once the table has one (after start-up)."""
        if self.rnd is None:
            raise RuntimeError("the table has no round yet")
        return self.rnd

    def expectation(self) -> Expectation:
        return self.current.expectation()

    @property
    def concluded(self) -> bool:
        """Nothing more to play: settled, void, or concluded by a ruling (e.g. every player
        withdrew after a power failure, 5.29.1) with nothing expected."""
        if self.rnd is None or self.round_id is None:
            return False
        return self.rnd.status() in ("settled", "void") or (
            self.rnd.status() == "in_progress" and self.rnd.expectation().kind == "none")

    def output(self) -> dict[str, Any]:
        return round_output(self.current)

    @property
    def betting(self) -> bool:
        return self.round_id is None and self.session is not None and self.session.betting

    # ------------------------------------------------------------------ betting slip
    def place_wager(self, player: str, bet: str, amount: Decimal | float | int, area: int | None = None,
                    hand: int | None = None) -> bool:
        """Add a wager to the slip if the rules accept it (checked by the engine)."""
        try:
            wager = Wager(player, bet, _amount(amount, "wager"),
                          area if area is not None and not self.setup.electronic else None, hand)
        except EventFormatError as exc:
            return self._refuse_text_only(exc.message)
        if not self.betting:
            return self.submit(wager)  # a later wager (split hand, 3.21.1 / 3.23.1)
        return self._rebuild_slip([*self._session().slip, wager], wager)

    def place_wagers(self, wagers: list[tuple[str, str, Decimal, int | None]]) -> bool:
        """Several wagers (player, bet, amount, area) onto the slip at once, e.g. last round's
        repeated: all or none (the engine checks each; a refusal leaves the slip as it was)."""
        if not self.betting:
            return False
        try:
            new = [Wager(p, b, _amount(a, "wager"), area if area is not None and not self.setup.electronic else None)
                   for p, b, a, area in wagers]
        except EventFormatError as exc:
            return self._refuse_text_only(exc.message)
        return self._rebuild_slip([*self.current.events, *new], new[-1] if new else None)

    def claim(self, bet: str, area: int, claimants: list[dict[str, Any]]) -> bool:
        """Players who have not agreed want the free slots of ``bet`` on ``area``: the engine decides."""
        try:
            claim = Claim(bet, area, tuple(Claimant(str(c["player"]), _amount(c["amount"], "claim"))
                                           for c in claimants))
        except EventFormatError as exc:
            return self._refuse_text_only(exc.message)
        return self.submit(claim)

    @property
    def finish_recorded(self) -> bool:
        """The settle output of the events so far has been recorded."""
        return self._finished_at == len(self.events)

    def apply_setup(self, setup: TableSetup, approval: int | None = None) -> bool:
        """A new table setup (game, decks, areas, limits, seats) from the next round on."""
        if not self.betting or self.slip:
            self.refused.emit("change the table setup between rounds, before any wager is placed")
            return False
        try:
            self._session().set_table(setup.config([]))
        except TranscriptError as exc:
            self.refused.emit(f"setup refused: {exc.message}")
            return False
        self.setup = setup
        self.new_round()
        return True

    def remember_setup(self, setup: TableSetup) -> None:
        """Record the table setup in the store (audited), on the writer thread."""

        detail = setup_to_json(setup)
        actor = f"dealer:{self.dealer}"

        def job() -> int:
            # jobs run in order on one thread: the store was opened by an earlier job
            store = self._worker_store
            if store is None:
                raise StoreError("no store is open")
            return store.add_audit(SETUP_AUDIT_KIND, actor=actor, detail=detail)

        self.store_worker.submit(job)

    def remove_wager(self, index: int) -> bool:
        if not self.betting or not 0 <= index < len(self.slip):
            return False
        return self._rebuild_slip([w for i, w in enumerate(self._session().slip) if i != index], None)

    def change_wager(self, index: int, amount: Decimal | float | int) -> bool:
        if not self.betting or not 0 <= index < len(self.slip):
            return False
        slip: list[Event] = list(self._session().slip)
        wager = slip[index]
        if not isinstance(wager, Wager):
            return False
        try:
            slip[index] = replace(wager, amount=_amount(amount, "wager"))
        except EventFormatError as exc:
            return self._refuse_text_only(exc.message)
        return self._rebuild_slip(slip, slip[index])

    def clear_slip(self) -> None:
        if self.betting:
            self._rebuild_slip([], None)

    def _rebuild_slip(self, slip: list[Event], new: Event | None) -> bool:
        try:
            self._session().set_slip(slip)
        except RuleRefusal as exc:
            self._refuse(new if new is not None else slip[-1], exc)
            return False
        self.last_refusal = ""
        self.changed.emit()
        return True

    def no_more_bets(self) -> bool:
        """Close the bets (5.3): the slip and the event go to the store as the round's start."""
        if not self.betting:
            return False
        return self.submit(NoMoreBets())

    # ------------------------------------------------------------------ events
    def submit(self, event: Event, actor: str | None = None, approval: int | None = None, *,
               quiet: bool = False) -> bool:
        """Hand one event to the table session; if accepted, store what it records (the
        transcript form) and then show it. The session decides 5.3 (the first card closes
        the bets), the implied hit and the 5.26 history; a refusal leaves it unchanged.

        ``approval``: a supervisor's approval (:meth:`approve`) for an event the store
        writes only with one (void, resolve, correction, the pit manager's pick).
        ``quiet``: a refusal is not shown as such (the caller shows it in its own way)."""
        if self.store_error:
            self.refused.emit(f"not recorded: {self.store_error}")
            return False
        session = self.session
        if session is None:
            return self._refuse_text_only("the table has no round yet: the store is not open")
        if self.betting and event.type in ("wager", "claim"):
            return self._rebuild_slip([*session.slip, event], event)
        try:
            step = session.apply(event)
        except RuleRefusal as exc:
            if quiet:
                self.last_refusal_text = str(exc)
                return False
            self._refuse(event, exc)
            return False
        if step.held:  # the bets closed (5.3) by a card the rules then refused
            self._record(step, actor, approval)
            if quiet:
                self.last_refusal_text = step.held
            else:
                self._refuse_text(event, step.held)
            return False
        self._accept(step, event, actor, approval)
        return True

    def _accept(self, step: Step, event: Event, actor: str | None, approval: int | None) -> None:
        """An input the session accepted: recorded, then the queues that waited on it move."""
        kind = event.type
        self.last_refusal = ""
        self.accepted.emit()
        if kind == "void":
            self.face_up_next = False  # the report ends with its round
            self.referred = ""
            if self.hold_reason:  # the unread card is accounted for by the void (5.1)
                self.hold_reason, self.hold_event, self.rereading = "", None, False
                self.hold_changed.emit()
        self._record(step, actor, approval)
        who = actor or f"dealer:{self.dealer}"
        if kind in SIGNIFICANT_EVENTS:
            raw = event_to_transcript(event)
            self.audit(kind, {k: v for k, v in raw.items() if k != "type"}, actor=who)
        if self.current.status() == "referred" and kind != "resolve" and not self._referral_audited:
            self._referral_audited = True  # 6.1: the round waits for the Gaming Shift Manager
            referral = getattr(self.rnd, "referral", None)
            self.audit("referral", {"ruling": list(referral) if referral else None}, actor=who)
        if self.held_cards and not self.hold_reason and kind not in ("card", "multi", "burn"):
            # the cards that waited for a pick, in order, once it is made (or the round was
            # voided or ruled otherwise: then the round says what becomes of them)
            self._flush_held()
        if self.stray_queue and not self._queue_blocked:
            self._release_queue()  # cards that waited for the restored card's Hit or Double

    def _record(self, step: Step, actor: str | None, approval: int | None) -> None:
        """Write what the session recorded (one transaction: a crash keeps all or none), with
        the settle output and 5.26 names when it ends the round; a tentative implied hit is
        kept apart (PENDING_CARD_KIND), also before it is shown."""
        who = actor or f"dealer:{self.dealer}"
        if step.record:
            raws = [event_to_transcript(e) for e in step.record]
            if step.begins:
                self.round_id = -1  # begun; the store's id arrives with the acknowledgement
                self.events = list(raws)
                output = None if step.tentative else self._ending_output()
                self._store_round_start(raws, output, approval, who)
            else:
                self.events += raws
                output = None if step.tentative else self._ending_output()
                self._store_events(raws, who, output, approval)
        if step.tentative:
            hit, card = step.tentative
            self._store_pending(hit, card)
            self.face_up_next = False

    def _ending_output(self) -> dict[str, Any] | None:
        """The settle output when the event just applied ends the round: it is written with
        that event, in one transaction (a crash never leaves the events without the result)."""
        if not self.concluded or self._finished_at == len(self.events):
            return None
        self._finished_at = len(self.events)
        return round_output(self.current)

    def _store_round_start(self, first: list[dict[str, Any]], output: dict[str, Any] | None = None,
                           approval: int | None = None, actor: str | None = None) -> None:
        """The round's start (its slip and *no more bets*, or a void) in one transaction;
        ``approval``: a supervisor's, for the event among them that needs one (a void)."""
        store = self.store
        session = self.session_id
        config = dict(self.session.config) if self.session is not None else dict(self.config)
        who = actor or f"dealer:{self.dealer}"
        under = list(self.current.under_minimum_first_time()) if output is not None else None
        self.unacknowledged += 1

        def job() -> int:
            if store is None:
                raise StoreError("no store is open")
            sid = self._store_sid if self._store_sid is not None else session
            rid = store.start_round(config, first, session_id=sid, actor=who, result=output,
                                    approval=approval, under_min=under)
            self._store_rid = rid
            return rid

        def done(result: Any, error: BaseException | None) -> None:
            if error is None:
                self.round_id = int(result)
                if output is not None:
                    self._result_recorded(self.round_id, output)
            self._acknowledged(error)

        self.store_worker.submit(job, done)

    def _acknowledged(self, error: BaseException | None) -> None:
        self.unacknowledged -= 1
        if error is not None:
            self._store_failed(f"the store could not record the event: {error}")
            return
        if self.unacknowledged == 0:
            # everything applied is on disk: now the screen may show it
            self.changed.emit()
            if self.paint_hook is not None:
                self.paint_hook()
            if self.concluded and not self.implied and self._finished_at != len(self.events):
                # again after a 5.7 card dealt to a completed hand (an implied card still
                # pending is not an event yet: the output goes with it when it is stored)
                self._finish()

    def _finish(self) -> None:
        """Record the settle output (settlements, rulings) once the round is over."""
        self._finished_at = len(self.events)
        output = round_output(self.current)
        store = self.store

        under = list(self.current.under_minimum_first_time())  # 5.26, as the round decided it

        def job() -> int:
            rid = self._store_rid
            if store is None or rid is None:
                raise StoreError("no round to finish")
            store.finish_round(rid, output, actor=f"dealer:{self.dealer}", under_min=under)
            return rid

        def done(result: Any, error: BaseException | None) -> None:
            if error is not None:
                self._store_failed(f"the settlement could not be recorded: {error}")
                return
            self._result_recorded(int(result), output)

        self.store_worker.submit(job, done)

    def _result_recorded(self, rid: int, output: dict[str, Any]) -> None:
        """The settle output of round ``rid`` (the store's id) is on disk: the recall."""
        self.finished_outputs += 1
        self.recall = [r for r in self.recall if r.get("round") != rid]
        self.recall.insert(0, {"round": rid, **output})
        del self.recall[RECALL_SIZE:]
        self.recall_changed.emit()

    def confirm_settlement(self) -> bool:
        """The dealer has paid and collected: the next round starts (betting)."""
        if self.rnd is None or not self.concluded:
            return False
        self._flush_implied()
        self.new_round()
        return True

    def _refuse(self, event: Event, exc: RuleRefusal) -> None:
        self._refuse_text(event, str(exc))

    def _refuse_text_only(self, text: str) -> bool:
        """An event that could not be made (an amount or a place the transcript cannot hold)."""
        self.last_refusal = f"Refused: {text}"
        self.refused.emit(self.last_refusal)
        return False

    # ------------------------------------------------------------------ decisions
    def decide(self, action: str, *, area: int | None = None, hand: int | None = None,
               player: str | None = None, amount: Decimal | float | None = None,
               followers: dict[str, str | Decimal | float] | None = None) -> bool:
        """One decision; ``followers``: the other players on the hand, ``match``/``stay`` on a
        split (3.24) or the amount each doubles (3.26.5)."""
        try:
            decision = Decision(
                action, area if area is not None and not self.rules.shared_hand else None, hand, player,
                _amount(amount, "decision") if amount is not None else None,
                tuple((p, v if isinstance(v, str) else _amount(v, f"decision: follower {p}"))
                      for p, v in (followers or {}).items()))
        except EventFormatError as exc:
            return self._refuse_text_only(exc.message)
        return self.submit(decision)

    def void(self, reason: str, rule: str, supervisor: str, approval: int | None = None) -> bool:
        """A supervisor's void (``approval`` from :meth:`approve`; the store refuses it without)."""
        return self.submit(Void(reason, rule), actor=f"supervisor:{supervisor}", approval=approval)

    def undo_refusal(self, *, supervisor: bool = False) -> str:
        """Why an undo would be refused now ("" if it would not), as the engine rules it."""
        if self.session is None:
            return "the table has no round yet"
        return self.session.take_back_refusal(supervisor=supervisor)

    def undo(self, supervisor: str | None = None, approval: int | None = None) -> bool:
        """Take back the last decision or card assignment (the engine says what may be: the
        dealer's last input before the next card; more with a supervisor's ``undo`` approval
        from :meth:`approve`). The store removes it from the round's events and audits what
        left and by whom; a shoe card taken back is held to be placed again."""
        if self.store_error:
            return self._refuse_text_only(f"not recorded: {self.store_error}")
        session = self.session
        if session is None:
            return self._refuse_text_only("the table has no round yet: the store is not open")
        if supervisor is not None and approval is None:
            return self._refuse_text_only("taking back more needs a supervisor's PIN")
        if approval is not None:
            self._flush_implied()  # a card waiting for Hit or Double is a hit: then it is taken back
        try:
            taken = session.take_back(supervisor=approval is not None)
        except RuleRefusal as exc:
            return self._refuse_text_only(f"nothing taken back: {exc}")
        count = len(taken.events)
        del self.events[len(self.events) - count:]
        self._finished_at = -1
        store = self.store
        actor = f"supervisor:{supervisor}" if supervisor else f"dealer:{self.dealer}"
        reason = f"undo: {taken.describe}"
        self.unacknowledged += 1

        def job() -> int:
            rid = self._store_rid
            if store is None or rid is None:
                raise StoreError("no store is open")
            return store.withdraw_events(rid, count, actor=actor, reason=reason, approval=approval)

        self.store_worker.submit(job, lambda _result, error: self._acknowledged(error))
        for card in taken.cards:  # out of the shoe all the same: held until placed, never dropped
            self.stray_card, self.stray_event = str(card.card), replace(card, to=None)
            self.stray_reason = f"Taken back by {supervisor or 'the dealer'}: say where this card lies."
            self.hold_changed.emit()
        self.last_refusal = ""
        self.last_undo = f"Taken back: {taken.describe}"
        self.accepted.emit()
        return True

    def approve(self, supervisor: str, pin: str, kind: str, done: Callable[[Any], None],
                detail: dict[str, Any] | None = None) -> None:
        """Check a supervisor PIN off the GUI thread (scrypt), audited by the store.

        ``done`` gets the store's :class:`PinCheck`; its ``approval`` goes with the event
        it authorises."""
        store = self.store
        rid = self.round_id if self.round_id and self.round_id > 0 else None

        def job() -> PinCheck:
            if store is None:
                return PinCheck(False, "error", message="no store is open")
            return store.authorise(supervisor, pin, kind=kind, round_id=rid, detail=detail or {})

        self.store_worker.submit(job, lambda result, error: done(
            result if error is None else PinCheck(False, "error", message=f"the store failed: {error}")))

    def change_pin(self, name: str, old_pin: str, new_pin: str, done: Callable[[PinCheck], None]) -> None:
        """Replace a PIN the store asked to be changed (off the GUI thread)."""
        store = self.store

        def job() -> PinCheck:
            if store is None:
                return PinCheck(False, "error", message="no store is open")
            return store.change_pin(name, old_pin, new_pin)

        self.store_worker.submit(job, lambda result, error: done(
            result if error is None else PinCheck(False, "new_pin", message=str(error))))

    def start_shift(self, dealer: str) -> None:
        """A dealer logged in (the store recorded ``shift_start``): the table's session is theirs."""
        self.dealer = dealer
        self._restart_session()

    def end_shift(self, dealer: str) -> None:
        """The dealer logged out: ``shift_end`` recorded, the table's session (theirs) ended."""
        store = self.store
        session, self.session_id = self.session_id, None
        if store is not None:
            def job() -> None:
                sid = self._store_sid if self._store_sid is not None else session
                self._store_sid = None
                if sid is not None:
                    store.end_session(sid, actor=dealer)
                store.end_shift(dealer)

            self.store_worker.submit(job)

    def _restart_session(self) -> None:
        store = self.store
        if store is None:
            return
        session = self.session_id
        self.session_id = None

        def job() -> int:
            sid = self._store_sid if self._store_sid is not None else session
            if sid is not None:
                store.end_session(sid, actor=self.dealer)
            return self._start_session(store)

        self.store_worker.submit(job, self._session_started)

    # ------------------------------------------------------------------ the shoe
    def on_shoe_event(self, event: ShoeEvent) -> None:
        """Every shoe event, on the GUI thread (ui.dealer.shoe_signals)."""
        info = self.shoe
        info.last_event = _describe_shoe_event(event)
        if isinstance(event, Connected):
            if not info.connected:
                self._audit("shoe_connected", event_to_json(event))
            info.connected = True
            info.ever_connected = True
            info.port = event.port
            info.model = event.model or info.model
            info.warning = "" if event.guaranteed else "this shoe's format cannot show lost cards"
            info.codec = event.codec
            info.weak_checksum = event.weak_checksum
        elif isinstance(event, Disconnected):
            if info.connected:
                self._audit("shoe_lost", event_to_json(event))
            info.connected = False
            info.warning = f"shoe lost: {event.reason}"
        elif isinstance(event, Hello):
            info.model = event.model
        elif isinstance(event, ShoeLoaded):
            info.cut_seen = False
            if self.session is not None:
                self.session.shoe_loaded()  # 5.1: copies count from this shuffle on
                self.config = dict(self.session.config)  # a round in betting deals from it
            self._update_remaining(reset=True)
        elif isinstance(event, CutCard):
            info.cut_seen = True
        elif isinstance(event, ShoeEmpty):
            info.warning = "the shoe is empty"
        elif isinstance(event, ShoeFault):
            info.fault = f"{event.code} {event.text}".strip()
            self._audit("shoe_fault", event_to_json(event))
        elif isinstance(event, ShoeWarning):
            info.warning = f"shoe warning {event.code}"
        elif isinstance(event, (DecodeError, SequenceGap, NoRead, CardRead, MultiCard)):
            if holds_cards(event):
                self._audit("shoe_fault", event_to_json(event))
            self.on_card(event)
        self.shoe_changed.emit()

    def _audit(self, kind: str, detail: dict[str, Any], actor: str | None = None) -> None:
        if actor is None:
            actor = "shoe" if kind.startswith("shoe") else f"dealer:{self.dealer}"
        self.audit(kind, detail, actor=actor)

    def audit(self, kind: str, detail: dict[str, Any], *, actor: str) -> None:
        """A significant event (GLI-24: shoe connected/lost/faults, power failure and
        recovery, void, referral, overrides, configuration changes) in the store's audit
        log, with the round it belongs to when a round is open."""
        in_round = self.round_id is not None

        def job() -> int | None:
            # Jobs run in order on the writer thread: after the store's opening (so an event
            # that comes before the GUI thread hears of the store, e.g. the shoe's first
            # HELLO, is kept) and after the round's begin job (_store_rid is set).
            store = self.store or self._worker_store
            if store is None:
                return None  # no store could be opened: its error is on screen already
            return store.add_audit(kind, actor=actor, round_id=self._store_rid if in_round else None,
                                   detail=detail)

        self.store_worker.submit(job)

    def _update_remaining(self, reset: bool = False) -> None:
        if self.rnd is not None:
            self.shoe.remaining = self.rnd.shoe.remaining

    def on_card(self, event: ShoeEvent) -> None:
        """A card (or cards) out of the shoe, or a card that may be missing: held while a hold
        is on, or while the round waits for the pick of cards that came out together, in the
        order they came; an event that holds cards starts a hold."""
        if self.rereading and not self.held_cards:
            if isinstance(event, NoRead):
                self.hold("the card could not be read again: key it in (supervisor) or void the round "
                          f"({self._missing_clause()})")
                return
            if isinstance(event, CardRead) and not event.burn:
                self.rereading = False  # the unread card, read this time: it goes where it came out
                self.hold_reason, self.hold_event = "", None
                self._session().unread_accounted()
                self._assign(event)
                self._flush_held()
                return
        if self.hold_reason and not self.held_cards and isinstance(event, POSSIBLE_MISSED_CARD):
            # A card may be missing, and the dealer is already checking the cards on the table
            # (a frame dropped for a bad checksum shows again in the next frame's gap).
            return
        if self.hold_reason or self.held_cards or self.awaiting_pick:
            self.held_cards.append(event)  # not assigned until the dealer confirms
            self.hold_changed.emit()
            return
        if self._queue_blocked:
            self.stray_queue.append(event)  # nothing else is assigned until the dealer answers
            self.hold_changed.emit()
            return
        self._take(event)

    @property
    def _queue_blocked(self) -> bool:
        """A held card, a referral or a restored implied card: no other card is assigned."""
        return self.stray_card is not None or bool(self.referred) or self.implied_held

    def _release_queue(self) -> None:
        queued, self.stray_queue = self.stray_queue, []
        self.hold_changed.emit()
        for event in queued:
            self.on_card(event)

    @property
    def awaiting_pick(self) -> bool:
        """The round waits for the pick of the cards that came out together (5.23): a card
        from the shoe now would be refused, so it waits for the pick."""
        if self.rnd is None:
            return False
        exp = self.rnd.expectation()
        return exp.kind == "decision" and "pick" in exp.options

    @property
    def hold_text(self) -> str:
        """What the hold banner says: the hold, or the cards waiting for a pick."""
        if self.hold_reason or not self.held_cards:
            return self.hold_reason
        return (f"{len(self.held_cards)} card(s) from the shoe wait until the cards that came out "
                "together are picked")

    def _flush_held(self) -> None:
        """Assign the held events in order until one of them holds again or a pick is awaited."""
        while self.held_cards and not self.hold_reason and not self.awaiting_pick:
            if self._queue_blocked:  # a card waits to be placed: the rest wait behind it, in order
                self.stray_queue += self.held_cards
                self.held_cards = []
                break
            self._take(self.held_cards.pop(0))
        self.hold_changed.emit()

    def _take(self, event: ShoeEvent) -> None:
        if holds_cards(event):
            self.hold_event = event
            if isinstance(event, NoRead):
                self._session().came_out_unread(event.seq)
            elif isinstance(event, MultiCard) and event.unread:
                self._session().came_out_unread(event.seq, event.unread)
            self.hold(_hold_text(event))
        elif isinstance(event, CardRead):
            self._assign(event)
        elif isinstance(event, MultiCard):
            self._assign_together(list(event.cards))

    def _assign_together(self, cards: list[str] | list[Any]) -> bool:
        """Cards that left the shoe together: one card is a card, more a ``multi`` (5.23)."""
        if len(cards) == 1:
            return self._assign(CardRead(card=parse_card(str(cards[0]))))
        ok = self.submit(Multi(tuple(parse_card(str(c)) for c in cards), ()))
        self._update_remaining()
        return ok

    def _assign(self, event: CardRead, *, keyed: bool | None = None) -> bool:
        """A card read (or ``keyed`` in by the dealer: True with a supervisor's approval)."""
        if event.burn:
            ok = self.submit(Burn(event.card))
            self._update_remaining()
            return ok
        # shoe_seq: the shoe's frame number (cards in flight, the review); face_up (5.5): the
        # round records the ruling and plays it as normal
        raw = CardDrawn(event.card, face_up=self.face_up_next, shoe_seq=event.seq)
        if self.placement is not None:
            try:
                raw = replace(raw, to=parse_target(self.placement))
            except EventFormatError as exc:
                self.placement = None
                return self._refuse_text_only(exc.message)
        ok = self._card(raw, keyed)
        self._update_remaining()
        return ok

    def _card(self, raw: CardDrawn, keyed: bool | None = None) -> bool:
        """A card out of the shoe, through the session (5.3 and the implied hit are its rules).
        A card that fits no reading is held on screen, never dropped."""
        if self.store_error:
            self.refused.emit(f"not recorded: {self.store_error}")
            return False
        session = self._session()
        try:
            step = session.card(raw) if keyed is None else session.key_in(raw, approved=keyed)
        except RuleRefusal as exc:  # an unread card keyed in without approval (5.1)
            return self._refuse_text_only(str(exc))
        if step.held:
            self._record(step, None, None)  # the bets it closed (5.3), an implied hit made final
            if raw.to is None:
                self._hold_stray(raw, step.held)  # held on screen, never dropped
                return True
            self.placement = None
            self._refuse_text(raw, step.held)
            return False
        self.face_up_next = False
        self.placement = None
        self._accept(step, raw, None, None)
        return True

    def _refuse_text(self, event: Event, text: str) -> None:
        self.last_refusal = f"Refused ({describe_event(event_to_transcript(event))}): {text}"
        self.refused.emit(self.last_refusal)

    # ------------------------------------------------------------------ the table's rhythm
    def _store_pending(self, hit: Event, card: Event) -> None:
        """The implied hit's card, durably, before it is shown: a PENDING_CARD_KIND entry with the
        round's number of stored events (a crash now keeps the card; the restart asks)."""
        store = self.store
        detail = {"events": len(self.events), "hit": event_to_transcript(hit), "card": event_to_transcript(card)}
        actor = f"dealer:{self.dealer}"
        self.unacknowledged += 1

        def job() -> int:
            rid = self._store_rid  # jobs run in order: the round's begin job set it
            if store is None or rid is None:
                raise StoreError("no store is open")
            return store.add_audit(PENDING_CARD_KIND, actor=actor, round_id=rid, detail=detail)

        self.store_worker.submit(job, lambda _result, error: self._acknowledged(error))

    def _store_events(self, raws: list[dict[str, Any]], actor: str, output: dict[str, Any] | None,
                      approval: int | None = None) -> None:
        """Append ``raws`` in one transaction on the store's thread (a crash keeps all or none)."""
        store = self.store
        under = list(self.current.under_minimum_first_time()) if output is not None else None
        self.unacknowledged += 1

        def job() -> int:
            rid = self._store_rid  # jobs run in order: the round's begin job set it
            if store is None or rid is None:
                raise StoreError("no store is open")
            store.append_events(rid, raws, actor=actor, result=output, approval=approval, under_min=under)
            return rid

        def done(result: Any, error: BaseException | None) -> None:
            if error is None and output is not None:
                self._result_recorded(int(result), output)
            self._acknowledged(error)

        self.store_worker.submit(job, done)

    def _flush_implied(self) -> None:
        """The implied hit's moment for a double has passed: store ``hit`` and its ``card``."""
        if self.session is not None and self.session.tentative:
            self._record(self.session.confirm_tentative(), None, None)

    def confirm_implied_hit(self) -> bool:
        """After a restart: the held card was a hit (stored as ``hit`` + ``card``)."""
        if not self.implied:
            return False
        self._flush_implied()
        self.last_refusal = ""
        self.accepted.emit()
        self.hold_changed.emit()
        if self.stray_queue and not self._queue_blocked:
            self._release_queue()
        return True

    def can_double_last_card(self) -> bool:
        return bool(self.implied)

    def double_last_card(self, amount: Decimal | float | None = None) -> bool:
        """Double pressed right after its card: the card was the double's, not a hit's."""
        implied = self.implied
        if not implied or not isinstance(implied[0], Decision):
            return False
        try:
            value = _amount(amount, "decision") if amount is not None else None
        except EventFormatError as exc:
            return self._refuse_text_only(exc.message)
        double = replace(implied[0], action="double", amount=value)
        try:
            step = self._session().double_tentative(value)
        except RuleRefusal as exc:
            self._refuse(double, exc)
            return False
        self._accept(step, double, None, None)
        self.hold_changed.emit()
        return True

    def _hold_stray(self, card: CardDrawn, reason: str) -> None:
        self.stray_card = str(card.card)
        self.stray_event = card
        self.stray_reason = f"The rules refuse it where it was expected: {reason}"
        self.hold_changed.emit()

    def stray_targets(self) -> list[str]:
        """Every place a held card may lie: each hand, the dealer, the discard."""
        if self.rnd is None:
            return []
        places = self.rnd.view().card_places()  # the engine's list: dealer, discard, every hand
        return [*(p for p in places if p not in ("dealer", "discard")), "dealer", "discard"]

    def held_targets(self) -> list[str]:
        """Where the held card may lie, as the engine says (after the outcome: the discard only)."""
        if self.rnd is None:
            return []
        places = self.rnd.view().held_card_places()
        return [*(p for p in places if p not in ("dealer", "discard")), *(p for p in ("dealer", "discard")
                                                                          if p in places)]

    def place_stray(self, target: str) -> bool:
        """The dealer says where the held card lies: it is recorded there (``to``); the engine rules."""
        if self.stray_event is None:
            return False
        try:
            placed = replace(self.stray_event, to=parse_target(target))
        except EventFormatError as exc:
            return self._refuse_text_only(exc.message)
        if not self.submit(placed):
            return False
        self.stray_card = None
        self.stray_event = None
        self.stray_reason = ""
        queued, self.stray_queue = self.stray_queue, []
        self.hold_changed.emit()
        for event in queued:
            self.on_card(event)
        return True

    # ------------------------------------------------------------------ irregularities
    def report_face_up(self) -> None:
        """5.5: the next card out of the shoe was face up; the report ends with this round."""
        self.face_up_next = True

    def refer(self, text: str) -> None:
        """6.1: the dealer refers the round to the Gaming Shift Manager (audited, with the round).
        No card is assigned until the shift manager decides (:meth:`resolve_referral`)."""
        if self.rnd is None or self.round_id is None:
            self.refused.emit(f"nothing to refer: the round has not begun ({self.rules.clause('refer')})")
            return
        self._flush_implied()
        self.referred = text
        actor = f"dealer:{self.dealer}"
        clause = self.rules.clause("refer")
        self._audit("referral", {"rule": clause, "text": text}, actor=actor)
        # the round's record says so too: status "referred", waiting for the shift manager
        output = {**round_output(self.rnd), "status": "referred",
                  "next": {"expect": "ruling", "rule": clause, "text": text}}
        self._record_output(output, actor)
        self.hold_changed.emit()
        self.changed.emit()

    def _record_output(self, output: dict[str, Any], actor: str) -> None:
        store = self.store
        under = list(self.current.under_minimum_first_time())

        def job() -> None:
            rid = self._store_rid
            if store is None or rid is None:
                raise StoreError("no round to record")
            store.finish_round(rid, output, actor=actor, under_min=under)

        def done(result: Any, error: BaseException | None) -> None:
            if error is not None:
                self._store_failed(f"the referral could not be recorded: {error}")

        self.store_worker.submit(job, done)

    def resolve_referral(self, ruling: str, supervisor: str, approval: int | None = None) -> bool:
        """The shift manager's decision (``approval`` from the supervisor's PIN): ``continue`` or
        ``void``. A round the engine referred gets the transcript's ``resolve`` event."""
        clause = self.rules.clause("refer")
        if self.rnd is not None and self.rnd.status() == "referred":
            return self.submit(Resolve(ruling, f"Shift manager {supervisor}: {ruling}"),
                               actor=f"supervisor:{supervisor}", approval=approval)
        if not self.referred:
            return False
        if ruling == "void":
            if not self.submit(Void(f"shift manager's decision: {self.referred}", clause),
                               actor=f"supervisor:{supervisor}", approval=approval):
                return False
        else:  # the round goes on: its record is in progress again
            self._record_output(round_output(self.current), f"supervisor:{supervisor}")
        self.referred = ""
        queued, self.stray_queue = self.stray_queue, []
        self.hold_changed.emit()
        self.changed.emit()
        for event in queued:
            self.on_card(event)
        return True

    def power_failure_players(self) -> tuple[list[str], str]:
        """After a recorded power failure in this open round: the players with wagers who have
        neither withdrawn nor said they stay, and the clause; the engine rules on a withdrawal."""
        if self.rnd is None or self.concluded or not any(e.get("type") == "power_failure" for e in self.events):
            return [], ""
        gone = {e.get("player") for e in self.events if e.get("type") == "withdraw"}
        names = [n for n in players_in(self.rnd.view()) if n not in gone and n not in self.power_answers]
        return names, self.rules.clause("power_failure")

    def hold(self, reason: str) -> None:
        self.hold_reason = reason
        self.hold_changed.emit()

    @property
    def hold_unread(self) -> int:
        """Cards the dealer must key in before the hold ends: a card the shoe could not read,
        or a double feed's unread cards (they came out: "no card missed" cannot be said)."""
        event = self.hold_event
        if not self.hold_reason:
            return 0
        if isinstance(event, NoRead):
            return 1
        return event.unread if isinstance(event, MultiCard) else 0

    def release_hold(self, keyed_card: str | None = None, approval: int | None = None,
                     supervisor: str | None = None) -> bool:
        """The dealer checked: optionally the card that was missed (keyed in), then the held cards.

        A double feed with unread cards (``MULTI`` with fewer cards than its count) ends
        only when the dealer has keyed in every unread card: all of them, the read and the
        keyed, are one ``multi`` event; the read ones are never assigned on their own.
        A card the shoe could not read (``NOREAD``, a double feed's unread cards) is keyed in
        only with a supervisor's ``approval`` (kind ``key_card``); the other ways forward are
        :meth:`reread` and a supervisor's void (5.1).
        """
        event = self.hold_event
        refusal = self._session().key_in_refusal(approved=approval is not None) if keyed_card else ""
        if refusal:  # the session's rule (5.1)
            self.refused.emit(f"Refused: {refusal}")
            return False
        if isinstance(event, MultiCard) and event.unread:
            keyed = (keyed_card or "").replace(",", " ").split()
            if len(keyed) != event.unread:
                read = ", ".join(str(c) for c in event.cards) or "none"
                self.refused.emit(
                    f"{event.count} cards came out together and {event.unread} could not be read "
                    f"(read: {read}): key in the {event.unread} unread card(s), separated by spaces")
                return False
            try:
                cards = [*(str(c) for c in event.cards), *(str(parse_card(k)) for k in keyed)]
            except CardNotationError as exc:
                self.refused.emit(f"not a card: {exc}")
                return False
            if not self._assign_together(cards):
                return False
            self._session().unread_accounted(event.unread)
        elif keyed_card:
            try:
                card = parse_card(keyed_card.strip())
            except CardNotationError as exc:
                self.refused.emit(f"not a card: {exc}")
                return False
            # the card that came out: through the session like a read card (5.3, the implied
            # hit, a place the dealer marked, a face-up report), else held to be placed
            self.hold_reason = ""
            self.hold_event = None
            self.rereading = False
            if not self._assign(CardRead(card=card, seq=event.seq if event is not None else None),
                                keyed=approval is not None):
                self.hold_reason, self.hold_event = _hold_text(event) if event is not None else "", event
                self.hold_changed.emit()
                return False
            if approval is not None:
                self.audit("card_keyed", {"card": str(card), "approval": approval, "shoe": event_to_json(event)
                                          if event is not None else None}, actor=f"supervisor:{supervisor}")
        elif refusal := self._session().no_card_missed_refusal():
            self.refused.emit(refusal)  # re-reading it is the other way (:meth:`reread`)
            return False
        self.hold_reason = ""
        self.hold_event = None
        self.rereading = False
        self._flush_held()  # an unread card further on holds again and keeps the rest
        return True

    def _missing_clause(self) -> str:
        """The clause for a card not accounted for: extra or missing cards void the round (5.1)."""
        return self.rules.clause("void.foreign_card")

    def reread(self) -> bool:
        """The card the shoe could not read goes through the reader again: the next card read is
        that card (only while no later card has come out: then its place is not known)."""
        if not isinstance(self.hold_event, NoRead) or not self.hold_reason:
            return self._refuse_text_only("only a card the shoe could not read can be re-read")
        if self.held_cards:
            return self._refuse_text_only(
                f"{len(self.held_cards)} card(s) came out after the unread card: key it in (supervisor) or "
                f"void the round ({self._missing_clause()})")
        self.rereading = True
        self.hold(f"re-read: put the unread card through the shoe's reader again ({self._missing_clause()} "
                  "if it cannot be identified)")
        return True

    def place_next_card(self, target: str | None) -> None:
        """The dealer says where the next card physically lies (``to``), or None to clear."""
        self.placement = target
        self.changed.emit()

    def correct(self, index: int, target: str, approval: int | None = None) -> bool:
        """An earlier card lies elsewhere (correction; the store wants a supervisor's approval)."""
        try:
            correction = Correction(index, parse_target(target))
        except EventFormatError as exc:
            return self._refuse_text_only(exc.message)
        return self.submit(correction, approval=approval)

    def card_events(self) -> list[tuple[int, str]]:
        """(event index, card) of every card event so far, for the correction picker."""
        return [(i, str(e["card"])) for i, e in enumerate(self.events) if e.get("type") == "card"]


def players_in(layout: Any) -> list[str]:
    """Every player with a wager in the round, in layout order (the engine's view)."""
    if layout.shared_hand:
        return [t.player for t in layout.terminals]
    names: list[str] = []
    for area in layout.areas:
        names += [w.player for w in area.wagers] + [w.player for w in area.sides]
    return list(dict.fromkeys(names))


def _amount(amount: Decimal | float | int, what: str) -> Decimal:
    """An amount from a widget as the exact Decimal a typed event holds (money.parse_amount:
    whole cents, not above the largest amount); EventFormatError quoting it otherwise."""
    try:
        return parse_amount(amount)
    except AmountError as exc:
        raise EventFormatError(f"{what}: {exc}") from None


def _hold_text(event: ShoeEvent) -> str:
    if isinstance(event, SequenceGap) and event.restart:
        return "the shoe restarted: a card drawn just before may be missing"
    if isinstance(event, SequenceGap):
        return f"{event.lost} frame(s) from the shoe were lost: a card may be missing"
    if isinstance(event, NoRead):
        return "the shoe could not read a card: re-read it, key it in (supervisor) or void the round"
    if isinstance(event, MultiCard):
        read = " ".join(str(c) for c in event.cards) or "none"
        return (f"{event.count} cards came out together and {event.unread} could not be read "
                f"(read: {read}): key in the unread card(s) (supervisor) or void the round")
    if isinstance(event, DecodeError):
        return f"the shoe sent a damaged frame ({event.kind}): a card may be missing"
    return "check the last card"


def _describe_shoe_event(event: ShoeEvent) -> str:
    data = event_to_json(event)
    name = data.pop("event")
    data.pop("seq", None)
    rest = " ".join(" ".join(map(str, v)) if isinstance(v, list) else f"{v}"
                    for v in data.values() if v not in (None, "", False, []))
    return f"{name} {rest}".strip()
