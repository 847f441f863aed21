"""Section 5 of Electronic Blackjack: its own numbering (5.2 reconstruct, 5.6 dealer's
completed hand, 5.7/5.8 cards drawn together, 5.9 power failure), worked by hand.

Initial deal (3.7): Player card, Dealer card, Player card; the terminals share the
Player hand (3.8). The dealer stands on 17 (3.19).
"""

from __future__ import annotations

from typing import Any

import pytest

from dealer_assist.base.errors import TranscriptError
from dealer_assist.engine.transcript import settle_document

NMB = {"type": "no_more_bets"}


def doc(*events: Any, decks: int = 6) -> dict[str, Any]:
    flat: list[dict[str, Any]] = []
    for e in events:
        flat.extend(e if isinstance(e, list) else [e])
    return {"game": "electronic", "decks": decks, "events": flat}


def bet(player: str, amount: float, kind: str = "main") -> dict[str, Any]:
    return {"type": "wager", "player": player, "bet": kind, "amount": amount}


def cs(names: str) -> list[dict[str, Any]]:
    return [{"type": "card", "card": n} for n in names.split()]


def to(card: str, where: str) -> dict[str, Any]:
    return {"type": "card", "card": card, "to": where}


def decide(action: str, player: str) -> dict[str, Any]:
    return {"type": "decision", "action": action, "player": player}


def err(d: dict[str, Any]) -> str:
    with pytest.raises(TranscriptError) as info:
        settle_document(d)
    return info.value.message


def entry(out: dict[str, Any], player: str, bet_kind: str = "main") -> tuple[str, float, str]:
    found = [s for s in out["settlements"] if s["player"] == player and s["bet"] == bet_kind]
    assert len(found) == 1, found
    return found[0]["result"], found[0]["net"], found[0]["rule"]


def test_foreign_card_voids_the_round_5_1() -> None:
    out = settle_document(doc(bet("t1", 10), bet("t1", 5, "royal_match"), NMB, cs("9H 7Wa")))
    assert out["status"] == "void"
    assert [(r["index"], r["rule"], r["ruling"]) for r in out["rulings"]] == [(4, "5.1", "void")]
    assert sorted((s["bet"], s["result"], s["net"]) for s in out["settlements"]) == [
        ("main", "returned", 0), ("royal_match", "returned", 0)]


def test_dealers_card_put_on_the_player_hand_is_reconstructed_5_2() -> None:
    # 9H Player, 7D should be the Dealer's (3.7) but was put on the Player area: 5.2
    # reconstructs it to the dealer. Player 9 Q = 19 stands; dealer 7 K = 17: t1 wins 10.
    out = settle_document(doc(bet("t1", 10), NMB, cs("9H"), to("7D", "player"), cs("QC"),
                              decide("stand", "t1"), cs("KS")))
    assert [(r["index"], r["rule"], r["ruling"]) for r in out["rulings"]] == [(3, "5.2", "reconstructed")]
    assert out["rulings"][0]["moves"] == [{"card": "7D", "from": "player", "to": "dealer"}]
    assert out["dealer"]["cards"] == ["7D", "KS"]
    assert out["player_cards"] == ["9H", "QC"]
    assert entry(out, "t1") == ("win", 10, "4.5.2")


def test_player_card_put_on_the_dealer_is_reconstructed_5_2() -> None:
    out = settle_document(doc(bet("t1", 10), NMB, to("9H", "dealer"), cs("7D QC")))
    assert out["rulings"][0]["moves"] == [{"card": "9H", "from": "dealer", "to": "player"}]
    assert out["player_cards"] == ["9H", "QC"] and out["dealer"]["cards"] == ["7D"]


def test_correction_found_later_moves_the_card_back_5_2() -> None:
    # Electronic 5.2 has no phase condition: always reconstruct. The program's layout
    # stands; the ruling tells the dealer to move 7D back.
    out = settle_document(doc(bet("t1", 10), NMB, cs("9H 7D QC"), decide("stand", "t1"),
                              {"type": "correction", "index": 3, "to": "player"}))
    assert [(r["rule"], r["ruling"]) for r in out["rulings"]] == [("5.2", "reconstructed")]
    assert out["rulings"][0]["moves"] == [{"card": "7D", "from": "player", "to": "dealer"}]
    assert out["dealer"]["cards"] == ["7D"] and out["player_cards"] == ["9H", "QC"]


def test_correction_naming_where_the_card_already_is_is_refused() -> None:
    message = err(doc(bet("t1", 10), NMB, cs("9H 7D QC"), {"type": "correction", "index": 3, "to": "dealer"}))
    assert "already lies with the dealer" in message


def test_card_to_the_dealers_completed_hand_is_removed_5_6() -> None:
    # Dealer 7D KS = 17 stands: t1's 19 wins 10. 5C then dealt to the dealer: 5.6 removes
    # it; the outcome stands.
    out = settle_document(doc(bet("t1", 10), NMB, cs("9H 7D QC"), decide("stand", "t1"), cs("KS"),
                              to("5C", "dealer")))
    assert [(r["index"], r["rule"], r["ruling"]) for r in out["rulings"]] == [(7, "5.6", "discarded")]
    assert out["dealer"] == {"cards": ["7D", "KS"], "total": 17}
    assert entry(out, "t1") == ("win", 10, "4.5.2")


def test_cards_drawn_together_in_a_known_order_are_entered_in_that_order_5_7() -> None:
    # 9H QC = 19 hits (a terminal may); 2C and 3D together, order known: 2C is the
    # Player's (21, complete), 3D the dealer's: 7D 3D = 10, then KS = 20. 21 beats 20: t1
    # wins 10 (4.5.2).
    out = settle_document(doc(bet("t1", 10), NMB, cs("9H 7D QC"), decide("hit", "t1"),
                              {"type": "multi", "cards": ["2C", "3D"], "disclosed": [], "order_known": True},
                              cs("KS")))
    assert [(r["index"], r["rule"], r["ruling"]) for r in out["rulings"]] == [(6, "5.7", "dealt")]
    assert out["dealer"] == {"cards": ["7D", "3D", "KS"], "total": 20}
    assert entry(out, "t1") == ("win", 10, "4.5.2")


def test_cards_drawn_together_in_unknown_order_void_the_round_5_8() -> None:
    out = settle_document(doc(bet("t1", 10), NMB, cs("9H 7D QC"), decide("hit", "t1"),
                              {"type": "multi", "cards": ["2C", "3D"], "disclosed": []}))
    assert out["status"] == "void"
    assert [(r["rule"], r["ruling"]) for r in out["rulings"]] == [("5.8", "void")]
    assert entry(out, "t1") == ("returned", 0, "5.8")


def test_power_failure_terminals_play_the_default_strategy_5_9_1() -> None:
    # Player 5H 3C = 8; power failure: both terminals play 3.18.1 (draw to hard 12 /
    # soft 17): 8 + 2 = 10, + 9 = 19 stands. Dealer 7D + KS = 17: both win 10.
    out = settle_document(doc(bet("t1", 10), bet("t2", 10), NMB, cs("5H 7D 3C"), {"type": "power_failure"},
                              cs("2S 9S KS")))
    assert [(r["index"], r["rule"], r["ruling"]) for r in out["rulings"]] == [(6, "5.9.1", "continue")]
    assert out["players"][0]["hands"][0]["cards"] == ["5H", "3C", "2S", "9S"]
    assert entry(out, "t1") == ("win", 10, "4.5.2")
    assert entry(out, "t2") == ("win", 10, "4.5.2")


def test_subsequent_player_card_put_on_the_dealer_is_reconstructed_5_2() -> None:
    # Player 5H 3C = 8, dealer 7D. t1 hits: the next card is the Player's, but the dealer
    # put 9S on the Dealer area: 5.2 moves it to the Player hand: 17, t1 stands. Dealer
    # 7 K = 17: push (4.8.1).
    out = settle_document(doc(bet("t1", 10), NMB, cs("5H 7D 3C"), decide("hit", "t1"), to("9S", "dealer"),
                              decide("stand", "t1"), cs("KS")))
    assert [(r["index"], r["rule"], r["ruling"]) for r in out["rulings"]] == [(6, "5.2", "reconstructed")]
    assert out["rulings"][0]["moves"] == [{"card": "9S", "from": "dealer", "to": "player"}]
    assert out["players"][0]["hands"][0]["cards"] == ["5H", "3C", "9S"]
    assert entry(out, "t1") == ("push", 0, "4.8.1")


def test_card_dealt_before_anyone_asked_is_the_next_players_card_5_2() -> None:
    # Player 5H 3C = 8; before t1 decides, 9S is dealt to the Player area: taken back, it
    # is the next card. t1 hits and receives it without a new shoe card: 17, stands.
    # Dealer 7 K = 17: push.
    out = settle_document(doc(bet("t1", 10), NMB, cs("5H 7D 3C"), to("9S", "player"), decide("hit", "t1"),
                              decide("stand", "t1"), cs("KS")))
    assert [(r["index"], r["rule"], r["ruling"]) for r in out["rulings"]] == [(5, "5.2", "reconstructed")]
    assert out["rulings"][0]["moves"] == [{"card": "9S", "from": "player", "to": "shoe"}]
    assert out["players"][0]["hands"][0]["cards"] == ["5H", "3C", "9S"]
    assert entry(out, "t1") == ("push", 0, "4.8.1")


def test_card_dealt_early_that_no_terminal_takes_is_the_dealers_5_2() -> None:
    # Player 9H QC = 19; 6C is dealt before t1 decides; t1 stands, so 6C is the dealer's
    # next card: 7 6 = 13, then 5S = 18. t1's 19 wins 10.
    out = settle_document(doc(bet("t1", 10), NMB, cs("9H 7D QC"), to("6C", "player"), decide("stand", "t1"),
                              cs("5S")))
    assert out["dealer"]["cards"] == ["7D", "6C", "5S"]
    assert entry(out, "t1") == ("win", 10, "4.5.2")
