"""``dealer-assist terminal``: a player terminal (issue 38; Electronic Blackjack 1.1.10).

``--connect HOST:PORT --pair CODE`` pairs it once (the code from ``dealer-assist station
terminal add SEAT``); ``--connect HOST:PORT`` then starts it: the terminal's window, full screen (ui/terminal/),
when a display is available; ``--text`` prints its seat's view of the table (op ``seat``)
as one JSON line instead, and again at each change (``--once``: the first only).

Also the technician's ``station terminal add|list|remove`` (:func:`admin`, called by
hardware/station.py): root, or the service account that owns the state directory.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path

import dealer_assist.service.station as st
from dealer_assist.cli.common import no_display
from dealer_assist.service.terminal_ca import CODE_MINUTES, PairingError, TerminalCA, check_seat
from dealer_assist.service.terminal_client import (
    TerminalConnection,
    TerminalError,
    default_terminal_dir,
    pair,
    parse_address,
)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.description = "A player terminal of Electronic Blackjack: pair it once, then start it."
    parser.add_argument("--connect", metavar="HOST:PORT", required=True,
                        help="the station's terminal port ([terminals] port of its configuration)")
    parser.add_argument("--pair", metavar="CODE", help="pair this terminal with the one-time code "
                        "`dealer-assist station terminal add SEAT` printed")
    parser.add_argument("--dir", metavar="DIR", help=f"this terminal's key and certificate (default "
                        f"{default_terminal_dir()})")
    parser.add_argument("--text", action="store_true", help="no window: print the seat's view as JSON lines")
    parser.add_argument("--once", action="store_true", help="print the seat's view once and exit (implies --text)")
    parser.add_argument("--exit-after-show", action="store_true", help=argparse.SUPPRESS)


Window = Callable[[TerminalConnection, Callable[[], TerminalConnection], bool], int]


def run(args: argparse.Namespace, window: Window | None = None) -> int:
    """Pair, or start: ``window`` (ui/terminal/app.py, which calls this: the CLI layer opens
    no window itself) unless ``--text``/``--once``; without a window, the printed view."""
    directory = Path(args.dir) if args.dir else default_terminal_dir()
    try:
        host, port = parse_address(args.connect)
        if args.pair:
            seat = pair(host, port, args.pair, directory)
            print(f"paired to seat {seat}: certificate stored in {directory}; start it with "
                  f"dealer-assist terminal --connect {args.connect}")
            return 0
        text = window is None or args.text or args.once
        reason = None if text else no_display()
        if reason:
            raise TerminalError("bad_request", f"{reason}; or --text to print the seat's view")
        conn = TerminalConnection(host, port, directory)
        if window is not None and not text:
            return window(conn, lambda: TerminalConnection(host, port, directory), bool(args.exit_after_show))
        try:
            print(json.dumps(conn.request("seat")), flush=True)
            while not args.once:
                note = conn.wait_note(60.0)
                if note is None:
                    continue
                if "error" in note:
                    raise TerminalError(str(note["error"].get("code")), str(note["error"].get("message")))
                print(json.dumps(conn.request("seat")), flush=True)
        finally:
            conn.close()
    except TerminalError as exc:
        print(f"error: {exc.message}", file=sys.stderr)
        return 2
    except PairingError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"error: {exc.strerror or exc}", file=sys.stderr)
        return 2
    return 0


def configure_admin(parser: argparse.ArgumentParser) -> None:
    """``station terminal ACTION``'s options (hardware/station.py)."""
    actions = parser.add_subparsers(dest="terminal_action", metavar="ACTION", required=True,
                                    parser_class=type(parser))
    for name, text in (("add", f"print a one-time pairing code for SEAT's terminal ({CODE_MINUTES} min)"),
                       ("list", "list the paired terminals"),
                       ("remove", "refuse SEAT's terminal from now on (its certificate and codes)")):
        sub = actions.add_parser(name, help=text)
        if name != "list":
            sub.add_argument("seat", metavar="SEAT", help="the seat: the terminal's name in the table's set-up (t1)")
        sub.add_argument("--state-dir", metavar="DIR", help="the service's state directory "
                         "(default /var/lib/dealer-assist; development: the user's data directory)")


def admin(args: argparse.Namespace) -> int:
    """``station terminal add|list|remove``: root or the owner of the state directory."""
    try:
        cfg = st.find_config(args.config)
    except st.StationError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    state = Path(args.state_dir) if args.state_dir else (st.site_data_dir() if cfg else st.user_data_dir())
    try:
        owner = state.stat()
    except OSError as exc:
        print(f"error: no state directory {state}: {exc.strerror} (start the service once, or --state-dir)",
              file=sys.stderr)
        return 2
    if os.geteuid() not in (0, owner.st_uid):
        print(f"error: only root (sudo) or the service account may pair terminals in {state}", file=sys.stderr)
        return 2
    ca = TerminalCA(state, (owner.st_uid, owner.st_gid))
    try:
        if args.terminal_action == "list":
            paired = ca.paired()
            for p in paired:
                print(f"{p.seat}\tpaired {p.paired}\tcertificate sha256 {p.fingerprint[:16]}…")
            if not paired:
                print("no terminals paired")
            return 0
        seat = check_seat(args.seat)
        if args.terminal_action == "remove":
            if not ca.remove(seat):
                print(f"error: no terminal is paired to seat {seat} (its pairing codes, if any, are void)",
                      file=sys.stderr)
                return 2
            print(f"seat {seat}: its terminal is refused from now on (audited in the service's log at its "
                  "next connection)")
            return 0
        if ca.ensure(cfg.table if cfg else ""):
            print(f"made the station CA in {ca.dir}")
        code, expires = ca.add_code(seat)
    except PairingError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"error: {exc.strerror or exc}", file=sys.stderr)
        return 2
    port = cfg.terminals_port if cfg is not None and cfg.terminals_port is not None else None
    at = f"HOST:{port}" if port else "HOST:PORT"
    print(f"pairing code for seat {seat}: {code} (once; expires {expires.strftime('%H:%M:%S')} UTC)")
    print(f"at the terminal: dealer-assist terminal --connect {at} --pair {code}")
    if port is None:
        print("note: [terminals] port is not set in the station's configuration: the service listens for "
              "no terminals")
    return 0
