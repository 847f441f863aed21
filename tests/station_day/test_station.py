"""The technician's station, installed for real: each test of ns_station.py runs as root in a
fresh private mount namespace (tests/station_day/namespace.py: the station's places on
tmpfs, accounts in the namespace's /etc only), with install.sh on the real paths and no
DESTDIR.

These need root, ``unshare`` and ``useradd``. CI runs as root: there, and anywhere else,
a missing one is a failure that says so, never a skip.
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).parent
# Each namespace makes the service's account in its own copy of /etc, all with the same uid,
# and userdel refuses an account another namespace's process runs as: one worker runs them,
# in turn, with the tests that add accounts to the machine (tests/service/test_unprivileged.py)
pytestmark = pytest.mark.xdist_group("machine-accounts")


def inner_tests() -> list[str]:
    """``ns_module.py::test_name`` of every test in the ns_*.py modules beside this one."""
    found = []
    for module in sorted(HERE.glob("ns_*.py")):
        tree = ast.parse(module.read_text(encoding="utf-8"))
        found += [f"{module.name}::{n.name}" for n in tree.body
                  if isinstance(n, ast.FunctionDef) and n.name.startswith("test_")]
    return found


# A machine that already has the service's account and group (an earlier station, a
# technician's try): made in an overlay of /etc on a tmpfs (on /opt, which the station's
# namespace covers again), in this mount namespace only.
MACHINE_WITH_THE_ACCOUNT = (
    'set -e; mount -t tmpfs -o mode=0700 tmpfs /opt; mkdir /opt/up /opt/work; '
    'mount -t overlay overlay -o lowerdir=/etc,upperdir=/opt/up,workdir=/opt/work /etc; '
    'groupadd --system dealer-assist; '
    'useradd --system --gid dealer-assist --home-dir /home/da --no-create-home --shell /bin/sh dealer-assist; '
    'exec "$@"')


def in_a_fresh_station(test: str, machine_has_the_account: bool = False) -> subprocess.CompletedProcess[str]:
    if os.geteuid() != 0:
        pytest.fail("the station tests install as root with no DESTDIR: run them as root (CI does)")
    for tool in ("unshare", "useradd", "mount", "runuser"):
        if shutil.which(tool) is None:
            pytest.fail(f"the station tests need {tool} (util-linux, passwd)")
    # the checkout after any PYTHONPATH already set: on the compiled pass build/compiled stays first
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [os.environ.get("PYTHONPATH"), str(ROOT)])))
    before = ["sh", "-c", MACHINE_WITH_THE_ACCOUNT, "sh"] if machine_has_the_account else []
    command = ["unshare", "--mount", "--propagation", "private", *before,
               sys.executable, "-m", "tests.station_day.namespace",
               # the venv's pytest script, not `python -m pytest` (which puts the checkout before
               # PYTHONPATH and would shadow build/compiled on the compiled pass)
               str(Path(sys.executable).with_name("pytest")), str((HERE / test).relative_to(ROOT)), "-q",
               "-p", "no:cacheprovider", "--import-mode=importlib", "--timeout", "600"]
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)


@pytest.mark.slow
@pytest.mark.timeout(960)  # the namespace's own pytest has 600 s, its process 900 s
@pytest.mark.parametrize("test", inner_tests())
def test_station(test: str) -> None:
    done = in_a_fresh_station(test)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert "1 passed" in done.stdout and "skipped" not in done.stdout, output


@pytest.mark.slow
@pytest.mark.timeout(960)  # the namespace's own pytest has 600 s, its process 900 s
def test_station_on_a_machine_that_has_the_account() -> None:
    """The machine's own ``dealer-assist`` group and account (uid, home and shell not the
    install's) do not reach the fresh station (tests/station_day/namespace.py)."""
    done = in_a_fresh_station("ns_station.py::test_the_shared_layout_is_migrated", machine_has_the_account=True)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert "1 passed" in done.stdout and "skipped" not in done.stdout, output


def test_the_inner_tests_are_all_run() -> None:
    """Every ns_*.py test is one parameter above (ns_station.py has six)."""
    names = inner_tests()
    assert len([n for n in names if n.startswith("ns_station.py::")]) == 6 and len(set(names)) == len(names), names
