#!/usr/bin/env bash
# Build the installable Dealer Assist for Linux: dist/dealer-assist/ (PyInstaller, one folder).
#
#   packaging/build.sh            build (reusing the build venv and PyInstaller's cache)
#   packaging/build.sh --clean    also empty PyInstaller's cache first (a release build)
#
# The build runs in its own virtual environment, build/venv (not the project's .venv):
# it holds only the app's runtime dependencies plus PyInstaller (pip install
# '.[packaging]'), so nothing from the development tools can end up in the bundle. It
# is created on first use and reinstalled whenever pyproject.toml changes. The code is
# frozen from this checkout. Needs Python 3.11+ (PYTHON=/path/to/python3.11 to choose).
# Prints the build time and the size of dist/dealer-assist/ at the end.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
VENV=$ROOT/build/venv
DIST=$ROOT/dist/dealer-assist
CLEAN=()
for arg in "$@"; do
  case "$arg" in
    --clean) CLEAN=(--clean) ;;
    -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "build.sh: unknown option $arg" >&2; exit 2 ;;
  esac
done

say() { printf '[build] %s\n' "$*"; }
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

case "$(uname -s)" in
  Linux) ;;
  *) echo "build.sh: builds the Linux app; run it on Linux" >&2; exit 1 ;;
esac

started=$(now)
PYTHON=${PYTHON:-$(command -v python3.11 || command -v python3)}
if [ ! -x "$VENV/bin/python" ]; then
  say "creating the build venv $VENV with $("$PYTHON" --version)"
  "$PYTHON" -m venv "$VENV"
fi
"$VENV/bin/python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' || {
  echo "build.sh: $VENV uses Python older than 3.11; remove it and set PYTHON" >&2; exit 1; }

# Dependencies (and the package metadata the version is read from) follow pyproject.toml.
wanted=$(sha256sum pyproject.toml | cut -d' ' -f1)
stamp=$VENV/.installed-from
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$wanted" ]; then
  say "installing dealer-assist[packaging] into the build venv"
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check -e ".[packaging]"
  echo "$wanted" > "$stamp"
fi
venv_ready=$(now)

say "PyInstaller $("$VENV/bin/python" -m PyInstaller --version) -> $DIST"
"$VENV/bin/python" -m PyInstaller --noconfirm --log-level WARN "${CLEAN[@]}" \
  --distpath "$ROOT/dist" --workpath "$ROOT/build/pyinstaller" packaging/dealer-assist.spec
frozen=$(now)

"$VENV/bin/python" packaging/assemble.py "$DIST"

# The built program must report the version pyproject.toml gives.
want_version=$("$VENV/bin/python" -c 'import tomllib; print(tomllib.load(open("pyproject.toml", "rb"))["project"]["version"])')
got_version=$("$DIST/dealer-assist" --version)
if [ "$got_version" != "dealer-assist $want_version" ]; then
  echo "build.sh: the built program says '$got_version', pyproject.toml says $want_version" >&2
  exit 1
fi
finished=$(now)

size_bytes=$(du -sb "$DIST" | cut -f1)
files=$(find "$DIST" -type f | wc -l)
say "built $got_version in $DIST"
say "build time: $(elapsed "$started" "$finished") s total (venv $(elapsed "$started" "$venv_ready") s, PyInstaller $(elapsed "$venv_ready" "$frozen") s)"
say "folder size: $(du -sh "$DIST" | cut -f1) ($size_bytes bytes, $files files)"
say "check it: packaging/check_build.sh; install it: sudo $DIST/install.sh"
