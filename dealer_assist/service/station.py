"""The dealer station: its configuration file, its directories, its one store and its lock.

A station is set up once by a technician (docs/station.md). Its configuration is one TOML
file, ``station.toml``, in the site configuration directory:

- Linux: ``/etc/dealer-assist/station.toml`` (the FHS place for a program's host-wide
  configuration; platformdirs' ``site_config_dir`` would say ``/etc/xdg/dealer-assist``,
  which is meant for desktop defaults, so on Linux the FHS directories are used);
- elsewhere: platformdirs' ``site_config_dir("dealer-assist")``;
- ``$DEALER_ASSIST_CONFIG`` or the command line's ``--config FILE`` name another file.

With no configuration file the app is a development run: simulated shoe, store in the
user data directory. With one, the store is the station's (``/var/lib/dealer-assist``
on Linux), the station service's alone (STATION-CONTRACT: files 0600 in a 0700 directory of
the account ``dealer-assist``; dealers reach it only through the service's socket). One running dealer's screen per store: a lock
file beside the store names the PID and account holding it.

No Qt, no pyserial here (the shoe's answer is checked in hardware/station.py).
"""

from __future__ import annotations

import contextlib
import errno
import getpass
import os
import shutil
import socket
import stat
import sys
import tomllib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, fields, replace
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from dealer_assist.games import GAMES

APP = "dealer-assist"
CONFIG_ENV = "DEALER_ASSIST_CONFIG"
CONFIG_NAME = "station.toml"
CONFIG_MODE = 0o644  # root's, readable by all, no secrets (STATION-CONTRACT)
FLOOR_SECRET = "floor.secret"  # the floor URL's password, in the state directory, 0600
GROUP = "dealer-assist"
STORE_NAME = "table.db"
CODECS = ("da1", "da1-xor", "beetek")  # hardware/codecs.py CODEC_NAMES (tests/station checks they agree)
DEFAULT_BAUD = 9600
FILE_MODE = 0o600  # store, key and lock files: their owner's alone (the service account's)
DIR_MODE = 0o700
UMASK = 0o007  # what the app sets at start: nothing for "others"
MIN_FREE_BYTES = 200 * 1024 * 1024  # a day's rounds are a few MB; warn well before SQLite fails


class StationError(Exception):
    """A station problem, one line naming the file or setting and what to do."""


# ------------------------------------------------------------------ directories


def _linux() -> bool:
    return sys.platform.startswith("linux")


def site_config_dir() -> Path:
    if _linux():
        return Path("/etc") / APP
    import platformdirs

    return Path(platformdirs.site_config_dir(APP, appauthor=False))


def site_data_dir() -> Path:
    if _linux():
        return Path("/var/lib") / APP
    import platformdirs

    return Path(platformdirs.site_data_dir(APP, appauthor=False))


def site_log_dir() -> Path:
    if _linux():
        return Path("/var/log") / APP
    return site_data_dir() / "log"


def user_data_dir() -> Path:
    import platformdirs

    return Path(platformdirs.user_data_dir(APP, appauthor=False))


def user_log_dir() -> Path:
    import platformdirs

    return Path(platformdirs.user_log_dir(APP, appauthor=False))


def default_config_path() -> Path:
    return site_config_dir() / CONFIG_NAME


def log_dir(installed: bool) -> Path:
    """Where the app's log goes: the station's log directory when it is installed and we
    may write there, else the account's own (development runs)."""
    site = site_log_dir()
    if installed and site.is_dir() and os.access(site, os.W_OK | os.X_OK):
        return site
    return user_log_dir()


# ------------------------------------------------------------------ configuration


@dataclass(frozen=True)
class StationConfig:
    """The station's settings. Empty text / None means "not set" (the app's default)."""

    table: str = ""  # the table's name, e.g. "BJ-07"
    pit: str = ""
    game: str = ""  # one of dealer_assist.games.GAMES; "" = the setup remembered in the store
    decks: int | None = None
    areas: int | None = None
    limits: dict[str, tuple[Decimal, Decimal]] = field(default_factory=dict)  # bet kind -> min, max
    shoe_port: str = ""  # "" = the simulated shoe
    codec: str = "da1"
    baud: int = DEFAULT_BAUD
    store: str = ""  # "" = table.db in the site data directory
    floor_service: str = ""  # PostgreSQL service name (pg_service.conf) of the floor database
    floor_database: str = ""  # or its URL, postgresql://user@host/db: never a password (floor.secret)
    floor_read_url: str = ""  # a hot standby of the floor the pit reads (review --db URL), or ""
    terminals_port: int | None = None  # player terminals' TLS port (pairing on the next); None: off
    terminals_host: str = ""  # the address terminals reach it on; "" = every address
    source: Path | None = None  # the file it was read from

    @property
    def simulated(self) -> bool:
        return not self.shoe_port

    def settings(self) -> dict[str, Any]:
        """The settings as plain values, for the audit log (``source`` left out)."""
        out: dict[str, Any] = {}
        for f in fields(self):
            if f.name == "source" or (f.name.startswith("terminals_") and getattr(self, f.name) == f.default):
                continue  # (the terminals' settings unset: the settings as before they existed)
            value = getattr(self, f.name)
            if f.name == "limits":
                value = {k: [str(lo), str(hi)] for k, (lo, hi) in sorted(value.items())}
            out[f.name] = value
        return out


def config_changes(old: StationConfig, new: StationConfig) -> dict[str, list[Any]]:
    """``{setting: [old, new]}`` for every setting that differs (the audit entry's detail)."""
    before, after = old.settings(), new.settings()
    return {k: [before[k], after[k]] for k in before if before[k] != after[k]}


_TABLE_KEYS = {"name", "pit", "game", "decks", "areas"}
_SECTIONS: dict[str, set[str]] = {
    "table": _TABLE_KEYS | {"limits"},
    "shoe": {"port", "codec", "baud"},
    "store": {"path"},
    "floor": {"service", "url", "read_url"},
    "terminals": {"port", "host"},
}


def _text(where: str, value: Any) -> str:
    if not isinstance(value, str):
        raise StationError(f"{where} must be text in quotes, not {value!r}")
    return value.strip()


def _whole(where: str, value: Any, low: int, high: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise StationError(f"{where} must be a whole number from {low} to {high}, not {value!r}")
    return value


def _money(where: str, value: Any) -> Decimal:
    # Money is exact: whole numbers, or text such as "2.50" (a TOML float would be binary).
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise StationError(f"{where} must be a whole number or text such as \"2.50\", not {value!r}")
    try:
        amount = Decimal(value) if isinstance(value, int) else Decimal(value.strip())
    except InvalidOperation:
        raise StationError(f"{where}: {value!r} is not an amount") from None
    if not amount.is_finite() or amount < 0:
        raise StationError(f"{where} must be 0 or more, not {value!r}")
    return amount


def parse_config(doc: Mapping[str, Any], source: Path | None = None) -> StationConfig:
    """A StationConfig from a parsed TOML document; StationError names the bad key."""
    for section, value in doc.items():
        if section not in _SECTIONS:
            raise StationError(f"unknown section [{section}] (known: {', '.join(_SECTIONS)})")
        if not isinstance(value, dict):
            raise StationError(f"{section} must be a [{section}] section")
        unknown = set(value) - _SECTIONS[section]
        if unknown:
            raise StationError(f"unknown setting {section}.{sorted(unknown)[0]}")
    table: Mapping[str, Any] = doc.get("table", {})
    shoe: Mapping[str, Any] = doc.get("shoe", {})
    cfg = StationConfig(
        table=_text("table.name", table.get("name", "")),
        pit=_text("table.pit", table.get("pit", "")),
        game=_text("table.game", table.get("game", "")),
        shoe_port=_text("shoe.port", shoe.get("port", "")),
        codec=_text("shoe.codec", shoe.get("codec", "da1")),
        baud=_whole("shoe.baud", shoe.get("baud", DEFAULT_BAUD), 50, 4_000_000),
        store=_text("store.path", doc.get("store", {}).get("path", "")),
        floor_service=_text("floor.service", doc.get("floor", {}).get("service", "")),
        floor_database=_text("floor.url", doc.get("floor", {}).get("url", "")),
        floor_read_url=_text("floor.read_url", doc.get("floor", {}).get("read_url", "")),
        terminals_port=(_whole("terminals.port", doc["terminals"]["port"], 1, 65534)
                        if "port" in doc.get("terminals", {}) else None),
        terminals_host=_text("terminals.host", doc.get("terminals", {}).get("host", "")),
        source=source,
    )
    if cfg.floor_read_url:
        if not cfg.floor_read_url.startswith(("postgresql://", "postgres://", "service=")):
            raise StationError(f"floor.read_url {cfg.floor_read_url!r} is not a postgresql:// URL or service=NAME")
        if split_floor_password(cfg.floor_read_url)[1] is not None:
            raise StationError("floor.read_url carries a password: give it through ~/.pgpass or pg_service.conf")
    if cfg.floor_database:
        if not cfg.floor_database.startswith(("postgresql://", "postgres://")):
            raise StationError(f"floor.url {cfg.floor_database!r} is not a postgresql:// URL")
        if split_floor_password(cfg.floor_database)[1] is not None:
            raise StationError(f"floor.url carries a password: the password belongs in {FLOOR_SECRET} "
                               "(dealer-assist station init --floor URL, as root, puts it there)")
        if cfg.floor_service:
            raise StationError("floor.service and floor.url are both set: keep one")
    if cfg.game and cfg.game not in GAMES:
        raise StationError(f"table.game {cfg.game!r} is not a game: one of {', '.join(GAMES)}")
    if cfg.codec not in CODECS:
        raise StationError(f"shoe.codec {cfg.codec!r} is not a wire format: one of {', '.join(CODECS)}")
    decks = areas = None
    rules = GAMES[cfg.game] if cfg.game else None
    if "decks" in table:
        low, high = rules.deck_range if rules else (1, 8)
        # 2.1 of each game: the number of decks the game is played with
        decks = _whole("table.decks", table["decks"], low, high)
    if "areas" in table:
        low, high = rules.area_range if rules else (1, 7)
        areas = _whole("table.areas", table["areas"], low, high)
    limits: dict[str, tuple[Decimal, Decimal]] = {}
    raw_limits = table.get("limits", {})
    if not isinstance(raw_limits, dict):
        raise StationError("table.limits must be a table of bet kind = [min, max]")
    for kind, pair in raw_limits.items():
        where = f"table.limits.{kind}"
        if not isinstance(pair, list) or len(pair) != 2:
            raise StationError(f"{where} must be [min, max], not {pair!r}")
        low_amount, high_amount = _money(where, pair[0]), _money(where, pair[1])
        if low_amount > high_amount:
            raise StationError(f"{where}: the minimum {low_amount} is above the maximum {high_amount}")
        limits[str(kind)] = (low_amount, high_amount)
    return replace(cfg, decks=decks, areas=areas, limits=limits)


def load_config(path: Path) -> StationConfig:
    """Read and check ``path``; StationError names the file and the bad setting."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise StationError(f"{path}: no such file") from None
    except OSError as exc:
        raise StationError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        doc = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise StationError(f"{path} is not valid TOML: {exc}") from None
    try:
        return parse_config(doc, path)
    except StationError as exc:
        raise StationError(f"{path}: {exc}") from None


def config_location(explicit: str | None = None) -> tuple[Path, bool]:
    """The configuration file to use and whether it was named (``--config`` or the
    environment variable; a named file must exist, the default place need not)."""
    if explicit:
        return Path(explicit), True
    env = os.environ.get(CONFIG_ENV)
    if env:
        return Path(env), True
    return default_config_path(), False


def find_config(explicit: str | None = None) -> StationConfig | None:
    """The station's configuration, or None for a development run (no file at the
    default place). A file named by ``--config`` or the environment must exist."""
    path, named = config_location(explicit)
    if not named and not path.exists():
        return None
    return load_config(path)


def _toml_text(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _toml_money(value: Decimal) -> str:
    return str(value) if value == value.to_integral_value() else _toml_text(str(value))


def render_config(cfg: StationConfig) -> str:
    """The configuration as a commented TOML file (what ``station init`` and the Station
    setup dialog write)."""
    games = ", ".join(GAMES)
    limits = "".join(
        f"{kind} = [{_toml_money(lo)}, {_toml_money(hi)}]\n" for kind, (lo, hi) in sorted(cfg.limits.items())
    )
    lines = [
        "# Dealer Assist station configuration (docs/station.md).",
        "# Read at start; `dealer-assist station check` checks it. A supervisor may change it",
        "# from the dealer's screen (Station setup), which rewrites this file; the change is",
        "# in the store's audit log. Command-line options override it for one run.",
        "",
        "[table]",
        f"name = {_toml_text(cfg.table)}          # the table's name, e.g. \"BJ-07\"",
        f"pit = {_toml_text(cfg.pit)}",
        f"# game: one of {games}; empty: the setup last saved at this table",
        f"game = {_toml_text(cfg.game)}",
    ]
    lines.append(f"decks = {cfg.decks}" if cfg.decks is not None else "# decks = 6")
    lines.append(f"areas = {cfg.areas}" if cfg.areas is not None else "# areas = 7")
    lines += [
        "",
        "# Wager limits per bet kind, [min, max]; amounts as whole numbers or text (\"2.50\").",
        "[table.limits]",
        (limits.rstrip("\n") if limits else "# main = [10, 500]\n# pair = [5, 100]"),
        "",
        "[shoe]",
        "# The card-reading shoe's serial port (the udev rule names it /dev/dealer-shoe);",
        "# empty: the simulated shoe (a demonstration, never a live table).",
        f"port = {_toml_text(cfg.shoe_port)}",
        f"codec = {_toml_text(cfg.codec)}        # da1, da1-xor (earlier firmware) or beetek (spec/shoe-protocol.md)",
        f"baud = {cfg.baud}",
        "",
        "[store]",
        f"# The table's store; empty: {site_data_dir() / STORE_NAME}",
        f"path = {_toml_text(cfg.store)}",
        "",
        "[floor]",
        "# The floor database: a PostgreSQL service name (pg_service.conf), or a URL",
        "# postgresql://user@host/db whose password is in the state directory's floor.secret",
        "# (station init puts it there; never here: this file is readable by all). Empty: none.",
        f"service = {_toml_text(cfg.floor_service)}",
        f"url = {_toml_text(cfg.floor_database)}",
        *([f"read_url = {_toml_text(cfg.floor_read_url)}    # a hot standby the pit reads"]
          if cfg.floor_read_url else []),
        "",
        "[terminals]",
        "# Electronic Blackjack's player terminals (TLS; pairing on the port after it):",
        "# dealer-assist station terminal add SEAT. No port: no terminals.",
        (f"port = {cfg.terminals_port}" if cfg.terminals_port is not None else "# port = 7300"),
        f"host = {_toml_text(cfg.terminals_host)}    # empty: every address",
        "",
    ]
    return "\n".join(lines)


def save_config(cfg: StationConfig, path: Path) -> None:
    """Write ``cfg`` to ``path`` atomically: a complete new file or the old one, never half.

    The text is checked by reading it back first. The file is 0644 (it holds no secret);
    written by root it is root's (STATION-CONTRACT: station.toml root:root 0644).
    """
    text = render_config(cfg)
    parse_config(tomllib.loads(text))  # never write a file the app would refuse
    directory = path.parent
    if not directory.is_dir():
        raise StationError(f"cannot save {path}: no directory {directory}")
    tmp = directory / f".{path.name}.{os.getpid()}.tmp"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, CONFIG_MODE)
        try:
            os.write(fd, text.encode("utf-8"))
            os.fchmod(fd, CONFIG_MODE)  # not the umask's
            if hasattr(os, "geteuid") and os.geteuid() == 0:
                os.fchown(fd, 0, 0)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
        _fsync_dir(directory)
    except OSError as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise StationError(f"cannot save {path}: {exc.strerror or exc}") from None


def _fsync_dir(directory: Path) -> None:
    if sys.platform == "win32":
        return
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


# ------------------------------------------------------------------ the store


def store_path(cfg: StationConfig | None, override: str | None = None) -> Path:
    """The table's store: ``--db``, else the configuration's, else the station's (site data
    directory) when configured, else the account's (development run)."""
    if override:
        return Path(override)
    if cfg is not None and cfg.store:
        return Path(cfg.store)
    if cfg is not None:
        return site_data_dir() / STORE_NAME
    return user_data_dir() / STORE_NAME


def floor_url(cfg: StationConfig | None, override: str | None = None) -> str | None:
    """The floor database the station forwards to (issue 18): ``--floor URL``, else the
    configuration's ``[floor] url`` (its password, if any, is in ``floor.secret``: see
    ``floor_password``), else its ``[floor] service`` as the libpq connection string
    ``service=NAME`` (host, database, role and credentials from ``pg_service.conf`` /
    ``PGPASSFILE``), else none."""
    if override:
        return override
    if cfg is not None and cfg.floor_database:
        return cfg.floor_database
    if cfg is not None and cfg.floor_service:
        return f"service={cfg.floor_service}"
    return None


def floor_secret_path(state_dir: Path | None = None) -> Path:
    return (state_dir or site_data_dir()) / FLOOR_SECRET


def floor_password(state_dir: Path | None = None) -> str | None:
    """The floor URL's password from ``floor.secret`` (the service account's, 0600), or None
    when there is none or this account may not read it."""
    try:
        text = floor_secret_path(state_dir).read_text(encoding="utf-8")
    except (FileNotFoundError, PermissionError, IsADirectoryError):
        return None
    return text.rstrip("\n") or None


def split_floor_password(url: str) -> tuple[str, str | None]:
    """``postgresql://user:secret@host/db`` -> (``postgresql://user@host/db``, ``secret``); a
    ``password=`` query parameter likewise. (url, None) when it carries none."""
    from urllib.parse import parse_qsl, unquote, urlencode, urlsplit, urlunsplit

    parts = urlsplit(url)
    password: str | None = None
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, _, hostport = netloc.rpartition("@")
        if ":" in userinfo:
            user, _, secret = userinfo.partition(":")
            password = unquote(secret)
            netloc = f"{user}@{hostport}" if user else hostport
    query = parse_qsl(parts.query, keep_blank_values=True)
    kept = [(k, v) for k, v in query if k != "password"]
    if len(kept) != len(query):
        password = next(v for k, v in query if k == "password")
    if password is None:
        return url, None
    return urlunsplit((parts.scheme, netloc, parts.path, urlencode(kept), parts.fragment)), password


def check_store_directory(path: Path) -> None:
    """Refuse a store whose directory does not exist (it is never created silently: a
    typing mistake would start a second, empty history of the table)."""
    directory = path.parent
    if not directory.is_dir():
        raise StationError(f"{path}: no directory {directory} (create it first, or correct the path)")


def ensure_user_store_directory(path: Path) -> None:
    """Development runs: the account's own data directory may be created (0700)."""
    if path.parent == user_data_dir():
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)


def create_store_file(path: Path) -> None:
    """Create an empty store file 0600 (whatever the umask) if there is none yet. SQLite
    gives the -wal and -shm files the database file's permissions, so those are 0600 too."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
    except FileExistsError:
        return
    except OSError as exc:
        raise StationError(f"cannot create the store {path}: {exc.strerror or exc}") from None
    try:
        os.fchmod(fd, FILE_MODE)
    finally:
        os.close(fd)


def restrict_store_files(path: Path) -> None:
    """Store files (the database, its -wal and -shm) are 0600: the owner's alone. Only files we own can be changed; others are left."""
    for p in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        with contextlib.suppress(FileNotFoundError, PermissionError):
            if stat.S_IMODE(p.stat().st_mode) != FILE_MODE:
                os.chmod(p, FILE_MODE)


def lock_path(store: Path) -> Path:
    return store.with_name(store.name + ".lock")


def account_name() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return str(os.getuid()) if hasattr(os, "getuid") else "?"


class StoreInUse(StationError):
    """Another running Dealer Assist holds the store's lock."""


class StationLock:
    """An exclusive lock on a lock file beside the store (``table.db.lock``), held while
    the dealer's screen runs. The file says who holds it: ``PID account``. The kernel
    drops the lock when the process ends, however it ends, so a crash leaves no stale lock.
    """

    def __init__(self, store: Path) -> None:
        self.path = lock_path(store)
        self._fd: int | None = None

    def acquire(self) -> None:
        """Take the lock, or raise StoreInUse naming the running instance."""
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, FILE_MODE)
        except OSError as exc:
            raise StationError(f"cannot open the lock {self.path}: {exc.strerror or exc}") from None
        try:
            _lock_fd(fd)
        except OSError as exc:
            holder = _read_holder(fd)
            os.close(fd)
            if exc.errno in (errno.EACCES, errno.EAGAIN, errno.EWOULDBLOCK):
                raise StoreInUse(
                    f"the store {self.path.with_suffix('')} is in use by another Dealer Assist "
                    f"({holder}); close that one first"
                ) from None
            raise StationError(f"cannot lock {self.path}: {exc.strerror or exc}") from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()} {account_name()}\n".encode())
        os.fsync(fd)
        self._fd = fd

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, 0)
            os.close(fd)  # closing drops the lock

    @property
    def held(self) -> bool:
        return self._fd is not None

    def __enter__(self) -> StationLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def _lock_fd(fd: int) -> None:
    if sys.platform == "win32":
        import msvcrt

        msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
    else:
        import fcntl

        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)


def _read_holder(fd: int) -> str:
    try:
        os.lseek(fd, 0, os.SEEK_SET)
        text = os.read(fd, 200).decode("utf-8", "replace").split()
    except OSError:
        text = []
    if len(text) >= 2:
        return f"PID {text[0]}, account {text[1]}"
    return "PID unknown"


# ------------------------------------------------------------------ checks (station check)


@dataclass(frozen=True)
class Check:
    """One part of ``dealer-assist station check``: OK with what was found, or what to do."""

    part: str
    ok: bool
    text: str
    skipped: bool = False  # "not configured": neither OK nor a failure

    def line(self) -> str:
        mark = "--" if self.skipped else ("OK" if self.ok else "FAIL")
        return f"{mark:4} {self.part}: {self.text}"


def check_config(cfg: StationConfig | None, path: Path) -> Check:
    if cfg is None:
        return Check("configuration", False, f"no {path}: a development run on the simulated shoe "
                     f"(write one with `dealer-assist station init`, as root)")
    name = " ".join(p for p in (cfg.table, f"({cfg.pit})" if cfg.pit else "") if p) or "no table name"
    return Check("configuration", True, f"{path}: {name}")


def _groups_of_account() -> set[int]:
    if sys.platform == "win32":
        return set()
    return set(os.getgroups()) | {os.getegid()}


def _group_name(gid: int) -> str:
    if sys.platform == "win32":
        return str(gid)
    import grp

    try:
        return grp.getgrgid(gid).gr_name
    except KeyError:
        return str(gid)


def check_port(port: str) -> Check:
    """The shoe's port exists and this account may open it for reading and writing."""
    if not port:
        return Check("shoe port", False, "no shoe.port configured: the simulated shoe is used "
                     "(set [shoe] port, e.g. /dev/dealer-shoe)")
    path = Path(port)
    if not path.exists():
        return Check("shoe port", False, f"{port} does not exist: plug the shoe in; check the udev rule "
                     f"(ls -l /dev/serial/by-id/; udevadm info {port})")
    if os.access(path, os.R_OK | os.W_OK):
        return Check("shoe port", True, f"{port} exists and this account may open it")
    st = path.stat()
    group = _group_name(st.st_gid)
    if st.st_gid in _groups_of_account() or not stat.S_IRWXG & st.st_mode:
        return Check("shoe port", False, f"{port}: permission denied (mode {stat.filemode(st.st_mode)})")
    if st.st_gid == 0:  # never an account into root's group: the udev rule gives the shoe its group
        return Check("shoe port", False, f"{port} belongs to group root: install packaging/udev/99-dealer-shoe.rules "
                     "(it gives the shoe group dialout), then udevadm control --reload and plug the shoe in again")
    return Check("shoe port", False, f"{port} belongs to group {group} and {account_name()} is not in it: "
                 f"sudo usermod -aG {group} {account_name()}, then log out and in again")


def check_store(path: Path) -> Check:
    """The store's directory is writable and the store (if it exists yet) verifies."""
    from dealer_assist.store import Store, StoreError

    if not path.parent.is_dir():
        return Check("store", False, f"no directory {path.parent}: run install.sh, or "
                     f"sudo install -d -m 0700 {path.parent}")
    if not os.access(path.parent, os.W_OK | os.X_OK):
        return Check("store", False, f"{account_name()} may not write in {path.parent} (on a station only "
                     "the service account may: check the station's configuration as root)")
    if not path.exists():
        return Check("store", True, f"{path} will be created at the first start")
    if not os.access(path, os.R_OK | os.W_OK):
        return Check("store", False, f"{account_name()} may not write {path}: "
                     f"run it as the store's owner, or sudo chown {account_name()} {path}")
    try:
        with Store.open_readonly(path) as store:
            result = store.verify()
    except (StoreError, OSError) as exc:
        return Check("store", False, f"{exc}")
    except Exception as exc:  # noqa: BLE001 - sqlite3's errors: report, do not crash the check
        return Check("store", False, f"{path}: {exc}")
    if not result.ok:
        return Check("store", False, f"{path}: hash chains broken: {result.problem} "
                     f"(keep the file for the auditor; see docs/store.md)")
    return Check("store", True, f"{path}: writable; {result.rounds} rounds, hash chains intact")


def check_disk(path: Path, minimum: int = MIN_FREE_BYTES) -> Check:
    """Room on the store's file system."""
    where = path.parent if path.parent.is_dir() else Path(path.anchor or "/")
    usage = shutil.disk_usage(where)
    free_mb = usage.free // (1024 * 1024)
    if usage.free < minimum:
        return Check("disk", False, f"{free_mb} MB free on {where}, less than {minimum // (1024 * 1024)} MB: "
                     "free some space (old logs, downloads)")
    return Check("disk", True, f"{free_mb:,} MB free on {where}")


def _service_file_entries(service: str) -> dict[str, str] | None:
    """The ``[service]`` section of the PostgreSQL service file (libpq's search order)."""
    import configparser

    candidates = []
    if os.environ.get("PGSERVICEFILE"):
        candidates.append(Path(os.environ["PGSERVICEFILE"]))
    else:
        candidates.append(Path.home() / ".pg_service.conf")
    sysconf = os.environ.get("PGSYSCONFDIR")
    candidates += [Path(sysconf) / "pg_service.conf"] if sysconf else [
        Path("/etc/postgresql-common/pg_service.conf"), Path("/etc/pg_service.conf")]
    for candidate in candidates:
        parser = configparser.ConfigParser(interpolation=None)
        try:
            parser.read(candidate, encoding="utf-8")
        except (configparser.Error, OSError):
            continue
        if parser.has_section(service):
            return dict(parser.items(service))
    return None


def check_floor(service: str, timeout_s: int = 5, *, tcp_only: bool = False) -> Check:
    """The floor database answers: a connection with the floor's own client
    (dealer_assist.floor, psycopg) when it is installed, else (or with ``tcp_only``) a TCP
    connection to the host and port of the service file."""
    if not service:
        return Check("floor", True, "not configured ([floor] url and service are empty)", skipped=True)
    if not tcp_only:
        try:
            from dealer_assist.floor.connection import FloorError, connect
        except ImportError:  # psycopg is not installed
            tcp_only = True
    if not tcp_only:
        try:
            with connect(f"service={service}", connect_timeout=timeout_s) as conn:
                row = conn.execute("SHOW server_version").fetchone()
        except FloorError as exc:
            return Check("floor", False, f"{exc} (check the service in pg_service.conf, the network, "
                         "and that the floor server runs)")
        except Exception as exc:  # noqa: BLE001 - psycopg's errors after connecting: say what failed
            return Check("floor", False, f"service {service}: {str(exc).strip() or type(exc).__name__}")
        version = str(row[0]) if row else "?"
        return Check("floor", True, f"service {service}: connected (PostgreSQL {version})")
    entries = _service_file_entries(service)
    if entries is None:
        return Check("floor", False, f"service {service} is in no pg_service.conf (~/.pg_service.conf, "
                     "$PGSYSCONFDIR/pg_service.conf): add it")
    host = entries.get("host", "localhost")
    port = int(entries.get("port", "5432"))
    try:
        with socket.create_connection((host, port), timeout=timeout_s):
            pass
    except OSError as exc:
        return Check("floor", False, f"service {service}: cannot reach {host}:{port}: {exc.strerror or exc}")
    return Check("floor", True, f"service {service}: {host}:{port} accepts connections (psycopg is not "
                 "installed, so only the TCP connection was tried)")


def check_floor_url(url: str, password: str | None, timeout_s: int = 5) -> Check:
    """The floor database at ``url`` answers, logged in with the password of ``floor.secret``."""
    try:
        from dealer_assist.floor.connection import FloorError, connect, safe_url
    except ImportError:  # psycopg is not installed
        return Check("floor", False, f"{url}: the floor's client (psycopg) is not installed")
    try:
        with connect(url, connect_timeout=timeout_s, password=password) as conn:
            row = conn.execute("SHOW server_version").fetchone()
    except FloorError as exc:
        hint = "" if password else f" (no password read from {FLOOR_SECRET}: check as root)"
        return Check("floor", False, f"{exc}{hint}")
    except Exception as exc:  # noqa: BLE001 - psycopg's errors after connecting: say what failed
        return Check("floor", False, f"{safe_url(url)}: {str(exc).strip() or type(exc).__name__}")
    version = str(row[0]) if row else "?"
    return Check("floor", True, f"{safe_url(url)}: connected (PostgreSQL {version})")


def iter_lines(checks: list[Check]) -> Iterator[str]:
    for check in checks:
        yield check.line()
