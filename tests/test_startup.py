"""Issue 37, Build 5: a command's start-up does not read the package metadata (the version is
read only for --version and the About box), and --version still says pyproject.toml's."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT.parent / "shared" / "examples" / "lucky8-pair-and-double.json"
if not EXAMPLE.exists():
    EXAMPLE = Path("/work/shared/examples/lucky8-pair-and-double.json")


def test_version_is_pyprojects() -> None:
    wanted = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    done = subprocess.run([sys.executable, "-m", "dealer_assist", "--version"], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"dealer-assist {wanted}\n"


def test_settle_never_loads_the_package_metadata_nor_shutil() -> None:
    """Nor shutil (argparse asks it for the terminal's width; with it come bz2, lzma, fnmatch)."""
    probe = ("import sys\n"
             "from dealer_assist.cli import main\n"
             f"status = main(['settle', {str(EXAMPLE)!r}])\n"
             "loaded = sorted(m for m in sys.modules if m.startswith(('importlib.metadata', 'email', 'shutil')))\n"
             "print('LOADED', status, loaded, file=sys.stderr)\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert '"status": "settled"' in done.stdout
    assert "LOADED 0 []" in done.stderr, done.stderr
