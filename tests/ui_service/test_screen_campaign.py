"""A short screen crash campaign (issue 23): the dealer's screen, a client of a real `station
serve`, SIGKILLed 5 times at random moments while it deals Lucky 8 with the shoe on a pty;
nothing lost. The long run (300 kills) is `scripts/crash_test.py --screen-client`."""

from __future__ import annotations

from pathlib import Path

from tests.ui_service.screen_campaign import run


def test_five_kills_of_the_screen_lose_no_round_no_result_and_no_card(tmp_path: Path) -> None:
    figures, lines = run(tmp_path, 5, seed=5, max_delay=5.0)
    assert figures.kills == 5
    # a card the shoe sent at the very end may still be held by the service (in flight, or the
    # tentative implied hit of the last decision): journaled, on record, not yet an event
    assert figures.cards_dealt > 0 and figures.cards_recorded + figures.held_at_end == figures.cards_dealt, lines
    assert figures.stuck == [] and figures.results_missing == [] and figures.cards_lost == [], lines
    assert figures.verify == "ok", lines
