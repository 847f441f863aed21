"""The file of a service's tokens (resume.json, review.json): only each token's SHA-256 with what
it stands for, written whole and atomically, 0600 in the service's own state directory."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any


def token_digest(token: str) -> str:
    """What the file keeps of a token: its SHA-256 (the token itself is never written)."""
    return hashlib.sha256(token.encode()).hexdigest()


def read_tokens(path: Path) -> dict[str, Any]:
    """Digest -> entry; nothing when the file is missing or unreadable (every token then refused)."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def write_tokens(path: Path, data: dict[str, Any]) -> None:
    """The whole file replaced at once (written beside it, fsynced, renamed), mode 0600."""
    tmp = path.with_suffix(".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        json.dump(data, out)
        out.flush()
        os.fsync(out.fileno())
    os.replace(tmp, path)
