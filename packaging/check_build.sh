#!/usr/bin/env bash
# Check the built app in dist/dealer-assist/ against the source tree (packaging/check_build.py):
# layout, version, bundled Qt modules and libraries, `settle` of every example in
# ../shared/examples byte-identical to the source tree, the store, install.sh, and the
# dealer's screen starting offscreen (and on Xvfb when available).
#
#   packaging/build.sh && packaging/check_build.sh
#
# The source tree's side runs with the project's .venv (scripts/dev.py setup makes it);
# PYTHON=/path/to/python chooses another interpreter with dealer-assist installed;
# DEALER_ASSIST_EXAMPLES=DIR another folder of example transcripts (default ../shared/examples).
# Not part of pytest; `scripts/dev.py test` (CI) runs the build and this check beside the
# pytest pass (docs/packaging.md has the measured times).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PYTHON=${PYTHON:-$ROOT/.venv/bin/python}
[ -x "$PYTHON" ] || PYTHON=$ROOT/build/venv/bin/python
exec "$PYTHON" "$ROOT/packaging/check_build.py" "$@"
