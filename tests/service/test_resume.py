"""The resume token (op resume): a dealer's shift carried over a restart of the service, and
nothing else — a wrong token, a token after the log-out or after the screen closed is refused."""

from __future__ import annotations

import stat
from typing import Any

import pytest

from dealer_assist.service.client import ServiceError
from dealer_assist.service.resume import RESUME_NAME
from tests.service.conftest import Station


def test_a_shift_resumes_after_a_restart_of_the_service_and_only_with_its_token(station: Any) -> None:
    s: Station = station("10S 9H")
    c = s.client()
    c.request("enrol", name="sue", pin="482913")
    assert s.running is not None
    s.running.store.create_user("ann", "730418", ["dealer"])
    token = c.request("login", name="ann", pin="730418")["resume"]
    path = s.state / RESUME_NAME
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and token not in path.read_text()  # only its digest
    s.running.stop()  # the service goes away with the shift open (as after a crash: no log-out)
    s.running = None
    s.start()
    other = s.client()
    with pytest.raises(ServiceError) as wrong:
        other.request("resume", token=token[:-2] + "xx")
    assert wrong.value.code == "auth"
    with pytest.raises(ServiceError) as no_dealer:
        other.request("wager", player="p1", bet="main", amount=10, area=1)
    assert no_dealer.value.code == "auth"
    assert other.request("resume", token=token) == {"dealer": "ann"}
    other.request("set_slip", wagers=[{"player": "p1", "bet": "main", "amount": 10, "area": 1}])
    other.request("logout")
    again = s.client()
    with pytest.raises(ServiceError) as ended:
        again.request("resume", token=token)  # the shift ended: its token with it
    assert ended.value.code == "auth"
