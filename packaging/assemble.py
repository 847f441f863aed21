"""Complete dist/dealer-assist/ after PyInstaller: desktop entry, metadata, icons, udev rule, unit.

``python packaging/assemble.py DIST_DIR`` (packaging/build.sh runs it). Adds::

    DIST_DIR/install.sh                                  the installer (packaging/install.sh)
    DIST_DIR/CHANGELOG.md
    DIST_DIR/share/applications/APP_ID.desktop
    DIST_DIR/share/metainfo/APP_ID.metainfo.xml          with <releases> for this version
    DIST_DIR/share/icons/hicolor/NxN/apps/APP_ID.png     and scalable/apps/APP_ID.svg
    DIST_DIR/share/dealer-assist/udev/99-dealer-shoe.rules
    DIST_DIR/share/dealer-assist/station.toml            the commented configuration template
    DIST_DIR/share/dealer-assist/systemd/dealer-assist.service   the station service's unit

The version comes from pyproject.toml (the one place it is written); its release date
from the CHANGELOG.md section for that version, which must exist.
"""

from __future__ import annotations

import re
import shutil
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGING = ROOT / "packaging"
APP_ID = "com.dealerassist.DealerAssist"
ICON_SIZES = (16, 24, 32, 48, 64, 128, 256)
UDEV_RULE = PACKAGING / "udev" / "99-dealer-shoe.rules"
UNIT = PACKAGING / "systemd" / "dealer-assist.service"


class AssembleError(Exception):
    pass


def project_version(root: Path = ROOT) -> str:
    with open(root / "pyproject.toml", "rb") as f:
        return str(tomllib.load(f)["project"]["version"])


def release_date(version: str, changelog: Path = ROOT / "CHANGELOG.md") -> str:
    """The date of ``## [version] - YYYY-MM-DD`` in the changelog."""
    pattern = re.compile(rf"^## \[{re.escape(version)}\] - (\d{{4}}-\d{{2}}-\d{{2}})\s*$", re.MULTILINE)
    match = pattern.search(changelog.read_text(encoding="utf-8"))
    if match is None:
        raise AssembleError(f"CHANGELOG.md has no section '## [{version}] - YYYY-MM-DD' for the version in pyproject.toml")
    return match.group(1)


def metainfo_with_release(text: str, version: str, date: str) -> str:
    """The metainfo XML with a <releases> element for ``version`` before </component>."""
    if "<releases>" in text:
        raise AssembleError("the metainfo template already has <releases>: assemble.py writes it")
    releases = f'  <releases>\n    <release version="{version}" date="{date}"/>\n  </releases>\n'
    return text.replace("</component>", releases + "</component>")


def assemble(dist: Path) -> list[Path]:
    if not (dist / "dealer-assist").is_file():
        raise AssembleError(f"{dist} holds no dealer-assist executable: run PyInstaller first")
    version = project_version()
    date = release_date(version)
    written: list[Path] = []

    def put(src: Path, dest: Path, mode: int = 0o644) -> None:
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dest)
        dest.chmod(mode)
        written.append(dest)

    put(PACKAGING / "install.sh", dist / "install.sh", 0o755)
    put(ROOT / "CHANGELOG.md", dist / "CHANGELOG.md")
    share = dist / "share"
    put(PACKAGING / "linux" / f"{APP_ID}.desktop", share / "applications" / f"{APP_ID}.desktop")
    metainfo = share / "metainfo" / f"{APP_ID}.metainfo.xml"
    metainfo.parent.mkdir(parents=True, exist_ok=True)
    template = (PACKAGING / "linux" / f"{APP_ID}.metainfo.xml").read_text(encoding="utf-8")
    metainfo.write_text(metainfo_with_release(template, version, date), encoding="utf-8")
    written.append(metainfo)
    icons = share / "icons" / "hicolor"
    for size in ICON_SIZES:
        put(PACKAGING / "icons" / f"dealer-assist-{size}.png", icons / f"{size}x{size}" / "apps" / f"{APP_ID}.png")
    put(PACKAGING / "icons" / "dealer-assist.svg", icons / "scalable" / "apps" / f"{APP_ID}.svg")
    put(UDEV_RULE, share / "dealer-assist" / "udev" / UDEV_RULE.name)
    put(UNIT, share / "dealer-assist" / "systemd" / UNIT.name)
    # The station configuration template install.sh puts at /etc/dealer-assist/station.toml:
    # written by the same code as `dealer-assist station init` and the Station setup dialog.
    from dealer_assist.service.station import StationConfig, render_config

    station = share / "dealer-assist" / "station.toml"
    station.write_text(render_config(StationConfig()), encoding="utf-8")
    station.chmod(0o644)
    written.append(station)
    return written


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: assemble.py DIST_DIR", file=sys.stderr)
        return 2
    try:
        written = assemble(Path(argv[0]))
    except (AssembleError, OSError) as exc:
        print(f"assemble: error: {exc}", file=sys.stderr)
        return 1
    print(f"assemble: added {len(written)} files (desktop entry, metainfo, icons, udev rule, systemd unit, station.toml, install.sh)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
