"""One throwaway PostgreSQL server for the whole test run; each test gets its own database."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.floor.pgserver import Server


@pytest.fixture(scope="session")
def pg_server() -> Iterator[Server]:
    server = Server()  # raises ServerUnavailable with what to install when the binaries are missing
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def servers() -> Iterator[tuple[Server, Server]]:
    """A primary of its own and its hot standby (pg_basebackup -R), for one test module."""
    primary = Server()
    try:
        standby = primary.standby()
    except BaseException:
        primary.stop()
        raise
    try:
        yield primary, standby
    finally:
        standby.stop()
        primary.stop()


@pytest.fixture
def floor_db(pg_server: Server, request: pytest.FixtureRequest) -> Iterator[str]:
    """The name of a fresh, empty database on the test server (dropped afterwards). For a
    test that takes ``floor``, a copy of the server's migrated floor with no roles instead:
    ``Floor`` then runs ``init_floor`` on it, which makes and grants its roles (issue 37)."""
    template = pg_server.migrated_floor() if "floor" in request.fixturenames else None
    name = pg_server.create_database(template=template)
    try:
        yield name
    finally:
        pg_server.drop_database(name)


@pytest.fixture
def admin_url(pg_server: Server, floor_db: str) -> str:
    """URL of the test database as its administrator (the role that runs ``floor init``)."""
    return pg_server.url(floor_db)


class Floor:
    """An initialised floor on the test server: the admin's URL and each station's."""

    def __init__(self, server: Server, dbname: str) -> None:
        from dealer_assist.floor.schema import init_floor, review_role

        self.server = server
        self.dbname = dbname
        self.admin_url = server.url(dbname)
        init_floor(self.admin_url)
        self.review_url = server.url(dbname, user=review_role(dbname))

    def station(self, table: str, pit: str) -> str:
        """Register ``table`` and return the URL its station connects with (its own role)."""
        from dealer_assist.floor.schema import add_station

        role = add_station(self.admin_url, table, pit).role
        return self.server.url(self.dbname, user=role)


@pytest.fixture
def floor(pg_server: Server, floor_db: str) -> Floor:
    return Floor(pg_server, floor_db)
