"""Player terminals on the station service (issue 38, build 1; Electronic Blackjack 1.1.10):
a real service with its terminal endpoint on loopback (real TLS, real openssl), the
technician's `station terminal` and the terminal's `terminal --pair` as their commands."""

from __future__ import annotations

import json
import os
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

import dealer_assist.service.station as st
from dealer_assist.engine.table_setup import TableSetup, setup_to_json
from dealer_assist.service.client import ServiceError
from dealer_assist.service.serve import ServeOptions, start
from dealer_assist.service.terminal_ca import MAX_WRONG, TerminalCA, openssl
from dealer_assist.service.terminal_client import TerminalConnection, TerminalError
from dealer_assist.store.users import TEST_PIN_COST
from hardware.station import attach_shoe
from tests.service.conftest import Station, make_shoe, wait_connected

SUE = {"user": "sue", "pin": "482913"}
ROOT = Path(__file__).resolve().parents[2]


class TerminalStation(Station):
    def start(self) -> Any:
        cfg = st.StationConfig(shoe_port=self.sim.path)
        self.running = start(ServeOptions(state_dir=str(self.state), socket=str(self.socket), pin_cost=TEST_PIN_COST,
                                          terminals=("127.0.0.1", 0)),
                             lambda on_event: attach_shoe(cfg, on_event))
        return self.running

    @property
    def port(self) -> int:
        assert self.running is not None and self.running.terminals is not None
        return self.running.terminals.port


@pytest.fixture
def table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[TerminalStation]:
    monkeypatch.delenv(st.CONFIG_ENV, raising=False)
    s = TerminalStation(tmp_path / "state", tmp_path / "run" / "station.sock", make_shoe("10S 9H QD 8C 5D"))
    s.start()
    wait_connected(s)
    yield s
    s.stop()
    s.sim.close()


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != st.CONFIG_ENV}
    return subprocess.run([sys.executable, "-m", "dealer_assist.cli", *args], capture_output=True, text=True,
                          timeout=60, cwd=ROOT, env=env, check=False)


def add_code(s: Station, seat: str) -> str:
    done = cli("station", "terminal", "add", seat, "--state-dir", str(s.state))
    assert done.returncode == 0, done.stderr
    line = next(ln for ln in done.stdout.splitlines() if ln.startswith(f"pairing code for seat {seat}: "))
    return line.split(": ", 1)[1].split()[0]


def pair(s: TerminalStation, code: str, directory: Path) -> subprocess.CompletedProcess[str]:
    return cli("terminal", "--connect", f"127.0.0.1:{s.port}", "--pair", code, "--dir", str(directory))


def paired(s: TerminalStation, seat: str, directory: Path) -> TerminalConnection:
    done = pair(s, add_code(s, seat), directory)
    assert done.returncode == 0, done.stderr
    return TerminalConnection("127.0.0.1", s.port, directory)


def test_a_code_pairs_one_terminal_once_and_it_then_starts_as_its_seat(table: TerminalStation, tmp_path: Path) -> None:
    code = add_code(table, "t1")
    done = pair(table, code, tmp_path / "term1")
    assert done.returncode == 0, done.stderr
    assert "paired to seat t1" in done.stdout
    for name in ("key.pem", "cert.pem", "ca.pem"):
        assert stat.S_IMODE((tmp_path / "term1" / name).stat().st_mode) == 0o600
    for name in ("ca.key", "station.key", "codes.json", "paired.json"):
        assert stat.S_IMODE((table.state / "terminals" / name).stat().st_mode) == 0o600
    assert code.replace("-", "") not in (table.state / "terminals" / "codes.json").read_text()  # kept hashed

    again = pair(table, code, tmp_path / "term2")
    assert again.returncode == 2 and "error: this pairing code was used already" in again.stderr
    assert not (tmp_path / "term2" / "cert.pem").exists()

    started = cli("terminal", "--connect", f"127.0.0.1:{table.port}", "--dir", str(tmp_path / "term1"), "--once")
    assert started.returncode == 0, started.stderr
    view = json.loads(started.stdout)
    assert view["seat"] == "t1" and view["betting"] is True
    listed = cli("station", "terminal", "list", "--state-dir", str(table.state))
    assert listed.stdout.startswith("t1\tpaired ")


def test_expired_and_wrong_codes_are_refused_and_guessing_voids_every_code(table: TerminalStation,
                                                                            tmp_path: Path) -> None:
    ca = TerminalCA(table.state)
    expired, _ = ca.add_code("t1", minutes=-1)
    done = pair(table, expired, tmp_path / "a")
    assert done.returncode == 2 and "error: this pairing code expired at" in done.stderr

    good = add_code(table, "t2")
    for n in range(1, MAX_WRONG):
        wrong = pair(table, "AAAA-BBBB-CCCC", tmp_path / "a")
        assert wrong.returncode == 2 and f"error: wrong pairing code ({n} of {MAX_WRONG} wrong" in wrong.stderr
    last = pair(table, "AAAA-BBBB-CCCC", tmp_path / "a")
    assert "every outstanding code is void" in last.stderr
    voided = pair(table, good, tmp_path / "a")  # the guesses cost the real code too: a technician makes another
    assert voided.returncode == 2 and "voided after too many wrong codes" in voided.stderr
    assert not (tmp_path / "a" / "cert.pem").exists()
    assert pair(table, add_code(table, "t2"), tmp_path / "a").returncode == 0


def test_a_certificate_of_another_ca_is_refused(table: TerminalStation, tmp_path: Path) -> None:
    paired(table, "t1", tmp_path / "real").close()
    other = TerminalCA(tmp_path / "other-state")
    other.ensure()
    fake = tmp_path / "fake"
    fake.mkdir()
    csr = openssl("req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                  "-keyout", str(fake / "key.pem"), "-subj", "/CN=t1")
    (fake / "cert.pem").write_bytes(other.sign("t1", csr))  # names seat t1, signed by another CA
    (fake / "ca.pem").write_bytes((tmp_path / "real" / "ca.pem").read_bytes())
    with pytest.raises(TerminalError) as refused:
        TerminalConnection("127.0.0.1", table.port, fake)
    assert "refused this terminal" in refused.value.message
    # and a station that is not this one (another CA's) is refused by the terminal
    (fake / "ca.pem").write_bytes(other.ca_pem.read_bytes())
    (fake / "cert.pem").write_bytes((tmp_path / "real" / "cert.pem").read_bytes())
    (fake / "key.pem").write_bytes((tmp_path / "real" / "key.pem").read_bytes())
    with pytest.raises(TerminalError) as unknown:
        TerminalConnection("127.0.0.1", table.port, fake)
    assert "certificate verify failed" in unknown.value.message


def test_a_removed_terminal_is_refused_at_once(table: TerminalStation, tmp_path: Path) -> None:
    term = paired(table, "t1", tmp_path / "t1")
    assert term.request("seat")["seat"] == "t1"
    removed = cli("station", "terminal", "remove", "t1", "--state-dir", str(table.state))
    assert removed.returncode == 0, removed.stderr
    with pytest.raises(TerminalError) as held:  # the connection it holds: its next request
        term.request("seat")
    assert held.value.code == "auth" and "no longer paired to seat t1" in held.value.message
    term.close()
    with pytest.raises(TerminalError) as new:
        TerminalConnection("127.0.0.1", table.port, tmp_path / "t1")
    assert "not paired to a seat" in new.value.message
    again = cli("station", "terminal", "remove", "t1", "--state-dir", str(table.state))
    assert again.returncode == 2 and again.stderr.startswith("error: no terminal is paired to seat t1")


def test_a_terminal_sees_only_its_own_seat_and_calls_no_screen_op(table: TerminalStation, tmp_path: Path) -> None:
    screen = table.dealer()
    setup = TableSetup(game="electronic", decks=6, limits={"main": [Decimal(5), Decimal(1000)]}, terminals=["t1", "t2"])
    screen.request("set_table", setup=setup_to_json(setup), pin=SUE)
    screen.request("wager", player="t1", bet="main", amount=10)
    screen.request("wager", player="t2", bet="main", amount=25)
    term = paired(table, "t1", tmp_path / "t1")
    table.deal(screen, 3)  # Player, Dealer, Player (3.7): then each terminal decides (3.9)
    view = term.request("seat")
    own = [e for e in view["events"] if e["type"] == "wager"]
    assert own == [{"type": "wager", "player": "t1", "bet": "main", "amount": 10}]
    assert [e["card"] for e in view["events"] if e["type"] == "card"] == ["10S", "9H", "QD"]
    assert "t2" not in json.dumps(view)  # not a wager, a hand, a decision nor a name of the other seat
    assert view["next"]["expect"] == "decisions" and [p["player"] for p in view["next"]["pending"]] == ["t1"]
    everyone = screen.request("state")["output"]["next"]["pending"]
    assert {p["player"] for p in everyone} == {"t1", "t2"}  # both still to decide: t2's was cut out

    for op, args in (("state", {}), ("set_slip", {"wagers": []}), ("timeout", {"player": "t1"})):
        with pytest.raises(TerminalError) as refused:
            term.request(op, **args)
        assert refused.value.code == "auth" and f"op '{op}' is not a terminal's" in refused.value.message
    for op, args in (("wager", {"player": "t2", "bet": "main", "amount": 5}),
                     ("decide", {"player": "t2", "action": "stand"})):  # its own ops, for another seat
        with pytest.raises(TerminalError) as refused:
            term.request(op, **args)
        assert refused.value.code == "refused" and refused.value.clause == "1.1.10"
    with pytest.raises(ServiceError) as screen_refused:  # and a screen is no terminal
        screen.request("seat")
    assert screen_refused.value.code == "auth" and "only a terminal paired to a seat" in screen_refused.value.message
    after = screen.request("state")
    assert [e for e in after["events"] if e["type"] == "wager"][1]["amount"] == 25  # nothing changed


def test_held_handshakes_keep_out_no_terminal_and_no_screen(table: TerminalStation, tmp_path: Path) -> None:
    paired(table, "t1", tmp_path / "t1").close()
    held: list[socket.socket] = []
    try:
        for _ in range(200):  # connected, never a ClientHello
            held.append(socket.create_connection(("127.0.0.1", table.port), timeout=10))
        for _ in range(20):  # and some on the pairing port
            held.append(socket.create_connection(("127.0.0.1", table.port + 1), timeout=10))
        term = TerminalConnection("127.0.0.1", table.port, tmp_path / "t1")
        assert term.request("seat")["seat"] == "t1"
        term.close()
        assert table.client().request("state")["version"] >= 0
        code = add_code(table, "t2")  # pairing too
        assert pair(table, code, tmp_path / "t2").returncode == 0
    finally:
        for s in held:
            s.close()


def test_a_silent_connection_is_closed_after_the_handshake_time(table: TerminalStation) -> None:
    assert table.running is not None and table.running.terminals is not None
    limit = table.running.terminals.handshake_seconds
    s = socket.create_connection(("127.0.0.1", table.port), timeout=limit + 10)
    started = time.monotonic()
    assert s.recv(1) == b""  # closed by the service, not by this side
    assert time.monotonic() - started < limit + 5
    s.close()


def free_pair_of_ports() -> int:
    """A port whose next is free too (the terminals' and the pairing's)."""
    for _ in range(50):
        with socket.socket() as a, socket.socket() as b:
            a.bind(("127.0.0.1", 0))
            port = a.getsockname()[1]
            try:
                b.bind(("127.0.0.1", port + 1))
            except OSError:
                continue
            return int(port)
    raise AssertionError("no two free ports in a row")


def test_station_serve_listens_for_terminals_on_its_configured_port(tmp_path: Path) -> None:
    """The technician's path end to end: [terminals] port in station.toml, `station serve`,
    `station terminal add`, the terminal paired and started as its seat."""
    port = free_pair_of_ports()
    config = tmp_path / "station.toml"
    state = tmp_path / "state"
    config.write_text(st.render_config(st.StationConfig(table="BJ-07", game="electronic", terminals_port=port,
                                                        terminals_host="127.0.0.1")))
    assert st.load_config(config).terminals_port == port
    env = {k: v for k, v in os.environ.items() if k != st.CONFIG_ENV}
    proc = subprocess.Popen([sys.executable, "-m", "dealer_assist", "station", "serve", "--config", str(config),
                             "--state-dir", str(state), "--socket", str(tmp_path / "station.sock"),
                             "--log-dir", str(tmp_path / "log")],
                            env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 30
        while not (tmp_path / "station.sock").exists() or not (state / "terminals" / "station.pem").exists():
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "the service did not start within 30 s"
            time.sleep(0.1)
        added = cli("station", "--config", str(config), "terminal", "add", "t3", "--state-dir", str(state))
        assert added.returncode == 0, added.stderr
        assert f"dealer-assist terminal --connect HOST:{port} --pair " in added.stdout
        code = added.stdout.split("pairing code for seat t3: ", 1)[1].split()[0]
        assert cli("terminal", "--connect", f"127.0.0.1:{port}", "--pair", code,
                   "--dir", str(tmp_path / "t3")).returncode == 0
        started = cli("terminal", "--connect", f"127.0.0.1:{port}", "--dir", str(tmp_path / "t3"), "--once")
        assert started.returncode == 0, started.stderr
        view = json.loads(started.stdout)
        assert view["seat"] == "t3" and view["config"]["game"] == "electronic"
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_bad_input_at_the_terminal_commands_is_one_line_and_exit_2(table: TerminalStation, tmp_path: Path) -> None:
    bad_address = cli("terminal", "--connect", "nowhere", "--dir", str(tmp_path / "x"))
    assert bad_address.returncode == 2 and bad_address.stderr.startswith("error: --connect 'nowhere' is not HOST:PORT")
    unpaired = cli("terminal", "--connect", f"127.0.0.1:{table.port}", "--dir", str(tmp_path / "x"))
    assert unpaired.returncode == 2 and "this terminal is not paired" in unpaired.stderr
    bad_seat = cli("station", "terminal", "add", "../t1", "--state-dir", str(table.state))
    assert bad_seat.returncode == 2 and bad_seat.stderr.startswith("error: seat '../t1' is not a seat's name")
    for done in (bad_address, unpaired, bad_seat):
        assert "Traceback" not in done.stderr and len(done.stderr.splitlines()) == 1


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("setpriv"), reason="needs root and setpriv (CI runs as root)")
def test_only_root_or_the_service_account_pairs_terminals(tmp_path: Path) -> None:
    base = Path(tempfile.mkdtemp(prefix="da-terminals-"))  # reachable by another account (tmp_path is 0700)
    try:
        base.chmod(0o755)
        state = base / "state"
        state.mkdir(mode=0o755)
        env = {k: v for k, v in os.environ.items() if k != st.CONFIG_ENV}
        done = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable, "-m",
                               "dealer_assist.cli", "station", "terminal", "add", "t1", "--state-dir", str(state)],
                              capture_output=True, text=True, timeout=60, cwd=ROOT, env=env, check=False)
        assert done.returncode == 2, done.stdout
        assert done.stderr == f"error: only root (sudo) or the service account may pair terminals in {state}\n"
        assert not (state / "terminals").exists()
    finally:
        shutil.rmtree(base, ignore_errors=True)


def test_a_terminal_hears_that_the_table_changed_but_not_what_another_seat_did(table: TerminalStation,
                                                                               tmp_path: Path) -> None:
    screen = table.dealer()
    setup = TableSetup(game="electronic", decks=6, limits={"main": [Decimal(5), Decimal(1000)]}, terminals=["t1", "t2"])
    screen.request("set_table", setup=setup_to_json(setup), pin=SUE)
    term = paired(table, "t1", tmp_path / "t1")
    before = term.request("seat")["version"]
    wanted = screen.request("wager", player="t2", bet="main", amount=25)["version"]
    assert wanted > before
    # notes of earlier changes (the shoe, the set-up) may still be on their way: read on to the wager's
    for _ in range(20):
        note = term.wait_note(10.0)
        assert note is not None and note["notify"] == "changed" and set(note["data"]) == {"version"}
        if note["data"]["version"] >= wanted:
            break
    assert note["data"]["version"] >= wanted
    view = term.request("seat")
    assert view["version"] >= wanted and view["events"] == [] and view["slip"] == []


def test_a_terminal_that_does_not_read_never_holds_up_a_screen(table: TerminalStation, tmp_path: Path) -> None:
    """The terminals are told on their own thread: a terminal whose sends hang (a full
    network buffer) leaves the screens' requests and notifications as they were."""
    import threading

    screen = table.dealer()
    term = paired(table, "t1", tmp_path / "t1")
    assert table.running is not None and table.running.terminals is not None
    (stuck,) = table.running.terminals.terminals
    release = threading.Event()
    stuck.send = lambda message: release.wait()  # type: ignore[method-assign,assignment]
    answered: list[Any] = []
    try:
        worker = threading.Thread(target=lambda: answered.append(
            screen.request("wager", player="p1", area=1, bet="main", amount=10)))
        worker.start()
        worker.join(20)  # a liveness bound, not a speed measure: hung, it would never return
        assert answered and [e["player"] for e in answered[0]["events"] if e["type"] == "wager"] == ["p1"]
        assert screen.request("state")["version"] == answered[0]["version"]
    finally:
        release.set()
        term.close()


def test_a_code_relayed_to_another_station_certificate_pairs_nothing(table: TerminalStation, tmp_path: Path) -> None:
    """The proof binds the code to the station certificate the terminal saw: a relay that
    shows the terminal its own certificate cannot pass the terminal's proof on (and the
    code is not spent by it)."""
    import ssl

    from dealer_assist.service.protocol import LineReader, encode
    from dealer_assist.service.terminal_ca import code_key, pair_proof

    code = add_code(table, "t1")
    relay = TerminalCA(tmp_path / "relay-state")  # what a relay would show the terminal
    relay.ensure()
    relay_der = ssl.PEM_cert_to_DER_cert(relay.station_pem.read_text())
    csr = openssl("req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                  "-keyout", str(tmp_path / "k.pem"), "-subj", "/CN=terminal")
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname, ctx.verify_mode = False, ssl.CERT_NONE
    with ctx.wrap_socket(socket.create_connection(("127.0.0.1", table.port + 1), timeout=10)) as tls:
        tls.sendall(encode({"pair": 1, "csr": csr.decode(), "proof": pair_proof(code_key(code), relay_der, csr)}))
        answer = json.loads(LineReader(tls).read_line() or b"null")
    assert answer["ok"] is False and answer["error"]["message"].startswith("wrong pairing code (1 of")
    assert pair(table, code, tmp_path / "t1").returncode == 0  # the code itself still pairs the real terminal


def test_station_check_reports_the_terminals_only_when_configured(tmp_path: Path) -> None:
    with_port = tmp_path / "with.toml"
    with_port.write_text(st.render_config(st.StationConfig(table="BJ-07", terminals_port=7300)))
    without = tmp_path / "without.toml"
    without.write_text(st.render_config(st.StationConfig(table="BJ-07")))
    lines = cli("station", "check", "--config", str(with_port)).stdout.splitlines()
    assert [ln for ln in lines if " terminals: " in ln][0].startswith("OK   terminals: port 7300, pairing on 7301; ")
    assert not [ln for ln in cli("station", "check", "--config", str(without)).stdout.splitlines()
                if " terminals: " in ln]
    assert "terminals_port" not in st.load_config(without).settings()  # an unchanged digest when unset
