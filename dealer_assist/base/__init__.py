"""The shared base: cards, money, errors and hand values (what games and the engine share)."""
