"""The station service's ops: one registry, the only list of them (issue 33, build 3).

Each op is one entry: its name (:class:`Op`), its handler (one method of
``dealer_assist.service.table.TableService``, registered with :func:`handler`, as
Supervisor's rpcinterface keeps one method per call), its typed request and reply
(``TypedDict``: the wire stays plain JSON, no schema library), the permission it needs
(:class:`Permission`, checked by the service from the entry) and its doc line (the handler's
docstring). The service dispatches only from :data:`REGISTRY`; clients name ops by
:class:`Op`; docs/station.md's ops table is written from it (scripts/ops_table.py).

This module imports nothing of the table: the handlers register themselves when
``dealer_assist.service.table`` is imported (which checks that every op has one).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, NotRequired, TypedDict, TypeVar

from dealer_assist.service.protocol import ProtocolError

__all__ = [
    "INPUT_EVENTS", "REGISTRY", "SUPERVISED_EVENTS", "Credential", "Entry", "Op", "Permission", "ShoeCountReply",
    "NoteReply", "NoteRequest", "PlayerRequest", "SideBetEdge", "TableState", "TakeBackCheckReply", "TerminalOverrideRequest", "check_complete", "check_fields",
    "handler", "ops_table",
]


class Op(enum.StrEnum):
    """Every op's name, as it is sent (``{"op": NAME}``)."""

    STATE = "state"
    ENROL = "enrol"
    LOGIN = "login"
    RESUME = "resume"
    LOGOUT = "logout"
    UNLOCK = "unlock"
    USERS = "users"
    ADD_ACCOUNT = "add_account"
    CHANGE_PIN = "change_pin"
    APPROVE = "approve"
    SET_DISABLED = "set_disabled"
    RESET_PIN = "reset_pin"
    SNAPSHOT = "snapshot"
    END_REVIEW = "end_review"
    ROUND_INTEGRITY = "round_integrity"
    ROOT_UNLOCK = "root_unlock"
    WAGER = "wager"
    CLAIM = "claim"
    DECIDE = "decide"
    CLOSE_OFFERS = "close_offers"
    TIMEOUT = "timeout"
    ABSENT = "absent"
    WITHDRAW = "withdraw"
    POWER_FAILURE = "power_failure"
    VOID = "void"
    RESOLVE = "resolve"
    CORRECT = "correct"
    PICK = "pick"
    REFER = "refer"
    NO_MORE_BETS = "no_more_bets"
    SET_SLIP = "set_slip"
    TAKE_BACK = "take_back"
    TAKE_BACK_CHECK = "take_back_check"
    KEY_CARD = "key_card"
    PLACE_CARD = "place_card"
    PLACE_NEXT = "place_next"
    DOUBLE_LAST_CARD = "double_last_card"
    CONFIRM_HIT = "confirm_hit"
    FACE_UP = "face_up"
    NEXT_ROUND = "next_round"
    RELEASE_HOLD = "release_hold"
    REREAD = "reread"
    SET_ASIDE = "set_aside"
    SIM_DEAL = "sim_deal"
    SET_TABLE = "set_table"
    SEAT = "seat"
    SHOE_COUNT = "shoe_count"
    BUY_IN = "buy_in"
    CASH_OUT = "cash_out"
    TERMINAL_OVERRIDE = "terminal_override"
    POWER_STAYS = "power_stays"
    ADD_NOTE = "add_note"


# The inputs that are transcript events, by op: the op names the event's type, the client
# never does (spec/round-script.md); those under a supervisor's PIN with the approval's kind
# (docs/store.md, the authority table).
INPUT_EVENTS: dict[Op, str] = {
    Op.WAGER: "wager", Op.CLAIM: "claim", Op.DECIDE: "decision", Op.CLOSE_OFFERS: "close_offers",
    Op.TIMEOUT: "timeout", Op.ABSENT: "absent", Op.WITHDRAW: "withdraw", Op.POWER_FAILURE: "power_failure",
}
SUPERVISED_EVENTS: dict[Op, tuple[str, str]] = {
    Op.VOID: ("void", "void"), Op.RESOLVE: ("resolve", "resolve"), Op.CORRECT: ("correction", "correction"),
    Op.PICK: ("pick", "override"),
}


class Permission(enum.Enum):
    """Who may call an op; the service checks it from the entry before the handler runs
    (and before any PIN in the request is checked: no PIN is checked for nobody)."""

    ANYONE = "anyone connected"
    SIGNED_IN = "a logged-in dealer, or a supervisor's `accounts` approval on this connection"
    DEALER = "the logged-in dealer"
    SUPERVISOR = "the logged-in dealer, with a supervisor's PIN (`pin`) or approval (`approval`)"
    SUPERVISOR_PIN = "a supervisor's PIN (`pin`) or approval (`approval`); no log-in needed"
    ROOT = "root only (SO_PEERCRED uid 0)"
    TERMINAL = "a player terminal paired to a seat (TLS certificate), for its own seat only"
    DEALER_OR_TERMINAL = ("the logged-in dealer; or a player terminal paired to a seat, for its own seat "
                          "only (`player` its seat, 1.1.10)")


# ------------------------------------------------------------------ requests
class Credential(TypedDict):
    """A supervisor's PIN in a request: checked first, on the PIN worker."""

    user: str
    pin: str


class NoArgs(TypedDict):
    pass


class EnrolRequest(TypedDict, total=False):
    name: str
    pin: str
    code: str


class LoginRequest(TypedDict, total=False):
    name: str
    pin: str


class TokenRequest(TypedDict, total=False):
    token: str


class UnlockRequest(TypedDict, total=False):
    name: str
    pin: Credential
    approval: int


class RootUnlockRequest(TypedDict, total=False):
    name: str


class AddAccountRequest(TypedDict, total=False):
    name: str
    new_pin: str
    roles: list[str]
    pin: Credential
    approval: int | None


class ChangePinRequest(TypedDict, total=False):
    name: str
    old_pin: str
    new_pin: str


class ApproveRequest(TypedDict, total=False):
    user: str
    pin: str
    kind: str
    detail: dict[str, Any]


class SetDisabledRequest(TypedDict, total=False):
    name: str
    disabled: bool
    pin: Credential
    approval: int | None


class ResetPinRequest(TypedDict, total=False):
    name: str
    new_pin: str
    pin: Credential
    approval: int | None


class SnapshotRequest(TypedDict, total=False):
    pin: Credential
    approval: int
    token: str


class EventRequest(TypedDict, total=False):
    """The transcript's fields of the event the op names (spec/round-script.md), checked as
    the transcript checks them."""


class SupervisedRequest(TypedDict, total=False):
    """The event's fields, with a supervisor's PIN or approval."""

    pin: Credential
    approval: int
    rule: str
    text: str
    ruling: str


class ReferRequest(TypedDict, total=False):
    text: str


class SlipRequest(TypedDict, total=False):
    wagers: list[dict[str, Any]]


class TakeBackRequest(TypedDict, total=False):
    pin: Credential
    approval: int | None


class TakeBackCheckReply(TypedDict):
    """Why an undo would be refused now (op ``take_back_check``): the dealer's, and with a
    supervisor's PIN; "" when it would be taken back (engine/retraction.py)."""

    dealer: str
    supervisor: str


class KeyCardRequest(TypedDict, total=False):
    card: str
    seq: int | None
    to: str | None
    pin: Credential
    approval: int | None


class PlaceCardRequest(TypedDict, total=False):
    to: str


class PlaceNextRequest(TypedDict, total=False):
    to: str | None


class DoubleRequest(TypedDict, total=False):
    amount: str | None


class SetAsideRequest(TypedDict, total=False):
    seq: int | None
    card: str
    pin: Credential
    approval: int | None


class SimDealRequest(TypedDict, total=False):
    burn: bool
    fault: str


class ShoeCountRequest(TypedDict, total=False):
    pin: Credential
    approval: int | None


class BuyInRequest(TypedDict, total=False):
    """Credits bought at a terminal (1.1.10): its `seat` (a terminal's own, filled in), the
    `amount` (more than 0, to the cent), a supervisor's PIN or approval (`buy_in`)."""

    seat: str
    amount: str | int | float
    pin: Credential
    approval: int | None


class NoteRequest(TypedDict, total=False):
    """A supervisor's note: its `text`, the round it is on (`round_id`; none: the table), the
    supervisor's PIN (`pin`)."""

    round_id: int | None
    text: str
    pin: Credential


class NoteReply(TypedDict):
    note: int  # the audit entry's id


class PlayerRequest(TypedDict, total=False):
    """One `player` of the round."""

    player: str


class TerminalOverrideRequest(TypedDict, total=False):
    """A supervisor's override of a seat's Player Terminal that cannot be used: its `seat`, a
    supervisor's PIN (`pin`) or approval (`override`)."""

    seat: str
    pin: Credential
    approval: int | None


class SetTableRequest(TypedDict, total=False):
    setup: dict[str, Any]
    pin: Credential
    approval: int | None


# ------------------------------------------------------------------ replies
class Expectation(TypedDict):
    kind: str
    target: str | None
    area: int | None
    hand: int | None
    player: str | None
    options: list[str]
    rule: str | None
    text: str | None


class CardInFlight(TypedDict):
    seq: int
    card: str


class TableState(TypedDict):
    """The table as the service shows it (op ``state``, every table op's reply and the
    ``round`` notification). ``version`` counts the service's changes since it started: a
    newer state has a greater one."""

    version: int
    refused: str
    store_error: str
    round_id: int | None
    betting: bool
    config: dict[str, Any]
    events: list[dict[str, Any]]
    slip: list[dict[str, Any]]
    tentative: list[dict[str, Any]]
    tentative_held: bool
    expect: Expectation
    output: dict[str, Any]
    # the round as the engine made it (engine/picture.py): the layout, what it waits for, the
    # settlements and rulings, the shoe's count; the screen draws it and works nothing out again
    picture: dict[str, Any]
    concluded: bool
    hold: str
    unread: int  # cards out of the shoe unread and not accounted for yet (5.1): the hold's Re-read, Key in (PIN)
    gap: dict[str, Any] | None
    referral: dict[str, Any] | None
    queued: int
    stray: dict[str, Any] | None
    in_flight: list[CardInFlight]
    under_min: list[str]
    shoe: dict[str, Any]
    floor: dict[str, Any] | None
    needs_enrolment: bool
    simulated_shoe: bool
    sim_faults: list[tuple[str, str]]  # what the simulated shoe can do (sim_deal's `fault`)
    setup: dict[str, Any]
    recall: list[dict[str, Any]]
    restored: bool  # the open round came back after a restart, no power failure recorded yet (5.29)
    next_to: str | None  # where the dealer said the next card out of the shoe lies (op place_next)
    face_up_next: bool  # 5.5 reported: the next card out of the shoe was face up
    taken_back: str  # the last take-back (op take_back) in words, e.g. "stand by p1"
    clocks: dict[str, int]  # Electronic: each pending seat's seconds left to decide (3.17), as the service counts  # the last rounds taken off the table, newest first: {"round": id, **settle output}
    paired: list[str]  # Electronic: the seats paired to a Player Terminal: their players decide there (3.9, 3.17)
    linked: list[str]  # of them, the seats whose terminal is connected now (one that is not: 5.9)
    overrides: dict[str, str]  # seat -> the supervisor whose override lets the dealer enter its decisions this round
    # after a power failure in the round (5.29): the players still to say whether they withdraw
    # or stay, and the clause; None when nobody has to answer
    power_failure: dict[str, Any] | None
    enrol_code_needed: NotRequired[bool]  # op state only: this connection's enrolment needs root's code


class EnrolReply(TypedDict):
    enrolled: str
    approval: int


class LoginReply(TypedDict):
    dealer: str
    resume: str


class DealerReply(TypedDict):
    dealer: str


class NameReply(TypedDict, total=False):
    unlocked: str
    cleared: bool
    added: str
    changed: str
    reset: str
    name: str
    disabled: bool
    ended: bool


class ApprovalReply(TypedDict):
    approval: int
    user: str


class UserRow(TypedDict, total=False):
    username: str
    roles: list[str]
    disabled: bool
    must_change: bool
    locked_until: str | None


class RoundIntegrityRequest(TypedDict, total=False):
    token: str
    round_id: int


class IntegrityCheckReply(TypedDict):
    """One check of op ``round_integrity`` (dealer_assist/store/review_queries.round_integrity)."""

    name: str
    ok: bool
    detail: str
    checked: bool


class RoundIntegrityReply(TypedDict):
    round_id: int
    checks: list[IntegrityCheckReply]


class SnapshotReply(TypedDict, total=False):
    snapshot: bool
    supervisor: str
    token: str
    expires: str


class SideBetEdge(TypedDict):
    """One side bet's figure in ``shoe_count`` (protect/removal.py ``side_bet_edges``)."""

    name: str  # the wager as the pit reads it ("Insurance, if the dealer's first card is an Ace")
    edge: float | None  # the player's expected return per unit on the next round's wager; None: not worked out
    fraction: str | None  # the same as an exact fraction ("-1/8"), where the enumeration is in fractions
    method: str  # how it was worked out, or why not
    on_main: bool  # a bonus paid on the main wager (6-7-8): per unit of main wager, inside ``edge`` of the reply


class ShoeCountReply(TypedDict):
    """The shoe in play's count (op ``shoe_count``; dealer_assist/service/shoe_count.py)."""

    game: str
    decks: int
    shoe: str | None  # None: shuffled during the round, the next round deals from a new shoe
    cards_out: int  # left the shoe since its shuffle, burns and cards in flight included
    on_record: int  # of them, the cards whose faces are on record (counted)
    decks_remaining: float | None
    running_count: int | None
    true_count: float | None
    edge: float | None  # the player's expected return on the next round's main wager (estimate)
    count: dict[str, Any] | None  # name, tags by point value, betting_correlation, source
    side_bets: dict[str, SideBetEdge]  # each side bet, the main bonus, insurance_ace_up: from the cards left
    note: str  # why there is no count ("" when there is one)
    supervisor: str


# ------------------------------------------------------------------ the registry
Handler = Callable[[Any, Any, dict[str, Any]], Any]  # (service, client, args) -> reply
F = TypeVar("F", bound=Handler)


@dataclass(frozen=True)
class Entry:
    """One op: its handler and how the service runs it."""

    op: Op
    run: Handler
    request: type[Any]
    reply: Any  # a TypedDict, or list[...] of one
    permission: Permission
    doc: str
    table: bool = False  # a table op: rules refusals mapped, the held cards released, the screens told
    locked: bool = True  # under the table's lock (False: an account op touching no table state)
    pin_worker: bool = False  # (off the lock) run on the PIN worker: it hashes a new PIN
    during_referral: bool = False  # a table op taken while the round is referred (6.1)
    open_fields: bool = False  # the request's fields are an event's (checked by the transcript)
    terminal: bool = False  # a player terminal may call it (terminal_server.py; all others are the screens')
    # a review service serves it too (``station serve --review FILE``: a store's review, no
    # table; every other op is refused there)
    review: bool = False

    @property
    def fields(self) -> tuple[str, ...]:
        """The request's fields, as its TypedDict declares them."""
        keys: Mapping[str, Any] = getattr(self.request, "__annotations__", {})
        return tuple(keys)


REGISTRY: dict[str, Entry] = {}


def handler(op: Op, permission: Permission, request: type[Any], reply: Any, **how: bool) -> Callable[[F], F]:
    """Register the decorated method as ``op``'s one handler (its docstring is its doc line)."""

    def register(run: F) -> F:
        if op in REGISTRY:
            raise RuntimeError(f"op {op} has two handlers: {REGISTRY[op].run.__qualname__} and {run.__qualname__}")
        doc = " ".join((run.__doc__ or "").split("\n\n")[0].split())
        REGISTRY[op] = Entry(op, run, request, reply, permission, doc, **how)
        return run

    return register


def check_complete() -> None:
    """Every op has its handler, each with a doc line (called once the handlers are registered)."""
    missing = [str(op) for op in Op if op not in REGISTRY]
    undocumented = [str(op) for op, e in REGISTRY.items() if not e.doc]
    if missing or undocumented:
        raise RuntimeError(f"ops without a handler: {missing}; handlers without a doc line: {undocumented}")


def check_fields(entry: Entry, args: dict[str, Any]) -> None:
    """A request's fields are its op's (an unknown one is refused, naming the known ones)."""
    if entry.open_fields:
        return
    unknown = sorted(set(args) - set(entry.fields))
    if unknown:
        known = ", ".join(entry.fields) or "no fields"
        raise ProtocolError("bad_request", f"op {entry.op} takes {known}; not {', '.join(unknown)}")


def ops_table() -> str:
    """docs/station.md's ops table, written from the registry (scripts/ops_table.py)."""
    rows = ["| op | request | who | what it does |", "| --- | --- | --- | --- |"]
    for op in Op:
        entry = REGISTRY[op]
        fields = "the event's fields" if entry.open_fields else ""
        named = ", ".join(f"`{f}`" for f in entry.fields)
        args = ", ".join(x for x in (fields, named) if x) or "—"
        doc = entry.doc.replace('|', '/') + (" *A review service serves it too.*" if entry.review else "")
        rows.append(f"| `{op}` | {args} | {entry.permission.value} | {doc} |")
    return "\n".join(rows) + "\n"
