"""The picture of a round: what the engine made of it, as a screen shows it (issue 33, build 4).

The station service sends it with every state and ``round`` notification, so that the
dealer's screen draws the round the service computed and never works it out again (no
second replay, no second settle). A :class:`RoundPicture` holds the engine's own typed
values: the layout (:class:`~dealer_assist.engine.round_api.RoundView`, its status
included), what the round waits for (:class:`~dealer_assist.engine.outcome.Expectation`),
the settlements and rulings, the shoe's count and what the dealer must be told about the
shoe (5.19 / 5.20; 5.16 / 5.17 in Dueling 8's).

:func:`picture_to_json` writes it as plain JSON (Decimal amounts as strings, exact to the
cent; a value at its default is left out), :func:`picture_from_json` reads it back equal to
the picture the engine made (tests/engine/test_picture.py). The game's rules are static data
(``dealer_assist.games.GAMES[picture.game]``), not part of the picture.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any, TypeVar

from dealer_assist.base.cards import parse_card
from dealer_assist.base.errors import TranscriptError
from dealer_assist.engine.irregularities import shoe_notices
from dealer_assist.engine.outcome import NO_EXTRA, CardMove, Expectation, Ruling, Settlement
from dealer_assist.engine.round_api import (
    AreaView,
    DealerView,
    HandView,
    Round,
    RoundView,
    TerminalView,
    WagerView,
)

__all__ = ["RoundPicture", "ShoePicture", "picture_from_json", "picture_of", "picture_to_json"]

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class ShoePicture:
    """The shoe as the round counts it: cards left, and whether the cutting card came out."""

    remaining: int
    cut_card_seen: bool = False


@dataclass(frozen=True, slots=True)
class RoundPicture:
    """One round at one moment, as the engine made it."""

    game: str  # the game's key (dealer_assist.games.GAMES)
    layout: RoundView  # its status is the round's (settled, void, referred, in_progress)
    expectation: Expectation
    settlements: tuple[Settlement, ...]
    rulings: tuple[Ruling, ...]
    shoe: ShoePicture
    shoe_notices: tuple[tuple[str, str], ...]  # (clause, sentence): engine/irregularities.shoe_notices


def picture_of(rnd: Round) -> RoundPicture:
    """The picture of ``rnd`` now (the engine's values, nothing recomputed by the reader)."""
    return RoundPicture(rnd.rules.key, rnd.view(), rnd.expectation(), tuple(rnd.settlements), tuple(rnd.rulings),
                        ShoePicture(rnd.shoe.remaining, rnd.shoe.cut_card_seen), tuple(shoe_notices(rnd)))


def picture_to_json(rnd: Round | RoundPicture) -> dict[str, Any]:
    """The picture of a round (or a picture already made) as plain JSON."""
    p = rnd if isinstance(rnd, RoundPicture) else picture_of(rnd)
    out: dict[str, Any] = {"game": p.game, "layout": _round_view(p.layout), "expect": _expectation(p.expectation),
                           "settlements": [_settlement(s) for s in p.settlements],
                           "rulings": [_ruling(r) for r in p.rulings],
                           "shoe": {"remaining": p.shoe.remaining, "cut_card_seen": p.shoe.cut_card_seen},
                           "shoe_notices": [list(n) for n in p.shoe_notices]}
    return out


def picture_from_json(d: Mapping[str, Any], like: tuple[Mapping[str, Any], RoundPicture] | None = None
                      ) -> RoundPicture:
    """A picture read back from :func:`picture_to_json`'s JSON; TranscriptError naming the
    part that is not a picture. ``like``: an earlier picture and the JSON it was read from;
    each part written the same (an area, a terminal, a settlement ...) is taken from it as
    it is (a card changes one area: the others are not read again)."""
    try:
        shoe = d["shoe"]
        if like is None:
            layout, expectation = _read_round_view(d["layout"]), _read_expectation(d["expect"])
            settlements = tuple(_read_settlement(s) for s in d["settlements"])
            rulings = tuple(_read_ruling(r) for r in d["rulings"])
        else:
            raw, old = like
            layout = old.layout if d["layout"] == raw["layout"] else _read_round_view(d["layout"], (raw["layout"], old.layout))
            expectation = old.expectation if d["expect"] == raw["expect"] else _read_expectation(d["expect"])
            settlements = _parts(d["settlements"], raw["settlements"], old.settlements, _read_settlement)
            rulings = old.rulings if d["rulings"] == raw["rulings"] else tuple(_read_ruling(r) for r in d["rulings"])
        return RoundPicture(str(d["game"]), layout, expectation, settlements, rulings,
                            ShoePicture(int(shoe["remaining"]), bool(shoe.get("cut_card_seen"))),
                            tuple((str(rule), str(text)) for rule, text in d["shoe_notices"]))
    except (KeyError, TypeError, ValueError, InvalidOperation) as exc:
        raise TranscriptError(f"the round's picture cannot be read: {type(exc).__name__} {exc}") from None


def _parts(raws: Sequence[Any], old_raws: Sequence[Any], old: Sequence[T], read: Callable[[Any], T]) -> tuple[T, ...]:
    """Each part read from ``raws``, or the earlier one where it was written the same."""
    return tuple(old[i] if i < len(old_raws) and i < len(old) and r == old_raws[i] else read(r)
                 for i, r in enumerate(raws))


# ------------------------------------------------------------------ writing
def _money(amount: Decimal) -> str:
    return str(amount)


def _put(out: dict[str, Any], key: str, value: Any) -> None:
    """``value`` under ``key`` unless it is its field's default (None, False, empty)."""
    if value is not None and value is not False and value != ():
        out[key] = value


def _wager(w: WagerView) -> dict[str, Any]:
    out: dict[str, Any] = {"player": w.player, "bet": w.bet, "name": w.name, "amount": _money(w.amount)}
    if w.placed != w.amount:
        out["placed"] = _money(w.placed)
    _put(out, "position", w.position)
    _put(out, "hand", w.hand)
    _put(out, "returned", w.returned)
    return out


def _hand(h: HandView) -> dict[str, Any]:
    out: dict[str, Any] = {"number": h.number, "cards": list(h.cards), "total": h.total}
    _put(out, "soft", h.soft)
    if h.stakes:
        out["stakes"] = [[p, _money(a)] for p, a in h.stakes]
    for key in ("blackjack", "bust", "doubled", "surrendered", "in_turn", "printed_first"):
        _put(out, key, getattr(h, key))
    return out


def _area(a: AreaView) -> dict[str, Any]:
    out: dict[str, Any] = {"number": a.number}
    _put(out, "controller", a.controller)
    _put(out, "seated", list(a.seated) or ())
    _put(out, "wagers", [_wager(w) for w in a.wagers] or ())
    _put(out, "sides", [_wager(w) for w in a.sides] or ())
    _put(out, "hands", [_hand(h) for h in a.hands] or ())
    _put(out, "surrendered", list(a.surrendered) or ())
    _put(out, "absent_play", a.absent_play)
    _put(out, "insurance", [_wager(w) for w in a.insurance] or ())
    _put(out, "even_money", list(a.even_money) or ())
    return out


def _terminal(t: TerminalView) -> dict[str, Any]:
    out: dict[str, Any] = {"player": t.player, "main": _money(t.main), "sides": [_wager(w) for w in t.sides],
                           "hands": [_hand(h) for h in t.hands], "options": list(t.options)}
    _put(out, "in_turn", t.in_turn)
    _put(out, "waiting_for_card", t.waiting_for_card)
    _put(out, "default_strategy", t.default_strategy)
    _put(out, "resolved", t.resolved)
    if t.insurance is not None:
        out["insurance"] = _wager(t.insurance)
    _put(out, "even_money", t.even_money)
    return out


def _round_view(v: RoundView) -> dict[str, Any]:
    d = v.dealer
    dealer: dict[str, Any] = {"cards": list(d.cards), "total": d.total}
    for key in ("soft", "blackjack", "bust", "printed_first"):
        _put(dealer, key, getattr(d, key))
    out: dict[str, Any] = {"game": v.game, "game_name": v.game_name, "status": v.status, "dealer": dealer}
    _put(out, "shared_hand", v.shared_hand)
    _put(out, "betting", v.betting)
    _put(out, "areas", [_area(a) for a in v.areas] or ())
    _put(out, "player_cards", list(v.player_cards) or ())
    _put(out, "terminals", [_terminal(t) for t in v.terminals] or ())
    if v.in_turn is not None:
        out["in_turn"] = list(v.in_turn)
    _put(out, "controlling", [[a, p] for a, p in v.controlling] or ())
    _put(out, "pick_unseen", v.pick_unseen)
    return out


def _plain(value: Any) -> Any:
    """A value of an expectation's offers, pending decisions or extras as JSON (they hold
    strings, whole numbers, JSON numbers of money (money.to_json_number) and lists)."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, Decimal):
        raise TypeError(f"an expectation holds an amount as Decimal ({value}): the engine writes JSON numbers there")
    return value


def _expectation(e: Expectation) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": e.kind}
    _put(out, "target", e.target)
    _put(out, "area", e.area)
    _put(out, "hand", e.hand)
    _put(out, "player", e.player)
    _put(out, "options", list(e.options) or ())
    _put(out, "offers", _plain(e.offers) or ())
    _put(out, "pending", _plain(e.pending) or ())
    _put(out, "rule", e.rule)
    _put(out, "text", e.text)
    if e.extra:
        out["extra"] = _plain(e.extra)
    return out


def _settlement(s: Settlement) -> dict[str, Any]:
    out: dict[str, Any] = {"player": s.player, "bet": s.bet, "stake": _money(s.stake), "result": s.result,
                           "net": _money(s.net), "rule": s.rule, "stage": s.stage}
    _put(out, "area", s.area)
    _put(out, "hand", s.hand)
    _put(out, "row", s.row)
    return out


def _ruling(r: Ruling) -> dict[str, Any]:
    out: dict[str, Any] = {"index": r.index, "rule": r.rule, "ruling": r.ruling, "text": r.text}
    _put(out, "moves", [[str(m.card), m.source, m.dest] for m in r.moves] or ())
    return out


# ------------------------------------------------------------------ reading
def _amount(raw: Any) -> Decimal:
    if not isinstance(raw, str):
        raise TypeError(f"an amount is written as a string, not {raw!r}")
    return Decimal(raw)


def _strings(raw: Any) -> tuple[str, ...]:
    return tuple(str(x) for x in raw or ())


def _read_wager(d: Mapping[str, Any]) -> WagerView:
    amount = _amount(d["amount"])
    return WagerView(str(d["player"]), str(d["bet"]), str(d["name"]), amount,
                     _amount(d["placed"]) if "placed" in d else amount, d.get("position"), d.get("hand"),
                     bool(d.get("returned")))


def _read_hand(d: Mapping[str, Any]) -> HandView:
    return HandView(int(d["number"]), _strings(d["cards"]), int(d["total"]), bool(d.get("soft")),
                    tuple((str(p), _amount(a)) for p, a in d.get("stakes") or ()), bool(d.get("blackjack")),
                    bool(d.get("bust")), bool(d.get("doubled")), bool(d.get("surrendered")),
                    bool(d.get("in_turn")), bool(d.get("printed_first")))


def _read_area(d: Mapping[str, Any]) -> AreaView:
    return AreaView(int(d["number"]), d.get("controller"), _strings(d.get("seated")),
                    tuple(_read_wager(w) for w in d.get("wagers") or ()),
                    tuple(_read_wager(w) for w in d.get("sides") or ()),
                    tuple(_read_hand(h) for h in d.get("hands") or ()), _strings(d.get("surrendered")),
                    bool(d.get("absent_play")), tuple(_read_wager(w) for w in d.get("insurance") or ()),
                    _strings(d.get("even_money")))


def _read_terminal(d: Mapping[str, Any]) -> TerminalView:
    insurance = d.get("insurance")
    return TerminalView(str(d["player"]), _amount(d["main"]), tuple(_read_wager(w) for w in d["sides"]),
                        tuple(_read_hand(h) for h in d["hands"]), d.get("in_turn"), _strings(d["options"]),
                        bool(d.get("waiting_for_card")), bool(d.get("default_strategy")), bool(d.get("resolved")),
                        _read_wager(insurance) if insurance is not None else None, bool(d.get("even_money")))


def _read_round_view(d: Mapping[str, Any], like: tuple[Mapping[str, Any], RoundView] | None = None) -> RoundView:
    dd = d["dealer"]
    dealer = DealerView(_strings(dd["cards"]), int(dd["total"]), bool(dd.get("soft")), bool(dd.get("blackjack")),
                        bool(dd.get("bust")), bool(dd.get("printed_first")))
    in_turn = d.get("in_turn")
    raw, old = like if like is not None else ({}, None)
    areas = _parts(d.get("areas") or (), raw.get("areas") or (), old.areas if old else (), _read_area)
    terminals = _parts(d.get("terminals") or (), raw.get("terminals") or (), old.terminals if old else (),
                       _read_terminal)
    return RoundView(str(d["game"]), str(d["game_name"]), bool(d.get("shared_hand")), str(d["status"]),
                     bool(d.get("betting")), dealer, areas, _strings(d.get("player_cards")), terminals,
                     (int(in_turn[0]), int(in_turn[1])) if in_turn is not None else None,
                     tuple((int(a), str(p)) for a, p in d.get("controlling") or ()), bool(d.get("pick_unseen")))


def _offer(d: Mapping[str, Any]) -> dict[str, Any]:
    """An offer (insurance, even money, surrender: table_offers.current_offers) holds its
    options as a tuple, as the engine makes them."""
    return {**d, "options": tuple(d["options"])} if "options" in d else dict(d)


def _read_expectation(d: Mapping[str, Any]) -> Expectation:
    extra = d.get("extra")
    return Expectation(str(d["kind"]), d.get("target"), d.get("area"), d.get("hand"), d.get("player"),
                       _strings(d.get("options")), tuple(_offer(o) for o in d.get("offers") or ()),
                       tuple(dict(p) for p in d.get("pending") or ()), d.get("rule"), d.get("text"),
                       dict(extra) if extra else NO_EXTRA)


def _read_settlement(d: Mapping[str, Any]) -> Settlement:
    return Settlement(str(d["player"]), str(d["bet"]), _amount(d["stake"]), str(d["result"]), _amount(d["net"]),
                      str(d["rule"]), str(d["stage"]), d.get("area"), d.get("hand"), d.get("row"))


def _read_ruling(d: Mapping[str, Any]) -> Ruling:
    moves: Sequence[Any] = d.get("moves") or ()
    return Ruling(int(d["index"]), str(d["rule"]), str(d["ruling"]), str(d["text"]),
                  tuple(CardMove(parse_card(str(card)), str(source), str(dest)) for card, source, dest in moves))
