"""The review's token (dealer_assist/service/review_token.py): the copy fetched with the
supervisor's PIN comes with a token; the open review fetches newer copies with it and no
PIN, from the same OS account only, until it expires (an hour after the PIN) or the review
ends it. Lucky 8, each round: p1 wagers 10 on area 1, p1 10+Q = 20 stands, the dealer 9+8 =
17 stands: p1 wins 10 at even money (4.3.2)."""

from __future__ import annotations

import json
import os
import pwd
import shutil
import stat
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest

from dealer_assist.service.client import ServiceClient
from dealer_assist.service.protocol import ProtocolError
from dealer_assist.service.review_token import REVIEW_MINUTES, REVIEW_NAME
from dealer_assist.service.snapshot import fetch_snapshot
from dealer_assist.store import Store
from tests.service.conftest import Station, make_shoe, wait_connected

SUE = {"user": "sue", "pin": "482913"}  # the supervisor tests/service/conftest.py enrols


def a_round(s: Station, c: Any) -> int:
    if c.request("state")["output"]["status"] == "settled":
        c.request("next_round")  # the dealer clears the layout
    c.request("wager", player="p1", bet="main", amount=10, area=1)
    s.deal(c, 3)
    c.request("decide", action="stand", area=1, hand=1, player="p1")
    state = s.deal(c, 1)
    assert state["output"]["status"] == "settled" and state["output"]["net"] == {"p1": 10}
    return int(state["round_id"])


def rounds_in(copy: Path) -> list[tuple[int, str, dict[str, Any]]]:
    with Store.open_readonly(copy) as store:
        return sorted((r.id, r.status, r.net) for r in store.list_rounds(limit=10))


def review_approvals(s: Station) -> int:
    assert s.running is not None
    return len(s.running.store.audit_entries(kind="review"))


def refused(socket: Path, token: str, into: Path) -> ProtocolError:
    with pytest.raises(ProtocolError) as caught:
        fetch_snapshot(socket, None, into, token=token)
    assert not into.exists()  # nothing written on a refusal
    return caught.value


def test_the_open_review_fetches_newer_rounds_with_its_token_and_no_pin(station: Any, tmp_path: Path) -> None:
    s: Station = station("10S 9H QD 8C 10D 9C QH 8D")
    c = s.dealer()
    assert a_round(s, c) == 1
    first = fetch_snapshot(s.socket, SUE, tmp_path / "copy1.db")
    assert first.supervisor == "sue" and len(first.token) >= 40 and first.expires.endswith("Z")
    assert rounds_in(tmp_path / "copy1.db") == [(1, "settled", {"p1": 10})]
    assert review_approvals(s) == 1

    assert a_round(s, c) == 2
    again = fetch_snapshot(s.socket, None, tmp_path / "copy2.db", token=first.token)
    assert again.supervisor == "sue" and again.token == "" and again.expires == first.expires  # not extended
    assert rounds_in(tmp_path / "copy2.db") == [(1, "settled", {"p1": 10}), (2, "settled", {"p1": 10})]
    assert review_approvals(s) == 1  # no PIN was checked again

    # the service keeps the token's digest only, in a file of its own (0600)
    assert s.running is not None
    path = s.running.service.state_dir / REVIEW_NAME
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    text = path.read_text()
    assert first.token not in text and len(json.loads(text)) == 1


def test_an_expired_or_ended_token_is_refused(station: Any, tmp_path: Path) -> None:
    s: Station = station("10S 9H QD 8C")
    s.dealer()
    copied = fetch_snapshot(s.socket, SUE, tmp_path / "copy.db")
    assert s.running is not None
    tokens = s.running.service.review_tokens
    tokens.clock = lambda: time.time() + REVIEW_MINUTES * 60 + 1  # an hour and a second after the PIN
    late = refused(s.socket, copied.token, tmp_path / "late.db")
    assert late.code == "auth" and "expired at" in late.message and "PIN" in late.message, late.message
    tokens.clock = time.time
    assert fetch_snapshot(s.socket, None, tmp_path / "still.db", token=copied.token).supervisor == "sue"

    review = ServiceClient(s.socket, "review")
    try:
        assert review.request("end_review", token=copied.token) == {"ended": True}  # the window closed
    finally:
        review.close()
    ended = refused(s.socket, copied.token, tmp_path / "ended.db")
    assert ended.code == "auth" and "unknown or ended" in ended.message
    assert refused(s.socket, "made-up", tmp_path / "guess.db").code == "auth"


def test_the_token_holds_over_a_restart_of_the_service(station: Any, tmp_path: Path) -> None:
    s: Station = station("10S 9H QD 8C 10D 9C QH 8D")
    c = s.dealer()
    a_round(s, c)
    copied = fetch_snapshot(s.socket, SUE, tmp_path / "copy.db")
    s.stop()
    s.start()
    wait_connected(s)
    c = s.dealer()
    assert a_round(s, c) == 2
    fetch_snapshot(s.socket, None, tmp_path / "after.db", token=copied.token)
    assert [r[0] for r in rounds_in(tmp_path / "after.db")] == [1, 2]


@pytest.mark.skipif(os.geteuid() != 0, reason="another OS account needs root (CI runs the suite as root)")
def test_a_token_used_from_another_os_account_is_refused(tmp_path: Path) -> None:
    """The token is bound to the OS account that gave the PIN (SO_PEERCRED): the same token
    sent from account ``nobody`` is refused, and still serves the account it was given to.
    (The socket is opened to every account for this test: here the token is what is checked.)"""
    other = pwd.getpwnam("nobody")
    run = Path(tempfile.mkdtemp(prefix="da-review-token-"))
    run.chmod(0o755)
    s = Station(tmp_path / "state", run / "station.sock", make_shoe("10S"))
    try:
        s.start()
        wait_connected(s)
        s.dealer()
        copied = fetch_snapshot(s.socket, SUE, tmp_path / "copy.db")
        os.chmod(s.socket, 0o666)
        into = run / "other"
        into.mkdir(mode=0o777)
        into.chmod(0o777)
        read_end, write_end = os.pipe()
        child = os.fork()
        if child == 0:  # the other account: no module is imported here, only the socket is used
            answer = {"code": "none"}
            try:
                os.close(read_end)
                os.setgroups([])
                os.setgid(other.pw_gid)
                os.setuid(other.pw_uid)
                fetch_snapshot(s.socket, None, into / "copy.db", token=copied.token, timeout_s=10)
            except ProtocolError as exc:
                answer = {"code": exc.code, "message": exc.message}
            except BaseException as exc:  # noqa: BLE001 (reported to the parent)
                answer = {"code": "error", "message": repr(exc)}
            finally:
                os.write(write_end, json.dumps(answer).encode())
                os._exit(0)
        os.close(write_end)
        with os.fdopen(read_end, "rb") as pipe:
            answer = json.loads(pipe.read() or b"{}")
        os.waitpid(child, 0)
        assert answer["code"] == "auth", answer
        assert "not given to account nobody" in answer["message"], answer
        assert not (into / "copy.db").exists()
        assert fetch_snapshot(s.socket, None, tmp_path / "mine.db", token=copied.token).supervisor == "sue"
    finally:
        s.stop()
        s.sim.close()
        shutil.rmtree(run, ignore_errors=True)


def test_the_service_checks_a_rounds_integrity_with_the_key_the_copy_is_made_without(
        station: Any, tmp_path: Path) -> None:
    """Op round_integrity: the review's copy comes without the station key (it stays with the
    service), so the copy cannot check its keyed chains ("not checked"); the service checks
    them for the review's token: an honest round intact, a settlement row changed in the
    station's file altered, no round 99 named, a guessed token refused."""
    from dealer_assist.service.client import ServiceError
    from dealer_assist.store import StoreReader
    from dealer_assist.store.review_queries import integrity_verdict, round_integrity

    s: Station = station("10S 9H QD 8C")
    rid = a_round(s, s.dealer())
    copied = fetch_snapshot(s.socket, SUE, tmp_path / "copy.db")
    with StoreReader.open(tmp_path / "copy.db") as reader:
        assert integrity_verdict(round_integrity(reader, rid)) == "not checked"
    review = ServiceClient(s.socket, "review")
    try:
        reply = review.request("round_integrity", token=copied.token, round_id=rid)
        assert reply["round_id"] == rid
        assert [(c["name"], c["ok"], c["checked"]) for c in reply["checks"]] == [
            ("round header", True, True), ("events", True, True), ("audit entries", True, True),
            ("finish record", True, True), ("settlement rows", True, True)]
        missing = review.request("round_integrity", token=copied.token, round_id=99)["checks"]
        assert missing == [{"name": "round", "ok": False, "detail": "no round 99", "checked": True}]
        for token, round_id, code in (("made-up", rid, "auth"), (copied.token, 0, "bad_request"),
                                      (copied.token, "1", "bad_request")):
            with pytest.raises(ServiceError) as caught:
                review.request("round_integrity", token=token, round_id=round_id)
            assert caught.value.code == code, caught.value.message
        # p1's settlement row changed in the station's own file (not through the store): the
        # settle output it was hashed with says +10 (4.3.2)
        assert s.running is not None
        import sqlite3

        conn = sqlite3.connect(s.running.store.path)
        with conn:
            conn.execute("UPDATE settlements SET net = '100' WHERE round_id = ?", (rid,))
        conn.close()
        altered = {c["name"]: c for c in review.request("round_integrity", token=copied.token,
                                                         round_id=rid)["checks"]}
        assert not altered["settlement rows"]["ok"] and altered["settlement rows"]["checked"]
        assert altered["events"]["ok"] and altered["finish record"]["ok"]
    finally:
        review.close()
