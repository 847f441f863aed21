"""Widgets and helpers every window family shares."""
