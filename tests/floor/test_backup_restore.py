"""Backup and restore of the floor (issue 35, item 6; docs/floor.md, *Backup and restore*), on
real servers: a base backup (``pg_basebackup``) and the WAL archive (``archive_command``) of a
primary that is then lost, restored into a fresh server (``restore_command``: recovery to the
end of the archive, then promoted).

What the restore keeps: everything in the base backup and in the archived WAL segments (round 3,
forwarded after the backup, is back). What it loses: whatever was written after the last
archived segment — round 4 and a supervisor's note on it. The station re-sends round 4 (its
store is the truth; nothing at the station says what the floor had), ``verify`` is ok before
and after; the note is gone (the pit enters it again).
"""

from __future__ import annotations

from pathlib import Path

from dealer_assist.floor.forward import Forwarder
from dealer_assist.floor.reader import FloorReader
from dealer_assist.floor.schema import add_station, init_floor, review_role
from tests.floor.helpers import cli, query
from tests.floor.pgserver import Server
from tests.floor.stations import make_station, open_station, record_rounds


def test_a_floor_restored_from_a_base_backup_and_its_wal_archive(tmp_path: Path) -> None:
    primary = Server(archive=True)
    restored: Server | None = None
    try:
        dbname = primary.create_database()
        admin = primary.url(dbname)
        init_floor(admin)
        station_role = add_station(admin, "BJ-07", "PIT-2").role
        review = review_role(dbname)
        db = tmp_path / "bj07.db"
        make_station(db, "BJ-07", "PIT-2", rounds=2)
        with Forwarder(db, primary.url(dbname, user=station_role)) as forwarder:
            assert forwarder.forward().rounds == 2
            primary.base_backup()  # rounds 1 and 2
            with open_station(db) as store:
                record_rounds(store, 1, start=2)
            assert forwarder.forward().rounds == 1  # round 3: after the backup, in the archive
            primary.archive_wal()
            with open_station(db) as store:
                record_rounds(store, 1, start=3)
            assert forwarder.forward().rounds == 1  # round 4: after the last archived segment
        with FloorReader(primary.url(dbname, user=review)) as reader:
            reader.add_note("BJ-07", 4, "sue", "chips checked")
        assert query(admin, "SELECT max(round_id), count(*) FROM floor.rounds") == [(4, 4)]
        primary.halt()  # the primary is lost; its base backup and archive are kept

        restored = Server(restore=primary)
        admin = restored.url(dbname)
        assert query(admin, "SELECT round_id FROM floor.rounds ORDER BY 1") == [(1,), (2,), (3,)]
        assert query(admin, "SELECT count(*) FROM floor.notes") == [(0,)]
        # roles are cluster-wide: the backup brings the station's and the review role back
        review_url = restored.url(dbname, user=review)
        done = cli("history", "--db", review_url, "verify")
        assert done.returncode == 0 and done.stdout.startswith("ok: 1 tables, 3 rounds"), done.stdout + done.stderr
        # the station re-sends what the restore lost, exactly once
        with Forwarder(db, restored.url(dbname, user=station_role)) as forwarder:
            assert forwarder.forward().rounds == 1
            assert forwarder.forward().rounds == 0
        assert query(admin, "SELECT round_id FROM floor.rounds ORDER BY 1") == [(1,), (2,), (3,), (4,)]
        done = cli("history", "--db", review_url, "verify")
        assert done.returncode == 0 and done.stdout.startswith("ok: 1 tables, 4 rounds"), done.stdout + done.stderr
    finally:
        if restored is not None:
            restored.stop()
        primary.stop()
