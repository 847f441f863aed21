"""A fresh station machine inside a private mount namespace: ``python -m
tests.station_day.namespace COMMAND...`` run under ``unshare --mount --propagation private``.

Before running COMMAND it mounts, visible to this namespace only:

- an empty tmpfs over each of the station's places: /opt, /usr/local, /etc/dealer-assist,
  /var/lib/dealer-assist, /var/log/dealer-assist, /run/dealer-assist, /etc/systemd — so
  install.sh runs as root with no DESTDIR on what looks like a machine that never had it;
- an overlay over /etc (and /run) whose writes go to a tmpfs: the accounts ``useradd`` makes here
  (the service account ``dealer-assist``, the dealers) are in this namespace's
  /etc/passwd only; the machine's /etc is never written;
- where a place to mask holds the interpreter running the tests (a Python under
  /usr/local, say), an overlay instead of the empty tmpfs, so the interpreter stays and
  everything written goes to a tmpfs;
- a tmpfs over /tmp, so nothing a test leaves there outlives it;
- the directories on the way to the interpreter and its venv that other accounts may not
  enter (/root, 0700, for a pyenv Python) are overlaid with a tmpfs top of mode 0711, so the
  service account and the dealers can run the same Python (they cannot list them).

Nothing is unmounted: the namespace, and every mount in it, goes when COMMAND ends.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

MASKED = ("/opt", "/usr/local", "/etc/dealer-assist", "/var/lib/dealer-assist", "/var/log/dealer-assist",
          "/run/dealer-assist", "/etc/systemd")


def mount(*args: str) -> None:
    subprocess.run(["mount", *args], check=True)


class Scratch:
    """A tmpfs of this namespace for overlay layers."""

    def __init__(self, place: Path | None = None) -> None:
        """On ``place`` (a folder covered later), or else on a new folder in /tmp."""
        self.root = place if place is not None else Path(tempfile.mkdtemp(prefix="dealer-assist-ns-", dir="/tmp"))
        mount("-t", "tmpfs", "-o", "mode=0700", "tmpfs", str(self.root))
        self.count = 0
        self.overlaid: set[Path] = set()

    def overlay(self, target: Path, top_mode: int | None = None, skip: Path | None = None) -> None:
        """Overlay ``target``: its contents stay visible, writes go to the tmpfs. What is
        mounted below it (a container's /etc/hosts, say), but ``skip``, is mounted again on top."""
        if target in self.overlaid:
            return
        self.overlaid.add(target)
        self.count += 1
        upper, work = self.root / f"up{self.count}", self.root / f"work{self.count}"
        upper.mkdir()
        work.mkdir()
        st = target.stat()
        os.chown(upper, st.st_uid, st.st_gid)
        upper.chmod(top_mode if top_mode is not None else stat.S_IMODE(st.st_mode))
        kept = []
        for n, below in enumerate(b for b in submounts(target) if skip is None or not under(b, skip)):
            holder = self.root / f"keep{self.count}-{n}"
            if below.is_dir():
                holder.mkdir()
            else:
                holder.touch()
            mount("--rbind", str(below), str(holder))
            kept.append((holder, below))
        mount("-t", "overlay", "overlay", "-o", f"lowerdir={target},upperdir={upper},workdir={work}", str(target))
        for holder, below in kept:
            mount("--rbind", str(holder), str(below))


def submounts(target: Path) -> list[Path]:
    """The mount points strictly below ``target``, outermost first."""
    found = []
    with open("/proc/self/mountinfo", encoding="utf-8") as info:
        for line in info:
            point = Path(line.split()[4].encode().decode("unicode_escape"))
            if target in point.parents:
                found.append(point)
    outermost = [p for p in found if not any(q in p.parents for q in found)]
    return sorted(set(outermost))


def interpreter_paths() -> list[Path]:
    """What the tests' Python needs: the venv and the interpreter's own prefix."""
    paths = {Path(sys.prefix).resolve(), Path(sys.base_prefix).resolve(), Path(sys.executable).resolve(),
             Path(sysconfig.get_paths()["stdlib"]).resolve()}
    return sorted(paths)


def under(path: Path, place: Path) -> bool:
    return path == place or place in path.parents


SERVICE = "dealer-assist"  # packaging/install.sh's account and group


def open_the_way(scratch: Scratch, places: list[Path]) -> None:
    """Every directory on the way to ``places`` that other accounts may not enter, overlaid
    with a top of its mode | 0711."""
    opened: set[Path] = set()
    for path in places:
        for directory in reversed([path, *path.parents]):
            if directory in opened or not directory.is_dir() or directory == Path("/"):
                continue
            if not stat.S_IMODE(directory.stat().st_mode) & stat.S_IXOTH:
                scratch.overlay(directory, stat.S_IMODE(directory.stat().st_mode) | 0o711)
            opened.add(directory)


def enter() -> None:
    if os.geteuid() != 0:
        raise SystemExit("tests/station_day/namespace.py: must run as root")
    keep = interpreter_paths()
    held = [*keep, Path(__file__).resolve().parents[2]]  # and the checkout
    tmp = Path("/tmp")
    # The overlays' layers are on a scratch tmpfs mounted on a station place that is covered
    # with its own empty tmpfs last (/opt, say: no folder is made on the machine), or else on
    # a folder in /tmp. Covering it hides the scratch; the overlays made before keep their
    # layers. (The scratch is never inside a folder overlaid before the end: a clone in
    # /tmp, with /tmp overlaid, would hide the layers still to be made.)
    place = next((Path(p) for p in ("/opt", "/usr/local")
                  if Path(p).is_dir() and not any(under(h, Path(p)) for h in held)), None)
    scratch = Scratch(place)
    scratch.overlay(Path("/etc"))  # useradd writes here, never to the machine's /etc
    scratch.overlay(Path("/run"))  # a test may make /run/systemd/system (systemd "running")
    for masked in map(Path, MASKED):
        if masked == place:
            continue  # covered last
        if any(under(p, masked) for p in keep):
            scratch.overlay(masked)
            continue
        if not masked.exists():  # make the mount point without touching the machine
            scratch.overlay(masked.parent)
            masked.mkdir()
        mount("-t", "tmpfs", "-o", "mode=0755", "tmpfs", str(masked))
    open_the_way(scratch, keep)  # the way to the interpreter
    never_installed()
    if any(under(h, tmp) for h in held):
        scratch.overlay(tmp, skip=scratch.root)  # the checkout is in /tmp: keep it, writes go to the tmpfs
    else:
        mount("-t", "tmpfs", "-o", "mode=1777", "tmpfs", str(tmp))  # nothing left in /tmp outlives the namespace
    if place is not None:
        mount("-t", "tmpfs", "-o", "mode=0755", "tmpfs", str(place))


def never_installed() -> None:
    """The machine's own ``dealer-assist`` account or group (a station of its own, an earlier
    install) removed from this namespace's /etc: the station is installed as on a machine
    that never had it."""
    import grp
    import pwd

    try:
        pwd.getpwnam(SERVICE)
        subprocess.run(["userdel", SERVICE], check=True)
    except KeyError:
        pass
    try:
        grp.getgrnam(SERVICE)
        subprocess.run(["groupdel", SERVICE], check=True)
    except KeyError:
        pass


def main(argv: list[str]) -> int:
    if not argv:
        print("usage: python -m tests.station_day.namespace COMMAND...", file=sys.stderr)
        return 2
    enter()
    return subprocess.run(argv).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
