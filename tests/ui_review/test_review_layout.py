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
