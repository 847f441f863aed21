"""Generated data of game protection: main_removal.json (scripts/protect_removal.py)."""
