"""`dealer-assist odds`: the par sheet as text or JSON; one error line and exit 2 for bad input."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from dealer_assist.cli import main


def run_odds(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "dealer_assist", "odds", *args],
                          capture_output=True, text=True, timeout=120)


def test_unknown_game_is_refused() -> None:
    proc = run_odds("baccarat")
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.startswith("error: unknown game 'baccarat'")
    assert "lucky8" in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.parametrize(("game", "decks", "allowed"), [
    ("lucky8", "9", "1 to 8"), ("star_elements", "3", "4 to 6"), ("dueling8s", "2", "3 to 8"),
    ("electronic", "7", "2 to 6"), ("ace_race", "1", "2 to 8"),
])
def test_deck_count_outside_2_1_is_refused(game: str, decks: str, allowed: str,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["odds", game, "--decks", decks]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "(2.1)" in err and allowed in err and err.count("\n") == 1


def test_deck_count_that_is_not_a_number(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["odds", "lucky8", "--decks", "six"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --decks") and "2.1" in err


def test_json_has_the_issue_shape(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["odds", "lucky8", "--decks", "1", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["game"] == "lucky8" and doc["decks"] == 1
    assert set(doc["bets"]) == {"main", "pair", "lucky8", "insurance"}
    pair = doc["bets"]["pair"]
    assert set(pair) == {"house_edge", "return_to_player", "hit_frequency", "std_dev", "rows"}
    assert pair["rows"] == [{"row": "Pair", "pays": "11 to 1", "probability": pytest.approx(1 / 17),
                             "probability_exact": "1/17"}]
    # 11:1 on 1/17: the house keeps 5/17 of each unit.
    assert pair["house_edge"] == pytest.approx(5 / 17)
    assert pair["return_to_player"] == pytest.approx(12 / 17)
    main_wager = doc["bets"]["main"]
    assert set(main_wager) == set(pair) | {"push", "element_of_risk", "average_wagered", "printed_chart"}
    assert 0 < main_wager["hit_frequency"] < 1 and main_wager["std_dev"] > 1
    chart = main_wager["printed_chart"]  # issue 27: the chart's own edge, never above the optimal return
    assert chart["house_edge"] >= main_wager["house_edge"]
    # Issue 36: the chart's splits are enumerated; its rows are lower bounds, short of 1 by at most
    # the chance carried on bounded, and each row's bound covers the rest.
    rows, bounded = chart["distribution"], chart["split_rows"]["bounded"]
    assert chart["split_rows"]["method"] == "enumerated"
    assert 1 - bounded - 1e-9 <= sum(row["probability"] for row in rows) <= 1 + 1e-9
    assert sum(row["probability"] + row["bound"] for row in rows) >= 1 - 1e-9
    lucky = {r["row"]: r["probability_exact"] for r in doc["bets"]["lucky8"]["rows"]}
    assert lucky["3 unsuited 8's"] == "1/5525"


def test_dueling8s_json_names_the_transcript_bets(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["odds", "dueling8s", "--decks", "6", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert set(doc["bets"]) == {"main", "superb8", "tie18", "plus21", "bonus678"}
    assert doc["bets"]["tie18"]["rows"][0]["probability_exact"] is None  # exact in floating point (tie18.py), not a fraction


def test_strategy_chart(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["odds", "dueling8s", "--strategy"]) == 0
    out = capsys.readouterr().out
    assert "8-8" in out and " P " in out


def test_text_sheet_names_every_bet() -> None:
    proc = run_odds("electronic", "--decks", "2")
    assert proc.returncode == 0, proc.stderr
    for bet in ("bet_the_set", "royal_match", "kings_bounty", "insurance", "main wager"):
        assert bet in proc.stdout


@pytest.mark.parametrize("game", ["ace_race", "electronic", "star_elements", "lucky8", "dueling8s"])
def test_pdf_par_sheet_of_every_game(game: str, tmp_path: pytest.TempPathFactory) -> None:
    """`odds GAME --pdf FILE` as a user runs it, without --decks (the usual deck count)."""
    out = tmp_path / f"{game}.pdf"  # type: ignore[operator]
    # A coarse split threshold (issue 36): the rows' bounds are wider, the PDF the same; at the
    # default 1e-10 a four-hand game's enumeration alone takes about 130 s of CPU.
    proc = subprocess.run([sys.executable, "-m", "dealer_assist", "odds", game, "--pdf", str(out),
                           "--simulate", "300", "--split-prune", "1e-8"],
                          capture_output=True, text=True, timeout=280)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == f"wrote {out}\n"
    data = out.read_bytes()
    assert data.startswith(b"%PDF-") and data.rstrip().endswith(b"%%EOF")
    assert data.count(b"/Type /Page\n") + data.count(b"/Type /Page ") >= 2  # the sheet and the chart


def test_pdf_to_a_folder_that_does_not_exist(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["odds", "dueling8s", "--pdf", "/nonexistent/folder/sheet.pdf"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: cannot write /nonexistent/folder/sheet.pdf") and err.count("\n") == 1


def test_strategy_prints_the_chart_and_its_exceptions(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["odds", "lucky8", "--decks", "1", "--strategy"]) == 0
    text = capsys.readouterr().out
    assert "composition-dependent exceptions" in text
    # The optimal play stands on 16 of three cards against a ten (issue 27); the chart hits.
    assert any(line.split()[2:6] == ["T", "chart", "H", "optimal"] and "S" in line.split()[6:7]
               and sum(int(c) if c.isdigit() else 10 if c == "T" else 1 for c in line.split()[0].split("-")) == 16
               for line in text.splitlines() if line.startswith("  ") and "against" in line
               and len(line.split()[0].split("-")) == 3)
