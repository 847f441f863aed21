"""A person's own OS account, made for one test: ``python -m tests.accounts SCRATCH HOME NAME
[--give DIR]... [--env NAME=VALUE]... -- COMMAND...`` run as root under ``unshare --mount
--propagation private``. Used for a pit supervisor reviewing a store file
(tests/ui_review/test_review_as_account.py) and for a new user's first start of
``dealer-assist`` (tests/ui_service/test_first_start.py).

In this private mount namespace only (tests/station_day/namespace.py's overlays):

- /etc is overlaid, its writes going to a tmpfs mounted on SCRATCH: ``useradd`` makes NAME
  (its own group, no other; home HOME, not created) in this namespace's copies of
  /etc/passwd, /etc/group and /etc/shadow; the machine's /etc is never written, and the
  account goes with the namespace;
- the directories on the way to the interpreter, its venv and this checkout that other
  accounts may not enter (/root, 0700, for a pyenv Python) are overlaid with a top of mode
  0711, so the account can run the same Python on the same sources (it cannot list them).

Then HOME and everything in it, and each DIR given (its runtime directory, say), are given
to NAME, ``ACCOUNT {"name", "uid", "gid"}`` is said on stdout, and COMMAND runs as NAME (its
uid, its group, no supplementary group: a log-in's) from HOME, with stdin and stdout those
of this process, and an environment of its own: HOME, USER, LOGNAME, PATH, LANG, PYTHONPATH
as given here, Qt offscreen, each ``--env`` pair, and nothing else (no DEALER_ASSIST_
variable: no development switch). Its exit status is this one's.

The test's side: :func:`account_folder` (a folder in /tmp the account can enter),
:func:`need_root` (root and the tools, else the test fails saying which), :func:`proc_facts`
(what /proc says of a process, read as root).
"""

from __future__ import annotations

import argparse
import json
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.station_day.namespace import Scratch, interpreter_paths, open_the_way

ROOT = Path(__file__).resolve().parents[1]
TOOLS = ("unshare", "useradd", "mount")


def give(folder: Path, uid: int, gid: int) -> None:
    for path in [folder, *folder.rglob("*")]:
        os.chown(path, uid, gid, follow_symlinks=False)


def make_account(scratch_place: Path, home: Path, name: str) -> pwd.struct_passwd:
    """NAME in this namespace's /etc (its own group, home HOME), and the way to the
    interpreter and this checkout opened to it."""
    if os.geteuid() != 0:
        raise SystemExit("tests/accounts.py: must run as root (useradd)")
    scratch = Scratch(scratch_place)
    scratch.overlay(Path("/etc"))  # useradd writes here, never to the machine's /etc
    subprocess.run(["useradd", "--user-group", "--no-create-home", "--home-dir", str(home),
                    "--shell", "/bin/sh", name], check=True)
    open_the_way(scratch, [*interpreter_paths(), ROOT])
    return pwd.getpwnam(name)


def own_environment(entry: pwd.struct_passwd, home: Path, extra: dict[str, str]) -> dict[str, str]:
    """The account's environment: nothing of root's but PYTHONPATH (this checkout's sources)."""
    env = {"HOME": str(home), "USER": entry.pw_name, "LOGNAME": entry.pw_name, "PATH": "/usr/bin:/bin",
           "LANG": "C.UTF-8", "QT_QPA_PLATFORM": "offscreen", "PYTHONDONTWRITEBYTECODE": "1",
           "PYTHONPATH": os.environ.get("PYTHONPATH", str(ROOT))}
    env.update(extra)
    assert not any(k.startswith("DEALER_ASSIST_") for k in env), env  # no development switch
    return env


def main(argv: list[str]) -> int:
    if "--" not in argv:
        print("usage: python -m tests.accounts SCRATCH HOME NAME [--give DIR]... [--env NAME=VALUE]... -- COMMAND...",
              file=sys.stderr)
        return 2
    at = argv.index("--")
    parser = argparse.ArgumentParser(prog="python -m tests.accounts")
    parser.add_argument("scratch", type=Path)
    parser.add_argument("home", type=Path)
    parser.add_argument("name")
    parser.add_argument("--give", type=Path, action="append", default=[])
    parser.add_argument("--env", action="append", default=[])
    args = parser.parse_args(argv[:at])
    command = argv[at + 1:]
    entry = make_account(args.scratch, args.home, args.name)
    for folder in [args.home, *args.give]:
        give(folder, entry.pw_uid, entry.pw_gid)
    print("ACCOUNT " + json.dumps({"name": entry.pw_name, "uid": entry.pw_uid, "gid": entry.pw_gid}), flush=True)
    env = own_environment(entry, args.home, dict(pair.split("=", 1) for pair in args.env))
    return subprocess.run(command, user=entry.pw_uid, group=entry.pw_gid, extra_groups=[], cwd=str(args.home),
                          env=env).returncode


# ------------------------------------------------------------------ the test's side (root)


def need_root(whose: str) -> None:
    """Root, unshare, useradd and mount, else the test fails saying which (never a skip:
    CI runs the suite as root)."""
    if os.geteuid() != 0:
        pytest.fail(f"{whose} is made with useradd: run this as root (CI does)")
    for tool in TOOLS:
        if shutil.which(tool) is None:
            pytest.fail(f"{whose} needs {tool} (util-linux, passwd)")


@contextmanager
def account_folder(prefix: str) -> Iterator[Path]:
    """A new folder in /tmp (0711: the account cannot enter pytest's own 0700 folders) for
    the account's home and whatever else is given to it; removed afterwards, with whatever
    the account left there."""
    base = Path(tempfile.mkdtemp(prefix=prefix))
    base.chmod(0o711)
    try:
        yield base
    finally:
        shutil.rmtree(base, ignore_errors=True)


def proc_facts(pid: int) -> dict[str, Any]:
    """What /proc says of ``pid``: its uids and gids (real, effective, saved, file system),
    its supplementary groups, its parent, its command line; {} once it is gone."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[:-1]
    except (FileNotFoundError, ProcessLookupError):
        return {}
    fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
    return {"uids": {int(u) for u in fields["Uid"].split()}, "gids": {int(g) for g in fields["Gid"].split()},
            "groups": {int(g) for g in fields["Groups"].split()},
            "ppid": int(fields["PPid"]), "argv": [a.decode() for a in argv]}


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
