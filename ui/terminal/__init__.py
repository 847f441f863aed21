"""The player terminal's window (issue 38, build 2): Electronic Blackjack at its seat."""
