"""Entry script of the frozen build: the same as the ``dealer-assist`` console script.

PyInstaller freezes this file (packaging/dealer-assist.spec); with no arguments the
command opens the dealer's screen, with a subcommand it runs that tool
(``dealer-assist settle FILE``, ``dealer-assist --version``, ...).
"""

import multiprocessing
import sys

from dealer_assist.cli import main

if __name__ == "__main__":
    # `history verify --jobs N` checks a large store in worker processes (spawned): in the
    # frozen program a worker is this executable again, which this call turns into the worker.
    multiprocessing.freeze_support()
    sys.exit(main())
