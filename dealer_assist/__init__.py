"""Dealer Assist: the rules engine, round transcripts, round store and command line.

This package imports neither Qt nor pyserial (see ../shared/DESIGN.md, "Layers").
``__version__`` is read from the installed package's metadata when first asked for, never
on the way to a command's work (importlib.metadata costs tens of milliseconds at start-up).
"""

from typing import TYPE_CHECKING


def version() -> str:
    """The installed version (one place: pyproject.toml), else ``0.0.0+source``."""
    from importlib import metadata

    try:
        return metadata.version("dealer-assist")
    except metadata.PackageNotFoundError:  # running from a source tree that was not installed
        return "0.0.0+source"


if TYPE_CHECKING:
    __version__: str
else:
    def __getattr__(name: str) -> str:  # PEP 562: `from dealer_assist import __version__`
        if name == "__version__":
            return version()
        raise AttributeError(f"module 'dealer_assist' has no attribute {name!r}")
