"""The op registry (dealer_assist/service/ops.py, issue 33 build 3): every op one entry with
its one handler, typed request and reply, permission and doc line; the service dispatches
and checks permissions only from it (tried against a real service on its socket); the
screen names no op by a string; docs/station.md's ops table is the registry's."""

from __future__ import annotations

import ast
import importlib.util
import re
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from dealer_assist.service.client import ServiceClient, ServiceError
from dealer_assist.service.ops import REGISTRY, Op, Permission, handler
from dealer_assist.service.protocol import apply_round_delta, round_delta
from dealer_assist.service.table import TableService
from tests.service.conftest import Station, lock_taken_by_another_thread, quiet, wait_connected

ROOT = Path(__file__).resolve().parents[2]
BOB = {"user": "bob", "pin": "551903"}  # a supervisor (tests/service/conftest.py)
ANN = {"user": "ann", "pin": "730418"}  # a dealer


def _code(c: ServiceClient, op: str, **args: Any) -> str:
    try:
        c.request(op, **args)
        return "ok"
    except ServiceError as exc:
        return exc.code


# ------------------------------------------------------------------ the registry itself
def test_every_op_has_one_registered_handler_with_its_doc_line_and_permission() -> None:
    assert set(REGISTRY) == {str(op) for op in Op}
    handlers = {name for name in vars(TableService) if name.startswith("_op_")}
    registered = [entry.run.__name__ for entry in REGISTRY.values()]
    assert sorted(registered) == sorted(handlers)  # every handler registered, each once
    for key, entry in REGISTRY.items():
        assert entry.op == key and getattr(TableService, entry.run.__name__) is entry.run
        assert entry.run.__name__ == f"_op_{key}"
        assert isinstance(entry.permission, Permission)
        assert len(entry.doc) > 20 and entry.doc.endswith("."), (key, entry.doc)
        assert hasattr(entry.request, "__total__")  # a TypedDict
        assert entry.reply is not None
        assert not (entry.pin_worker and entry.locked)  # a new PIN is hashed off the table's lock


def test_a_second_handler_for_an_op_is_refused() -> None:
    def again(service: Any, client: Any, args: dict[str, Any]) -> None:
        """Another state."""

    with pytest.raises(RuntimeError, match="two handlers"):
        handler(Op.STATE, Permission.ANYONE, dict, dict)(again)
    assert REGISTRY[Op.STATE].run is TableService._op_state


# ------------------------------------------------------------------ dispatch, against the service
def test_an_unknown_op_or_field_is_a_bad_request_naming_no_op(station: Any) -> None:
    s: Station = station("10S 9H QD 8C")
    c = s.dealer()
    before = c.request("state")
    with pytest.raises(ServiceError) as caught:
        c.request("add_audit", kind="void", detail={})
    assert caught.value.code == "bad_request"
    others = [str(op) for op in Op if re.search(rf"\b{op}\b", caught.value.message)]
    assert others == [], caught.value.message  # the refusal lists nothing of the service's ops
    with pytest.raises(ServiceError) as caught:
        c.request("key_card", card="AS", colour="red")
    assert caught.value.code == "bad_request" and "colour" in caught.value.message
    after = c.request("state")
    assert after["events"] == before["events"] and after["version"] == before["version"]


def test_no_table_op_before_a_log_in_and_no_pin_checked_for_nobody(station: Any) -> None:
    s: Station = station("10S 9H QD 8C")
    s.dealer()  # enrols sue, adds ann and bob
    assert s.running is not None
    nobody = s.client()
    rows = len(s.running.store.audit_entries())
    needs_dealer = [e for e in REGISTRY.values() if e.permission in (Permission.DEALER, Permission.SUPERVISOR,
                                                                     Permission.DEALER_OR_TERMINAL)]
    # wager, decide, withdraw, buy_in, terminal_override (issue 38), place_next, reread, power_stays,
    # take_back_check (issue 33)
    assert len(needs_dealer) == 32
    for entry in needs_dealer:
        args: dict[str, Any] = {"pin": BOB} if entry.open_fields or "pin" in entry.fields else {}
        assert _code(nobody, entry.op, **args) == "auth", entry.op
    assert len(s.running.store.audit_entries()) == rows  # no PIN checked, no approval written
    assert _code(nobody, "users") == "auth"  # Permission.SIGNED_IN: no names before a log-in
    assert _code(nobody, "state") == "ok"  # Permission.ANYONE


# a request each supervisor's op would take, but for the supervisor's PIN
SUPERVISOR_ARGS: dict[Op, dict[str, Any]] = {
    Op.VOID: {"reason": "cards mixed", "rule": "5.2"},
    Op.RESOLVE: {"ruling": "continue", "text": "checked"},
    Op.CORRECT: {"index": 0, "to": "dealer"},
    Op.SET_ASIDE: {},
    Op.SET_TABLE: {"setup": {"game": "lucky8", "decks": 8}},
    Op.TERMINAL_OVERRIDE: {"seat": "t1"},
}
SUPERVISOR_PIN_ARGS: dict[Op, dict[str, Any]] = {
    Op.UNLOCK: {"name": "bob"},
    Op.ADD_ACCOUNT: {"name": "zed", "new_pin": "615243", "roles": ["dealer"]},
    Op.SET_DISABLED: {"name": "bob", "disabled": True},
    Op.RESET_PIN: {"name": "bob", "new_pin": "615243"},
    Op.SNAPSHOT: {},
    Op.SHOE_COUNT: {},
    Op.APPROVE: {"user": "ann", "pin": "730418", "kind": "void"},  # a dealer's PIN: no supervisor's
    Op.ADD_NOTE: {"round_id": None, "text": "a note"},
}


def test_a_dealer_cannot_call_a_supervisors_op_without_a_supervisors_pin(station: Any) -> None:
    s: Station = station("10S 9H QD 8C")
    c = s.dealer()
    assert s.running is not None
    assert set(SUPERVISOR_ARGS) == {e.op for e in REGISTRY.values() if e.permission is Permission.SUPERVISOR}
    assert set(SUPERVISOR_PIN_ARGS) == {e.op for e in REGISTRY.values()
                                        if e.permission is Permission.SUPERVISOR_PIN}
    before = c.request("state")
    users = [(u["username"], u["roles"], u["disabled"], u["must_change"]) for u in c.request("users")]
    for op, args in SUPERVISOR_ARGS.items():
        # set_aside with no card waiting is refused before any PIN is asked (nothing to set aside);
        # terminal_override at a table with no Player Terminals too (1.1.10)
        answers = ("pin", "refused") if op in (Op.SET_ASIDE, Op.TERMINAL_OVERRIDE) else ("pin",)
        assert _code(c, op, **args) in answers, op
        assert _code(c, op, **args, pin=ANN) in answers, op  # the dealer's own PIN is no supervisor's
    for op, args in SUPERVISOR_PIN_ARGS.items():
        assert _code(c, op, **args) == "pin", op
    # the pit manager's pick overrides the dealing order (5.23): a supervisor's PIN (the
    # player's own pick is the dealer's input, docs/store.md)
    assert _code(c, Op.PICK, card="AS", by="pit_manager") == "pin"
    assert _code(c, Op.PICK, card="AS", by="pit_manager", pin=ANN) == "pin"
    after = c.request("state")
    assert after["events"] == before["events"] and after["setup"] == before["setup"]
    # no account added, disabled or given a new PIN (ann's PIN offered as a supervisor's counted wrong)
    assert [(u["username"], u["roles"], u["disabled"], u["must_change"]) for u in c.request("users")] == users
    assert s.running.store.audit_entries(kind="table_setup_changed") == []
    # and with the supervisor's PIN the same request goes through (the refusals above were the PIN's)
    assert _code(c, Op.SET_TABLE, **SUPERVISOR_ARGS[Op.SET_TABLE], pin=BOB) == "ok"
    assert c.request("state")["setup"]["decks"] == 8


def test_the_states_version_grows_with_each_change_told(station: Any) -> None:
    s: Station = station("10S 9H QD 8C")
    told: list[dict[str, Any]] = []
    c = s.dealer()
    watcher = s.client(on_notify=lambda name, data: told.append(data) if name == "round" else None)
    first = c.request("state")["version"]
    reply = c.request("face_up")
    assert reply["version"] == first + 1
    state = s.deal(c, 1)
    assert state["version"] > reply["version"]
    deadline = time.monotonic() + 5
    while (not told or told[-1]["version"] < state["version"]) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert [t["version"] for t in told] == sorted({t["version"] for t in told})  # in order, each once
    # the notifications carry what changed (protocol.round_delta): the client's round, built
    # from a snapshot and the deltas after it, is the service's state
    assert told[-1] == watcher.round == watcher.request("state")


def test_a_table_ops_reply_is_the_version_told_not_the_state_again(station: Any) -> None:
    # issue 33 build 4: the service tells every screen the change (its round notification,
    # protocol.round_delta) before it answers, so a screen's table op is answered with the
    # version told, a few bytes, where it was the whole state a second time; ServiceClient
    # returns the round it holds, which is the service's state
    import socket as sockets

    from dealer_assist.service.protocol import ROUND_TOLD, LineReader, decode, encode, hello

    s: Station = station("10S 9H QD 8C")
    c = s.dealer()
    wait_connected(s)
    reply = c.request("face_up")  # a table op through ServiceClient: the whole round
    assert reply == c.request("state") and reply["face_up_next"] is True
    raw = sockets.socket(sockets.AF_UNIX, sockets.SOCK_STREAM)
    raw.connect(str(s.socket))
    try:
        reader = LineReader(raw)
        raw.sendall(encode(hello("screen", deltas=True)))
        assert "station" in decode(reader.read_line() or b"")
        raw.sendall(encode({"id": 1, "op": "login", "args": {"name": "ann", "pin": "730418"}}))
        lines = []
        while not lines or "id" not in lines[-1]:
            lines.append(decode(reader.read_line() or b""))
        raw.sendall(encode({"id": 2, "op": "face_up", "args": {}}))
        lines = []
        while not lines or lines[-1].get("id") != 2:
            lines.append(decode(reader.read_line() or b""))
        answer = lines[-1]
        assert answer["ok"] and answer["result"] == {ROUND_TOLD: answer["result"][ROUND_TOLD]}
        told = [m for m in lines if m.get("notify") == "round"]
        # the change's notification came first, of the version the reply names
        assert told and told[-1]["data"]["version"] == answer["result"][ROUND_TOLD]
        # a client that did not ask for deltas is answered with the whole state, as before
        old = sockets.socket(sockets.AF_UNIX, sockets.SOCK_STREAM)
        old.connect(str(s.socket))
        try:
            old_reader = LineReader(old)
            old.sendall(encode(hello("screen")))
            decode(old_reader.read_line() or b"")
            old.sendall(encode({"id": 1, "op": "login", "args": {"name": "ann", "pin": "730418"}}))
            while "id" not in decode(old_reader.read_line() or b""):
                pass
            old.sendall(encode({"id": 2, "op": "face_up", "args": {}}))
            message = decode(old_reader.read_line() or b"")
            while message.get("id") != 2:
                message = decode(old_reader.read_line() or b"")
            assert message["ok"] and message["result"]["version"] >= answer["result"][ROUND_TOLD]
            assert "events" in message["result"] and "expect" in message["result"]
        finally:
            old.close()
    finally:
        raw.close()
    # a ServiceClient that holds no round (none told yet) takes a snapshot for the answer
    fresh = s.client()
    fresh.round = None
    assert fresh.round_at(0) == fresh.request("state")


# ------------------------------------------------------------------ the screen names no op by a string
CALLS = ("request", "request_counted", "ask", "_run")


def test_the_screen_names_ops_from_the_registry_only() -> None:
    found = []
    for path in sorted((ROOT / "ui").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            first = node.args[0]
            if name in CALLS and isinstance(first, ast.Constant) and isinstance(first.value, str):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {first.value!r}")
    assert found == []  # ops are named ops.Op.X


# ------------------------------------------------------------------ docs/station.md's table
def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("ops_table", ROOT / "scripts" / "ops_table.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_docs_ops_table_is_the_registrys() -> None:
    script = _script()
    doc = (ROOT / "docs" / "station.md").read_text(encoding="utf-8")
    assert script.rewritten(doc) == doc  # python3 scripts/ops_table.py writes it
    for op in Op:  # one row per op, its permission's words
        assert f"| `{op}` |" in doc and REGISTRY[op].permission.value in doc
    drifted = doc.replace("| `sim_deal` |", "| `sim_deal_old` |")
    assert script.rewritten(drifted) != drifted  # a hand-edited row is caught
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "ops_table.py"), "--check"],
                          capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr


# ------------------------------------------------------------------ notifications (issue 33 build 4, first step)
def test_notifications_are_sent_after_the_tables_lock_and_serialised_once(
        station: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    import dealer_assist.service.server as server_module

    s: Station = station("10S 9H QD 8C")
    c = s.dealer()
    # the start's own changes (the shoe connecting, its shoe loaded) over before face_up: one
    # came after it once (the compiled CI pass, version 4 after face_up's 3)
    wait_connected(s)
    quiet(s)  # nor a heartbeat of the shoe's during face_up (a change of its own: version 4 under load)
    version, still_since = c.request("state")["version"], time.monotonic()
    while time.monotonic() - still_since < 0.5:
        time.sleep(0.05)
        now = c.request("state")["version"]
        if now != version:
            version, still_since = now, time.monotonic()
    # (name, the round's version): a screen that connects may still be told of the start (the
    # shoe connected, the table's round) after it connected; only what face_up made is counted
    told: list[tuple[str, int]] = []
    screens = [s.client(on_notify=lambda name, data: told.append((name, int(data.get("version") or 0))))
               for _ in range(3)]
    assert s.running is not None
    service = s.running.service
    real_notify, real_encode = service.notify, server_module.encode
    lock_free: list[bool] = []
    encoded: list[str] = []

    def notify(name: str, data: dict[str, Any]) -> None:
        lock_free.append(lock_taken_by_another_thread(service))  # while the screens are told
        real_notify(name, data)

    def encode(message: dict[str, Any]) -> bytes:
        encoded.append(str(message.get("notify", "reply")))
        return real_encode(message)

    monkeypatch.setattr(service, "notify", notify)
    monkeypatch.setattr(server_module, "encode", encode)
    reply = c.request("face_up")
    assert lock_free == [True]  # one notification, sent with the table's lock free
    assert encoded.count("round") == 1  # once for the 4 connections
    deadline = time.monotonic() + 5
    made = [t for t in told if t[1] >= reply["version"]]
    while len(made) < 3 and time.monotonic() < deadline:
        time.sleep(0.02)
        made = [t for t in told if t[1] >= reply["version"]]
    time.sleep(0.2)  # a second notification of the change would have come by now
    made = [t for t in told if t[1] >= reply["version"]]
    assert made == [("round", reply["version"])] * 3
    assert all(sc.request("state")["version"] == reply["version"] for sc in screens)


def test_a_round_delta_carries_the_new_events_and_the_changed_fields_only() -> None:
    old = {"version": 4, "events": [{"type": "wager"}, {"type": "card", "card": "10S"}], "hold": "", "output": {"a": 1}}
    new = {"version": 5, "events": [*old["events"], {"type": "card", "card": "9H"}], "hold": "", "output": {"a": 2}}
    delta = round_delta(old, new)
    # the settle output as its changed parts (protocol.DELTA_PARTS): its key a, set anew
    assert delta == {"version": 5, "since": 4, "events_from": 2, "events": [{"type": "card", "card": "9H"}],
                     "set": {"version": 5}, "parts": {"output": {"drop": [], "set": {"a": 2}, "inner": {}}}}
    assert apply_round_delta(old, delta) == new
    assert apply_round_delta({**old, "version": 3}, delta) is None  # a notification missed: a snapshot
    assert apply_round_delta(None, delta) is None
    taken_back = {**new, "version": 6, "events": old["events"][:1]}  # not an append: the events whole
    assert apply_round_delta(new, round_delta(new, taken_back)) == taken_back


def test_a_round_delta_carries_the_pictures_changed_parts_only() -> None:
    # The pictures of a Lucky 8 round with wagers on areas 1 and 3 and of an Electronic round,
    # after each event: each state rebuilt from the one before and its delta (through JSON, as
    # the socket carries it) is the new state exactly. Lucky 8: 10S area 1, 9H area 3, 5D
    # dealer, QD area 1 (20), 8C area 3 (17); p1 stands, p3 hits: 2C to area 3 (19), which
    # changes area 3 alone: the delta carries area 3's changes and nothing of area 1.
    import json

    from dealer_assist.engine.picture import picture_to_json
    from dealer_assist.engine.transcript import new_round, parse_event

    lucky8 = [{"type": "wager", "player": "p1", "bet": "main", "amount": 10, "area": 1},
              {"type": "wager", "player": "p3", "bet": "main", "amount": 25.5, "area": 3},
              {"type": "no_more_bets"}, *({"type": "card", "card": c} for c in ("10S", "9H", "5D", "QD", "8C")),
              {"type": "decision", "action": "stand", "area": 1, "hand": 1, "player": "p1"},
              {"type": "decision", "action": "hit", "area": 3, "hand": 1, "player": "p3"},
              {"type": "card", "card": "2C"},
              {"type": "decision", "action": "stand", "area": 3, "hand": 1, "player": "p3"},
              {"type": "card", "card": "6S"}, {"type": "card", "card": "KC"}]
    electronic = [{"type": "wager", "player": "t1", "bet": "main", "amount": 10},
                  {"type": "wager", "player": "t2", "bet": "main", "amount": 20}, {"type": "no_more_bets"},
                  *({"type": "card", "card": c} for c in ("10H", "7C", "9S")),
                  {"type": "decision", "action": "stand", "player": "t1", "hand": 1},
                  {"type": "decision", "action": "stand", "player": "t2", "hand": 1}, {"type": "card", "card": "10D"}]
    for header, events in (({"game": "lucky8", "decks": 6, "areas": 7}, lucky8),
                           ({"game": "electronic", "decks": 6}, electronic)):
        rnd = new_round(header)
        old = {"version": 0, "events": [], "picture": picture_to_json(rnd)}
        for n, raw in enumerate(events, start=1):
            rnd.apply(parse_event(raw))
            new = {"version": n, "events": events[:n], "picture": picture_to_json(rnd)}
            delta = json.loads(json.dumps(round_delta(old, new)))
            assert "picture" not in delta["set"]
            assert apply_round_delta(old, delta) == new, (header["game"], n)
            if header["game"] == "lucky8" and raw.get("card") == "2C":
                areas = delta["parts"]["picture"]["inner"]["layout"]["inner"]["areas"]
                assert areas["set"] == {} and set(areas["inner"]) == {"2"}  # area 3 (index 2) alone
                assert set(areas["inner"]["2"]["set"]) == {"hands"}  # its hand, whole
            old = new
    assert apply_round_delta({"version": 4}, {"version": 5, "since": 4, "set": {}, "parts": {
        "picture": {"drop": [], "set": {}, "inner": {}}}}) is None  # no base picture
