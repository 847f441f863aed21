"""The review by touch at every table size (issue 34 item 7 and its layout test): ``dealer-assist
review --db FILE`` as a supervisor starts it (the PIN at its gate), on 1280×800, 1366×768 and
1920×1080 in turn, every tab and a round's own tabs shown, the note dialog and the full-screen replay opened: every window
inside its screen, every touch control inside its window, at least 48 px high with 16 px type.
See tests/ui_review/review_pit_walk.py."""

from __future__ import annotations

from pathlib import Path

from tests.ui_review.conftest import SUE_PIN, Recorded
from tests.ui_review.review_pit_walk import SUPERVISOR_PIN, run_walk


def test_the_review_fits_every_screen_and_a_finger(recorded: Recorded, tmp_path: Path) -> None:
    assert SUPERVISOR_PIN == SUE_PIN
    result = run_walk(["review", str(recorded.path)], tmp_path)
    assert "error" not in result, (result.get("error"), result.get("problems"), result.get("stderr"))
    assert "review: ReviewWindow" in result["opened"]
    assert sum("note" in o for o in result["opened"]) == 3  # the note dialog on each screen
    assert sum("ReplayWindow" in o for o in result["opened"]) == 3  # and the full-screen replay
    # the gate ×3; each screen: Rounds, summaries, station events, a round's tabs, the note
    assert int(result["checks"]) >= 3 + 3 * 5
    problems = list(result["problems"])
    assert problems == [], f"{len(problems)} problems:\n" + "\n".join(problems[:80])


def test_the_replay_of_the_heaviest_round_is_readable_at_every_size(tmp_path: Path) -> None:
    """Star Elements' heaviest round (ui.dealer.heavy_round: seven areas of three players with
    every side bet, area 1 split to four hands, a double) played on the dealer's screen, then
    reviewed as a supervisor at the three sizes: the replay in the review's pane and on the
    whole screen has the dealer and every area inside the layout and none over another, every
    card readable and uncovered, every pay tag whole (a net's tag of 21 px or more) and off the
    cards, no label cut, the controls and the sorting headers 48 px (review_pit_walk)."""
    from dealer_assist.store import TEST_PIN_COST, Store
    from ui.dealer.heavy_round import run

    run("star_elements", (1366, 768), tmp_path / "shots", check=lambda _step, _window: None,
        db_dir=str(tmp_path), keep=tmp_path / "kept")
    path = tmp_path / "kept" / "screens.db"
    with Store.open(path, pin_cost=TEST_PIN_COST) as store:
        store.create_user("sue", SUE_PIN, roles=["supervisor"], actor="test")
    result = run_walk(["review", str(path)], tmp_path)
    assert "error" not in result, (result.get("error"), result.get("problems"), result.get("stderr"))
    assert sum("ReplayWindow" in o for o in result["opened"]) == 3  # the full-screen replay on each
    problems = list(result["problems"])
    assert problems == [], f"{len(problems)} problems:\n" + "\n".join(problems[:80])
