"""packaging/udev/99-dealer-shoe.rules: well-formed, stable name, group access."""

from __future__ import annotations

import re
from pathlib import Path

RULE = Path(__file__).resolve().parents[2] / "packaging" / "udev" / "99-dealer-shoe.rules"
# KEY or KEY{attr}, an operator, a double-quoted value (udev rules syntax)
PAIR = re.compile(r'\s*([A-Z_]+(?:\{[A-Za-z_]+\})?)\s*(==|!=|\+=|=|:=)\s*"([^"]*)"\s*')


def parse(line: str) -> list[tuple[str, str, str]]:
    pairs = []
    for part in line.split(","):
        m = PAIR.fullmatch(part)
        assert m, f"not a udev key/value: {part!r}"
        pairs.append((m.group(1), m.group(2), m.group(3)))
    return pairs


def test_active_rule_gives_a_stable_name_and_group_access() -> None:
    lines = [ln for ln in RULE.read_text().splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    assert len(lines) == 1
    pairs = parse(lines[0])
    assert ("SUBSYSTEM", "==", "tty") in pairs
    assert ("SYMLINK", "+=", "dealer-shoe") in pairs
    assert ("GROUP", "=", "dialout") in pairs
    assert ("MODE", "=", "0660") in pairs
    assert any(k == "ATTRS{idVendor}" and op == "==" and re.fullmatch(r"[0-9a-f]{4}", v) for k, op, v in pairs)
    assert any(k == "ATTRS{idProduct}" and op == "==" and re.fullmatch(r"[0-9a-f]{4}", v) for k, op, v in pairs)


def test_commented_alternatives_are_well_formed_too() -> None:
    for line in RULE.read_text().splitlines():
        if line.startswith("#SUBSYSTEM"):
            assert ("SYMLINK", "+=", "dealer-shoe") in parse(line[1:])
