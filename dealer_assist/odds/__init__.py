"""Par sheets: the house edge of every wager of every game, and theoretical win (issue 19).

- ``rulesets``: :class:`RuleSet` — a main wager's rules, from games.py (``for_game``) or a
  standard rule set (``standard``) for checking against published figures.
- ``main_wager``: the combinatorial analysis of the main wager (``analyse``).
- ``outcomes``: the main wager's net-result distribution under that play.
- ``side_bets``: exact enumeration of every side bet's pay-table rows.
- ``sheet``: a game's whole par sheet (``par_sheet``), as JSON or text, and the strategy chart.
- ``theo``: theoretical win per round, player, session, table and pit; a player's rating.

No Qt; the CLI is ``dealer_assist/cli/odds.py``; docs/odds.md explains the method.
"""
