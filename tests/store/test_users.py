"""Users, roles and PINs: salted scrypt hashes only, constant-time comparison, audited logins."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from dealer_assist.store import Store, StoreError


def test_pin_is_stored_only_as_a_salted_scrypt_hash(db_path: Path) -> None:
    with Store.open(db_path) as store:
        store.create_user("ann", "482913", ["dealer"])
        store.create_user("bob", "482913", ["dealer", "supervisor"])
    with sqlite3.connect(db_path) as conn:
        rows = conn.execute(
            "SELECT username, pin_hash, pin_salt, scrypt_n FROM users ORDER BY username"
        ).fetchall()
    assert db_path.read_bytes().find(b"482913") == -1
    (_, hash_ann, salt_ann, n), (_, hash_bob, salt_bob, _) = rows
    assert len(hash_ann) == 32 and len(salt_ann) == 16 and n >= 2**14
    assert salt_ann != salt_bob and hash_ann != hash_bob  # same PIN, different salt


def test_right_pin_accepted_wrong_pin_refused(db_path: Path) -> None:
    with Store.open(db_path) as store:
        store.create_user("ann", "1234", ["dealer"])
        store.create_user("bob", "987654", ["supervisor"])
        assert store.verify_pin("ann", "1234")
        assert not store.verify_pin("ann", "1235")
        assert not store.verify_pin("ann", "")
        assert not store.verify_pin("nobody", "1234")
        assert store.verify_pin("bob", "987654", role="supervisor")
        assert not store.verify_pin("ann", "1234", role="supervisor")
        assert store.user_roles("bob") == ["supervisor"]


def test_logins_and_approvals_are_audited(db_path: Path) -> None:
    with Store.open(db_path) as store:
        store.create_user("bob", "987654", ["supervisor"])
        store.create_user("ann", "1234", ["dealer"])
        assert store.login("ann", "1234", role="dealer")
        assert not store.login("ann", "0000", role="dealer")
        round_id = store.begin_round({"game": "lucky8"})
        assert not store.approve(
            "ann", "1234", kind="void", round_id=round_id, detail={"rule": "5.1"}
        )
        assert store.approve(
            "bob", "987654", kind="void", round_id=round_id, detail={"rule": "5.1"}
        )
        kinds = [(a.kind, a.actor) for a in store.audit_entries()]
        assert kinds == [
            ("user_created", "admin"),
            ("user_created", "admin"),
            ("login", "ann"),
            ("login_failed", "ann"),
            ("approval_refused", "ann"),
            ("void", "bob"),
        ]
        assert store.audit_entries(round_id=round_id, kind="void")[0].detail == {"rule": "5.1"}


def test_disabled_user_and_changed_pin(db_path: Path) -> None:
    with Store.open(db_path) as store:
        store.create_user("ann", "1234", ["dealer"])
        store.set_pin("ann", "5678")
        assert not store.verify_pin("ann", "1234")
        assert store.verify_pin("ann", "5678")
        store.set_user_disabled("ann", True)
        assert not store.verify_pin("ann", "5678")
        assert store.users() == [{"username": "ann", "disabled": True, "roles": ["dealer"]}]


@pytest.mark.parametrize("pin", ["12", "abcd", "1234567890123", "12 34"])
def test_bad_pins_and_roles_are_refused(db_path: Path, pin: str) -> None:
    with Store.open(db_path) as store:
        with pytest.raises(StoreError):
            store.create_user("ann", pin, ["dealer"])
        with pytest.raises(StoreError):
            store.create_user("ann", "1234", ["croupier"])
        store.create_user("ann", "1234", ["dealer"])
        with pytest.raises(StoreError):
            store.create_user("ann", "1234", ["dealer"])
