"""The round's picture (dealer_assist/engine/picture.py, issue 33 build 4): what the station
service sends the screen instead of the events to replay. Written as JSON and read back, it
must equal what the engine made, exactly (every amount to the cent, every tuple a tuple):
after every event of every captured transcript and example, and of rounds played at random
in all five games with offers taken, rulings and settlements included."""

from __future__ import annotations

import json
import random
from decimal import Decimal
from typing import Any

import pytest

from dealer_assist.base.errors import EventFormatError, RuleRefusal, TranscriptError
from dealer_assist.bench.simulate import (
    Shoe,
    electronic_wagers,
    next_event,
    random_strategy,
    table_wagers,
)
from dealer_assist.engine.events import Event
from dealer_assist.engine.irregularities import shoe_notices
from dealer_assist.engine.picture import (
    RoundPicture,
    picture_from_json,
    picture_of,
    picture_to_json,
)
from dealer_assist.engine.round_api import Round
from dealer_assist.engine.transcript import new_round, parse_event, run_document
from dealer_assist.games import GAMES
from tests.engine.helpers import NMB, cards, decide, table, wager
from tests.engine.test_expectation_kept import DOCS


def _round_trip(rnd: Round, like: tuple[dict[str, Any], RoundPicture] | None = None
                ) -> tuple[dict[str, Any], RoundPicture]:
    """The picture as the screen reads it: through JSON text, as the socket carries it; read
    alone and (``like``) beside the picture before (the parts written the same taken from it)."""
    raw = json.loads(json.dumps(picture_to_json(rnd)))
    back = picture_from_json(raw)
    assert back == picture_of(rnd)
    if like is not None:
        assert picture_from_json(raw, like) == back
    # the engine's own values, not a copy of a copy: the layout, what it waits for, the money
    assert back.layout == rnd.view() and back.layout.status == rnd.status()
    assert back.expectation == rnd.expectation()
    assert back.settlements == tuple(rnd.settlements) and back.rulings == tuple(rnd.rulings)
    assert back.shoe.remaining == rnd.shoe.remaining and back.shoe_notices == tuple(shoe_notices(rnd))
    assert GAMES[back.game] is rnd.rules
    return raw, back


def test_every_captured_transcript_reads_back_exactly_after_every_event() -> None:
    games: set[str] = set()
    checked = rulings = settled = 0
    for doc in DOCS:
        try:
            rnd = new_round(doc)
        except TranscriptError:
            continue
        like = None
        for raw in doc["events"]:
            try:
                rnd.apply(parse_event(raw))
            except (EventFormatError, RuleRefusal):
                break
            like = _round_trip(rnd, like)
            back = like[1]
            checked += 1
            rulings += bool(back.rulings)
            settled += bool(back.settlements)
        games.add(rnd.rules.key)
    assert games == set(GAMES)  # all five games
    assert checked > 5000 and rulings > 100 and settled > 500, (checked, rulings, settled)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_rounds_played_at_random_read_back_exactly(game: str) -> None:
    rng = random.Random(33)
    rules = GAMES[game]
    shoe = Shoe(game, rules.decks_usual, 33)
    template = new_round({"game": game, "decks": rules.decks_usual, "areas": 0 if rules.shared_hand else 7})
    checked = offers = 0
    for _ in range(40):
        shoe.round_start()
        rnd = template.fresh()
        wagers: list[Event] = (electronic_wagers(6, True, rng) if rules.shared_hand
                               else table_wagers(game, 7, 2, True, rng))
        rnd.apply_all(wagers)
        like = None
        for _step in range(400):
            like = _round_trip(rnd, like)
            back = like[1]
            checked += 1
            offers += bool(back.expectation.offers or back.expectation.pending)
            ev = next_event(rnd, rnd.expectation(), shoe, random_strategy, rng, take_offers=True)
            if ev is None:
                break
            try:
                rnd.apply(ev)
            except RuleRefusal:
                break
    assert checked > 300 and offers > 0


def test_amounts_are_strings_exact_to_the_cent() -> None:
    # Lucky 8, alice alone on area 1 with 12.50. Cards 8S (area 1), 6H (dealer), 8D (area 1):
    # hand 8 + 8 = 16; she stands. The wager is written as a string and read back as the
    # Decimal 12.50, not a float; the hand's stake likewise.
    doc = table("lucky8", wager("alice", 1, 12.5), NMB, *cards("8S", "6H", "8D"),
                decide("stand", 1), areas=5, seated={"alice": 1})
    rnd = run_document(doc)
    raw = json.loads(json.dumps(picture_to_json(rnd)))
    assert Decimal(raw["layout"]["areas"][0]["wagers"][0]["amount"]) == Decimal("12.50")
    back = picture_from_json(raw)
    (w,) = back.layout.area(1).wagers  # type: ignore[union-attr]
    assert w.amount == Decimal("12.50") and isinstance(w.amount, Decimal)
    assert back.layout.area(1).hands[0].stakes == (("alice", Decimal("12.50")),)  # type: ignore[union-attr]
    assert back.layout.area(1).hands[0].cards == ("8S", "8D")  # type: ignore[union-attr]


def test_a_picture_that_is_not_one_is_refused_naming_it() -> None:
    rnd = run_document(table("lucky8", wager("alice", 1, 10), NMB, areas=5, seated={"alice": 1}))
    raw = picture_to_json(rnd)
    raw["layout"]["areas"][0]["wagers"][0]["amount"] = 10.5  # a float: not exact
    with pytest.raises(TranscriptError, match="picture"):
        picture_from_json(raw)
