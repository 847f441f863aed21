"""Benchmark of the review window on a big store (not a test): ``python -m ui.review.bench``.

Generates N rounds (default one million, with the store benchmark's bulk generator:
full hash chains, settlements, players; two games, lucky8 and ace_race, 5000 players)
in a temporary directory, or reuses a file (``--reuse FILE``), then times, offscreen,
through the real window and model:

- opening the window (read-only store, first page of the list shown);
- each filter applied through the filter bar (the model reloads its first page);
- scrolling (``fetchMore``, the next page by keyset);
- sorting by game and by status (done by the database);
- counting every matching round (on demand only), opening one round (replay,
  integrity), the session summaries (a full pass over the settlements), the settlement
  rows checked against the hashed settle outputs; with ``--verify`` the whole-file check.

Prints the first call and the median of ``--repeat`` calls for each, in milliseconds.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import os
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def timed(fn: Callable[[], object], repeat: int) -> tuple[float, float]:
    samples = []
    for _ in range(max(1, repeat)):
        t = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t) * 1000)
    return samples[0], statistics.median(samples)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ui.review.bench", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=1_000_000, help="rounds to generate (default 1,000,000)")
    parser.add_argument("--players", type=int, default=5000, help="distinct players (default 5000)")
    parser.add_argument("--reuse", type=Path, help="time an existing store file instead of generating one")
    parser.add_argument("--keep", type=Path, help="keep the generated file at this path")
    parser.add_argument("--repeat", type=int, default=5, help="calls per measurement (default 5)")
    parser.add_argument("--verify", action="store_true",
                        help="also time the whole-file check (every hash chain, every settlement row)")
    args = parser.parse_args(argv)

    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication

    from dealer_assist.bench.store import bulk_generate
    from dealer_assist.store.review_queries import (
        count_rounds,
        page_rounds,
        summaries,
    )
    from ui.common.screen_fit import fill_screen
    from ui.review.app import ReviewWindow

    app = QApplication.instance() or QApplication([])
    work = Path(tempfile.mkdtemp(prefix="review-bench-"))
    try:
        if args.reuse:
            path = args.reuse
        else:
            path = work / "big.db"
            t = time.perf_counter()
            bulk_generate(path, args.rounds, args.players)
            print(f"generated {args.rounds:,} rounds in {time.perf_counter() - t:.0f} s")
            os.sync()
        windows: list[ReviewWindow] = []

        def open_window() -> None:
            win = ReviewWindow(path)
            fill_screen(win)
            app.processEvents()
            windows.append(win)

        first, median = timed(open_window, args.repeat)
        print(f"open the window (store opened read-only, first page shown): first {first:.1f} ms, "
              f"median {median:.1f} ms")
        win = windows[-1]
        for other in windows[:-1]:
            other.close()
        rows = win.model.rowCount()
        newest = win.model.rows[0].started_at
        week_before = (_dt.datetime.fromisoformat(newest.replace("Z", "+00:00"))
                       - _dt.timedelta(days=7)).strftime("%Y-%m-%d")
        bar = win.filters

        def apply(setup: Callable[[], None]) -> Callable[[], None]:
            def run() -> None:
                for widget in (bar.game, bar.status, bar.irregular):
                    widget.blockSignals(True)
                bar.clear()
                setup()
                for widget in (bar.game, bar.status, bar.irregular):
                    widget.blockSignals(False)
                assert win.apply_filter()
                app.processEvents()
            return run

        def both() -> None:
            bar.player.setText("p00042")
            bar.irregular.setChecked(True)

        cases: list[tuple[str, Callable[[], None]]] = [
            ("no filter", lambda: None),
            ("player p00042 (exact name)", lambda: bar.player.setText("p00042")),
            ("player prefix p0004 (10 players)", lambda: bar.player.setText("p0004")),
            ("game Lucky 8 (half the rounds)", lambda: bar.game.setCurrentIndex(bar.game.findData("lucky8"))),
            ("game Dueling 8's (no round: whole table scanned)",
             lambda: bar.game.setCurrentIndex(bar.game.findData("dueling8s"))),
            ("status void", lambda: bar.status.setCurrentIndex(bar.status.findData("void"))),
            ("irregular only", lambda: bar.irregular.setChecked(True)),
            ("net >= 100 either way", lambda: bar.amount.setText("100")),
            ("from a week before the last round", lambda: bar.since.setText(week_before)),
            ("player p00042 + irregular", lambda: both()),
        ]
        counts: dict[str, int] = {}
        for label, setup in cases:
            first, median = timed(apply(setup), args.repeat)
            counts[label] = win.model.rowCount()
            flt = win.model.filter
            _, q_median = timed(lambda flt=flt: page_rounds(win.reader, flt, limit=200), args.repeat)  # type: ignore[misc]
            print(f"filter {label}: first {first:.1f} ms, median {median:.1f} ms shown "
                  f"(query alone {q_median:.1f} ms; {counts[label]} rows on page 1)")
        apply(lambda: None)()

        def scroll() -> None:
            win.model.fetchMore()

        first, median = timed(scroll, args.repeat * 4)
        print(f"scroll: next page of 200 (fetchMore): first {first:.1f} ms, median {median:.1f} ms "
              f"({win.model.rowCount()} rows loaded)")
        for column, name in ((5, "status"), (0, "round"), (1, "time")):
            def sort(column: int = column) -> None:
                win.model.sort(column, Qt.SortOrder.DescendingOrder)
                app.processEvents()
            first, median = timed(sort, args.repeat)
            print(f"sort by {name}: first {first:.1f} ms, median {median:.1f} ms")
        apply(lambda: None)()
        first, median = timed(lambda: count_rounds(win.reader, win.model.filter), args.repeat)
        print(f"count all matching rounds (on demand): first {first:.1f} ms, median {median:.1f} ms")
        rid = win.model.rows[rows // 2].id
        first, median = timed(lambda: win.open_round(rid), args.repeat)
        print(f"open one round (replay, integrity, tables): first {first:.1f} ms, median {median:.1f} ms")
        first, median = timed(lambda: summaries(win.reader, "session"), 1)
        print(f"session summaries (full pass over the settlements): {first:.0f} ms")
        first, median = timed(lambda: win.reader.first_altered_settlements(), 1)
        print(f"settlement rows against the hashed settle outputs, every round: {first:.0f} ms")
        if args.verify:
            first, median = timed(win.verify_file, 1)
            print(f"whole-file check (Store.verify + settlement rows): {first:.0f} ms")
        win.close()
    finally:
        if args.keep and not args.reuse and (work / "big.db").exists():
            shutil.move(str(work / "big.db"), args.keep)
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
