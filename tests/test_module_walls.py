"""Rooms with walls (issues 14 and 26): over ``dealer_assist/``, ``hardware/`` and ``ui/`` no
import cycle, no module uses another module's private (``_underscore``) names, and the
layers of ../shared/DESIGN.md point down only (base <- games <- engine <- store <- ... <- cli;
dealer_assist <- hardware <- ui; ui/common <- ui/review <- ui/dealer).

Both are read from the source with ``ast``, so the check needs no import of the package:

- an import graph over the package's modules (every ``import``/``from ... import``, at any
  depth in the file, ``TYPE_CHECKING`` blocks included: a cycle there is still two modules
  that know each other's insides) must have no cycle;
- a private name may be used only in the module that defines it: ``from m import _x``,
  ``m._x`` and ``obj._x`` are flagged unless ``_x`` is defined in the module using it
  (a function, a class, a class attribute or slot, or an attribute set on ``self``).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("dealer_assist", "hardware", "ui")

# Modules allowed an exception: none (odds.outcomes now imports public names).
NOT_YET_WALLED: frozenset[str] = frozenset()


def module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, ast.Module]:
    return {module_name(p): ast.parse(p.read_text(encoding="utf-8"), str(p))
            for top in PACKAGES for p in sorted((ROOT / top).rglob("*.py"))}


def imports_of(name: str, tree: ast.Module, known: set[str]) -> set[str]:
    out: set[str] = set()
    # Relative imports resolve against the module's package (a package's __init__ is its own).
    is_package = (ROOT / name.replace(".", "/") / "__init__.py").exists()
    package = name if is_package else name.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in known:
                    out.add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[: len(parts) - (node.level - 1)]
                base = ".".join(parts + ([node.module] if node.module else []))
            if base in known:
                out.add(base)
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                if sub in known:
                    out.add(sub)
    out.discard(name)
    return out


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def defined_private_names(tree: ast.Module) -> set[str]:
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and _private(node.name):
            out.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) and _private(node.id):
            out.add(node.id)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and _private(node.target.id):
            out.add(node.target.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) and _private(node.attr) \
                and isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
            out.add(node.attr)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and _private(node.value):
            out.add(node.value)  # __slots__ entries
        elif isinstance(node, ast.arg) and _private(node.arg):
            out.add(node.arg)
    return out


def private_uses(tree: ast.Module) -> list[tuple[int, str]]:
    """(line, name) of every private name this module uses but does not define."""
    own = defined_private_names(tree)
    out: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if _private(alias.name):
                    out.append((node.lineno, alias.name))
        elif isinstance(node, ast.Attribute) and _private(node.attr) and node.attr not in own:
            out.append((node.lineno, node.attr))
    return out


def test_no_import_cycle_in_the_three_packages() -> None:
    trees = modules()
    known = set(trees)
    graph = {name: imports_of(name, tree, known) for name, tree in trees.items()}
    assert find_cycle(graph) is None, f"import cycle: {' -> '.join(find_cycle(graph) or [])}"


def test_no_import_cycle_among_the_tests_and_scripts() -> None:
    """The tests' and scripts' own helpers too (issue 34: the two layout walks imported each
    other, one inside a function): over tests/ and scripts/ with the packages they use."""
    trees = {module_name(p): ast.parse(p.read_text(encoding="utf-8"), str(p))
             for top in (*PACKAGES, "tests", "scripts") for p in sorted((ROOT / top).rglob("*.py"))}
    known = set(trees)
    graph = {name: imports_of(name, tree, known) for name, tree in trees.items()}
    assert find_cycle(graph) is None, f"import cycle: {' -> '.join(find_cycle(graph) or [])}"


def test_no_module_uses_another_modules_private_names() -> None:
    found = {
        name: uses for name, tree in modules().items()
        if name not in NOT_YET_WALLED and (uses := private_uses(tree))
    }
    assert found == {}, found


# Layers, lowest first (../shared/DESIGN.md "Layers"): a module may import its own layer's
# modules and lower layers only. Packages on one line are one layer and must not import
# each other.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("dealer_assist",),  # the package's __init__: its version only, loaded with any module of it
    ("dealer_assist.base",),
    ("dealer_assist.games",),
    ("dealer_assist.engine",),
    ("dealer_assist.store",),
    ("dealer_assist.odds",),
    ("dealer_assist.floor",),
    ("dealer_assist.protect",),  # issue 36: beside the floor; only the CLI imports it
    ("dealer_assist.service", "dealer_assist.bench"),
    ("dealer_assist.cli",),
    ("dealer_assist.__main__",),
    ("hardware",),
    ("ui.common",),
    ("ui.review",),
    ("ui.dealer",),
    ("ui",),
)


def layer_of(module: str) -> tuple[int, str]:
    best: tuple[int, str] | None = None
    for rank, names in enumerate(LAYERS):
        for name in names:
            if module == name or module.startswith(name + "."):
                if best is None or len(name) > len(best[1]):
                    best = (rank, name)
    assert best is not None, f"{module} is in no layer: add its package to LAYERS"
    return best


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    out = []
    for src, targets in sorted(graph.items()):
        src_rank, src_pkg = layer_of(src)
        for dst in sorted(targets):
            dst_rank, dst_pkg = layer_of(dst)
            if dst_rank > src_rank or (dst_rank == src_rank and dst_pkg != src_pkg):
                out.append(f"{src} -> {dst}")
    return out


def test_layers_point_down_only() -> None:
    trees = modules()
    known = set(trees)
    graph = {name: imports_of(name, tree, known) for name, tree in trees.items()}
    assert upward_imports(graph) == []


# The one table host (issue 33): the dealer's screen opens neither the store nor the shoe.
# Its modules never import the store's writer, the shoe's driver or the station's shoe
# attachment; only the local station (the service in the process, for the screen's tests,
# benchmark and screenshots, and the service's process for the benchmark, each starting the
# simulated shoe: hardware/local_station.py) reaches hardware/.
SCREEN_MAY_NOT_IMPORT = ("dealer_assist.store", "hardware.driver", "hardware.station", "hardware.codecs",
                         "hardware.events", "hardware.simulator", "ui.common.worker")
SCREEN_HARDWARE_ALLOWED = {"ui.dealer.local_station": {"hardware.local_station"},
                           "ui.dealer.bench": {"hardware.local_station"},
                           "ui.dealer.app": {"hardware.commands"}}  # --sim-cards' file read before the service starts


def screen_reaches(graph: dict[str, set[str]]) -> list[str]:
    """``src -> dst`` for every module of ui/dealer importing the store, the shoe or a thread
    of its own, or hardware/ beyond what it is allowed."""
    out = []
    for src in sorted(m for m in graph if m.startswith("ui.dealer")):
        for dst in sorted(graph[src]):
            if dst == "dealer_assist.store" and src == "ui.dealer.controller":
                continue  # PinCheck, the service's answer to a PIN (a value, no store)
            if dst.startswith(SCREEN_MAY_NOT_IMPORT) or (
                    dst.startswith("hardware") and dst not in SCREEN_HARDWARE_ALLOWED.get(src, set())):
                out.append(f"{src} -> {dst}")
    return out


def test_the_dealers_screen_opens_neither_the_store_nor_the_shoe() -> None:
    trees = modules()
    known = set(trees)
    graph = {name: imports_of(name, tree, known) for name, tree in trees.items()}
    assert screen_reaches(graph) == []
    # the check checks: the in-process host as it was imported the store, the driver's
    # events and its worker thread
    was = {"ui.dealer.controller": {"dealer_assist.store", "hardware.events", "ui.common.worker"},
           "ui.dealer.app": {"hardware.driver", "hardware.simulator"}}
    assert screen_reaches(was) == ["ui.dealer.app -> hardware.driver", "ui.dealer.app -> hardware.simulator",
                                   "ui.dealer.controller -> hardware.events",
                                   "ui.dealer.controller -> ui.common.worker"]


# No clause number written into ui/ (issue 33 build 2): the screens cite a rule by the game's
# clause table (``GameRules.clause``), since the five documents number the same rule
# differently (a double feed is 5.23 in Lucky 8 and 5.20 in Dueling 8's, whose 5.23 is the
# under-minimum wager). Docstrings and comments may name clauses; the words shown may not.
CLAUSE_NUMBER = re.compile(r"(?<![\w.\-])[1-9]\.\d{1,2}(?:\.\d{1,2})*(?![\w.])")


def clause_literals(trees: dict[str, ast.Module]) -> list[str]:
    """``module:line 'text'`` for every string constant (not a docstring) naming a clause."""
    out = []
    for name, tree in sorted(trees.items()):
        docs = {id(node.body[0].value) for node in ast.walk(tree)
                if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs \
                    and CLAUSE_NUMBER.search(node.value):
                out.append(f"{name}:{node.lineno} {node.value[:60]!r}")
    return out


def test_no_clause_number_is_written_into_the_screens() -> None:
    trees = {name: tree for name, tree in modules().items() if name.startswith("ui")}
    assert clause_literals(trees) == []
    # the check checks: what the dealer's screen said before, and what it may say
    was = ast.parse('"""Docs may cite 5.23."""\nx = "Pit manager\'s choice (5.23)"\n'
                    'y = f"placed {a}, settles as {b} (5.27)"\nz = "LGPL-3.0, 37.50, 0.01, 16.7 ms"\n')
    assert clause_literals({"ui.was": was}) == ["ui.was:2 \"Pit manager's choice (5.23)\"", "ui.was:3 ' (5.27)'"]


# No rule branch by game or bet in ui/ (issue 33 build 2): a screen never asks which game or
# which side bet it shows to decide what to do; it reads the game's rules as data (``rules.has``,
# ``rules.clause``, ``rules.side_bets``, the engine's expectation and options). The key of a
# game or a side bet compared with anything (``==``, ``in``, a ``match`` case) is such a branch;
# a key used as data (a display name's entry, a bench's configuration) is not.
def rule_branches(trees: dict[str, ast.Module], keys: frozenset[str]) -> list[str]:
    """``module:line 'key'`` for every comparison or match case on a game's or bet's key."""
    out = []
    for name, tree in sorted(trees.items()):
        for node in ast.walk(tree):
            if isinstance(node, ast.Compare):
                sides = [node.left, *node.comparators]
            elif isinstance(node, ast.MatchValue):
                sides = [node.value]
            else:
                continue
            for side in sides:
                items = side.elts if isinstance(side, (ast.Tuple, ast.List, ast.Set)) else [side]
                out += [f"{name}:{node.lineno} {item.value!r}" for item in items
                        if isinstance(item, ast.Constant) and item.value in keys]
    return out


def game_and_bet_keys() -> frozenset[str]:
    from dealer_assist.games import GAMES

    return frozenset(GAMES) | {bet for game in GAMES.values() for bet in game.side_bets}


def test_no_screen_branches_on_a_game_or_a_side_bet() -> None:
    keys = game_and_bet_keys()
    assert {"lucky8", "electronic", "tie18", "kings_bounty"} <= keys
    trees = {name: tree for name, tree in modules().items() if name.startswith("ui")}
    assert rule_branches(trees, keys) == []
    # the check checks: branches as a screen could write them, and keys used as data
    was = ast.parse('if rules.game == "electronic":\n    pass\nshow = bet in ("tie18", "plus21")\n'
                    'match game:\n    case "lucky8":\n        pass\n'
                    'NAMES = {"tie18": "Tie on 18"}\nshoe = Shoe(game="lucky8")\n')
    assert rule_branches({"ui.was": was}, keys) == ["ui.was:1 'electronic'", "ui.was:3 'tie18'", "ui.was:3 'plus21'",
                                                    "ui.was:5 'lucky8'"]


# ---------------------------------------------------------------------- the checks check
def test_the_layer_check_finds_an_upward_import() -> None:
    graph = {"dealer_assist.base.cards": {"dealer_assist.engine.events"},
             "dealer_assist.engine.events": {"dealer_assist.base.cards"},
             "ui.common.style": {"ui.dealer.app"},
             "dealer_assist.service.station": {"dealer_assist.bench.simulate"}}
    assert upward_imports(graph) == [
        "dealer_assist.base.cards -> dealer_assist.engine.events",
        "dealer_assist.service.station -> dealer_assist.bench.simulate",
        "ui.common.style -> ui.dealer.app",
    ]


def test_the_cycle_check_finds_a_cycle() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None


def test_the_private_check_finds_private_uses() -> None:
    tree = ast.parse(
        "from m import _hidden\n"
        "class A:\n    __slots__ = ('_mine',)\n    def f(self, rnd):\n"
        "        self._own = 1\n        return rnd._current(), self._mine, rnd._own, _hidden\n"
    )
    assert private_uses(tree) == [(1, "_hidden"), (6, "_current")]
