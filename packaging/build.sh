#!/usr/bin/env bash
# Build the installable Dealer Assist for Linux: dist/dealer-assist/ (PyInstaller, one folder).
#
#   packaging/build.sh            build (reusing the build venv and PyInstaller's cache)
#   packaging/build.sh --clean    also empty PyInstaller's cache first (a release build)
#
# The build runs in its own virtual environment, build/venv (not the project's .venv):
# it holds only the app's runtime dependencies plus PyInstaller (pip install
# '.[packaging]') and mypy, so no other development tool can end up in the bundle. It
# is created on first use and reinstalled whenever pyproject.toml changes. The code is
# frozen from this checkout. Needs Python 3.11+ (PYTHON=/path/to/python3.11 to choose).
# The rules engine is compiled with mypyc first (scripts/compile_engine.py; mypy as the
# dev extra pins it is in the venv for that, and the spec excludes it) and the build
# ships the compiled engine; if the compile fails the build goes on with the pure-Python
# engine, which behaves the same, and says so. DEALER_ASSIST_PURE_PYTHON=1 skips the
# compile. Prints the build time, the engine and the size of dist/dealer-assist/ at the end.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
VENV=$ROOT/build/venv
DIST=$ROOT/dist/dealer-assist
CLEAN=()
for arg in "$@"; do
  case "$arg" in
    --clean) CLEAN=(--clean) ;;
    -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
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

# The rules engine compiled with mypyc (build/compiled; rebuilt only when dealer_assist/*.py
# changed). The spec bundles it only when it is current; DEALER_ASSIST_ENGINE=pure makes
# it freeze the pure-Python engine instead.
loud() { printf '[build] !!!!!!!! %s\n' "$*" >&2; }
engine=compiled
if [ "${DEALER_ASSIST_PURE_PYTHON:-}" = 1 ]; then
  say "DEALER_ASSIST_PURE_PYTHON=1: not compiling; the build ships the pure-Python engine"
  engine=pure
else
  # mypy (mypyc) as the dev extra pins it, in the build venv only: the spec excludes it.
  mypy_stamp=$VENV/.mypy-from
  if [ ! -f "$mypy_stamp" ] || [ "$(cat "$mypy_stamp")" != "$wanted" ]; then
    mypy_req=$("$VENV/bin/python" -c 'import re, tomllib
dev = tomllib.load(open("pyproject.toml", "rb"))["project"]["optional-dependencies"]["dev"]
print(next(r for r in dev if re.match(r"mypy(?![\w.-])", r)))')
    say "installing $mypy_req into the build venv (to compile the engine)"
    if "$VENV/bin/python" -m pip install -q --disable-pip-version-check "$mypy_req"; then
      echo "$wanted" > "$mypy_stamp"
    fi
  fi
  say "compiling the rules engine with mypyc (about 70 s on 2 cores; cached until dealer_assist/*.py changes)"
  if ! "$VENV/bin/python" scripts/compile_engine.py; then
    engine=pure
  fi
  if [ "$engine" = pure ]; then
    loud "THE ENGINE COMPILE FAILED: this build ships the PURE-PYTHON rules engine (same behaviour, slower)"
  fi
fi
compiled=$(now)

say "PyInstaller $("$VENV/bin/python" -m PyInstaller --version) -> $DIST"
DEALER_ASSIST_ENGINE=$engine "$VENV/bin/python" -m PyInstaller --noconfirm --log-level WARN "${CLEAN[@]}" \
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

# Which engine the built program runs (bench's first line): the truth, whatever was planned.
engine_line=$("$DIST/dealer-assist" bench --rounds 1 | sed -n 1p)
case "$engine_line" in
  "engine: compiled"*) engine_said="compiled with mypyc" ;;
  *) engine_said="PURE PYTHON"
     if [ "$engine" = compiled ]; then
       loud "the compile succeeded but the built program runs the pure-Python engine ($engine_line)"
     fi ;;
esac

size_bytes=$(du -sb "$DIST" | cut -f1)
files=$(find "$DIST" -type f | wc -l)
say "built $got_version in $DIST"
if [ "$engine_said" = "PURE PYTHON" ] && [ "${DEALER_ASSIST_PURE_PYTHON:-}" != 1 ]; then
  loud "rules engine: PURE PYTHON, not the compiled engine (see the compile's output above)"
else
  say "rules engine: $engine_said"
fi
say "build time: $(elapsed "$started" "$finished") s total (venv $(elapsed "$started" "$venv_ready") s, engine compile $(elapsed "$venv_ready" "$compiled") s, PyInstaller $(elapsed "$compiled" "$frozen") s)"
say "folder size: $(du -sh "$DIST" | cut -f1) ($size_bytes bytes, $files files)"
say "check it: packaging/check_build.sh; install it: sudo $DIST/install.sh"
