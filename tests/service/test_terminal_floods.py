"""The terminal endpoint survives the floods the screens' socket survives (issue 38, "Done
means"; test_starvation.py for the socket): what a hostile device on the table's network
does to the endpoint and its pairing port, from its own address (127.0.0.2; the good
terminals and the screens on 127.0.0.1). While each flood runs: the shoe's cards are
recorded, the dealer's screen is answered, a paired terminal gets its view, and nothing is
recorded that a good client did not ask for.

A real service with its TLS endpoint on loopback, a simulated shoe on a pseudo-terminal.
The cards, worked by hand from electronic-blackjack.txt: Player 10S, Dealer 9H, Player 6D
for the initial deal (3.7): t3 (its wager placed at the dealer's screen) then decides on
hard 16. No timed assertion: each wait has a bound only for a hung service."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import ssl
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from dealer_assist.service.client import ServiceClient
from dealer_assist.service.protocol import LineReader, encode
from dealer_assist.service.terminal_ca import (
    STATION_NAME,
    TerminalCA,
    code_key,
    openssl,
    pair_proof,
)
from dealer_assist.service.terminal_client import TerminalConnection, TerminalError
from dealer_assist.service.terminal_server import PER_SEAT
from tests.service.test_terminal_play import electronic, of_type  # noqa: F401 (a fixture)
from tests.service.test_terminals import TerminalStation, add_code, cli, pair, paired

HOSTILE = "127.0.0.2"  # the hostile device's own address on the loopback network
LIVENESS_S = 60.0  # a bound for a hung service, never a measure of speed
CARDS = ["10S", "9H", "6D"]
BOB = {"user": "bob", "pin": "551903"}  # the second supervisor (conftest.Station.dealer)


COUNTING = threading.Lock()


class Flood:
    """``worker(stop, seen)`` on ``n`` threads until stopped; what they saw counted in ``seen``."""

    def __init__(self, worker: Callable[[threading.Event, dict[str, int]], None], n: int = 4) -> None:
        self.stop = threading.Event()
        self.seen: dict[str, int] = {}
        self.threads = [threading.Thread(target=self._run, args=(worker,), daemon=True) for _ in range(n)]
        self.errors: list[BaseException] = []

    def _run(self, worker: Callable[[threading.Event, dict[str, int]], None]) -> None:
        try:
            worker(self.stop, self.seen)
        except BaseException as exc:  # a failed assertion in a flood thread: reported by the test
            self.errors.append(exc)

    def __enter__(self) -> Flood:
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        for t in self.threads:
            t.join(LIVENESS_S)
        assert not [t for t in self.threads if t.is_alive()], "a flood thread hung"

    def wait_for(self, key: str, count: int) -> None:
        """Until the flood has done ``count`` of ``key`` (a bound for a hung flood only)."""
        deadline = time.monotonic() + LIVENESS_S
        while self.seen.get(key, 0) < count:
            assert not self.errors, self.errors
            assert time.monotonic() < deadline, f"the flood never got {count} {key}: {self.seen}"
            time.sleep(0.05)


def bump(seen: dict[str, int], key: str) -> None:
    with COUNTING:
        seen[key] = seen.get(key, 0) + 1


def hostile_connection(port: int, timeout: float = 5.0) -> socket.socket:
    return socket.create_connection(("127.0.0.1", port), timeout=timeout, source_address=(HOSTILE, 0))


def client_hello() -> bytes:
    """A real TLS ClientHello (as a terminal's first bytes)."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname, ctx.verify_mode = False, ssl.CERT_NONE
    tls = ctx.wrap_bio(ssl.MemoryBIO(), out := ssl.MemoryBIO(), server_hostname="station")
    with contextlib.suppress(ssl.SSLWantReadError):
        tls.do_handshake()
    return out.read()


def keeps_working(table: TerminalStation, screen: ServiceClient, good: Path, rounds: int = 3) -> None:
    """While a flood runs: each of the round's first cards recorded, the dealer's screen
    answered, the paired terminal in ``good`` connected anew and given its view (a card
    recorded before the bound: the bound is for a hung service, not a speed)."""
    for n in range(rounds):
        table.sim.deal()
        deadline = time.monotonic() + LIVENESS_S
        while len(of_type(screen.request("state"), "card")) < n + 1:
            assert time.monotonic() < deadline, f"card {CARDS[n]} was never recorded during the flood"
            time.sleep(0.05)
        term = TerminalConnection("127.0.0.1", table.port, good, timeout_s=LIVENESS_S)
        try:
            view = term.request("seat")
            assert view["seat"] == "t1" and [e["card"] for e in view["events"] if e["type"] == "card"] == CARDS[:n + 1]
        finally:
            term.close()


def only_the_good_clients_did(state: dict[str, Any]) -> None:
    """The round holds the screen's wager for t3, no more bets and the dealt cards: nothing else."""
    assert [e for e in state["events"] if e["type"] != "card"] == [
        {"type": "wager", "player": "t3", "bet": "main", "amount": 10}, {"type": "no_more_bets"}]
    assert [e["card"] for e in of_type(state, "card")] == CARDS
    assert state["overrides"] == {}


@pytest.fixture
def dealt(electronic: Callable[..., TerminalStation],  # noqa: F811 (the fixture)
          tmp_path: Path) -> Iterator[tuple[TerminalStation, ServiceClient, Path]]:
    """Electronic, t1 paired (its terminal on 127.0.0.1 asks only for its view), t3's wager
    of 10 placed at the dealer's screen from its credits, bets closed: the next cards are the
    initial deal's."""
    table = electronic(" ".join(CARDS) + " 4C 8C", decision_seconds=120)
    screen = table.dealer()
    paired(table, "t1", tmp_path / "t1").close()
    screen.request("wager", player="t3", bet="main", amount=10)
    screen.request("no_more_bets")
    yield table, screen, tmp_path / "t1"


def test_held_silent_and_half_finished_handshakes_keep_out_no_card_no_screen_no_terminal(
        dealt: tuple[TerminalStation, ServiceClient, Path], tmp_path: Path) -> None:
    table, screen, good = dealt
    hello = client_hello()

    def hold(stop: threading.Event, seen: dict[str, int]) -> None:
        """150 connections held open (the endpoint's and the pairing's; silent, half a
        ClientHello, a whole one and no more), then one more every 20 ms, each let go after it."""
        held: list[socket.socket] = []
        i = 0
        try:
            while not stop.is_set():
                i += 1
                try:
                    s = hostile_connection(table.port + (i % 2))
                    if i % 3 == 1:
                        s.sendall(hello[: len(hello) // 2])
                    elif i % 3 == 2:
                        s.sendall(hello)
                    held.append(s)
                    bump(seen, "held")
                except OSError:
                    bump(seen, "refused")
                if len(held) > 150:
                    stop.wait(0.02)
                    held.pop().close()
        finally:
            for s in held:
                s.close()

    with Flood(hold, n=4) as flood:
        flood.wait_for("held", 600)  # 600 held (the endpoint's and the pairing's) before the good clients come
        keeps_working(table, screen, good)
        assert pair(table, add_code(table, "t2"), tmp_path / "t2").returncode == 0  # pairing goes on
    assert flood.seen.get("held", 0) > 300 and not flood.errors
    only_the_good_clients_did(screen.request("state"))
    assert sorted(p.seat for p in TerminalCA(table.state).paired()) == ["t1", "t2"]


def test_no_certificate_another_cas_and_a_removed_one_are_refused_throughout(
        dealt: tuple[TerminalStation, ServiceClient, Path], tmp_path: Path) -> None:
    table, screen, good = dealt
    removed = tmp_path / "removed"  # a certificate of this station's CA, its seat removed since
    paired(table, "t2", removed).close()
    assert cli("station", "terminal", "remove", "t2", "--state-dir", str(table.state)).returncode == 0
    other = TerminalCA(tmp_path / "other-state")  # a certificate naming seat t1, of another CA
    other.ensure()
    forged = tmp_path / "forged"
    forged.mkdir()
    csr = openssl("req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                  "-keyout", str(forged / "key.pem"), "-subj", "/CN=t1")
    (forged / "cert.pem").write_bytes(other.sign("t1", csr))
    (forged / "ca.pem").write_bytes((good / "ca.pem").read_bytes())

    def attempt(directory: Path | None) -> str:
        """What the endpoint said to one connection: "refused" (TLS or hello refused, or
        closed) or the seat it accepted."""
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        ctx.load_verify_locations(cafile=str(good / "ca.pem"))
        ctx.check_hostname = False
        if directory is not None:
            ctx.load_cert_chain(str(directory / "cert.pem"), str(directory / "key.pem"))
        try:
            with ctx.wrap_socket(hostile_connection(table.port, timeout=LIVENESS_S)) as tls:
                tls.sendall(encode({"hello": "dealer-assist", "protocol": 1, "client": "terminal"}))
                line = LineReader(tls).read_line()
                if line is not None and "seat" in json.loads(line):
                    tls.sendall(encode({"id": 1, "op": "wager", "args": {"bet": "main", "amount": 5}}))
                    return str(json.loads(line)["seat"])
        except (OSError, ssl.SSLError):
            pass
        return "refused"

    def knock(stop: threading.Event, seen: dict[str, int]) -> None:
        while not stop.is_set():
            for directory in (None, removed, forged):
                bump(seen, attempt(directory))

    with Flood(knock, n=4) as flood:
        flood.wait_for("refused", 20)
        keeps_working(table, screen, good)
    assert not flood.errors and set(flood.seen) == {"refused"} and flood.seen["refused"] >= 3
    only_the_good_clients_did(screen.request("state"))


def test_a_flood_of_requests_from_a_paired_terminal_decides_nothing_for_anyone(
        dealt: tuple[TerminalStation, ServiceClient, Path], tmp_path: Path) -> None:
    """t2's terminal, paired, floods: its own view, ops for another seat, screens' ops, lines
    that are no JSON, and supervisor PINs guessed at a buy-in; one of its connections sends
    and never reads. t2 has no wager: nothing it asks may be recorded."""
    table, screen, good = dealt
    flooder = tmp_path / "t2"
    paired(table, "t2", flooder).close()
    asks = [encode({"id": i, "op": op, "args": args}) for i, (op, args) in enumerate((
        ("seat", {}), ("decide", {"player": "t3", "action": "hit"}), ("wager", {"player": "t3", "bet": "main",
                                                                                "amount": 5}),
        ("state", {}), ("next_round", {}), ("buy_in", {"amount": 100, "pin": {"user": "sue", "pin": "000000"}})))]
    asks.append(b"{not json\n")

    def ask(stop: threading.Event, seen: dict[str, int]) -> None:
        term = TerminalConnection("127.0.0.1", table.port, flooder, timeout_s=LIVENESS_S)
        reader = term.reader
        try:
            while not stop.is_set():
                # pipelined: 7 requests, then their answers (one PIN guess a batch: its refusal
                # waits the throttle's delay, pins.Throttle, up to 30 s)
                term.sock.sendall(b"".join(asks))
                for _ in range(len(asks)):
                    line = reader.read_line()
                    assert line is not None
                    reply = json.loads(line)
                    if "notify" in reply:
                        continue
                    bump(seen, "ok" if reply.get("ok") else str(reply["error"]["code"]))
        finally:
            term.close()

    def deaf(stop: threading.Event, seen: dict[str, int]) -> None:
        term = TerminalConnection("127.0.0.1", table.port, flooder, timeout_s=LIVENESS_S)
        term.sock.setblocking(False)
        try:
            while not stop.is_set():
                try:
                    term.sock.send(asks[0] * 64)
                    bump(seen, "sent")
                except (ssl.SSLWantWriteError, BlockingIOError):
                    stop.wait(0.05)  # the service does not read it while its answers go unread
                except OSError:
                    bump(seen, "dropped")  # the service gave up on it
                    return
        finally:
            term.close()

    with Flood(ask, n=PER_SEAT - 1) as asking, Flood(deaf, n=1):
        asking.wait_for("ok", 20)
        with pytest.raises(TerminalError) as busy:  # its seat's connections are full: one more refused
            TerminalConnection("127.0.0.1", table.port, flooder, timeout_s=LIVENESS_S)
        assert busy.value.code == "busy"
        keeps_working(table, screen, good)
        # sue's guessed PIN is locked (test_pins.py: at her third wrong one); bob, the last
        # supervisor free of a lock, never is: his PIN buys t3 credits at the dealer's screen
        screen.request("buy_in", seat="t3", amount=5, pin=BOB)
    assert not asking.errors, asking.errors
    assert {"ok", "refused", "auth", "bad_request", "pin"} <= set(asking.seen)
    users = {u["username"]: u for u in screen.request("users")}
    assert users["sue"]["locked_until"] is not None and users["bob"]["locked_until"] is None
    state = screen.request("state")
    only_the_good_clients_did(state)
    assert table.running is not None
    assert table.running.store.meters()["t2"] == 1000  # no buy-in by a guessed PIN
    assert table.running.store.meters()["t3"] == 1005  # 1000 bought at the set-up, 5 by bob
    screen.request("decide", player="t3", action="stand")  # the table goes on: t3 decides as it would


def test_a_replayed_terminal_session_and_a_replayed_request_record_nothing(
        electronic: Callable[..., TerminalStation], tmp_path: Path) -> None:  # noqa: F811 (the fixture)
    """A device between the terminal and the station records the terminal's bytes (its TLS
    handshake, its hello and a wager) and plays them to the endpoint again: no handshake, no
    second wager. And the terminal's own request sent again when the round no longer
    allows it is refused: t1 hit on 16 (10S 6D against 9H), the round then waits for a card."""
    table = electronic(" ".join(CARDS) + " 4C 8C", decision_seconds=120)
    screen = table.dealer()
    paired(table, "t1", tmp_path / "t1").close()
    relay = socket.create_server(("127.0.0.1", 0))
    recorded: list[bytes] = []

    def pump(src: socket.socket, dst: socket.socket, keep: bool) -> None:
        with contextlib.suppress(OSError):
            while data := src.recv(65536):
                if keep:
                    recorded.append(data)
                dst.sendall(data)

    def serve_relay() -> None:
        inside, _ = relay.accept()
        outside = socket.create_connection(("127.0.0.1", table.port))
        threading.Thread(target=pump, args=(outside, inside, False), daemon=True).start()
        pump(inside, outside, True)

    threading.Thread(target=serve_relay, daemon=True).start()
    term = TerminalConnection("127.0.0.1", relay.getsockname()[1], tmp_path / "t1", timeout_s=LIVENESS_S)
    term.request("wager", bet="main", amount=10)
    after_wager = screen.request("state")
    assert of_type(after_wager, "wager") == [{"type": "wager", "player": "t1", "bet": "main", "amount": 10}]
    meter = term.request("seat")["meter"]
    assert meter == 990  # 1000 bought, 10 wagered (1.1.10)

    for _ in range(3):
        with hostile_connection(table.port, timeout=LIVENESS_S) as replay:
            replay.sendall(b"".join(recorded))
            with contextlib.suppress(OSError):
                while replay.recv(65536):
                    pass  # until the service closes it
    assert of_type(screen.request("state"), "wager") == of_type(after_wager, "wager")
    assert term.request("seat")["meter"] == 990

    screen.request("no_more_bets")
    table.deal(screen, 3)
    line = encode({"id": 900, "op": "decide", "args": {"action": "hit"}})
    term.sock.sendall(line + line)  # the same request twice
    replies = [json.loads(term.reader.read_line() or b"null") for _ in range(2)]
    replies = [r for r in replies if "notify" not in r]
    while len(replies) < 2:
        reply = json.loads(term.reader.read_line() or b"null")
        if "notify" not in reply:
            replies.append(reply)
    assert replies[0]["ok"] is True and replies[1]["ok"] is False
    assert replies[1]["error"]["code"] == "refused"  # a card is due (3.18.2), not a decision
    assert of_type(screen.request("state"), "decision") == [{"type": "decision", "player": "t1", "action": "hit"}]
    term.close()
    relay.close()


def test_guessed_pairing_codes_from_many_connections_pair_nothing(
        dealt: tuple[TerminalStation, ServiceClient, Path], tmp_path: Path) -> None:
    table, screen, good = dealt
    real = add_code(table, "t2")
    csr = openssl("req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                  "-keyout", str(tmp_path / "k.pem"), "-subj", "/CN=terminal")

    def guess(stop: threading.Event, seen: dict[str, int]) -> None:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        ctx.check_hostname, ctx.verify_mode = False, ssl.CERT_NONE
        while not stop.is_set():
            code = "-".join(os.urandom(2).hex().upper() for _ in range(3))
            try:
                with ctx.wrap_socket(hostile_connection(table.port + 1, timeout=LIVENESS_S)) as tls:
                    station = tls.getpeercert(binary_form=True) or b""
                    tls.sendall(encode({"pair": 1, "csr": csr.decode(),
                                        "proof": pair_proof(code_key(code), station, csr)}))
                    answer = json.loads(LineReader(tls).read_line() or b"null")
                bump(seen, "paired" if answer and answer.get("ok") else "refused")
            except (OSError, ssl.SSLError):
                bump(seen, "cut")

    with Flood(guess, n=4) as flood:
        flood.wait_for("refused", 20)
        keeps_working(table, screen, good)
    assert not flood.errors and "paired" not in flood.seen and flood.seen.get("refused", 0) >= 5
    voided = pair(table, real, tmp_path / "t2")  # the guesses voided the real code (terminal_ca.MAX_WRONG)
    assert voided.returncode == 2 and "voided after too many wrong codes" in voided.stderr
    assert [p.seat for p in TerminalCA(table.state).paired()] == ["t1"]
    only_the_good_clients_did(screen.request("state"))
    assert pair(table, add_code(table, "t2"), tmp_path / "t2").returncode == 0  # a new code pairs


CHURN = r"""
import socket, sys, time
port, hello, seconds = int(sys.argv[1]), bytes.fromhex(sys.argv[2]), float(sys.argv[3])
held, opened = [], 0
end = time.monotonic() + seconds
while time.monotonic() < end:  # as fast as one process opens them: each a handshake begun, never ended
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=("127.0.0.2", 0))
        s.sendall(hello)
        held.append(s)
        opened += 1
        if opened == 500:
            print("flooding", flush=True)
    except OSError:
        pass
    if len(held) > 400:
        held.pop(0).close()
print(opened, flush=True)
"""


def test_a_fast_flood_of_new_handshakes_from_one_address_pushes_out_no_other_address(
        dealt: tuple[TerminalStation, ServiceClient, Path]) -> None:
    """Another process opens connections from the hostile address as fast as it can (each
    starts a handshake and never ends it): a good terminal's handshake on another address is
    never pushed out by them, however many arrive during it."""
    table, screen, good = dealt
    assert table.running is not None and table.running.terminals is not None
    table.running.terminals.max_handshaking = 8  # a small pool: the flood fills it many times over a handshake
    floods = [subprocess.Popen([sys.executable, "-c", CHURN, str(table.port), client_hello()[:40].hex(), "30"],
                               stdout=subprocess.PIPE, text=True) for _ in range(2)]
    try:
        for flood in floods:
            assert flood.stdout is not None and flood.stdout.readline().strip() == "flooding"
        keeps_working(table, screen, good)
        for _ in range(10):
            term = TerminalConnection("127.0.0.1", table.port, good, timeout_s=LIVENESS_S)
            try:
                assert term.request("seat")["seat"] == "t1"
            finally:
                term.close()
        assert all(flood.poll() is None for flood in floods)  # the flood ran throughout
    finally:
        for flood in floods:
            flood.kill()
            flood.wait()
    only_the_good_clients_did(screen.request("state"))


def test_a_slow_good_handshake_outlives_a_pool_full_of_another_addresss(
        dealt: tuple[TerminalStation, ServiceClient, Path]) -> None:
    """A good terminal (127.0.0.1) connects and is slow to start its handshake; meanwhile the
    hostile address opens many times the pool of handshakes. The pool pushes out the
    hostile address's own (the one holding the most), never the good one, which then
    completes its handshake and gets its view."""
    import select

    table, screen, good = dealt
    assert table.running is not None and table.running.terminals is not None
    endpoint = table.running.terminals
    endpoint.max_handshaking = 8
    endpoint.handshake_seconds = LIVENESS_S  # what is tested is the pool, not the handshake's deadline
    slow = socket.create_connection(("127.0.0.1", table.port), timeout=LIVENESS_S)

    def holds(host: str) -> int:
        with endpoint.lock:
            return sum(1 for entry in endpoint.handshaking.values() if entry[2] == host)

    deadline = time.monotonic() + LIVENESS_S
    while holds("127.0.0.1") < 1:  # the good one accepted: the oldest handshake of the pool
        assert time.monotonic() < deadline
        time.sleep(0.02)
    hostile = [hostile_connection(table.port, timeout=LIVENESS_S) for _ in range(50)]
    try:
        cut: set[int] = set()
        while len(cut) < 50 - 7:  # the pool holds 8: 43 of the 50 pushed out (closed by the service)
            assert time.monotonic() < deadline, f"only {len(cut)} pushed out"
            ready, _, _ = select.select([s for s in hostile if s.fileno() not in cut], [], [], 1.0)
            for s in ready:
                with contextlib.suppress(OSError):
                    assert s.recv(1) == b""
                cut.add(s.fileno())
        assert holds("127.0.0.1") == 1 and holds(HOSTILE) == 7
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)  # as terminal_client.TerminalConnection
        ctx.load_verify_locations(cafile=str(good / "ca.pem"))
        ctx.load_cert_chain(str(good / "cert.pem"), str(good / "key.pem"))
        with ctx.wrap_socket(slow, server_hostname=STATION_NAME) as tls:
            reader = LineReader(tls)
            tls.sendall(encode({"hello": "dealer-assist", "protocol": 1, "client": "terminal"}))
            assert json.loads(reader.read_line() or b"null")["seat"] == "t1"
            tls.sendall(encode({"id": 1, "op": "seat", "args": {}}))
            reply = json.loads(reader.read_line() or b"null")
            while "notify" in reply:
                reply = json.loads(reader.read_line() or b"null")
            assert reply["ok"] is True and reply["result"]["seat"] == "t1"
    finally:
        for s in hostile:
            s.close()
