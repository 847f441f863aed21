"""`dealer-assist settle` never raises (issue 15 item 6, spec/round-script.md).

Fuzzed transcripts with huge and long numbers, lone surrogates, control characters and
line breaks in names, and cents: every run ends with exit 0 and a JSON document, or
exit 2 and exactly one line ``error: ...`` on standard error. An exception escaping
``main`` fails the test with its traceback.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from dealer_assist.cli import main

ROOT = Path(__file__).resolve().parents[2]


def run_settle(text: str | bytes) -> tuple[int, bytes, bytes]:
    """``dealer-assist settle -`` in this process: (exit status, stdout bytes, stderr bytes)."""
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    saved = sys.stdin, sys.stdout, sys.stderr
    out, err = io.BytesIO(), io.BytesIO()
    streams = (io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"),
               io.TextIOWrapper(out, encoding="utf-8"), io.TextIOWrapper(err, encoding="utf-8"))
    sys.stdin, sys.stdout, sys.stderr = streams
    try:
        status = main(["settle", "-"])
        for stream in streams[1:]:
            stream.flush()
        values = out.getvalue(), err.getvalue()
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved
        for stream in streams:
            stream.detach()
    return status, *values


def check_run(text: str | bytes) -> tuple[int, bytes, bytes]:
    status, out, err = run_settle(text)
    assert status in (0, 2), (status, err)
    if status == 0:
        assert err == b""
        assert isinstance(json.loads(out.decode("utf-8")), dict)
    else:
        assert out == b""
        line = err.decode("utf-8")  # one UTF-8 line: "error: ..." and its newline, nothing else
        assert line.startswith("error: ") and line.endswith("\n"), line
        assert line.count("\n") == 1 and "\r" not in line and "\u2028" not in line, line
        assert line[:-1].isprintable(), line
    return status, out, err


# --------------------------------------------------------------------------- the fuzz

PLAIN_AMOUNTS = st.one_of(
    st.integers(1, 500).map(str),
    st.decimals(min_value=Decimal("0.01"), max_value=Decimal(500), places=2).map(str),  # cents
)
ODD_NUMBERS = st.one_of(
    st.integers(20, 40).map(lambda n: "1" + "0" * n),  # 10^20 .. 10^40 (10^26 crashed quantize)
    st.integers(4290, 4400).map(lambda n: "9" * n),  # around Python's 4300-digit limit
    st.integers(1, 6000).map(lambda n: "0." + "0" * n + "1"),  # long fractions
    st.integers(1, 3000).map(lambda n: "1" * n + ".5"),
    st.decimals(allow_nan=False, allow_infinity=False).map(str),
    st.integers(-10**30, 10**30).map(str),
    st.sampled_from(["1e400", "1E+26", "-1e26", "1e-400", "25.5", "12.50", "0.001", "7.0", "1000000000.01",
                     "1e999999999", "NaN", "Infinity", "-Infinity", "-0", "1.5e2", "0", "-5", "6.0"]),
)
BAD_TEXT = st.sampled_from(["\ud800", "\udfff", "a\ud83d", "\n", "ok: forged\n", "\r", "\x00", "\x1b[2J",
                            "\u2028", "\u2029", "\x85", "\t", "\u202e", "\ufeff"])
GOOD_NAMES = st.text(min_size=1, max_size=12).filter(lambda t: t.isprintable())  # any valid Unicode
BAD_NAMES = st.one_of(
    st.text(min_size=1, max_size=12),  # also unprintable ones (format characters, ...)
    st.tuples(st.text(max_size=4), BAD_TEXT, st.text(max_size=4)).map("".join),
)


def _render(template: str, numbers: list[str], names: list[str]) -> str:
    """The template with ``#N`` replaced by number tokens (raw JSON) and ``@N`` by names
    (JSON strings with \\u escapes, so lone surrogates get through as JSON allows)."""
    out = template
    for i, token in enumerate(numbers):
        out = out.replace(f"#{i}", token)
    for i, name in enumerate(names):
        out = out.replace(f"@{i}", json.dumps(name, ensure_ascii=True))
    return out


# (template, its plain numbers: with these and three distinct names the round is valid)
TEMPLATES: list[tuple[str, list[str]]] = [
    # a table game with limits, seats, a wager, a claim and a double
    ('{"game": "ace_race", "decks": #0, "areas": 7, "limits": {"main": [#1, #2]}, "seated": {@0: 1},'
     ' "events": [{"type": "wager", "player": @0, "area": 1, "bet": "main", "amount": #3},'
     ' {"type": "claim", "bet": "pair", "area": 1, "claimants": [{"player": @1, "amount": #4}]},'
     ' {"type": "no_more_bets"}, {"type": "card", "card": "5H"}, {"type": "card", "card": "9C"},'
     ' {"type": "card", "card": "6S"}, {"type": "decision", "action": "double", "area": #5, "amount": #6}]}',
     ["6", "1", "1000", "A", "A", "1", "B"]),
    # Lucky 8 with a split and a follower, then a card
    ('{"game": "lucky8", "decks": 6, "areas": #0, "under_min_history": [@2],'
     ' "events": [{"type": "wager", "player": @0, "area": 1, "bet": "main", "amount": #1},'
     ' {"type": "wager", "player": @1, "area": 1, "bet": "main", "amount": #2},'
     ' {"type": "no_more_bets"}, {"type": "card", "card": "8H"}, {"type": "card", "card": "9C"},'
     ' {"type": "card", "card": "8S"}, {"type": "decision", "action": "split", "area": 1, "hand": #3,'
     ' "followers": {@1: "match"}}, {"type": "card", "card": "2D"}]}',
     ["7", "A", "A", "1", "1", "1", "1"]),
    # Electronic: terminals by name
    ('{"game": "electronic", "decks": #0, "events": [{"type": "wager", "player": @0, "bet": "main",'
     ' "amount": #1}, {"type": "wager", "player": @1, "bet": "main", "amount": #4},'
     ' {"type": "wager", "player": @1, "bet": "royal_match", "amount": #2},'
     ' {"type": "no_more_bets"}, {"type": "card", "card": "10H"}, {"type": "card", "card": "6C"},'
     ' {"type": "card", "card": "7S"}, {"type": "decision", "action": "hit", "player": @0, "hand": #3}]}',
     ["6", "A", "A", "1", "1", "1", "1"]),
    # Star Elements: a void whose reason is free text
    ('{"game": "star_elements", "decks": 6, "areas": 7, "limits": {"super_sevens": [#0, #1]},'
     ' "events": [{"type": "wager", "player": @0, "area": #2, "bet": "main", "amount": #4},'
     ' {"type": "wager", "player": @0, "area": #2, "bet": "super_sevens", "amount": #3},'
     ' {"type": "no_more_bets"}, {"type": "card", "card": "7Wa"}, {"type": "void", "reason": @1, "rule": "5.1"}]}',
     ["1", "100", "2", "A", "A", "1", "1"]),
    # Dueling 8's
    ('{"game": "dueling8s", "decks": 8, "areas": 7, "one_area_players": [@0],'
     ' "events": [{"type": "wager", "player": @0, "area": 2, "bet": "main", "amount": #0},'
     ' {"type": "wager", "player": @0, "area": 2, "bet": "tie18", "amount": #1},'
     ' {"type": "no_more_bets"}, {"type": "card", "card": "KH"},'
     ' {"type": "decision", "action": "stand", "area": #2, "player": @0}]}',
     ["A", "A", "2", "1", "1", "1", "1"]),
]


@st.composite
def transcripts(draw: st.DrawFn) -> str:
    template, plain = draw(st.sampled_from(TEMPLATES))
    numbers = [draw(PLAIN_AMOUNTS) if n == "A" else draw(PLAIN_AMOUNTS.filter(lambda a: float(a) >= 2))
               if n == "B" else n for n in plain]
    names = draw(st.lists(GOOD_NAMES, min_size=3, max_size=3, unique=True))
    for _ in range(draw(st.integers(0, 2))):  # zero, one or two odd numbers
        numbers[draw(st.integers(0, 6))] = draw(ODD_NUMBERS)
    if draw(st.booleans()):  # a name that may not be one
        names[draw(st.integers(0, 2))] = draw(BAD_NAMES)
    return _render(template, numbers, names)


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=transcripts())
def test_fuzzed_transcripts_never_raise(text: str) -> None:
    status, _, err = check_run(text)
    event(f"exit {status}" + (f": {err.decode()[7:30]}" if status else ""))


# --------------------------------------------------------------------------- one by one

def _wager_doc(player: str = "alice", amount: Any = 25, **header: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {"game": "lucky8", "decks": 6, "areas": 7, **header}
    doc["events"] = [
        {"type": "wager", "player": player, "area": 1, "bet": "main", "amount": amount},
        {"type": "no_more_bets"},
        {"type": "card", "card": "10H"}, {"type": "card", "card": "9C"}, {"type": "card", "card": "AS"},
    ]
    return doc


def test_amount_of_ten_to_the_26_is_refused_with_a_clear_message() -> None:
    status, _, err = check_run(json.dumps(_wager_doc()).replace('"amount": 25', '"amount": 1e26'))
    assert status == 2
    assert b"amount 1E+26 is more than the largest amount, 1000000000" in err
    status, _, err = check_run(json.dumps(_wager_doc(limits={"main": [10, 10**26]})))
    assert status == 2 and b"limits: main: amount 100000000000000000000000000 is more than" in err


def test_a_number_of_more_than_4300_digits_is_refused() -> None:
    text = json.dumps(_wager_doc()).replace('"amount": 25', '"amount": ' + "9" * 4301)
    status, _, err = check_run(text)
    assert status == 2 and b"a number of 4301 digits (at most 4300)" in err


def test_a_lone_surrogate_in_a_name_is_refused_naming_where_it_is() -> None:
    status, _, err = check_run(json.dumps(_wager_doc(player="al\ud800")))
    assert status == 2
    assert err == b"error: '/events/0/player': 'al\\ud800' holds a lone surrogate, which is not a Unicode character\n"


def test_a_newline_in_a_name_cannot_forge_a_log_line() -> None:
    status, _, err = check_run(json.dumps(_wager_doc(player="x\nok: 10 events, 1 rounds")))
    assert status == 2
    assert err.count(b"\n") == 1 and not err.startswith(b"ok:")
    assert b"'x\\nok: 10 events, 1 rounds'" in err  # quoted, escaped
    assert b"a control character or line break ('\\n') cannot be in a name" in err


def test_a_control_character_in_a_seated_name_is_refused() -> None:
    doc = _wager_doc(seated={"bo\x1bb": 1})
    status, _, err = check_run(json.dumps(doc))
    assert status == 2 and err.startswith(b"error: seated: player 'bo\\x1bb': a control character")


def test_cents_are_exact_through_settle() -> None:
    # 3 to 2 on 25.50 is 38.25 (Lucky 8 blackjack, 4.3.1); a JSON number with cents
    status, out, _ = check_run(json.dumps(_wager_doc()).replace('"amount": 25', '"amount": 25.50'))
    assert status == 0
    result = json.loads(out, parse_float=Decimal)
    (entry,) = result["settlements"]
    assert (entry["stake"], entry["net"], entry["result"]) == (Decimal("25.5"), Decimal("38.25"), "win")
    assert result["net"] == {"alice": Decimal("38.25")}


def test_12_50_wagers_settle_and_record(tmp_path: Path) -> None:
    # the dealer's screen takes a 12.50 wager: settle --record takes it too
    path = tmp_path / "t.json"
    path.write_text(json.dumps(_wager_doc(amount=12.5)), encoding="utf-8")
    saved = sys.stdout
    sys.stdout = stream = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    try:
        status = main(["settle", str(path), "--record", str(tmp_path / "table.db")])
    finally:
        sys.stdout = saved
        stream.detach()
    assert status == 0
    from dealer_assist.store import Store

    with Store.open(tmp_path / "table.db") as store:
        (summary,) = store.list_rounds()
        detail = store.get_round(summary.id)
        assert detail is not None and detail.result is not None
        assert detail.result["net"] == {"alice": 18.75}  # 12.50 x 3/2
        assert store.export_round(summary.id)["events"][0]["amount"] == 12.5


def test_any_valid_unicode_survives_whatever_the_terminal_encoding(tmp_path: Path) -> None:
    name = "Zoë 李 \U0001f0a1 \u202eabc 👩\u200d👩\u200d👧"
    path = tmp_path / "t.json"
    path.write_text(json.dumps(_wager_doc(player=name)), encoding="utf-8")
    env = {**os.environ, "PYTHONIOENCODING": "ascii", "LC_ALL": "C"}
    done = subprocess.run([sys.executable, "-m", "dealer_assist", "settle", str(path)], cwd=ROOT,
                          capture_output=True, env=env, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.decode("utf-8"))["net"] == {name: 37.5}
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(_wager_doc(player=name + "\ud800")), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "dealer_assist", "settle", str(bad)], cwd=ROOT,
                          capture_output=True, env=env, timeout=60, check=False)
    assert done.returncode == 2 and b"Traceback" not in done.stderr
    assert done.stderr.count(b"\n") == 1 and "李".encode() in done.stderr


def test_a_short_number_of_a_billion_digits_is_refused_before_any_store_sees_it(tmp_path: Path) -> None:
    # 1e999999999 is eleven characters but, written out as the store writes numbers, a
    # billion digits: refused like an integer of more than 4300 digits, --record or not
    doc = json.dumps(_wager_doc(note="X")).replace('"note": "X"', '"note": 1e999999999')
    status, _, err = check_run(doc)
    assert status == 2 and b"the number '1e999999999' has more than 4300 digits" in err
    path = tmp_path / "t.json"
    path.write_text(doc, encoding="utf-8")
    assert main(["settle", str(path), "--record", str(tmp_path / "table.db")]) == 2
    assert not (tmp_path / "table.db").exists()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=transcripts())
def test_fuzzed_transcripts_never_raise_with_record(text: str) -> None:
    # settle --record writes the document as settle read it (Decimals) into a real store
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "t.json"
        path.write_bytes(text.encode("utf-8", "surrogatepass"))
        saved = sys.stdout, sys.stderr
        out, err = io.BytesIO(), io.BytesIO()
        streams = io.TextIOWrapper(out, encoding="utf-8"), io.TextIOWrapper(err, encoding="utf-8")
        sys.stdout, sys.stderr = streams
        try:
            status = main(["settle", str(path), "--record", str(Path(tmp) / "table.db")])
            for stream in streams:
                stream.flush()
        finally:
            sys.stdout, sys.stderr = saved
            for stream in streams:
                stream.detach()
        assert status in (0, 2), err.getvalue()
        if status == 2:
            line = err.getvalue().decode("utf-8")
            assert line.startswith("error: ") and line.count("\n") == 1 and line[:-1].isprintable()
        else:
            from dealer_assist.store import Store

            with Store.open_readonly(Path(tmp) / "table.db") as store:
                assert store.round_count() == 1
