"""Screenshots of the pit window's every tab (issues 25 and 35) at three sizes, offscreen, on a
throwaway floor: BJ-07 live (rounds forwarded, heartbeat), BJ-08 a station whose heartbeat
stopped, BJ-09 registered and never heard from; a shift recorded for BJ-07 (its signers' PINs);
then the floor's server stopped: the Live tab grey, "no contact since ...".

    QT_QPA_PLATFORM=offscreen python scripts/shot_pit_live.py [--out docs/screenshots]
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import psycopg  # noqa: E402
from PySide6.QtCore import QDate, QEventLoop, QTimer  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from dealer_assist.floor import accounting as acc  # noqa: E402
from dealer_assist.floor.forward import Forwarder  # noqa: E402
from dealer_assist.floor.schema import add_station, init_floor, review_role  # noqa: E402
from tests.floor.pgserver import Server  # noqa: E402
from tests.floor.stations import make_station  # noqa: E402

SIZES = ((1280, 800), (1366, 768), (1920, 1080))


def wait(app: QApplication, ms: int) -> None:
    loop = QEventLoop()
    QTimer.singleShot(ms, loop.quit)
    loop.exec()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=str(ROOT / "docs" / "screenshots"))
    out = Path(parser.parse_args().out)
    app = QApplication(sys.argv[:1])
    server = Server()
    try:
        db = server.create_database()
        admin = server.url(db)
        init_floor(admin)
        tmp = Path(tempfile.mkdtemp(prefix="pit-shots-"))
        review = server.url(db, user=review_role(db))
        today = dt.date.today()
        add_station(admin, "BJ-07", "PIT-2")
        with psycopg.connect(admin) as conn:  # the signing accounts (issue 35: PINs)
            for name in ("ann", "sue", "cal"):
                acc.set_signer(conn, name, "2468")
        with psycopg.connect(review) as conn:  # the shift opens before the rounds
            acc.record_chips(conn, "BJ-07", today, "day", "opener", acc.parse_chips("1000x4,100x100,25x200,5x200"),
                             "ann", "2468", "sue", "2468")
        for table, dealer, rounds in (("BJ-07", "ann", 7), ("BJ-08", "ben", 5)):
            role = add_station(admin, table, "PIT-2").role
            store = tmp / f"{table}.db"
            make_station(store, table, "PIT-2", rounds, dealer=dealer)
            with Forwarder(store, server.url(db, user=role)) as forwarder:
                forwarder.forward()
                forwarder.heartbeat(0, rounds, "up")
        add_station(admin, "BJ-09", "PIT-2")
        # four more of the pit's tables with today's play since midnight (the charts' lines):
        # rounds generated in the server as the floor bench makes them (scripts/floor_bench.py)
        import floor_bench

        midnight = dt.datetime.combine(today, dt.time(0), tzinfo=dt.UTC)
        hours = max(2, min(12, int((dt.datetime.now(dt.UTC) - midnight).total_seconds() // 3600)))
        more = [(f"BJ-{n}", "PIT-2") for n in range(10, 14)]
        roles = [add_station(admin, table, pit).role for table, pit in more]
        floor_bench.generate(admin, more, hours * 40, 40, 0, start=midnight)
        for (table, _), role in zip(more, roles, strict=True):  # their stations alive
            with psycopg.connect(server.url(db, user=role)) as conn:
                conn.execute("SELECT floor.heartbeat(%s, 0, %s, NULL, 'up', NULL)", (table, hours * 40))
        with psycopg.connect(admin) as conn:
            conn.execute("UPDATE floor.station_links SET heartbeat_at = now() - interval '3 minutes' "
                         "WHERE table_name = 'BJ-08'")
        with psycopg.connect(review) as conn:
            for kind, chips in (("fill", "100x40,25x40"),
                                ("fill", "25x80,5x100"), ("credit", "1000x4"), ("closer", "100x90,25x80,5x40")):
                acc.record_chips(conn, "BJ-07", today, "day", kind, acc.parse_chips(chips), "ann", "2468", "sue", "2468")
            acc.record_drop(conn, "BJ-07", today, "day", acc.amount("12000", "cash"), acc.amount("3000", "m"),
                            "cal", "2468", "sue", "2468")
        from ui.common.screen_fit import keep_size
        from ui.review.pit_view import PitWindow

        window = PitWindow(review)
        keep_size(window)  # as `dealer-assist review --db postgresql://...` shows it (fill_screen)
        window.show()
        wait(app, 6000)  # the first alert check works out the par sheets
        window.day.setDate(QDate(today.year, today.month, today.day))
        window.accounts.show_button.click()
        for _ in range(600):  # the report works out the par sheets of the tables' games first
            if window.accounts.figures.rowCount() and window.alerts.shown:
                break
            wait(app, 200)
        for width, height in SIZES:
            window.resize(width, height)
            for index in range(window.tabs.count()):  # every tab, as a supervisor opens them
                name = window.tabs.tabText(index).lower().replace(" ", "-")
                window.tabs.setCurrentIndex(index)
                if name == "theoretical-win":
                    window.theo_button.click()  # worked out when asked
                wait(app, 1500 if name in ("charts", "theoretical-win", "tables", "rounds") else 300)
                path = out / f"pit-{name}-{width}x{height}.png"
                window.grab().save(str(path))
                print(path)
        # the charts with a player searched: the player's play across tables (net per hour)
        window.resize(1366, 768)
        window.player.setText("player-0097")
        window.refresh_button.click()
        window.tabs.setCurrentIndex([window.tabs.tabText(i) for i in range(window.tabs.count())].index("Charts"))
        wait(app, 2500)
        path = out / "pit-charts-player-1366x768.png"
        window.grab().save(str(path))
        print(path)
        window.player.clear()
        # the floor unreachable (issue 35): its server stopped, the Live tab greys and says since when
        window.resize(1366, 768)
        window.tabs.setCurrentIndex(0)
        server.stop()
        for _ in range(150):
            if window.live_tables.no_contact:
                break
            wait(app, 200)
        wait(app, 300)
        path = out / "pit-live-no-contact-1366x768.png"
        window.grab().save(str(path))
        print(path)
        window.close()
        wait(app, 500)
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
