"""A pit supervisor reviews a store file AS THEIR OWN OS ACCOUNT (issue 33; docs/review.md):
root makes a throwaway account with ``useradd`` in a private mount namespace (copies of the
account files, tests/accounts.py), gives it a copy of a table's store
(tests/ui_review/conftest.py's: sue a supervisor, ann a dealer, seven recorded rounds), and
that account's own process runs ``dealer-assist review --db FILE`` as the person would
(review_as_supervisor.py: ``dealer_assist.cli.main``, no development switch, Qt offscreen):
ann's PIN refused at the gate, sue's taken, the rounds read, a note written through the
review service the command starts (``station serve --review FILE``, a child process),
the window closed.

This needs root, ``unshare`` and ``useradd``. CI runs the suite as root: there, and anywhere
else, a missing one is a failure that says so, never a skip (as tests/station_day). The
in-process run of the same command is test_review_file_service.py's.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dealer_assist.service.station import StationLock, StoreInUse
from dealer_assist.store import Store
from tests.accounts import account_folder, need_root, proc_facts
from tests.ui_review.conftest import ANN_PIN, ROOT, SUE_PIN, Recorded

HERE = Path(__file__).resolve().parent
NAME = f"dapit{os.getpid() % 100000}"  # the supervisor's account, in the namespace's /etc only
NOTE = "player says she doubled"
# The accounts a namespace makes are numbered from the machine's /etc, as in every other
# namespace: the tests that make accounts run in one worker, in turn (tests/station_day)
pytestmark = pytest.mark.xdist_group("machine-accounts")


def _serving(store: Path) -> list[int]:
    """The processes whose command line is ``... station serve ... --review STORE``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            argv = proc_facts(int(entry.name)).get("argv", [])
            if "serve" in argv and "--review" in argv and argv[argv.index("--review") + 1] == str(store):
                found.append(int(entry.name))
    return found


@pytest.fixture
def supervisors_folder(recorded: Recorded) -> Iterator[Path]:
    """A folder the account's home will be: a copy of the table's store, its key and head
    record (a supervisor's copy of a table's file), in /tmp (tests/accounts.py)."""
    with account_folder("da-review-account-") as base:
        home = base / "home"
        home.mkdir(mode=0o700)
        (home / "tmp").mkdir(mode=0o700)
        for name in (recorded.path.name, recorded.path.name + ".key", recorded.path.name + ".key.head"):
            shutil.copyfile(recorded.path.with_name(name), home / name)
        yield home


@pytest.mark.timeout(240)
def test_a_pit_supervisor_reviews_a_store_file_as_their_own_account(
        recorded: Recorded, supervisors_folder: Path, tmp_path: Path) -> None:
    need_root("the supervisor's account")
    home = supervisors_folder
    store = home / recorded.path.name
    with Store.open_readonly(store) as s:
        before = len(s.audit_entries())
    rid = recorded.ids["ace_race"]  # ann's Ace Race round
    plan = {"file": str(store), "dealer": ["ann", ANN_PIN], "supervisor": ["sue", SUE_PIN], "round": rid,
            "note": NOTE}
    (tmp_path / "scratch").mkdir()
    command = ["unshare", "--mount", "--propagation", "private",
               sys.executable, "-m", "tests.accounts", str(tmp_path / "scratch"), str(home), NAME,
               "--env", f"TMPDIR={home / 'tmp'}",  # the review's private directory: in the account's home
               "--", sys.executable, "-s", "-P", str(HERE / "review_as_supervisor.py"), json.dumps(plan)]
    proc = subprocess.Popen(command, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    account: dict[str, Any] = {}
    facts: dict[str, Any] = {}
    running: dict[str, Any] = {}
    try:
        for line in proc.stdout:
            if line.startswith("ACCOUNT "):
                account = json.loads(line[len("ACCOUNT "):])
            elif line.startswith("REVIEW open"):
                # the window and its review service running: seen from root, as /proc says
                services = _serving(store)
                running["services"] = services
                running["service"] = proc_facts(services[0]) if len(services) == 1 else {}
                running["parent"] = proc_facts(running["service"]["ppid"]) if running["service"] else {}
                try:  # a table's service on the same file would be refused it
                    StationLock(store).acquire()
                except StoreInUse as exc:
                    running["lock"] = str(exc)
                proc.stdin.write("seen\n")
                proc.stdin.flush()
            elif line.startswith("REVIEW facts "):
                facts = json.loads(line[len("REVIEW facts "):])
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    err = proc.stderr.read()
    assert proc.returncode == 0 and "error" not in facts, (facts.get("error"), err[-3000:])
    uid, gid = account["uid"], account["gid"]
    assert account["name"] == NAME and uid != 0 and gid != 0, account

    # the person's process: the supervisor's account, nothing of root's
    assert facts["uid"] == uid and facts["status"] == 0
    assert facts["window_before_pin"] is False  # nothing of the store before a supervisor's PIN
    assert facts["dealer_at_gate"] == "Wrong name or PIN, or not allowed"  # ann is a dealer
    assert facts["supervisor_at_gate"] == ""  # sue's PIN: the gate is gone, the window opens
    assert facts["file"] == str(store) and facts["rows"] == 7  # the file itself, all its rounds
    assert facts["selected"] is True
    refused, said = facts["dealer_note"]
    assert refused is False and said.startswith("Name or PIN not accepted"), facts["dealer_note"]
    noted, note_id = facts["supervisor_note"]
    assert noted is True and isinstance(note_id, int)

    # its review service, while it ran: one process, `station serve --review FILE` started by
    # the review's own process, both the account's (every uid and gid), and the store's lock
    # held by it under the account's name
    assert len(running["services"]) == 1, running
    service, parent = running["service"], running["parent"]
    assert service["uids"] == {uid} and service["gids"] == {gid}, service
    assert service["argv"][service["argv"].index("station"):][:2] == ["station", "serve"], service["argv"]
    assert service["ppid"] == facts["pid"] and parent["uids"] == {uid}, (service, parent, facts["pid"])
    assert parent["argv"][-2:] == [str(HERE / "review_as_supervisor.py"), json.dumps(plan)], parent["argv"]
    assert "in use by another Dealer Assist" in running["lock"], running
    assert f"(PID {running['services'][0]}, account {NAME})" in running["lock"], running["lock"]

    # afterwards: the service is gone, everything in the supervisor's folder is the account's
    # (the store, its write-ahead log, the lock: nothing made by root), its private directory
    # (socket, review tokens) removed, and the file free for a table's service again
    assert _serving(store) == []
    made = [home, *home.rglob("*")]
    assert all(p.lstat().st_uid == uid for p in made), [(str(p), p.lstat().st_uid) for p in made]
    assert list((home / "tmp").iterdir()) == []
    lock = StationLock(store)
    lock.acquire()
    lock.release()

    # the store, as a person would expect it: ann's PIN refused for an approval twice (the
    # gate, the note); sue's hash was made at the test cost, the service's store re-hashes it
    # at its own; sue's review approval; the note by sue on ann's round, its text, under the
    # id the service answered
    with Store.open_readonly(store) as s:
        after = [(e.kind, e.actor) for e in s.audit_entries()[before:]]
        notes = [(e.id, e.round_id, e.detail) for e in s.audit_entries(kind="note")]
    assert after == [("approval_refused", "ann"), ("pin_rehashed", "store"), ("review", "sue"),
                     ("approval_refused", "ann"), ("note", "supervisor:sue")], after
    assert notes == [(note_id, rid, {"text": NOTE})], notes
