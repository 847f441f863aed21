"""The table controller: the dealer's screen as a client of the station service.

The service owns the shoe, the store, its key and the PINs: it decides every input and
records it before anyone is told (issue 33: one table host). The controller is what the
widgets know of the table:

- dealer input (a wager after the bets closed, a decision, *no more bets* with the slip,
  a card keyed in, a supervisor's void ...) is sent as the service's op; a refusal shows
  the service's text, which names the clause, and leaves the round as it was;
- the round the screen draws is the picture the service's engine made of it
  (engine/picture.py), sent with every reply and every ``round`` notification, read into a
  :class:`ShownRound`: the service is the authority, the screen only displays and never
  works the round out again (no second replay, no second settle). Widgets never decide a
  rule: they read ``rnd.view()``, ``rnd.expectation()``, the service's settle output and
  the round's lists;
- the betting slip is the screen's until *no more bets* sends it (``set_slip``): each wager
  is checked by the engine as it is placed, and the whole slip goes to the service on each
  change, which holds it until the bets close (5.3: no more bets or the first card);
- log-in, end of shift, enrolment, accounts and PINs go through the same connection
  (ui.common.service_link.ServiceJobs): the service knows the dealer of this connection.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, replace
from decimal import Decimal
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal

from dealer_assist.base.errors import (
    DealerAssistError,
    EventFormatError,
    RuleRefusal,
    TranscriptError,
)
from dealer_assist.base.money import AmountError, parse_amount
from dealer_assist.engine.events import (
    Claim,
    Claimant,
    Correction,
    Decision,
    Event,
    NoMoreBets,
    Void,
    Wager,
)
from dealer_assist.engine.outcome import Expectation, Ruling, Settlement
from dealer_assist.engine.picture import RoundPicture, ShoePicture, picture_from_json
from dealer_assist.engine.round_api import RoundView
from dealer_assist.engine.session import TableSession
from dealer_assist.engine.table_setup import TableSetup, setup_from_json, setup_to_json
from dealer_assist.engine.transcript import (
    describe_event,
    event_to_transcript,
    parse_event,
    parse_target,
)
from dealer_assist.games import GAMES, GameRules
from dealer_assist.service.client import ServiceError
from dealer_assist.service.ops import INPUT_EVENTS, SUPERVISED_EVENTS, Op
from dealer_assist.store import PinCheck
from ui.common.service_link import RECONNECTING, ServiceJobs, ServiceLink

log = logging.getLogger("ui.dealer.controller")

# the service's op for each input the dealer gives (the registry: dealer_assist/service/ops.py)
INPUT_OPS = {event: op for op, event in INPUT_EVENTS.items()}
SUPERVISED_OPS = {event: op for op, (event, _) in SUPERVISED_EVENTS.items()}


@dataclass
class ShoeInfo:
    """What the shoe status bar shows."""

    connected: bool = False
    port: str = ""
    fault: str = ""  # the shoe's last fault (jam ...), shown until the dealer says it is cleared
    faults: int = 0  # the faults the service has seen (the dealer clears each one)
    ever_connected: bool = False
    codec: str = ""
    # the shoe's checksum misses some two-bit errors (da1-xor): the status line says so
    weak_checksum: bool = False
    guaranteed: bool = True  # False: the shoe's format cannot show a lost card (beetek)
    warning: str = ""  # the shoe's own warning code, until it reconnects
    empty: bool = False  # the shoe said it is empty, until a shoe is loaded or a card read
    reason: str = ""  # why the shoe was lost, as the driver saw it


class ShownRound:
    """The round as the service told it (its engine's picture, engine/picture.py): what the
    widgets read of a round, read-only. Nothing is worked out here; the game's rules are
    static data (``dealer_assist.games``)."""

    __slots__ = ("picture", "raw", "rules")

    def __init__(self, picture: RoundPicture, raw: dict[str, Any] | None = None) -> None:
        self.picture = picture
        self.raw = raw  # the service's JSON it was read from
        self.rules: GameRules = GAMES[picture.game]

    def view(self) -> RoundView:
        return self.picture.layout

    def expectation(self) -> Expectation:
        return self.picture.expectation

    def status(self) -> str:
        return self.picture.layout.status

    @property
    def settlements(self) -> tuple[Settlement, ...]:
        return self.picture.settlements

    @property
    def rulings(self) -> tuple[Ruling, ...]:
        return self.picture.rulings

    @property
    def shoe(self) -> ShoePicture:
        return self.picture.shoe

    @property
    def shoe_notices(self) -> tuple[tuple[str, str], ...]:
        """What the dealer is told about the shoe (5.19 / 5.20), as the engine said it."""
        return self.picture.shoe_notices


class TableController(QObject):
    """The table as the screen knows it: the service's state, and the ops it sends."""

    changed = Signal()  # the round (as the service recorded it) changed: redraw
    refused = Signal(str)  # a refusal or error line to show the dealer
    accepted = Signal()  # an input was accepted: the last refusal is stale
    shoe_changed = Signal()
    recall_changed = Signal()
    hold_changed = Signal()  # the service holds cards (a possible missed card, a stray, a referral)
    store_failed = Signal(str)  # the service cannot record, or the connection is gone

    def __init__(self, setup: TableSetup, link: ServiceLink, dealer: str = "", parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.setup = setup
        self.setup_approval = "setup"  # the service changes the set-up after a supervisor's PIN
        self.dealer = dealer
        self.link = link
        self.jobs = ServiceJobs(link)
        self.service_state: dict[str, Any] = {}
        self.service_closed = False
        self.was_referred = False
        self.round_id: int | None = None
        self.config: dict[str, Any] = {}
        # the round as the service's engine made it (its picture); None until the state is read
        self.shown: ShownRound | None = None
        # the betting slip before the bets close: the screen's own engine checks each wager as
        # it is placed (5.3); None once the round is open (the service's picture shows it)
        self.slip_session: TableSession | None = None
        self.tentative: tuple[Event, ...] = ()  # the service's tentative implied hit and its card
        # the open round's recorded events (transcript form)
        self.events: list[dict[str, Any]] = []
        self.recall: list[dict[str, Any]] = []  # the last rounds' settle output, newest first
        self.clocks: dict[str, int] | None = None  # the service's decision clocks (3.17); None: none
        # Electronic, as the service says: the seats paired to a Player Terminal (their players
        # decide there, 3.17), those whose terminal is connected now, and each seat whose terminal
        # a supervisor overrode this round (the dealer enters its decisions) with that supervisor
        self.paired: list[str] = []
        self.linked: list[str] = []
        self.overrides: dict[str, str] = {}
        self.restored = False  # the open round came back after a restart (5.29)
        self.face_up_next = False  # 5.5 reported for the next card
        self.last_refusal = ""
        self.last_refusal_text = ""
        self.shoe = ShoeInfo()
        self.told_output: dict[str, Any] = {}  # the service's settle output of the round shown
        self.hold_reason = ""  # the service's hold: no card is assigned until the dealer answers
        self.queued = 0  # cards waiting behind a held one (the service's queue)
        self.placement: str | None = None  # where the service places the next card ("to")
        self.store_error = ""
        self.stray_card: str | None = None  # a card the service holds until the dealer places it
        self.stray_reason = ""
        self.referred = ""  # the round was referred to the shift manager (6.1): why
        self.last_undo = ""  # what the last undo took back, for the dealer to see
        self.sent_slip: list[dict[str, Any]] = []  # the slip the service holds (in its memory only)
        # the log-in dialog again, when a restarted service cannot resume the shift (ui/dealer/app.py)
        self.login_lost: Callable[[], None] = lambda: None
        link.round_changed.connect(self.show_notified)
        link.shoe_changed.connect(self.show_shoe)
        link.closed.connect(self.on_service_closed)
        link.reconnected.connect(self.on_reconnected)

    @property
    def rnd(self) -> ShownRound | None:
        """The round on the table as the service told it, None before its state is read."""
        return self.shown

    @rnd.setter
    def rnd(self, value: ShownRound) -> None:
        """A round's picture put on the table as it is (a test's prepared shoe)."""
        self.shown = value

    @property
    def slip(self) -> list[dict[str, Any]]:
        """Wagers (and claims) before "no more bets", in transcript form."""
        return [event_to_transcript(e) for e in self.slip_session.slip] if self.slip_session is not None else []

    @property
    def implied(self) -> list[Event]:
        """The tentative implied hit and its card (empty when none), as the service holds them."""
        return list(self.tentative)

    @property
    def implied_held(self) -> bool:
        """The service holds the implied card since a restart: Hit or Double before anything else."""
        return bool(self.service_state.get("tentative_held"))

    @property
    def under_min(self) -> list[str]:
        """Players whose under-minimum wager was settled once at this table (5.26)."""
        return sorted(str(p) for p in self.service_state.get("under_min") or [])

    def _slip_session(self) -> TableSession:
        if self.slip_session is None:
            self.slip_session = TableSession(self.config or self.setup.config([]), self.under_min)
        return self.slip_session

    # ------------------------------------------------------------------ store
    def read_state(self, done: Callable[[bool], None] | None = None) -> None:
        """The service's state (its set-up, the round, the shoe), as a reply to ``state``."""
        try:
            state = self.link.ask(Op.STATE)
        except ServiceError as exc:
            self.store_error = exc.message
            self.store_failed.emit(exc.message)
            if done is not None:
                done(False)
            return
        self.show_state(state)
        if done is not None:
            done(True)

    @property
    def review_socket(self) -> Path:
        """The service's socket: the review reads its copy of the store (op ``snapshot``)."""
        return Path(self.link.path)

    def show_notified(self, state: object) -> None:
        """The service's ``round`` notification; the state this screen shows already (the
        service tells every screen after it answered this one) is not drawn again."""
        if state != self.service_state:
            self.show_state(state)

    def show_state(self, state: object) -> None:
        """The service's round as its engine made it (the picture), and the slip before the
        bets close as the service holds it."""
        if not isinstance(state, dict):
            return
        refused = str(state.get("refused") or state.get("store_error") or "")
        if refused and refused != self.store_error:
            self.store_error = refused
            self.store_failed.emit(refused)
        config = dict(state.get("config") or {})
        old = self.service_state
        try:
            shown, raw = self.shown, state.get("picture")
            if shown is None or raw != old.get("picture"):
                # the parts written as in the picture shown are taken from it (a card: one area)
                like = (old["picture"], shown.picture) if shown is not None and shown.raw is old.get("picture") else None
                shown = ShownRound(picture_from_json(raw, like), raw) if isinstance(raw, dict) else None
            slip_session = None
            if state.get("round_id") is None and state.get("betting"):
                slip_session = self.slip_session
                if (slip_session is None or self.slip != list(state.get("slip") or [])
                        or (old.get("config"), old.get("under_min")) != (config, state.get("under_min"))):
                    slip_session = TableSession(config, state.get("under_min") or ())
                    slip = [parse_event(e) for e in state.get("slip") or []]
                    if slip:
                        slip_session.set_slip(slip)  # the service's slip (the first card closes it, 5.3)
            tentative = tuple(parse_event(e) for e in state.get("tentative") or [])
        except (DealerAssistError, TranscriptError, KeyError) as exc:
            log.error("the service's round cannot be shown: %s", exc)
            self.refused.emit(f"the service's round cannot be shown: {exc}")
            return
        unread_before = int(self.service_state.get("unread") or 0)
        self.service_state = state
        self.shown, self.slip_session, self.tentative = shown, slip_session, tentative
        output = state.get("output")
        self.told_output = output if isinstance(output, dict) else {}
        self.config = config
        if isinstance(state.get("setup"), dict):
            self.setup = setup_from_json(state["setup"])  # the table's set-up is the service's
        self.round_id = state.get("round_id")
        if self.round_id is not None:
            self.sent_slip = []  # the bets closed: the slip is the round's now
        self.events = list(state.get("events") or [])
        referral = state.get("referral")
        self.referred = ""
        if isinstance(referral, dict):  # the dealer's words, and the clause (6.1) unless they name it
            text, rule = str(referral.get("text") or ""), str(referral.get("rule") or "")
            self.referred = text if not rule or f"({rule})" in text else f"{text} ({rule})"
        self.face_up_next = bool(state.get("face_up_next"))  # 5.5 reported for the next card
        self.placement = str(state["next_to"]) if state.get("next_to") else None
        self.restored = bool(state.get("restored"))  # the banner asks for the power failure (5.29)
        self.queued = int(state.get("queued") or 0)  # cards behind a held one, in the service's queue
        hold = str(state.get("hold") or "")
        stray = state.get("stray") or None
        held_changed = bool(referral) != self.was_referred or hold != self.hold_reason or (stray or {}).get("card") != self.stray_card \
            or int(state.get("unread") or 0) != unread_before
        self.hold_reason = hold
        self.was_referred = bool(referral)
        self.stray_card = str(stray["card"]) if isinstance(stray, dict) and stray.get("card") else None
        self.stray_reason = str(stray.get("reason", "")) if isinstance(stray, dict) else ""
        self.show_shoe(state.get("shoe") or {})
        clocks = state.get("clocks")
        self.clocks = {str(k): int(v) for k, v in clocks.items()} if isinstance(clocks, dict) else {}
        self.paired = [str(s) for s in state.get("paired") or []]
        self.linked = [str(s) for s in state.get("linked") or []]
        overrides = state.get("overrides")
        self.overrides = {str(k): str(v) for k, v in overrides.items()} if isinstance(overrides, dict) else {}
        recall = state.get("recall")
        if isinstance(recall, list) and recall != self.recall:
            self.recall = list(recall)  # the service's last rounds, newest first
            self.recall_changed.emit()
        self.changed.emit()
        if held_changed:
            self.hold_changed.emit()

    def show_shoe(self, shoe: object) -> None:
        if not isinstance(shoe, dict):
            return
        told = ShoeInfo(connected=bool(shoe.get("connected")), port=str(shoe.get("port", "")),
                        fault=str(shoe.get("fault", "")), faults=int(shoe.get("faults") or 0),
                        codec=str(shoe.get("codec", "")),
                        weak_checksum=bool(shoe.get("weak_checksum")),  # da1-xor: the status line says so
                        guaranteed=bool(shoe.get("guaranteed", True)), warning=str(shoe.get("warning") or ""),
                        empty=bool(shoe.get("empty")), reason=str(shoe.get("reason") or ""))
        told.ever_connected = self.shoe.ever_connected or told.connected
        if told == self.shoe:
            return
        self.shoe = told
        self.shoe_changed.emit()

    def on_service_closed(self) -> None:
        if not self.service_closed:
            self.service_closed = True
            self.store_error = (RECONNECTING if self.link.reconnect else
                                "the station service closed the connection: nothing more is recorded")
            self.store_failed.emit(self.store_error)

    def on_reconnected(self) -> None:
        """The service is back: the dealer's shift resumed, the round re-read from the service,
        the betting slip sent again if the restart lost it; nothing else is re-sent."""
        self.service_closed = False
        self.store_error = ""
        resumed = False
        if self.dealer and self.link.resume_token:
            try:
                self.link.client.request(Op.RESUME, token=self.link.resume_token)
                resumed = True
            except ServiceError as exc:
                log.warning("the shift of %s was not resumed: %s", self.dealer, exc.message)
        self.read_state()
        if resumed and self.sent_slip and not self.service_state.get("slip") \
                and self.service_state.get("betting") and self.service_state.get("round_id") is None:
            self.ask(Op.SET_SLIP, wagers=self.sent_slip)
        if self.dealer and not resumed:
            self.login_lost()

    @property
    def rules(self) -> GameRules:
        return GAMES[self.config.get("game", self.setup.game)]

    @property
    def current(self) -> ShownRound:
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
        """The round's settle output, as the service told it with the round shown (no second settle)."""
        return self.told_output

    @property
    def betting(self) -> bool:
        return self.round_id is None and self.slip_session is not None and self.slip_session.betting

    # ------------------------------------------------------------------ betting slip
    def place_wager(self, player: str, bet: str, amount: Decimal | float | int, area: int | None = None,
                    hand: int | None = None) -> bool:
        """A wager onto the slip if the rules accept it (checked by the engine); after the bets
        closed (a split hand's, 3.21.1 / 3.23.1) the service's op."""
        try:
            wager = Wager(player, bet, _amount(amount, "wager"),
                          area if area is not None and not self.setup.electronic else None, hand)
        except EventFormatError as exc:
            return self._refuse_text_only(exc.message)
        if not self.betting:
            return self.submit(wager)
        return self.slip_sent(self._rebuild_slip([*self._slip_session().slip, wager], wager))

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
        return self.slip_sent(self._rebuild_slip([*self._slip_session().slip, *new], new[-1] if new else None))

    def claim(self, bet: str, area: int, claimants: list[dict[str, Any]]) -> bool:
        """Players who have not agreed want the free slots of ``bet`` on ``area``: the engine decides."""
        try:
            claim = Claim(bet, area, tuple(Claimant(str(c["player"]), _amount(c["amount"], "claim"))
                                           for c in claimants))
        except EventFormatError as exc:
            return self._refuse_text_only(exc.message)
        return self.submit(claim)

    def remove_wager(self, index: int) -> bool:
        if not self.betting or not 0 <= index < len(self.slip):
            return False
        return self.slip_sent(self._rebuild_slip([w for i, w in enumerate(self._slip_session().slip) if i != index],
                                                 None))

    def change_wager(self, index: int, amount: Decimal | float | int) -> bool:
        if not self.betting or not 0 <= index < len(self.slip):
            return False
        slip: list[Event] = list(self._slip_session().slip)
        wager = slip[index]
        if not isinstance(wager, Wager):
            return False
        try:
            slip[index] = replace(wager, amount=_amount(amount, "wager"))
        except EventFormatError as exc:
            return self._refuse_text_only(exc.message)
        return self.slip_sent(self._rebuild_slip(slip, slip[index]))

    def clear_slip(self) -> None:
        if self.betting and self.slip:
            self.slip_sent(self._rebuild_slip([], None))

    def _rebuild_slip(self, slip: list[Event], new: Event | None) -> bool:
        try:
            self._slip_session().set_slip(slip)
        except RuleRefusal as exc:
            self._refuse(new if new is not None else slip[-1], exc)
            return False
        self.last_refusal = ""
        self.changed.emit()
        return True

    def no_more_bets(self) -> bool:
        """Close the bets (5.3): the service records the slip and *no more bets* as the round's start."""
        if not self.betting:
            return False
        return self.submit(NoMoreBets())

    # ------------------------------------------------------------------ input
    def ask(self, op: Op, quiet: bool = False, about: Event | None = None, **args: Any) -> bool:
        """One op; the reply's state shown; a refusal shown with the service's words (and the
        input it refused, ``about``)."""
        try:
            state = self.link.ask(op, **args)
        except ServiceError as exc:
            text = exc.message
            if exc.clause and f"({exc.clause}" not in text and exc.clause not in text:
                text = f"{text} ({exc.clause})"
            if quiet:
                self.last_refusal_text = text
            else:
                what = f" ({describe_event(event_to_transcript(about))})" if about is not None else ""
                self.last_refusal = f"Refused{what}: {text}"
                self.last_refusal_text = text
                self.refused.emit(self.last_refusal)
            return False
        self.last_refusal = ""
        self.accepted.emit()
        self.show_state(state)
        return True

    def submit(self, event: Event, actor: str | None = None, approval: int | None = None, *,
               quiet: bool = False) -> bool:
        if self.store_error:
            self.refused.emit(f"not recorded: {self.store_error}")
            return False
        if self.betting and event.type in ("wager", "claim"):  # the slip (5.3), checked by the engine
            return self.slip_sent(self._rebuild_slip([*self._slip_session().slip, event], event))
        raw = event_to_transcript(event)
        args = {k: v for k, v in raw.items() if k != "type"}
        if event.type == "no_more_bets":
            return self.ask(Op.NO_MORE_BETS, quiet)
        if event.type in INPUT_OPS:
            return self.ask(INPUT_OPS[event.type], quiet, event, **args)
        if event.type == "pick" and args.get("by") != "pit_manager":  # the player's own pick (5.23.1)
            return self.ask(Op.PICK, quiet, event, **args)
        if event.type in SUPERVISED_OPS:
            if approval is None:
                return self.say_refused("a supervisor's PIN is needed first")
            return self.ask(SUPERVISED_OPS[event.type], quiet, event, approval=approval, **args)
        if event.type == "card":
            return self.ask(Op.KEY_CARD, quiet, card=args.get("card"), to=args.get("to"))
        return self.say_refused(f"{event.type} is not taken through the station service")

    def say_refused(self, text: str) -> bool:
        self.last_refusal = f"Refused: {text}"
        self.refused.emit(self.last_refusal)
        return False

    # the slip: checked by the screen's engine as the dealer builds it, then sent whole to
    # the service (set_slip), which holds it until the bets close (no more bets or the first card)
    def slip_sent(self, ok: bool) -> bool:
        if not ok:
            return False
        wagers = [{k: v for k, v in event_to_transcript(w).items() if k != "type" or v != "wager"}
                  for w in (self.slip_session.slip if self.slip_session is not None else ())]  # a claim keeps its type
        if self.ask(Op.SET_SLIP, wagers=wagers):
            self.sent_slip = wagers
            return True
        self.show_state(self.service_state)  # the service's slip, as it was
        return False

    def confirm_settlement(self) -> bool:
        if self.rnd is None or not self.concluded:
            return False
        return self.ask(Op.NEXT_ROUND)

    # ------------------------------------------------------------------ the cards the service holds
    def confirm_implied_hit(self) -> bool:
        return bool(self.implied) and self.ask(Op.CONFIRM_HIT)

    def double_last_card(self, amount: Decimal | float | None = None) -> bool:
        if not self.implied:
            return False
        return self.ask(Op.DOUBLE_LAST_CARD, amount=str(amount) if amount is not None else None)

    def place_stray(self, target: str) -> bool:
        return self.stray_card is not None and self.ask(Op.PLACE_CARD, to=target)

    def place_next_card(self, target: str | None) -> None:
        """Where the next card lies: the service places the next card from the shoe there."""
        self.ask(Op.PLACE_NEXT, to=target)

    def report_face_up(self) -> None:
        self.ask(Op.FACE_UP)  # 5.5: the service turns the next card face up

    def release_hold(self, keyed_card: str | None = None, approval: int | None = None,
                     supervisor: str | None = None) -> bool:
        """The dealer checked the table: the card keyed in (an unread one by its number, with a
        supervisor's ``key_card`` approval, 5.1), or none missing."""
        if not keyed_card:
            return self.ask(Op.RELEASE_HOLD)
        extra: dict[str, Any] = {} if approval is None else {"approval": approval}
        unread = [f["seq"] for f in self.service_state.get("in_flight") or [] if f.get("card") == "?"]
        if unread and self.hold_unread:  # the hold is the unread card's (not a card lost before it)
            return self.ask(Op.KEY_CARD, card=keyed_card.strip(), seq=unread[0], **extra)
        return self.ask(Op.KEY_CARD, card=keyed_card.strip(), **extra)

    @property
    def hold_unread(self) -> int:
        """The unread cards the service counts (5.1): the hold's Re-read (one) and Key in (PIN)."""
        return int(self.service_state.get("unread") or 0) if self.hold_reason else 0

    def reread(self) -> bool:
        """The unread card goes through the shoe's reader again: the service takes the next
        card read as that card, or refuses naming 5.1 (a card came out after it)."""
        return self.ask(Op.REREAD)

    # ------------------------------------------------------------------ undo (issue 24 item 4)
    def undo(self, supervisor: str | None = None, approval: int | None = None) -> bool:
        """The service takes the last input back (op ``take_back``) and audits it; more with a
        supervisor's ``undo`` approval."""
        if supervisor is not None and approval is None:
            return self.say_refused("taking back more needs a supervisor's PIN")
        extra: dict[str, Any] = {} if approval is None else {"approval": approval}
        done = self.ask(Op.TAKE_BACK, **extra)
        if done:
            what = str(self.service_state.get("taken_back") or "")
            self.last_undo = "Taken back" + (f": {what}" if what else "") + (f" (by {supervisor})" if supervisor else "")
        return done

    # ------------------------------------------------------------------ referral (6.1)
    def refer(self, text: str) -> None:
        """6.1: the service records the referral (audited, the round "referred", no card assigned)."""
        self.ask(Op.REFER, text=text)

    def resolve_referral(self, ruling: str, supervisor: str, approval: int | None = None) -> bool:
        """The shift manager's decision (continue / void), under the PIN the service checked."""
        if not self.service_state.get("referral") and not (self.rnd is not None and self.rnd.status() == "referred"):
            return False
        if approval is None:
            return self.say_refused("a supervisor's PIN is needed first")
        return self.ask(Op.RESOLVE, ruling=ruling, text=f"Shift manager {supervisor}: {ruling}", approval=approval)

    # ------------------------------------------------------------------ the table's set-up
    def apply_setup(self, setup: TableSetup, approval: int | None = None) -> bool:
        """The service changes the set-up (op ``set_table``) under the supervisor's approval;
        its refusal names the clause and leaves the set-up as it was."""
        if approval is None:
            return self.say_refused("a supervisor's PIN is needed to change the table's set-up")
        return self.ask(Op.SET_TABLE, setup=setup_to_json(setup), approval=approval)

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

    def override_terminal(self, seat: str, approval: int | None) -> bool:
        """A supervisor's override of ``seat``'s Player Terminal that cannot be used (op
        ``terminal_override``, ``approval`` of kind ``override`` from :meth:`approve`): the
        service then takes the dealer's decisions for that seat this round (3.17)."""
        if approval is None:
            return self.say_refused("a supervisor's PIN is needed first")
        return self.ask(Op.TERMINAL_OVERRIDE, seat=seat, approval=approval)

    def void(self, reason: str, rule: str, supervisor: str, approval: int | None = None) -> bool:
        """A supervisor's void (``approval`` from :meth:`approve`; the store refuses it without)."""
        return self.submit(Void(reason, rule), actor=f"supervisor:{supervisor}", approval=approval)

    def undo_refusal(self, *, supervisor: bool = False) -> str:
        """Why an undo would be refused now ("" if it would not), as the service's engine rules
        it (op take_back_check, asked when the dealer presses Undo)."""
        if self.shown is None:
            return "the table has no round yet"
        try:
            refusals = self.link.ask(Op.TAKE_BACK_CHECK)
        except ServiceError as exc:
            return exc.message
        return str(refusals["supervisor" if supervisor else "dealer"])

    def _refuse_text(self, event: Event, text: str) -> None:
        self.last_refusal = f"Refused ({describe_event(event_to_transcript(event))}): {text}"
        self.refused.emit(self.last_refusal)

    @property
    def hold_text(self) -> str:
        """What the hold banner says (the service's words, naming the clause)."""
        return self.hold_reason

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

    def can_double_last_card(self) -> bool:
        return bool(self.implied)

    def power_failure_players(self) -> tuple[list[str], str, bool]:
        """After a power failure in this round: the players still to say whether they withdraw
        or stay, the clause, and whether the game lets them withdraw, as the service has them
        (engine/power_failure.py)."""
        answers = self.service_state.get("power_failure")
        if not isinstance(answers, dict):
            return [], "", False
        return ([str(p) for p in answers.get("players") or []], str(answers.get("rule") or ""),
                bool(answers.get("withdraw", True)))

    def stays(self, player: str) -> bool:
        """``player`` stays in the round after its power failure (op power_stays, audited)."""
        return self.ask(Op.POWER_STAYS, player=player)

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


    # ------------------------------------------------------------------ what the service does itself
    def approve(self, supervisor: str, pin: str, kind: str, done: Callable[[Any], None],
                detail: dict[str, Any] | None = None) -> None:
        self.jobs.approve(supervisor, pin, kind, done, detail)

    def change_pin(self, name: str, old_pin: str, new_pin: str, done: Callable[[PinCheck], None]) -> None:
        self.jobs.change_pin(name, old_pin, new_pin, done)

    def start_shift(self, dealer: str) -> None:
        self.dealer = dealer  # the service logged this connection in (op login)

    def end_shift(self, dealer: str) -> None:
        self.link.resume_token = ""
        self.dealer = ""
        self.link.request(Op.LOGOUT)

    def close(self) -> None:
        self.link.close()


def _amount(amount: Decimal | float | int, what: str) -> Decimal:
    """An amount from a widget as the exact Decimal a typed event holds (money.parse_amount:
    whole cents, not above the largest amount); EventFormatError quoting it otherwise."""
    try:
        return parse_amount(amount)
    except AmountError as exc:
        raise EventFormatError(f"{what}: {exc}") from None


