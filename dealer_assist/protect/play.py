"""Play precision (issue 36, Build 3): each player's decisions against the game's printed
chart and against the count's index plays, from the recorded rounds' events.

A round is replayed through the engine (its header and events, spec/round-script.md); before
each decision the hand, the dealer's first card and the options the engine allows are read.

- **Chart**: the printed strategy chart of the game and deck count (``odds.sheet.chart_of``):
  a two-card hand plays its cell (``Chart.initial_action``, reduced to the options allowed);
  a hand of three or more cards hits or stands by its total's row (``Chart.hits``).
- **Insurance and even money** (3.27, 3.20; Electronic 3.11; Dueling 8's has none): they pay
  2 to 1 (4.1) on the dealer's second card being ten-valued, so they are worth
  3 p - 1 per unit with p the share of ten-valued cards among the cards not seen (the shoe
  less the cards of the earlier rounds of the shoe and those on the table: exact). The
  chart's play is the full shoe's (take when p > 1/3 there: never in these games); the index
  play is to take it when p > 1/3 in the actual shoe. A player offered it who did not take it
  declined.
- **Index plays** of the other decisions: the engine's best play (odds.main_wager, the
  composition-dependent values with ``exact_cards=0``) of the hand against the same card
  from a shoe shifted to the round's true count (rounded, within -5..+5): a shoe of the
  game's deck count whose tagged cards are moved by the count (:func:`shifted_shoe`). Where it
  differs from the chart's play and from the engine's at a true count of 0, that cell has an
  index play at that count; a decision that leaves the chart for exactly that play is an
  index play (``scripts/protect_index_plays.py`` lists them per game).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cache
from typing import Any

from dealer_assist.base.cards import Card, parse_card
from dealer_assist.base.errors import TranscriptError
from dealer_assist.engine.transcript import new_round, parse_event
from dealer_assist.games import INSURANCE_ODDS
from dealer_assist.odds import main_wager
from dealer_assist.odds.rulesets import RuleSet, for_game
from dealer_assist.odds.sheet import chart_of
from dealer_assist.odds.strategy import Chart
from dealer_assist.protect.counts import Count, count_for

PLAYS = ("hit", "stand", "double", "split", "surrender")
INDEX_RANGE = 5  # index plays looked for within this true count either way


@dataclass(frozen=True)
class PlayDecision:
    """One recorded decision and what the chart and the count say of it."""

    round_id: int
    player: str
    hand: str  # e.g. "hard 16 v 10", "insurance v A"
    action: str  # what the player did: a play, "insurance" or "decline"
    chart: str  # the chart's play
    index: str | None  # the count's best play where it differs from the chart's, else None
    true_count: float

    @property
    def matches_chart(self) -> bool:
        return self.action == self.chart

    @property
    def at_index(self) -> bool:
        return self.index is not None and self.action == self.index != self.chart


def _points(cards: Sequence[str]) -> tuple[int, ...]:
    return tuple(parse_card(c).points for c in cards)


def _describe(cards: tuple[int, ...], up: int) -> str:
    hard = sum(cards)
    soft = 1 in cards and hard + 10 <= 21
    if len(cards) == 2 and cards[0] == cards[1]:
        what = f"pair {'A' if cards[0] == 1 else cards[0]}"
    else:
        what = f"{'soft' if soft else 'hard'} {hard + 10 if soft else hard}"
    return f"{what} v {'A' if up == 1 else up}"


def shifted_shoe(count: Count, rules: RuleSet, true_count: int) -> tuple[int, ...]:
    """A full shoe of the game's deck count moved to ``true_count``: t x decks / 2 cards of the
    +1-tagged values taken out and as many of the -1-tagged put in, each value in proportion
    to its share of its tag's cards (rounded), so that the shoe's size stays and its running
    count per deck is about ``true_count``."""
    shoe = list(rules.shoe)
    move = true_count * rules.decks / 2
    for tag in (1, -1):
        members = [i for i in range(10) if count.tags[i] == tag and shoe[i]]
        total = sum(shoe[i] for i in members)
        if not total:
            continue
        want = {i: abs(move) * shoe[i] / total for i in members}
        moved = {i: int(want[i]) for i in members}
        # the largest remainders take the cards rounding left over (the shoe moves by round(|move|))
        for i in sorted(members, key=lambda i: want[i] - moved[i], reverse=True)[:round(abs(move)) - sum(moved.values())]:
            moved[i] += 1
        sign = tag if move > 0 else -tag
        for i in members:
            shoe[i] = max(0, shoe[i] - sign * moved[i])
    return tuple(shoe)


@cache
def _versus(game: str, decks: int, true_count: int, up: int) -> main_wager.Versus | None:
    count = count_for(game, decks)
    if count is None:
        return None
    rules = for_game(game, decks)
    deck = shifted_shoe(count, rules, true_count)
    return main_wager.Versus(replace(rules, deck=deck, decks=1), up, 0)


@cache
def best_play(game: str, decks: int, true_count: int, cards: tuple[int, ...], up: int,
              allowed: frozenset[str]) -> str | None:
    """The engine's best play of ``cards`` against ``up`` from the shoe shifted to ``true_count``
    (among ``allowed``); None when the game has no count on file."""
    vs = _versus(game, decks, true_count, up)
    if vs is None:
        return None
    rules = vs.rules
    shoe_cards = cards[1:] if rules.permanent_eight else cards
    comp: main_wager.Comp = (0,) * 10
    for v in shoe_cards:
        comp = main_wager.add_card(comp, v)
    if any(comp[i] > vs.shoe[i] for i in range(10)):
        return None
    hard = sum(cards)
    ace = 1 in cards
    if len(cards) == 2:
        _, values, _ = main_wager.initial_value(vs, cards, comp)
        values = {k: v for k, v in values.items() if k in allowed}
        return max(values, key=lambda k: values[k]) if values else None
    bj_cost = 1 if vs.enhc else 0
    return "hit" if vs.plays_hit(comp, hard, ace, bj_cost) else "stand"


def index_play(game: str, decks: int, true_count: int, cards: tuple[int, ...], up: int, allowed: frozenset[str],
               printed: str) -> str | None:
    """The count's play of the hand at ``true_count`` where it differs from the chart's and from
    the engine's own at a true count of 0 (the engine's ``exact_cards=0`` values differ from
    the chart's exact ones in a few close cells: not an index play)."""
    best = best_play(game, decks, true_count, cards, up, allowed)
    if best is None or best == printed or best == best_play(game, decks, 0, cards, up, allowed):
        return None
    return best


def chart_play(chart: Chart, cards: tuple[int, ...], up: int, allowed: frozenset[str]) -> str:
    if len(cards) == 2:
        return chart.initial_action(cards[0], cards[1], up, lambda a: a in allowed)
    return "hit" if chart.hits(sum(cards), 1 in cards, up) else "stand"


def _index_tc(true_count: float | None) -> int:
    if true_count is None:
        return 0
    return max(-INDEX_RANGE, min(INDEX_RANGE, round(true_count)))


def _in_play(view: Any, area: int | None, hand: int | None, player: str | None) -> tuple[str, ...] | None:
    """The cards of the hand a decision is about (table: area and hand; Electronic: terminal)."""
    if view.shared_hand:
        for t in view.terminals:
            if t.player == player and t.hands:
                number = hand or t.in_turn or 1
                return tuple(t.hands[number - 1].cards) if number <= len(t.hands) else None
        return None
    a = view.area(area) if area is not None else None
    if a is None or not a.hands:
        return None
    number = hand or (view.in_turn[1] if view.in_turn and view.in_turn[0] == area else 1)
    return tuple(a.hands[number - 1].cards) if number <= len(a.hands) else None


def round_decisions(round_id: int, header: dict[str, Any], events: list[dict[str, Any]], seen: list[Card],
                    true_count: float | None) -> list[PlayDecision]:
    """Every player's decisions of one recorded round (module doc). ``seen``: the cards of the
    earlier rounds of its shoe."""
    game, decks = header.get("game"), header.get("decks")
    if not isinstance(game, str) or not isinstance(decks, int):
        return []
    try:
        rnd = new_round({k: v for k, v in header.items() if k != "events"})
        chart = chart_of(game, decks)
        rules = for_game(game, decks)
    except (TranscriptError, KeyError, ValueError):
        return []
    shoe = list(rules.shoe)
    for c in seen:
        shoe[c.points - 1] -= 1
    tc = _index_tc(true_count)
    ten = 10 - 1
    insurance_take = (INSURANCE_ODDS + 1) * rules.shoe[ten] > sum(rules.shoe)  # the full shoe's play
    chart_insurance = "insurance" if insurance_take else "decline"
    out: list[PlayDecision] = []
    offered: dict[str, tuple[str, float]] = {}  # player -> (hand, p ten) while the offers are open
    took: set[str] = set()

    def close_offers() -> None:
        for player, (hand, p) in offered.items():
            favourable = (INSURANCE_ODDS + 1) * p > 1
            index = "insurance" if favourable and chart_insurance != "insurance" else None
            out.append(PlayDecision(round_id, player, hand, "insurance" if player in took else "decline",
                                    chart_insurance, index, true_count or 0.0))
        offered.clear()

    for raw in events:
        try:
            event = parse_event(raw)
        except Exception:  # noqa: BLE001 - a stored event the engine does not read: stop here
            break
        exp = rnd.expectation()
        view = rnd.view()
        for offer in exp.offers or exp.pending:
            options = offer.get("options", ())
            name = offer.get("player")
            if isinstance(name, str) and name not in offered and ("insurance" in options or "even_money" in options):
                left = sum(shoe)
                offered[name] = ("insurance v A", shoe[ten] / left if left else 0.0)
        kind = raw.get("type")
        if kind == "decision":
            action = raw.get("action")
            player = raw.get("player") or exp.player
            if action in ("insurance", "even_money") and isinstance(player, str):
                took.add(player)
            elif action in PLAYS:
                area = raw.get("area") if isinstance(raw.get("area"), int) else exp.area
                hand = raw.get("hand") if isinstance(raw.get("hand"), int) else None
                shown = view.area(area) if area is not None else None
                if player is None and shown is not None:
                    player = shown.controller
                cards = _in_play(view, area, hand, player if isinstance(player, str) else None)
                if cards and view.dealer.cards and isinstance(player, str):
                    values = _points(cards)
                    up = parse_card(view.dealer.cards[0]).points
                    allowed = frozenset(exp.options) | {action} if exp.options else frozenset(PLAYS)
                    played = chart_play(chart, values, up, allowed)
                    out.append(PlayDecision(round_id, player, _describe(values, up), str(action), played,
                                            index_play(game, decks, tc, values, up, allowed, played),
                                            true_count or 0.0))
            if action in PLAYS and offered:
                close_offers()
        elif kind == "close_offers" and offered:
            close_offers()
        try:
            rnd.apply(event)
        except Exception:  # noqa: BLE001 - a refused event leaves the round as it was (settle said so)
            break
        for card in _event_cards(raw):
            shoe[card.points - 1] -= 1
    if offered:
        close_offers()
    return out


def _event_cards(raw: dict[str, Any]) -> list[Card]:
    kind = raw.get("type")
    try:
        if kind in ("card", "burn") and isinstance(raw.get("card"), str):
            return [parse_card(raw["card"])]
        if kind == "multi" and isinstance(raw.get("cards"), list):
            return [parse_card(c) for c in raw["cards"]]
    except ValueError:
        return []
    return []


@dataclass(frozen=True)
class Precision:
    decisions: int
    matching: int
    deviations: int
    index_plays: int
    rows: tuple[PlayDecision, ...]

    @property
    def share(self) -> float | None:
        return self.matching / self.decisions if self.decisions else None


def precision(decisions: Sequence[PlayDecision]) -> Precision:
    matching = sum(d.matches_chart for d in decisions)
    return Precision(len(decisions), matching, len(decisions) - matching, sum(d.at_index for d in decisions),
                     tuple(decisions))
