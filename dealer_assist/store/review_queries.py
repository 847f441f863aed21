"""Queries behind the pit supervisor's review (issue 9): no Qt, read-only.

Everything here reads a store file through a :class:`~dealer_assist.store.StoreReader`
(read-only, owning its connection), so the table keeps playing while
a supervisor looks (WAL readers never block the writer).

- :func:`page_rounds` / :func:`count_rounds`: one page of the round list, filtered and
  sorted, by keyset (``(sort key, id)`` after the last row shown), never ``OFFSET``,
  so page 5 000 costs what page 1 costs on a million rounds.
- :func:`replay`: the round's state after each recorded event (the slider).
- :func:`redecide`: the recorded events run through the current rules, compared with
  what was recorded (a dispute tool; it changes nothing).
- :func:`round_integrity`: the hash-chain links of one round's rows, its finish
  record, and whether the derived settlements still agree with the hashed settle output.
- :func:`summaries`: per table session or per dealer: rounds, wagered and won/lost per
  bet kind, hold %, irregular rounds.
- :func:`settlement_csv_rows` / :func:`read_settlement_csv`: the CSV export.
"""

from __future__ import annotations

import copy
import csv
import hashlib
import io
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from decimal import Decimal, InvalidOperation
from typing import Any, Literal

from dealer_assist.base.errors import EventFormatError, RuleRefusal, TranscriptError
from dealer_assist.engine.round_api import Round
from dealer_assist.engine.transcript import describe_event, new_round, parse_event, round_output
from dealer_assist.store import (
    CENTS_SQL as _CENTS,
)
from dealer_assist.store import (
    ROUND_STATUSES,
    StoreReader,
    audit_content,
    event_content,
    first_altered_settlements,
    round_content,
)
from dealer_assist.store.chain import link_ok

__all__ = [
    "SORT_KEYS",
    "BetLine",
    "Difference",
    "IntegrityCheck",
    "Redecision",
    "ReplayStep",
    "RoundFilter",
    "RoundRow",
    "Summary",
    "count_rounds",
    "csv_cell",
    "dealer_of",
    "first_altered_settlements",
    "decimal",
    "page_rounds",
    "read_settlement_csv",
    "redecide",
    "redecide_record",
    "replay",
    "round_integrity",
    "settlement_csv_rows",
    "settlement_csv_text",
    "summaries",
]

#: Columns the list can be sorted by, and the SQL of each key. "time" walks the
#: start-time index (``rounds_started``, which carries the id too).
SORT_KEYS: dict[str, str] = {
    "time": "r.started_at",
    "round": "r.id",
    "game": "r.game",
    "status": "r.status",
}

CSV_FIELDS: tuple[str, ...] = (
    "round", "player", "area", "hand", "bet", "stake", "result", "net", "rule", "stage",
)


def decimal(value: Any) -> Decimal:
    """An amount from the store or a settle output as an exact Decimal (floats by their repr)."""
    if isinstance(value, Decimal):
        return value
    if isinstance(value, float):
        return Decimal(repr(value))
    try:
        return Decimal(str(value))
    except InvalidOperation:
        return Decimal(0)


# ------------------------------------------------------------------ round list


@dataclass(frozen=True)
class RoundFilter:
    """What the supervisor filters on. Times are the store's UTC text (``since``
    inclusive, ``until`` exclusive). ``player`` matches player names starting with it
    (case-sensitive, so the player index is used). ``min_amount``: some player's net
    in the round is at least this much either way (won or lost)."""

    since: str | None = None
    until: str | None = None
    player: str | None = None
    game: str | None = None
    status: str | None = None
    irregular: bool | None = None
    min_amount: Decimal | None = None

    def where(self) -> tuple[list[str], list[Any]]:
        clauses: list[str] = []
        params: list[Any] = []
        if self.player:
            # A prefix range on the (player, round_id) primary key of round_players.
            clauses.append(
                "r.id IN (SELECT round_id FROM round_players WHERE player >= ? AND player < ?)"
            )
            params += [self.player, self.player + "\U0010ffff"]
        if self.since:
            clauses.append("r.started_at >= ?")
            params.append(self.since)
        if self.until:
            clauses.append("r.started_at < ?")
            params.append(self.until)
        if self.game:
            clauses.append("r.game = ?")
            params.append(self.game)
        if self.status:
            if self.status not in ROUND_STATUSES:
                raise ValueError(f"unknown status {self.status!r}: one of {', '.join(ROUND_STATUSES)}")
            clauses.append("r.status = ?")
            params.append(self.status)
        if self.irregular is not None:
            clauses.append("r.irregular = ?")
            params.append(1 if self.irregular else 0)
        if self.min_amount is not None:
            # Nets are TEXT decimals of whole cents; compared in cents, exactly.
            clauses.append(
                "EXISTS (SELECT 1 FROM round_players rp WHERE rp.round_id = r.id "
                "AND abs(CAST(round(CAST(rp.net AS REAL) * 100) AS INTEGER)) >= ?)"
            )
            params.append(int(self.min_amount * 100))
        return clauses, params


@dataclass(frozen=True)
class RoundRow:
    """One line of the round list."""

    id: int
    session_id: int | None
    number: int
    source: str
    game: str
    status: str
    started_at: str
    ended_at: str | None
    dealer: str | None
    players: list[str]
    net: dict[str, Decimal]
    irregular: bool
    wagered: Decimal = Decimal(0)  # stakes of the wagers settled (not returned)

    @property
    def house_net(self) -> Decimal:
        """What the table won (+) or lost (-) on the round: minus the players' nets."""
        return -sum(self.net.values(), Decimal(0))

    def key(self, sort: str) -> tuple[Any, int]:
        value: Any = {
            "time": self.started_at, "round": self.id, "game": self.game, "status": self.status,
        }[sort]
        return value, self.id


_FEW = 5000  # rows few enough to fetch by a filter's own index and sort

_ROW_COLUMNS = (
    "r.id, r.session_id, r.number, r.source, r.game, r.status, r.started_at, r.ended_at, "
    "s.dealer, r.players_json, r.totals_json, r.irregular"
)


def _row(r: Sequence[Any]) -> RoundRow:
    net = {str(k): decimal(v) for k, v in json.loads(r[10]).items()}
    return RoundRow(
        id=int(r[0]), session_id=r[1], number=int(r[2]), source=str(r[3]), game=str(r[4]),
        status=str(r[5]), started_at=str(r[6]), ended_at=r[7], dealer=r[8],
        players=list(json.loads(r[9])), net=net, irregular=bool(r[11]),
    )


def page_rounds(
    reader: StoreReader,
    flt: RoundFilter,
    *,
    sort: str = "time",
    descending: bool = True,
    after: tuple[Any, int] | None = None,
    limit: int = 200,
) -> list[RoundRow]:
    """One page of rounds: those after ``after`` (the last row's ``key(sort)``) in the order."""
    if sort not in SORT_KEYS:
        raise ValueError(f"cannot sort by {sort!r}: one of {', '.join(SORT_KEYS)}")
    column = SORT_KEYS[sort]
    clauses, params = flt.where()
    direction = "DESC" if descending else "ASC"
    if after is not None:
        op = "<" if descending else ">"
        if sort == "round":
            clauses.append(f"r.id {op} ?")
            params.append(after[1])
        else:
            clauses.append(f"({column}, r.id) {op} (?, ?)")
            params += [after[0], after[1]]
    # Time order: walk the start-time index, stopping at the page's end - unless a filter
    # has its own index that finds fewer rows (a player, a status, the irregular flag): then
    # SQLite takes those rows by that index and sorts just them.
    selective = bool(flt.player) or flt.status is not None or flt.irregular is True
    source = "rounds r INDEXED BY rounds_started" if sort == "time" and not selective else "rounds r"
    if sort == "time" and flt.status is not None and not flt.player:
        # A rare status (void, referred, in progress): its rows by the status index, then
        # sorted; a common one (settled): walk the start-time index. A bounded count decides.
        few = reader.row(
            "SELECT COUNT(*) FROM (SELECT 1 FROM rounds WHERE status = ? LIMIT ?)", (flt.status, _FEW)
        )[0] < _FEW
        source = "rounds r INDEXED BY rounds_status" if few else "rounds r INDEXED BY rounds_started"
    sql = f"SELECT {_ROW_COLUMNS} FROM {source} LEFT JOIN sessions s ON s.id = r.session_id"
    if clauses:
        sql += " WHERE " + " AND ".join(clauses)
    order = f"r.id {direction}" if sort == "round" else f"{column} {direction}, r.id {direction}"
    sql += f" ORDER BY {order} LIMIT ?"
    params.append(limit)
    rows = [_row(r) for r in reader.rows(sql, params)]
    if not rows:
        return rows
    # what was wagered on each round of the page (returned wagers left out), in cents
    marks = ", ".join("?" for _ in rows)
    wagered = dict(reader.rows(
        f"SELECT round_id, SUM({_CENTS.format('stake')}) FROM settlements "
        f"WHERE round_id IN ({marks}) AND result != 'returned' GROUP BY round_id",
        [r.id for r in rows],
    ))
    return [replace(r, wagered=Decimal(int(wagered.get(r.id) or 0)) / 100) for r in rows]


def count_rounds(reader: StoreReader, flt: RoundFilter) -> int:
    clauses, params = flt.where()
    sql = "SELECT COUNT(*) FROM rounds r"
    if clauses:
        sql += " WHERE " + " AND ".join(clauses)
    return int(reader.row(sql, params)[0])


def dealer_of(reader: StoreReader, session_id: int | None) -> str | None:
    if session_id is None:
        return None
    row = reader.row("SELECT dealer FROM sessions WHERE id = ?", (session_id,))
    return None if row is None else row[0]


# ------------------------------------------------------------------ replay


@dataclass
class ReplayStep:
    """The round after ``index + 1`` events (``index`` -1: before any event)."""

    index: int
    round: Round
    output: dict[str, Any]
    refusal: str | None = None  # the current rules refused this step's event


def replay(config: Mapping[str, Any], events: Sequence[Mapping[str, Any]]) -> list[ReplayStep]:
    """The state before any event and after each event, applied one by one to a fresh round.

    If the current rules refuse an event (rules changed since it was recorded), that
    step carries the refusal and the round stays as it was before it (the engine leaves
    a refused round unchanged); later events are still tried.
    """
    header = dict(config)
    header.pop("events", None)
    rnd = new_round(header)
    steps = [ReplayStep(-1, _snapshot(rnd, header, []), round_output(rnd))]
    applied: list[Mapping[str, Any]] = []
    for index, raw in enumerate(events):
        refusal = None
        try:
            rnd.apply(parse_event(dict(raw)))
            applied.append(raw)
        except (RuleRefusal, EventFormatError) as exc:
            refusal = f"event {index} ({describe_event(dict(raw))}): {exc}"
        snapshot = _snapshot(rnd, header, applied)
        steps.append(ReplayStep(index, snapshot, round_output(snapshot), refusal))
    return steps


def _snapshot(rnd: Round, header: Mapping[str, Any], applied: Sequence[Mapping[str, Any]]) -> Round:
    """A separate round object holding the state after ``applied`` (rounds are mutable).

    A deep copy (the game's rules shared, they are constant data) keeps a long round's
    replay linear; if the round cannot be copied, it is rebuilt from the events.
    """
    try:
        return copy.deepcopy(rnd, {id(rnd.rules): rnd.rules})
    except (TypeError, copy.Error, RecursionError, AttributeError):
        rebuilt = new_round(dict(header))
        for raw in applied:
            rebuilt.apply(parse_event(dict(raw)))
        return rebuilt


# ------------------------------------------------------------------ re-decide


@dataclass(frozen=True)
class Difference:
    """One way the re-decided round differs from the record."""

    what: str  # settlement | status | net | ruling
    key: str  # e.g. "bob area 3 hand 1 main"
    recorded: str
    redecided: str


@dataclass
class Redecision:
    """The recorded events run through the current rules and compared with the record."""

    output: dict[str, Any] | None
    error: str | None
    differences: list[Difference] = field(default_factory=list)

    @property
    def same(self) -> bool:
        return self.error is None and not self.differences


def _settlement_key(entry: Mapping[str, Any]) -> tuple[str, str, str, str]:
    def part(name: str) -> str:
        value = entry.get(name)
        return "" if value is None else str(value)

    return part("player"), part("area"), part("hand"), part("bet")


def _key_text(key: tuple[str, str, str, str]) -> str:
    player, area, hand, bet = key
    words = [player]
    if area:
        words.append(f"area {area}")
    if hand:
        words.append(f"hand {hand}")
    words.append(bet)
    return " ".join(words)


def _entry_text(entry: Mapping[str, Any] | None) -> str:
    if entry is None:
        return "(none)"
    return (
        f"stake {decimal(entry.get('stake'))} {entry.get('result')} net {decimal(entry.get('net'))} "
        f"({entry.get('rule')})"
    )


def compare_settlements(
    recorded: Sequence[Mapping[str, Any]], redecided: Sequence[Mapping[str, Any]]
) -> list[Difference]:
    """Entries matched by (player, area, hand, bet) in order; stake, result, net, rule compared."""
    groups: dict[tuple[str, str, str, str], tuple[list[Mapping[str, Any]], list[Mapping[str, Any]]]] = {}
    for entry in recorded:
        groups.setdefault(_settlement_key(entry), ([], []))[0].append(entry)
    for entry in redecided:
        groups.setdefault(_settlement_key(entry), ([], []))[1].append(entry)
    out: list[Difference] = []
    for key, (old, new) in groups.items():
        for i in range(max(len(old), len(new))):
            a = old[i] if i < len(old) else None
            b = new[i] if i < len(new) else None
            if a is not None and b is not None and (
                decimal(a.get("stake")) == decimal(b.get("stake"))
                and a.get("result") == b.get("result")
                and decimal(a.get("net")) == decimal(b.get("net"))
                and (a.get("rule") or None) == (b.get("rule") or None)
            ):
                continue
            out.append(Difference("settlement", _key_text(key), _entry_text(a), _entry_text(b)))
    return out


def redecide(reader: StoreReader, round_id: int) -> Redecision:
    """Run the round's recorded events through the current rules; compare with the record.

    Compared: every settlement (against the stored settlement rows, what the cashier
    paid from), the status, each player's net, and the rulings (clause, ruling, card
    moves). Nothing is written.
    """
    detail = reader.get_round(round_id)
    if detail is None:
        raise ValueError(f"no round {round_id}")
    return redecide_record(reader.export_round(round_id), detail.settlements, detail.summary.status,
                           detail.summary.net, detail.rulings)


def redecide_record(
    document: Mapping[str, Any],
    settlements: Sequence[Mapping[str, Any]],
    status: str,
    net: Mapping[str, Any],
    rulings: Sequence[Mapping[str, Any]],
) -> Redecision:
    """Run a round's exported transcript through the current rules and compare the result with
    its record (the stored settlement rows, status, nets and rulings), wherever it is kept (a
    store file, the floor). Nothing is written."""
    try:
        # the engine's own transcript path, as `dealer-assist settle` runs it
        from dealer_assist.engine.transcript import settle_document

        output = settle_document(json.loads(json.dumps(document), parse_float=Decimal))
    except TranscriptError as exc:
        return Redecision(None, exc.message)
    diffs = compare_settlements(settlements, output.get("settlements") or [])
    if status != output.get("status"):
        diffs.append(Difference("status", "round", status, str(output.get("status"))))
    recorded_net = {p: decimal(v) for p, v in net.items()}
    new_net = {p: decimal(v) for p, v in (output.get("net") or {}).items()}
    for player in sorted(set(recorded_net) | set(new_net)):
        a, b = recorded_net.get(player), new_net.get(player)
        if a != b:
            diffs.append(Difference("net", player, "(none)" if a is None else str(a),
                                    "(none)" if b is None else str(b)))
    old_rulings = [_ruling_text(r) for r in rulings]
    new_rulings = [_ruling_text(r) for r in output.get("rulings") or []]
    for i in range(max(len(old_rulings), len(new_rulings))):
        a_text = old_rulings[i] if i < len(old_rulings) else "(none)"
        b_text = new_rulings[i] if i < len(new_rulings) else "(none)"
        if a_text != b_text:
            diffs.append(Difference("ruling", f"ruling {i + 1}", a_text, b_text))
    return Redecision(output, None, diffs)


def _ruling_text(ruling: Mapping[str, Any]) -> str:
    moves = ", ".join(
        f"{m.get('card')} {m.get('from')}\u2192{m.get('to')}" for m in ruling.get("moves") or []
    )
    text = f"event {ruling.get('index')}: {ruling.get('ruling')} ({ruling.get('rule')})"
    return text + (f" moves {moves}" if moves else "")


# ------------------------------------------------------------------ integrity


@dataclass(frozen=True)
class IntegrityCheck:
    name: str
    ok: bool
    detail: str
    checked: bool = True  # False: it could not be checked here (no station key), which is not "altered"


def integrity_verdict(checks: Sequence[IntegrityCheck]) -> str:
    """"altered" when a check ran and failed; else "not checked" when one could not run (a copy
    without the station key: the review of a station's copy, whose key its service keeps);
    else "intact"."""
    if any(c.checked and not c.ok for c in checks):
        return "altered"
    return "not checked" if any(not c.checked for c in checks) else "intact"


def round_integrity(reader: StoreReader, round_id: int) -> list[IntegrityCheck]:
    """The hash links of this round's rows and its records, each checked on its own.

    Each row's hash must equal sha256(previous row's hash + its content) (the chains
    of docs/store.md); the latest ``round_finish`` audit record must name the stored
    status, the sha256 of the stored settle output and the last event; the derived
    settlement rows must agree with that (hashed) settle output.
    """
    key = reader.station_key
    if key is None:
        return [IntegrityCheck("station key", False, f"no station key beside this file ({reader.key_path}): "
                               "its keyed hash chains cannot be checked here (a station's service keeps "
                               "the key; `dealer-assist history verify` where the key is checks them)",
                               checked=False)]
    checks: list[IntegrityCheck] = []
    row = reader.row(
        "SELECT id, session_id, number, source, started_at, config_json, hash, status, result_json "
        "FROM rounds WHERE id = ?",
        (round_id,),
    )
    if row is None:
        return [IntegrityCheck("round", False, f"no round {round_id}")]
    prev = reader.previous_hash("rounds", round_id)
    ok = link_ok(prev, round_content(*row[:6]), row[6], key)
    checks.append(IntegrityCheck(
        "round header", ok,
        "hash chain link intact" if ok else f"rounds row {round_id}: hash does not match its content",
    ))
    events = reader.rows(
        "SELECT id, round_id, seq, at, actor, event_json, hash FROM events WHERE round_id = ? ORDER BY seq",
        (round_id,),
    )
    bad = None
    for ev in events:
        if not link_ok(reader.previous_hash("events", int(ev[0])), event_content(*ev[:6]), ev[6], key):
            bad = ev
            break
    checks.append(IntegrityCheck(
        "events", bad is None,
        f"{len(events)} events, every hash chain link intact" if bad is None
        else f"event {bad[2]} (events row {bad[0]}): hash does not match its content",
    ))
    audits = reader.rows(
        "SELECT id, at, actor, kind, round_id, detail_json, hash FROM audit WHERE round_id = ? ORDER BY id",
        (round_id,),
    )
    bad_audit = None
    finish: dict[str, Any] | None = None
    for entry in audits:
        if not link_ok(reader.previous_hash("audit", int(entry[0])), audit_content(*entry[:6]), entry[6], key):
            bad_audit = entry
            break
        if entry[3] == "round_finish":
            finish = json.loads(entry[5])
    checks.append(IntegrityCheck(
        "audit entries", bad_audit is None,
        f"{len(audits)} entries, every hash chain link intact" if bad_audit is None
        else f"audit row {bad_audit[0]} ({bad_audit[3]}): hash does not match its content",
    ))
    status, result_json = row[7], row[8]
    if finish is None:
        ok = result_json is None and status == "in_progress"
        checks.append(IntegrityCheck(
            "finish record", ok,
            "round not finished yet" if ok else "a result is stored without its audit record",
        ))
    else:
        digest = hashlib.sha256((result_json or "").encode("utf-8")).hexdigest()
        problems = []
        if status != finish.get("status"):
            problems.append(f"status {status} but the audit record says {finish.get('status')}")
        if digest != finish.get("result_sha256"):
            problems.append("the stored settle output differs from the one the audit record hashed")
        count = int(finish.get("events") or 0)
        if count:
            last = events[count - 1] if len(events) >= count else None
            if last is None or bytes(last[6]).hex() != finish.get("last_event_hash"):
                problems.append(f"events missing (the audit record counted {count})")
        checks.append(IntegrityCheck(
            "finish record", not problems,
            "status, settle output and last event match the audit record" if not problems
            else "; ".join(problems),
        ))
    if result_json is not None:
        result = json.loads(result_json)
        stored = [
            {"player": r[0], "area": r[1], "hand": r[2], "bet": r[3], "stake": r[4],
             "result": r[5], "net": r[6], "rule": r[7]}
            for r in reader.rows(
                "SELECT player, area, hand, bet, stake, result, net, rule FROM settlements "
                "WHERE round_id = ? ORDER BY id",
                (round_id,),
            )
        ]
        diffs = compare_settlements(result.get("settlements") or [], stored)
        checks.append(IntegrityCheck(
            "settlement rows", not diffs,
            f"{len(stored)} rows agree with the hashed settle output" if not diffs
            else f"{len(diffs)} row(s) differ from the hashed settle output: "
            + "; ".join(f"{d.key}: {d.redecided} (hashed: {d.recorded})" for d in diffs[:3]),
        ))
    return checks


# ------------------------------------------------------------------ summaries


@dataclass(frozen=True)
class BetLine:
    """One bet kind in a summary. ``player_net``: what the players won (+) or lost (-)."""

    bet: str
    wagers: int
    wagered: Decimal
    player_net: Decimal

    @property
    def house_net(self) -> Decimal:
        return -self.player_net

    @property
    def hold_pct(self) -> Decimal | None:
        """The table's win as a percentage of what was wagered (None if nothing was)."""
        if not self.wagered:
            return None
        return (self.house_net * 100 / self.wagered).quantize(Decimal("0.01"))


@dataclass
class Summary:
    """A table session (``by="session"``) or a dealer's sessions (``by="dealer"``)."""

    label: str
    session_id: int | None
    dealer: str | None
    game: str | None
    started_at: str | None
    ended_at: str | None
    rounds: int = 0
    statuses: dict[str, int] = field(default_factory=dict)
    irregular: int = 0
    bets: list[BetLine] = field(default_factory=list)

    @property
    def total(self) -> BetLine:
        return BetLine(
            "all",
            sum(b.wagers for b in self.bets),
            sum((b.wagered for b in self.bets), Decimal(0)),
            sum((b.player_net for b in self.bets), Decimal(0)),
        )




def summaries(
    reader: StoreReader, by: Literal["session", "dealer"] = "session", since: str | None = None
) -> list[Summary]:
    """Per table session (latest first) or per dealer (by name), of the rounds started at
    or after ``since`` (store time text; None: every round - a full pass over the file).

    Wagered counts each settled wager's stake (a doubled or split hand: the total on the
    hand), leaving out wagers returned (void rounds, 5.26 under-minimum returns, 5.27
    excess) since they were never at risk. Hold % = the table's win / wagered.
    Rounds recorded from transcripts (no session) are grouped as "transcripts".
    Sums are done in whole cents inside SQLite (stakes and nets are TEXT decimals of
    whole cents, so the conversion is exact), then turned back into Decimals.
    """
    if by == "session":
        group = "COALESCE(r.session_id, 0)"
    elif by == "dealer":
        group = "COALESCE(s.dealer, CASE WHEN r.session_id IS NULL THEN '' ELSE '?' END)"
    else:
        raise ValueError(f"summaries by session or dealer, not {by!r}")
    found: dict[Any, Summary] = {}
    if by == "session":
        for sid, game, dealer, started, ended in reader.rows(
            "SELECT id, game, dealer, started_at, ended_at FROM sessions "
            "WHERE ? IS NULL OR started_at >= ? OR ended_at IS NULL OR ended_at >= ? ORDER BY id DESC",
            (since, since, since),
        ):
            found[int(sid)] = Summary(f"session {sid}", int(sid), dealer, game, started, ended)
    joined = "rounds r LEFT JOIN sessions s ON s.id = r.session_id"
    window = "WHERE r.started_at >= ?" if since else ""
    params = [since] if since else []
    for key, status, count, irregular in reader.rows(
        f"SELECT {group}, r.status, COUNT(*), SUM(r.irregular) FROM {joined} {window} GROUP BY 1, 2", params
    ):
        summary = found.get(key) or found.setdefault(key, _new_summary(by, key))
        summary.statuses[str(status)] = int(count)
        summary.rounds += int(count)
        summary.irregular += int(irregular or 0)
    for key, bet, wagers, wagered, net in reader.rows(
        f"SELECT {group}, st.bet, SUM(st.result != 'returned'), "
        f"SUM(CASE WHEN st.result != 'returned' THEN {_CENTS.format('st.stake')} ELSE 0 END), "
        f"SUM({_CENTS.format('st.net')}) "
        "FROM rounds r JOIN settlements st ON st.round_id = r.id "
        f"LEFT JOIN sessions s ON s.id = r.session_id {window} GROUP BY 1, 2 ORDER BY 1, 2",
        params,
    ):
        summary = found.get(key) or found.setdefault(key, _new_summary(by, key))
        summary.bets.append(
            BetLine(str(bet), int(wagers or 0), Decimal(int(wagered or 0)) / 100, Decimal(int(net or 0)) / 100)
        )
    out = list(found.values())
    if by == "dealer":
        out.sort(key=lambda s: s.label)
    return out


def _new_summary(by: str, key: Any) -> Summary:
    if by == "session":
        if key == 0:
            return Summary("transcripts", None, None, None, None, None)
        return Summary(f"session {key}", int(key), None, None, None, None)
    label = "transcripts" if key == "" else str(key)
    return Summary(label, None, None if key == "" else str(key), None, None, None)


# ------------------------------------------------------------------ CSV export

_PLAIN_NUMBER = re.compile(r"-?[0-9]+(\.[0-9]+)?")


#: A cell that starts with one of these is a formula to a spreadsheet (``=HYPERLINK(...)``,
#: ``+cmd|...``, ``@SUM(...)``; tab and carriage return start one too in some programs).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(text: str) -> str:
    """``text`` made safe for a spreadsheet: a cell that would start a formula gets a leading
    ``'`` (the usual CSV-injection defence), except a plain number such as ``-100`` or
    ``-12.5``, which a spreadsheet reads as the number it is. :func:`read_settlement_csv`
    takes the quote off again."""
    if text.startswith(FORMULA_STARTS) and not _PLAIN_NUMBER.fullmatch(text):
        return "'" + text
    return text


def _csv_value(text: str) -> str:
    """The value :func:`csv_cell` escaped (its quote taken off)."""
    if text.startswith("'") and text[1:].startswith(FORMULA_STARTS) and not _PLAIN_NUMBER.fullmatch(text[1:]):
        return text[1:]
    return text


def settlement_csv_rows(round_id: int, settlements: Iterable[Mapping[str, Any]]) -> list[dict[str, str]]:
    """One row per settlement entry; amounts as exact decimal text; every cell escaped by
    :func:`csv_cell` (a player named ``=HYPERLINK(...)`` is written ``'=HYPERLINK(...)``)."""
    rows = []
    for entry in settlements:
        rows.append({
            "round": str(round_id),
            "player": str(entry.get("player", "")),
            "area": "" if entry.get("area") is None else str(entry.get("area")),
            "hand": "" if entry.get("hand") is None else str(entry.get("hand")),
            "bet": str(entry.get("bet", "")),
            "stake": str(decimal(entry.get("stake"))),
            "result": str(entry.get("result", "")),
            "net": str(decimal(entry.get("net"))),
            "rule": str(entry.get("rule") or ""),
            "stage": str(entry.get("stage") or ""),
        })
    return [{key: csv_cell(value) for key, value in row.items()} for row in rows]


def settlement_csv_text(round_id: int, settlements: Iterable[Mapping[str, Any]]) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(CSV_FIELDS), lineterminator="\n")
    writer.writeheader()
    writer.writerows(settlement_csv_rows(round_id, settlements))
    return buffer.getvalue()


def read_settlement_csv(text: str) -> list[dict[str, str]]:
    """The rows of a settlement CSV, with :func:`csv_cell`'s escaping taken off."""
    return [{k: _csv_value(v) for k, v in row.items()} for row in csv.DictReader(io.StringIO(text))]
