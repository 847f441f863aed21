"""The station's accounts, files and modes (STATION-CONTRACT), and the checks of them.

One system account, ``dealer-assist`` (its group of the same name), runs the station
service and alone holds the secrets: the state directory 0700 with the store, its key, the
head file and the floor's password 0600. Dealers' accounts are in group ``dealer-assist``
only to reach the service's socket. The configuration is root's (0644, no secrets).
packaging/install.sh makes this layout; ``dealer-assist station check`` checks it here.

No Qt, no pyserial.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from dealer_assist.service.probe import handshake
from dealer_assist.service.station import (
    FLOOR_SECRET,
    Check,
    site_config_dir,
    site_data_dir,
    site_log_dir,
)

ACCOUNT = "dealer-assist"  # the service's account and its group (packaging/install.sh ACCOUNT)
GROUP = "dealer-assist"
SHOE_GROUP = "dialout"
UNIT = "dealer-assist.service"
SOCKET_NAME = "station.sock"
SECRET_MODE = 0o600
STATE_MODE = 0o700
LOG_MODE = 0o750
RUN_MODE = 0o750
SOCKET_MODE = 0o660
CONFIG_MODE = 0o644
CONFIG_DIR_MODE = 0o755


@dataclass(frozen=True)
class Layout:
    """Where the station's parts are (the real places unless a test names others)."""

    config_dir: Path
    state_dir: Path
    log_dir: Path
    run_dir: Path
    unit_dir: Path

    @property
    def config(self) -> Path:
        return self.config_dir / "station.toml"

    @property
    def socket(self) -> Path:
        return self.run_dir / SOCKET_NAME

    @property
    def floor_secret(self) -> Path:
        return self.state_dir / FLOOR_SECRET

    @property
    def unit(self) -> Path:
        return self.unit_dir / UNIT


def station_layout() -> Layout:
    return Layout(site_config_dir(), site_data_dir(), site_log_dir(), Path("/run") / ACCOUNT,
                  Path("/etc/systemd/system"))


def is_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


def systemd_running() -> bool:
    """sd_booted(3): systemd is the init system here."""
    return Path("/run/systemd/system").is_dir()


# ------------------------------------------------------------------ accounts


@dataclass(frozen=True)
class Account:
    name: str
    uid: int
    gid: int
    home: str
    shell: str
    groups: frozenset[int]  # primary and supplementary


def find_account(name: str = ACCOUNT) -> Account | None:
    if sys.platform == "win32":
        return None
    import grp
    import pwd

    try:
        entry = pwd.getpwnam(name)
    except KeyError:
        return None
    groups = {g.gr_gid for g in grp.getgrall() if name in g.gr_mem} | {entry.pw_gid}
    return Account(name, entry.pw_uid, entry.pw_gid, entry.pw_dir, entry.pw_shell, frozenset(groups))


def group_id(name: str) -> int | None:
    if sys.platform == "win32":
        return None
    import grp

    try:
        return grp.getgrnam(name).gr_gid
    except KeyError:
        return None


def owner_names(st: os.stat_result) -> tuple[str, str]:
    import grp
    import pwd

    try:
        user = pwd.getpwuid(st.st_uid).pw_name
    except KeyError:
        user = str(st.st_uid)
    try:
        group = grp.getgrgid(st.st_gid).gr_name
    except KeyError:
        group = str(st.st_gid)
    return user, group


def check_account(layout: Layout) -> Check:
    account = find_account()
    part = "service account"
    if account is None:
        return Check(part, False, f"no account {ACCOUNT}: run install.sh (as root), which creates it")
    problems = []
    if group_id(GROUP) != account.gid:
        problems.append(f"its primary group is not {GROUP} (usermod -g {GROUP} {ACCOUNT})")
    shoe_gid = group_id(SHOE_GROUP)
    if shoe_gid is not None and shoe_gid not in account.groups:
        problems.append(f"it is not in group {SHOE_GROUP}, so it cannot open the shoe "
                        f"(usermod -aG {SHOE_GROUP} {ACCOUNT})")
    if Path(account.home) != layout.state_dir:
        problems.append(f"its home is {account.home}, not {layout.state_dir}")
    if not account.shell.endswith(("nologin", "false")):
        problems.append(f"it has a log-in shell {account.shell} (usermod -s /usr/sbin/nologin {ACCOUNT})")
    if problems:
        return Check(part, False, f"{ACCOUNT}: " + "; ".join(problems))
    return Check(part, True, f"{ACCOUNT} (uid {account.uid}), group {GROUP}, in {SHOE_GROUP}, no log-in")


# ------------------------------------------------------------------ files and modes


@dataclass(frozen=True)
class Expected:
    path: Path
    user: str
    group: str
    mode: int
    kind: str  # "dir", "file" or "socket"


def expected_files(layout: Layout) -> list[Expected]:
    """The parts whose owner and mode ``check`` checks (the contract's table)."""
    return [
        Expected(layout.config_dir, "root", "root", CONFIG_DIR_MODE, "dir"),
        Expected(layout.config, "root", "root", CONFIG_MODE, "file"),
        Expected(layout.state_dir, ACCOUNT, GROUP, STATE_MODE, "dir"),
        Expected(layout.log_dir, ACCOUNT, GROUP, LOG_MODE, "dir"),
    ]


def state_files(layout: Layout) -> Iterator[Path]:
    """The files in the state directory (store, key, head, floor secret, ...)."""
    for path in sorted(layout.state_dir.iterdir()):
        if not path.is_symlink():
            yield path


def _fix(exp: Expected) -> str:
    return f"chown {exp.user}:{exp.group} {exp.path} && chmod {exp.mode:04o} {exp.path}"


def check_one(exp: Expected) -> str | None:
    """What is wrong with one part, with the command that fixes it; None when right."""
    try:
        st = exp.path.lstat()
    except FileNotFoundError:
        return f"{exp.path} is missing (install.sh makes it)"
    except PermissionError:
        return f"{exp.path}: this account may not look at it (check as root)"
    kinds = {"dir": stat.S_ISDIR, "file": stat.S_ISREG, "socket": stat.S_ISSOCK}
    if not kinds[exp.kind](st.st_mode):
        return f"{exp.path} is not a {exp.kind}"
    user, group = owner_names(st)
    mode = stat.S_IMODE(st.st_mode)
    if (user, group, mode) != (exp.user, exp.group, exp.mode):
        return (f"{exp.path} is {user}:{group} {mode:04o}, not {exp.user}:{exp.group} {exp.mode:04o}: "
                f"{_fix(exp)}")
    return None


def check_files(layout: Layout, store: Path | None = None) -> Check:
    """Owners and modes of the directories, the configuration and (as root or the service
    account, who alone may look) every file in the state directory; a store configured
    elsewhere (``store.path``) and its directory are the service account's too (0600/0700)."""
    part = "files"
    expected = expected_files(layout)
    if store is not None and store.parent != layout.state_dir:
        expected.append(Expected(store.parent, ACCOUNT, GROUP, STATE_MODE, "dir"))
        with contextlib.suppress(OSError):
            if store.exists():
                expected += [Expected(p, ACCOUNT, GROUP, SECRET_MODE, "file")
                             for p in sorted(store.parent.glob(store.name + "*")) if not p.is_symlink()]
    problems = [p for p in (check_one(e) for e in expected) if p]
    inside = 0
    looked = False
    if layout.state_dir.is_dir() and os.access(layout.state_dir, os.R_OK | os.X_OK):
        looked = True
        for path in state_files(layout):
            inside += 1
            kind = "dir" if path.is_dir() else "file"
            problem = check_one(Expected(path, ACCOUNT, GROUP, STATE_MODE if kind == "dir" else SECRET_MODE, kind))
            if problem:
                problems.append(problem)
    if problems:
        return Check(part, False, "; ".join(problems))
    where = (f"{inside} file(s) in {layout.state_dir} are {ACCOUNT}'s alone (0600)" if looked else
             f"the files in {layout.state_dir} are not this account's to see (run the check as root to see them)")
    return Check(part, True, f"{layout.config} root 0644, {layout.state_dir} 0700, {layout.log_dir} 0750; {where}")


# ------------------------------------------------------------------ the service


def check_unit(layout: Layout) -> Check:
    part = "service unit"
    if not layout.unit.is_file():
        return Check(part, False, f"no {layout.unit}: run install.sh (as root)")
    if not systemd_running():
        return Check(part, True, f"{layout.unit} installed; systemd is not running here, so the service is "
                     f"started by hand: runuser -u {ACCOUNT} -- dealer-assist station serve", skipped=True)
    systemctl = shutil.which("systemctl") or "systemctl"
    states = {}
    for question in ("is-enabled", "is-active"):
        try:
            done = subprocess.run([systemctl, question, UNIT], capture_output=True, text=True, timeout=10)
            states[question] = done.stdout.strip() or done.stderr.strip()
        except (OSError, subprocess.TimeoutExpired) as exc:
            states[question] = str(exc)
    if states["is-enabled"] != "enabled":
        return Check(part, False, f"{UNIT} is {states['is-enabled']}, not enabled: systemctl enable --now {UNIT}")
    if states["is-active"] != "active":
        return Check(part, False, f"{UNIT} is {states['is-active']}: systemctl start {UNIT}; "
                     f"journalctl -u {UNIT} says why it stopped")
    return Check(part, True, f"{UNIT} installed, enabled and active")


def check_socket(layout: Layout) -> Check:
    """The socket: owner and mode, and the service answers the handshake."""
    part = "service"
    path = layout.socket
    problem = check_one(Expected(layout.run_dir, ACCOUNT, GROUP, RUN_MODE, "dir"))
    if problem is None:
        problem = check_one(Expected(path, ACCOUNT, GROUP, SOCKET_MODE, "socket"))
    if problem is not None and "is missing" in problem:
        start = f"systemctl start {UNIT}" if systemd_running() else f"runuser -u {ACCOUNT} -- dealer-assist station serve"
        return Check(part, False, f"{problem.split(' (')[0]}: the service is not running ({start})")
    if problem is not None:
        return Check(part, False, problem)
    answer = handshake(path)
    if not answer.ok:
        text = answer.problem
        if "permission denied" in text and not is_root():
            from dealer_assist.service.station import account_name

            text += f": usermod -aG {GROUP} {account_name()}, then log out and in again"
        return Check(part, False, text)
    table = answer.station.get("table") or answer.station.get("name") or ""
    return Check(part, True, f"{path} answers the handshake (protocol 1{', table ' + str(table) if table else ''}; "
                 f"it sees this account as {answer.account or '?'})")


def may_open(account: Account, st: os.stat_result, want: int = 0o6) -> bool:
    """Would ``account`` pass the permission bits of ``st`` for ``want`` (r=4, w=2)?"""
    if account.uid == 0:
        return True
    if st.st_uid == account.uid:
        bits = (st.st_mode >> 6) & 7
    elif st.st_gid in account.groups:
        bits = (st.st_mode >> 3) & 7
    else:
        bits = st.st_mode & 7
    return bits & want == want


def check_shoe_access(port: str) -> Check:
    """The shoe's port exists and the service account may open it for reading and writing."""
    part = "shoe port"
    if not port:
        return Check(part, False, "no shoe.port configured: the simulated shoe is used "
                     "(set it with: dealer-assist station init --force --shoe /dev/dealer-shoe ...)")
    try:
        st = os.stat(port)
    except FileNotFoundError:
        return Check(part, False, f"{port} does not exist: plug the shoe in; check the udev rule "
                     f"(ls -l /dev/serial/by-id/; udevadm info {port})")
    except OSError as exc:
        return Check(part, False, f"{port}: {exc.strerror or exc}")
    account = find_account()
    if account is None:
        return Check(part, False, f"{port} exists, but there is no account {ACCOUNT} to open it: run install.sh")
    if not stat.S_ISCHR(st.st_mode):
        return Check(part, False, f"{port} is not a serial device")
    user, group = owner_names(st)
    if may_open(account, st):
        return Check(part, True, f"{port} ({user}:{group} {stat.S_IMODE(st.st_mode):04o}): {ACCOUNT} may open it")
    if st.st_gid == 0 or group == "root":  # never the service into root's group: the udev rule
        return Check(part, False, f"{port} is {user}:{group} {stat.S_IMODE(st.st_mode):04o} and {ACCOUNT} may not "
                     f"open it: install packaging/udev/99-dealer-shoe.rules (it gives the shoe group {SHOE_GROUP}), "
                     "then udevadm control --reload and plug the shoe in again")
    return Check(part, False, f"{port} is {user}:{group} {stat.S_IMODE(st.st_mode):04o} and {ACCOUNT} may not open "
                 f"it: usermod -aG {group} {ACCOUNT} (a udev rule gives the shoe group {SHOE_GROUP})")


# ------------------------------------------------------------------ the floor's password


def write_floor_secret(layout: Layout, password: str) -> None:
    """The floor URL's password, alone in ``floor.secret`` 0600 of the service account
    (never in station.toml). Written atomically; only root may give it to the account."""
    account = find_account()
    if account is None:
        raise OSError(f"no account {ACCOUNT} to own {layout.floor_secret}: run install.sh first")
    tmp = layout.state_dir / f".{FLOOR_SECRET}.{os.getpid()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, SECRET_MODE)
    try:
        try:
            os.write(fd, password.encode("utf-8") + b"\n")
            os.fchmod(fd, SECRET_MODE)
            os.fchown(fd, account.uid, account.gid)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, layout.floor_secret)
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


ENROL_CODE = "enrol-code"  # dealer_assist/service/table.py ENROL_CODE_NAME reads it


def write_enrol_code(layout: Layout) -> str:
    """A new one-time code for the first supervisor's enrolment, written 0600 for the service
    account in its state directory (replacing an older one); the code, for root to read out."""
    import secrets

    account = find_account()
    if account is None or not layout.state_dir.is_dir():
        raise OSError(f"no account {ACCOUNT} with its {layout.state_dir} yet: run install.sh first")
    code = "-".join(f"{secrets.randbelow(10**4):04d}" for _ in range(3))
    path = layout.state_dir / ENROL_CODE
    tmp = layout.state_dir / f".{ENROL_CODE}.{os.getpid()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, SECRET_MODE)
    try:
        try:
            os.write(fd, code.encode("ascii") + b"\n")
            os.fchown(fd, account.uid, account.gid)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    return code

