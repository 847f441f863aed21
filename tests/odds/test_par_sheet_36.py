"""Issue 36: par sheets a finance department signs.

The split rows against a brute-force deal of a small shoe (every order of the cards, the
dealer drawing to 17 from what is left), the document number, the rules document's
revision against its header, the theo basis and the PDF as the CLI writes it.
"""

from __future__ import annotations

import dataclasses
import json
import re
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from dealer_assist.cli import main
from dealer_assist.odds import sheet
from dealer_assist.odds.main_wager import Versus, hand_total
from dealer_assist.odds.outcomes import split_outcomes
from dealer_assist.odds.rulesets import for_game
from dealer_assist.odds.strategy import Chart
from tests.odds.pdf_text import pdf_text

# A reduced shoe (by point value, ace first): one ace, 5, 6, 7 and 9, four 8s, six tens.
SMALL = (1, 0, 0, 0, 1, 1, 1, 4, 1, 6)
# Against a 10: hit hard 13 and 14 (8-5, 8-6), double 15 (8-7; Lucky 8 doubles after a
# split), else stand (hard 12 or more; soft 19 stands).
CHART = Chart(cells={("hard", 13, 10): "H", ("hard", 14, 10): "H", ("hard", 15, 10): "Dh"})


def _brute(counts: list[int], hands_max: int, h17: bool) -> dict[float, Fraction]:
    """Split 8-8 against a dealer's 10 (Lucky 8 rules: no hole card, a dealer blackjack takes one
    original wager from the hands that did not bust): every order of the remaining cards."""
    out: dict[float, Fraction] = {}

    def draw(cnt: list[int], p: Fraction, then: object) -> None:
        n = sum(cnt)
        for i, c in enumerate(cnt):
            if c:
                cnt[i] -= 1
                then(i + 1, cnt, p * Fraction(c, n))  # type: ignore[operator]
                cnt[i] += 1

    def dealer(cnt: list[int], p: Fraction, results: list[tuple[int, int]]) -> None:
        def second(v: int, cnt2: list[int], p2: Fraction) -> None:
            if v == 1:  # 10-A: blackjack
                busts = sum(-b for b, t in results if t == 0)
                stands = any(t != 0 for b, t in results)
                settle(p2, busts - (1 if stands else 0))
                return
            go(10 + v, False, cnt2, p2)

        def go(hard: int, ace: bool, cnt2: list[int], p2: Fraction) -> None:
            total = hand_total(hard, ace)
            soft17 = total == 17 and ace and hard == 7
            if total >= 17 and not (h17 and soft17):
                d = 0 if total > 21 else total
                net = 0
                for b, t in results:
                    net += -b if t == 0 else (b if d == 0 or t > d else 0 if t == d else -b)
                settle(p2, net)
                return
            draw(cnt2, p2, lambda v, c3, p3: go(hard + v, ace or v == 1, c3, p3))

        draw(cnt, p, second)

    def settle(p: Fraction, net: float) -> None:
        out[float(net)] = out.get(float(net), Fraction(0)) + p

    def finish(cnt: list[int], p: Fraction, formed: int, waiting: int, results: list[tuple[int, int]],
               hand: tuple[int, int]) -> None:
        """The hand in play is done (bet, total; 0 = bust): the next hand, or the dealer."""
        done = [*results, hand]
        if waiting == 0:
            dealer(cnt, p, done)
        else:
            play(cnt, p, formed, waiting - 1, done, None)

    def play(cnt: list[int], p: Fraction, formed: int, waiting: int, results: list[tuple[int, int]],
             hand: tuple[int, bool] | None) -> None:
        if hand is None:  # the hand in play holds its 8: its second card
            def second(v: int, c2: list[int], p2: Fraction) -> None:
                if v == 8 and formed < hands_max:
                    play(c2, p2, formed + 1, waiting + 1, results, None)
                else:
                    if CHART.doubles(8 + v, v == 1, 10):  # one card, two units
                        draw(c2, p2, lambda w, c3, p3: finish(c3, p3, formed, waiting, results,
                                                              (2, 0 if 8 + v + w > 21 else hand_total(8 + v + w, w == 1))))
                    else:
                        play(c2, p2, formed, waiting, results, (8 + v, v == 1))
            draw(cnt, p, second)
            return
        hard, ace = hand
        total = hand_total(hard, ace)
        if hard > 21 or total == 21 or not CHART.hits(hard, ace, 10):
            finish(cnt, p, formed, waiting, results, (1, 0 if hard > 21 else total))
            return
        draw(cnt, p, lambda v, c2, p2: play(c2, p2, formed, waiting, results, (hard + v, ace or v == 1)))

    play(list(counts), Fraction(1), 2, 1, [], None)
    return out


def test_split_rows_against_every_order_of_a_small_shoe() -> None:
    rules = dataclasses.replace(for_game("lucky8", 1), deck=SMALL)
    vs = Versus(rules, 10, 99, CHART)  # dealer probabilities exact for every card removed
    comp = (0, 0, 0, 0, 0, 0, 0, 2, 0, 0)
    dist, unresolved = split_outcomes(vs, 8, comp)
    counts = [SMALL[i] - comp[i] - (1 if i == 9 else 0) for i in range(10)]
    expected = _brute(counts, rules.max_hands, rules.hits_soft_17)
    assert unresolved == 0.0
    assert sum(expected.values()) == 1
    assert set(expected) == {x for x, p in dist.items() if p > 1e-15}
    for x, p in expected.items():
        assert dist[x] == pytest.approx(float(p), abs=1e-12), x


def test_document_number_is_stable_and_names_game_decks_revision_and_data() -> None:
    a = sheet.document_number("lucky8", 6)
    assert a == sheet.document_number("lucky8", 6)  # no clock in it
    assert a.startswith("DA-PS-LUCKY8-6D-Version5-")
    assert a.endswith(sheet.game_data_digest("lucky8", 6)[:8].upper())
    # Another deck count is another rule set: another digest and number.
    assert sheet.game_data_digest("lucky8", 5) != sheet.game_data_digest("lucky8", 6)
    assert len({sheet.document_number(g, 6) for g in sheet.RULES_DOCUMENTS}) == 5


def test_rules_documents_revision_as_their_headers_state_it() -> None:
    folder = Path(__file__).resolve().parents[2] / ".." / "shared" / "rules"
    if not folder.is_dir():
        pytest.skip("../shared/rules is not beside this checkout")
    for game, (name, revision) in sheet.RULES_DOCUMENTS.items():
        head = (folder / name.rsplit("rules/", 1)[1]).read_text(encoding="utf-8")[:400]
        for part in re.findall(r"Version \d+|\d+ \w+ \d{4}", revision):
            assert part in head, (game, part)


def test_kings_bounty_reading_states_both_figures() -> None:
    text = " ".join(sheet.READINGS["electronic"])
    assert "23.16 %" in text and "30.58 %" in text
    # The sheet's own figure is the adopted reading's (A-9 a "20").
    assert sheet.par_sheet("electronic", 6, with_chart=False).house_edge("kings_bounty") == pytest.approx(
        0.231637, abs=5e-7)


def test_theo_basis() -> None:
    assert sheet.parse_theo_basis("chart").kind == "chart"
    assert sheet.parse_theo_basis("optimal").kind == "optimal"
    casino = sheet.parse_theo_basis("1.25")
    assert casino.kind == "casino" and casino.figure == pytest.approx(0.0125)
    for bad in ("best", "250"):
        with pytest.raises(sheet.OddsError):
            sheet.parse_theo_basis(bad)


def test_edge_as_a_fraction_and_combinations() -> None:
    # Pair at one deck (Lucky 8): 3 of the other 51 cards match: 1/17, house edge 5/17.
    bets = sheet.side_bets_of("lucky8", 1)
    assert sheet.edge_fraction(bets["pair"]) == Fraction(5, 17)
    # 1/17 of the 52 x 51 ordered two-card deals: 156 (4 ranks' worth: 13 x 4 x 3).
    assert sheet.combinations(Fraction(1, 17), 52) == (156, 2652, 2)


def test_cli_refuses_a_bad_theo_basis_and_no_game(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["odds", "lucky8", "--theo-basis", "best"]) == 2
    assert capsys.readouterr().err.startswith("error: --theo-basis must be chart, optimal")
    assert main(["odds"]) == 2
    assert capsys.readouterr().err == "error: name a game (or --all DIR)\n"


def test_pdf_through_the_cli_carries_its_document_number(tmp_path: Path) -> None:
    """As a user runs it; a coarse --split-prune keeps the enumeration to seconds (every row then
    bounded: Dueling 8's has no row a split cannot reach, no blackjack or surrender)."""
    out = tmp_path / "d8.pdf"
    proc = subprocess.run([sys.executable, "-m", "dealer_assist", "odds", "dueling8s", "--decks", "3", "--pdf",
                           str(out), "--simulate", "200", "--theo-basis", "1.5", "--split-prune", "1e-3"],
                          capture_output=True, text=True, timeout=280)
    assert proc.returncode == 0, proc.stderr
    data = out.read_bytes()
    assert f"par sheet {sheet.document_number('dueling8s', 3)}".encode() in data
    text = pdf_text(out)
    table = text.split("Net result of one unit")[1].split("Split rows.")[0]
    assert "net (units) probability contribution bound" in table and " exact" not in table
    assert table.count(" + ") >= 17 and " total " in table and " bounded " in table  # -8 to +8, each bounded
    assert "Split rows. Every split enumerated card by card" in text
    assert "sequences less likely than 1e-03 of a round" in text and "every row is bounded" in text


def test_pdf_enumerates_by_default_and_json_does_not(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """`odds GAME --pdf` enumerates at sheet.SPLIT_PRUNE (made coarse here: seconds, not the
    sheets' 1e-10); `--json` without --split-prune keeps the model's rows, marked as estimates."""
    monkeypatch.setattr(sheet, "SPLIT_PRUNE", 1e-3)
    out = tmp_path / "d8.pdf"
    assert main(["odds", "dueling8s", "--decks", "3", "--pdf", str(out), "--simulate", "0"]) == 0
    assert "sequences less likely than 1e-03 of a round" in pdf_text(out)
    capsys.readouterr()
    assert main(["odds", "dueling8s", "--decks", "3", "--json"]) == 0
    chart = json.loads(capsys.readouterr().out)["bets"]["main"]["printed_chart"]
    assert chart["split_rows"]["method"] == "model" and chart["split_rows"]["estimates"] is True
