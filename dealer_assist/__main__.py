import sys

from dealer_assist.cli import main

if __name__ == "__main__":  # not when a worker process (history verify --jobs) imports it
    sys.exit(main())
