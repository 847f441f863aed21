"""Every refusal names the clause: no ``RuleRefusal`` in dealer_assist/ is raised without one.

Read from the source (AST), so a refusal without a clause cannot come back in a branch no
test reaches. A ``RuleRefusal(message, clause)`` call passes when it is given a clause (a
second argument or ``clause=``, not a literal None) or when its message's source names a
clause itself (a number like ``5.3`` or a ``clause(...)`` call); a table's or Electronic's
``refuse(message, concept)`` passes when it is given the concept (or its arguments spread
from a tuple that carries one, ``refuse(*reason)``). Malformed input that no rule decides
(an event index that does not exist) is an ``EventFormatError``, not a refusal.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import dealer_assist

PACKAGE = Path(dealer_assist.__file__).parent
_NAMES_A_CLAUSE = re.compile(r"\d+\.\d+|clause\(")


def _called(node: ast.Call) -> str | None:
    func = node.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def _is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def unnamed_refusals(source: str, filename: str) -> list[str]:
    """``file:line: call`` for each refusal in ``source`` that names no clause."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source, filename)):
        if not isinstance(node, ast.Call):
            continue
        name = _called(node)
        if name == "RuleRefusal":
            given = [*node.args[1:2], *(k.value for k in node.keywords if k.arg == "clause")]
            if any(not _is_none(g) for g in given):
                continue
            message = ast.get_source_segment(source, node.args[0]) if node.args else ""
            if not given and message and _NAMES_A_CLAUSE.search(message):
                continue  # the message names the clause itself ("... (5.3)")
        elif name == "refuse" and isinstance(node.func, ast.Attribute):
            if any(isinstance(a, ast.Starred) for a in node.args):
                continue  # refuse(*reason): a (message, concept) pair
            given = [*node.args[1:], *(k.value for k in node.keywords if k.arg in ("concept", "clause"))]
            if any(not _is_none(g) for g in given):
                continue
        else:
            continue
        found.append((node.lineno, f"{filename}:{node.lineno}: {ast.get_source_segment(source, node)}"))
    return [hit for _, hit in sorted(found)]


def unnamed_refusals_under(root: Path) -> list[str]:
    return [hit for path in sorted(root.rglob("*.py"))
            for hit in unnamed_refusals(path.read_text(encoding="utf-8"), str(path.relative_to(root.parent)))]


def test_no_refusal_in_the_package_lacks_its_clause() -> None:
    assert unnamed_refusals_under(PACKAGE) == []


def test_the_check_reads_every_engine_module() -> None:
    # the scan really walks the engine: it finds the refusals that do name their clause
    engine = PACKAGE / "engine"
    calls = sum(isinstance(n, ast.Call) and _called(n) in ("RuleRefusal", "refuse")
                for path in engine.glob("*.py") for n in ast.walk(ast.parse(path.read_text(encoding="utf-8"))))
    assert calls > 100


PLANTED = '''
from dealer_assist.base.errors import RuleRefusal

def on_close_offers(st, offers_open):
    if not offers_open:
        raise RuleRefusal("no offers are open")
    if st.phase == "settled":
        raise RuleRefusal(f"the round is {st.phase}", None)
    if st.phase == "void":
        raise st.refuse("the round is void")
    raise RuleRefusal("closed", clause=None)
'''

NAMED = '''
from dealer_assist.base.errors import RuleRefusal

def on_close_offers(st, offers_open, reason):
    if not offers_open:
        raise RuleRefusal("no offers are open", st.clause("insurance.offer"))
    if st.phase == "betting":
        raise RuleRefusal("no wager may be withdrawn after no more bets (5.4)")
    if st.phase == "void":
        raise st.refuse("the round is void; no further events", "void.foreign_card")
    if st.phase == "settled":
        raise RuleRefusal("the round is settled", clause=st.clause("round_of_play"))
    raise st.refuse(*reason)
'''


def test_the_check_finds_a_planted_refusal_without_a_clause() -> None:
    found = unnamed_refusals(PLANTED, "planted.py")
    assert [hit.split(": ", 1)[0] for hit in found] == [
        "planted.py:6", "planted.py:8", "planted.py:10", "planted.py:11"]
    assert 'RuleRefusal("no offers are open")' in found[0]
    assert unnamed_refusals(NAMED, "named.py") == []


def test_the_check_finds_a_refusal_planted_in_a_copy_of_the_engine(tmp_path: Path) -> None:
    copy = tmp_path / "dealer_assist" / "engine"
    copy.mkdir(parents=True)
    offers = (PACKAGE / "engine" / "table_offers.py").read_text(encoding="utf-8")
    (copy / "table_offers.py").write_text(offers, encoding="utf-8")
    assert unnamed_refusals_under(tmp_path / "dealer_assist") == []
    # the refusal as it was before it named the insurance clause (3.27.1)
    planted = re.sub(r'raise self\.st\.refuse\("no offers are open",\s*\n[^\n]*\n', 'raise RuleRefusal("no offers are open")\n',
                     offers, count=1)
    assert planted != offers
    (copy / "table_offers.py").write_text(planted, encoding="utf-8")
    found = unnamed_refusals_under(tmp_path / "dealer_assist")
    assert len(found) == 1 and found[0].startswith("dealer_assist/engine/table_offers.py:")
    assert 'RuleRefusal("no offers are open")' in found[0]
