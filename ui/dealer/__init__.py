"""The dealer's screen."""
