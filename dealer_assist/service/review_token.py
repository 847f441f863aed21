"""The review's token: an open review refreshes its copy of the store with no PIN again.

Op ``snapshot`` with a supervisor's PIN (audited as a ``review`` approval) also answers a
random review token, bound to the OS account that asked (SO_PEERCRED) and to the supervisor,
good for :data:`REVIEW_MINUTES` minutes from the PIN (never extended by its use). Op
``snapshot`` with ``token`` in place of the PIN hands a fresh copy while the token is good;
op ``end_review`` (the review's window closing) ends it at once. The service keeps only the
token's SHA-256, the account, the supervisor and the end time, in ``review.json`` (0600) in
its own state directory, so an open review refreshes across the service's restart too. A
token from another OS account, an expired or ended one is refused (code ``auth``): the review
asks the PIN again."""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from dealer_assist.service.token_file import read_tokens, token_digest, write_tokens

REVIEW_NAME = "review.json"
REVIEW_MINUTES = 60  # a review session: an hour from the supervisor's PIN


@dataclass(frozen=True)
class ReviewGrant:
    """What a good token stands for: the supervisor who gave the PIN, until ``expires`` (epoch s)."""

    supervisor: str
    expires: float


class ReviewTokenRefused(Exception):
    """Why a token gives no copy (unknown or ended, another OS account's, expired)."""


class ReviewTokens:
    def __init__(self, path: Path, *, minutes: float = REVIEW_MINUTES,
                 clock: Callable[[], float] = time.time) -> None:
        self.path = path
        self.lifetime_s = minutes * 60
        self.clock = clock  # wall-clock seconds: an end time holds over a restart

    def _read(self) -> dict[str, dict[str, object]]:
        return read_tokens(self.path)

    def _write(self, data: dict[str, dict[str, object]]) -> None:
        write_tokens(self.path, data)

    def issue(self, supervisor: str, account: str) -> tuple[str, ReviewGrant]:
        """A new token for ``account``'s review opened by ``supervisor``'s PIN (expired ones dropped)."""
        now = self.clock()
        token = secrets.token_urlsafe(32)
        grant = ReviewGrant(supervisor, now + self.lifetime_s)
        data = {k: v for k, v in self._read().items() if _expires(v) > now}
        data[token_digest(token)] = {"supervisor": supervisor, "account": account, "expires": grant.expires}
        self._write(data)
        return token, grant

    def check(self, token: str, account: str) -> ReviewGrant:
        """The grant of ``token`` used from ``account``; ReviewTokenRefused if it gives none."""
        entry = self._read().get(token_digest(token)) if token else None
        if not entry:
            raise ReviewTokenRefused("this review token is unknown or ended")
        if entry.get("account") != account:
            raise ReviewTokenRefused(f"this review token was not given to account {account}")
        expires = _expires(entry)
        if expires <= self.clock():
            raise ReviewTokenRefused(f"this review token expired at {iso_time(expires)}")
        return ReviewGrant(str(entry.get("supervisor") or ""), expires)

    def end(self, token: str, account: str) -> bool:
        """Ends ``token`` if ``account`` holds it (and drops expired tokens); whether it was ended."""
        now, key = self.clock(), token_digest(token)
        data = self._read()
        entry = data.get(key)
        ended = bool(entry) and entry is not None and entry.get("account") == account
        kept = {k: v for k, v in data.items() if _expires(v) > now and not (ended and k == key)}
        if kept != data:
            self._write(kept)
        return ended


def _expires(entry: dict[str, object]) -> float:
    value = entry.get("expires")
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0.0


def iso_time(epoch: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(epoch))


__all__ = ["REVIEW_MINUTES", "REVIEW_NAME", "ReviewGrant", "ReviewTokenRefused", "ReviewTokens", "iso_time"]
