"""The station's configuration file (dealer_assist/service/station.py): read, refused with the key
named, written atomically, and where the store goes."""

from __future__ import annotations

import os
import stat
import sys
from decimal import Decimal
from pathlib import Path

import pytest

from dealer_assist.service import station
from dealer_assist.service.station import StationConfig, StationError

FULL = """
[table]
name = "BJ-07"
pit = "Pit 2"
game = "ace_race"
decks = 6
areas = 7

[table.limits]
main = [10, 500]
pair = ["2.50", 100]

[shoe]
port = "/dev/dealer-shoe"
codec = "beetek"
baud = 19200

[store]
path = "/srv/tables/bj07.db"

[floor]
service = "floor"
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "station.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_every_setting_is_read(tmp_path: Path) -> None:
    path = write(tmp_path, FULL)
    cfg = station.load_config(path)
    assert (cfg.table, cfg.pit, cfg.game, cfg.decks, cfg.areas) == ("BJ-07", "Pit 2", "ace_race", 6, 7)
    # money exact: "2.50" is Decimal 2.50, never the float 2.5
    assert cfg.limits == {"main": (Decimal(10), Decimal(500)), "pair": (Decimal("2.50"), Decimal(100))}
    assert (cfg.shoe_port, cfg.codec, cfg.baud) == ("/dev/dealer-shoe", "beetek", 19200)
    assert cfg.store == "/srv/tables/bj07.db" and cfg.floor_service == "floor"
    assert cfg.source == path and not cfg.simulated
    assert station.store_path(cfg) == Path("/srv/tables/bj07.db")


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("[table]\ndecks = 9\ngame = \"ace_race\"\n", ["table.decks", "2 to 8", "9"]),  # Ace Race 2.1
        ("[table]\ngame = \"star_elements\"\ndecks = 8\n", ["table.decks", "4 to 6"]),  # Star Elements 2.1
        ("[table]\ngame = \"baccarat\"\n", ["table.game", "baccarat"]),
        ("[shoe]\ncodec = \"nmea\"\n", ["shoe.codec", "nmea"]),
        ("[shoe]\nbaud = 0\n", ["shoe.baud", "0"]),
        ("[shoe]\nprot = \"/dev/x\"\n", ["shoe.prot"]),
        ("[printer]\nx = 1\n", ["[printer]"]),
        ("[table.limits]\nmain = [10.5, 500]\n", ["table.limits.main", "2.50"]),  # binary floats refused
        ("[table.limits]\nmain = [500, 10]\n", ["table.limits.main", "500", "10"]),
        ("[table.limits]\nmain = 10\n", ["table.limits.main", "[min, max]"]),
        ("[table\nname = 1", ["not valid TOML"]),
    ],
)
def test_mistakes_are_named(tmp_path: Path, text: str, words: list[str]) -> None:
    path = write(tmp_path, text)
    with pytest.raises(StationError) as caught:
        station.load_config(path)
    message = str(caught.value)
    assert str(path) in message
    for word in words:
        assert word in message, message


def test_no_file_at_the_default_place_is_a_development_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(station.CONFIG_ENV, raising=False)
    monkeypatch.setattr(station, "site_config_dir", lambda: tmp_path / "etc")
    assert station.find_config() is None
    monkeypatch.setattr(station, "user_data_dir", lambda: tmp_path / "home")
    assert station.store_path(None) == tmp_path / "home" / "table.db"


def test_a_named_file_must_exist(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    missing = tmp_path / "nope.toml"
    with pytest.raises(StationError, match="no such file"):
        station.find_config(str(missing))
    monkeypatch.setenv(station.CONFIG_ENV, str(missing))
    with pytest.raises(StationError, match="no such file"):
        station.find_config()


def test_environment_then_command_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    env_file = write(tmp_path, '[table]\nname = "from env"\n')
    cli_file = tmp_path / "cli.toml"
    cli_file.write_text('[table]\nname = "from cli"\n')
    monkeypatch.setenv(station.CONFIG_ENV, str(env_file))
    assert station.find_config().table == "from env"  # type: ignore[union-attr]
    assert station.find_config(str(cli_file)).table == "from cli"  # type: ignore[union-attr]


def test_a_configured_station_keeps_its_store_in_the_site_data_dir(monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = StationConfig(table="BJ-07")
    assert station.store_path(cfg) == station.site_data_dir() / "table.db"
    assert station.store_path(cfg, "/tmp/x.db") == Path("/tmp/x.db")  # --db overrides for one run
    if sys.platform.startswith("linux"):
        assert station.default_config_path() == Path("/etc/dealer-assist/station.toml")
        assert station.site_data_dir() == Path("/var/lib/dealer-assist")


def test_written_file_reads_back_the_same(tmp_path: Path) -> None:
    cfg = station.load_config(write(tmp_path, FULL))
    out = tmp_path / "out.toml"
    station.save_config(cfg, out)
    again = station.load_config(out)
    assert again.settings() == cfg.settings()
    text = out.read_text()
    assert text.count("#") >= 8  # a commented file, for the technician
    assert 'pair = ["2.50", 100]' in text
    assert stat.S_IMODE(out.stat().st_mode) == 0o644  # STATION-CONTRACT: readable by all, no secrets


def test_save_replaces_atomically_root_0644(tmp_path: Path) -> None:
    path = write(tmp_path, FULL)
    os.chmod(path, 0o664)  # the old layout's group-writable file
    inode = path.stat().st_ino
    cfg = station.load_config(path)
    station.save_config(StationConfig(table="BJ-08", shoe_port="/dev/ttyUSB0"), path)
    assert path.stat().st_ino != inode  # a new file renamed over the old one, never rewritten in place
    assert stat.S_IMODE(path.stat().st_mode) == 0o644  # no longer writable by a group
    if os.geteuid() == 0:  # written by root: root's (CI runs as root)
        assert (path.stat().st_uid, path.stat().st_gid) == (0, 0)
    assert [p.name for p in tmp_path.iterdir()] == ["station.toml"]  # no temporary file left
    new = station.load_config(path)
    changes = station.config_changes(cfg, new)
    assert changes["table"] == ["BJ-07", "BJ-08"]
    assert changes["shoe_port"] == ["/dev/dealer-shoe", "/dev/ttyUSB0"]
    assert changes["limits"] == [{"main": ["10", "500"], "pair": ["2.50", "100"]}, {}]
    assert "pit" in changes and "baud" in changes


def test_save_refuses_a_missing_directory(tmp_path: Path) -> None:
    with pytest.raises(StationError, match="no directory"):
        station.save_config(StationConfig(), tmp_path / "missing" / "station.toml")
    assert not (tmp_path / "missing").exists()


def test_store_directory_is_never_created(tmp_path: Path) -> None:
    with pytest.raises(StationError, match="no directory"):
        station.check_store_directory(tmp_path / "typo" / "table.db")
    assert not (tmp_path / "typo").exists()


def test_store_file_created_0600_whatever_the_umask(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        station.create_store_file(tmp_path / "table.db")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "table.db").stat().st_mode) == 0o600


def test_station_parts_load_neither_qt_nor_pyserial() -> None:
    """Layers (DESIGN.md): the configuration, the lock, the log and the commands are pure."""
    import subprocess

    code = ("import sys, dealer_assist.service.station, dealer_assist.service.applog, dealer_assist.cli, "
            "dealer_assist.cli.history, dealer_assist.cli.settle, dealer_assist.cli.bench; "
            "print('\\n'.join(sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], cwd=Path(__file__).resolve().parents[2],
                         capture_output=True, text=True, timeout=60, check=True).stdout.split()
    assert "dealer_assist.service.station" in out and "dealer_assist.service.applog" in out
    assert not [m for m in out if m.split(".")[0] in ("PySide6", "serial", "hardware", "ui")]


def test_configured_codecs_are_the_drivers() -> None:
    from hardware.codecs import CODEC_NAMES

    assert tuple(station.CODECS) == tuple(CODEC_NAMES)


@pytest.mark.parametrize(("url", "bare", "password"), [
    ("postgresql://station:s3cret@floor.pit:5432/floor", "postgresql://station@floor.pit:5432/floor", "s3cret"),
    ("postgresql://station:p%40ss%3Aw@10.0.0.5/floor?sslmode=require",
     "postgresql://station@10.0.0.5/floor?sslmode=require", "p@ss:w"),
    ("postgresql://station@h/floor?password=pw&sslmode=require", "postgresql://station@h/floor?sslmode=require", "pw"),
    ("postgresql://station@h/floor", "postgresql://station@h/floor", None),
])
def test_the_floor_password_is_split_from_the_url(url: str, bare: str, password: str | None) -> None:
    assert station.split_floor_password(url) == (bare, password)


def test_a_password_in_floor_url_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path, '[floor]\nurl = "postgresql://station:pw@h/floor"\n')
    with pytest.raises(StationError, match="floor.url carries a password: the password belongs in floor.secret"):
        station.load_config(path)
    ok = station.load_config(write(tmp_path, '[floor]\nurl = "postgresql://station@h/floor"\n'))
    assert station.floor_url(ok) == "postgresql://station@h/floor"
    assert "pw" not in station.render_config(ok) and 'url = "postgresql://station@h/floor"' in station.render_config(ok)
    with pytest.raises(StationError, match="not a postgresql:// URL"):
        station.load_config(write(tmp_path, '[floor]\nurl = "floor.pit"\n'))


def test_the_floor_password_file(tmp_path: Path) -> None:
    assert station.floor_password(tmp_path) is None
    (tmp_path / "floor.secret").write_text("s3cret\n")
    assert station.floor_password(tmp_path) == "s3cret"
