from tests.service.conftest import station  # noqa: F401 - the service fixture
