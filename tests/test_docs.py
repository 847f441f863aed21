"""Docs that cannot drift (issue 37, Build 4): the README's commands table against the
command line's argparse tree (dealer_assist/cli), both ways; every `dealer-assist ...`
written as code in README.md and docs/*.md against it; the README's layout tables against
the package tree; docs/station.md's ops table against the station service's ops, both
ways. Each failure says what to add or change, and where (a new subcommand: a row in
README.md's commands table; a new op: a row in docs/station.md's ops table)."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import dealer_assist.service.table  # noqa: F401  (its handlers fill the op registry)
from dealer_assist.cli import SUBCOMMANDS, build_parser, subcommand_parser
from dealer_assist.service.ops import REGISTRY

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
STATION_MD = ROOT / "docs" / "station.md"
CODE = re.compile(r"`([^`]+)`")
OPTION = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*)")


def table_after(text: str, heading: str, header: str) -> list[list[str]]:
    """The rows (cells, ``\\|`` kept as ``|``) of the first table with ``header`` after ``heading``."""
    at = text.index(heading)
    lines = text[at:].splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip().startswith(header))
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        cells = re.split(r"(?<!\\)\|", line.strip())[1:-1]
        rows.append([c.strip().replace("\\|", "|") for c in cells])
    return rows


def options_of(parser: argparse.ArgumentParser) -> set[str]:
    """Every --option of a parser and of its actions' parsers (e.g. `station serve --socket`)."""
    found: set[str] = set()
    for action in parser._actions:
        found.update(s for s in action.option_strings if s.startswith("--"))
        if isinstance(action.choices, dict):
            for sub in action.choices.values():
                if isinstance(sub, argparse.ArgumentParser):
                    found |= options_of(sub)
    return found


def actions_of(parser: argparse.ArgumentParser) -> set[str]:
    """A subcommand's own actions (`station check|init|show|serve`), if it has any."""
    return {name for action in parser._actions if isinstance(action.choices, dict)
            for name, sub in action.choices.items() if isinstance(sub, argparse.ArgumentParser)}


def commands_table() -> list[tuple[str | None, list[str], str]]:
    """(subcommand or None for `dealer-assist` alone, the words after it, the whole row) for
    each `dealer-assist ...` in the first cell of the README's commands table."""
    found = []
    for row in table_after(README.read_text(encoding="utf-8"), "## Commands", "| command |"):
        spans = [words for words in (s.split() for s in CODE.findall(row[0])) if words[0] == "dealer-assist"]
        assert spans, (f"README.md, Commands: write the first cell of {row[0]!r} as "
                       "`dealer-assist SUBCOMMAND ...` (each command in its own backquotes)")
        for words in spans:
            words = words[1:]
            name = words[0] if words and not words[0].startswith(("-", "[")) else None
            found.append((name, words, " | ".join(row)))
    return found


def test_every_command_in_the_readme_exists_with_its_options_and_actions() -> None:
    top = options_of(build_parser([]))
    for name, words, row in commands_table():
        assert name is None or name in SUBCOMMANDS, (
            f"README.md, Commands: `dealer-assist {name}` is not a subcommand; dealer_assist/cli/__init__.py "
            f"SUBCOMMANDS has: {', '.join(SUBCOMMANDS)}")
        parser = subcommand_parser(name or "gui")  # `dealer-assist` alone is the dealer's screen
        known = options_of(parser) | top
        for option in OPTION.findall(row):
            assert option in known, (
                f"README.md, Commands, the row of `{' '.join(['dealer-assist', *words])}`: {option} is not an option of "
                f"`dealer-assist {name or 'gui'}` (it has: {', '.join(sorted(known))}); remove it, or add it "
                f"to the subcommand's configure() ({SUBCOMMANDS[name or 'gui'][0]})")
        actions = actions_of(parser)
        if name is not None and actions:
            unknown = sorted(named_actions(words) - actions)
            assert not unknown, (f"README.md, Commands: `dealer-assist {name} {'|'.join(unknown)}` does not exist "
                                 f"(`dealer-assist {name}` has: {', '.join(sorted(actions))})")


def named_actions(words: list[str]) -> set[str]:
    """The actions a row names after its subcommand: `history [--db F] list|export ID|verify`."""
    return {w for word in words[1:] for w in word.strip("[]").split("|") if re.fullmatch(r"[a-z][a-z-]*", w)}


def test_every_subcommand_and_action_in_the_code_is_in_the_readme() -> None:
    rows = commands_table()
    listed = {name for name, _, _ in rows if name is not None}
    for name in SUBCOMMANDS:
        assert name in listed, (
            f"README.md, Commands: add a row `| `dealer-assist {name} ...` | "
            f"{SUBCOMMANDS[name][1]} |` (the subcommand {name!r} of dealer_assist/cli/__init__.py SUBCOMMANDS)")
        actions = actions_of(subcommand_parser(name))
        named = {a for n, words, _ in rows if n == name for a in named_actions(words)}
        bar = "\\|"  # a | inside a table cell
        missing = sorted(actions - named)
        assert not missing, (
            f"README.md, Commands: add {', '.join(missing)} to the row of `dealer-assist {name}` "
            f"(`dealer-assist {name} {bar.join([*sorted(named & actions), *missing])}`), "
            f"or a row `| `dealer-assist {name} {missing[0]}` | what it does |`")


def layout_rows(heading: str) -> list[str]:
    """The paths (backquoted) in the first column of the first table after ``heading``."""
    text = README.read_text(encoding="utf-8")
    return [span for row in table_after(text, heading, "|") for span in CODE.findall(row[0])]


def test_every_path_in_the_readmes_layout_exists() -> None:
    for span in layout_rows("## Layout"):
        assert (ROOT / span).exists(), f"README.md, Layout: {span} does not exist in the checkout; remove its row"
    for span in layout_rows("### The rules engine (`dealer_assist/`)"):
        path = ROOT / "dealer_assist" / span
        assert path.exists(), (f"README.md, Layout, The rules engine: dealer_assist/{span} does not exist; "
                               "remove or rename its row")


def test_every_package_of_dealer_assist_is_in_the_readmes_layout() -> None:
    listed = {span.rstrip("/") for span in layout_rows("### The rules engine (`dealer_assist/`)")}
    for package in sorted(p.parent.name for p in (ROOT / "dealer_assist").glob("*/__init__.py")):
        assert package in listed, (
            f"README.md, Layout, The rules engine: add a row `| `{package}/` | what it holds |` "
            f"(the package dealer_assist/{package}/)")
    for top in ("dealer_assist", "hardware", "ui", "tests", "packaging", "docs", "scripts", "requirements"):
        assert f"{top}/" in layout_rows("## Layout"), f"README.md, Layout: add a row `| `{top}/` | what |`"


def station_ops() -> set[str]:
    rows = table_after(STATION_MD.read_text(encoding="utf-8"), "### Wire protocol", "| op |")
    # `set_slip` (`wagers`): the op's args in brackets are not ops
    return {name for row in rows for name in CODE.findall(re.sub(r"\([^)]*\)", "", row[0]))}


def test_the_ops_table_names_every_op_of_the_service_and_no_other() -> None:
    documented = station_ops()
    ops = set(REGISTRY)  # the registry is the only list (dealer_assist/service/ops.py)
    missing = sorted(ops - documented)
    assert not missing, ("docs/station.md, Wire protocol, the ops table: add a row for each of "
                         f"{', '.join(missing)}: python3 scripts/ops_table.py writes it from the registry")
    unknown = sorted(documented - ops)
    assert not unknown, (f"docs/station.md, Wire protocol, the ops table: {', '.join(unknown)} are not ops of the "
                         "service (dealer_assist/service/ops.py): python3 scripts/ops_table.py writes the table")


def test_the_readme_opens_with_the_two_commands() -> None:
    text = README.read_text(encoding="utf-8")
    block = text.split("```")[1].strip().splitlines()
    assert [line.split("#")[0].strip() for line in block] == [
        "python3 scripts/dev.py app", "python3 scripts/dev.py test"]


def commands_in_docs() -> list[tuple[str, str]]:
    """(file, command) for every `dealer-assist ...` written as code in README.md and docs/*.md:
    a backquoted span, or a line of a fenced block (after `sudo` and a shell prompt)."""
    found = []
    for md in [README, *sorted((ROOT / "docs").glob("*.md"))]:
        text = md.read_text(encoding="utf-8")
        blocks = re.findall(r"^```[^\n]*\n(.*?)^```", text, re.M | re.S)
        lines = [line for block in blocks for line in block.splitlines()]
        prose = re.sub(r"^```[^\n]*\n.*?^```", "", text, flags=re.M | re.S)
        for command in [*CODE.findall(prose), *lines]:
            command = re.sub(r"^\s*(\$ )?(sudo )?", "", command).split("#")[0].rstrip()
            if re.match(r"dealer-assist( \S|$)", command):  # (not a file listing: `dealer-assist   the program`)
                found.append((md.relative_to(ROOT).as_posix(), command))
    return found


def test_every_command_and_option_written_in_the_docs_exists() -> None:
    """Every `dealer-assist SUBCOMMAND --option` in the docs names a real subcommand and options it has."""
    top = options_of(build_parser([]))
    wrong = []
    for where, command in commands_in_docs():
        words = re.split(r"\s+", command)[1:]
        name = words[0] if words and not words[0].startswith(("-", "[")) else "gui"
        if name not in SUBCOMMANDS:
            wrong.append(f"{where}: `{command}`: {name} is not a subcommand ({', '.join(SUBCOMMANDS)})")
            continue
        known = options_of(subcommand_parser(name)) | top
        wrong += [f"{where}: `{command}`: {option} is not an option of `dealer-assist {name}`"
                  for option in OPTION.findall(command) if option not in known]
    assert not wrong, "options or subcommands in the docs that the code does not have (fix the doc, or " \
        "add them to the subcommand's configure()):\n" + "\n".join(wrong)
