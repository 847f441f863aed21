"""The shoe on record (issue 36, Build 1; spec/round-script.md ``shoe``): settle accepts the
optional field and does not need it, refuses a bad one naming the field; ``settle --record``
keeps it and ``history export`` carries it; the table session names a new shoe at every
shuffle and counts the cards (burns included) out of it before each round."""

from __future__ import annotations

import json
import subprocess
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from dealer_assist.base.cards import parse_card
from dealer_assist.engine.events import Burn, CardDrawn, Decision, Wager
from dealer_assist.engine.session import TableSession

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT.parent / "shared" / "examples"
if not EXAMPLES.exists():
    EXAMPLES = Path("/work/shared/examples")


def cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "dealer_assist", *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=60, input=stdin)


def example(name: str) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((EXAMPLES / name).read_text(encoding="utf-8"))
    return doc


def with_shoe(doc: dict[str, Any], shoe: Any) -> dict[str, Any]:
    out = {k: v for k, v in doc.items() if k != "events"}
    out["shoe"] = shoe
    out["events"] = doc["events"]
    return out


@pytest.mark.parametrize("name", ["lucky8-pair-and-double.json", "electronic-shared-hand.json",
                                  "dueling8s-split-and-superb8.json"])
def test_settle_accepts_a_shoe_and_prints_the_same_output_as_without(name: str, tmp_path: Path) -> None:
    plain = cli("settle", str(EXAMPLES / name))
    assert plain.returncode == 0, plain.stderr
    path = tmp_path / "with.json"
    path.write_text(json.dumps(with_shoe(example(name), {"id": "S-2026-11-29-014", "dealt": 57})))
    shod = cli("settle", str(path))
    assert shod.returncode == 0, shod.stderr
    assert shod.stdout == plain.stdout


@pytest.mark.parametrize(("shoe", "says"), [
    ({"id": "", "dealt": 3}, "shoe.id"),
    ({"id": 14, "dealt": 3}, "shoe.id"),
    ({"dealt": 3}, "shoe.id"),
    ({"id": "S-1", "dealt": -1}, "shoe.dealt"),
    ({"id": "S-1", "dealt": "3"}, "shoe.dealt"),
    ({"id": "S-1", "dealt": True}, "shoe.dealt"),
    ({"id": "S-1", "dealt": 2.5}, "shoe.dealt"),
    ({"id": "S-1"}, "shoe.dealt"),
    ({"id": "S-1", "dealt": 6 * 52 + 1}, "shoe.dealt"),  # more cards than 6 decks hold
    ({"id": "S-1", "dealt": 3, "cut": 200}, "shoe: unknown field 'cut'"),
    ("S-1", "shoe is an object"),
    ({"id": "S-\n1", "dealt": 3}, "shoe.id"),
])
def test_a_bad_shoe_is_refused_naming_the_field(shoe: Any, says: str, tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(with_shoe(example("lucky8-pair-and-double.json"), shoe)))
    done = cli("settle", str(path))
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.startswith("error: ") and says in done.stderr and "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1


def test_settle_record_keeps_the_shoe_and_history_export_carries_it(tmp_path: Path) -> None:
    db = tmp_path / "t1.db"
    doc = with_shoe(example("lucky8-pair-and-double.json"), {"id": "S-2026-11-29-014", "dealt": 57})
    path = tmp_path / "round.json"
    path.write_text(json.dumps(doc))
    recorded = cli("settle", str(path), "--record", str(db), "--table", "T1")
    assert recorded.returncode == 0, recorded.stderr
    listed = cli("history", "--db", str(db), "list", "--json")
    assert listed.returncode == 0, listed.stderr
    (entry,) = json.loads(listed.stdout)
    exported = cli("history", "--db", str(db), "export", str(entry["id"]))
    assert exported.returncode == 0, exported.stderr
    back = json.loads(exported.stdout)
    assert back["shoe"] == {"id": "S-2026-11-29-014", "dealt": 57}
    assert list(back)[-2:] == ["shoe", "events"]  # the header's last field, before the events
    again = cli("settle", "-", stdin=exported.stdout)
    assert again.returncode == 0 and again.stdout == recorded.stdout


# ---------------------------------------------------------------------- the table session
HEADER = {"game": "lucky8", "decks": 6, "areas": 7}


def ids() -> Any:
    n = iter(range(1, 100))
    return lambda: f"S-{next(n)}"


def play_one(session: TableSession, cards: str, burn: str | None = None) -> None:
    """p1 bets 10 on area 1 and stands on two cards; the dealer draws to 17 or more."""
    session.apply(Wager(player="p1", bet="main", amount=Decimal(10), area=1))
    if burn:
        session.apply(Burn(parse_card(burn)))
    it = iter(cards.split())
    for _ in range(3):
        session.card(CardDrawn(parse_card(next(it))))
    session.apply(Decision(action="stand", area=1, hand=1, player="p1"))
    for rest in it:
        session.card(CardDrawn(parse_card(rest)))
    assert session.concluded


def test_the_session_names_the_shoe_and_counts_every_card_out_of_it() -> None:
    session = TableSession(HEADER, shoe_ids=ids())
    assert session.config["shoe"] == {"id": "S-1", "dealt": 0}
    play_one(session, "10S 9H QD 8C")  # 4 cards: p1 20, dealer 9+8 = 17
    session.new_round()
    assert session.config["shoe"] == {"id": "S-1", "dealt": 4}
    play_one(session, "10S 6H QD 3C 9C", burn="5D")  # a burn and 5 cards: dealer 6+3+9 = 18
    session.new_round()
    assert session.config["shoe"] == {"id": "S-1", "dealt": 10}
    session.shoe_loaded()  # a freshly shuffled shoe while the next round takes bets
    assert session.config["shoe"] == {"id": "S-2", "dealt": 0}
    play_one(session, "10S 9H QD 8C")
    session.shoe_loaded()  # shuffled between rounds: the next round is dealt from it
    session.new_round()
    assert session.config["shoe"] == {"id": "S-3", "dealt": 0}


def test_after_a_restart_the_last_rounds_shoe_goes_on() -> None:
    session = TableSession(HEADER, shoe_ids=ids())
    last = {**HEADER, "shoe": {"id": "S-old", "dealt": 12}}
    session.continue_shoe(last, 5)
    assert session.config["shoe"] == {"id": "S-old", "dealt": 17}
    other = TableSession({**HEADER, "decks": 8}, shoe_ids=ids())
    other.continue_shoe(last, 5)  # another deck count: another shoe
    assert other.config["shoe"] == {"id": "S-1", "dealt": 0}


def test_a_shuffle_during_a_round_counts_its_last_cards_in_the_new_shoe() -> None:
    """LOADED after a round's first 3 cards: the rest of the round comes out of the new shoe.
    p1 10S QD (20, stands), dealer 9H: shuffle, then 5C (14), 3D (17, stands): 2 cards of S-2
    out before the next round; 5.1 counts them as S-2's (shoe_dealt), 312 - 2 left."""
    session = TableSession(HEADER, shoe_ids=ids())
    session.apply(Wager(player="p1", bet="main", amount=Decimal(10), area=1))
    for c in "10S 9H QD".split():
        session.card(CardDrawn(parse_card(c)))
    session.shoe_loaded()
    assert session.config["shoe"] == {"id": "S-1", "dealt": 0}  # the round's own header stands
    session.apply(Decision(action="stand", area=1, hand=1, player="p1"))
    for c in "5C 3D".split():
        session.card(CardDrawn(parse_card(c)))
    assert session.concluded
    session.new_round()
    assert session.config["shoe"] == {"id": "S-2", "dealt": 2}
    assert session.config["shoe_dealt"] == ["5C", "3D"] and session.round.shoe.remaining == 310


def test_two_shuffles_in_a_round_count_only_after_the_last() -> None:
    """LOADED after 3 cards, the dealer's 5C, LOADED again, 3D: only 3D is the last shoe's."""
    session = TableSession(HEADER, shoe_ids=ids())
    session.apply(Wager(player="p1", bet="main", amount=Decimal(10), area=1))
    for c in "10S 9H QD".split():
        session.card(CardDrawn(parse_card(c)))
    session.shoe_loaded()
    session.apply(Decision(action="stand", area=1, hand=1, player="p1"))
    session.card(CardDrawn(parse_card("5C")))
    session.shoe_loaded()
    session.card(CardDrawn(parse_card("3D")))
    session.new_round()
    assert session.config["shoe"] == {"id": "S-3", "dealt": 1} and session.config["shoe_dealt"] == ["3D"]


def test_a_shuffle_after_the_round_finished_starts_the_next_from_zero() -> None:
    session = TableSession(HEADER, shoe_ids=ids())
    play_one(session, "10S 9H QD 8C")
    session.shoe_loaded()  # every card of the round came out before it
    session.new_round()
    assert session.config["shoe"] == {"id": "S-2", "dealt": 0} and "shoe_dealt" not in session.config
