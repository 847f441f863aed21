"""Benchmark of the round store (not a test): ``python -m dealer_assist.bench.store``.

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
- optionally (``--verify``) the time ``history verify`` takes on that file (``--jobs`` worker
  processes; ``--resettle``: also re-settling every round), with its CPU time and peak memory.

Targets from issue 7: append p99 <= 10 ms; list latest 100 <= 50 ms; player filter <= 200 ms.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import dealer_assist.store.log as log
import dealer_assist.store.results as results
from dealer_assist.bench.simulate import Shoe
from dealer_assist.engine.transcript import new_round, parse_event, round_output
from dealer_assist.games import GAMES as GAMES_RULES
from dealer_assist.store import Store, canonical_json, format_time
from dealer_assist.store.keying import record_head
from dealer_assist.store.keys import write_head_file

GAME_CYCLE: tuple[str, ...] = ("lucky8", "ace_race", "star_elements", "dueling8s", "electronic")
SEATS = 7  # players at a table game (one per area) / terminals at Electronic
PLACEHOLDERS = tuple(f"@player{n}@" for n in range(SEATS))  # sorted like the names put in


def real_round(game: str, rng: random.Random) -> tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any]]:
    """One round played through the engine and recorded as the dealer's screen records it:
    the configuration (seats, limits, the 5.1 shoe so far), each wager with its area, the
    cards with the shoe's frame numbers, the decisions; and the engine's settle output."""
    rules = GAMES_RULES[game]
    electronic = rules.shared_hand
    config: dict[str, Any] = {"game": game, "decks": 6}
    if not electronic:
        config["areas"] = SEATS
        config["limits"] = {"main": [10, 5000]}
        config["seated"] = {name: n + 1 for n, name in enumerate(PLACEHOLDERS)}
    shoe = Shoe(game, 6, rng.randrange(1 << 30))
    shoe.shuffle()
    seen = [str(next(shoe)) for _ in range(rng.randrange(0, 60))]
    if seen:
        config["shoe_dealt"] = seen
    events: list[dict[str, Any]] = []
    for n, name in enumerate(PLACEHOLDERS):
        area = {} if electronic else {"area": n + 1}
        events.append({"type": "wager", "player": name, "bet": "main",
                       "amount": rng.choice((10, 25, 50, 100, 12.5)), **area})
        for side in rules.side_bets:
            if rng.random() < 0.6:
                events.append({"type": "wager", "player": name, "bet": side, "amount": 5, **area})
    events.append({"type": "no_more_bets"})
    rnd = new_round(config)
    for event in events:
        rnd.apply(parse_event(event))
    frame = rng.randrange(1, 60000)
    for _ in range(400):
        exp = rnd.expectation()
        raw: dict[str, Any]
        if exp.kind == "card":
            frame += 1
            raw = {"type": "card", "card": str(next(shoe)), "shoe_seq": frame}
        elif exp.kind == "decisions":
            pending = exp.pending[0]
            options = [o for o in pending["options"] if o in ("hit", "stand")] or ["stand"]
            raw = {"type": "decision", "action": rng.choice(options), "hand": pending.get("hand"),
                   "player": pending["player"]}
        elif exp.kind == "decision":
            if exp.area is None or exp.hand is None or "stand" not in exp.options:
                raw = {"type": "close_offers"}
            else:
                raw = {"type": "decision", "action": rng.choice([o for o in exp.options if o in ("hit", "stand")]),
                       "area": exp.area, "hand": exp.hand}
        else:
            break
        rnd.apply(parse_event(raw))
        events.append(raw)
    return config, events, round_output(rnd)


def bulk_generate(path: Path, rounds: int, players: int, seed: int = 1, templates: int = 500) -> None:
    """Record ``rounds`` real rounds (all five games, seven players each, as the dealer's
    screen records them) through the store's own record functions, chains and head included.

    ``templates`` distinct rounds are played through the engine; each recorded round is one
    of them with seven players drawn from ``players`` names (in the same order, so the
    engine settles it the same). Bulk-load settings (synchronous=OFF, a transaction per
    5,000 rounds) are for generating the benchmark file only.
    """
    rng = random.Random(seed)
    played = [real_round(GAME_CYCLE[n % len(GAME_CYCLE)], rng) for n in range(templates)]
    texts = [
        (canonical_json(config), [canonical_json(e) for e in events], canonical_json(output))
        for config, events, output in played
    ]

    def named(text: str, names: list[str]) -> Any:
        for placeholder, name in zip(PLACEHOLDERS, names, strict=True):
            text = text.replace(placeholder, name)
        return json.loads(text)

    with Store.open(path) as store:
        conn = store.db.conn
        key = store.station_key
        assert key is not None
        conn.execute("PRAGMA synchronous = OFF")
        conn.execute("PRAGMA cache_size = -200000")
        batch = 5000
        t0 = time.perf_counter()
        head = None
        for first in range(0, rounds, batch):
            conn.execute("BEGIN IMMEDIATE")
            for n in range(first, min(first + batch, rounds)):
                config_text, event_texts, output_text = texts[n % templates]
                names = sorted(f"p{i:05d}" for i in rng.sample(range(players), SEATS))
                round_id = log.insert_round(conn, named(config_text, names), None, None, "live", None)
                for seq, text in enumerate(event_texts):
                    log.insert_event(conn, round_id, seq, named(text, names), "dealer:ann", None)
                results.finish(conn, round_id, named(output_text, names), "dealer:ann")
            head = record_head(conn, key)
            conn.execute("COMMIT")
            done = min(first + batch, rounds)
            if done % 50_000 == 0 or done == rounds:
                rate = done / (time.perf_counter() - t0)
                print(f"  generated {done:>9,} rounds ({rate:,.0f}/s)", file=sys.stderr, flush=True)
        if head is not None:
            write_head_file(store.head_path, head)
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        conn.execute("ANALYZE")


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
    return samples  # the round stays open (its events are not a real round to settle)


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


def time_verify(path: Path, rounds: int, jobs: int, *, resettle: bool) -> None:
    """Time ``history verify`` of ``path``: wall time, rounds a second, CPU time (this process
    and its worker processes: less dependent on other work on the machine than the wall
    time), peak memory, and the load average while it ran (Unix: ``resource``)."""
    import resource

    before = (resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN))
    load = os.getloadavg()[0]
    with Store.open_readonly(path) as store:
        t = time.perf_counter()
        result = store.verify(jobs=jobs, resettle=resettle)
        wall = time.perf_counter() - t
    after = (resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN))
    cpu = sum(a.ru_utime + a.ru_stime - b.ru_utime - b.ru_stime for a, b in zip(after, before, strict=True))
    peak = max(after[0].ru_maxrss, after[1].ru_maxrss) / 1024  # KiB on Linux
    how = "re-settling every round" if resettle else f"sealed, jobs={jobs}"
    print(
        f"verify ({how}): {'ok' if result.ok else result.problem} "
        f"({result.events:,} events, {result.rounds:,} rounds, {result.audit:,} audit) "
        f"in {wall:.1f} s = {rounds / wall:,.0f} rounds/s; CPU {cpu:.1f} s "
        f"({cpu / max(rounds, 1) * 1e6:.0f} us a round); peak RSS {peak:.0f} MiB (largest process); "
        f"load average {load:.1f} -> {os.getloadavg()[0]:.1f}"
    )


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
        prog="python -m dealer_assist.bench.store", description=__doc__
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
    parser.add_argument(
        "--resettle", action="store_true", help="with --verify: also time verify re-settling every round"
    )
    parser.add_argument(
        "--jobs", type=int, default=min(4, os.cpu_count() or 1),
        help="worker processes for verify (default: the cores, at most 4)",
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
            time_verify(big, args.rounds, args.jobs, resettle=False)
            if args.resettle:
                time_verify(big, args.rounds, args.jobs, resettle=True)
    finally:
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
