"""A sixth game defined only as data, in two files as a product game is: the game module
(``seven_up``) and its side bets (``side_bets``). Registered only by the tests (monkeypatch)."""
