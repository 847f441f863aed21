"""``python -m dealer_assist.cli``: the same as ``dealer-assist``."""

import sys

from dealer_assist.cli import main

sys.exit(main())
