"""Layering (DESIGN.md): the driver never loads Qt; the shoe bookkeeping loads neither Qt nor pyserial."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def loaded_modules(*imports: str) -> set[str]:
    code = "import sys\n" + "".join(f"import {m}\n" for m in imports) + "print('\\n'.join(sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60, check=True)
    return set(out.stdout.split())


def test_hardware_does_not_load_qt() -> None:
    mods = loaded_modules("hardware.driver", "hardware.simulator", "hardware.commands", "hardware.codecs")
    assert "serial" in mods  # the check does see what was loaded
    assert not any(m.split(".")[0] == "PySide6" for m in mods)


def test_shoe_state_is_pure() -> None:
    mods = loaded_modules("dealer_assist.engine.shoe_state")
    assert "dealer_assist.engine.shoe_state" in mods
    assert not any(m.split(".")[0] in ("PySide6", "serial", "hardware") for m in mods)
