"""Screenshots of the review's smaller dialogs on a 1280×800 screen (issue 34): the supervisor's
PIN at the review's gate (and the same refused), the note on a round (and a refused PIN), the
export's file dialog — each the whole screen as the supervisor sees it, the review behind.

    Xvfb :95 -screen 0 1280x800x24 &
    DISPLAY=:95 QT_QPA_PLATFORM=xcb .venv/bin/python scripts/shot_review_dialogs.py [--out docs/screenshots]

The store: the Lucky 8 example recorded by ``dealer-assist settle --record`` (the real command),
with a supervisor ``sue``. Saves review-dialog-<name>.png.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import ui.common.qtfix  # noqa: E402, F401  (before any Qt call: keeps PySide6 6.12 from aborting CPython 3.11)

SUPERVISOR, PIN = "sue", "482913"
EXAMPLE = ROOT.parent / "shared" / "examples" / "lucky8-pair-and-double.json"


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "docs" / "screenshots"))
    parser.add_argument("--example", default=str(EXAMPLE), help="the transcript recorded (default: %(default)s)")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QDialog

    from dealer_assist.service.launch import start_review_service
    from dealer_assist.store import TEST_PIN_COST, Store
    from ui.common.screen_fit import fill_screen
    from ui.review.app import NoteDialog, ReviewWindow, open_review
    from ui.review.from_service import note_through_service, review_gate

    app = QApplication(sys.argv[:1])

    def settle(seconds: float = 0.4) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            app.processEvents()
            time.sleep(0.01)

    def wait(done: Callable[[], Any], what: str) -> Any:
        end = time.monotonic() + 60
        while time.monotonic() < end:
            app.processEvents()
            found = done()
            if found:
                return found
            time.sleep(0.01)
        raise SystemExit(f"timed out waiting for {what}")

    def shot(name: str) -> None:
        settle()
        screen = app.primaryScreen()
        path = out / f"review-dialog-{name}.png"
        screen.grabWindow(0).save(str(path))  # the whole screen: where the dialog stands on it
        for top in QApplication.topLevelWidgets():
            if top.isVisible() and isinstance(top, QDialog):
                print(f"{path}: {type(top).__name__} {top.frameGeometry().getRect()} on {screen.geometry().getRect()}")

    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "pit.db"
        subprocess.run([sys.executable, "-m", "dealer_assist", "settle", args.example, "--record", str(db)],
                       check=True, capture_output=True, cwd=ROOT)
        with Store.open(db, pin_cost=TEST_PIN_COST) as store:
            store.create_user(SUPERVISOR, PIN, roles=["supervisor"], actor="shot")
        opened: list[ReviewWindow] = []
        # as `dealer-assist review --db FILE`: the store's review service (this tree's code)
        os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
        service = start_review_service(db)

        def show(name: str) -> None:
            window = open_review(db, supervisor=name, notes=note_through_service(service.socket))
            assert isinstance(window, ReviewWindow)
            fill_screen(window)
            opened.append(window)

        dialog = review_gate(service.socket, show, app.quit)
        dialog.show()
        shot("pin")
        dialog.name.setText(SUPERVISOR)
        dialog.pin.setText("000000")
        dialog.ok_button.click()
        wait(lambda: dialog.message.text(), "the refusal")
        shot("pin-refused")
        dialog.pin.setText(PIN)
        dialog.ok_button.click()
        window = wait(lambda: opened[0] if opened else None, "the review")
        settle(0.5)
        window.select_round(window.model.rows[0].id)
        note = window.add_note(window.model.rows[0].id)
        assert isinstance(note, NoteDialog)
        shot("note")
        note.text.setPlainText("Checked the pair with the surveillance video: paid right.")
        note.pin.setText("000000")
        note.submit()
        shot("note-refused")
        note.reject()
        settle(0.2)

        def grab_file_dialog() -> None:
            modal = QApplication.activeModalWidget()
            if modal is None:
                QTimer.singleShot(100, grab_file_dialog)
                return
            shot("export")
            assert isinstance(modal, QDialog)
            modal.reject()

        QTimer.singleShot(300, grab_file_dialog)
        window.detail.export_pdf_button.click()  # the file dialog, modal, until it is closed
        window.close()
        service.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
