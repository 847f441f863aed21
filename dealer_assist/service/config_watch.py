"""The station configuration's digest, kept in the store: a hand edit of ``station.toml``
(a change the service did not make) is a significant event at the next start."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from dealer_assist.store import Store

DIGEST_KIND = "station_config"  # audit: the configuration the service started with
CHANGED_KIND = "station_config_changed"  # audit: a change it did not make (significant event)


def digest_of(path: Path) -> str:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except FileNotFoundError:
        return ""


def check_config_digest(store: Store, path: Path, settings: dict[str, Any]) -> dict[str, Any] | None:
    """Compare ``path`` with the digest recorded at the last start; record the new one. The
    detail of the significant event (old -> new) when the file changed by hand, else None."""
    digest = digest_of(path)
    entries = store.audit_entries(kind=DIGEST_KIND)
    last = entries[-1].detail if entries else None
    changed: dict[str, Any] | None = None
    if last is not None and last.get("digest") != digest:
        old = last.get("settings") or {}
        diff = {k: [old.get(k), settings.get(k)] for k in sorted(set(old) | set(settings))
                if old.get(k) != settings.get(k)}
        changed = {"file": str(path), "old_digest": last.get("digest"), "new_digest": digest, "changes": diff}
        store.add_audit(CHANGED_KIND, actor="service", detail=changed)
    if last is None or last.get("digest") != digest:
        store.add_audit(DIGEST_KIND, actor="service",
                        detail={"file": str(path), "digest": digest, "settings": settings})
    return changed
