#!/bin/sh
# Screenshots of a full heavy round of every game at the three table screen sizes (and the
# same round in the review: its pane and the full-screen replay), each
# under its own Xvfb server of that size (needs Xvfb and ImageMagick's import).
# Usage: scripts/screens_all.sh [OUT_DIR]   (default docs/screenshots)
#   SIZES="1366x768" scripts/screens_all.sh    one size (a loaded machine: one size a run)
#   SHOT_DISPLAY=:0 SIZES=1920x1080 scripts/screens_all.sh
#                                              on an X server already running (a station's
#                                              screen) instead of a new Xvfb; SIZES: its size
#   PY=/path/to/python                         the interpreter (default .venv/bin/python)
set -e
OUT=${1:-docs/screenshots}
PY=${PY:-.venv/bin/python}
SIZES=${SIZES:-1280x800 1366x768 1920x1080}
N=${XVFB_DISPLAY:-57}  # the first display number (one a size)
XPID=
trap '[ -n "$XPID" ] && kill $XPID 2>/dev/null' EXIT  # a failed shot must not leave a server holding :$N
for SIZE in $SIZES; do
    if [ -n "$SHOT_DISPLAY" ]; then
        SHOW=$SHOT_DISPLAY
    else
        Xvfb :$N -screen 0 ${SIZE}x24 >/dev/null 2>&1 &
        XPID=$!
        SHOW=:$N
        sleep 1
    fi
    for GAME in ace_race electronic star_elements lucky8 dueling8s; do
        DISPLAY=$SHOW QT_QPA_PLATFORM=xcb timeout 180 "$PY" -m ui.dealer.heavy_round --game $GAME --size $SIZE --out "$OUT" --review
    done
    if [ -n "$XPID" ]; then
        kill $XPID
        wait $XPID 2>/dev/null || true
        XPID=
    fi
    N=$((N + 1))
done
# the player terminal (issue 38): its own offscreen pictures at 1024x768 and 1920x1080
QT_QPA_PLATFORM=offscreen timeout 300 "$PY" scripts/shot_terminal.py --out "$OUT"
