"""``dealer-assist shoe-sim`` and ``dealer-assist shoe-monitor`` (spec/shoe-protocol.md).

dealer_assist/cli/__init__.py imports this module and uses the ``shoe_sim`` and ``shoe_monitor``
objects: each has ``configure(parser)`` and ``run(args) -> int``. Errors are one line
on standard error and a non-zero exit status, never a traceback.
"""

from __future__ import annotations

import argparse
import io
import json
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType
from typing import NoReturn, TextIO

from dealer_assist.base.cards import Card, CardNotationError, parse_card
from dealer_assist.games import GAMES
from hardware.codecs import CODEC_NAMES
from hardware.driver import DEFAULT_BAUD, ShoeConnectionError, ShoeDriver
from hardware.events import ShoeEvent, event_to_json
from hardware.simulator import MAX_DECKS, SimulatedShoe


class CommandError(Exception):
    """A problem with the command's input, reported as one line."""


def _one_line_errors(parser: argparse.ArgumentParser, prog: str) -> None:
    """argparse errors as a single stderr line (no usage block), exit status 2."""

    def error(message: str) -> NoReturn:
        print(f"error: {message}", file=sys.stderr)  # one style for every subcommand
        raise SystemExit(2)

    parser.error = error  # type: ignore[method-assign]


def _say(text: str, stream: TextIO | None = None) -> None:
    out = stream or sys.stdout
    try:
        print(text, file=out, flush=True)
    except (BrokenPipeError, ValueError):
        pass  # the reader went away


def _stop_on_signals(stop: threading.Event) -> None:
    def handler(signum: int, frame: FrameType | None) -> None:
        stop.set()

    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, handler)


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number of seconds") from None
    if not value > 0 or value != value or value == float("inf"):
        raise argparse.ArgumentTypeError(f"'{text}' must be more than 0 seconds")
    return value


def _int_between(low: int, high: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"'{text}' is not a whole number") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"'{text}' must be from {low} to {high}")
        return value

    return parse


# ------------------------------------------------------------------ shoe-sim


def read_card_file(path: str) -> list[Card]:
    """Cards separated by white space (``AS 10H 7Wa ...``)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CommandError(f"cannot read --cards file {path}: {exc}") from None
    cards: list[Card] = []
    for number, token in enumerate(text.split(), 1):
        try:
            cards.append(parse_card(token))
        except CardNotationError as exc:
            raise CommandError(f"--cards {path}: card {number}: {exc}") from None
    if not cards:
        raise CommandError(f"--cards {path}: the file holds no cards")
    return cards


class ShoeSimCommand:
    """``dealer-assist shoe-sim``: a simulated shoe on a pseudo-terminal."""

    def configure(self, parser: argparse.ArgumentParser) -> None:
        _one_line_errors(parser, "shoe-sim")
        parser.description = (
            "Open a pseudo-terminal, print its path on the first line, then deal one card "
            "every --interval seconds, or obey one command per line on standard input: "
            "'' or card, noread, multi N, noise, badsum, drop N, unplug SECONDS, cut, "
            "fault CODE, shuffle (also: burn, dup, hello, quit)."
        )
        parser.add_argument("--game", default="ace_race", choices=GAMES, help="game whose deck composition the shoe holds")
        parser.add_argument("--decks", type=_int_between(1, MAX_DECKS), default=6, help=f"number of decks, 1 to {MAX_DECKS} (default 6)")
        parser.add_argument("--seed", type=int, default=None, help="shuffle seed (default: random)")
        parser.add_argument("--cards", metavar="FILE", help="fixed card order: cards separated by white space")
        parser.add_argument("--codec", choices=CODEC_NAMES, default="da1", help="wire format (default da1; da1-xor: earlier firmware's 8-bit XOR checksum)")
        parser.add_argument("--interval", type=_positive_float, metavar="SECONDS", help="deal a card every SECONDS")
        parser.add_argument("--link", metavar="PATH", help="a stable link to the pty (as udev's /dev/dealer-shoe)")
        parser.add_argument("--group", metavar="GROUP",
                            help="give the pty to GROUP, mode 0660 (dialout: the station service may open it)")

    def run(self, args: argparse.Namespace) -> int:
        try:
            cards = read_card_file(args.cards) if args.cards else None
            shoe = SimulatedShoe(game=args.game, decks=args.decks, seed=args.seed, cards=cards, codec=args.codec,
                                 link=args.link, group=args.group)
            shoe.open()
        except (CommandError, ValueError) as exc:
            _say(f"error: {exc}", sys.stderr)
            return 2  # bad input: the card file, the options
        except KeyError:
            _say(f"error: --group {args.group}: no such group", sys.stderr)
            return 2
        except OSError as exc:
            _say(f"error: cannot open a pseudo-terminal: {exc}", sys.stderr)
            return 1
        stop = threading.Event()
        _stop_on_signals(stop)
        try:
            _say(shoe.path)
            if args.interval is not None:
                while not stop.wait(args.interval):
                    card = shoe.deal()
                    if card is None:
                        _say("empty")  # the shoe stays empty (and alive) until stopped
                        stop.wait()
                        break
                    _say(f"card {card}")
            else:
                return self._obey(shoe, stop)
        finally:
            shoe.close()
        return 0

    def _obey(self, shoe: SimulatedShoe, stop: threading.Event) -> int:
        lines = _stdin_lines(stop)
        for line in lines:
            try:
                reply = sim_command(shoe, line)
            except CommandError as exc:
                _say(f"dealer-assist shoe-sim: {exc}", sys.stderr)
                continue
            if reply is None:
                break
            _say(reply)
        return 0


def _stdin_lines(stop: threading.Event) -> Iterator[str]:
    """Lines of standard input until end of file or a signal."""
    queue: list[str | None] = []
    ready = threading.Condition()

    def reader() -> None:
        try:
            if isinstance(sys.stdin, io.TextIOWrapper):
                sys.stdin.reconfigure(errors="replace")  # a stray byte is an unknown command
            for line in sys.stdin:
                with ready:
                    queue.append(line)
                    ready.notify()
        except (OSError, ValueError, UnicodeDecodeError):
            pass
        with ready:
            queue.append(None)
            ready.notify()

    threading.Thread(target=reader, name="shoe-sim stdin", daemon=True).start()
    while not stop.is_set():
        with ready:
            ready.wait_for(lambda: bool(queue) or stop.is_set(), timeout=0.2)
            if not queue:
                continue
            line = queue.pop(0)
        if line is None:
            return
        yield line


def sim_command(shoe: SimulatedShoe, line: str) -> str | None:
    """Carry out one shoe-sim command line; returns what to print, None to quit."""
    words = line.split()
    verb = words[0].lower() if words else "card"
    rest = words[1:]

    def number(kind: Callable[[str], float | int], default: float | int | None = None) -> float | int:
        if not rest:
            if default is None:
                raise CommandError(f"'{verb}' needs a number")
            return default
        try:
            value = kind(rest[0])
        except ValueError:
            raise CommandError(f"'{verb}': '{rest[0]}' is not a number") from None
        if not value > 0 or value != value or value == float("inf"):
            raise CommandError(f"'{verb}': the number must be more than 0")
        return value

    def dealt(card: Card | None) -> str:
        return str(card) if card else "empty"

    if verb == "card":
        return f"card {dealt(shoe.deal())}"
    if verb == "noread":
        return f"noread {dealt(shoe.noread())}"
    if verb == "multi":
        count = int(number(int, 2))
        try:
            taken = shoe.multi(count)
        except ValueError as exc:
            raise CommandError(f"'multi': {exc}") from None
        return "multi " + (" ".join(map(str, taken)) if taken else "empty")
    if verb == "noise":
        shoe.noise()
        return "noise"
    if verb == "badsum":
        return f"badsum {dealt(shoe.deal(corrupt=True))}"
    if verb == "drop":
        frames = int(number(int))
        shoe.drop(frames)
        return f"drop {frames}"
    if verb == "unplug":
        seconds = float(number(float))
        shoe.unplug(seconds)
        return f"unplug {seconds:g}"
    if verb == "cut":
        shoe.cut()
        return "cut"
    if verb == "fault":
        code = rest[0].upper() if rest else "JAM"
        text = " ".join(rest[1:]) or {"JAM": "card jam"}.get(code, "fault")
        shoe.fault(code, text)
        return f"fault {code}"
    if verb == "shuffle":
        shoe.shuffle()
        return "shuffle"
    if verb == "burn":
        return f"burn {dealt(shoe.burn())}"
    if verb == "dup":
        shoe.repeat_last()
        return "dup"
    if verb == "hello":
        shoe.power_on()
        return "hello"
    if verb in ("quit", "exit"):
        return None
    raise CommandError(
        f"unknown command '{verb}': use card, noread, multi N, noise, badsum, drop N, "
        "unplug SECONDS, cut, fault CODE, shuffle, burn, dup, hello, quit"
    )


# ------------------------------------------------------------------ shoe-monitor


class ShoeMonitorCommand:
    """``dealer-assist shoe-monitor PORT``: one JSON object per shoe event."""

    def configure(self, parser: argparse.ArgumentParser) -> None:
        _one_line_errors(parser, "shoe-monitor")
        parser.description = "Read a shoe and print one JSON object per event, one per line."
        parser.add_argument("port", metavar="PORT", help="serial port of the shoe, e.g. /dev/dealer-shoe")
        parser.add_argument("--codec", choices=CODEC_NAMES, default="da1", help="wire format (default da1; da1-xor: earlier firmware's 8-bit XOR checksum)")
        parser.add_argument("--baud", type=_int_between(50, 4_000_000), default=DEFAULT_BAUD, help=f"baud rate (default {DEFAULT_BAUD})")

    def run(self, args: argparse.Namespace) -> int:
        lock = threading.Lock()

        def show(event: ShoeEvent) -> None:
            line = json.dumps(event_to_json(event), ensure_ascii=False)
            with lock:
                _say(line)

        stop = threading.Event()
        # before the driver starts: once it reports "connected" a SIGTERM must stop the
        # monitor cleanly (exit 0), not kill it (seen under load in CI: -15)
        _stop_on_signals(stop)
        driver = ShoeDriver(args.port, show, codec=args.codec, baud=args.baud)
        try:
            driver.start(require_open=True)
        except ShoeConnectionError as exc:
            _say(f"error: {exc}", sys.stderr)
            return 1
        try:
            while not stop.wait(0.5):
                pass
        finally:
            driver.stop()
        return 0


shoe_sim = ShoeSimCommand()
shoe_monitor = ShoeMonitorCommand()
