"""The station fixture of tests/service (a service with a simulated shoe on a pty)."""

from tests.service.conftest import station  # noqa: F401
