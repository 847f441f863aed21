"""A station set up as a technician would, for tests that run inside the private mount
namespace of tests/station_day/namespace.py (as root, no DESTDIR, the real paths).

install.sh runs in its --from-venv mode on this source tree and the venv running the tests
(a PyInstaller build takes minutes; packaging/check_build.sh checks the build's install).
Dealers' accounts are made with ``useradd`` (in the namespace's /etc only) with a prefix
unique to this run, and removed again.
"""

from __future__ import annotations

import grp
import os
import pwd
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
INSTALL = ROOT / "packaging" / "install.sh"
VENV = Path(sys.prefix)
SERVICE = "dealer-assist"
STATE = Path("/var/lib/dealer-assist")
LOG = Path("/var/log/dealer-assist")
CONF = Path("/etc/dealer-assist")
CONFIG = CONF / "station.toml"
RUN = Path("/run/dealer-assist")
UNIT = Path("/etc/systemd/system/dealer-assist.service")
PROGRAM = Path("/opt/dealer-assist")
COMMAND = "/usr/local/bin/dealer-assist"
EXAMPLES = Path(os.environ.get("DEALER_ASSIST_EXAMPLES", ROOT.parent / "shared" / "examples"))
if not EXAMPLES.is_dir():
    EXAMPLES = Path("/work/shared/examples")
PREFIX = f"dat{os.getpid() % 100000}"  # this run's test accounts


def in_station_namespace() -> bool:
    """The namespace's marks: root, and /opt a tmpfs of its own."""
    if os.geteuid() != 0:
        return False
    with open("/proc/self/mountinfo", encoding="utf-8") as info:
        points = {line.split()[4] for line in info}
    return {"/opt", "/var/lib/dealer-assist", "/etc/systemd"} <= points


def run(cmd: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300, **kwargs)  # type: ignore[call-overload, no-any-return]


def install(*args: str) -> subprocess.CompletedProcess[str]:
    """``sudo packaging/install.sh --from-venv VENV`` (no DESTDIR; the pty shoe needs no udev rule)."""
    env = {k: v for k, v in os.environ.items() if k != "DESTDIR"}
    return run([str(INSTALL), "--from-venv", str(VENV), "--no-udev", *args], env=env)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


def owners(path: Path) -> tuple[str, str]:
    st = path.lstat()
    return pwd.getpwuid(st.st_uid).pw_name, grp.getgrgid(st.st_gid).gr_name


@dataclass(frozen=True)
class Account:
    name: str
    uid: int
    gid: int
    groups: tuple[int, ...]
    home: Path

    def env(self, **extra: str) -> dict[str, str]:
        return {"HOME": str(self.home), "USER": self.name, "LOGNAME": self.name,
                "PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8",
                "XDG_RUNTIME_DIR": str(self.home / "run"), **extra}

    def run(self, cmd: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
        """``cmd`` as this account (its groups as a log-in would give them), from its home."""
        env = kwargs.pop("env", None) or self.env()
        return run(cmd, user=self.uid, group=self.gid, extra_groups=list(self.groups), cwd=str(self.home),
                   env=env, **kwargs)

    def popen(self, cmd: list[str], **kwargs: object) -> subprocess.Popen[str]:
        env = kwargs.pop("env", None) or self.env()
        return subprocess.Popen(cmd, user=self.uid, group=self.gid, extra_groups=list(self.groups),  # type: ignore[call-overload, no-any-return]
                                cwd=str(self.home), env=env, text=True, **kwargs)


def account(name: str) -> Account:
    entry = pwd.getpwnam(name)
    groups = tuple(sorted({g.gr_gid for g in grp.getgrall() if name in g.gr_mem} | {entry.pw_gid}))
    home = Path(entry.pw_dir)
    if not home.is_dir():  # no useradd -m: the machine's /home is not written
        home = Path(tempfile.mkdtemp(prefix=f"{name}-home-"))
        os.chown(home, entry.pw_uid, entry.pw_gid)
    (home / "run").mkdir(mode=0o700, exist_ok=True)
    os.chown(home / "run", entry.pw_uid, entry.pw_gid)
    return Account(name, entry.pw_uid, entry.pw_gid, groups, home)


def add_dealer(letter: str) -> Account:
    """A dealer's desktop account, in group dealer-assist (the socket) and nothing else."""
    name = f"{PREFIX}{letter}"
    home = Path(tempfile.mkdtemp(prefix=f"{name}-home-"))
    done = run(["useradd", "--no-create-home", "--home-dir", str(home), "--shell", "/bin/sh",
                "--groups", "dealer-assist", name])
    assert done.returncode == 0, done.stderr
    entry = pwd.getpwnam(name)
    os.chown(home, entry.pw_uid, entry.pw_gid)
    home.chmod(0o700)
    return account(name)


def remove_account(acct: Account) -> None:
    run(["userdel", acct.name])
    shutil.rmtree(acct.home, ignore_errors=True)


def dealers(*letters: str) -> Iterator[list[Account]]:
    made = [add_dealer(letter) for letter in letters]
    try:
        yield made
    finally:
        for acct in made:
            remove_account(acct)


def station_check(as_account: Account | None = None) -> tuple[int, dict[str, str], str]:
    """``dealer-assist station check`` (as root, or as ``as_account``): exit status, part -> line."""
    cmd = [COMMAND, "station", "check"]
    done = as_account.run(cmd) if as_account else run(cmd, env={**os.environ, "HOME": "/root"})
    parts = {}
    for line in done.stdout.splitlines():
        if ":" in line and line[:4].strip() in ("OK", "FAIL", "--"):
            parts[line[5:].split(":", 1)[0]] = line
    return done.returncode, parts, done.stdout + done.stderr


def record_example_as_service(name: str = "lucky8-pair-and-double.json") -> subprocess.CompletedProcess[str]:
    """A round recorded into the station's store by the service account (what the service
    does): the store, its key and head file are made by that account."""
    svc = account(SERVICE)
    example = Path(tempfile.mkdtemp(prefix="dealer-assist-example-")) / name
    shutil.copy(EXAMPLES / name, example)
    example.parent.chmod(0o755)
    example.chmod(0o644)
    return svc.run([COMMAND, "settle", str(example), "--record", str(STATE / "table.db")])


def enrol_supervisor_as_service(name: str, pin: str) -> subprocess.CompletedProcess[str]:
    """The first supervisor's PIN hash written into the station's store by the service account."""
    svc = account(SERVICE)
    code = ("import sys; from dealer_assist.store import Store\n"
            f"with Store.open({str(STATE / 'table.db')!r}) as s: s.enrol_supervisor({name!r}, {pin!r})\n")
    return svc.run([str(VENV / "bin" / "python"), "-s", "-P", "-c", code],
                   env=svc.env(PYTHONPATH=str(PROGRAM / "lib")))
