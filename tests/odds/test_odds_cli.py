"""`dealer-assist odds`: the par sheet as text or JSON; one error line and exit 2 for bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from dealer_assist.cli import main
from dealer_assist.cli.odds import simulation_check
from dealer_assist.odds.pdf import write_pdf
from dealer_assist.odds.sheet import par_sheet, simulation_seed
from tests.odds.pdf_text import page_texts, pdf_text


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
    assert set(main_wager) == set(pair) | {"push", "element_of_risk", "average_wagered", "printed_chart",
                                           "split_rows"}
    assert 0 < main_wager["hit_frequency"] < 1 and main_wager["std_dev"] > 1
    chart = main_wager["printed_chart"]  # issue 27: the chart's own edge, never above the optimal return
    assert chart["house_edge"] >= main_wager["house_edge"]
    # Issue 36: without --split-prune the JSON keeps the split model's rows (no enumeration: seconds,
    # not minutes) and says they are estimates, each row without a bound; they sum to 1.
    for split_rows in (main_wager["split_rows"], chart["split_rows"]):
        assert split_rows["method"] == "model" and split_rows["estimates"] is True
    assert all(row["bound"] is None for row in chart["distribution"])
    assert sum(row["probability"] for row in chart["distribution"]) == pytest.approx(1, abs=1e-9)
    lucky = {r["row"]: r["probability_exact"] for r in doc["bets"]["lucky8"]["rows"]}
    assert lucky["3 unsuited 8's"] == "1/5525"


def test_json_with_split_prune_enumerates_the_splits(capsys: pytest.CaptureFixture[str]) -> None:
    """--split-prune P with --json: the chart's splits enumerated (a coarse P: seconds); the rows
    are lower bounds, short of 1 by at most the chance carried on bounded, and each row's bound
    covers the rest; the optimal play's rows stay the model's."""
    assert main(["odds", "dueling8s", "--decks", "3", "--json", "--split-prune", "1e-3"]) == 0
    doc = json.loads(capsys.readouterr().out)
    chart = doc["bets"]["main"]["printed_chart"]
    split_rows, rows = chart["split_rows"], chart["distribution"]
    assert split_rows["method"] == "enumerated" and split_rows["estimates"] is False
    assert split_rows["prune"] == 1e-3 and split_rows["bounded"] > 0
    assert 1 - split_rows["bounded"] - 1e-9 <= sum(row["probability"] for row in rows) <= 1 + 1e-9
    assert sum(row["probability"] + row["bound"] for row in rows) >= 1 - 1e-9
    assert all(0 <= row["bound"] <= split_rows["bounded"] for row in rows)
    assert doc["bets"]["main"]["split_rows"]["method"] == "model"


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
def test_pdf_par_sheet_of_every_game(game: str, tmp_path: Path) -> None:
    """Every game's PDF at its usual deck count, with the engine's simulation. The split rows are
    the model's here (par_sheet's default): `odds GAME --pdf` enumerates them, a minute or two of
    CPU for a four-hand game, so the CLI's enumerated sheet is tested on Dueling 8's at 3 decks
    (test_par_sheet_36) and the enumerated rows' printing on a small shoe (test_split_enumeration)."""
    sheet = par_sheet(game)
    out = tmp_path / f"{game}.pdf"
    write_pdf(sheet, str(out), simulation=simulation_check(sheet, 300))
    data = out.read_bytes()
    assert data.startswith(b"%PDF-") and data.rstrip().endswith(b"%%EOF")
    assert data.count(b"/Type /Page\n") + data.count(b"/Type /Page ") >= 2  # the sheet and the chart
    text = pdf_text(out)
    assert "Engine simulation. 300 rounds" in text
    assert "Split rows. Split hands follow the analysis' model of a split" in text
    # Issue 36: the sheet's own seed and the command that re-runs its check alone.
    decks = sheet.decks
    assert f"Seed {simulation_seed(game, decks)} : this sheet's own, drawn from base seed 36" in text  # bold, then not
    assert f"dealer-assist odds {game} --decks {decks} --confirm --simulate 300 --seed 36" in text
    # No page holds a block alone (the sign-off was a page of its own in Dueling 8's, three
    # exception rows one in Electronic's): every page carries a section's worth of text, its
    # footer says which page of how many, and the sign-off closes the figures, before the chart.
    pages = page_texts(out)
    for n, page in enumerate(pages, 1):
        assert f"page {n} of {len(pages)}" in page and len(page) > 800, (n, page[:200])
    assert text.index("Sign-off") < text.index("The printed strategy chart")


def test_pdf_to_a_folder_that_does_not_exist(capsys: pytest.CaptureFixture[str]) -> None:
    # Refused before the sheet is computed (its enumeration takes minutes).
    assert main(["odds", "lucky8", "--pdf", "/nonexistent/folder/sheet.pdf"]) == 2
    err = capsys.readouterr().err
    assert err == "error: cannot write /nonexistent/folder/sheet.pdf: no folder /nonexistent/folder\n"


def test_strategy_prints_the_chart_and_its_exceptions(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["odds", "lucky8", "--decks", "1", "--strategy"]) == 0
    text = capsys.readouterr().out
    assert "composition-dependent exceptions" in text
    # The optimal play stands on 16 of three cards against a ten (issue 27); the chart hits.
    assert any(line.split()[2:6] == ["T", "chart", "H", "optimal"] and "S" in line.split()[6:7]
               and sum(int(c) if c.isdigit() else 10 if c == "T" else 1 for c in line.split()[0].split("-")) == 16
               for line in text.splitlines() if line.startswith("  ") and "against" in line
               and len(line.split()[0].split("-")) == 3)


def test_each_sheet_its_own_seed() -> None:
    """Issue 36: the 29 sheets' simulations were all seeded 36. Each sheet's seed is the first 8
    hex digits of SHA-256 of "base/game/decks": the same sheet the same seed, two sheets two."""
    import hashlib

    assert simulation_seed("dueling8s", 7) == simulation_seed("dueling8s", 7)
    assert simulation_seed("dueling8s", 7) == int(hashlib.sha256(b"36/dueling8s/7").hexdigest()[:8], 16)
    assert simulation_seed("dueling8s", 7) != simulation_seed("dueling8s", 6)
    assert simulation_seed("dueling8s", 7) != simulation_seed("dueling8s", 7, base=37)
    from dealer_assist.games import GAMES

    every = [simulation_seed(g, d) for g, r in GAMES.items() for d in range(r.deck_range[0], r.deck_range[1] + 1)]
    assert len(every) == len(set(every))  # no two sheets (29 at 2.1's deck counts) share a seed


def test_confirm_reruns_the_sheets_simulation(capsys: pytest.CaptureFixture[str]) -> None:
    """`odds GAME --confirm` plays the sheet's own seed, as its PDF does (simulation_check), without
    the split enumeration; --seed BASE draws another seed; a confirmation without rounds is refused."""
    sheet = par_sheet("dueling8s", 3)
    check = simulation_check(sheet, 200)
    assert check is not None and check.seed == simulation_seed("dueling8s", 3) and check.base_seed == 36
    assert main(["odds", "dueling8s", "--decks", "3", "--confirm", "--simulate", "200"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"Dueling 8's 21+, 3 decks: seed {check.seed}, 200 rounds (1,400 main wagers): "
                          f"house edge {check.edge * 100:.4f} %")
    assert main(["odds", "dueling8s", "--decks", "3", "--confirm", "--simulate", "200", "--seed", "7"]) == 0
    assert f"seed {simulation_seed('dueling8s', 3, 7)}," in capsys.readouterr().out
    assert main(["odds", "dueling8s", "--decks", "3", "--confirm", "--simulate", "0"]) == 2
    assert capsys.readouterr().err == "error: --confirm needs --simulate ROUNDS of 1 or more\n"
    assert main(["odds", "dueling8s", "--confirm", "--seed", "-1"]) == 2
    assert capsys.readouterr().err == "error: --seed must be 0 or more\n"
