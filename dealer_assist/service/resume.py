"""A dealer's shift carried over a restart of the service (issue 23: the screen reconnects).

At log-in the service gives the screen a random resume token; the service keeps only its
SHA-256, with the dealer and the OS account, in ``resume.json`` (0600) in its own state
directory, so a token survives the service's crash and restart. ``resume`` from the same OS
account (SO_PEERCRED) with the token puts the dealer back on the new connection with no PIN;
the token ends with the shift (log-out, or the screen's connection closing)."""

from __future__ import annotations

import secrets
from pathlib import Path

from dealer_assist.service.token_file import read_tokens, token_digest, write_tokens

RESUME_NAME = "resume.json"



class ResumeTokens:
    def __init__(self, path: Path) -> None:
        self.path = path

    def _read(self) -> dict[str, dict[str, str]]:
        return read_tokens(self.path)

    def _write(self, data: dict[str, dict[str, str]]) -> None:
        write_tokens(self.path, data)

    def issue(self, dealer: str, account: str) -> str:
        token = secrets.token_urlsafe(32)
        data = self._read()
        data[token_digest(token)] = {"dealer": dealer, "account": account}
        self._write(data)
        return token

    def take(self, token: str, account: str) -> str | None:
        """The dealer of ``token`` if it was issued to ``account`` (it stays valid for the next restart)."""
        entry = self._read().get(token_digest(token))
        if not entry or entry.get("account") != account:
            return None
        return str(entry.get("dealer") or "") or None

    def end(self, dealer: str, account: str) -> None:
        data = self._read()
        kept = {k: v for k, v in data.items() if (v.get("dealer"), v.get("account")) != (dealer, account)}
        if kept != data:
            self._write(kept)
