"""As an unprivileged dealer account (root makes the accounts with useradd; the dealer's
programs run under setpriv): the store file, its key and the PIN hashes are out of reach,
and nothing reaches the store but through the service. The service runs as its own
account, started the way `dealer-assist station serve` is started on a station.

The venv's interpreter lives under /root (0700 here): each unprivileged command runs in a
private mount namespace where /root is a 0755 directory holding only that interpreter."""

from __future__ import annotations

import grp
import json
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SERVICE, DEALER, GROUP = "da-test-svc", "da-test-dealer", "da-test-grp"
# the machine's accounts are one for all: every test here runs in one pytest-xdist worker
pytestmark = pytest.mark.xdist_group("machine-accounts")
needs_root = pytest.mark.skipif(
    os.geteuid() != 0 or not all(shutil.which(t) for t in ("useradd", "setpriv", "unshare")),
    reason="needs root with useradd, setpriv and unshare (CI runs the suite as root)")

CLIENT = r"""
import json, sqlite3, sys
from pathlib import Path
from dealer_assist.service.client import ServiceClient, ServiceError
state, sock = Path(sys.argv[1]), sys.argv[2]
out = {}
for name in ("table.db", "table.db.key", "table.db.key.head", "round-anchor"):
    try:
        open(state / name, "rb").read(1)
        out[name] = "read"
    except OSError as exc:
        out[name] = type(exc).__name__
try:
    sqlite3.connect(f"file:{state / 'table.db'}?mode=ro", uri=True).execute("SELECT * FROM users").fetchall()
    out["pin_hashes"] = "read"
except sqlite3.Error as exc:
    out["pin_hashes"] = type(exc).__name__
c = ServiceClient(sock)
out["account"] = c.account
def code(op, **args):
    try:
        c.request(op, **args)
        return "ok"
    except ServiceError as exc:
        return exc.code
out["enrol_without_code"] = code("enrol", name="sue", pin="482913")
out["enrol_wrong_code"] = code("enrol", name="sue", pin="482913", code="0000-0000-0000")
out["users_before_log_in"] = code("users")
out["enrol"] = code("enrol", name="sue", pin="482913", code=sys.argv[3])
out["root_unlock"] = code("root_unlock", name="sue")
out["add_audit"] = code("add_audit", kind="void", detail={})
out["append_event"] = code("append_event", event={"type": "void"})
out["void_without_pin"] = code("void", reason="x", rule="5.2")
out["users"] = code("users")
print(json.dumps(out))
"""


def _under_root() -> list[str]:
    """The top directories under /root that the interpreter and its packages live in."""
    found = []
    for where in (Path(sys.executable).resolve(), Path(sys.prefix).resolve(), Path(sys.base_prefix).resolve()):
        if where.parts[:2] == ("/", "root") and len(where.parts) > 2:
            found.append(where.parts[2])
    return sorted(set(found))


def _as(account: str, shim: Path, argv: list[str]) -> list[str]:
    setpriv = f'exec setpriv --reuid={account} --regid={GROUP} --init-groups "$@"'
    tops = _under_root()
    if not tops:  # the interpreter is where anyone may run it
        return ["sh", "-c", setpriv, "sh", *argv]
    binds = " && ".join(f"mkdir -p {shim}/{t} && mount --bind /root/{t} {shim}/{t}" for t in tops)
    script = f"{binds} && mount --rbind {shim} /root && {setpriv}"
    return ["unshare", "--mount", "--propagation", "private", "sh", "-c", script, "sh", *argv]


def _drop_accounts() -> None:
    for user in (SERVICE, DEALER):
        subprocess.run(["userdel", user], capture_output=True)
    subprocess.run(["groupdel", GROUP], capture_output=True)


@pytest.fixture
def accounts() -> Iterator[Path]:
    _drop_accounts()
    subprocess.run(["groupadd", GROUP], check=True)
    for user in (SERVICE, DEALER):
        subprocess.run(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin",
                        "-g", GROUP, user], check=True)
    base = Path(tempfile.mkdtemp(prefix="da-station-"))
    base.chmod(0o755)
    (base / "shim").mkdir()
    (base / "shim").chmod(0o755)
    try:
        yield base
    finally:
        shutil.rmtree(base, ignore_errors=True)
        _drop_accounts()


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEALER_ASSIST")}
    env["PYTHONPATH"] = str(ROOT)
    return env


@needs_root
def test_a_dealer_account_reaches_the_store_only_through_the_service(accounts: Path) -> None:
    base, shim = accounts, accounts / "shim"
    uid, gid = pwd.getpwnam(SERVICE).pw_uid, grp.getgrnam(GROUP).gr_gid
    state, run, logs = base / "state", base / "run", base / "log"
    for d, mode in ((state, 0o700), (run, 0o750), (logs, 0o750)):
        d.mkdir()
        os.chown(d, uid, gid)
        d.chmod(mode)
    config = base / "station.toml"
    config.write_text('[table]\nname = "BJ-07"\n', encoding="utf-8")  # root's, 0644; simulated shoe
    config.chmod(0o644)
    sock = run / "station.sock"
    service = subprocess.Popen(
        _as(SERVICE, shim, [sys.executable, "-m", "dealer_assist", "station", "--config", str(config), "serve",
                            "--state-dir", str(state), "--socket", str(sock), "--log-dir", str(logs)]),
        cwd=ROOT, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 30
        while not sock.exists() and service.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert sock.exists(), service.stdout.read().decode() if service.stdout and service.poll() is not None else ""
        assert oct(sock.stat().st_mode & 0o777) == "0o660" and sock.stat().st_gid == gid
        enrol_code = "1234-5678-9012"  # as `station enrol-code` writes it: the service account's, 0600
        (state / "enrol-code").write_text(enrol_code + "\n", encoding="utf-8")
        os.chown(state / "enrol-code", uid, gid)
        (state / "enrol-code").chmod(0o600)
        done = subprocess.run(_as(DEALER, shim, [sys.executable, "-c", CLIENT, str(state), str(sock), enrol_code]),
                              cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        seen = json.loads(done.stdout.strip().splitlines()[-1])
    finally:
        service.terminate()
        service.wait(10)
    assert seen["account"] == DEALER  # the service knows the account by SO_PEERCRED
    for name in ("table.db", "table.db.key", "table.db.key.head", "round-anchor"):
        assert seen[name] == "PermissionError", (name, seen)
    assert seen["pin_hashes"] == "OperationalError"  # the store cannot even be opened
    # issue 39: a dealer account enrols the first supervisor only with root's one-time code
    assert seen["enrol_without_code"] == "refused" and seen["enrol_wrong_code"] == "refused"
    assert seen["users_before_log_in"] == "auth"  # no account's name before a log-in
    assert seen["enrol"] == "ok"  # through the service: the first supervisor
    assert not (state / "enrol-code").exists()  # used once
    assert seen["root_unlock"] == "auth"  # Permission.ROOT: SO_PEERCRED uid 0 only
    assert seen["add_audit"] == "bad_request" and seen["append_event"] == "bad_request"  # no such ops
    assert seen["void_without_pin"] == "auth"  # and nothing without a logged-in dealer
    modes = {p.name: oct(p.stat().st_mode & 0o777) for p in state.iterdir() if p.name.startswith(("table.db", "round"))}
    assert all(m == "0o600" for m in modes.values()), modes
    assert oct(state.stat().st_mode & 0o777) == "0o700"


@needs_root
def test_dealer_is_refused_on_a_configured_station(accounts: Path) -> None:
    config = accounts / "station.toml"
    config.write_text('[table]\nname = "BJ-07"\n', encoding="utf-8")
    env = {**_env(), "DEALER_ASSIST_CONFIG": str(config), "DEALER_ASSIST_DEV": "1", "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run(_as(DEALER, accounts / "shim", [sys.executable, "-m", "dealer_assist"]),
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode != 0
    assert "development runs only" in done.stderr and str(config) in done.stderr


@needs_root
def test_station_serve_started_as_root_runs_as_the_owner_of_its_state_and_leaves_no_root_file(
        accounts: Path) -> None:
    """Issue 39 item 5: root starting `station serve` on the service's state directory (a new
    store) leaves nothing root's: the service becomes the directory's owner before it opens
    anything, and its next start as the service account finds every file its own."""
    base, shim = accounts, accounts / "shim"
    uid, gid = pwd.getpwnam(SERVICE).pw_uid, grp.getgrnam(GROUP).gr_gid
    state, run, logs = base / "state", base / "run", base / "log"
    for d, mode in ((state, 0o700), (run, 0o750), (logs, 0o750)):
        d.mkdir()
        os.chown(d, uid, gid)
        d.chmod(mode)
    config = base / "station.toml"
    config.write_text('[table]\nname = "BJ-07"\n', encoding="utf-8")
    config.chmod(0o644)
    sock = run / "station.sock"
    argv = [sys.executable, "-m", "dealer_assist", "station", "--config", str(config), "serve",
            "--state-dir", str(state), "--socket", str(sock), "--log-dir", str(logs)]
    tops = _under_root()  # as root, the interpreter under /root shown as in _as (no setpriv)
    binds = " && ".join(f"mkdir -p {shim}/{t} && mount --bind /root/{t} {shim}/{t}" for t in tops)
    script = (f"{binds} && mount --rbind {shim} /root && " if tops else "") + 'exec "$@"'
    service = subprocess.Popen(["unshare", "--mount", "--propagation", "private", "sh", "-c", script, "sh", *argv],
                               cwd=ROOT, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 30
        while not sock.exists() and service.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert sock.exists(), service.stdout.read().decode() if service.stdout and service.poll() is not None else ""
        status = Path(f"/proc/{service.pid}/status").read_text()
        uids = next(line.split()[1:] for line in status.splitlines() if line.startswith("Uid:"))
        assert set(uids) == {str(uid)}  # real, effective, saved and file-system ids: the owner's
    finally:
        service.terminate()
        service.wait(10)
    said = service.stdout.read().decode() if service.stdout else ""
    assert f"running as {SERVICE}" in said
    made = [p for d in (state, run, logs) for p in d.rglob("*")]
    assert made and all(p.lstat().st_uid == uid for p in made), [(str(p), p.lstat().st_uid) for p in made]


@needs_root
def test_a_dealer_outside_the_group_is_told_so_and_the_fix(accounts: Path) -> None:
    """Issue 39: a dealer's account not in the service's group reaching for the socket hears
    that, and the fix, not "is the service running?"."""
    import socket as sockets

    base, shim = accounts, accounts / "shim"
    run = base / "run"
    run.mkdir()
    run.chmod(0o755)
    path = run / "station.sock"
    listener = sockets.socket(sockets.AF_UNIX, sockets.SOCK_STREAM)
    listener.bind(str(path))
    listener.listen(1)
    os.chown(path, 0, grp.getgrnam(GROUP).gr_gid)
    path.chmod(0o660)  # as the service leaves it: its group's only
    probe = ("from dealer_assist.service.client import ServiceClient, ServiceError\n"
             "import sys\ntry:\n    ServiceClient(sys.argv[1])\nexcept ServiceError as exc:\n"
             "    print(exc.code, exc.message)\n")
    argv = _as(DEALER, shim, [sys.executable, "-c", probe, str(path)])
    # the dealer's account without the group: its own group "nogroup"-like, no supplementary groups
    script_at = argv.index("sh") + 2
    argv[script_at] = argv[script_at].replace(f"--regid={GROUP} --init-groups", "--regid=65534 --clear-groups")
    try:
        done = subprocess.run(argv, cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=60)
    finally:
        listener.close()
    said = done.stdout.strip()
    assert said.startswith("permission "), (said, done.stderr)
    assert f"({DEALER})" in said and f"not in the group {GROUP}" in said and f"usermod -aG {GROUP} {DEALER}" in said
    assert "running" not in said
