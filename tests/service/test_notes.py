"""A supervisor's note through the station service (op ``add_note``): the review of the
station's copy cannot write to it, so its notes go to the station's store, audited ``note``
by the supervisor whose PIN the service checked. A refused note writes nothing."""

from __future__ import annotations

from typing import Any

import pytest

from dealer_assist.service.client import ServiceClient, ServiceError
from tests.service.conftest import Station


def notes(s: Station) -> list[tuple[str, int | None, dict[str, Any]]]:
    assert s.running is not None
    return [(a.actor, a.round_id, a.detail) for a in s.running.store.audit_entries(kind="note")]


def test_a_note_needs_a_supervisors_pin_a_text_and_a_round_of_the_store(station: Any) -> None:
    s: Station = station("10S 9H QD 8C")
    c = s.dealer()  # sue (supervisor, 482913), ann (dealer, 730418), bob (supervisor, 551903)
    c.request("wager", player="p1", bet="main", amount=10, area=1)
    rid = s.deal(c, 1)["round_id"]
    review = ServiceClient(s.socket, "review")  # nobody logged in on it, as the review
    try:
        for args, code in (({"round_id": rid, "text": "x"}, "pin"),  # no PIN
                           ({"round_id": rid, "text": "x", "pin": {"user": "ann", "pin": "730418"}}, "pin"),
                           ({"round_id": rid, "text": "x", "pin": {"user": "sue", "pin": "000000"}}, "pin"),
                           ({"round_id": rid, "text": "  ", "pin": {"user": "sue", "pin": "482913"}}, "bad_request"),
                           ({"round_id": rid + 99, "text": "x", "pin": {"user": "sue", "pin": "482913"}},
                            "bad_request")):
            with pytest.raises(ServiceError) as caught:
                review.request("add_note", **args)
            assert caught.value.code == code, (args, caught.value.message)
        assert notes(s) == []  # nothing written by a refusal
        reply = review.request("add_note", round_id=rid, text="the shoe was reloaded by hand",
                               pin={"user": "bob", "pin": "551903"})
        table = review.request("add_note", round_id=None, text="felt changed", pin={"user": "sue", "pin": "482913"})
    finally:
        review.close()
    assert reply["note"] < table["note"]
    assert notes(s) == [("supervisor:bob", rid, {"text": "the shoe was reloaded by hand"}),
                        ("supervisor:sue", None, {"text": "felt changed"})]
