"""What section 5 and the claims may ask of a table round, as two small protocols (the
round, ``table.TableRound``, implements both; neither user imports ``table``):

- :class:`Section5Port`: section 5 and 6.1 (``irregularities``): the round's one state value
  (``TableState``: the layout, the records, the phase machine) and the few moves of the
  deal and of play that only the parts make (a card delivered where the deal expects it,
  what a card placed by section 5 decides, the turn, the offers, the dealer, a referral, a
  void);
- :class:`ClaimsPort`: the priority claims (``claims``): the state and two questions.
"""

from __future__ import annotations

from typing import Protocol

from dealer_assist.base.cards import Card
from dealer_assist.engine.table_state import Area, Hand, TableState


class Section5Port(Protocol):
    """The round as section 5 sees it: its state and eleven moves (``irregularities``)."""

    @property
    def st(self) -> TableState:
        """The round's state: read, and changed through its methods (``enter``, ...)."""

    # The deal (table_dealing.Dealing)
    def check_shoe(self, card: Card) -> bool:
        """Record a card the shoe read (5.1); False when it voided the round."""

    def expected_card_target(self) -> tuple[int, int] | None:
        """(area, hand index) of the next card, (0, 0) for the dealer, None if none is due."""

    def deliver(self, card: Card, target: tuple[int, int]) -> None:
        """Put a card where the deal expects it and move the round on."""

    def place_card(self, area: Area, hand: Hand, card: Card, move_on: bool) -> None:
        """A card section 5 puts on a hand itself: the run bet, then bust or 21 (and with
        ``move_on`` everything a dealt card decides, the turn included)."""

    def skip_areas(self, emptied: set[int]) -> None:
        """The initial deal gives no more cards to these areas (every wager withdrawn)."""

    # Settling (table_settlement.Settling)
    def void(self, rule: str, text: str) -> None: ...

    # Play moving on (table_dealer.DealerTurn, table_offers.Offers, table_play.Play)
    def advance(self) -> None: ...

    def dealer_step(self) -> None: ...

    def close_offers(self) -> None: ...

    def reopen_offers(self) -> None:
        """5.12.2: the offers open again once the dealer has the redrawn card."""

    def options(self, area: Area, hand: Hand) -> tuple[str, ...]:
        """The legal choices of the hand in turn (with the offers open)."""


class ClaimsPort(Protocol):
    """A table round as the priority claims see it (3.16, 3.17.2, 3.27.3/3.27.4)."""

    @property
    def st(self) -> TableState: ...

    def check_one_area(self, player: str, area_no: int) -> None: ...

    def maybe_close_offers(self) -> None: ...
