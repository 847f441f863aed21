#!/usr/bin/env bash
# Build the installable Dealer Assist for Linux: dist/dealer-assist/ (PyInstaller, one folder)
# and dist/dealer-assist-VERSION-linux-ARCH.tar.gz, the folder packed for the stations
# (README "Installing on a dealer station", docs/station.md).
#
#   packaging/build.sh            build (reusing the build venv and PyInstaller's cache)
#   packaging/build.sh --clean    also empty PyInstaller's cache first (a release build)
#
# The build runs in its own virtual environment, build/venv (not the project's .venv):
# it holds only the app's runtime dependencies plus PyInstaller and mypy, each at the
# version and hash requirements/build.lock pins (pip --require-hashes), so no other
# development tool can end up in the bundle. It is created on first use and reinstalled
# whenever pyproject.toml or the lock file changes. The code is
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
    -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
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

# Dependencies: requirements/build.lock (pinned, hashed); the package metadata the version
# is read from: pyproject.toml.
wanted=$(cat pyproject.toml requirements/build.lock | sha256sum | cut -d' ' -f1)
stamp=$VENV/.installed-from
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$wanted" ]; then
  say "installing requirements/build.lock (pinned, hashed) and dealer-assist into the build venv"
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check --require-hashes -r requirements/build.lock
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check --no-deps -e .
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
  # mypy (mypyc) comes from requirements/build.lock, in the build venv only: the spec excludes it.
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

# The archive the stations are installed from: dealer-assist/ inside, files in a fixed
# order with neutral owners, so two builds of the same tree pack the same way.
version=${got_version#dealer-assist }
TARBALL=$ROOT/dist/dealer-assist-$version-linux-$(uname -m).tar.gz
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$(git log -1 --format=%ct 2>/dev/null || date +%s)" \
  -C "$ROOT/dist" -czf "$TARBALL.part" dealer-assist
mv "$TARBALL.part" "$TARBALL"

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
say "archive: $TARBALL ($(du -h "$TARBALL" | cut -f1))"
say "check it: packaging/check_build.sh; install it on a station: docs/station.md"
