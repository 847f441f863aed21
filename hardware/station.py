"""``dealer-assist station check|init|show``: the technician's commands (docs/station.md).

- ``check``: each part of the station, OK or what to do: the configuration, the shoe's
  port (exists, this account may open it: the ``dialout`` group), the shoe answers
  ``ID?`` (spec/shoe-protocol.md), the store (writable, hash chains verify), the disk's
  room, the floor database (if configured). Exit 0 when every part is OK, 1 when one
  is not, 2 for bad input (an unreadable configuration file).
- ``init``: write a commented configuration file (refuses to overwrite without --force).
- ``show``: the configuration file the app would use, and what it resolves to.

Lives in hardware/ because the shoe check opens the serial port (pyserial); the parts
that need no device are in dealer_assist/service/station.py.
"""

from __future__ import annotations

import argparse
import sys
import threading
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import dealer_assist.service.station as st
from dealer_assist.base.cards import Card, parse_card
from dealer_assist.service.station import Check, StationConfig, StationError
from hardware.driver import ShoeConnectionError, ShoeDriver
from hardware.events import Connected, Hello, ShoeEvent, ShoeFault, event_to_json
from hardware.simulator import SimulatedShoe

ANSWER_S = 3.0  # a da1 shoe answers ID? within a few hundred ms; a beetek shoe may be silent


def probe_shoe(port: str, codec: str, baud: int, wait_s: float = ANSWER_S) -> Check:
    """Open ``port``, ask ``ID?`` and wait for the shoe's HELLO (da1); for a codec
    without ``ID?`` (beetek) any message from the shoe counts."""
    answered = threading.Event()
    seen: list[ShoeEvent] = []

    def on_event(event: ShoeEvent) -> None:
        seen.append(event)
        if isinstance(event, Hello) or (not isinstance(event, Connected) and driver.codec.id_request() is None):
            answered.set()

    driver = ShoeDriver(port, on_event, codec=codec, baud=baud, reopen_s=wait_s * 2)
    try:
        driver.start(require_open=True)
    except ShoeConnectionError as exc:
        return Check("shoe", False, f"cannot open {port}: {exc} (if the dealer's screen is running "
                     "it holds the port: close it, then check again)")
    try:
        driver.request_id()
        answered.wait(wait_s)
    finally:
        driver.stop()
    hello = next((e for e in seen if isinstance(e, Hello)), None)
    faults = [e for e in seen if isinstance(e, ShoeFault)]
    if hello is not None:
        text = f"answers ID?: {hello.model}, firmware {hello.firmware}, serial {hello.serial_number}"
        if faults:
            return Check("shoe", False, f"{text}; reports fault {faults[0].code} {faults[0].text}: "
                         "clear it at the shoe (lid, jam) and check again")
        return Check("shoe", True, text)
    if answered.is_set():
        return Check("shoe", True, f"{codec} shoe is sending (this wire format has no ID?)")
    if driver.codec.id_request() is None:
        return Check("shoe", False, f"no message from the shoe in {wait_s:.0f} s: a {codec} shoe may be "
                     "silent while idle; deal a card and check again, or check --codec and --baud")
    return Check("shoe", False, f"no answer to ID? in {wait_s:.0f} s: is the shoe switched on? "
                 f"are shoe.codec ({codec}) and shoe.baud ({baud}) the shoe's?")


def run_checks(cfg: StationConfig | None, path: Path, *, wait_s: float = ANSWER_S) -> list[Check]:
    checks = [st.check_config(cfg, path)]
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
    checks.append(st.check_floor(cfg.floor_service if cfg else ""))
    return checks


def attach_shoe(cfg: StationConfig | None, on_event: Callable[[dict[str, Any]], None],
                sim_cards: list[Card] | None = None, sim_seed: int | None = None) -> Callable[[], None]:
    """Start the station's shoe (its port, or a simulated shoe on a pty with no port) and
    hand each event to ``on_event`` as JSON; returns the function that stops it."""
    sim: SimulatedShoe | None = None
    if cfg is None or cfg.simulated:
        game = cfg.game if cfg is not None and cfg.game else "lucky8"
        decks = cfg.decks if cfg is not None and cfg.decks else 6
        sim = SimulatedShoe(game=game, decks=decks, seed=sim_seed, cards=sim_cards,
                            penetration=None if sim_cards else 0.75)
        port, codec, baud = sim.open(), "da1", st.DEFAULT_BAUD
    else:
        port, codec, baud = cfg.shoe_port, cfg.codec, cfg.baud
    driver = ShoeDriver(port, lambda event: on_event(event_to_json(event)), codec=codec, baud=baud)
    driver.start()

    def stop() -> None:
        driver.stop()
        if sim is not None:
            sim.close()

    return stop


class StationCommand:
    def configure(self, parser: argparse.ArgumentParser) -> None:
        parser.description = "Check, write or show the station's configuration (docs/station.md)."
        config_help = f"the configuration file (default ${st.CONFIG_ENV}, else {st.default_config_path()})"
        parser.add_argument("--config", metavar="FILE", help=config_help)
        actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True,
                                        parser_class=type(parser))
        for name, text in (("check", "check each part of the station: OK, or what to do"),
                           ("init", "write a commented configuration file"),
                           ("show", "print the configuration in use"),
                           ("serve", "run the station service (owns the shoe, the store, the PINs)")):
            sub = actions.add_parser(name, help=text)
            # before or after the action; SUPPRESS keeps a value given before it
            sub.add_argument("--config", metavar="FILE", default=argparse.SUPPRESS, help=config_help)
            if name == "serve":
                sub.add_argument("--state-dir", metavar="DIR", help="the store, its key and the anchor "
                                 "(default /var/lib/dealer-assist; development: the user's data directory)")
                sub.add_argument("--socket", metavar="PATH", help="the socket (default /run/dealer-assist/"
                                 "station.sock; development: $XDG_RUNTIME_DIR or /tmp/dealer-assist-$UID)")
                sub.add_argument("--log-dir", metavar="DIR", help="the service's log directory")
                sub.add_argument("--sim-cards", metavar="FILE", help="simulated shoe: fixed card order")
                sub.add_argument("--sim-seed", type=int, help="simulated shoe: shuffle seed")
            if name == "init":
                sub.add_argument("--force", action="store_true", help="replace an existing file")
                sub.add_argument("--shoe", metavar="PORT", default="", help="the shoe's serial port")
                sub.add_argument("--table", default="", help="the table's name")
                sub.add_argument("--pit", default="", help="the pit")

    def run(self, args: argparse.Namespace) -> int:
        path, _ = st.config_location(args.config)
        if args.action == "init":
            return self._init(args, path)
        if args.action == "serve":
            return self._serve(args)
        try:
            cfg = st.find_config(args.config)
        except StationError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        if args.action == "show":
            print(f"configuration: {path}" + ("" if cfg else " (none: a development run)"))
            print(f"store: {st.store_path(cfg)}")
            print(f"shoe: {cfg.shoe_port if cfg and cfg.shoe_port else 'simulated'}")
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

        try:
            cfg = st.find_config(args.config)
        except StationError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        cards = None
        if args.sim_cards:
            cards = [parse_card(c) for c in Path(args.sim_cards).read_text(encoding="utf-8").split()]
        options = ServeOptions(config=args.config, state_dir=args.state_dir, socket=args.socket,
                               log_dir=args.log_dir)
        return serve(options, lambda on_event: attach_shoe(cfg, on_event, cards, args.sim_seed))

    def _init(self, args: argparse.Namespace, path: Path) -> int:
        if path.exists() and not args.force:
            print(f"error: {path} exists (edit it, or --force to replace it)", file=sys.stderr)
            return 2
        cfg = replace(StationConfig(), shoe_port=args.shoe, table=args.table, pit=args.pit)
        try:
            st.save_config(cfg, path)
        except StationError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        print(f"wrote {path}")
        return 0


station = StationCommand()  # dealer_assist.cli finds the subcommand by its name
