"""Benchmark of the round store (not a test): ``python -m dealer_assist.store_bench``.

Prints:
- durable append of one event (``Store.append_event``: BEGIN IMMEDIATE, insert,
  COMMIT with synchronous=FULL, i.e. an fsync per event): median and p99, on an empty
  file and on the big file;
- with N recorded rounds (default one million, generated with bulk inserts in a
  temporary directory, full hash chains included so the file verifies): ``list`` of the
  latest 100, a filter by player, by status and by irregular flag (first call and
  median of repeated calls), through ``Store.open_readonly`` as the CLI and review
  screens use it;
- bytes on disk per round;
- optionally (``--verify``) the time ``history verify`` takes on that file.

Targets from issue 7: append p99 <= 10 ms; list latest 100 <= 50 ms; player filter <= 200 ms.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import hashlib
import os
import random
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dealer_assist.store import (
    ZERO_HASH,
    Store,
    audit_content,
    canonical_json,
    chain,
    event_content,
    format_time,
    round_content,
)

GAMES: list[dict[str, Any]] = [
    {
        "config": {"game": "lucky8", "decks": 6, "areas": 7, "limits": {"main": [10, 5000]}},
        "events": [
            {"type": "wager", "player": "{a}", "area": 1, "bet": "main", "amount": 25},
            {"type": "wager", "player": "{a}", "area": 1, "bet": "pair", "amount": 5},
            {"type": "wager", "player": "{b}", "area": 3, "bet": "main", "amount": 50},
            {"type": "wager", "player": "{b}", "area": 3, "bet": "lucky8", "amount": 10},
            {"type": "no_more_bets"},
            {"type": "card", "card": "7H"},
            {"type": "card", "card": "8C"},
            {"type": "card", "card": "8D"},
            {"type": "card", "card": "7H"},
            {"type": "card", "card": "3S"},
            {"type": "decision", "area": 1, "action": "stand"},
            {"type": "decision", "area": 3, "action": "double"},
            {"type": "card", "card": "9H"},
            {"type": "card", "card": "10S"},
        ],
        "settlements": [
            ("{a}", 1, None, "pair", "5", "win", "55", "4.2", "interim"),
            ("{b}", 3, None, "lucky8", "10", "win", "50", "4.3", "interim"),
            ("{a}", 1, 1, "main", "25", "lose", "-25", "3.31", "final"),
            ("{b}", 3, 1, "main", "100", "win", "100", "3.31", "final"),
        ],
        "net": {"{a}": 30, "{b}": 150},
    },
    {
        "config": {"game": "ace_race", "decks": 6, "areas": 7, "seated": {"{a}": 2}},
        "events": [
            {"type": "wager", "player": "{a}", "area": 2, "bet": "main", "amount": 20},
            {"type": "no_more_bets"},
            {"type": "card", "card": "10S"},
            {"type": "card", "card": "9D"},
            {"type": "card", "card": "KH"},
            {"type": "decision", "area": 2, "action": "stand"},
            {"type": "card", "card": "7C"},
            {"type": "card", "card": "QD"},
        ],
        "settlements": [("{a}", 2, 1, "main", "20", "win", "20", "4.3.2", "final")],
        "net": {"{a}": 20},
    },
]


SETTLEMENT_FIELDS = ("player", "area", "hand", "bet", "stake", "result", "net", "rule", "stage")


def _result(template: dict[str, Any], status: str, irregular: bool) -> dict[str, Any]:
    """The settle output of a template round (player names still as placeholders)."""
    return {
        "game": template["config"]["game"],
        "status": status,
        "settlements": [
            dict(zip(SETTLEMENT_FIELDS, s, strict=True)) for s in template["settlements"]
        ],
        "net": template["net"],
        "rulings": [
            {"index": 6, "rule": "5.6.1", "ruling": "reconstructed", "text": "", "moves": []}
        ]
        if irregular
        else [],
    }


def bulk_generate(path: Path, rounds: int, players: int, seed: int = 1) -> None:
    """Write ``rounds`` settled rounds with events, settlements, players and audit rows.

    Bulk-load settings (synchronous=OFF, big transactions) are for generating the
    benchmark file only; chains are computed exactly as the store does, so the file
    verifies.
    """
    Store.open(path).close()  # schema via the real migrations
    rng = random.Random(seed)
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA synchronous = OFF")
    conn.execute("PRAGMA cache_size = -200000")
    prev = {"events": ZERO_HASH, "rounds": ZERO_HASH, "audit": ZERO_HASH}
    result_texts: dict[tuple[int, str, int], str] = {}
    config_texts: list[str] = [canonical_json(t["config"]) for t in GAMES]
    event_texts: list[list[str]] = [[canonical_json(e) for e in t["events"]] for t in GAMES]

    def sub(text: str, names: dict[str, str]) -> str:
        for placeholder, name in names.items():
            text = text.replace(placeholder, name)
        return text

    event_id = 0
    start = 1_700_000_000.0
    batch = 20_000
    t0 = time.perf_counter()
    for first in range(1, rounds + 1, batch):
        round_rows: list[tuple[Any, ...]] = []
        event_rows: list[tuple[Any, ...]] = []
        player_rows: list[tuple[Any, ...]] = []
        settlement_rows: list[tuple[Any, ...]] = []
        ruling_rows: list[tuple[Any, ...]] = []
        audit_rows: list[tuple[Any, ...]] = []
        for round_id in range(first, min(first + batch, rounds + 1)):
            template = GAMES[round_id % len(GAMES)]
            a, b = rng.sample(range(players), 2)
            names = {"{a}": f"p{a:05d}", "{b}": f"p{b:05d}"}
            config: dict[str, Any] = template["config"]
            config_json = sub(config_texts[round_id % len(GAMES)], names)
            started = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(start + round_id * 30))
            started_at = f"{started}.000000Z"
            ended_at = f"{started}.500000Z"
            rhash = chain(
                prev["rounds"],
                round_content(round_id, None, round_id, "live", started_at, config_json),
            )
            prev["rounds"] = rhash
            last_hash = ZERO_HASH
            events = event_texts[round_id % len(GAMES)]
            for seq, event_template in enumerate(events):
                event_id += 1
                event_json = sub(event_template, names)
                at = started_at
                last_hash = chain(
                    prev["events"],
                    event_content(event_id, round_id, seq, at, "dealer", event_json),
                )
                prev["events"] = last_hash
                event_rows.append((event_id, round_id, seq, at, "dealer", event_json, last_hash))
            net = {names[k]: v for k, v in template["net"].items()}
            irregular = 1 if round_id % 97 == 0 else 0
            status = "void" if round_id % 997 == 0 else "settled"
            settlements = [(names[s[0]], *s[1:]) for s in template["settlements"]]
            key = (round_id % len(GAMES), status, irregular)
            if key not in result_texts:
                result_texts[key] = canonical_json(_result(template, status, bool(irregular)))
            if irregular:
                ruling_rows.append((round_id, 6, "5.6.1", "reconstructed", "", "[]"))
            result_json = sub(result_texts[key], names)
            ended = ended_at if status in ("settled", "void") else None
            if status == "void":
                irregular = 1
            people = sorted(net)
            round_rows.append(
                (
                    round_id,
                    None,
                    round_id,
                    "live",
                    config["game"],
                    config_json,
                    started_at,
                    ended,
                    status,
                    canonical_json(people),
                    canonical_json(net),
                    irregular,
                    result_json,
                    rhash,
                )
            )
            for person in people:
                player_rows.append((person, round_id, str(net[person])))
            for s in settlements:
                settlement_rows.append((round_id, *s))
            detail = canonical_json(
                {
                    "status": status,
                    "result_sha256": hashlib.sha256(result_json.encode()).hexdigest(),
                    "events": len(events),
                    "last_event_hash": last_hash.hex(),
                }
            )
            audit_id = round_id
            ahash = chain(
                prev["audit"],
                audit_content(audit_id, ended_at, "dealer", "round_finish", round_id, detail),
            )
            prev["audit"] = ahash
            audit_rows.append(
                (audit_id, ended_at, "dealer", "round_finish", round_id, detail, ahash)
            )
        with conn:
            conn.executemany(
                "INSERT INTO rounds (id, session_id, number, source, game, config_json, started_at, ended_at, "
                "status, players_json, totals_json, irregular, result_json, hash) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                round_rows,
            )
            conn.executemany(
                "INSERT INTO events (id, round_id, seq, at, actor, event_json, hash) VALUES (?, ?, ?, ?, ?, ?, ?)",
                event_rows,
            )
            conn.executemany(
                "INSERT INTO round_players (player, round_id, net) VALUES (?, ?, ?)", player_rows
            )
            conn.executemany(
                "INSERT INTO settlements (round_id, player, area, hand, bet, stake, result, net, rule, stage) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                settlement_rows,
            )
            conn.executemany(
                "INSERT INTO rulings (round_id, event_index, rule, ruling, text, moves_json) VALUES (?, ?, ?, ?, ?, ?)",
                ruling_rows,
            )
            conn.executemany(
                "INSERT INTO audit (id, at, actor, kind, round_id, detail_json, hash) VALUES (?, ?, ?, ?, ?, ?, ?)",
                audit_rows,
            )
        done = min(first + batch - 1, rounds)
        if done % 200_000 == 0 or done == rounds:
            rate = done / (time.perf_counter() - t0)
            print(f"  generated {done:>9,} rounds ({rate:,.0f}/s)", file=sys.stderr, flush=True)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.execute("ANALYZE")
    conn.close()


def time_appends(path: Path, count: int) -> list[float]:
    """Milliseconds per durable ``append_event`` call."""
    samples: list[float] = []
    with Store.open(path) as store:
        round_id = store.begin_round({"game": "lucky8", "decks": 6, "areas": 7})
        for n in range(count):
            event = (
                {"type": "card", "card": "7H"}
                if n % 2
                else {"type": "decision", "area": 1, "action": "hit"}
            )
            t = time.perf_counter()
            store.append_event(round_id, event)
            samples.append((time.perf_counter() - t) * 1000)
        store.finish_round(
            round_id, {"status": "void", "settlements": [], "net": {}, "rulings": []}
        )
    return samples


def time_fsync(directory: Path, count: int) -> list[float]:
    """Milliseconds for a bare write(4 KiB) + fsync on the same disk: the floor for a durable append."""
    probe = directory / "fsync-probe"
    fd = os.open(probe, os.O_CREAT | os.O_WRONLY, 0o600)
    samples: list[float] = []
    try:
        for _ in range(count):
            os.write(fd, b"\0" * 4096)
            t = time.perf_counter()
            os.fsync(fd)
            samples.append((time.perf_counter() - t) * 1000)
    finally:
        os.close(fd)
        probe.unlink()
    return samples


def percentile(samples: list[float], p: float) -> float:
    ordered = sorted(samples)
    index = min(len(ordered) - 1, max(0, round(p / 100 * len(ordered) + 0.5) - 1))
    return ordered[index]


def time_query(fn: Callable[[], object], repeat: int = 20) -> tuple[float, float]:
    """(first call ms, median of the following calls ms)."""
    t = time.perf_counter()
    fn()
    first = (time.perf_counter() - t) * 1000
    runs = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        runs.append((time.perf_counter() - t) * 1000)
    return first, statistics.median(runs)


def file_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in (path, Path(f"{path}-wal")) if p.exists())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m dealer_assist.store_bench", description=__doc__
    )
    parser.add_argument(
        "--rounds", type=int, default=1_000_000, help="rounds to generate (default 1,000,000)"
    )
    parser.add_argument("--players", type=int, default=5000, help="distinct players (default 5000)")
    parser.add_argument(
        "--appends", type=int, default=1000, help="durable appends to time (default 1000)"
    )
    parser.add_argument(
        "--dir", type=Path, default=None, help="work directory (default: a temporary one)"
    )
    parser.add_argument(
        "--reuse",
        type=Path,
        default=None,
        help="time an existing store file instead of generating one",
    )
    parser.add_argument("--keep", action="store_true", help="keep the generated file")
    parser.add_argument(
        "--verify", action="store_true", help="also time a full verify of the big file"
    )
    args = parser.parse_args(argv)

    work = Path(tempfile.mkdtemp(prefix="store-bench-", dir=args.dir))
    try:
        print(f"work directory: {work}")
        floor = time_fsync(work, min(args.appends, 300))
        print(
            f"bare fsync of 4 KiB on this disk (for comparison): median {statistics.median(floor):.2f} ms, "
            f"p99 {percentile(floor, 99):.2f} ms"
        )
        small = work / "empty.db"
        samples = time_appends(small, args.appends)
        print(
            f"durable append (empty file, {args.appends} events): "
            f"median {statistics.median(samples):.2f} ms, p99 {percentile(samples, 99):.2f} ms, "
            f"max {max(samples):.2f} ms  (target p99 <= 10 ms)"
        )

        if args.reuse is not None:
            big = args.reuse
            with Store.open_readonly(big) as store:
                args.rounds = store.round_count()
            print(f"reusing {big} ({args.rounds:,} rounds)")
        else:
            big = work / "big.db"
            t = time.perf_counter()
            bulk_generate(big, args.rounds, args.players)
            print(f"generated {args.rounds:,} rounds in {time.perf_counter() - t:.0f} s")
        # Bulk loading leaves gigabytes of dirty pages for the kernel to write back; let
        # it finish, so the append timings below measure the store, not that backlog.
        os.sync()
        size = file_bytes(big)
        print(f"bytes on disk: {size:,} total, {size / args.rounds:,.0f} per round")

        with Store.open_readonly(big) as store:
            player = "p00042"
            newest = store.list_rounds(limit=1)[0].started_at
            week_before = format_time(_dt.datetime.fromisoformat(newest) - _dt.timedelta(days=7))
            middle_round = store.get_round(args.rounds // 2)
            assert middle_round is not None
            middle = middle_round.summary.started_at
            queries: list[tuple[str, Callable[[], object], float | None]] = [
                ("list latest 100", lambda: store.list_rounds(limit=100), 50.0),
                (
                    f"filter by player {player} (latest 100)",
                    lambda: store.list_rounds(player=player, limit=100),
                    200.0,
                ),
                (
                    f"filter by player {player} (all)",
                    lambda: store.list_rounds(player=player, limit=None),
                    200.0,
                ),
                (
                    "filter status=void (latest 100)",
                    lambda: store.list_rounds(status="void", limit=100),
                    None,
                ),
                (
                    "filter irregular (latest 100)",
                    lambda: store.list_rounds(irregular=True, limit=100),
                    None,
                ),
                (
                    "filter since (a week before the last round, latest 100)",
                    lambda: store.list_rounds(since=week_before, limit=100),
                    None,
                ),
                (
                    "filter until (the middle of the history, latest 100)",
                    lambda: store.list_rounds(until=middle, limit=100),
                    None,
                ),
                ("get one round (detail)", lambda: store.get_round(args.rounds // 2), None),
                ("export one round", lambda: store.export_round(args.rounds // 2), None),
            ]
            all_rows = len(store.list_rounds(player=player, limit=None))
            for label, fn, target in queries:
                first, median = time_query(fn)
                goal = f"  (target <= {target:.0f} ms)" if target else ""
                print(f"{label}: first {first:.2f} ms, median {median:.2f} ms{goal}")
            print(f"  ({player} took part in {all_rows} rounds)")

        samples = time_appends(big, args.appends)
        print(
            f"durable append (file with {args.rounds:,} rounds): "
            f"median {statistics.median(samples):.2f} ms, p99 {percentile(samples, 99):.2f} ms, "
            f"max {max(samples):.2f} ms"
        )
        if args.verify:
            with Store.open_readonly(big) as store:
                t = time.perf_counter()
                result = store.verify()
                print(
                    f"verify: {'ok' if result.ok else result.problem} "
                    f"({result.events:,} events, {result.rounds:,} rounds, {result.audit:,} audit) "
                    f"in {time.perf_counter() - t:.1f} s"
                )
    finally:
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
