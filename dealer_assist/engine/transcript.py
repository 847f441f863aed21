"""Round transcripts (spec/round-script.md): JSON in, events; round state out, JSON.

``settle_document(doc)`` is what `dealer-assist settle` runs: it parses the table,
applies every event in order and returns the output object, or raises
:class:`TranscriptError` naming the event and the clause that refused it.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Callable, Mapping
from decimal import Decimal
from typing import Any, Final

from dealer_assist.base.cards import Card, CardNotationError, parse_card
from dealer_assist.base.errors import EventFormatError, RuleRefusal, TranscriptError
from dealer_assist.base.money import AmountError, parse_amount, shown_number, to_json_number
from dealer_assist.engine.events import (
    DECISION_ACTIONS,
    Absent,
    Burn,
    CardDrawn,
    Claim,
    Claimant,
    CloseOffers,
    Correction,
    Decision,
    Event,
    Multi,
    NoMoreBets,
    Pick,
    PowerFailure,
    Resolve,
    Target,
    Timeout,
    Void,
    Wager,
    Withdraw,
)
from dealer_assist.engine.outcome import Expectation, Settlement
from dealer_assist.engine.round_api import Round
from dealer_assist.games import GAMES, GameRules

# ---------------------------------------------------------------------- parsing
# A JSON number with cents reaches the parsers as a Decimal (json.loads(parse_float=Decimal),
# spec "Amounts are JSON numbers. Arithmetic is exact"); a caller in the program may pass
# an int or a float.
_NUMBER = (int, float, Decimal)
# Python refuses to read longer integers (sys.int_info.default_max_str_digits).
MAX_NUMBER_DIGITS = 4300


def escape_text(text: str, limit: int = 60) -> str:
    """``text`` quoted for a one-line message: control characters, line breaks, lone
    surrogates and other unprintable characters escaped (``\\n``, ``\\x00``, ``\\ud800``),
    any printable character kept; cut after ``limit`` characters."""
    out: list[str] = []
    for ch in text[:limit]:
        if ch == "\\" or ch == "'":
            out.append("\\" + ch)
        elif ch.isprintable():
            out.append(ch)
        else:
            code = ord(ch)
            out.append({"\n": "\\n", "\r": "\\r", "\t": "\\t"}.get(ch)
                       or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000
                           else f"\\U{code:08x}"))
    more = f"… ({len(text)} characters)" if len(text) > limit else ""
    return "'" + "".join(out) + "'" + more


def _shown(value: Any) -> str:
    """A value as an error line quotes it (escaped, short)."""
    if isinstance(value, str):
        return escape_text(value)
    if isinstance(value, (int, Decimal)) and not isinstance(value, bool):
        return shown_number(value)
    text = repr(value)
    return escape_text(text) if len(text) > 60 or not text.isprintable() else text


# The surrogate range, made with chr(): mypyc compiles no surrogate in a string literal.
_SURROGATE_LOW: Final = chr(0xD800)
_SURROGATE_HIGH: Final = chr(0xDFFF)


def bad_character(text: str) -> str | None:
    """Why ``text`` cannot be a name in a transcript, or None: a lone surrogate (not
    Unicode) or a control character / line break (a name is one line of text)."""
    if text.isprintable():  # the usual case, at C speed: no Cc, Zl, Zp or Cs character
        return None
    for ch in text:
        if _SURROGATE_LOW <= ch <= _SURROGATE_HIGH:
            return f"a lone surrogate ({escape_text(ch)}) is not a Unicode character"
        if unicodedata.category(ch) in ("Cc", "Zl", "Zp"):
            return f"a control character or line break ({escape_text(ch)}) cannot be in a name"
    return None


def _require(obj: Mapping[str, Any], key: str, kind: type | tuple[type, ...], what: str) -> Any:
    if key not in obj:
        raise EventFormatError(f"{what} needs '{key}'")
    value = obj[key]
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        raise EventFormatError(f"{what}: '{key}' has the wrong type ({_shown(value)})")
    if isinstance(value, str):
        why = bad_character(value)
        if why is not None:
            raise EventFormatError(f"{what}: '{key}' {_shown(value)}: {why}")
    return value


def _optional(obj: Mapping[str, Any], key: str, kind: type | tuple[type, ...], what: str) -> Any:
    if obj.get(key) is None:
        return None
    return _require(obj, key, kind, what)


def _card(value: Any) -> Card:
    try:
        return parse_card(value)
    except CardNotationError as exc:
        raise EventFormatError(str(exc)) from None


def _amount(value: Any, what: str) -> Decimal:
    try:
        return parse_amount(value)
    except AmountError as exc:
        raise EventFormatError(f"{what}: {exc}") from None


def parse_target(text: Any) -> Target:
    """``area:3``, ``area:3/2``, ``dealer``, ``discard``, ``player``, ``shoe``."""
    if not isinstance(text, str):
        raise EventFormatError(f"'to' must be text like \"area:3/1\", not {text!r}")
    if text in ("dealer", "discard", "player", "shoe"):
        return Target(text)
    if text.startswith("area:"):
        rest = text[5:]
        area_s, _, hand_s = rest.partition("/")
        try:
            area = int(area_s)
            hand = int(hand_s) if hand_s else 1
        except ValueError:
            raise EventFormatError(f"'{text}' is not a place: write area:N or area:N/H") from None
        if area < 1 or hand < 1:
            raise EventFormatError(f"'{text}' is not a place: areas and hands count from 1")
        return Target("area", area, hand)
    raise EventFormatError(f"'{text}' is not a place: write area:N/H, dealer, discard or player")


def parse_event(raw: Any) -> Event:
    """One transcript event object as an :data:`Event`."""
    if not isinstance(raw, dict):
        raise EventFormatError("an event is a JSON object")
    kind = raw.get("type")
    parser = _EVENT_PARSERS.get(kind) if isinstance(kind, str) else None
    if parser is None:
        raise EventFormatError(f"unknown event type {kind!r}")
    return parser(raw)


def _int_or_none(raw: Mapping[str, Any], key: str, what: str) -> int | None:
    value = _optional(raw, key, int, what)
    return int(value) if value is not None else None


def _p_wager(raw: dict[str, Any]) -> Event:
    w = "wager"
    return Wager(
        player=_require(raw, "player", str, w),
        bet=_require(raw, "bet", str, w),
        amount=_amount(_require(raw, "amount", _NUMBER, w), w),
        area=_int_or_none(raw, "area", w),
        hand=_int_or_none(raw, "hand", w),
    )


def _p_claim(raw: dict[str, Any]) -> Event:
    w = "claim"
    items = _require(raw, "claimants", list, w)
    claimants = []
    for item in items:
        if not isinstance(item, dict):
            raise EventFormatError("claim: each claimant is {\"player\": ..., \"amount\": ...}")
        claimants.append(Claimant(_require(item, "player", str, w),
                                  _amount(_require(item, "amount", _NUMBER, w), w)))
    if not claimants:
        raise EventFormatError("claim: no claimants")
    return Claim(bet=_require(raw, "bet", str, w), area=_require(raw, "area", int, w),
                 claimants=tuple(claimants), declined_by=_optional(raw, "declined_by", str, w))


def _p_decision(raw: dict[str, Any]) -> Event:
    w = "decision"
    action = _require(raw, "action", str, w)
    if action not in DECISION_ACTIONS:
        raise EventFormatError(f"decision: unknown action {action!r}")
    amount = raw.get("amount")
    followers_raw = _optional(raw, "followers", dict, w) or {}
    followers: list[tuple[str, str | Decimal]] = []
    for player, value in followers_raw.items():
        why = bad_character(player)
        if why is not None:
            raise EventFormatError(f"decision: follower {_shown(player)}: {why}")
        if isinstance(value, str):
            followers.append((player, value))
        else:
            followers.append((player, _amount(value, f"decision: follower {_shown(player)}")))
    return Decision(
        action=action,
        area=_int_or_none(raw, "area", w),
        hand=_int_or_none(raw, "hand", w),
        player=_optional(raw, "player", str, w),
        amount=_amount(amount, w) if amount is not None else None,
        followers=tuple(followers),
    )


def _p_card(raw: dict[str, Any]) -> Event:
    to = raw.get("to")
    face_up = raw.get("face_up", False)
    if not isinstance(face_up, bool):
        raise EventFormatError("card: 'face_up' is true or false")
    seq = raw.get("shoe_seq")
    # shoe_seq is kept for the review and read by no rule: a value that is not a whole
    # number is ignored, as settle always did (the spec does not have the field)
    return CardDrawn(_card(_require(raw, "card", str, "card")), parse_target(to) if to is not None else None,
                     face_up, seq if isinstance(seq, int) and not isinstance(seq, bool) else None)


def _p_multi(raw: dict[str, Any]) -> Event:
    w = "multi"
    cards = tuple(_card(c) for c in _require(raw, "cards", list, w))
    disclosed = tuple(_card(c) for c in _require(raw, "disclosed", list, w))
    if len(cards) < 2:
        raise EventFormatError("multi: at least two cards left the shoe together")
    return Multi(cards, disclosed, bool(raw.get("order_known", False)))


def _p_pick(raw: dict[str, Any]) -> Event:
    w = "pick"
    by = _require(raw, "by", str, w)
    if by not in ("player", "pit_manager"):
        raise EventFormatError("pick: 'by' is player or pit_manager")
    return Pick(_card(_require(raw, "card", str, w)), by, _optional(raw, "player", str, w))


def _p_resolve(raw: dict[str, Any]) -> Event:
    ruling = _require(raw, "ruling", str, "resolve")
    if ruling not in ("continue", "void"):
        raise EventFormatError("resolve: 'ruling' is continue or void")
    return Resolve(ruling, str(raw.get("text", "")))


_EVENT_PARSERS: dict[str, Callable[[dict[str, Any]], Event]] = {
    "wager": _p_wager,
    "claim": _p_claim,
    "no_more_bets": lambda raw: NoMoreBets(),
    "burn": lambda raw: Burn(_card(_require(raw, "card", str, "burn"))),
    "card": _p_card,
    "multi": _p_multi,
    "pick": _p_pick,
    "correction": lambda raw: Correction(_require(raw, "index", int, "correction"),
                                         parse_target(_require(raw, "to", str, "correction"))),
    "decision": _p_decision,
    "close_offers": lambda raw: CloseOffers(),
    "timeout": lambda raw: Timeout(_require(raw, "player", str, "timeout")),
    "absent": lambda raw: Absent(_require(raw, "player", str, "absent")),
    "power_failure": lambda raw: PowerFailure(),
    "withdraw": lambda raw: Withdraw(_require(raw, "player", str, "withdraw"),
                                     _int_or_none(raw, "area", "withdraw")),
    "void": lambda raw: Void(str(raw.get("reason", "")), str(raw.get("rule", "5.1"))),
    "resolve": _p_resolve,
}


def describe_event(raw: Any) -> str:
    """Short words for an event in an error line: ``decision double, area 3``."""
    if not isinstance(raw, dict):
        return "not an object"
    def show(value: Any) -> str:  # as it is, unless it could break the line or is too long
        text = value if isinstance(value, str) else _shown(value)
        return text if text.isprintable() and len(text) <= 60 else _shown(value)

    kind = raw.get("type", "?")
    parts = [show(kind) if kind != "decision" else f"decision {show(raw.get('action', '?'))}"]
    if kind == "wager" and "bet" in raw:
        parts[0] = f"wager {show(raw['bet'])}"
    if kind in ("card", "burn") and "card" in raw:
        parts[0] = f"{kind} {show(raw['card'])}"
    if "area" in raw:
        parts.append(f"area {show(raw['area'])}")
    if raw.get("hand") is not None:
        parts.append(f"hand {show(raw['hand'])}")
    if "player" in raw and kind != "wager" or kind == "wager" and "player" in raw:
        parts.append(f"player {show(raw.get('player'))}")
    return ", ".join(parts)


# ---------------------------------------------------------------------- formatting
def _money(amount: Decimal) -> int | float:
    return to_json_number(amount)


def event_to_transcript(event: Event) -> dict[str, Any]:
    """An :data:`Event` as its transcript object (spec/round-script.md), the inverse of
    :func:`parse_event`: ``parse_event(event_to_transcript(e)) == e`` for every event the
    parser can make. Optional fields are written only when set; amounts as JSON numbers
    (whole amounts as integers). This is the form the store records."""
    out: dict[str, Any] = {"type": event.type}
    if isinstance(event, CardDrawn):
        out["card"] = str(event.card)
        if event.shoe_seq is not None:
            out["shoe_seq"] = event.shoe_seq
        if event.face_up:
            out["face_up"] = True
        if event.to is not None:
            out["to"] = str(event.to)
    elif isinstance(event, Decision):
        out["action"] = event.action
        if event.area is not None:
            out["area"] = event.area
        if event.hand is not None:
            out["hand"] = event.hand
        if event.player is not None:
            out["player"] = event.player
        if event.amount is not None:
            out["amount"] = _money(event.amount)
        if event.followers:
            out["followers"] = {p: v if isinstance(v, str) else _money(v) for p, v in event.followers}
    elif isinstance(event, Wager):
        out["player"] = event.player
        out["bet"] = event.bet
        out["amount"] = _money(event.amount)
        if event.area is not None:
            out["area"] = event.area
        if event.hand is not None:
            out["hand"] = event.hand
    elif isinstance(event, Claim):
        out["bet"] = event.bet
        out["area"] = event.area
        out["claimants"] = [{"player": c.player, "amount": _money(c.amount)} for c in event.claimants]
        if event.declined_by is not None:
            out["declined_by"] = event.declined_by
    elif isinstance(event, Burn):
        out["card"] = str(event.card)
    elif isinstance(event, Multi):
        out["cards"] = [str(c) for c in event.cards]
        out["disclosed"] = [str(c) for c in event.disclosed]
        if event.order_known:
            out["order_known"] = True
    elif isinstance(event, Pick):
        out["card"] = str(event.card)
        out["by"] = event.by
        if event.player is not None:
            out["player"] = event.player
    elif isinstance(event, Correction):
        out["index"] = event.index
        out["to"] = str(event.to)
    elif isinstance(event, (Timeout, Absent)):
        out["player"] = event.player
    elif isinstance(event, Withdraw):
        out["player"] = event.player
        if event.area is not None:
            out["area"] = event.area
    elif isinstance(event, Void):
        out["reason"] = event.reason
        out["rule"] = event.rule
    elif isinstance(event, Resolve):
        out["ruling"] = event.ruling
        out["text"] = event.text
    return out  # no_more_bets, close_offers, power_failure: the type alone


# ---------------------------------------------------------------------- table
def new_round(doc: Any) -> Round:
    """Build the empty round a transcript's header describes (events not applied)."""
    if not isinstance(doc, dict):
        raise TranscriptError("a transcript is a JSON object")
    if "game" not in doc:
        raise TranscriptError(f"the transcript has no 'game': one of {', '.join(GAMES)}")
    game = doc.get("game")
    rules = GAMES.get(game) if isinstance(game, str) else None
    if rules is None:
        raise TranscriptError(f"unknown game {game!r}: one of {', '.join(GAMES)}")
    decks = doc.get("decks")
    low, high = rules.deck_range
    if decks is None:
        raise TranscriptError(
            f"the transcript has no 'decks': {rules.name} is played with {low} to {high} decks "
            f"({rules.clause('decks')})"
        )
    if not isinstance(decks, int) or isinstance(decks, bool) or not low <= decks <= high:
        raise TranscriptError(
            f"{rules.name} is played with {low} to {high} decks, not {decks!r} ({rules.clause('decks')})"
        )
    limits = _parse_limits(doc.get("limits"), rules)
    under_min = doc.get("under_min_history", [])
    if not isinstance(under_min, list) or not all(isinstance(p, str) for p in under_min):
        raise TranscriptError("under_min_history is a list of player names")
    _check_names(under_min, "under_min_history")
    shoe_dealt = _parse_shoe_dealt(doc.get("shoe_dealt", []), rules, decks)
    parse_shoe_record(doc.get("shoe"), len(rules.composition) * decks)
    if rules.shared_hand:
        from dealer_assist.engine.electronic import ElectronicConfig, ElectronicRound

        return ElectronicRound(ElectronicConfig(rules, decks, limits, frozenset(under_min), shoe_dealt))
    from dealer_assist.engine.table import TableRound
    from dealer_assist.engine.table_state import TableConfig

    areas = doc.get("areas")
    a_low, a_high = rules.area_range
    if areas is None:
        raise TranscriptError(
            f"the transcript has no 'areas': the {rules.name} layout has {a_low} to {a_high} "
            "playing areas (Appendix A)"
        )
    if not isinstance(areas, int) or isinstance(areas, bool) or not 1 <= areas <= 7:
        raise TranscriptError(f"areas must be a number of playing areas from {a_low} to {a_high}, not {areas!r}")
    if not a_low <= areas <= a_high:
        raise TranscriptError(
            f"the {rules.name} layout has {a_low} to {a_high} playing areas, not {areas} (Appendix A)"
        )
    seated = doc.get("seated", {})
    if not isinstance(seated, dict) or not all(
        isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= areas
        for k, v in seated.items()
    ):
        raise TranscriptError(f"seated maps each player to an area from 1 to {areas}")
    if len(set(seated.values())) != len(seated):
        raise TranscriptError("seated: one player per seat")
    _check_names(seated, "seated")
    max_wagers = doc.get("max_wagers_per_area", 3)
    if not isinstance(max_wagers, int) or not 1 <= max_wagers <= 3:
        raise TranscriptError("max_wagers_per_area is 1, 2 or 3 (3.10, 3.10.1)")
    one_area = doc.get("one_area_players", [])
    if not isinstance(one_area, list) or not all(isinstance(p, str) for p in one_area):
        raise TranscriptError("one_area_players is a list of player names (3.9)")
    _check_names(one_area, "one_area_players")
    return TableRound(TableConfig(
        rules, decks, areas, limits, dict(seated), frozenset(under_min), max_wagers, frozenset(one_area),
        shoe_dealt,
    ))


def _check_names(names: Any, what: str) -> None:
    for name in names:
        why = bad_character(name)
        if why is not None:
            raise TranscriptError(f"{what}: player {_shown(name)}: {why}")


def _parse_shoe_dealt(raw: Any, rules: GameRules, decks: int) -> tuple[Card, ...]:
    """Optional header ``shoe_dealt``: the cards this shoe delivered in earlier rounds since
    its last shuffle, so that 5.1 counts copies over the whole shoe, not one round."""
    if not isinstance(raw, list):
        raise TranscriptError("shoe_dealt is a list of cards")
    try:
        dealt = tuple(parse_card(c) for c in raw)
    except CardNotationError as exc:
        raise TranscriptError(f"shoe_dealt: {exc}") from None
    if len(dealt) > len(rules.composition) * decks:
        raise TranscriptError(f"shoe_dealt holds more cards than {decks} decks ({rules.clause('void.foreign_card')})")
    return dealt


def parse_shoe_record(raw: Any, cards: int | None = None) -> tuple[str, int] | None:
    """Optional header ``shoe`` (spec/round-script.md): ``{"id": "S-...", "dealt": 57}``, the
    shoe this round is dealt from and how many cards left it since its shuffle before the
    round's first card; (id, dealt), or None when absent. No rule reads it: it is on record
    for game protection and audits. ``cards``: the shoe's size, which ``dealt`` cannot exceed."""
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise TranscriptError(f"shoe is an object {{\"id\": ..., \"dealt\": ...}}, not {_shown(raw)}")
    unknown = sorted(set(raw) - {"id", "dealt"})
    if unknown:
        raise TranscriptError(f"shoe: unknown field {_shown(unknown[0])} (it has 'id' and 'dealt')")
    shoe_id = raw.get("id")
    if not isinstance(shoe_id, str) or not shoe_id.strip():
        raise TranscriptError(f"shoe.id is a non-empty text naming the shoe, not {_shown(shoe_id)}")
    why = bad_character(shoe_id)
    if why is not None or len(shoe_id) > 100:
        raise TranscriptError(f"shoe.id {_shown(shoe_id)}: {why or 'longer than 100 characters'}")
    dealt = raw.get("dealt")
    if not isinstance(dealt, int) or isinstance(dealt, bool) or dealt < 0:
        raise TranscriptError(f"shoe.dealt is a whole number of cards from 0 up, not {_shown(dealt)}")
    if cards is not None and dealt > cards:
        raise TranscriptError(f"shoe.dealt is {dealt}: more cards than the shoe holds ({cards})")
    return shoe_id, dealt


def _parse_limits(raw: Any, rules: GameRules) -> dict[str, tuple[Decimal, Decimal]]:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise TranscriptError("limits maps a bet kind to [min, max]")
    known = {"main", "insurance", *rules.side_bets}
    out: dict[str, tuple[Decimal, Decimal]] = {}
    for kind, pair in raw.items():
        if kind not in known:
            raise TranscriptError(f"limits: {rules.name} has no '{kind}' wager")
        if not isinstance(pair, list) or len(pair) != 2:
            raise TranscriptError(f"limits: {kind} is [min, max]")
        try:
            low, high = parse_amount(pair[0]), parse_amount(pair[1])
        except AmountError as exc:
            raise TranscriptError(f"limits: {kind}: {exc}") from None
        if low > high:
            raise TranscriptError(f"limits: {kind} minimum {pair[0]} is above its maximum {pair[1]}")
        out[kind] = (low, high)
    return out


def run_document(doc: Any) -> Round:
    """Apply every event of a transcript; raises TranscriptError at the first bad one."""
    rnd = new_round(doc)
    events = doc.get("events")
    if not isinstance(events, list):
        raise TranscriptError("a transcript has a list of events")
    for i, raw in enumerate(events):
        try:
            event = parse_event(raw)
            rnd.apply(event)
        except (EventFormatError, RuleRefusal) as exc:
            message = exc.message if isinstance(exc, EventFormatError) else str(exc)
            raise TranscriptError(f"event {i} ({describe_event(raw)}): {message}", i) from None
    return rnd


def under_minimum_first_time(doc: Any) -> list[str]:
    """5.26 as the engine decides it, for a stored round (its header and events): the
    players whose under-minimum wager this round settled normally, their first time at the
    table; the store remembers them (``under_min_history``) for the next rounds."""
    return list(run_document(doc).under_minimum_first_time())


def settle_document(doc: Any) -> dict[str, Any]:
    """The settle output (spec "Output") for a parsed transcript."""
    return round_output(run_document(doc))


def _json_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_NUMBER_DIGITS:
        raise TranscriptError(f"not valid JSON here: a number of {len(text.lstrip('-'))} digits "
                              f"(at most {MAX_NUMBER_DIGITS})")
    return int(text)


def _json_decimal(text: str) -> Decimal:
    value = Decimal(text)
    # 1e999999999 is short to write but a number of a billion digits: as long as an integer
    # of that many digits, and refused the same way (a store would have to write it out)
    if value.adjusted() >= MAX_NUMBER_DIGITS:
        raise TranscriptError(f"not valid JSON here: the number {shown_number(text)} has more than "
                              f"{MAX_NUMBER_DIGITS} digits")
    return value


def _json_constant(text: str) -> Any:
    raise TranscriptError(f"not valid JSON: {text} is not a number")


def _check_unicode(doc: Any) -> None:
    """Every text in the document is Unicode: a lone surrogate (``"\\ud800"``, which JSON
    can write but no UTF-8 output can hold) is refused, naming where it is."""
    stack: list[tuple[Any, str]] = [(doc, "")]
    while stack:
        value, where = stack.pop()
        if isinstance(value, str):
            texts: list[tuple[str, str]] = [(value, where)]
        elif isinstance(value, dict):
            texts = [(k, f"{where}/{k}") for k in value]
            stack.extend((v, f"{where}/{k}") for k, v in value.items())
        elif isinstance(value, list):
            texts = []
            stack.extend((v, f"{where}/{i}") for i, v in enumerate(value))
        else:
            continue
        for text, path in texts:
            try:
                text.encode("utf-8")  # at C speed; only a lone surrogate cannot be encoded
            except UnicodeEncodeError:
                raise TranscriptError(
                    f"{escape_text(path or '/', 40)}: {escape_text(text)} holds a lone surrogate, "
                    "which is not a Unicode character") from None


def load_transcript(text: str) -> Any:
    """The JSON document of a transcript: numbers with a fraction exactly, as Decimal
    (spec "Amounts are JSON numbers. Arithmetic is exact"); NaN, infinities, numbers of
    more than MAX_NUMBER_DIGITS digits (also 1e5000) and lone surrogates refused
    (TranscriptError)."""
    try:
        doc = json.loads(text, parse_float=_json_decimal, parse_int=_json_int, parse_constant=_json_constant)
    except json.JSONDecodeError as exc:
        raise TranscriptError(f"not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except RecursionError:
        raise TranscriptError("not valid JSON: nested too deeply") from None
    _check_unicode(doc)
    return doc


def settle_text(text: str) -> dict[str, Any]:
    return settle_document(load_transcript(text))


# ---------------------------------------------------------------------- output
def _num(amount: Decimal) -> int | float:
    return to_json_number(amount)


def settlement_json(s: Settlement) -> dict[str, Any]:
    out: dict[str, Any] = {"player": s.player}
    if s.area is not None:
        out["area"] = s.area
    if s.hand is not None:
        out["hand"] = s.hand
    out.update(bet=s.bet, stake=_num(s.stake), result=s.result, net=_num(s.net), rule=s.rule, stage=s.stage)
    if s.row is not None:
        out["row"] = s.row
    return out


def expectation_json(exp: Expectation) -> dict[str, Any] | None:
    if exp.kind == "none":
        return None
    if exp.kind == "wagers":
        return {"expect": "wagers"}
    if exp.kind == "card":
        out: dict[str, Any] = {"expect": "card", "for": exp.target}
        out.update(exp.extra)
        return out
    if exp.kind == "decision":
        out = {"expect": "decision"}
        if exp.area is not None:
            out["area"] = exp.area
        out.update(hand=exp.hand, player=exp.player, options=list(exp.options))
        if exp.offers:
            out["offers"] = [{**o, "options": list(o["options"])} for o in exp.offers]
        out.update(exp.extra)
        return out
    if exp.kind == "decisions":
        return {"expect": "decisions", "pending": [dict(p) for p in exp.pending], **exp.extra}
    if exp.kind == "ruling":
        return {"expect": "ruling", "rule": exp.rule, "text": exp.text}
    raise AssertionError(exp.kind)


def round_output(rnd: Round) -> dict[str, Any]:
    """The settle output object for a round in any state."""
    report: dict[str, Any] = rnd.report()
    settlements = [settlement_json(s) for s in rnd.settlements]
    net: dict[str, Decimal] = {}
    for s in rnd.settlements:
        net[s.player] = net.get(s.player, Decimal(0)) + s.net
    out: dict[str, Any] = {"game": rnd.rules.key, "status": rnd.status()}
    out.update(report)
    out["settlements"] = settlements
    out["net"] = {p: _num(v) for p, v in net.items()}
    out["rulings"] = [
        {"index": r.index, "rule": r.rule, "ruling": r.ruling, "text": r.text,
         "moves": [{"card": str(m.card), "from": m.source, "to": m.dest} for m in r.moves]}
        for r in rnd.rulings
    ]
    out["claims"] = [
        {"index": c.index, "granted": list(c.granted), "refused": list(c.refused), "rule": c.rule}
        for c in rnd.claims
    ]
    # Who calls each area's decisions from which event on, and the clause (3.11, 3.12,
    # 3.25.1.3, 5.22.1; 5.22 when the dealer plays an absent player's area). Not in
    # Electronic Blackjack, whose terminals each decide for themselves.
    out["control"] = [
        {"index": c.event, "area": c.area, "player": c.player, "rule": c.rule}
        for c in rnd.control_changes
    ]
    out["next"] = expectation_json(rnd.expectation()) if out["status"] in ("in_progress", "referred") else None
    return out


def dumps(output: dict[str, Any]) -> str:
    return json.dumps(output, indent=1, ensure_ascii=False)
