"""The `dealer-assist` command: one entry point, one subcommand per tool.

Subcommands live in their own modules (``dealer_assist/cli/<name>.py``; the shoe tools in
``hardware/``, the windows in ``ui/``) and are imported only when chosen, so
`dealer-assist settle` never loads Qt or pyserial. Each subcommand module offers
``configure(parser)`` and ``run(args) -> int``.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from typing import Protocol

from dealer_assist import version
from dealer_assist.cli.common import OneLineParser


class _Subcommand(Protocol):
    def configure(self, parser: argparse.ArgumentParser) -> None: ...

    def run(self, args: argparse.Namespace) -> int: ...


# name -> (module, one-line help). The GUI modules live in ui/, the shoe tools in hardware/.
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "settle": ("dealer_assist.cli.settle", "settle a round transcript (JSON) and print the result"),
    "history": ("dealer_assist.cli.history", "list, export and verify recorded rounds"),
    "forward": ("dealer_assist.cli.forward", "copy a table's finished rounds to the floor database"),
    "floor": ("dealer_assist.cli.floor", "set up the floor database (schema, roles)"),
    "bench": ("dealer_assist.cli.bench", "benchmark the rules engine"),
    "odds": ("dealer_assist.cli.odds", "print a game's par sheet: every wager's house edge"),
    "protect": ("dealer_assist.cli.protect", "each player's bet against the count (game protection)"),
    "shoe-sim": ("hardware.commands", "run a simulated card-reading shoe on a pseudo-terminal"),
    "shoe-monitor": ("hardware.commands", "print the events a shoe sends, one JSON object per line"),
    "station": ("hardware.station", "check, write or show the station's configuration (technicians)"),
    "terminal": ("ui.terminal.app", "a player terminal (Electronic Blackjack): pair it, start it"),
    "terminal-sim": ("dealer_assist.cli.terminal_sim", "headless player terminals: wager, decide by a strategy, "
                     "print each round's result as JSON"),
    "review": ("ui.review.app", "open the pit supervisor's review window"),
    "gui": ("ui.dealer.app", "open the dealer's screen (the default without a subcommand)"),
}


def _load(name: str) -> _Subcommand:
    module_name, _ = SUBCOMMANDS[name]
    module = importlib.import_module(module_name)
    # hardware.commands serves two subcommands: it exposes shoe_sim / shoe_monitor objects.
    attr = name.replace("-", "_")
    sub = getattr(module, attr, module)
    return sub  # type: ignore[no-any-return,unused-ignore]


def subcommand_first(argv: Sequence[str]) -> list[str]:
    """Options may come before the subcommand as users type them (``--db F history list``):
    move the first subcommand name to the front. Without one, the dealer's screen (``gui``)."""
    args = list(argv)
    if not args or args[0] in SUBCOMMANDS or args[0] in ("--version", "--help", "-h"):
        return args
    for i, arg in enumerate(args):
        if arg in SUBCOMMANDS:
            return [arg, *args[:i], *args[i + 1:]]
    if args[0].startswith("-"):
        # No subcommand: the dealer's screen, with any GUI options (--shoe, --db, ...).
        return ["gui", *args]
    return args


class _Version(argparse.Action):
    """``--version``: the package metadata is read only when asked (not on every start)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: object, option_string: str | None = None) -> None:
        print(f"dealer-assist {version()}")
        parser.exit()


def build_parser(argv: Sequence[str]) -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="dealer-assist",
        description="Dealer Assist for live blackjack tables.",
    )
    parser.add_argument("--version", action=_Version, nargs=0, help="show the version and exit")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=OneLineParser)
    chosen = argv[0] if argv and argv[0] in SUBCOMMANDS else None
    for name, (_, help_text) in SUBCOMMANDS.items():
        sub = subparsers.add_parser(name, help=help_text)
        if name == chosen:
            _load(name).configure(sub)
    return parser


def subcommand_parser(name: str) -> argparse.ArgumentParser:
    """The parser of one subcommand, configured (tests/test_docs.py checks the README's
    commands table against it)."""
    parser = OneLineParser(prog=f"dealer-assist {name}")
    _load(name).configure(parser)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the process exit status."""
    args_list = subcommand_first(sys.argv[1:] if argv is None else argv)
    if not args_list:
        args_list = ["gui"]
    parser = build_parser(args_list)
    args = parser.parse_args(args_list)
    if args.command is None:
        parser.print_help()
        return 2
    try:
        return _load(args.command).run(args)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader of our output went away (`| head`): stop quietly, as a filter should.
        import os

        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
