"""Seven Up's side bets (invented for the tests), as a game's side bets are: a classifier and
its pay table, and the stage each settles at.

- "Lucky Sevens" (its 3.15.7, 4.7), settled at the interim on the player's first two cards:
  both 7s pays 77 to 1, one 7 pays 7 to 1, lost otherwise.
- "Pat Hand" (its 3.15.8, 4.8), settled at the ``final`` stage on the dealer's finished hand:
  wins 7 to 1 when the dealer stands on its first two cards (draws no card), lost otherwise.
"""

from __future__ import annotations

from fractions import Fraction

from dealer_assist.games.sidebets import PayRow, SideBetSpec, SideCards

BOTH_SEVENS = PayRow("Two Sevens", Fraction(77, 1), "4.7")
ONE_SEVEN = PayRow("One Seven", Fraction(7, 1), "4.7")
PAT = PayRow("Dealer Pat Hand", Fraction(7, 1), "4.8")


def lucky_sevens(cards: SideCards) -> PayRow | None:
    sevens = sum(1 for c in cards.player[:2] if c.rank == "7")
    return BOTH_SEVENS if sevens == 2 else ONE_SEVEN if sevens == 1 else None


def pat_hand(cards: SideCards) -> PayRow | None:
    """The dealer's finished hand is its first two cards (two cards never bust)."""
    return PAT if len(cards.dealer) == 2 else None


LUCKY_SEVENS = SideBetSpec("lucky_sevens", "Lucky Sevens", "initial", lucky_sevens, (BOTH_SEVENS, ONE_SEVEN))
PAT_HAND = SideBetSpec("pat_hand", "Pat Hand", "final", pat_hand, (PAT,), dealer_draws_for_it=True,
                       decided_by="dealer")
