"""Every audit kind written is in the registry (issue 34 item 7: the review's *Station events*
showed 3 of 12 entries because its list of kinds did not match what the service writes).

The writers are read, not run: each call of ``add_audit``/``insert_audit`` (and of the
functions that hand a ``kind`` parameter on to one: ``authorise``, ``audit_user``,
``_approval`` ...) in the store, the station service and the dealer's screen, its kind worked
out from a literal, a constant (of the module or imported), a conditional, a ``{...}.get``
table, or the calls of the function whose parameter it is. A kind that cannot be worked out
that way must be named in DYNAMIC below with where its values come from; a new one fails."""

from __future__ import annotations

import ast
import importlib
from collections.abc import Iterator
from pathlib import Path

from dealer_assist.service.ops import SUPERVISED_EVENTS
from dealer_assist.service.table import APPROVAL_KINDS
from dealer_assist.store.audit_kinds import AUDIT_KINDS, GROUPS, routine_kinds, significant_kinds

ROOT = Path(__file__).resolve().parents[2]
WRITERS = ("dealer_assist/service", "dealer_assist/store", "ui/dealer")
WRITE_CALLS = {"add_audit": 0, "insert_audit": 1}  # the kind's position (or keyword ``kind``)

# Kinds read from a request or a table, with where they are bounded (checked to exist below).
DYNAMIC: dict[tuple[str, str], set[str]] = {
    # op ``approve``: refused unless the kind is one of APPROVAL_KINDS (the check before it)
    ("dealer_assist/service/table.py", "_op_approve"): set(APPROVAL_KINDS),
    # a supervised input: its approval's kind from ops.SUPERVISED_EVENTS
    ("dealer_assist/service/table.py", "_supervised"): {approval for _event, approval in SUPERVISED_EVENTS.values()},
}


class Site:
    def __init__(self, path: str, function: str, expr: ast.expr, tree: ast.Module, func: ast.AST | None) -> None:
        self.path, self.function, self.expr, self.tree, self.func = path, function, expr, tree, func


def modules() -> Iterator[tuple[str, ast.Module]]:
    for base in WRITERS:
        for file in sorted((ROOT / base).rglob("*.py")):
            yield str(file.relative_to(ROOT)), ast.parse(file.read_text(encoding="utf-8"))


def call_name(node: ast.Call) -> str | None:
    f = node.func
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else None


def argument(node: ast.Call, position: int, keyword: str) -> ast.expr | None:
    for kw in node.keywords:
        if kw.arg == keyword:
            return kw.value
    if position < len(node.args) and not any(isinstance(a, ast.Starred) for a in node.args[:position + 1]):
        return node.args[position]
    return None


def enclosing(tree: ast.Module) -> dict[int, ast.FunctionDef | ast.AsyncFunctionDef]:
    """Each node (by id) to the innermost function around it (a function: the one around that)."""
    out: dict[int, ast.FunctionDef | ast.AsyncFunctionDef] = {}

    def visit(node: ast.AST, func: ast.FunctionDef | ast.AsyncFunctionDef | None) -> None:
        for child in ast.iter_child_nodes(node):
            if func is not None:
                out[id(child)] = func  # a function's own node: the function around it
            visit(child, child if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) else func)

    visit(tree, None)
    return out


def module_constant(tree: ast.Module, path: str, name: str) -> set[str] | None:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
                return {node.value.value}
        if isinstance(node, ast.ImportFrom) and node.module and any((a.asname or a.name) == name for a in node.names):
            original = next(a.name for a in node.names if (a.asname or a.name) == name)
            value = getattr(importlib.import_module(node.module), original, None)
            if isinstance(value, str):
                return {value}
    return None


class Scan:
    def __init__(self) -> None:
        self.trees = dict(modules())
        self.parents = {path: enclosing(tree) for path, tree in self.trees.items()}
        self.kinds: dict[str, set[str]] = {}  # kind -> where written
        self.unresolved: list[str] = []
        self.dynamic_used: set[tuple[str, str]] = set()
        self.followed: set[tuple[str, int, str]] = set()
        self.by_name: dict[str, list[tuple[str, ast.Call]]] = {}
        for path, tree in self.trees.items():
            for node in ast.walk(tree):
                if isinstance(node, ast.Call) and (name := call_name(node)) is not None:
                    self.by_name.setdefault(name, []).append((path, node))

    def write(self, kinds: set[str], where: str) -> None:
        for kind in kinds:
            self.kinds.setdefault(kind, set()).add(where)

    def calls(self, name: str) -> list[tuple[str, ast.Call]]:
        return self.by_name.get(name, [])

    def resolve(self, path: str, expr: ast.expr | None, at: ast.AST) -> None:
        where = f"{path}:{getattr(at, 'lineno', '?')}"
        func = self.parents[path].get(id(at))
        if expr is None:
            return  # the parameter's default (resolved with the function), or another function of that name
        if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
            self.write({expr.value}, where)
        elif isinstance(expr, ast.IfExp):
            self.resolve(path, expr.body, at)
            self.resolve(path, expr.orelse, at)
        elif isinstance(expr, ast.Name):
            constant = module_constant(self.trees[path], path, expr.id)
            if constant is not None:
                self.write(constant, where)
                return
            # the function around the call, then those around it (a closure's free name)
            while func is not None:
                if (path, func.name) in DYNAMIC:
                    self.dynamic_used.add((path, func.name))
                    self.write(DYNAMIC[(path, func.name)], where)
                    return
                if self.local(path, func, expr.id, at) or self.parameter(path, func, expr.id):
                    return
                func = self.parents[path].get(id(func))
            self.unresolved.append(f"{where}: kind {expr.id}")
        else:
            self.unresolved.append(f"{where}: kind {ast.unparse(expr)}")

    def local(self, path: str, func: ast.FunctionDef | ast.AsyncFunctionDef, name: str, at: ast.AST) -> bool:
        """``name = {...}.get(key, default)`` in the function: every value and the default."""
        for node in ast.walk(func):
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
                value = node.value
                if (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
                        and value.func.attr == "get" and isinstance(value.func.value, ast.Dict)):
                    for option in [*value.func.value.values, *value.args[1:]]:
                        self.resolve(path, option, at)
                    return True
        return False

    def parameter(self, path: str, func: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> bool:
        """A parameter: its default, and what every call of the function passes for it."""
        args = [*func.args.posonlyargs, *func.args.args]
        names = [a.arg for a in args]
        kwonly = [a.arg for a in func.args.kwonlyargs]
        if name not in names and name not in kwonly:
            return False
        key = (path, func.lineno, name)
        if key in self.followed:
            return True
        self.followed.add(key)
        if name in names:
            index = names.index(name)
            default_at = index - (len(names) - len(func.args.defaults))
            if default_at >= 0:
                self.resolve(path, func.args.defaults[default_at], func)
            position = index - (1 if names and names[0] in ("self", "cls") else 0)
        else:
            position = 10**6
            default = func.args.kw_defaults[kwonly.index(name)]
            if default is not None:
                self.resolve(path, default, func)
        found = False
        for call_path, call in self.calls(func.name):
            found = True
            self.resolve(call_path, argument(call, position, name), call)
        if not found:
            self.unresolved.append(f"{path}:{func.lineno}: {func.name}({name}) is never called")
        return True

    def run(self) -> Scan:
        for name, position in WRITE_CALLS.items():
            for path, call in self.calls(name):
                self.resolve(path, argument(call, position, "kind"), call)
        return self


def test_every_kind_written_is_in_the_registry() -> None:
    scan = Scan().run()
    assert scan.unresolved == [], "kinds not worked out (name them in DYNAMIC):\n" + "\n".join(scan.unresolved)
    missing = {kind: sorted(where) for kind, where in scan.kinds.items() if kind not in AUDIT_KINDS}
    assert missing == {}, f"audit kinds written but not in dealer_assist/store/audit_kinds.py: {missing}"
    # the scan found the writers it should (a scan that found nothing would pass the above)
    for kind, writer in (("shoe_connected", "dealer_assist/service/table.py"),
                         ("login", "dealer_assist/store/core.py"), ("shift_end", "dealer_assist/store/core.py"),
                         ("table_setup_changed", "dealer_assist/service/table.py"),
                         ("user_created", "dealer_assist/store/users.py"), ("pin_reset", "dealer_assist/store/core.py"),
                         ("login_failed", "dealer_assist/store/core.py"), ("accounts", "dealer_assist/service/table.py"),
                         ("station_config_changed", "dealer_assist/service/config_watch.py"),
                         ("terminal_override", "dealer_assist/service/table.py")):
        assert any(w.startswith(writer) for w in scan.kinds.get(kind, ())), (kind, writer, scan.kinds.get(kind))
    assert scan.dynamic_used == set(DYNAMIC), f"DYNAMIC names sites that write nothing: {set(DYNAMIC) - scan.dynamic_used}"


def test_the_registry_is_whole_and_grouped() -> None:
    assert all(kind.group in GROUPS for kind in AUDIT_KINDS.values())
    assert all(kind.name == name and kind.words for name, kind in AUDIT_KINDS.items())
    assert set(significant_kinds()) | set(routine_kinds()) == set(AUDIT_KINDS)
    assert not set(significant_kinds()) & set(routine_kinds())
    # what the issue found missing from the list are significant events
    for kind in ("login", "login_failed", "shift_start", "shift_end", "table_setup_changed", "station_config_changed",
                 "user_created", "pin_lockout", "void", "referral", "shoe_lost", "power_failure"):
        assert kind in significant_kinds(), kind
    assert "round_finish" in routine_kinds()
