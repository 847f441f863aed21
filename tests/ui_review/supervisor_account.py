"""A pit supervisor's own OS account, made for one test: ``python -m
tests.ui_review.supervisor_account SCRATCH HOME NAME -- COMMAND...`` run as root under
``unshare --mount --propagation private`` (tests/ui_review/test_review_as_account.py).

In this private mount namespace only (tests/station_day/namespace.py's overlays):

- /etc is overlaid, its writes going to a tmpfs mounted on SCRATCH: ``useradd`` makes NAME
  (its own group, no other; home HOME, not created) in this namespace's copies of
  /etc/passwd, /etc/group and /etc/shadow; the machine's /etc is never written, and the
  account goes with the namespace;
- the directories on the way to the interpreter, its venv and this checkout that other
  accounts may not enter (/root, 0700, for a pyenv Python) are overlaid with a top of mode
  0711, so the account can run the same Python on the same sources (it cannot list them).

Then HOME and everything in it (the supervisor's copy of a table's store, its key and
head record) is given to NAME, ``ACCOUNT {"name", "uid", "gid"}`` is said on stdout, and
COMMAND runs as NAME (its uid, its group, no supplementary group: a log-in's) from HOME,
with stdin and stdout those of this process, and an environment of its own: HOME, USER,
PATH, LANG, PYTHONPATH as given here, Qt offscreen, and nothing else (no DEALER_ASSIST_
variable: no development switch). Its exit status is this one's.
"""

from __future__ import annotations

import json
import os
import pwd
import subprocess
import sys
from pathlib import Path

from tests.station_day.namespace import Scratch, interpreter_paths, open_the_way

ROOT = Path(__file__).resolve().parents[2]


def give(home: Path, uid: int, gid: int) -> None:
    for path in [home, *home.rglob("*")]:
        os.chown(path, uid, gid, follow_symlinks=False)


def main(argv: list[str]) -> int:
    if len(argv) < 5 or argv[3] != "--":
        print("usage: python -m tests.ui_review.supervisor_account SCRATCH HOME NAME -- COMMAND...", file=sys.stderr)
        return 2
    if os.geteuid() != 0:
        raise SystemExit("tests/ui_review/supervisor_account.py: must run as root (useradd)")
    scratch_place, home, name, command = Path(argv[0]), Path(argv[1]), argv[2], argv[4:]
    scratch = Scratch(scratch_place)
    scratch.overlay(Path("/etc"))  # useradd writes here, never to the machine's /etc
    subprocess.run(["useradd", "--user-group", "--no-create-home", "--home-dir", str(home),
                    "--shell", "/bin/sh", name], check=True)
    open_the_way(scratch, [*interpreter_paths(), ROOT])
    entry = pwd.getpwnam(name)
    give(home, entry.pw_uid, entry.pw_gid)
    print("ACCOUNT " + json.dumps({"name": name, "uid": entry.pw_uid, "gid": entry.pw_gid}), flush=True)
    env = {"HOME": str(home), "USER": name, "LOGNAME": name, "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8",
           "QT_QPA_PLATFORM": "offscreen", "PYTHONDONTWRITEBYTECODE": "1",
           "TMPDIR": str(home / "tmp"),  # the review's private directory: in the account's home
           "PYTHONPATH": os.environ.get("PYTHONPATH", str(ROOT))}
    return subprocess.run(command, user=entry.pw_uid, group=entry.pw_gid, extra_groups=[], cwd=str(home),
                          env=env).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
