"""Screenshot: an implied hit's card that came back after a crash, held, asking Hit or Double.

    DISPLAY=:9 .venv/bin/python scripts/shot_held_card.py --size 1280x800 [--out docs/screenshots]

Runs ``tests.ui.recording_table --implied`` in a child process (Lucky 8: alice 6♥ 5♣
against the dealer's 9♦, then 10♠ dealt without a key: an implied hit that Double may still
claim), SIGKILLs it in that moment, opens the dealer's window on the same store at the given
size and saves ``held_after_restart_WxH.png`` once the card is shown held on its hand. Under
an X server (``Xvfb :9 -screen 0 1280x800x24``) the root window is taken with ImageMagick's
``import``; with ``QT_QPA_PLATFORM=offscreen`` the window's own picture.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import ui.common.qtfix  # noqa: E402, F401  (before any Qt call: keeps PySide6 6.12 from aborting CPython 3.11)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", default="1280x800")
    parser.add_argument("--out", default=str(ROOT / "docs" / "screenshots"))
    args = parser.parse_args()
    w, _, h = args.size.partition("x")
    size = (int(w), int(h))
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "table.db"
        child = subprocess.Popen(
            [sys.executable, "-m", "tests.ui.recording_table", str(db), str(Path(tmp) / "childshoe"), "--implied"],
            cwd=ROOT, stdout=subprocess.PIPE, text=True, env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
        )
        assert child.stdout is not None
        if child.stdout.readline().strip() != "READY":
            child.kill()
            print("error: the recording window did not get ready", file=sys.stderr)
            return 1
        os.kill(child.pid, signal.SIGKILL)
        child.wait(10)

        from PySide6.QtWidgets import QApplication

        from dealer_assist.base.cards import cards
        from ui.dealer.local_station import start_local_station

        app = QApplication.instance() or QApplication([])
        # the restart: the station service again on the same store (its set-up kept), the screen its client
        table = start_local_station(Path(tmp), 1, None, list(cards("8C")), db=db)
        table.window.setGeometry(0, 0, *size)
        table.window.show()
        end = time.monotonic() + 15
        c = table.controller
        while not c.hold_reason and time.monotonic() < end:  # the new shoe's numbers do not follow (5.1)
            app.processEvents()
            time.sleep(0.01)
        if c.hold_reason:
            c.release_hold()  # the dealer checked the table: no card missed
        while not ("hit_held" in table.window.prompt.buttons and not c.hold_reason):
            app.processEvents()
            time.sleep(0.01)
            if time.monotonic() > end:
                print("error: the held card was not shown", file=sys.stderr)
                return 1
        settle = time.monotonic() + 0.5
        while time.monotonic() < settle:
            app.processEvents()
            time.sleep(0.01)
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        path = out / f"held_after_restart_{size[0]}x{size[1]}.png"
        if os.environ.get("DISPLAY") and os.environ.get("QT_QPA_PLATFORM") != "offscreen":
            subprocess.run(["import", "-window", "root", str(path)], check=True)
        else:
            table.window.grab().save(str(path))
        print(path)
        table.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
