import sys

from dealer_assist.cli import main

sys.exit(main())
