"""Property (issue 3): after every event of any round at a table game, each playing area in
play is controlled by exactly one present player with a live wager on it -- the seated
player if present and still in (3.11), otherwise the wager nearest the dealer among those
still in (3.12, 3.25.1.3, 5.22.1; 3.20.1.3 and 5.19.1 in Dueling 8's) -- or, when only
absent players' wagers are left, by nobody: the dealer plays it by the fixed rule (5.22;
5.19 in Dueling 8's). Every refused event leaves the round exactly as it was.

Rounds are random: up to seven players, some seated, wagering up to three to an area;
random absences, surrenders, insurance, claims, followers on splits and doubles, and
decisions by players who do not control the area (which must be refused).
"""

from __future__ import annotations

import random
from decimal import Decimal
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from dealer_assist.base.errors import RuleRefusal
from dealer_assist.engine.events import (
    Absent,
    CardDrawn,
    Claim,
    Claimant,
    CloseOffers,
    Decision,
    Event,
    NoMoreBets,
    Wager,
)
from dealer_assist.engine.table import TableRound
from dealer_assist.engine.transcript import new_round, round_output
from dealer_assist.games import composition_for

GAMES = ("ace_race", "star_elements", "lucky8", "dueling8s")
PLAYERS = tuple(f"p{i}" for i in range(7))
CONTROL_RULES = {
    "ace_race": {"3.11", "3.12", "3.25.1.3", "5.22.1", "5.22"},
    "star_elements": {"3.11", "3.12", "3.25.1.3", "5.22.1", "5.22"},
    "lucky8": {"3.11", "3.12", "3.25.1.3", "5.22.1", "5.22"},
    "dueling8s": {"3.11", "3.12", "3.20.1.3", "5.19.1", "5.19"},
}


def check_control(rnd: TableRound) -> None:
    for area in rnd.areas.values():
        if not area.wagers:
            continue
        live = [w for w in area.wagers if w.player not in area.surrendered]
        present = [w for w in live if w.player not in rnd.absent]
        seated = [w for w in present if rnd.config.seated.get(w.player) == area.number]
        if present:
            expected = seated[0].player if seated else present[0].player
            assert area.controller == expected, (area.number, area.controller, expected)
            assert not area.absent_play
        else:
            assert area.controller is None
            # Only absent players' wagers left: the dealer plays the area (5.22).
            assert area.absent_play == bool(live)
    game_rules = CONTROL_RULES[rnd.rules.key]
    assert all(c.rule in game_rules for c in rnd.control_changes), rnd.control_changes


def attempt(rnd: TableRound, ev: Event) -> bool:
    """Apply ``ev``; a refusal must name why and change nothing."""
    before = round_output(rnd)
    n = len(rnd.events)
    try:
        rnd.apply(ev)
    except RuleRefusal as exc:
        assert exc.message
        assert round_output(rnd) == before and len(rnd.events) == n
        return False
    return True


def decision_event(rnd: TableRound, exp: Any, rng: random.Random) -> Event:
    area = rnd.areas[exp.area]
    hand = area.hands[exp.hand - 1]
    others = [p for p in hand.stakes if p != exp.player]
    action = rng.choice([o for o in exp.options if o != "surrender"] or ["stand"])
    followers: tuple[tuple[str, str | Decimal], ...] = ()
    if action == "split":
        followers = tuple((p, rng.choice(("match", "stay"))) for p in others if rng.random() < 0.7)
    elif action == "double":
        followers = tuple(
            (p, hand.stakes[p] if rng.random() < 0.5 else Decimal(1)) for p in others if rng.random() < 0.5
        )
    return Decision(action, exp.area, exp.hand, exp.player, None, followers)


def play_round(game: str, seed: int) -> TableRound:
    rng = random.Random(seed)
    n_areas = 7
    doc: dict[str, Any] = {"game": game, "decks": 6, "areas": n_areas}
    seats = rng.sample(range(1, n_areas + 1), k=rng.randint(0, 4))
    doc["seated"] = {p: a for p, a in zip(rng.sample(PLAYERS, k=len(seats)), seats, strict=True)}
    rnd = new_round(doc)
    assert isinstance(rnd, TableRound)
    side = rnd.rules.side_bets[0]
    for _ in range(rng.randint(1, 14)):
        attempt(rnd, Wager(rng.choice(PLAYERS), "main", Decimal(rng.choice((10, 20, 50))),
                           rng.randint(1, n_areas)))
        check_control(rnd)
    if rnd.areas and rng.random() < 0.5:
        area = rng.choice(sorted(rnd.areas))
        attempt(rnd, Claim(side, area, tuple(Claimant(p, Decimal(5)) for p in rng.sample(PLAYERS, 3))))
    attempt(rnd, NoMoreBets())
    shoe = list(composition_for(game)) * 6
    rng.shuffle(shoe)
    for _ in range(400):
        check_control(rnd)
        exp = rnd.expectation()
        if exp.kind == "none":
            break
        roll = rng.random()
        bettors = sorted({w.player for a in rnd.areas.values() for w in a.wagers} - rnd.absent)
        if roll < 0.06 and bettors:
            attempt(rnd, Absent(rng.choice(bettors)))
            continue
        playable = {"hit", "stand", "double", "split"} & set(exp.options)
        if roll < 0.12 and exp.kind == "decision" and exp.area is not None and playable:
            # Someone else tries to call this hand's decision: refused unless they control it.
            intruder = rng.choice(PLAYERS)
            action = rng.choice(sorted(playable & {"hit", "stand"}))
            ok = attempt(rnd, Decision(action, exp.area, exp.hand, intruder))
            assert ok == (intruder == exp.player)
            continue
        if exp.kind == "card":
            assert attempt(rnd, CardDrawn(shoe.pop()))
        elif exp.kind == "decision":
            if exp.offers and (rng.random() < 0.5 or not playable):
                offer = rng.choice(exp.offers)
                action = rng.choice([o for o in offer["options"] if o != "even_money"] or ["insurance"])
                if action == "insurance" and rng.random() < 0.3:
                    claimants = tuple(Claimant(p, Decimal(1)) for p in rng.sample(PLAYERS, 2)
                                      if p != offer["player"])
                    if claimants:
                        attempt(rnd, Claim("insurance", offer["area"], claimants, offer["player"]))
                        continue
                attempt(rnd, Decision(action, offer["area"], 1, offer["player"]))
            elif exp.player is None or exp.area is None or not playable:
                assert attempt(rnd, CloseOffers())
            elif not attempt(rnd, decision_event(rnd, exp, rng)):
                assert attempt(rnd, Decision("stand", exp.area, exp.hand, exp.player))
        else:
            raise AssertionError(exp)
    check_control(rnd)
    return rnd


@settings(max_examples=120, deadline=None)
@given(game=st.sampled_from(GAMES), seed=st.integers(0, 2**32))
def test_control_is_one_present_player_with_a_live_wager_or_the_dealers_fixed_rule(game: str, seed: int) -> None:
    rnd = play_round(game, seed)
    assert rnd.phase in ("settled", "referred")
