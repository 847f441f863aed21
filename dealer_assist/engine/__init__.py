"""The rules engine: events, the round (table and shared-hand), claims, irregularities, transcripts."""
