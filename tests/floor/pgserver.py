"""A throwaway PostgreSQL server for the floor tests and the floor benchmark.

It runs ``initdb`` and ``pg_ctl`` (PostgreSQL 15+) into a temporary directory and listens
only on a Unix socket there (no TCP port). The server refuses to run as root: when this
process is root, the server runs as the unprivileged ``postgres`` account (the directory
is handed to it); otherwise as the current user. Settings are for a small shared machine:
small buffers, and — only here, never in a real floor — no fsync. ``Server.standby()`` starts
a hot standby of a server (``pg_basebackup -R``: streaming replication over the primary's
socket) on a directory and socket of its own.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

ADMIN = "da_admin"


class ServerUnavailable(RuntimeError):
    """PostgreSQL's server binaries are not installed (or the server did not start)."""


def find_binaries() -> Path:
    """The directory holding ``initdb``, ``pg_ctl`` and ``postgres``."""
    found = shutil.which("initdb")
    if found and shutil.which("pg_ctl"):
        return Path(os.path.realpath(found)).parent
    for candidate in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True):
        if os.path.exists(os.path.join(candidate, "initdb")):
            return Path(candidate)
    raise ServerUnavailable(
        "PostgreSQL server binaries (initdb, pg_ctl) not found on PATH or under "
        "/usr/lib/postgresql/*/bin: install PostgreSQL 15+ (Debian: apt-get install postgresql)"
    )


class Server:
    """One running throwaway server; :meth:`url` gives a connection URL for a database."""

    def __init__(self, *, shared_buffers: str = "32MB", extra: Sequence[str] = (),
                 primary: Server | None = None, archive: bool = False, restore: Server | None = None) -> None:
        """``primary``: start a hot standby of that server instead of a new cluster (its data
        copied by ``pg_basebackup -R``: it follows the primary by streaming replication).
        ``archive``: keep every finished WAL segment in ``self.archive`` (``archive_command``).
        ``restore``: a fresh server from that server's last :meth:`base_backup`, recovered
        from its WAL archive to the archive's end and then promoted (a restore after a loss)."""
        self.bin = find_binaries()
        self.shared_buffers, self.extra = shared_buffers, tuple(extra)
        self.root = Path(tempfile.mkdtemp(prefix="da-floor-pg-"))
        self.data = self.root / "data"
        self.socket_dir = self.root / "sock"
        self.log = self.root / "server.log"
        self._account: pwd.struct_passwd | None = None
        if os.geteuid() == 0:
            try:
                self._account = pwd.getpwnam("postgres")
            except KeyError as err:
                raise ServerUnavailable(
                    "running as root and there is no 'postgres' account to run the server as"
                ) from err
            os.chown(self.root, self._account.pw_uid, self._account.pw_gid)
            os.chmod(self.root, 0o755)
        self.socket_dir.mkdir()
        self.archive = self.root / "archive"
        self.archive.mkdir()
        if self._account is not None:
            for made in (self.socket_dir, self.archive):
                os.chown(made, self._account.pw_uid, self._account.pw_gid)
        if restore is not None:
            self._run(["cp", "-a", str(restore.root / "backup"), str(self.data)])
            (self.data / "recovery.signal").touch()
            _chown_tree(self.data, self._account)
            with open(self.data / "postgresql.auto.conf", "a", encoding="utf-8") as conf:
                conf.write(f"restore_command = 'cp {restore.archive}/%f %p'\n")
        elif primary is None:
            self._run(
                [str(self.bin / "initdb"), "-D", str(self.data), "-U", ADMIN, "--auth=trust",
                 "--encoding=UTF8", "--locale=C", "--no-sync"]
            )
        else:
            # initdb's pg_hba.conf trusts local replication connections; -R writes
            # standby.signal and primary_conninfo (the primary's socket) into the copy
            self._run(
                [str(self.bin / "pg_basebackup"), "-D", str(self.data), "-R", "-X", "stream",
                 "-c", "fast", "--no-sync", "-d", f"host={primary.socket_dir} user={ADMIN}"]
            )
        options = [
            "-c", "listen_addresses=",
            "-c", f"unix_socket_directories={self.socket_dir}",
            "-c", f"shared_buffers={shared_buffers}",
            "-c", "max_connections=60",
            "-c", "fsync=off",  # a throwaway server only: never in a real floor
            "-c", "synchronous_commit=off",
            "-c", "full_page_writes=off",
            "-c", "max_worker_processes=2",
            "-c", "max_parallel_workers_per_gather=0",
            *(("-c", "archive_mode=on", "-c", f"archive_command=cp %p {self.archive}/%f") if archive else ()),
            *extra,
        ]
        self._start = [str(self.bin / "pg_ctl"), "-D", str(self.data), "-l", str(self.log), "-w",
                       "-t", "60", "-o", " ".join(_quote(o) for o in options), "start"]
        self._run(self._start)
        self._counter = 0
        self._migrated: str | None = None
        if restore is not None:
            self._wait_promoted()

    def base_backup(self) -> Path:
        """A base backup of this server (``pg_basebackup -X stream``) in ``root/backup``."""
        backup = self.root / "backup"
        shutil.rmtree(backup, ignore_errors=True)
        self._run([str(self.bin / "pg_basebackup"), "-D", str(backup), "-X", "stream", "-c", "fast",
                   "--no-sync", "-d", f"host={self.socket_dir} user={ADMIN}"])
        return backup

    def archive_wal(self) -> None:
        """Close the current WAL segment and wait until it is in the archive."""
        import time

        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as conn:
            row = conn.execute("SELECT pg_walfile_name(pg_switch_wal())").fetchone()
            assert row is not None
            deadline = time.monotonic() + 30
            while not (self.archive / str(row[0])).exists():
                if time.monotonic() > deadline:
                    raise ServerUnavailable(f"WAL segment {row[0]} was not archived within 30 s")
                time.sleep(0.05)

    def _wait_promoted(self, timeout: float = 60.0) -> None:
        import time

        import psycopg

        deadline = time.monotonic() + timeout
        while True:
            try:
                with psycopg.connect(self.url(), autocommit=True) as conn:
                    row = conn.execute("SELECT pg_is_in_recovery()").fetchone()
                    if row is not None and not row[0]:
                        return
            except psycopg.OperationalError:
                pass
            if time.monotonic() > deadline:
                raise ServerUnavailable(f"the restored server did not finish recovery within {timeout:g} s")
            time.sleep(0.1)

    def standby(self) -> Server:
        """A hot standby of this server, on its own directory and socket (stopped with ``stop``)."""
        return Server(shared_buffers=self.shared_buffers, extra=self.extra, primary=self)

    def wait_replayed(self, primary: Server, timeout: float = 30.0) -> None:
        """Wait until this standby has replayed everything the primary has written so far."""
        import time

        import psycopg

        with psycopg.connect(primary.url(), autocommit=True) as conn:
            row = conn.execute("SELECT pg_current_wal_insert_lsn()::text").fetchone()
            assert row is not None
            target = str(row[0])
        deadline = time.monotonic() + timeout
        with psycopg.connect(self.url(), autocommit=True) as conn:
            while True:
                row = conn.execute("SELECT pg_is_in_recovery(), pg_last_wal_replay_lsn() >= %s::pg_lsn",
                                   (target,)).fetchone()
                assert row is not None and row[0], "not a standby: it is not in recovery"
                if row[1]:
                    return
                if time.monotonic() > deadline:
                    raise ServerUnavailable(f"the standby did not replay up to {target} within {timeout:g} s")
                time.sleep(0.05)

    def _run(self, argv: list[str]) -> None:
        kwargs: dict[str, object] = {}
        if self._account is not None:
            kwargs = {"user": self._account.pw_uid, "group": self._account.pw_gid, "extra_groups": []}
        env = dict(os.environ)
        env.pop("PGDATA", None)
        done = subprocess.run(argv, capture_output=True, text=True, cwd=self.root, env=env,
                              **kwargs)  # type: ignore[call-overload]
        if done.returncode != 0:
            log = self.log.read_text(errors="replace")[-2000:] if self.log.exists() else ""
            raise ServerUnavailable(
                f"{Path(argv[0]).name} failed ({done.returncode}): {done.stderr.strip()}\n{log}"
            )

    def url(self, database: str = "postgres", user: str = ADMIN) -> str:
        return f"postgresql://{user}@/{database}?host={self.socket_dir}"

    def create_database(self, prefix: str = "floor", *, template: str | None = None) -> str:
        """A new database, empty or a copy of ``template``; returns its name."""
        import psycopg

        self._counter += 1
        name = f"{prefix}_{os.getpid()}_{self._counter}"
        copy = f' TEMPLATE "{template}"' if template else ""
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"{copy}')
        return name

    def migrated_floor(self) -> str:
        """A template database holding the floor's schema with every migration applied and no
        role of its own (made once per server): a copy of it, then ``init_floor`` on the copy
        (which applies nothing and makes and grants the copy's roles, as it does on a fresh
        database after the migrations), is a fresh floor at a fraction of the cost (issue 37).

        Made by ``init_floor`` on a new database, after which the roles named after it are
        taken out: their policies dropped, their privileges revoked (``DROP OWNED``), their
        floor.role_bounds rows deleted, and the roles dropped — which PostgreSQL refuses while
        anything in any database still refers to one, so nothing of them is left in the copy."""
        if self._migrated is not None:
            return self._migrated
        import psycopg
        from psycopg import sql

        from dealer_assist.floor.schema import (
            init_floor,
            review_role,
            service_role,
            stations_group,
            surveillance_role,
        )

        name = self.create_database("floortemplate")
        init_floor(self.url(name))
        roles = [review_role(name), service_role(name), surveillance_role(name), stations_group(name)]
        with psycopg.connect(self.url(name), autocommit=True) as conn:
            for policy, table in conn.execute(
                    "SELECT policyname, tablename FROM pg_policies WHERE schemaname = 'floor' "
                    "AND policyname = ANY (%s)",  # named after the role in schema._grant_reads/_grant_review
                    ([f"{kind}_{r}" for kind in ("review", "ack", "write") for r in roles],)).fetchall():
                conn.execute(sql.SQL("DROP POLICY {} ON {}").format(sql.Identifier(policy),
                                                                   sql.Identifier("floor", table)))
            conn.execute("DELETE FROM floor.role_bounds")
            for role in roles:
                conn.execute(sql.SQL("DROP OWNED BY {}").format(sql.Identifier(role)))
        with psycopg.connect(self.url(), autocommit=True) as conn:
            for role in roles:
                conn.execute(sql.SQL("DROP ROLE {}").format(sql.Identifier(role)))
        self._migrated = name
        return name

    def drop_database(self, name: str) -> None:
        """Drop a database and the roles named after it (the floor's station/review roles)."""
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            roles = [r[0] for r in conn.execute(
                "SELECT rolname FROM pg_roles WHERE rolname LIKE %s", (name.lower() + "\\_%",))]
            for role in roles:
                conn.execute(f'DROP ROLE IF EXISTS "{role}"')

    def require_password(self, role: str) -> None:
        """From now on ``role`` must give its password (scram-sha-256); others stay trusted."""
        import psycopg

        hba = self.data / "pg_hba.conf"
        hba.write_text(f"local all {role} scram-sha-256\n" + hba.read_text())
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute("SELECT pg_reload_conf()")

    def restart(self) -> None:
        """Stop the server (fast: every session ends) and start it again with its options."""
        self._run([str(self.bin / "pg_ctl"), "-D", str(self.data), "-l", str(self.log), "-m", "fast", "-w",
                   "-t", "60", "restart"])

    def halt(self) -> None:
        """Stop the server (immediate: as a crash or a pulled cable would), keeping its data."""
        self._run([str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop"])

    def start(self) -> None:
        """Start a halted server again with its options."""
        self._run(self._start)

    def stop(self) -> None:
        try:
            if (self.data / "postmaster.pid").exists():  # not when halted
                self._run([str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w",
                           "stop"])
        finally:
            shutil.rmtree(self.root, ignore_errors=True)


def _chown_tree(top: Path, account: pwd.struct_passwd | None) -> None:
    if account is None:
        return
    for folder, dirs, files in os.walk(top):
        for name in (folder, *(os.path.join(folder, d) for d in dirs), *(os.path.join(folder, f) for f in files)):
            os.chown(name, account.pw_uid, account.pw_gid, follow_symlinks=False)


def _quote(option: str) -> str:
    if option and all(ch.isalnum() or ch in "-_=./," for ch in option):
        return option
    return "'" + option.replace("'", "'\\''") + "'"
