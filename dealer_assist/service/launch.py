"""The station service for this account, started by the dealer's screen (``dealer-assist``
with no station configuration) or by ``scripts/dev.py app``: ``dealer-assist station serve
--socket PATH`` as a child process on a private socket, its own store under the user's data
directory and the simulated shoe; the screen is its client, as on a station. The child is
stopped by its PID when the screen closes (and, on Linux, when the screen's process dies).

``dealer-assist review --db FILE`` starts a review service so (:func:`start_review_service`):
``station serve --review FILE`` on a socket in a private temporary directory; the review's
window is its client.

No Qt here: the screen (ui/dealer/app.py) calls :func:`start_private_service`, the review
(ui/review/app.py) :func:`start_review_service`."""

from __future__ import annotations

import selectors
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from dealer_assist.service.client import dev_socket_path

START_S = 120.0  # only a service that never answers waits this long (a loaded machine's first start)
STOP_S = 15.0  # serve.py's own stop takes at most STOP_SECONDS (10 s)


class LaunchError(Exception):
    """The service for this account could not be started (the message says why)."""


def serve_command(sock: Path, extra: list[str]) -> list[str]:
    """``dealer-assist station serve --socket SOCK``: the packaged program itself, else this
    interpreter on the installed package (``-P``: the current directory never shadows it,
    e.g. a compiled engine on PYTHONPATH)."""
    if getattr(sys, "frozen", False):  # the PyInstaller build: its executable is dealer-assist
        program = [sys.executable]
    else:
        program = [sys.executable, "-P", "-m", "dealer_assist"]
    return [*program, "station", "serve", "--socket", str(sock), *extra]


def answering(sock: Path) -> bool:
    """Whether something accepts connections on ``sock`` (a service already running)."""
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    probe.settimeout(5.0)
    try:
        probe.connect(str(sock))
    except OSError:
        return False
    finally:
        probe.close()
    return True


def _die_with_parent() -> None:  # pragma: no cover (runs in the child before exec)
    """Linux: the service gets SIGTERM when the screen's process dies, even by SIGKILL."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


@dataclass
class PrivateService:
    """A started service: its socket and process (``pid``); :meth:`stop` ends it."""

    socket: Path
    process: subprocess.Popen[str]
    directory: Path | None = None  # a review service's private directory (its socket, its tokens): removed at stop

    @property
    def pid(self) -> int:
        return self.process.pid

    def stop(self) -> int | None:
        """SIGTERM to the child's PID, then wait for it (SIGKILL after STOP_S); its exit status."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=STOP_S)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.directory is not None:
            shutil.rmtree(self.directory, ignore_errors=True)
        return self.process.returncode


def start_private_service(extra: list[str] | None = None, sock: Path | None = None,
                          timeout_s: float = START_S, meanwhile: Callable[[], None] | None = None,
                          what: str = "the station service") -> PrivateService:
    """Start ``station serve`` for this account and wait for its "serving on" line;
    ``meanwhile`` runs while the child starts (the screen loads Qt then: the two starts overlap).

    Raises LaunchError when one already answers on the socket (a second start while the
    first runs: never a second writer on the same store, never the first's socket taken),
    or when the child exits or stays silent for ``timeout_s`` seconds."""
    sock = sock or dev_socket_path()
    if answering(sock):
        raise LaunchError(f"Dealer Assist is already running for this account (its station service answers on "
                          f"{sock}): use that window, or close it first")
    sock.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    cmd = serve_command(sock, list(extra or []))
    process = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, text=True,
                               preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None)
    service = PrivateService(sock, process)
    assert process.stdout is not None
    deadline = time.monotonic() + timeout_s
    if meanwhile is not None:
        try:
            meanwhile()
        except BaseException:
            service.stop()
            raise
    first = ""
    with selectors.DefaultSelector() as sel:
        sel.register(process.stdout, selectors.EVENT_READ)
        while not first:
            left = deadline - time.monotonic()
            if left <= 0 or not sel.select(left):
                service.stop()
                raise LaunchError(f"{what} did not answer within {timeout_s:.0f} s "
                                  f"(pid {process.pid}; its log says why)")
            first = process.stdout.readline()
            if not first:  # end of file: the child exited
                break
    first = first.strip()
    if not first.startswith("serving on"):
        status = service.stop()
        why = first.removeprefix("error: ") or f"exit status {status}"
        raise LaunchError(f"{what} did not start: {why}")
    # anything it prints later is read and dropped, so the child never blocks on a full pipe
    threading.Thread(target=process.stdout.read, name="service-stdout", daemon=True).start()
    return service


def private_socket() -> Path:
    """Where this account's service listens ($XDG_RUNTIME_DIR/dealer-assist, else /tmp/dealer-assist-$UID)."""
    return dev_socket_path()


REVIEW_SOCKET = "review.sock"


def start_review_service(store: Path, timeout_s: float = START_S,
                         meanwhile: Callable[[], None] | None = None) -> PrivateService:
    """Start ``station serve --review STORE`` for this account on a socket in a new private
    directory (0700; removed when the service is stopped) and wait for its "serving on" line.
    LaunchError with the service's own words when it does not start (a file that is not a
    store, a store with no supervisor yet, one another Dealer Assist holds)."""
    directory = Path(tempfile.mkdtemp(prefix="dealer-assist-review-"))
    try:
        service = start_private_service(["--review", str(store.resolve()), "--state-dir", str(directory / "state")],
                                        directory / REVIEW_SOCKET, timeout_s, meanwhile, what="the review service")
    except BaseException:
        shutil.rmtree(directory, ignore_errors=True)
        raise
    service.directory = directory
    return service
