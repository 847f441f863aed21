"""Dealer Assist: the rules engine, round transcripts, round store and command line.

This package imports neither Qt nor pyserial (see ../shared/DESIGN.md, "Layers").
"""

from importlib import metadata as _metadata

try:
    __version__ = _metadata.version("dealer-assist")
except _metadata.PackageNotFoundError:  # running from a source tree that was not installed
    __version__ = "0.0.0+source"
