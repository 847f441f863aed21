"""Benchmarks and the simulator (not part of the rules engine's contract)."""
