"""``dealer-assist station check|init|show``: the technician's commands (docs/station.md).

- ``check``: each part of the station, OK or what to do. For the station's configuration:
  the service account, the files' owners and modes, the unit, the service answering the
  handshake on its socket, the shoe port as the service account would open it, the store
  verified as the service account, the floor. For a file named elsewhere (--config): the
  configuration, the shoe's port (this account may open it), the shoe answers ``ID?``
  (spec/shoe-protocol.md), the store (writable, hash chains verify), the disk's room, the
  floor database (if configured). Exit 0 when every part is OK, 1 when one
  is not, 2 for bad input (an unreadable configuration file).
- ``init``: write a commented configuration file (refuses to overwrite without --force); the
  station's (/etc/dealer-assist/station.toml) only as root, root:root 0644, a floor
  password into /var/lib/dealer-assist/floor.secret (the service account's, 0600).
- ``show``: the configuration file the app would use, and what it resolves to.

Lives in hardware/ because the shoe check opens the serial port (pyserial); the parts
that need no device are in dealer_assist/service/station.py.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
import tomllib
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import dealer_assist.service.station as st
from dealer_assist.base.cards import Card, parse_card
from dealer_assist.service.layout import (
    ACCOUNT,
    UNIT,
    Layout,
    check_account,
    check_files,
    check_shoe_access,
    check_socket,
    check_unit,
    find_account,
    is_root,
    station_layout,
    systemd_running,
    write_enrol_code,
    write_floor_secret,
)
from dealer_assist.service.station import Check, StationConfig, StationError
from hardware.codecs import CODEC_NAMES, make_codec
from hardware.driver import ShoeDriver, open_serial
from hardware.events import (
    Connected,
    DecodeError,
    Disconnected,
    Duplicate,
    Hello,
    SequenceGap,
    ShoeEvent,
    ShoeFault,
    event_to_json,
)
from hardware.simulator import SimulatedShoe

ANSWER_S = 3.0  # a da1 shoe answers ID? within a few hundred ms; a beetek shoe may be silent


# What a shoe may send that shows the codec read it: not a dropped frame, not the driver's own.
_NOT_UNDERSTOOD = (DecodeError, SequenceGap, Duplicate, Connected, Disconnected)


def probe_shoe(port: str, codec: str, baud: int, wait_s: float = ANSWER_S) -> Check:
    """Open ``port`` (exclusive, 8N1 at ``baud``), ask ``ID?`` when the codec has it and read
    what the shoe sends for up to ``wait_s``; then judge those bytes (:func:`judge_shoe_bytes`):
    a shoe answering in another wire format than ``codec`` is named, not passed."""
    try:
        link = open_serial(port, baud, read_timeout_s=0.1)
    except Exception as exc:  # pyserial raises SerialException, OSError, ValueError...
        return Check("shoe", False, f"cannot open {port}: {exc} (if the dealer's screen is running "
                     "it holds the port: close it, then check again)")
    raw = bytearray()
    try:
        request = make_codec(codec).id_request()
        if request is not None:
            link.write(request)
        deadline = time.monotonic() + wait_s
        while time.monotonic() < deadline:
            raw += link.read(4096)
            read = _understood(codec, bytes(raw))[0] if raw else []
            if any(isinstance(e, Hello) for e in read) or (request is None and read):
                time.sleep(0.2)  # the rest of an answer (a fault after the HELLO)
                raw += link.read(4096)
                break
    except Exception as exc:  # the port went away mid-probe
        return Check("shoe", False, f"{port} failed while reading the shoe: {exc}")
    finally:
        link.close()
    return judge_shoe_bytes(bytes(raw), codec, baud, wait_s)


def _understood(codec: str, raw: bytes) -> tuple[list[ShoeEvent], int]:
    """The events ``codec`` reads in ``raw`` and how many frames it had to drop."""
    events = make_codec(codec).feed(raw)
    read = [e for e in events if not isinstance(e, _NOT_UNDERSTOOD)]
    return read, sum(1 for e in events if isinstance(e, DecodeError))


def _reads_cleanly(codec: str, raw: bytes) -> bool:
    read, dropped = _understood(codec, raw)
    return bool(read) and dropped == 0


def judge_shoe_bytes(raw: bytes, codec: str, baud: int, wait_s: float = ANSWER_S) -> Check:
    """What ``station check`` says of the bytes a shoe sent (spec/shoe-protocol.md): its HELLO
    in ``codec``; frames ``codec`` reads; or, when ``codec`` reads none of them, the wire format
    that does (shoe.codec is wrong) or that none does (shoe.baud, or not a shoe)."""
    read, dropped = _understood(codec, raw)
    hello = next((e for e in read if isinstance(e, Hello)), None)
    faults = [e for e in read if isinstance(e, ShoeFault)]
    if hello is not None:
        text = f"answers ID?: {hello.model}, firmware {hello.firmware}, serial {hello.serial_number}"
        if faults:
            return Check("shoe", False, f"{text}; reports fault {faults[0].code} {faults[0].text}: "
                         "clear it at the shoe (lid, jam) and check again")
        return Check("shoe", True, text)
    if read and dropped <= len(read):
        frames = f"{len(read)} frames read" + (f", {dropped} dropped" if dropped else "")
        if make_codec(codec).id_request() is None:
            return Check("shoe", True, f"{codec} shoe is sending ({frames}; this wire format has no ID?)")
        return Check("shoe", False, f"the shoe sends {codec} frames ({frames}) but did not answer ID? "
                     f"in {wait_s:.0f} s: switch it off and on, then check again")
    if raw:
        others = [name for name in CODEC_NAMES if name != codec]
        speaks = [name for name in others if _reads_cleanly(name, raw)]
        if speaks:
            return Check("shoe", False, f"the shoe sends {speaks[0]} frames, not {codec}: set "
                         f'shoe.codec = "{speaks[0]}" in the station\'s configuration (the screen '
                         f"would show the shoe as lost)")
        return Check("shoe", False, f"the shoe sent {len(raw)} bytes that no wire format reads "
                     f"({', '.join(CODEC_NAMES)}): is shoe.baud ({baud}) the shoe's? is this port the shoe?")
    if make_codec(codec).id_request() is None:
        return Check("shoe", False, f"no message from the shoe in {wait_s:.0f} s: a {codec} shoe may be "
                     "silent while idle; deal a card and check again, or check --codec and --baud")
    return Check("shoe", False, f"no answer to ID? in {wait_s:.0f} s: is the shoe switched on? "
                 f"are shoe.codec ({codec}) and shoe.baud ({baud}) the shoe's?")


def run_checks(cfg: StationConfig | None, path: Path, *, wait_s: float = ANSWER_S) -> list[Check]:
    layout = station_layout()
    if cfg is not None and path == layout.config:
        return station_checks(cfg, layout, wait_s=wait_s)
    # A configuration named elsewhere (--config): its own parts, the service's not checked.
    checks = [st.check_config(cfg, path)]
    if cfg is not None:
        checks.append(Check("service", True, f"not checked: {path} is not the station's configuration "
                            f"{layout.config} (a rehearsal or a copy)", skipped=True))
    if cfg is None or cfg.simulated:
        checks.append(st.check_port(""))
    else:
        port = st.check_port(cfg.shoe_port)
        checks.append(port)
        if port.ok:
            checks.append(probe_shoe(cfg.shoe_port, cfg.codec, cfg.baud, wait_s))
    store = st.store_path(cfg)
    checks.append(st.check_store(store))
    checks.append(st.check_disk(store))
    checks.append(floor_check(cfg, None))
    _terminals_check(cfg, checks)
    return checks


def _terminals_check(cfg: StationConfig | None, checks: list[Check], state_dir: Path | None = None) -> None:
    """The player terminals' line, when ``[terminals] port`` is set (issue 38)."""
    from dealer_assist.service.terminal_ca import check_terminals

    if cfg is not None:
        line = check_terminals(cfg.terminals_port, state_dir or st.site_data_dir())
        if line is not None:
            checks.append(line)


def attach_shoe(cfg: StationConfig | None, on_event: Callable[[dict[str, Any]], None],
                sim_cards: list[Card] | None = None, sim_seed: int | None = None,
                on_sim: Callable[[SimulatedShoe], None] | None = None) -> Callable[[], None]:
    """Start the station's shoe (its port, or a simulated shoe on a pty with no port) and
    hand each event to ``on_event`` as JSON; returns the function that stops it.
    ``on_sim`` gets the simulated shoe (the service lets the screen deal from it)."""
    sim: SimulatedShoe | None = None
    if cfg is None or cfg.simulated:
        game = cfg.game if cfg is not None and cfg.game else "lucky8"
        decks = cfg.decks if cfg is not None and cfg.decks else 6
        sim = SimulatedShoe(game=game, decks=decks, seed=sim_seed, cards=sim_cards,
                            penetration=None if sim_cards else 0.75)
        port, codec, baud = sim.open(), "da1", st.DEFAULT_BAUD
        if on_sim is not None:
            on_sim(sim)
    else:
        port, codec, baud = cfg.shoe_port, cfg.codec, cfg.baud
    driver = ShoeDriver(port, lambda event: on_event(event_to_json(event)), codec=codec, baud=baud)
    driver.start()

    def stop() -> None:
        driver.stop()
        if sim is not None:
            sim.close()

    return stop


def floor_check(cfg: StationConfig | None, password: str | None) -> Check:
    if cfg is not None and cfg.floor_database:
        return st.check_floor_url(cfg.floor_database, password)
    return st.check_floor(cfg.floor_service if cfg else "")


def station_checks(cfg: StationConfig, layout: Layout, *, wait_s: float = ANSWER_S) -> list[Check]:
    """The station's configuration (/etc/dealer-assist/station.toml): the service account, the
    files' owners and modes, the unit, the service answering on its socket, the shoe as the
    service account would open it, the store (verified as the service account), the floor."""
    checks = [st.check_config(cfg, layout.config), check_account(layout),
              check_files(layout, Path(cfg.store) if cfg.store else None), check_unit(layout)]
    service = check_socket(layout)
    checks.append(service)
    if cfg.simulated:
        checks.append(Check("shoe port", False, "no shoe.port configured: the service runs the simulated shoe "
                            "(dealer-assist station init --force --shoe /dev/dealer-shoe ...)"))
    else:
        port = check_shoe_access(cfg.shoe_port)
        checks.append(port)
        if port.ok and service.ok:
            checks.append(shoe_as_the_service_reads_it(layout.socket, cfg.codec, cfg.baud))
        elif port.ok and os.access(cfg.shoe_port, os.R_OK | os.W_OK):
            checks.append(probe_shoe(cfg.shoe_port, cfg.codec, cfg.baud, wait_s))
    store = st.store_path(cfg)
    checks.append(store_check_as_service(store))
    checks.append(st.check_disk(store))
    checks.append(floor_check(cfg, st.floor_password(layout.state_dir)))
    _terminals_check(cfg, checks, layout.state_dir)
    return checks


def shoe_as_the_service_reads_it(socket: Path, codec: str, baud: int) -> Check:
    """The service holds the port: what it reads of the shoe's real frames (issue 39): a wrong
    codec or baud decodes to damaged frames only, or to nothing (the screen's "Shoe LOST")."""
    from dealer_assist.service.client import ServiceClient, ServiceError

    try:
        client = ServiceClient(socket, timeout_s=10)
        try:
            shoe = client.request("state").get("shoe") or {}
        finally:
            client.close()
    except ServiceError as exc:
        return Check("shoe", True, f"held by the service; its status not read: {exc.message}", skipped=True)
    frames, damaged = int(shoe.get("frames") or 0), int(shoe.get("damaged") or 0)
    if frames:
        return Check("shoe", True, f"the service reads the shoe's frames as {codec} ({frames} whole, {damaged} damaged)")
    if damaged:
        return Check("shoe", False, f"the service read {damaged} frame(s) from the shoe and none decoded as {codec}: "
                     f"are shoe.codec ({codec}) and shoe.baud ({baud}) the shoe's? (station init --force --codec ...)")
    if not shoe.get("connected"):
        return Check("shoe", False, f"the service has no answer from the shoe as {codec} (the screen shows Shoe "
                     f"LOST): is the shoe switched on? are shoe.codec ({codec}) and shoe.baud ({baud}) the shoe's?")
    return Check("shoe", True, "held by the service, no frame from it yet (deal a card and check again)",
                 skipped=True)


def store_check_as_service(store: Path) -> Check:
    """The store verified as the service account (root would leave root's -wal/-shm files in
    the service's directory); a dealer's account may not read it at all."""
    account = find_account()
    if account is not None and os.geteuid() == account.uid:
        return st.check_store(store)
    if not is_root() or account is None:
        return Check("store", True, f"{store}: only the service account may read it (run the check as root "
                     "to verify it)", skipped=True)
    if not store.exists():
        return Check("store", True, f"{store} will be created at the service's first start")
    # `history verify` run as the service account (the frozen program is its own interpreter)
    command = [sys.executable] if getattr(sys, "frozen", False) else [sys.executable, "-m", "dealer_assist"]
    try:
        done = subprocess.run([*command, "history", "verify", "--db", str(store)], capture_output=True,
                              text=True, timeout=600, cwd="/", user=account.uid, group=account.gid,
                              extra_groups=sorted(account.groups))
    except (OSError, subprocess.SubprocessError) as exc:
        return Check("store", False, f"{store}: cannot verify it as {account.name}: {exc}")
    said = (done.stdout.strip() or done.stderr.strip()).splitlines()
    text = said[-1] if said else f"exit status {done.returncode}"
    if done.returncode != 0:
        return Check("store", False, f"{store}: {text} (as {account.name}; keep the file for the auditor, "
                     "docs/store.md)")
    return Check("store", True, f"{store}: {text} (verified as {account.name})")


class StationCommand:
    def configure(self, parser: argparse.ArgumentParser) -> None:
        parser.description = "Check, write or show the station's configuration (docs/station.md)."
        config_help = f"the configuration file (default ${st.CONFIG_ENV}, else {st.default_config_path()})"
        parser.add_argument("--config", metavar="FILE", help=config_help)
        actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True,
                                        parser_class=type(parser))
        for name, text in (("check", "check each part of the station: OK, or what to do"),
                           ("init", "write the station's configuration (as root), the floor's password apart"),
                           ("show", "print the configuration in use"),
                           ("serve", "run the station service (owns the shoe, the store, the PINs)"),
                           ("unlock", "clear an account's wrong PINs and lock (as root; audited)"),
                           ("enrol-code", "print a new one-time code for the first supervisor's enrolment "
                                          "(as root)"),
                           ("acknowledge", "open the table on a store the service refused at its start "
                            "(rolled back, anchor gone, failed verify) once a technician checked it: audited"),
                           ("terminal", "pair player terminals to seats: add SEAT (a one-time code), list, "
                                        "remove SEAT (root or the service account)")):
            sub = actions.add_parser(name, help=text)
            # before or after the action; SUPPRESS keeps a value given before it
            sub.add_argument("--config", metavar="FILE", default=argparse.SUPPRESS, help=config_help)
            if name == "acknowledge":
                sub.add_argument("--state-dir", metavar="DIR", help="the service's state directory "
                                 "(default /var/lib/dealer-assist)")
                sub.add_argument("--by", default="", help="who checked the store (default: the account)")
            if name == "serve":
                sub.add_argument("--state-dir", metavar="DIR", help="the store, its key and the anchor "
                                 "(default /var/lib/dealer-assist; development: the user's data directory)")
                sub.add_argument("--socket", metavar="PATH", help="the socket (default /run/dealer-assist/"
                                 "station.sock; development: $XDG_RUNTIME_DIR or /tmp/dealer-assist-$UID)")
                sub.add_argument("--log-dir", metavar="DIR", help="the service's log directory")
                sub.add_argument("--sim-cards", metavar="FILE", help="simulated shoe: fixed card order")
                sub.add_argument("--sim-seed", type=int, help="simulated shoe: shuffle seed")
                # a development run's (no station configuration; a station's are its file's)
                dev = "development runs only (no station configuration): "
                sub.add_argument("--shoe", metavar="PORT", default="", help=dev + "the shoe's serial port")
                sub.add_argument("--codec", default="da1", choices=st.CODECS, help=dev + "the shoe's wire format")
                sub.add_argument("--baud", type=int, default=st.DEFAULT_BAUD, help=dev + "the shoe's serial speed")
                sub.add_argument("--game", default="", help=dev + "the table's game from now on")
                sub.add_argument("--floor", metavar="URL", default="", help=dev + "the floor to forward to")
                sub.add_argument("--review", metavar="FILE", default="",
                                 help="a review service on this store file (`dealer-assist review --db FILE`): "
                                 "no table, no shoe; the supervisor's PIN, notes and the copy only; needs --socket")
            if name == "terminal":
                from dealer_assist.cli.terminal import configure_admin

                configure_admin(sub)
            if name == "unlock":
                sub.add_argument("name", metavar="NAME", help="the account whose lock is cleared")
                sub.add_argument("--socket", metavar="PATH", help="the service's socket")
            if name == "init":
                sub.add_argument("--force", action="store_true", help="replace an existing file")
                sub.add_argument("--shoe", metavar="PORT", default="", help="the shoe's serial port")
                sub.add_argument("--codec", default="da1", choices=st.CODECS, help="the shoe's wire format")
                sub.add_argument("--table", default="", help="the table's name")
                sub.add_argument("--pit", default="", help="the pit")
                sub.add_argument("--game", default="", help="the table's game (empty: set up at the table)")
                floor = sub.add_mutually_exclusive_group()
                floor.add_argument("--floor", metavar="URL", default="",
                                   help="the floor database, postgresql://user[:password]@host/db; "
                                   f"the password goes to {st.FLOOR_SECRET}, never to the file")
                floor.add_argument("--floor-service", metavar="NAME", default="",
                                   help="or the floor's PostgreSQL service name (pg_service.conf)")
                sub.add_argument("--floor-password-stdin", action="store_true",
                                 help="read the floor's password from standard input (not the command line)")

    def run(self, args: argparse.Namespace) -> int:
        path, _ = st.config_location(args.config)
        if args.action == "init":
            return self._init(args, path)
        if args.action == "serve":
            return self._serve(args)
        if args.action == "unlock":
            return self._unlock(args)
        if args.action == "enrol-code":
            return self._enrol_code()
        if args.action == "acknowledge":
            return self._acknowledge(args)
        if args.action == "terminal":
            from dealer_assist.cli.terminal import admin

            return admin(args)
        try:
            cfg = st.find_config(args.config)
        except StationError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        if args.action == "show":
            print(f"configuration: {path}" + ("" if cfg else " (none: a development run)"))
            print(f"store: {st.store_path(cfg)}")
            print(f"shoe: {cfg.shoe_port if cfg and cfg.shoe_port else 'simulated'}")
            if cfg is not None and cfg.floor_database:
                secret = st.floor_secret_path()
                print(f"floor: {cfg.floor_database} (password: {secret})")
            if cfg is not None:
                print(st.render_config(cfg), end="")
            return 0
        checks = run_checks(cfg, path)
        for check in checks:
            print(check.line(), flush=True)
        failed = [c for c in checks if not c.ok]
        print("station ready" if not failed else f"{len(failed)} part(s) to fix")
        return 1 if failed else 0

    def _serve(self, args: argparse.Namespace) -> int:
        from dealer_assist.service.serve import ServeOptions, serve

        if args.review:  # a store's review: no shoe is attached, the configuration is not read
            given = [f"--{k.replace('_', '-')}" for k in ("shoe", "game", "floor", "sim_cards") if getattr(args, k)]
            given += ["--sim-seed"] if args.sim_seed is not None else []
            if given:
                print(f"error: --review serves a store's review with no table: not with {', '.join(given)}",
                      file=sys.stderr)
                return 2
            if not args.socket:
                print("error: --review FILE needs its own --socket PATH", file=sys.stderr)
                return 2
            return serve(ServeOptions(state_dir=args.state_dir, socket=args.socket, log_dir=args.log_dir,
                                      review_store=args.review))
        try:
            cfg = st.find_config(args.config)
        except StationError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        from dealer_assist.games import GAMES

        dev_given = [f"--{k}" for k in ("shoe", "game", "floor") if getattr(args, k, "")]
        if cfg is not None and dev_given:
            print(f"error: {', '.join(dev_given)}: this is a station (configured by {cfg.source}): its "
                  "settings are its configuration's (dealer-assist station init, docs/station.md)", file=sys.stderr)
            return 2
        if args.game and args.game not in GAMES:
            print(f"error: unknown game {args.game!r}: one of {', '.join(GAMES)}", file=sys.stderr)
            return 2
        cards = None
        if args.sim_cards:
            cards = [parse_card(c) for c in Path(args.sim_cards).read_text(encoding="utf-8").split()]
        dev = None if cfg is not None else StationConfig(
            shoe_port=args.shoe, codec=args.codec, baud=args.baud, game=args.game,
            floor_database=args.floor)
        options = ServeOptions(config=args.config, state_dir=args.state_dir, socket=args.socket,
                               log_dir=args.log_dir, development=dev)
        return serve(options, lambda on_event: attach_shoe(cfg or dev, on_event, cards, args.sim_seed,
                                                           on_sim=options.simulators.append))

    def _unlock(self, args: argparse.Namespace) -> int:
        """Root clears a lock through the running service (it owns the store): op root_unlock."""
        from dealer_assist.service.client import (
            STATION_SOCKET,
            ServiceClient,
            ServiceError,
            dev_socket_path,
        )

        if not is_root():
            print("error: station unlock is root's (a supervisor clears another's lock at the screen): "
                  "sudo dealer-assist station unlock NAME", file=sys.stderr)
            return 2
        try:
            configured = st.find_config(args.config) is not None
        except StationError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        sock = Path(args.socket) if args.socket else (STATION_SOCKET if configured else dev_socket_path())
        try:
            client = ServiceClient(sock, kind="cli", timeout_s=10)
            try:
                answer = client.request("root_unlock", name=args.name)
            finally:
                client.close()
        except ServiceError as exc:
            print(f"error: {exc.message}" + (f" (is the service running? systemctl status {UNIT})"
                                             if exc.code == "internal" else ""), file=sys.stderr)
            return 2
        print(f"{args.name}: wrong PINs cleared" if answer.get("cleared") else
              f"{args.name}: no wrong PINs were counted (nothing to clear); audited")
        return 0

    def _enrol_code(self) -> int:
        if not is_root():
            print("error: the enrolment code is root's to make: sudo dealer-assist station enrol-code",
                  file=sys.stderr)
            return 2
        try:
            code = write_enrol_code(station_layout())
        except OSError as exc:
            print(f"error: {exc.strerror or exc}", file=sys.stderr)
            return 2
        print(f"enrolment code for the first supervisor: {code} (once; the screen asks for it)")
        return 0

    def _acknowledge(self, args: argparse.Namespace) -> int:
        """A technician checked a store the service refused: it opens the table at its next
        start, audited (issue 39 item 5). Root, or the service account itself."""
        import datetime
        import getpass

        from dealer_assist.service.anchor import acknowledge

        try:
            cfg = st.find_config(args.config)
        except StationError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        state = Path(args.state_dir) if args.state_dir else (st.site_data_dir() if cfg else st.user_data_dir())
        try:
            owner = state.stat().st_uid
        except OSError as exc:
            print(f"error: no state directory {state}: {exc.strerror}", file=sys.stderr)
            return 2
        if not is_root() and os.geteuid() != owner:
            print(f"error: only root (sudo) or the service account may acknowledge the store in {state}",
                  file=sys.stderr)
            return 2
        by = args.by or os.environ.get("SUDO_USER") or getpass.getuser()
        at = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
        try:
            problem = acknowledge(state, by, at)
        except OSError as exc:
            print(f"error: cannot write the acknowledgement in {state}: {exc.strerror}", file=sys.stderr)
            return 2
        if not problem:
            print(f"error: the service refused no store in {state}: nothing to acknowledge", file=sys.stderr)
            return 2
        print(f"acknowledged by {by}: {problem}")
        print("the service opens the table at its next start (audited): systemctl restart dealer-assist")
        return 0

    def _init(self, args: argparse.Namespace, path: Path) -> int:
        layout = station_layout()
        system = path.parent == layout.config_dir
        if system and not is_root():
            print(f"error: station init writes {path}, which only root may write (the service reads it; "
                  f"dealers may not change it): run it as root, e.g. sudo dealer-assist station init ...",
                  file=sys.stderr)
            return 2
        if path.exists() and not args.force:
            print(f"error: {path} exists (edit it, or --force to replace it)", file=sys.stderr)
            return 2
        floor_url, password = st.split_floor_password(args.floor) if args.floor else ("", None)
        if args.floor and not floor_url.startswith(("postgresql://", "postgres://")):
            print(f"error: --floor {floor_url!r} is not a postgresql:// URL", file=sys.stderr)
            return 2
        if args.floor_password_stdin:
            if not args.floor:
                print("error: --floor-password-stdin needs --floor URL", file=sys.stderr)
                return 2
            password = sys.stdin.readline().rstrip("\n") or None
        if password is not None and not system:
            print(f"error: a floor password is written only into the station's {layout.floor_secret} "
                  f"(as root, with the station's configuration {layout.config})", file=sys.stderr)
            return 2
        try:
            cfg = replace(StationConfig(), shoe_port=args.shoe, codec=args.codec, table=args.table,
                          pit=args.pit, game=args.game, floor_database=floor_url,
                          floor_service=args.floor_service)
            st.parse_config(tomllib.loads(st.render_config(cfg)))  # the game, before anything is written
            if password is not None:
                write_floor_secret(layout, password)
            st.save_config(cfg, path)
        except StationError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        except OSError as exc:
            print(f"error: {exc.strerror or exc}", file=sys.stderr)
            return 2
        print(f"wrote {path}")
        if password is not None:
            print(f"wrote the floor's password to {layout.floor_secret} ({ACCOUNT}'s alone, 0600)")
        if system:
            try:  # the first supervisor's enrolment at the screen needs it (docs/station.md)
                print(f"enrolment code for the first supervisor: {write_enrol_code(layout)} (once; the screen "
                      "asks for it)")
            except OSError as exc:
                print(f"no enrolment code yet ({exc.strerror or exc}): `dealer-assist station enrol-code` "
                      "prints one later")
            restart = (f"systemctl restart {UNIT}" if systemd_running()
                       else f"restart `dealer-assist station serve` (as {ACCOUNT})")
            print(f"the service reads it at its start: {restart}; then dealer-assist station check")
        return 0


station = StationCommand()  # dealer_assist.cli finds the subcommand by its name
