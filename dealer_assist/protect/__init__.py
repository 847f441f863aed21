"""Game protection (issue 36): every shoe's count, every player's bet against it.

- :mod:`~dealer_assist.protect.removal`: effects of removal of each card on the main wager
  and on the side bets, per game and deck count, from the odds engine;
- :mod:`~dealer_assist.protect.counts`: a balanced level-1 count per game fitted to them;
- :mod:`~dealer_assist.protect.stats`: correlation, regression slope, its interval and p-value
  (pure Python);
- :mod:`~dealer_assist.protect.report`: a store's rounds per shoe in order, the true count at
  each round's start, each player's figures and flags (``dealer-assist protect``).

A layer beside the floor: it reads the store, the odds engine and the games; only the CLI
imports it.
"""
