"""5.29.1 (5.26.1 in Dueling 8's): withdrawals after a power failure conclude what they empty."""

from __future__ import annotations

from tests.engine.helpers import NMB, cards, one, settle, table, wager

PF = {"type": "power_failure"}


def withdraw(player: str) -> dict[str, str]:
    return {"type": "withdraw", "player": player}


def test_everyone_withdrawing_concludes_the_round() -> None:
    # Power failure during the initial deal (no outcome yet): both players withdraw all wagers.
    doc = table("lucky8", wager("a", 1, 10), wager("b", 2, 10), NMB, *cards("5H", "6H", "9D"), PF,
                withdraw("a"), withdraw("b"))
    out = settle(doc)
    assert out["status"] == "settled" and out["next"] is None
    assert (one(out, "a", "main")["result"], one(out, "a", "main")["rule"]) == ("returned", "5.29.1")
    assert out["net"] == {"a": 0, "b": 0}


def test_an_area_emptied_during_the_initial_deal_gets_no_more_cards() -> None:
    # a withdraws after the first round of cards: area 1 is skipped, the 7♣ is area 2's second card.
    doc = table("dueling8s", wager("a", 1, 10), wager("b", 2, 10), NMB, *cards("5H"), PF,
                withdraw("a"), *cards("7C"))
    out = settle(doc)
    assert out["areas"][0]["hands"][0]["cards"] == ["8S", "5H"]
    assert out["areas"][1]["hands"][0]["cards"] == ["8S", "7C"]
    assert one(out, "a", "main")["rule"] == "5.26.1"
    assert out["next"]["expect"] == "decision" and out["next"]["player"] == "b"
