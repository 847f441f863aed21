"""The station's terminal CA, its pairing codes and its paired terminals (issue 38, build 1).

Player terminals (Electronic Blackjack 1.1.10) reach the service over TCP with TLS and
mutual authentication. Everything is kept in ``terminals/`` of the service's state
directory (0700, keys 0600): the station CA (``ca.key``, ``ca.pem``), the service's own
certificate (``station.key``, ``station.pem``, name :data:`STATION_NAME`), the paired
terminals (``paired.json``: seat -> its certificate's SHA-256) and the pairing codes
(``codes.json``: only each code's key, SHA-256 of the code; single use, expiring).

Python's stdlib makes no X.509 certificates: the ``openssl`` command (OpenSSL 3, Debian's
``openssl`` package) makes the CA and signs each terminal's request. A terminal is the
seat its certificate names (CN) and is refused once that certificate is no longer the
seat's in ``paired.json`` (removed, or paired again).
"""

from __future__ import annotations

import contextlib
import datetime
import fcntl
import hashlib
import hmac
import json
import os
import re
import secrets
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dealer_assist.service.station import Check

__all__ = [
    "CODE_MINUTES", "check_terminals", "MAX_WRONG", "STATION_NAME", "PairingError", "TerminalCA", "check_seat", "code_key",
    "openssl", "pair_proof", "station_proof", "write_private",
]

STATION_NAME = "dealer-assist-station"  # the service's certificate's name; terminals check it
CODE_MINUTES = 10  # a pairing code expires this long after it was made
MAX_WRONG = 5  # wrong codes since the last code was made: then every outstanding code is void
CERT_DAYS = 825
CA_DAYS = 3650
OPENSSL_S = 30.0
SEAT_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,31}")
_CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I: read aloud and typed at a terminal
_KEY_OPTS = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]


class PairingError(Exception):
    """A pairing or terminal administration refused: the message says why."""


def check_seat(seat: str) -> str:
    """A seat's name (the terminal's player in the table's set-up, e.g. ``t1``)."""
    if not SEAT_RE.fullmatch(seat):
        raise PairingError(f"seat {seat!r} is not a seat's name: letters, digits, '-' or '_', at most 32 "
                           "(the terminal's name in the table's set-up, e.g. t1)")
    return seat


def openssl(*args: str, stdin: bytes | None = None) -> bytes:
    """One ``openssl`` command; PairingError with its message when it fails or is missing."""
    try:
        done = subprocess.run(["openssl", *args], input=stdin, capture_output=True, timeout=OPENSSL_S, check=False)
    except FileNotFoundError:
        raise PairingError("the openssl command is missing: install Debian's openssl package") from None
    except subprocess.TimeoutExpired:
        raise PairingError(f"openssl {args[0]} did not finish within {OPENSSL_S:.0f} s") from None
    if done.returncode != 0:
        text = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise PairingError(f"openssl {args[0]} failed: {text[-1] if text else done.returncode}")
    return done.stdout


def code_key(code: str) -> bytes:
    """The key a pairing code gives (what is kept of it; both sides derive it)."""
    norm = code.strip().upper().replace("-", "").replace(" ", "")
    return hashlib.sha256(b"dealer-assist pairing\0" + norm.encode("utf-8")).digest()


def pair_proof(key: bytes, station_der: bytes, csr_pem: bytes) -> str:
    """The terminal's proof it holds the code, bound to this exchange: the station's
    certificate it saw (a relay shows another) and its own request."""
    return hmac.new(key, b"terminal\0" + station_der + b"\0" + csr_pem, "sha256").hexdigest()


def station_proof(key: bytes, station_der: bytes, cert_pem: bytes, ca_pem: bytes) -> str:
    """The station's proof it holds the code, over what it hands back."""
    return hmac.new(key, b"station\0" + station_der + b"\0" + cert_pem + b"\0" + ca_pem, "sha256").hexdigest()


def _now() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC)


@dataclass(frozen=True)
class Paired:
    seat: str
    fingerprint: str
    paired: str



def write_private(path: Path, data: bytes, *, before_replace: Callable[[Path], None] | None = None) -> None:
    """``path`` replaced whole, mode 0600 (written beside it, fsynced, renamed); ``before_replace``
    is given the written file first (the station's: handed to the state directory's owner)."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        os.fchmod(fd, 0o600)
        os.write(fd, data)
        os.fsync(fd)
        os.close(fd)
        if before_replace is not None:
            before_replace(Path(tmp))
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise

class TerminalCA:
    """The ``terminals/`` directory of a state directory. ``owner``: (uid, gid) its files
    are given to when root writes them (the service account's)."""

    def __init__(self, state_dir: Path, owner: tuple[int, int] | None = None) -> None:
        self.dir = state_dir / "terminals"
        self.owner = owner

    # ------------------------------------------------------------------ files
    @property
    def ca_pem(self) -> Path:
        return self.dir / "ca.pem"

    @property
    def station_pem(self) -> Path:
        return self.dir / "station.pem"

    @property
    def station_key(self) -> Path:
        return self.dir / "station.key"

    def exists(self) -> bool:
        return self.ca_pem.exists() and self.station_pem.exists()

    def _give(self, path: Path) -> None:
        if self.owner is not None and os.geteuid() == 0:
            os.chown(path, *self.owner)

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        """One writer of codes.json / paired.json at a time (the service and the technician)."""
        self._mkdir()
        fd = os.open(self.dir / "lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)

    def _mkdir(self) -> None:
        if not self.dir.is_dir():
            self.dir.mkdir(mode=0o700, parents=True, exist_ok=True)
            self._give(self.dir)
        os.chmod(self.dir, 0o700)
        lock = self.dir / "lock"
        if not lock.exists():
            os.close(os.open(lock, os.O_RDWR | os.O_CREAT, 0o600))
            self._give(lock)

    def _read(self, name: str) -> dict[str, Any]:
        try:
            value = json.loads((self.dir / name).read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            raise PairingError(f"{self.dir / name} cannot be read: {exc}") from None
        return value if isinstance(value, dict) else {}

    def _write(self, name: str, value: dict[str, Any] | bytes) -> None:
        data = value if isinstance(value, bytes) else json.dumps(value, indent=1, sort_keys=True).encode()
        write_private(self.dir / name, data, before_replace=self._give)

    # ------------------------------------------------------------------ the CA
    def ensure(self, table: str = "") -> bool:
        """The CA and the station's certificate, made once (True when made now)."""
        with self._locked():
            if self.exists():
                return False
            with tempfile.TemporaryDirectory(dir=self.dir) as work:
                w = Path(work)
                name = f"/CN=Dealer Assist station CA {table}".rstrip()
                openssl("req", "-x509", *_KEY_OPTS, "-keyout", str(w / "ca.key"), "-out", str(w / "ca.pem"),
                        "-days", str(CA_DAYS), "-subj", name, "-addext", "basicConstraints=critical,CA:TRUE",
                        "-addext", "keyUsage=critical,keyCertSign,cRLSign")
                csr = openssl("req", "-new", *_KEY_OPTS, "-keyout", str(w / "station.key"),
                              "-subj", f"/CN={STATION_NAME}")
                ext = w / "ext"
                ext.write_text(f"basicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n"
                               f"subjectAltName=DNS:{STATION_NAME}\n", encoding="ascii")
                cert = openssl("x509", "-req", "-CA", str(w / "ca.pem"), "-CAkey", str(w / "ca.key"),
                               "-set_serial", str(secrets.randbits(63)), "-days", str(CA_DAYS),
                               "-extfile", str(ext), stdin=csr)
                for src in ("ca.key", "station.key"):
                    self._write(src, (w / src).read_bytes())
                self._write("ca.pem", (w / "ca.pem").read_bytes())
                self._write("station.pem", cert)
        return True

    def sign(self, seat: str, csr_pem: bytes) -> bytes:
        """The seat's certificate for the terminal's request (its own name replaced by the seat)."""
        if not csr_pem.startswith(b"-----BEGIN CERTIFICATE REQUEST-----") or len(csr_pem) > 8192:
            raise PairingError("the terminal's request is not a PEM certificate request")
        openssl("req", "-verify", "-noout", stdin=csr_pem)  # signed by the key it names
        with tempfile.TemporaryDirectory(dir=self.dir) as work:
            ext = Path(work) / "ext"
            ext.write_text("basicConstraints=CA:FALSE\nextendedKeyUsage=clientAuth\n", encoding="ascii")
            return openssl("x509", "-req", "-CA", str(self.ca_pem), "-CAkey", str(self.dir / "ca.key"),
                           "-set_serial", str(secrets.randbits(63)), "-days", str(CERT_DAYS),
                           "-subj", f"/CN={seat}", "-extfile", str(ext), stdin=csr_pem)

    # ------------------------------------------------------------------ codes
    def add_code(self, seat: str, *, minutes: float = CODE_MINUTES) -> tuple[str, datetime.datetime]:
        """A new one-time pairing code for ``seat`` and when it expires (kept as its key only)."""
        check_seat(seat)
        raw = "".join(secrets.choice(_CODE_ALPHABET) for _ in range(12))  # 60 bits
        code = "-".join(raw[i:i + 4] for i in range(0, 12, 4))
        expires = _now() + datetime.timedelta(minutes=minutes)
        with self._locked():
            codes = self._pruned(self._read("codes.json"))
            codes["codes"].append({"key": code_key(code).hex(), "seat": seat, "expires": expires.isoformat(),
                                   "used": None})
            codes["wrong"] = 0  # a new code: the count of guesses starts again
            self._write("codes.json", codes)
        return code, expires

    @staticmethod
    def _pruned(codes: dict[str, Any]) -> dict[str, Any]:
        """Codes expired more than a day ago are forgotten (a reuse within it is named as one)."""
        horizon = _now() - datetime.timedelta(days=1)
        kept = [c for c in codes.get("codes", []) if datetime.datetime.fromisoformat(c["expires"]) > horizon]
        return {"codes": kept, "wrong": int(codes.get("wrong", 0))}

    def redeem(self, prove: Any) -> tuple[str, bytes]:
        """The seat (and the code's key) whose code ``prove(key) -> bool`` proves (the code then used); PairingError
        naming why not: wrong (counted: after :data:`MAX_WRONG` every outstanding code is void),
        used already, or expired."""
        now = _now()
        with self._locked():
            codes = self._pruned(self._read("codes.json"))
            for entry in codes["codes"]:
                if not prove(bytes.fromhex(entry["key"])):
                    continue
                if entry["used"]:
                    raise PairingError(f"this pairing code was used already (at {entry['used']}): "
                                       f"make a new one with `dealer-assist station terminal add {entry['seat']}`")
                if entry.get("void"):
                    raise PairingError("this pairing code was voided after too many wrong codes: make a new one "
                                       f"with `dealer-assist station terminal add {entry['seat']}`")
                if datetime.datetime.fromisoformat(entry["expires"]) <= now:
                    raise PairingError(f"this pairing code expired at {entry['expires']}: make a new one with "
                                       f"`dealer-assist station terminal add {entry['seat']}`")
                entry["used"] = now.isoformat(timespec="seconds")
                self._write("codes.json", codes)
                return str(entry["seat"]), bytes.fromhex(entry["key"])
            codes["wrong"] += 1
            if codes["wrong"] >= MAX_WRONG:
                for entry in codes["codes"]:
                    if not entry["used"]:
                        entry["void"] = True
            self._write("codes.json", codes)
            if codes["wrong"] >= MAX_WRONG:
                raise PairingError(f"wrong pairing code ({codes['wrong']} wrong since the last code was made): "
                                   "every outstanding code is void; make a new one with "
                                   "`dealer-assist station terminal add SEAT`")
            raise PairingError(f"wrong pairing code ({codes['wrong']} of {MAX_WRONG} wrong before every "
                               "outstanding code is void)")

    # ------------------------------------------------------------------ paired terminals
    def record(self, seat: str, cert_pem: bytes) -> None:
        """``seat`` is now the terminal with this certificate (any earlier one of it refused)."""
        der = _der(cert_pem)
        with self._locked():
            paired = self._read("paired.json")
            paired[seat] = {"fingerprint": hashlib.sha256(der).hexdigest(),
                            "paired": _now().isoformat(timespec="seconds")}
            self._write("paired.json", paired)

    def paired(self) -> list[Paired]:
        return [Paired(seat, str(v.get("fingerprint", "")), str(v.get("paired", "")))
                for seat, v in sorted(self._read("paired.json").items()) if isinstance(v, dict)]

    def remove(self, seat: str) -> bool:
        """The seat's terminal refused from now on (its codes void too); False if none was paired."""
        with self._locked():
            paired = self._read("paired.json")
            had = paired.pop(seat, None) is not None
            self._write("paired.json", paired)
            codes = self._pruned(self._read("codes.json"))
            for entry in codes["codes"]:
                if entry["seat"] == seat and not entry["used"]:
                    entry["void"] = True
            self._write("codes.json", codes)
        return had

    def seat_of(self, cert_der: bytes) -> str | None:
        """The seat this certificate is paired to now, or None (removed, replaced, never)."""
        fingerprint = hashlib.sha256(cert_der).hexdigest()
        for seat, v in self._read("paired.json").items():
            if isinstance(v, dict) and hmac.compare_digest(str(v.get("fingerprint", "")), fingerprint):
                return str(seat)
        return None


def _der(cert_pem: bytes) -> bytes:
    import ssl

    return ssl.PEM_cert_to_DER_cert(cert_pem.decode("ascii"))


def check_terminals(port: int | None, state_dir: Path) -> Check | None:
    """``station check``'s line for the player terminals (None when ``[terminals] port`` is unset)."""
    import shutil

    if port is None:
        return None
    if shutil.which("openssl") is None:
        return Check("terminals", False, "the openssl command is missing (it makes the station CA and signs the "
                                         "terminals' certificates): sudo apt-get install openssl")
    try:
        seats = [p.seat for p in TerminalCA(state_dir).paired()]
    except (PairingError, OSError) as exc:
        return Check("terminals", False, f"port {port}: the paired terminals cannot be read: {exc}")
    paired = f"paired: {', '.join(seats)}" if seats else "none paired yet (dealer-assist station terminal add SEAT)"
    return Check("terminals", True, f"port {port}, pairing on {port + 1}; {paired}")
