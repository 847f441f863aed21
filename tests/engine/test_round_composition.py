"""The table round composed around one state value (issue 26.3): the parts share the
round's one ``TableState``, no class derives from another by phase, a round is freed as
soon as nobody holds it (no reference cycle), and section 5 sees only ``Section5Port``."""

from __future__ import annotations

import ast
import gc
from pathlib import Path

from dealer_assist.engine.table import TableRound
from dealer_assist.engine.table_port import Section5Port
from dealer_assist.engine.transcript import new_round, parse_event
from tests.engine.helpers import NMB, cards, decide, table, wager

ENGINE = Path(__file__).resolve().parents[2] / "dealer_assist" / "engine"
PARTS = ("table_settlement", "table_betting", "table_dealer", "table_offers", "table_play", "table_dealing")


def _played() -> TableRound:
    # Lucky 8: a 9H+7C = 16 hits 10S and busts; b 8S+9S = 17 stands; dealer 5D KD 3C = 18.
    doc = table("lucky8", wager("a", 1, 10), wager("b", 2, 10), NMB, *cards("9H", "8S", "5D", "7C", "9S"),
                decide("hit", 1), *cards("10S"), decide("stand", 2), *cards("KD", "3C"))
    rnd = new_round({k: v for k, v in doc.items() if k != "events"})
    assert isinstance(rnd, TableRound)
    for e in doc["events"]:  # type: ignore[attr-defined]
        rnd.apply(parse_event(e))
    return rnd


def test_every_part_changes_the_one_state_of_its_round() -> None:
    rnd = _played()
    parts = (rnd.settling, rnd.betting, rnd.dealer_turn, rnd.offers, rnd.play, rnd.dealing)
    assert all(p.st is rnd.st for p in parts)
    assert rnd.phase == "settled" and rnd.st.phase == "settled"
    # b's 17 loses to the dealer's 18; a busted on 26.
    assert [(s.player, s.result, s.net) for s in rnd.settlements if s.bet == "main"] == [
        ("a", "lose", -10), ("b", "lose", -10)]
    other = rnd.fresh()
    assert isinstance(other, TableRound) and other.st is not rnd.st and other.st.events == []


def test_no_class_of_a_table_round_derives_from_another() -> None:
    assert TableRound.__mro__[1:] == (object,)
    for name in (*PARTS, "table", "table_state"):
        tree = ast.parse((ENGINE / f"{name}.py").read_text())
        for node in tree.body:
            if isinstance(node, ast.ClassDef) and node.name not in ("GameBets",):
                # A value may extend the base layer's (a hand: base.hands.RunningHand); no
                # class of the round derives from another of the engine's.
                bases = [b.id for b in node.bases if isinstance(b, ast.Name)]
                assert len(bases) == len(node.bases) and set(bases) <= {"RunningHand"}, (name, node.name)


def test_a_round_is_freed_without_the_garbage_collector() -> None:
    """A reference cycle would keep every finished round (and its ~150 objects) alive until
    the collector runs: the simulator and the bench make thousands a second."""
    gc.collect()
    gc.disable()
    try:
        rnd = _played()
        del rnd
        assert gc.collect() == 0
    finally:
        gc.enable()


def test_section_5_sees_the_state_and_eleven_moves() -> None:
    members = {n for n in vars(Section5Port) if not n.startswith("_")}
    assert members == {
        "st", "check_shoe", "expected_card_target", "deliver", "place_card", "skip_areas",
        "void", "advance", "dealer_step", "close_offers", "reopen_offers", "options",
    }
    source = (ENGINE / "irregularities.py").read_text()
    assert "Section5Port" in source and "TableRound" not in source
