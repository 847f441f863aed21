"""The pit supervisor's review window and the pit view."""
