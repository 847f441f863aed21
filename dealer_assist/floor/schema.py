"""The floor database's schema, its migrations and its roles (``dealer-assist floor ...``).

Everything lives in the schema ``floor``. Each table of the casino is a row of
``floor.tables`` (name, pit, the station's role). Rows forwarded from a station carry
their table's name; the primary keys are (table, the station's own id), so a round is on
the floor once whatever happens to a forwarder (idempotent by (table, round)).

Roles (named after the database, so one server can hold several floors):

- ``<db>_station_<table>``: one per station. ``INSERT`` and ``SELECT`` on the forwarded
  tables, and row-level security policies that let it insert and see only its own
  table's rows (and only with its own pit). No ``UPDATE``, no ``DELETE``: the server
  refuses them, whatever the client does.
- ``<db>_review``: ``SELECT`` on everything, nothing else (pit supervisors' review).
- ``<db>_surveillance``: what the review role reads, and nothing else: no note, no alert
  raised or acknowledged, no accounting function (surveillance watches the pit, issue 36).

The roles are created without a password: the floor's administrator gives each one its
credentials (``ALTER ROLE ... PASSWORD`` in psql, certificates, or ``pg_hba.conf``), and
stations read them through libpq (``PGPASSFILE``, ``PGSERVICEFILE``).

Migrations are applied in order, each once, under an advisory lock: a list of statements in
one transaction, an online one (dealer_assist.floor.online: create, backfill in batches, swap)
step by step while stations forward. A database carrying a migration this version does not
know is refused (one a newer version ran online is still served: it only adds).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import psycopg
from psycopg import sql

from dealer_assist.floor.connection import (
    ADMIN,
    REVIEW,
    STATION,
    FloorError,
    FloorMisconfigured,
    Timeouts,
    connect,
    describe_error,
)
from dealer_assist.floor.online import Backfill, Change, Online, OnlineOptions, Progress, run_online

__all__ = [
    "FORWARDED_TABLES",
    "MIGRATIONS",
    "PARTITIONED",
    "add_months",
    "applied_migrations",
    "StationRole",
    "ClearedAlarm",
    "add_station",
    "clear_alarm",
    "init_floor",
    "review_role",
    "service_role",
    "station_role",
    "surveillance_role",
    "validate_pit",
    "validate_table",
]

# the forwarded tables as of migration 0004 (frozen)
_FORWARDED_0004 = (
    "sessions", "rounds", "events", "settlements", "rulings", "round_players", "audit", "alarms", "round_versions",
    "station_links",
)
#: Tables a station writes (each has ``table_name`` and row-level security).
FORWARDED_TABLES: tuple[str, ...] = (
    "sessions", "rounds", "events", "settlements", "rulings", "round_players", "audit", "alarms", "round_versions",
    "station_links",
)
# the tables of migration 0001 (frozen: a migration never changes)
_M0001_TABLES = ("sessions", "rounds", "events", "settlements", "rulings", "round_players", "audit", "alarms")
_LOCK_KEY = 0x4441_466C  # "DAFl": the advisory lock of floor init

_M0001 = [
    "CREATE SCHEMA IF NOT EXISTS floor",
    """CREATE TABLE floor.schema_migrations (
        name text PRIMARY KEY,
        applied_at timestamptz NOT NULL DEFAULT now()
    )""",
    """CREATE TABLE floor.tables (
        table_name text PRIMARY KEY,
        pit text NOT NULL,
        station_role text NOT NULL UNIQUE,
        added_at timestamptz NOT NULL DEFAULT now()
    )""",
    """CREATE TABLE floor.sessions (
        table_name text NOT NULL REFERENCES floor.tables,
        session_id bigint NOT NULL,
        game text NOT NULL,
        decks integer,
        areas integer,
        limits_json text NOT NULL,
        dealer text,
        started_at timestamptz NOT NULL,
        forwarded_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (table_name, session_id)
    )""",
    """CREATE TABLE floor.rounds (
        table_name text NOT NULL REFERENCES floor.tables,
        round_id bigint NOT NULL,
        pit text NOT NULL,
        session_id bigint,
        number integer NOT NULL,
        source text NOT NULL,
        game text NOT NULL,
        dealer text,
        config_json text NOT NULL,
        started_at timestamptz NOT NULL,
        ended_at timestamptz,
        status text NOT NULL,
        players_json text NOT NULL,
        totals_json text NOT NULL,
        irregular boolean NOT NULL,
        result_json text,
        wagered numeric NOT NULL,
        house_net numeric NOT NULL,
        station_link bytea NOT NULL,
        finish_audit_id bigint,
        floor_seq bigint NOT NULL,
        floor_link bytea NOT NULL,
        forwarded_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (table_name, round_id)
    )""",
    "CREATE UNIQUE INDEX rounds_table_seq ON floor.rounds (table_name, floor_seq)",
    # INCLUDE: the hourly win/hold and rounds per dealer of a pit read this index only
    "CREATE INDEX rounds_pit_started ON floor.rounds (pit, started_at DESC, table_name, round_id) "
    "INCLUDE (wagered, house_net, dealer)",
    "CREATE INDEX rounds_table_started ON floor.rounds (table_name, started_at DESC, round_id)",
    "CREATE INDEX rounds_started ON floor.rounds (started_at DESC, table_name, round_id)",
    # The rows of a round (events, settlements, rulings, players) have no foreign key to it:
    # they are written with it in one transaction, and verify checks them against it; a
    # per-row foreign-key trigger would halve the forwarding rate.
    """CREATE TABLE floor.events (
        table_name text NOT NULL,
        round_id bigint NOT NULL,
        seq integer NOT NULL,
        station_event_id bigint NOT NULL,
        at text NOT NULL,
        actor text NOT NULL,
        event_json text NOT NULL,
        station_link bytea NOT NULL,
        PRIMARY KEY (table_name, round_id, seq)
    )""",
    """CREATE TABLE floor.settlements (
        table_name text NOT NULL,
        round_id bigint NOT NULL,
        idx integer NOT NULL,
        player text NOT NULL,
        area integer,
        hand integer,
        bet text NOT NULL,
        stake numeric NOT NULL,
        result text NOT NULL,
        net numeric NOT NULL,
        rule text,
        stage text,
        PRIMARY KEY (table_name, round_id, idx)
    )""",
    """CREATE TABLE floor.rulings (
        table_name text NOT NULL,
        round_id bigint NOT NULL,
        idx integer NOT NULL,
        event_index integer,
        rule text,
        ruling text,
        text text,
        moves_json text NOT NULL,
        PRIMARY KEY (table_name, round_id, idx)
    )""",
    """CREATE TABLE floor.round_players (
        player text NOT NULL,
        started_at timestamptz NOT NULL,
        table_name text NOT NULL,
        round_id bigint NOT NULL,
        pit text NOT NULL,
        net numeric,
        wagered numeric NOT NULL,
        PRIMARY KEY (player, started_at, table_name, round_id)
    )""",
    "CREATE INDEX round_players_round ON floor.round_players (table_name, round_id)",
    # Every player name seen on the floor: the partial, case-insensitive search scans this
    # short list, then walks round_players' primary key for the names it matched.
    """CREATE TABLE floor.players (
        player text PRIMARY KEY,
        first_seen timestamptz NOT NULL DEFAULT now()
    )""",
    """CREATE TABLE floor.audit (
        table_name text NOT NULL REFERENCES floor.tables,
        audit_id bigint NOT NULL,
        at text NOT NULL,
        actor text NOT NULL,
        kind text NOT NULL,
        round_id bigint,
        detail_json text NOT NULL,
        station_link bytea NOT NULL,
        floor_link bytea NOT NULL,
        forwarded_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (table_name, audit_id)
    )""",
    "CREATE INDEX audit_round ON floor.audit (table_name, round_id) WHERE round_id IS NOT NULL",
    # A station whose store no longer extends the floor's copy: forwarding stops for it.
    """CREATE TABLE floor.alarms (
        table_name text NOT NULL REFERENCES floor.tables,
        raised_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        reason text NOT NULL,
        PRIMARY KEY (table_name, raised_at)
    )""",
    *[f"ALTER TABLE floor.{t} ENABLE ROW LEVEL SECURITY" for t in _M0001_TABLES],
    "ALTER TABLE floor.tables ENABLE ROW LEVEL SECURITY",
]

# Supervisors' notes and disputes on the floor's rounds (written by the review role, into
# this table only: INSERT, never UPDATE or DELETE), and the administrator's clearing of a
# table's alarm (``floor clear-alarm``: the alarm moves here with who cleared it and why).
_M0002 = [
    """CREATE TABLE floor.notes (
        note_id bigserial PRIMARY KEY,
        table_name text NOT NULL REFERENCES floor.tables,
        round_id bigint NOT NULL,
        kind text NOT NULL CHECK (kind IN ('note', 'dispute')),
        supervisor text NOT NULL CHECK (supervisor <> ''),
        text text NOT NULL CHECK (text <> ''),
        db_role text NOT NULL DEFAULT current_user,
        written_at timestamptz NOT NULL DEFAULT clock_timestamp()
    )""",
    "CREATE INDEX notes_round ON floor.notes (table_name, round_id)",
    "ALTER TABLE floor.notes ENABLE ROW LEVEL SECURITY",
    """CREATE TABLE floor.alarm_clearings (
        table_name text NOT NULL REFERENCES floor.tables,
        raised_at timestamptz NOT NULL,
        reason text NOT NULL,
        cleared_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        cleared_by text NOT NULL DEFAULT session_user,
        why text NOT NULL CHECK (why <> ''),
        PRIMARY KEY (table_name, raised_at)
    )""",
    "ALTER TABLE floor.alarm_clearings ENABLE ROW LEVEL SECURITY",
    # A round finished again at the station after it was forwarded (a 5.7 card after the
    # end): the floor's first copy stays as forwarded (and chained); each later finish is a
    # version here, keyed by its round_finish audit entry (whose result_sha256, chained in
    # floor.audit, verify checks it against), with the events recorded after the first copy
    # ([seq, station id, time, actor, event JSON, station link hex], ...).
    """CREATE TABLE floor.round_versions (
        table_name text NOT NULL REFERENCES floor.tables,
        round_id bigint NOT NULL,
        finish_audit_id bigint NOT NULL,
        status text NOT NULL,
        ended_at timestamptz,
        players_json text NOT NULL,
        totals_json text NOT NULL,
        irregular boolean NOT NULL,
        result_json text,
        wagered numeric NOT NULL,
        house_net numeric NOT NULL,
        events_json text NOT NULL,
        forwarded_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (table_name, round_id, finish_audit_id)
    )""",
    "ALTER TABLE floor.round_versions ENABLE ROW LEVEL SECURITY",
]

# Each round as it stands (issue 18): the latest finish of a round finished again at the
# station after it was forwarded (a 5.7 card after the end: ``floor.round_versions``), else
# its first forwarded copy. The floor's listings, filters, sorts and figures read these views;
# the station role only ever INSERTs, so the first copy is never updated in place. The latest
# version is joined as a plain left join with an anti-join (no later version of the round),
# which the planner can probe through round_versions' primary key row by row (a page of the
# pit's rounds) or hash whole (a day's figures). ``security_invoker``: the reading role's own
# grants and row-level security apply (a station still sees only its own table's rows).
_LATEST_VERSION = (
    "LEFT JOIN floor.round_versions v ON v.table_name = {alias}.table_name AND v.round_id = {alias}.round_id "
    "AND NOT EXISTS (SELECT 1 FROM floor.round_versions w WHERE w.table_name = v.table_name "
    "AND w.round_id = v.round_id AND w.finish_audit_id > v.finish_audit_id)"
)
_M0003 = [
    """CREATE VIEW floor.rounds_latest WITH (security_invoker = true) AS
    SELECT r.table_name, r.round_id, r.pit, r.session_id, r.number, r.source, r.game, r.dealer, r.config_json,
        r.started_at,
        CASE WHEN v.round_id IS NULL THEN r.ended_at ELSE v.ended_at END AS ended_at,
        coalesce(v.status, r.status) AS status,
        coalesce(v.players_json, r.players_json) AS players_json,
        coalesce(v.totals_json, r.totals_json) AS totals_json,
        coalesce(v.irregular, r.irregular) AS irregular,
        CASE WHEN v.round_id IS NULL THEN r.result_json ELSE v.result_json END AS result_json,
        coalesce(v.wagered, r.wagered) AS wagered,
        coalesce(v.house_net, r.house_net) AS house_net,
        coalesce(v.finish_audit_id, r.finish_audit_id) AS finish_audit_id,
        v.round_id IS NOT NULL AS refinished,
        r.floor_seq, r.forwarded_at
    FROM floor.rounds r """ + _LATEST_VERSION.format(alias="r"),
    # A player's part of each round as it stands: the first copy's row, or the net and the
    # stakes of that player in the latest version's settle output (as forwarding derives them).
    """CREATE VIEW floor.round_players_latest WITH (security_invoker = true) AS
    SELECT rp.player, rp.started_at, rp.table_name, rp.round_id, rp.pit,
        CASE WHEN v.round_id IS NULL THEN rp.net
             ELSE (v.result_json::jsonb -> 'net' ->> rp.player)::numeric END AS net,
        CASE WHEN v.round_id IS NULL THEN rp.wagered
             ELSE (SELECT coalesce(sum((x ->> 'stake')::numeric), 0) FROM jsonb_array_elements(
                 coalesce(v.result_json::jsonb -> 'settlements', '[]'::jsonb)) x WHERE x ->> 'player' = rp.player)
        END AS wagered
    FROM floor.round_players rp """ + _LATEST_VERSION.format(alias="rp"),
]

# Issue 25: the link and closed writes.
# - A table's forwarding lock is a row lock on floor.forward_locks (no privilege on it for any
#   station or review role, so nobody can take it except through floor.take_forward_lock, which
#   lets only the table's own station role (session_user, the login) lock its own table). It is
#   a transaction lock: a forwarder whose link dies mid-transaction is ended by the server's
#   idle_in_transaction_session_timeout and the lock goes with it.
# - Each batch checks, under the lock, that the floor's tail is the one it continues.
# - Round versions only through floor.add_round_versions: each checked against its chained
#   round_finish audit entry (same transaction, entry first): status, end, settle output
#   (result_sha256) and the last event's station link; wagered and house net worked out here.
# - Players only with the rounds that name them: round_players rows are checked against their
#   round (players_json, pit, start) and floor.players is filled by the server from them.
# - Each station's heartbeat (floor.station_links) and a NOTIFY floor_live per forwarded batch:
#   the pit view's live updates.
_STATION_OF = (
    "IF NOT EXISTS (SELECT 1 FROM floor.tables WHERE table_name = t AND station_role = session_user) THEN "
    "RAISE EXCEPTION 'role % is not the station of table %', session_user, t USING ERRCODE = '42501'; END IF;"
)
_M0004 = [
    "CREATE TABLE floor.forward_locks (table_name text PRIMARY KEY)",
    "INSERT INTO floor.forward_locks SELECT table_name FROM floor.tables ON CONFLICT DO NOTHING",
    """CREATE TABLE floor.station_links (
        table_name text PRIMARY KEY REFERENCES floor.tables,
        heartbeat_at timestamptz NOT NULL,
        waiting integer NOT NULL,
        forwarded_up_to bigint,
        in_play bigint,
        state text NOT NULL,
        detail text
    )""",
    "ALTER TABLE floor.station_links ENABLE ROW LEVEL SECURITY",
    f"""CREATE FUNCTION floor.take_forward_lock(t text, expect_seq bigint, expect_audit bigint) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
    BEGIN
        {_STATION_OF}
        PERFORM 1 FROM floor.forward_locks WHERE table_name = t FOR UPDATE;
        IF NOT FOUND THEN
            INSERT INTO floor.forward_locks VALUES (t) ON CONFLICT DO NOTHING;
            PERFORM 1 FROM floor.forward_locks WHERE table_name = t FOR UPDATE;
        END IF;
        IF expect_seq IS NOT NULL AND coalesce(
                (SELECT max(floor_seq) FROM floor.rounds WHERE table_name = t), 0) <> expect_seq THEN
            RAISE EXCEPTION 'the floor''s rounds of table % moved on (another forwarder)', t USING ERRCODE = '40001';
        END IF;
        IF expect_audit IS NOT NULL AND coalesce(
                (SELECT max(audit_id) FROM floor.audit WHERE table_name = t), 0) <> expect_audit THEN
            RAISE EXCEPTION 'the floor''s audit of table % moved on (another forwarder)', t USING ERRCODE = '40001';
        END IF;
    END $$""",
    f"""CREATE FUNCTION floor.heartbeat(t text, waiting integer, up_to bigint, in_play bigint, state text,
            detail text) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
    DECLARE before record;
    BEGIN
        {_STATION_OF}
        SELECT l.waiting, l.in_play, l.state, l.detail INTO before FROM floor.station_links l WHERE l.table_name = t;
        INSERT INTO floor.station_links AS l VALUES (t, clock_timestamp(), waiting, up_to, in_play, state, detail)
        ON CONFLICT (table_name) DO UPDATE SET heartbeat_at = excluded.heartbeat_at, waiting = excluded.waiting,
            forwarded_up_to = excluded.forwarded_up_to, in_play = excluded.in_play, state = excluded.state,
            detail = excluded.detail;
        -- the pit views wake up for a change, not for every beat
        IF before IS NULL OR (before.waiting, before.in_play, before.state, before.detail)
                IS DISTINCT FROM (waiting, in_play, state, detail) THEN
            PERFORM pg_notify('floor_live', t);
        END IF;
    END $$""",
    f"""CREATE FUNCTION floor.add_round_versions(t text, versions jsonb) RETURNS integer
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
    DECLARE
        v record; a record; d jsonb; done bigint; first_seq integer; evs jsonb; last jsonb; n integer := 0;
    BEGIN
        {_STATION_OF}
        FOR v IN SELECT (r->>0)::bigint AS round_id, (r->>1)::bigint AS finish, r->>2 AS status,
                (r->>3)::timestamptz AS ended_at, r->>4 AS players_json, r->>5 AS totals_json,
                (r->>6)::boolean AS irregular, r->>7 AS result_json, r->8 AS events
            FROM jsonb_array_elements(versions) r LOOP
            SELECT greatest(x.finish_audit_id, (SELECT max(w.finish_audit_id) FROM floor.round_versions w
                WHERE w.table_name = t AND w.round_id = v.round_id)) INTO done
                FROM floor.rounds x WHERE x.table_name = t AND x.round_id = v.round_id;
            IF NOT FOUND THEN
                RAISE EXCEPTION 'round % of table % is not on the floor', v.round_id, t USING ERRCODE = '42501';
            END IF;
            CONTINUE WHEN done IS NOT NULL AND done >= v.finish;  -- already there: exactly once
            SELECT * INTO a FROM floor.audit WHERE table_name = t AND audit_id = v.finish;
            IF NOT FOUND OR a.kind <> 'round_finish' OR a.round_id IS DISTINCT FROM v.round_id THEN
                RAISE EXCEPTION 'a version of round % needs its round_finish audit entry % on the floor first',
                    v.round_id, v.finish USING ERRCODE = '42501';
            END IF;
            d := a.detail_json::jsonb;
            SELECT max(seq) INTO first_seq FROM floor.events WHERE table_name = t AND round_id = v.round_id;
            SELECT coalesce(jsonb_agg(e ORDER BY (e->>0)::integer), '[]'::jsonb) INTO evs
                FROM jsonb_array_elements(v.events) e WHERE (e->>0)::integer > coalesce(first_seq, -1);
            SELECT e INTO last FROM jsonb_array_elements(v.events) e ORDER BY (e->>0)::integer DESC LIMIT 1;
            IF d->>'result_sha256' IS DISTINCT FROM encode(sha256(convert_to(coalesce(v.result_json, ''), 'UTF8')), 'hex')
                OR d->>'status' IS DISTINCT FROM v.status
                OR (d->>'ended_at')::timestamptz IS DISTINCT FROM v.ended_at
                OR (d->>'events')::integer IS DISTINCT FROM coalesce((last->>0)::integer + 1, 0)
                OR d->>'last_event_hash' IS DISTINCT FROM last->>5 THEN
                RAISE EXCEPTION 'the version of round % is not the finish its audit entry % records',
                    v.round_id, v.finish USING ERRCODE = '42501';
            END IF;
            INSERT INTO floor.round_versions (table_name, round_id, finish_audit_id, status, ended_at, players_json,
                totals_json, irregular, result_json, wagered, house_net, events_json)
            SELECT t, v.round_id, v.finish, v.status, v.ended_at, v.players_json, v.totals_json, v.irregular,
                v.result_json,
                coalesce((SELECT sum((x->>'stake')::numeric) FROM jsonb_array_elements(
                    coalesce(v.result_json::jsonb -> 'settlements', '[]')) x), 0),
                -coalesce((SELECT sum((x->>'net')::numeric) FROM jsonb_array_elements(
                    coalesce(v.result_json::jsonb -> 'settlements', '[]')) x), 0),
                evs::text;
            n := n + 1;
        END LOOP;
        RETURN n;
    END $$""",
    """CREATE FUNCTION floor.check_round_players() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
    DECLARE bad record;
    BEGIN
        SELECT n.player, n.table_name, n.round_id INTO bad FROM added n WHERE NOT EXISTS (
            SELECT 1 FROM floor.rounds r WHERE r.table_name = n.table_name AND r.round_id = n.round_id
            AND r.pit = n.pit AND r.started_at = n.started_at AND r.players_json::jsonb ? n.player) LIMIT 1;
        IF FOUND THEN
            RAISE EXCEPTION 'round % of table % on the floor does not name the player %',
                bad.round_id, bad.table_name, bad.player USING ERRCODE = '42501';
        END IF;
        INSERT INTO floor.players (player) SELECT DISTINCT player FROM added ON CONFLICT DO NOTHING;
        RETURN NULL;
    END $$""",
    "CREATE TRIGGER round_players_checked AFTER INSERT ON floor.round_players "
    "REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION floor.check_round_players()",
    """CREATE FUNCTION floor.notify_rounds() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
    DECLARE t text;
    BEGIN
        FOR t IN SELECT DISTINCT table_name FROM added LOOP
            PERFORM pg_notify('floor_live', t);
        END LOOP;
        RETURN NULL;
    END $$""",
    "CREATE TRIGGER rounds_notify AFTER INSERT ON floor.rounds "
    "REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION floor.notify_rounds()",
    *[f"REVOKE ALL ON FUNCTION floor.{f} FROM PUBLIC" for f in (
        "take_forward_lock(text, bigint, bigint)", "heartbeat(text, integer, bigint, bigint, text, text)",
        "add_round_versions(text, jsonb)", "check_round_players()", "notify_rounds()")],
]

# Issue 25, item 4: alerts kept on the floor with their acknowledgements (both insert-only: the
# trail). An alert is raised through floor.raise_alert, which keeps one unacknowledged alert per
# table and kind (and none again within `quiet` of an acknowledgement of the same kind; 0013:
# per subject as well).
_M0005 = [
    """CREATE TABLE floor.alerts (
        alert_id bigserial PRIMARY KEY,
        table_name text NOT NULL REFERENCES floor.tables,
        kind text NOT NULL CHECK (kind IN ('link_down', 'table_stopped', 'win_band', 'pace')),
        detail text NOT NULL,
        raised_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        raised_by text NOT NULL DEFAULT session_user
    )""",
    "CREATE INDEX alerts_table_kind ON floor.alerts (table_name, kind, raised_at DESC)",
    """CREATE TABLE floor.alert_acks (
        alert_id bigint PRIMARY KEY REFERENCES floor.alerts,
        supervisor text NOT NULL CHECK (supervisor <> ''),
        note text NOT NULL CHECK (note <> ''),
        db_role text NOT NULL DEFAULT current_user,
        acked_at timestamptz NOT NULL DEFAULT clock_timestamp()
    )""",
    "ALTER TABLE floor.alerts ENABLE ROW LEVEL SECURITY",
    "ALTER TABLE floor.alert_acks ENABLE ROW LEVEL SECURITY",
    """CREATE FUNCTION floor.raise_alert(t text, k text, why text, quiet interval) RETURNS bigint
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
    DECLARE made bigint;
    BEGIN
        PERFORM pg_advisory_xact_lock(hashtext('floor.alert'), hashtext(t || '/' || k));
        IF EXISTS (SELECT 1 FROM floor.alerts a WHERE a.table_name = t AND a.kind = k AND NOT EXISTS
                (SELECT 1 FROM floor.alert_acks c WHERE c.alert_id = a.alert_id))
            OR EXISTS (SELECT 1 FROM floor.alerts a JOIN floor.alert_acks c USING (alert_id)
                WHERE a.table_name = t AND a.kind = k AND c.acked_at > clock_timestamp() - quiet) THEN
            RETURN NULL;
        END IF;
        INSERT INTO floor.alerts (table_name, kind, detail) VALUES (t, k, why) RETURNING alert_id INTO made;
        PERFORM pg_notify('floor_live', t);
        RETURN made;
    END $$""",
    "REVOKE ALL ON FUNCTION floor.raise_alert(text, text, text, interval) FROM PUBLIC",
]

# Issue 25, item 5: table accounting per gaming day and shift. Chip inventories (opener,
# closer, fill, credit) per denomination, their totals worked out by the server; fills and
# credits carry two signatures (the dealer and a supervisor, not the same person); drop (cash
# and markers) once per table and shift; players' buy-ins. All insert-only, with the writing
# database account and time.
_M0006 = [
    r"""CREATE FUNCTION floor.chip_total(chips jsonb) RETURNS numeric
    LANGUAGE sql IMMUTABLE STRICT AS $$
        SELECT coalesce(sum(CASE WHEN key ~ '^[0-9]+(\.[0-9]{1,2})?$' AND value::text ~ '^[0-9]{1,9}$'
            THEN key::numeric * value::text::integer END), 0) FROM jsonb_each(chips) $$""",
    r"""CREATE FUNCTION floor.chips_valid(chips jsonb) RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT AS $$
        SELECT jsonb_typeof(chips) = 'object' AND NOT EXISTS (SELECT 1 FROM jsonb_each(chips)
            WHERE CASE WHEN key ~ '^[0-9]+(\.[0-9]{1,2})?$' AND value::text ~ '^[0-9]{1,9}$'
                       THEN key::numeric <= 0 ELSE true END) $$""",
    """CREATE TABLE floor.chip_movements (
        movement_id bigserial PRIMARY KEY,
        table_name text NOT NULL REFERENCES floor.tables,
        gaming_day date NOT NULL,
        shift text NOT NULL CHECK (shift <> ''),
        kind text NOT NULL CHECK (kind IN ('opener', 'closer', 'fill', 'credit')),
        chips jsonb NOT NULL CHECK (floor.chips_valid(chips)),
        total numeric NOT NULL GENERATED ALWAYS AS (floor.chip_total(chips)) STORED,
        dealer text NOT NULL CHECK (dealer <> ''),
        supervisor text NOT NULL CHECK (supervisor <> '' AND supervisor <> dealer),
        db_role text NOT NULL DEFAULT current_user,
        recorded_at timestamptz NOT NULL DEFAULT clock_timestamp()
    )""",
    "CREATE UNIQUE INDEX chip_movements_once ON floor.chip_movements (table_name, gaming_day, shift, kind) "
    "WHERE kind IN ('opener', 'closer')",
    "CREATE INDEX chip_movements_shift ON floor.chip_movements (gaming_day, shift, table_name)",
    """CREATE TABLE floor.drops (
        table_name text NOT NULL REFERENCES floor.tables,
        gaming_day date NOT NULL,
        shift text NOT NULL CHECK (shift <> ''),
        cash numeric NOT NULL CHECK (cash >= 0),
        markers numeric NOT NULL CHECK (markers >= 0),
        counted_by text NOT NULL CHECK (counted_by <> ''),
        witness text NOT NULL CHECK (witness <> '' AND witness <> counted_by),
        db_role text NOT NULL DEFAULT current_user,
        recorded_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        PRIMARY KEY (table_name, gaming_day, shift)
    )""",
    """CREATE TABLE floor.buy_ins (
        buy_in_id bigserial PRIMARY KEY,
        table_name text NOT NULL REFERENCES floor.tables,
        player text NOT NULL CHECK (player <> ''),
        amount numeric NOT NULL CHECK (amount > 0),
        kind text NOT NULL CHECK (kind IN ('cash', 'marker')),
        supervisor text NOT NULL CHECK (supervisor <> ''),
        db_role text NOT NULL DEFAULT current_user,
        at timestamptz NOT NULL DEFAULT clock_timestamp()
    )""",
    "CREATE INDEX buy_ins_player ON floor.buy_ins (player, at)",
    *[f"ALTER TABLE floor.{t} ENABLE ROW LEVEL SECURITY" for t in ("chip_movements", "drops", "buy_ins")],
]

# Issue 25, item 6: row-level security that does not grow per station. Every station role is a
# member of one group role (<db>_stations, floor init) that holds the grants; one policy per
# forwarded table lets a station see and add only the rows of its own table (and pit), found
# through floor.tables by the current role (floor.station_table(role), evaluated once a statement as
# an init plan). Registering a station is then CREATE ROLE + a row + a membership: no table DDL.
_M0007 = [
    # the caller's role is passed in (inside a SECURITY DEFINER function current_user is its owner)
    """CREATE FUNCTION floor.station_table(r text) RETURNS text
    LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
        SELECT table_name FROM floor.tables WHERE station_role = r $$""",
    """CREATE FUNCTION floor.station_pit(r text) RETURNS text
    LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
        SELECT pit FROM floor.tables WHERE station_role = r $$""",
    # the per-station policies of 0001-0006 go
    r"""DO $$ DECLARE p record; BEGIN
        FOR p IN SELECT policyname, tablename FROM pg_policies WHERE schemaname = 'floor'
                AND (policyname LIKE 'see\_%' OR policyname LIKE 'add\_%') LOOP
            EXECUTE format('DROP POLICY %I ON floor.%I', p.policyname, p.tablename);
        END LOOP; END $$""",
    *[f"CREATE POLICY station_sees ON floor.{t} FOR SELECT USING (table_name = (SELECT floor.station_table(current_user::text)))"
      for t in (*_FORWARDED_0004, "tables")],
    *[f"CREATE POLICY station_adds ON floor.{t} FOR INSERT WITH CHECK (table_name = (SELECT floor.station_table(current_user::text))"
      + (" AND pit = (SELECT floor.station_pit(current_user::text)))" if t in ("rounds", "round_players") else ")")
      for t in _FORWARDED_0004 if t not in ("round_versions", "station_links")],
]

# Issue 25, item 6: the big tables partitioned by month (UTC): rounds by their start,
# audit entries and round versions by the time they reached the floor. A partitioned table's
# unique keys must hold its partition key, so the keys gain it; that a round (or audit entry,
# or floor seq) is on the floor once per table whatever its month is checked by a statement
# trigger (floor.check_once). Each month is a partition floor.<table>_<yyyy>_<mm>, made ahead
# by floor.add_months (floor init: this month and the next two; a monthly job runs floor
# init); a row of a month without one lands in <table>_default and moves to its month's
# partition when that is made. The migration copies the rows of today's tables into their
# months under the migration's lock (one transaction: readers wait, nothing is lost).
def _versions_with_theo() -> str:
    """floor.add_round_versions of 0004, now also keeping each version's theoretical win (given by
    the forwarder as the 10th to 12th items of a version: dealer_assist.floor.forward.round_figures)."""
    text = next(s for s in _M0004 if "FUNCTION floor.add_round_versions" in s)
    for old, new in (
        ("CREATE FUNCTION", "CREATE OR REPLACE FUNCTION"),
        ("r->8 AS events", "r->8 AS events, (r->>9)::numeric AS theo, (r->>10)::numeric AS theo_initial, "
                           "(r->>11)::numeric AS theo_wagered"),
        ("result_json, wagered, house_net, events_json)",
         "result_json, wagered, house_net, events_json, theo, theo_initial, theo_wagered)"),
        ("evs::text;", "evs::text, v.theo, v.theo_initial, v.theo_wagered;"),
    ):
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    return text


def _latest_with_theo() -> list[str]:
    """The views of 0003, rounds_latest also giving each round's stored theoretical win (of its
    latest version: NULL where it was not worked out at forwarding, e.g. rows forwarded before 0008)."""
    rounds_latest, players_latest = _M0003
    old = "r.floor_seq, r.forwarded_at\n"
    assert rounds_latest.count(old) == 1
    return [rounds_latest.replace(old, "r.floor_seq, r.forwarded_at,\n"
                                  "        CASE WHEN v.round_id IS NULL THEN r.theo ELSE v.theo END AS theo,\n"
                                  "        CASE WHEN v.round_id IS NULL THEN r.theo_initial ELSE v.theo_initial END "
                                  "AS theo_initial,\n"
                                  "        CASE WHEN v.round_id IS NULL THEN r.theo_wagered ELSE v.theo_wagered END "
                                  "AS theo_wagered\n"), players_latest]


_PARTITIONED_0008: dict[str, str] = {"rounds": "started_at", "audit": "forwarded_at", "round_versions": "forwarded_at"}
_M0008_TABLES = {
    "rounds": """(
        table_name text NOT NULL REFERENCES floor.tables,
        round_id bigint NOT NULL,
        pit text NOT NULL,
        session_id bigint,
        number integer NOT NULL,
        source text NOT NULL,
        game text NOT NULL,
        dealer text,
        config_json text NOT NULL,
        started_at timestamptz NOT NULL,
        ended_at timestamptz,
        status text NOT NULL,
        players_json text NOT NULL,
        totals_json text NOT NULL,
        irregular boolean NOT NULL,
        result_json text,
        wagered numeric NOT NULL,
        house_net numeric NOT NULL,
        station_link bytea NOT NULL,
        finish_audit_id bigint,
        floor_seq bigint NOT NULL,
        floor_link bytea NOT NULL,
        forwarded_at timestamptz NOT NULL DEFAULT now(),
        theo numeric,
        theo_initial numeric,
        theo_wagered numeric,
        PRIMARY KEY (table_name, round_id, started_at)
    )""",
    "audit": """(
        table_name text NOT NULL REFERENCES floor.tables,
        audit_id bigint NOT NULL,
        at text NOT NULL,
        actor text NOT NULL,
        kind text NOT NULL,
        round_id bigint,
        detail_json text NOT NULL,
        station_link bytea NOT NULL,
        floor_link bytea NOT NULL,
        forwarded_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (table_name, audit_id, forwarded_at)
    )""",
    "round_versions": """(
        table_name text NOT NULL REFERENCES floor.tables,
        round_id bigint NOT NULL,
        finish_audit_id bigint NOT NULL,
        status text NOT NULL,
        ended_at timestamptz,
        players_json text NOT NULL,
        totals_json text NOT NULL,
        irregular boolean NOT NULL,
        result_json text,
        wagered numeric NOT NULL,
        house_net numeric NOT NULL,
        events_json text NOT NULL,
        forwarded_at timestamptz NOT NULL DEFAULT now(),
        theo numeric,
        theo_initial numeric,
        theo_wagered numeric,
        PRIMARY KEY (table_name, round_id, finish_audit_id, forwarded_at)
    )""",
}
_M0008_INDEXES = [
    "CREATE UNIQUE INDEX rounds_table_seq ON floor.rounds (table_name, floor_seq, started_at)",
    "CREATE INDEX rounds_pit_started ON floor.rounds (pit, started_at DESC, table_name, round_id) "
    "INCLUDE (wagered, house_net, dealer)",
    "CREATE INDEX rounds_table_started ON floor.rounds (table_name, started_at DESC, round_id)",
    "CREATE INDEX rounds_started ON floor.rounds (started_at DESC, table_name, round_id)",
    "CREATE INDEX audit_round ON floor.audit (table_name, round_id) WHERE round_id IS NOT NULL",
    # the Tables tab: has the table's latest session ended (its session_end entry)?
    "CREATE INDEX audit_session_end ON floor.audit (table_name, (detail_json::jsonb ->> 'session_id')) "
    "WHERE kind = 'session_end'",
]
_M0008 = [
    "DROP VIEW floor.rounds_latest, floor.round_players_latest",
    "DROP TRIGGER rounds_notify ON floor.rounds",
    # today's tables step aside (their indexes and keys renamed out of the way)
    *[f"ALTER TABLE floor.{t} RENAME TO {t}_0007" for t in _PARTITIONED_0008],
    r"""DO $$ DECLARE i record; BEGIN
        FOR i IN SELECT c.relname FROM pg_index x JOIN pg_class c ON c.oid = x.indexrelid
                JOIN pg_class t ON t.oid = x.indrelid JOIN pg_namespace n ON n.oid = t.relnamespace
                WHERE n.nspname = 'floor' AND t.relname IN ('rounds_0007', 'audit_0007', 'round_versions_0007') LOOP
            EXECUTE format('ALTER INDEX floor.%I RENAME TO %I', i.relname, i.relname || '_0007');
        END LOOP; END $$""",
    *[f"CREATE TABLE floor.{t} {columns} PARTITION BY RANGE ({_PARTITIONED_0008[t]})" for t, columns in _M0008_TABLES.items()],
    *_M0008_INDEXES,
    *[f"CREATE TABLE floor.{t}_default PARTITION OF floor.{t} DEFAULT" for t in _PARTITIONED_0008],
    # A month's partition: made as a table of its own, then attached (ATTACH takes SHARE UPDATE
    # EXCLUSIVE on the parent: forwarding and reading go on). Rows of that month already in the
    # default partition move into it first (the default is locked against inserts meanwhile).
    r"""CREATE FUNCTION floor.add_month(parent text, month date) RETURNS boolean
    LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
    DECLARE
        lo timestamptz := (date_trunc('month', month)::date::text || ' 00:00:00+00')::timestamptz;
        hi timestamptz := ((date_trunc('month', month) + interval '1 month')::date::text || ' 00:00:00+00')::timestamptz;
        part text := parent || '_' || to_char(month, 'YYYY_MM');
        col text := CASE parent WHEN 'rounds' THEN 'started_at' ELSE 'forwarded_at' END;
    BEGIN
        IF to_regclass('floor.' || quote_ident(part)) IS NOT NULL THEN
            RETURN false;
        END IF;
        EXECUTE format('CREATE TABLE floor.%I (LIKE floor.%I INCLUDING DEFAULTS)', part, parent);
        EXECUTE format('LOCK TABLE floor.%I IN EXCLUSIVE MODE', parent || '_default');
        EXECUTE format('WITH moved AS (DELETE FROM floor.%I WHERE %I >= %L AND %I < %L RETURNING *) '
                       'INSERT INTO floor.%I SELECT * FROM moved', parent || '_default', col, lo, col, hi, part);
        EXECUTE format('ALTER TABLE floor.%I ATTACH PARTITION floor.%I FOR VALUES FROM (%L) TO (%L)',
                       parent, part, lo, hi);
        RETURN true;
    END $$""",
    "REVOKE ALL ON FUNCTION floor.add_month(text, date) FROM PUBLIC",
    # the months of today's rows, then the rows
    """DO $$ DECLARE m date; BEGIN
        FOR m IN SELECT DISTINCT date_trunc('month', started_at AT TIME ZONE 'UTC')::date FROM floor.rounds_0007 LOOP
            PERFORM floor.add_month('rounds', m);
        END LOOP;
        FOR m IN SELECT DISTINCT date_trunc('month', forwarded_at AT TIME ZONE 'UTC')::date FROM floor.audit_0007 LOOP
            PERFORM floor.add_month('audit', m);
        END LOOP;
        FOR m IN SELECT DISTINCT date_trunc('month', forwarded_at AT TIME ZONE 'UTC')::date
                FROM floor.round_versions_0007 LOOP
            PERFORM floor.add_month('round_versions', m);
        END LOOP; END $$""",
    "INSERT INTO floor.rounds SELECT *, NULL, NULL, NULL FROM floor.rounds_0007",
    "INSERT INTO floor.audit SELECT * FROM floor.audit_0007",
    "INSERT INTO floor.round_versions SELECT *, NULL, NULL, NULL FROM floor.round_versions_0007",
    # the notes' write policies read floor.rounds: they go with the old table (floor init
    # makes them again on the new one, as it does every role's grants and policies)
    *[f"DROP TABLE floor.{t}_0007 CASCADE" for t in _PARTITIONED_0008],
    *_latest_with_theo(),
    # once per table, whatever the month (the keys hold the month: a second copy of a round,
    # a floor seq or an audit entry in another month would pass them)
    """CREATE FUNCTION floor.check_once() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
    DECLARE bad record;
    BEGIN
        -- the tables' forwarding locks (a forwarder holds its own already): two writers of one
        -- table's rows check one after the other, each seeing the other's committed rows
        PERFORM 1 FROM floor.forward_locks WHERE table_name IN (SELECT DISTINCT table_name FROM added)
            ORDER BY table_name FOR UPDATE;
        IF TG_TABLE_NAME = 'rounds' THEN
            SELECT n.table_name, n.round_id INTO bad FROM added n WHERE EXISTS (SELECT 1 FROM floor.rounds r
                WHERE r.table_name = n.table_name AND r.round_id = n.round_id AND r.started_at <> n.started_at)
                OR EXISTS (SELECT 1 FROM floor.rounds r WHERE r.table_name = n.table_name
                AND r.floor_seq = n.floor_seq AND r.started_at <> n.started_at) LIMIT 1;
            IF FOUND THEN
                RAISE EXCEPTION 'round % (or its floor seq) of table % is already on the floor', bad.round_id,
                    bad.table_name USING ERRCODE = '23505';
            END IF;
            FOR bad IN SELECT DISTINCT table_name FROM added LOOP
                PERFORM pg_notify('floor_live', bad.table_name);
            END LOOP;
        ELSE
            SELECT n.table_name, n.audit_id INTO bad FROM added n JOIN floor.audit a
                ON a.table_name = n.table_name AND a.audit_id = n.audit_id AND a.forwarded_at <> n.forwarded_at LIMIT 1;
            IF FOUND THEN
                RAISE EXCEPTION 'audit entry % of table % is already on the floor', bad.audit_id, bad.table_name
                    USING ERRCODE = '23505';
            END IF;
        END IF;
        RETURN NULL;
    END $$""",
    "REVOKE ALL ON FUNCTION floor.check_once() FROM PUBLIC",
    _versions_with_theo(),
    "CREATE TRIGGER rounds_once AFTER INSERT ON floor.rounds "
    "REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION floor.check_once()",
    "CREATE TRIGGER audit_once AFTER INSERT ON floor.audit "
    "REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION floor.check_once()",
    *[f"ALTER TABLE floor.{t} ENABLE ROW LEVEL SECURITY" for t in _PARTITIONED_0008],
    *[f"CREATE POLICY station_sees ON floor.{t} FOR SELECT USING (table_name = (SELECT floor.station_table(current_user::text)))"
      for t in _PARTITIONED_0008],
    "CREATE POLICY station_adds ON floor.rounds FOR INSERT WITH CHECK (table_name = "
    "(SELECT floor.station_table(current_user::text)) AND pit = (SELECT floor.station_pit(current_user::text)))",
    "CREATE POLICY station_adds ON floor.audit FOR INSERT WITH CHECK (table_name = "
    "(SELECT floor.station_table(current_user::text)))",
]


# Issue 25, item 6: a round's rows (events, settlements, rulings, players) partitioned by month
# with it: each carries its round's start (``started_at``, given by the forwarder; players had
# it already), so a round and its rows are in the same month's partitions and a month's verify,
# day page or report reads only that month's. The keys hold the start (a partition key must be
# in them); a round's rows are written in its round's transaction (the round itself is on the
# floor once: floor.check_once) and verify digests them with it, so a row added later under
# another start is caught by verify like any other extra row. The migration copies today's rows
# into their months, each with its round's start; a row whose round is not on the floor (which
# verify names) keeps its place in the default partition (start -infinity).
_CHILDREN_0009 = ("events", "settlements", "rulings", "round_players")
_M0009_TABLES = {
    "events": """(
        table_name text NOT NULL,
        round_id bigint NOT NULL,
        seq integer NOT NULL,
        station_event_id bigint NOT NULL,
        at text NOT NULL,
        actor text NOT NULL,
        event_json text NOT NULL,
        station_link bytea NOT NULL,
        started_at timestamptz NOT NULL,
        PRIMARY KEY (table_name, round_id, seq, started_at)
    )""",
    "settlements": """(
        table_name text NOT NULL,
        round_id bigint NOT NULL,
        idx integer NOT NULL,
        player text NOT NULL,
        area integer,
        hand integer,
        bet text NOT NULL,
        stake numeric NOT NULL,
        result text NOT NULL,
        net numeric NOT NULL,
        rule text,
        stage text,
        started_at timestamptz NOT NULL,
        PRIMARY KEY (table_name, round_id, idx, started_at)
    )""",
    "rulings": """(
        table_name text NOT NULL,
        round_id bigint NOT NULL,
        idx integer NOT NULL,
        event_index integer,
        rule text,
        ruling text,
        text text,
        moves_json text NOT NULL,
        started_at timestamptz NOT NULL,
        PRIMARY KEY (table_name, round_id, idx, started_at)
    )""",
    "round_players": """(
        player text NOT NULL,
        started_at timestamptz NOT NULL,
        table_name text NOT NULL,
        round_id bigint NOT NULL,
        pit text NOT NULL,
        net numeric,
        wagered numeric NOT NULL,
        PRIMARY KEY (player, started_at, table_name, round_id)
    )""",
}


def _add_month_0009() -> str:
    """floor.add_month of 0008, the round's rows partitioned by their round's start as rounds are."""
    text = next(s for s in _M0008 if "FUNCTION floor.add_month" in s)
    old = "col text := CASE parent WHEN 'rounds' THEN 'started_at' ELSE 'forwarded_at' END;"
    assert text.count(old) == 1 and text.count("CREATE FUNCTION") == 1
    return text.replace("CREATE FUNCTION", "CREATE OR REPLACE FUNCTION").replace(
        old, "col text := CASE WHEN parent IN ('audit', 'round_versions') THEN 'forwarded_at' ELSE 'started_at' END;")


_M0009 = [
    "DROP VIEW floor.round_players_latest",
    *[f"ALTER TABLE floor.{t} RENAME TO {t}_0008" for t in _CHILDREN_0009],
    r"""DO $$ DECLARE i record; BEGIN
        FOR i IN SELECT c.relname FROM pg_index x JOIN pg_class c ON c.oid = x.indexrelid
                JOIN pg_class t ON t.oid = x.indrelid JOIN pg_namespace n ON n.oid = t.relnamespace
                WHERE n.nspname = 'floor' AND t.relname IN ('events_0008', 'settlements_0008', 'rulings_0008',
                    'round_players_0008') LOOP
            EXECUTE format('ALTER INDEX floor.%I RENAME TO %I', i.relname, i.relname || '_0008');
        END LOOP; END $$""",
    *[f"CREATE TABLE floor.{t} {columns} PARTITION BY RANGE (started_at)" for t, columns in _M0009_TABLES.items()],
    "CREATE INDEX round_players_round ON floor.round_players (table_name, round_id)",
    *[f"CREATE TABLE floor.{t}_default PARTITION OF floor.{t} DEFAULT" for t in _CHILDREN_0009],
    _add_month_0009(),
    # the months of the rounds (a round's rows go in its month), then the rows with their round's start
    """DO $$ DECLARE m date; t text; BEGIN
        FOR m IN SELECT DISTINCT date_trunc('month', started_at AT TIME ZONE 'UTC')::date FROM floor.rounds LOOP
            FOREACH t IN ARRAY ARRAY['events', 'settlements', 'rulings', 'round_players'] LOOP
                PERFORM floor.add_month(t, m);
            END LOOP;
        END LOOP; END $$""",
    *[f"INSERT INTO floor.{t} SELECT c.*, coalesce(r.started_at, '-infinity') FROM floor.{t}_0008 c "
      f"LEFT JOIN floor.rounds r ON r.table_name = c.table_name AND r.round_id = c.round_id"
      for t in ("events", "settlements", "rulings")],
    # (the trigger that checks players against their rounds is made again below: these were checked)
    "INSERT INTO floor.round_players SELECT * FROM floor.round_players_0008",
    *[f"DROP TABLE floor.{t}_0008 CASCADE" for t in _CHILDREN_0009],
    _M0003[1],
    "CREATE TRIGGER round_players_checked AFTER INSERT ON floor.round_players "
    "REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION floor.check_round_players()",
    *[f"ALTER TABLE floor.{t} ENABLE ROW LEVEL SECURITY" for t in _CHILDREN_0009],
    *[f"CREATE POLICY station_sees ON floor.{t} FOR SELECT USING (table_name = (SELECT floor.station_table(current_user::text)))"
      for t in _CHILDREN_0009],
    *[f"CREATE POLICY station_adds ON floor.{t} FOR INSERT WITH CHECK (table_name = (SELECT floor.station_table(current_user::text))"
      + (" AND pit = (SELECT floor.station_pit(current_user::text)))" if t == "round_players" else ")")
      for t in _CHILDREN_0009],
]

# Issue 35, item 3: a cage's rules. Signers are accounts (floor.signers: a lower-case name and
# a salted, iterated PIN hash, readable by no floor role), not typed names: a fill, credit,
# count or drop is written only through the SECURITY DEFINER functions below, each signature
# confirmed by its account's PIN, two signatures by two different accounts (compared by
# account: "SUE" is sue). Fills, credits and buy-ins are more than 0, in the table's chip
# denominations where the floor knows them (floor.table_chips); a gaming day is not after the
# floor's today (floor.settings' gaming time zone); shift names are kept lower-case. A closed
# shift (its closer recorded) never changes: a later fill or credit is kept as an adjustment
# of that shift (adjusts_closed), shown beside its figures, never in them. The review role
# loses its direct INSERT on these tables (floor init revokes it): the functions are its only way.
_SIGNED = """
        IF NOT EXISTS (SELECT 1 FROM floor.tables WHERE table_name = t) THEN
            RAISE EXCEPTION 'no table % on the floor', t USING ERRCODE = '22023';
        END IF;
        IF day IS NULL OR day > floor.today() THEN
            RAISE EXCEPTION 'gaming day % is in the future (the floor''s today is %)', day, floor.today()
                USING ERRCODE = '22023';
        END IF;
        s := lower(btrim(coalesce(shift, '')));
        IF s = '' THEN
            RAISE EXCEPTION 'name the shift' USING ERRCODE = '22023';
        END IF;
        one := floor.check_signer(first, first_pin);
        two := floor.check_signer(second, second_pin);
        IF one = two THEN
            RAISE EXCEPTION 'two signatures by two different accounts are needed (% signed twice)', one
                USING ERRCODE = '22023';
        END IF;"""
_M0010 = [
    """CREATE TABLE floor.settings (
        key text PRIMARY KEY,
        value text NOT NULL
    )""",
    "INSERT INTO floor.settings VALUES ('gaming_timezone', current_setting('TimeZone'))",
    "ALTER TABLE floor.settings ENABLE ROW LEVEL SECURITY",
    """CREATE FUNCTION floor.today() RETURNS date
    LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
        SELECT (clock_timestamp() AT TIME ZONE coalesce(
            (SELECT value FROM floor.settings WHERE key = 'gaming_timezone'), 'UTC'))::date $$""",
    """CREATE TABLE floor.signers (
        signer text PRIMARY KEY CHECK (signer = lower(btrim(signer)) AND signer <> ''),
        salt bytea NOT NULL,
        pin_hash bytea NOT NULL,
        set_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        set_by text NOT NULL DEFAULT session_user
    )""",
    "ALTER TABLE floor.signers ENABLE ROW LEVEL SECURITY",
    """CREATE FUNCTION floor.pin_hash(salt bytea, pin text) RETURNS bytea
    LANGUAGE plpgsql IMMUTABLE STRICT SET search_path = pg_catalog, pg_temp AS $$
    DECLARE h bytea := sha256(salt || convert_to(pin, 'UTF8'));
    BEGIN
        FOR i IN 1..4096 LOOP h := sha256(h || salt); END LOOP;
        RETURN h;
    END $$""",
    # the administrator's: an account and its PIN (again: a new PIN)
    """CREATE FUNCTION floor.set_signer(name text, pin text) RETURNS text
    LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
    DECLARE n text := lower(btrim(coalesce(name, ''))); salt bytea := uuid_send(gen_random_uuid());
    BEGIN
        IF n !~ '^[a-z0-9][a-z0-9 ._-]{0,39}$' THEN
            RAISE EXCEPTION 'signer %: 1 to 40 letters, digits, spaces, dots, dashes or underscores', name
                USING ERRCODE = '22023';
        END IF;
        IF coalesce(pin, '') !~ '^[0-9]{4,12}$' THEN
            RAISE EXCEPTION 'a PIN is 4 to 12 digits' USING ERRCODE = '22023';
        END IF;
        INSERT INTO floor.signers (signer, salt, pin_hash) VALUES (n, salt, floor.pin_hash(salt, pin))
        ON CONFLICT (signer) DO UPDATE SET salt = excluded.salt, pin_hash = excluded.pin_hash,
            set_at = excluded.set_at, set_by = excluded.set_by;
        RETURN n;
    END $$""",
    # an account's identity (its lower-case name) once its PIN is confirmed; a wrong PIN waits
    # a second before it is refused (guesses are slow)
    """CREATE FUNCTION floor.check_signer(name text, pin text) RETURNS text
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
    DECLARE n text := lower(btrim(coalesce(name, ''))); row record;
    BEGIN
        SELECT * INTO row FROM floor.signers WHERE signer = n;
        IF NOT FOUND THEN
            RAISE EXCEPTION 'signer % has no account on the floor (the administrator adds it: floor signer)',
                coalesce(nullif(btrim(name), ''), '(none)') USING ERRCODE = '28000';
        END IF;
        IF floor.pin_hash(row.salt, coalesce(pin, '')) IS DISTINCT FROM row.pin_hash THEN
            PERFORM pg_sleep(1);
            RAISE EXCEPTION 'the PIN of % is not right', n USING ERRCODE = '28P01';
        END IF;
        RETURN n;
    END $$""",
    """CREATE TABLE floor.table_chips (
        table_name text PRIMARY KEY REFERENCES floor.tables,
        denominations numeric[] NOT NULL CHECK (cardinality(denominations) > 0 AND 0 < ALL (denominations)),
        set_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        set_by text NOT NULL DEFAULT session_user
    )""",
    "ALTER TABLE floor.table_chips ENABLE ROW LEVEL SECURITY",
    "ALTER TABLE floor.chip_movements ADD COLUMN adjusts_closed boolean NOT NULL DEFAULT false",
    f"""CREATE FUNCTION floor.record_chips(t text, day date, shift text, kind text, chips jsonb, first text,
            first_pin text, second text, second_pin text, OUT total numeric, OUT adjustment boolean)
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
    #variable_conflict use_variable
    DECLARE s text; one text; two text; known numeric[]; odd text;
    BEGIN
        {_SIGNED}
        IF kind IS NULL OR kind NOT IN ('opener', 'closer', 'fill', 'credit') THEN
            RAISE EXCEPTION 'kind %: one of opener, closer, fill, credit', kind USING ERRCODE = '22023';
        END IF;
        IF NOT coalesce(floor.chips_valid(chips), false) THEN
            RAISE EXCEPTION 'chips: denominations more than 0 with whole counts' USING ERRCODE = '22023';
        END IF;
        total := floor.chip_total(chips);
        IF kind IN ('fill', 'credit') AND total <= 0 THEN
            RAISE EXCEPTION 'a % must be more than 0 (it is %)', kind, total USING ERRCODE = '22023';
        END IF;
        SELECT denominations INTO known FROM floor.table_chips c WHERE c.table_name = t;
        IF known IS NOT NULL THEN
            SELECT key INTO odd FROM jsonb_each(chips) WHERE NOT key::numeric = ANY (known) ORDER BY key LIMIT 1;
            IF FOUND THEN
                RAISE EXCEPTION 'table % has no % chips (its denominations: %)', t, odd, array_to_string(known, ', ')
                    USING ERRCODE = '22023';
            END IF;
        END IF;
        PERFORM pg_advisory_xact_lock(hashtext('floor.shift'), hashtext(t || '/' || day || '/' || s));
        IF kind IN ('opener', 'closer') AND EXISTS (SELECT 1 FROM floor.chip_movements m WHERE m.table_name = t
                AND m.gaming_day = day AND lower(m.shift) = s AND m.kind = kind) THEN
            RAISE EXCEPTION 'the % of % (% %) is already recorded (records are never changed)', kind, t, day, s
                USING ERRCODE = '23505';
        END IF;
        adjustment := kind IN ('fill', 'credit') AND EXISTS (SELECT 1 FROM floor.chip_movements m
            WHERE m.table_name = t AND m.gaming_day = day AND lower(m.shift) = s AND m.kind = 'closer');
        INSERT INTO floor.chip_movements (table_name, gaming_day, shift, kind, chips, dealer, supervisor,
            db_role, adjusts_closed) VALUES (t, day, s, kind, chips, one, two, session_user, adjustment);
    END $$""",
    f"""CREATE FUNCTION floor.record_drop(t text, day date, shift text, cash numeric, markers numeric, first text,
            first_pin text, second text, second_pin text) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
    #variable_conflict use_variable
    DECLARE s text; one text; two text;
    BEGIN
        {_SIGNED}
        IF cash IS NULL OR markers IS NULL OR cash < 0 OR markers < 0 THEN
            RAISE EXCEPTION 'the drop''s cash and markers cannot be negative' USING ERRCODE = '22023';
        END IF;
        PERFORM pg_advisory_xact_lock(hashtext('floor.shift'), hashtext(t || '/' || day || '/' || s));
        IF EXISTS (SELECT 1 FROM floor.drops d WHERE d.table_name = t AND d.gaming_day = day AND lower(d.shift) = s) THEN
            RAISE EXCEPTION 'the drop of % (% %) is already recorded (records are never changed)', t, day, s
                USING ERRCODE = '23505';
        END IF;
        INSERT INTO floor.drops (table_name, gaming_day, shift, cash, markers, counted_by, witness, db_role)
        VALUES (t, day, s, cash, markers, one, two, session_user);
    END $$""",
    """CREATE FUNCTION floor.record_buy_in(t text, player text, amount numeric, kind text, supervisor text,
            pin text) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
    #variable_conflict use_variable
    DECLARE one text;
    BEGIN
        IF NOT EXISTS (SELECT 1 FROM floor.tables WHERE table_name = t) THEN
            RAISE EXCEPTION 'no table % on the floor', t USING ERRCODE = '22023';
        END IF;
        IF amount IS NULL OR amount <= 0 THEN
            RAISE EXCEPTION 'a buy-in''s amount must be more than 0' USING ERRCODE = '22023';
        END IF;
        IF kind IS NULL OR kind NOT IN ('cash', 'marker') THEN
            RAISE EXCEPTION 'a buy-in is cash or marker' USING ERRCODE = '22023';
        END IF;
        IF coalesce(btrim(player), '') = '' THEN
            RAISE EXCEPTION 'name the player' USING ERRCODE = '22023';
        END IF;
        one := floor.check_signer(supervisor, pin);
        INSERT INTO floor.buy_ins (table_name, player, amount, kind, supervisor, db_role)
        VALUES (t, btrim(player), amount, kind, one, session_user);
    END $$""",
    *[f"REVOKE ALL ON FUNCTION floor.{f} FROM PUBLIC" for f in (
        "today()", "pin_hash(bytea, text)", "set_signer(text, text)", "check_signer(text, text)",
        "record_chips(text, date, text, text, jsonb, text, text, text, text)",
        "record_drop(text, date, text, numeric, numeric, text, text, text, text)",
        "record_buy_in(text, text, numeric, text, text, text)")],
]
#: The SECURITY DEFINER functions the review role records the table's accounting through.
ACCOUNTING_FUNCTIONS = (
    "floor.record_chips(text, date, text, text, jsonb, text, text, text, text)",
    "floor.record_drop(text, date, text, numeric, numeric, text, text, text, text)",
    "floor.record_buy_in(text, text, numeric, text, text, text)",
)

def _take_forward_lock_bounded() -> str:
    """floor.take_forward_lock of 0004, first checking the session's bounds (0011)."""
    text = next(x for x in _M0004 if "FUNCTION floor.take_forward_lock" in x)
    head = "    BEGIN\n"
    assert text.count(head) == 1
    return text.replace("CREATE FUNCTION", "CREATE OR REPLACE FUNCTION").replace(
        head, head + "        PERFORM floor.check_session_bounds();\n")


# Issue 35, item 4: roles that cannot slip their bounds. PostgreSQL lets any role change its own
# session defaults (ALTER ROLE self SET / RESET ALL, tested: tests/floor/test_roles_bounds.py) and
# any session its own settings (SET statement_timeout = 0): a role's settings are defaults, never
# a guarantee. So the floor keeps each station and review role's bounds in floor.role_bounds
# (floor init; readable by no floor role) and checks them where they matter:
# - floor.take_forward_lock refuses a session whose statement, lock or idle-in-transaction bound
#   is off (0) or above the role's (a forwarder that dropped its bounds cannot lock its table);
# - floor.enforce_bounds (run by the floor service every pass, as the floor's owner) puts back a
#   role's settings changed by the role itself and ends any such role's session idle in a
#   transaction or running a statement beyond its bound, whatever it SET in its session.
_M0011 = [
    """CREATE TABLE floor.role_bounds (
        account text PRIMARY KEY,
        statement_ms integer NOT NULL CHECK (statement_ms > 0),
        lock_ms integer NOT NULL CHECK (lock_ms > 0),
        idle_ms integer NOT NULL CHECK (idle_ms > 0)
    )""",
    "ALTER TABLE floor.role_bounds ENABLE ROW LEVEL SECURITY",
    """CREATE FUNCTION floor.check_session_bounds() RETURNS void
    LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
    DECLARE b record; s bigint; l bigint; i bigint;
    BEGIN
        SELECT * INTO b FROM floor.role_bounds WHERE account = session_user;
        IF NOT FOUND THEN
            RETURN;
        END IF;
        SELECT setting::bigint INTO s FROM pg_settings WHERE name = 'statement_timeout';
        SELECT setting::bigint INTO l FROM pg_settings WHERE name = 'lock_timeout';
        SELECT setting::bigint INTO i FROM pg_settings WHERE name = 'idle_in_transaction_session_timeout';
        IF s = 0 OR s > b.statement_ms OR l = 0 OR l > b.lock_ms OR i = 0 OR i > b.idle_ms THEN
            RAISE EXCEPTION 'this session''s bounds (statement % ms, lock % ms, idle in transaction % ms) are off or '
                'above the floor''s for % (% / % / % ms): refused', s, l, i, session_user, b.statement_ms, b.lock_ms,
                b.idle_ms USING ERRCODE = '42501';
        END IF;
    END $$""",
    """CREATE FUNCTION floor.enforce_bounds() RETURNS TABLE (account text, action text)
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
    #variable_conflict use_column
    DECLARE b record; want text[]; have text[]; p record;
    BEGIN
        FOR b IN SELECT * FROM floor.role_bounds r WHERE EXISTS (SELECT 1 FROM pg_roles x WHERE x.rolname = r.account)
                ORDER BY r.account LOOP
            want := ARRAY['idle_in_transaction_session_timeout=' || b.idle_ms || 'ms',
                          'lock_timeout=' || b.lock_ms || 'ms', 'statement_timeout=' || b.statement_ms || 'ms'];
            SELECT array_agg(c ORDER BY c) INTO have FROM pg_db_role_setting s JOIN pg_roles r ON r.oid = s.setrole,
                unnest(s.setconfig) c WHERE r.rolname = b.account AND s.setdatabase = 0;
            IF have IS DISTINCT FROM want THEN
                EXECUTE format('ALTER ROLE %I RESET ALL', b.account);
                EXECUTE format('ALTER ROLE %I SET statement_timeout = %L', b.account, b.statement_ms || 'ms');
                EXECUTE format('ALTER ROLE %I SET lock_timeout = %L', b.account, b.lock_ms || 'ms');
                EXECUTE format('ALTER ROLE %I SET idle_in_transaction_session_timeout = %L', b.account, b.idle_ms || 'ms');
                account := b.account;
                action := 'its settings were changed (' || coalesce(array_to_string(have, ', '), 'none') || '): put back';
                RETURN NEXT;
            END IF;
            IF EXISTS (SELECT 1 FROM pg_db_role_setting s JOIN pg_roles r ON r.oid = s.setrole
                    WHERE r.rolname = b.account AND s.setdatabase <> 0) THEN
                FOR p IN SELECT d.datname FROM pg_db_role_setting s JOIN pg_roles r ON r.oid = s.setrole
                        JOIN pg_database d ON d.oid = s.setdatabase WHERE r.rolname = b.account LOOP
                    EXECUTE format('ALTER ROLE %I IN DATABASE %I RESET ALL', b.account, p.datname);
                END LOOP;
                account := b.account;
                action := 'its per-database settings were removed';
                RETURN NEXT;
            END IF;
        END LOOP;
        FOR p IN SELECT a.pid, a.usename, a.state FROM pg_stat_activity a JOIN floor.role_bounds b
                ON b.account = a.usename WHERE a.datname = current_database() AND a.pid <> pg_backend_pid() AND (
                (a.state LIKE 'idle in transaction%' AND clock_timestamp() - a.state_change
                    > make_interval(secs => b.idle_ms / 1000.0 + 1))
                OR (a.state = 'active' AND clock_timestamp() - a.query_start
                    > make_interval(secs => b.statement_ms / 1000.0 + 1))) LOOP
            IF pg_terminate_backend(p.pid) THEN
                account := p.usename;
                action := 'session ' || p.pid || ' ended (' || p.state || ' beyond its bound)';
                RETURN NEXT;
            END IF;
        END LOOP;
    END $$""",
    "REVOKE ALL ON FUNCTION floor.check_session_bounds() FROM PUBLIC",
    "REVOKE ALL ON FUNCTION floor.enforce_bounds() FROM PUBLIC",
    _take_forward_lock_bounded(),
    # the floor service's alerts
    "ALTER TABLE floor.alerts DROP CONSTRAINT alerts_kind_check",
    "ALTER TABLE floor.alerts ADD CONSTRAINT alerts_kind_check CHECK (kind IN ('link_down', 'table_stopped', "
    "'win_band', 'pace', 'verify_failed', 'role_bounds'))",
]

# Issue 36, Build 4: game protection's alerts (dealer_assist.protect.live), raised by the floor
# service. floor.alerts is readable by the review role (supervisors' pit windows) and the service
# role only: a station role has no grant on it (tests/floor/test_protection_alerts.py).
_M0012 = [
    "ALTER TABLE floor.alerts DROP CONSTRAINT alerts_kind_check",
    "ALTER TABLE floor.alerts ADD CONSTRAINT alerts_kind_check CHECK (kind IN ('link_down', 'table_stopped', "
    "'win_band', 'pace', 'verify_failed', 'role_bounds', 'advantage_play', 'shoe_favours_players'))",
]

# Issue 36: an alert has a subject within its table and kind — the player (advantage_play), the
# shoe (shoe_favours_players), '' for the other kinds — and floor.raise_alert keeps one open
# alert per table, kind and subject (the quiet period after an acknowledgement per subject too).
# Safe while stations forward: only floor.alerts is altered (a stored default: no rewrite) and
# no station reads or writes it; the open alerts stay open (subject ''). The four-argument
# function raises with subject '' (the kinds that have none).
_M0013 = [
    "ALTER TABLE floor.alerts ADD COLUMN subject text NOT NULL DEFAULT ''",
    "CREATE INDEX alerts_table_kind_subject ON floor.alerts (table_name, kind, subject, raised_at DESC)",
    "DROP INDEX floor.alerts_table_kind",
    """CREATE FUNCTION floor.raise_alert(t text, k text, s text, why text, quiet interval) RETURNS bigint
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
    DECLARE made bigint;
    BEGIN
        PERFORM pg_advisory_xact_lock(hashtext('floor.alert'), hashtext(t || '/' || k || '/' || s));
        IF EXISTS (SELECT 1 FROM floor.alerts a WHERE a.table_name = t AND a.kind = k AND a.subject = s
                AND NOT EXISTS (SELECT 1 FROM floor.alert_acks c WHERE c.alert_id = a.alert_id))
            OR EXISTS (SELECT 1 FROM floor.alerts a JOIN floor.alert_acks c USING (alert_id)
                WHERE a.table_name = t AND a.kind = k AND a.subject = s AND c.acked_at > clock_timestamp() - quiet) THEN
            RETURN NULL;
        END IF;
        INSERT INTO floor.alerts (table_name, kind, subject, detail) VALUES (t, k, s, why) RETURNING alert_id INTO made;
        PERFORM pg_notify('floor_live', t);
        RETURN made;
    END $$""",
    "REVOKE ALL ON FUNCTION floor.raise_alert(text, text, text, text, interval) FROM PUBLIC",
    """CREATE OR REPLACE FUNCTION floor.raise_alert(t text, k text, why text, quiet interval) RETURNS bigint
    LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
        SELECT floor.raise_alert(t, k, '', why, quiet)
    $$""",
]

# Issue 35, items 6 and 7: each round's reach, the largest amount any player won or lost in it
# (the settle output's net per player, as round_players_latest reads a version's), kept on the
# round, so the pit's "net >=" filter compares one column instead of probing round_players (one
# index probe per month's partition, per round of the day: 308-915 ms a pit-day at 2.16 M rounds)
# and every refinished version's settle output. The first migration written online
# (dealer_assist.floor.online): forwarding goes on during it.
# - create: the column (nullable, no default: catalog only) and the trigger that fills it on
#   every round inserted from then on (from its own settle output: a station cannot give another);
# - backfill: the rounds already there, in batches along (table, round);
# - swap: rounds_latest gives each round's reach as it stands (its latest version's where it was
#   finished again); the reader uses it once the swap is recorded, the old filter before.
# (plpgsql, json: the settle output parsed once and lazily — half the cost per forwarded round
# of a jsonb parse of it twice, measured: 34 against 74 us a round)
_REACH_OF = r"""CREATE FUNCTION floor.reach_of(result text) RETURNS numeric
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE SET search_path = pg_catalog, pg_temp AS $$
    DECLARE net json := result::json -> 'net'; reach numeric;
    BEGIN
        IF json_typeof(net) IS DISTINCT FROM 'object' THEN
            RETURN NULL;
        END IF;
        SELECT max(abs(e.value::numeric)) INTO reach FROM json_each_text(net) e
            WHERE e.value ~ '^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$';
        RETURN reach;
    END $$"""


def _rounds_latest_with_reach() -> str:
    """rounds_latest of 0008 with each round's reach as it stands, as its last column."""
    text = _latest_with_theo()[0]
    old = "AS theo_wagered\n"
    assert text.count(old) == 1 and text.count("CREATE VIEW") == 1
    return text.replace("CREATE VIEW", "CREATE OR REPLACE VIEW").replace(
        old, "AS theo_wagered,\n        CASE WHEN v.round_id IS NULL THEN r.reach ELSE floor.reach_of(v.result_json) "
             "END AS reach\n")


_M0014 = Online((
    Change("create", (
        "ALTER TABLE floor.rounds ADD COLUMN reach numeric",
        _REACH_OF,
        """CREATE FUNCTION floor.fill_reach() RETURNS trigger
        LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
        BEGIN
            NEW.reach := floor.reach_of(NEW.result_json);
            RETURN NEW;
        END $$""",
        "CREATE TRIGGER rounds_reach BEFORE INSERT ON floor.rounds FOR EACH ROW EXECUTE FUNCTION floor.fill_reach()",
    )),
    Backfill("backfill", "rounds", (("table_name", "text"), ("round_id", "bigint")),
             "reach = floor.reach_of(result_json)"),
    Change("swap", (_rounds_latest_with_reach(),)),
))

# Issue 35, item 7: chain format 2 (dealer_assist/floor/chain.py). A round written in it has
# its derived rows checked against its settle output here, once, as it arrives — so verify re-hashes
# them (they are chained with the round) instead of parsing and comparing:
# - floor.check_derived (after each INSERT into rounds, the statement's format-2 rounds): the
#   settlement and ruling rows against the settle output's, by index (the forwarder writes them
#   before the round), the wagered and house net against its stakes and nets, the totals against
#   its nets — the checks verify makes of a format-1 round;
# - floor.refuse_late_rows (after each INSERT into settlements or rulings): none for a format-2
#   round already on the floor (what was checked is what the station chained; a row under another
#   start is named by verify's stray check);
# - floor.check_round_players: a format-2 round's player row carries its settle output's net.
# Rounds without the column's value (older stations' forwarders) are format 1, verified as before.
_CHECK_DERIVED = r"""CREATE FUNCTION floor.check_derived() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
    DECLARE bad record;
    BEGIN
        WITH r AS MATERIALIZED (SELECT a.table_name, a.round_id, a.started_at, a.wagered, a.house_net,
                a.totals_json, coalesce(a.result_json, '{}')::jsonb AS res FROM added a WHERE a.chain_format = 2),
        so AS MATERIALIZED (SELECT r.table_name, r.round_id, r.started_at, j.n - 1 AS idx, j.e ->> 'player' AS player,
                j.e ->> 'bet' AS bet, j.e ->> 'result' AS result, (j.e ->> 'stake')::numeric AS stake,
                (j.e ->> 'net')::numeric AS net
            FROM r, jsonb_array_elements(coalesce(r.res -> 'settlements', '[]')) WITH ORDINALITY j(e, n)),
        uo AS (SELECT r.table_name, r.round_id, j.n - 1 AS idx, coalesce(j.e ->> 'rule', '') AS rule,
                coalesce(j.e ->> 'text', '') AS text
            FROM r, jsonb_array_elements(coalesce(r.res -> 'rulings', '[]')) WITH ORDINALITY j(e, n)),
        st AS (SELECT s.table_name, s.round_id, s.idx, s.player, s.bet, s.result, s.stake, s.net
            FROM floor.settlements s JOIN r ON s.table_name = r.table_name AND s.round_id = r.round_id
            AND s.started_at = r.started_at),
        ru AS (SELECT u.table_name, u.round_id, u.idx, coalesce(u.rule, '') AS rule, coalesce(u.text, '') AS text
            FROM floor.rulings u JOIN r ON u.table_name = r.table_name AND u.round_id = r.round_id
            AND u.started_at = r.started_at),
        sums AS (SELECT so.table_name, so.round_id, sum(so.stake) AS stakes, sum(so.net) AS nets FROM so
            GROUP BY so.table_name, so.round_id),
        wrong AS (
            SELECT coalesce(a.table_name, b.table_name) AS t, coalesce(a.round_id, b.round_id) AS rid,
                'settlement rows' AS what FROM st a FULL JOIN so b
                ON a.table_name = b.table_name AND a.round_id = b.round_id AND a.idx = b.idx
                WHERE a.round_id IS NULL OR b.round_id IS NULL
                OR (a.player, a.bet, a.result, a.stake, a.net) IS DISTINCT FROM (b.player, b.bet, b.result, b.stake, b.net)
            UNION ALL
            SELECT coalesce(a.table_name, b.table_name), coalesce(a.round_id, b.round_id), 'ruling rows'
                FROM ru a FULL JOIN uo b ON a.table_name = b.table_name AND a.round_id = b.round_id AND a.idx = b.idx
                WHERE a.round_id IS NULL OR b.round_id IS NULL OR (a.rule, a.text) IS DISTINCT FROM (b.rule, b.text)
            UNION ALL
            SELECT r.table_name, r.round_id, 'wagered, house net or totals' FROM r
                LEFT JOIN sums m ON m.table_name = r.table_name AND m.round_id = r.round_id
                WHERE r.wagered IS DISTINCT FROM coalesce(m.stakes, 0) OR r.house_net IS DISTINCT FROM -coalesce(m.nets, 0)
                OR r.totals_json::jsonb IS DISTINCT FROM coalesce(r.res -> 'net', '{}'::jsonb))
        SELECT t, rid, what INTO bad FROM wrong ORDER BY t, rid LIMIT 1;
        IF FOUND THEN
            RAISE EXCEPTION 'round % of table %: its % differ from its settle output (chain format 2: checked '
                'as the round arrives, its settlements and rulings written before it)', bad.rid, bad.t, bad.what
                USING ERRCODE = '23514';
        END IF;
        RETURN NULL;
    END $$"""

_REFUSE_LATE_ROWS = """CREATE FUNCTION floor.refuse_late_rows() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
    DECLARE bad record;
    BEGIN
        SELECT n.table_name, n.round_id INTO bad FROM (SELECT DISTINCT table_name, round_id, started_at FROM added) n
            JOIN floor.rounds r ON r.table_name = n.table_name AND r.round_id = n.round_id
            AND r.started_at = n.started_at WHERE r.chain_format = 2 LIMIT 1;
        IF FOUND THEN
            RAISE EXCEPTION 'round % of table % is on the floor in chain format 2: its % were checked and chained '
                'as it arrived, none can be added', bad.round_id, bad.table_name, TG_TABLE_NAME USING ERRCODE = '42501';
        END IF;
        RETURN NULL;
    END $$"""

_CHECK_ROUND_PLAYERS_0015 = """CREATE OR REPLACE FUNCTION floor.check_round_players() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
    DECLARE bad record;
    BEGIN
        SELECT n.player, n.table_name, n.round_id INTO bad FROM added n WHERE NOT EXISTS (
            SELECT 1 FROM floor.rounds r WHERE r.table_name = n.table_name AND r.round_id = n.round_id
            AND r.pit = n.pit AND r.started_at = n.started_at AND r.players_json::jsonb ? n.player
            -- chain format 2: the player's net is its round's (its totals: the settle output's nets,
            -- checked by floor.check_derived), where it has one
            AND (r.chain_format IS DISTINCT FROM 2 OR NOT r.totals_json::jsonb ? n.player
                 OR n.net = (r.totals_json::jsonb ->> n.player)::numeric)) LIMIT 1;
        IF FOUND THEN
            RAISE EXCEPTION 'round % of table % on the floor does not name the player % (or, chain format 2, '
                'with another net)', bad.round_id, bad.table_name, bad.player USING ERRCODE = '42501';
        END IF;
        INSERT INTO floor.players (player) SELECT DISTINCT player FROM added ON CONFLICT DO NOTHING;
        RETURN NULL;
    END $$"""

# - create: the column (nullable, no default: catalog only; NULL is format 1) and the checks, which
#   look only at format-2 rounds (none yet: this version's forwarders write format 2 once the swap
#   is recorded, older ones never);
# - swap: only the record (the forwarders of this version read it).
_M0015 = Online((
    Change("create", (
        "ALTER TABLE floor.rounds ADD COLUMN chain_format smallint",
        _CHECK_DERIVED,
        _REFUSE_LATE_ROWS,
        _CHECK_ROUND_PLAYERS_0015,
        "REVOKE ALL ON FUNCTION floor.check_derived() FROM PUBLIC",
        "REVOKE ALL ON FUNCTION floor.refuse_late_rows() FROM PUBLIC",
        "CREATE TRIGGER rounds_derived AFTER INSERT ON floor.rounds "
        "REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION floor.check_derived()",
        *[f"CREATE TRIGGER {t}_late AFTER INSERT ON floor.{t} "
          "REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION floor.refuse_late_rows()"
          for t in ("settlements", "rulings")],
    )),
    Change("swap", ()),
))

#: The migration after which this version's forwarders write chain format 2.
CHAIN_FORMAT_MIGRATION = "0015_chain_format"

# 0016_audit_format (issue 35, item 7): audit format 2 (dealer_assist.floor.chain: an entry's
# fields joined by control characters, not a JSON array of to_json strings), recorded per entry.
# - create: the column (nullable, no default: catalog only, the month partitions' too; NULL is
#   format 1, what every forwarder before this version writes);
# - swap: only the record (this version's forwarders write audit format 2 once it is there).
_M0016 = Online((
    Change("create", ("ALTER TABLE floor.audit ADD COLUMN chain_format smallint",)),
    Change("swap", ()),
))

#: The migration after which this version's forwarders write audit format 2.
AUDIT_FORMAT_MIGRATION = "0016_audit_format"

#: The monthly partitioned tables and their partition key (floor.add_month makes their months).
PARTITIONED: dict[str, str] = {**_PARTITIONED_0008, **{t: "started_at" for t in _CHILDREN_0009}}

#: How many months ahead of this one floor init makes partitions for (a monthly job runs it).
MONTHS_AHEAD = 2

#: (name, statements or online steps) in order. Never edit an applied migration: add a new one.
MIGRATIONS: tuple[tuple[str, list[str] | Online], ...] = (
    ("0001_initial", _M0001), ("0002_notes_alarms_versions", _M0002), ("0003_latest_views", _M0003),
    ("0004_link_closed_writes", _M0004), ("0005_alerts", _M0005), ("0006_table_accounting", _M0006),
    ("0007_one_station_policy", _M0007), ("0008_monthly_partitions", _M0008),
    ("0009_round_rows_monthly", _M0009), ("0010_cage_rules", _M0010),
    ("0011_role_bounds", _M0011), ("0012_protection_alerts", _M0012),
    ("0013_alert_subjects", _M0013), ("0014_round_reach", _M0014),
    ("0015_chain_format", _M0015), ("0016_audit_format", _M0016),
)
KNOWN = frozenset(name for name, _ in MIGRATIONS)
#: Whether each migration is online: a floor where one is still under way (or not begun) is
#: served by this version (an online migration is written so that the code works before and
#: after it: readers use what it adds only once its swap is recorded).
ONLINE = frozenset(name for name, body in MIGRATIONS if isinstance(body, Online))

_TABLE_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,31}")


def validate_table(name: str) -> str:
    """A table's name: 1-32 letters, digits, '-', '_' or '.', starting with a letter or digit."""
    if not isinstance(name, str) or not _TABLE_RE.fullmatch(name):
        raise FloorError(
            f"table name {name!r}: 1 to 32 letters, digits, '-', '_' or '.', e.g. BJ-07"
        )
    return name


def validate_pit(name: str) -> str:
    if not isinstance(name, str) or not _TABLE_RE.fullmatch(name):
        raise FloorError(f"pit name {name!r}: 1 to 32 letters, digits, '-', '_' or '.', e.g. PIT-2")
    return name


def _role_part(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_") or "x"


def review_role(dbname: str) -> str:
    return f"{_role_part(dbname)}_review"[:63]


def station_role(dbname: str, table: str) -> str:
    return f"{_role_part(dbname)}_station_{_role_part(table)}"[:63]


def _dbname(conn: psycopg.Connection[Any]) -> str:
    row = conn.execute("SELECT current_database()").fetchone()
    assert row is not None
    return str(row[0])


def _steps_readable(conn: psycopg.Connection[Any]) -> bool:
    row = conn.execute("SELECT to_regclass('floor.migration_steps') IS NOT NULL "
                       "AND has_table_privilege('floor.migration_steps', 'SELECT')").fetchone()
    return row is not None and bool(row[0])


def _swapped(conn: psycopg.Connection[Any]) -> list[str]:
    """This version's online migrations whose swap is done (their record: the swap's step row)."""
    if not ONLINE or not _steps_readable(conn):
        return []
    last = {name: body.steps[-1].name for name, body in MIGRATIONS if isinstance(body, Online)}
    return sorted(str(r[0]) for r in conn.execute(
        "SELECT migration FROM floor.migration_steps WHERE done_at IS NOT NULL "
        "AND (migration, step) IN (SELECT * FROM unnest(%s::text[], %s::text[]))",
        (list(last), list(last.values()))).fetchall())


def _newer_online(conn: psycopg.Connection[Any]) -> list[str]:
    """Online migrations of a newer version begun on the floor (named in floor.migration_steps)."""
    if not _steps_readable(conn):
        return []
    return sorted(str(r[0]) for r in conn.execute(
        "SELECT DISTINCT migration FROM floor.migration_steps WHERE NOT migration = ANY(%s)", (sorted(KNOWN),)))


def applied_migrations(conn: psycopg.Connection[Any]) -> list[str]:
    """The migrations done on the floor: those of statements (and, from a floor upgraded before
    this rule, online ones) in floor.schema_migrations, and the online ones whose swap is done
    in floor.migration_steps — never written to schema_migrations, which the versions before
    0014 read, refusing a name they do not know (docs/floor.md, "Versions side by side")."""
    row = conn.execute("SELECT to_regclass('floor.schema_migrations')").fetchone()
    if row is None or row[0] is None:
        return []
    names = {str(r[0]) for r in conn.execute("SELECT name FROM floor.schema_migrations")}
    return sorted(names | set(_swapped(conn)))


def check_schema(conn: psycopg.Connection[Any]) -> None:
    """Refuse a database that is not a floor or was migrated by a newer version."""
    applied = applied_migrations(conn)
    if not applied:
        raise FloorMisconfigured("this database has no floor schema: run `dealer-assist floor init --url URL`")
    unknown = [n for n in applied if n not in KNOWN]
    if unknown:
        # a newer version's online migration keeps the floor readable and writable by the code
        # before it (it only adds: docs/floor.md, "Online migrations"): served; any other, refused
        online = set(_newer_online(conn))
        unknown = [n for n in unknown if n not in online]
    if unknown:
        raise FloorMisconfigured(f"the floor was migrated by a newer Dealer Assist (schema {unknown[0]}); upgrade first")
    if any(name not in applied and name not in ONLINE for name, _ in MIGRATIONS):
        raise FloorMisconfigured("the floor's schema is older than this version: run `dealer-assist floor init --url URL`")


def _ensure_role(conn: psycopg.Connection[Any], role: str, *, login: bool = True) -> None:
    exists = conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (role,)).fetchone()
    if exists is None:
        conn.execute(sql.SQL("CREATE ROLE {} " + ("LOGIN" if login else "NOLOGIN")).format(sql.Identifier(role)))


_ACCOUNTING = {
    "chip_movements": ("table_name", "gaming_day", "shift", "kind", "chips", "dealer", "supervisor"),
    "drops": ("table_name", "gaming_day", "shift", "cash", "markers", "counted_by", "witness"),
    "buy_ins": ("table_name", "player", "amount", "kind", "supervisor"),
}


def _policy_once(conn: psycopg.Connection[Any], name: str, table: str, create: sql.Composed) -> None:
    """Create a policy unless it is there: CREATE POLICY locks its table (ACCESS EXCLUSIVE), so
    a floor init on a busy floor creates only what is missing and waits on nothing else."""
    row = conn.execute("SELECT 1 FROM pg_policies WHERE schemaname = 'floor' AND tablename = %s AND policyname = %s",
                       (table, name)).fetchone()
    if row is None:
        conn.execute(create)


def _grant_reads(conn: psycopg.Connection[Any], role: str) -> None:
    """``SELECT`` on every floor table and view (a policy ``USING (true)`` where rows are
    guarded), but nothing of floor.signers (the signers' PIN hashes)."""
    ident = sql.Identifier(role)
    conn.execute(sql.SQL("GRANT USAGE ON SCHEMA floor TO {}").format(ident))
    conn.execute(sql.SQL("GRANT SELECT ON ALL TABLES IN SCHEMA floor TO {}").format(ident))
    tables = (*FORWARDED_TABLES, "tables", "notes", "alarm_clearings", "alerts", "alert_acks", *_ACCOUNTING)
    cage = conn.execute("SELECT to_regclass('floor.signers')").fetchone()
    if cage is not None and cage[0] is not None:  # a floor of 0010 on
        conn.execute(sql.SQL("REVOKE ALL ON floor.signers FROM {}").format(ident))
        tables = (*tables, "table_chips")
    for table in tables:
        name = sql.Identifier(f"review_{role}")
        _policy_once(conn, f"review_{role}", table, sql.SQL("CREATE POLICY {} ON {} FOR SELECT TO {} USING (true)")
                     .format(name, sql.Identifier("floor", table), ident))


def surveillance_role(dbname: str) -> str:
    """Surveillance's role (issue 36; DESIGN.md 'surveillance / game protection'): reads the
    floor as the review role does — rounds, alerts and their acknowledgements, the accounting
    — to follow players and shoes (``floor alerts``, ``protect --db URL``, ``history``), and
    writes nothing: no acknowledgement (that is the pit's answer to an alert, and would quiet
    it for the pit for half an hour), no note, no alert raised, no fill, credit, drop or buy-in."""
    return f"{_role_part(dbname)}_surveillance"[:63]


def _grant_surveillance(conn: psycopg.Connection[Any], role: str) -> None:
    _ensure_role(conn, role)
    _grant_reads(conn, role)
    ident = sql.Identifier(role)
    # nothing else: any write the role or an earlier grant might hold goes (no UPDATE, DELETE,
    # INSERT; no function of the floor's, e.g. the accounting ones, whatever PUBLIC may run)
    conn.execute(sql.SQL("REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON ALL TABLES IN SCHEMA floor FROM {}").format(ident))
    conn.execute(sql.SQL("REVOKE ALL ON ALL FUNCTIONS IN SCHEMA floor FROM {}").format(ident))
    conn.execute(sql.SQL("REVOKE ALL ON ALL SEQUENCES IN SCHEMA floor FROM {}").format(ident))
    _bound(conn, role, REVIEW)


def _grant_review(conn: psycopg.Connection[Any], role: str) -> None:
    ident = sql.Identifier(role)
    _grant_reads(conn, role)
    # Notes and disputes: the only rows the review role writes. The columns it may give leave
    # the writing role and time to the server; a note must name a round on the floor.
    conn.execute(sql.SQL("GRANT INSERT (table_name, round_id, kind, supervisor, text) ON floor.notes TO {}")
                 .format(ident))
    conn.execute(sql.SQL("GRANT USAGE ON SEQUENCE floor.notes_note_id_seq TO {}").format(ident))
    # alerts: raised through floor.raise_alert (one open per table, kind and subject: 0013);
    # acknowledged by a supervisor (name and note given; the server records the account and time)
    conn.execute(sql.SQL("GRANT EXECUTE ON FUNCTION floor.raise_alert(text, text, text, interval) TO {}")
                 .format(ident))
    subjects = conn.execute("SELECT to_regprocedure('floor.raise_alert(text, text, text, text, interval)')").fetchone()
    if subjects is not None and subjects[0] is not None:  # a floor before 0013 has none
        conn.execute(sql.SQL("GRANT EXECUTE ON FUNCTION floor.raise_alert(text, text, text, text, interval) TO {}")
                     .format(ident))
    conn.execute(sql.SQL("GRANT INSERT (alert_id, supervisor, note) ON floor.alert_acks TO {}").format(ident))
    ack = sql.Identifier(f"ack_{role}")
    _policy_once(conn, f"ack_{role}", "alert_acks", sql.SQL(
        "CREATE POLICY {} ON floor.alert_acks FOR INSERT TO {} WITH CHECK (db_role = current_user)").format(ack, ident))
    write = sql.Identifier(f"write_{role}")
    _policy_once(conn, f"write_{role}", "notes", sql.SQL(
        "CREATE POLICY {} ON floor.notes FOR INSERT TO {} WITH CHECK (db_role = current_user AND EXISTS "
        "(SELECT 1 FROM floor.rounds r WHERE r.table_name = notes.table_name AND r.round_id = notes.round_id))"
    ).format(write, ident))
    # table accounting (issue 35, item 3): no direct write (a floor before 0010 granted INSERT:
    # revoked); counts, fills, credits, drops and buy-ins only through the functions that confirm
    # each signer's PIN. The signers' PIN hashes are readable by no floor role.
    for table in _ACCOUNTING:
        conn.execute(sql.SQL("REVOKE INSERT, UPDATE, DELETE ON {} FROM {}").format(sql.Identifier("floor", table), ident))
    cage = conn.execute("SELECT to_regclass('floor.signers')").fetchone()
    if cage is None or cage[0] is None:
        return  # a floor before 0010 (its tests emulate older versions)
    for function in ACCOUNTING_FUNCTIONS:
        conn.execute(sql.SQL("GRANT EXECUTE ON FUNCTION {} TO {}").format(sql.SQL(function), ident))


_STATION_FUNCTIONS = (
    "floor.take_forward_lock(text, bigint, bigint)", "floor.heartbeat(text, integer, bigint, bigint, text, text)",
    "floor.add_round_versions(text, jsonb)",
)


def stations_group(dbname: str) -> str:
    """The group role every station role of the floor ``dbname`` is a member of."""
    return f"{_role_part(dbname)}_stations"[:63]


def _grant_stations_group(conn: psycopg.Connection[Any], group: str) -> None:
    """The stations' grants, held once by their group (idempotent; grants only what is missing,
    so a floor init on a busy floor takes no table lock it does not need)."""
    _ensure_role(conn, group, login=False)
    ident = sql.Identifier(group)
    conn.execute(sql.SQL("GRANT USAGE ON SCHEMA floor TO {}").format(ident))
    wanted = [("schema_migrations", "SELECT"), ("tables", "SELECT")]
    steps = conn.execute("SELECT to_regclass('floor.migration_steps')").fetchone()
    if steps is not None and steps[0] is not None:  # (check_schema: a newer version's online migrations)
        wanted.append(("migration_steps", "SELECT"))
    for name in FORWARDED_TABLES:
        wanted.append((name, "SELECT"))
        if name not in ("round_versions", "station_links"):
            wanted.append((name, "INSERT"))
    for name, privilege in wanted:
        row = conn.execute("SELECT has_table_privilege(%s, %s, %s)", (group, f"floor.{name}", privilege)).fetchone()
        if not (row and row[0]):
            conn.execute(sql.SQL("GRANT {} ON {} TO {}").format(sql.SQL(privilege), sql.Identifier("floor", name), ident))
    for function in _STATION_FUNCTIONS:
        conn.execute(sql.SQL("GRANT EXECUTE ON FUNCTION {} TO {}").format(sql.SQL(function), ident))


def _grant_station(conn: psycopg.Connection[Any], role: str, group: str) -> None:
    """A station role: a member of the stations' group (its grants); the policies find its table.
    Its server bounds are also the role's own settings: a connection through a transaction pooler
    (whose startup options PgBouncer drops) still has them."""
    member = conn.execute("SELECT pg_has_role(%s, %s, 'MEMBER')", (role, group)).fetchone()
    if not (member and member[0]):
        conn.execute(sql.SQL("GRANT {} TO {}").format(sql.Identifier(group), sql.Identifier(role)))
    _bound(conn, role, STATION)


def _bound(conn: psycopg.Connection[Any], role: str, bounds: Timeouts) -> None:
    """The role's server bounds as its settings, and (0011) in floor.role_bounds, where the
    forwarding lock and the floor service check them (the role can change its own settings)."""
    for name, value in (("statement_timeout", bounds.statement), ("lock_timeout", bounds.lock),
                        ("idle_in_transaction_session_timeout", bounds.idle_in_transaction)):
        conn.execute(sql.SQL("ALTER ROLE {} SET {} = {}").format(
            sql.Identifier(role), sql.Identifier(name), sql.Literal(f"{int(value * 1000)}ms")))
    found = conn.execute("SELECT to_regclass('floor.role_bounds')").fetchone()
    if found is not None and found[0] is not None:
        conn.execute("INSERT INTO floor.role_bounds VALUES (%s, %s, %s, %s) ON CONFLICT (account) DO UPDATE SET "
                     "statement_ms = excluded.statement_ms, lock_ms = excluded.lock_ms, idle_ms = excluded.idle_ms",
                     (role, int(bounds.statement * 1000), int(bounds.lock * 1000),
                      int(bounds.idle_in_transaction * 1000)))


def service_role(dbname: str) -> str:
    """The floor service's role (``floor serve``): reads as the review role does, raises alerts
    and runs floor.enforce_bounds."""
    return f"{_role_part(dbname)}_floor"[:63]


def _grant_service(conn: psycopg.Connection[Any], role: str, review: str) -> None:
    _ensure_role(conn, role)
    member = conn.execute("SELECT pg_has_role(%s, %s, 'MEMBER')", (role, review)).fetchone()
    if not (member and member[0]):
        conn.execute(sql.SQL("GRANT {} TO {}").format(sql.Identifier(review), sql.Identifier(role)))
    found = conn.execute("SELECT to_regproc('floor.enforce_bounds')").fetchone()
    if found is not None and found[0] is not None:
        conn.execute(sql.SQL("GRANT EXECUTE ON FUNCTION floor.enforce_bounds() TO {}").format(sql.Identifier(role)))


def _drop_direct_station_grants(conn: psycopg.Connection[Any], role: str) -> None:
    """Before 0007 each station role held its own grants: they go (the group holds them now)."""
    ident = sql.Identifier(role)
    conn.execute(sql.SQL("REVOKE ALL ON ALL TABLES IN SCHEMA floor FROM {}").format(ident))
    conn.execute(sql.SQL("REVOKE ALL ON ALL FUNCTIONS IN SCHEMA floor FROM {}").format(ident))


def add_months(conn: psycopg.Connection[Any], ahead: int = MONTHS_AHEAD) -> list[str]:
    """The partitions of this month (UTC) and the next ``ahead`` months of each partitioned table,
    those missing (``floor init``; its monthly run keeps them ahead). Returns those made."""
    made: list[str] = []
    for parent in PARTITIONED:
        for (month, created) in conn.execute(
                "SELECT m::date, floor.add_month(%s, m::date) FROM generate_series("
                "date_trunc('month', now() AT TIME ZONE 'UTC'), "
                "date_trunc('month', now() AT TIME ZONE 'UTC') + make_interval(months => %s), "
                "interval '1 month') m", (parent, ahead)).fetchall():
            if created:
                made.append(f"{parent}_{month:%Y_%m}")
    return made


def init_floor(url: str, options: OnlineOptions | None = None, progress: Progress | None = None) -> list[str]:
    """Create or migrate the floor schema and (re)grant the roles; returns the migrations applied
    (``floor init`` / ``floor upgrade``). Migrations of statements run together in one transaction;
    an online one (dealer_assist.floor.online) step by step, each step committed, reporting to
    ``progress``; with ``options.swap`` False the upgrade stops before its swap (and the
    migrations after it wait). The whole run holds the floor's advisory lock (a second init
    waits); a killed run leaves every finished step recorded and the next one resumes."""
    options = options or OnlineOptions()
    with connect(url, timeouts=ADMIN) as conn:
        try:
            conn.execute("SELECT pg_advisory_lock(%s)", (_LOCK_KEY,))  # the session's, across the steps' commits
            conn.commit()
            applied = applied_migrations(conn)
            # a newer version's online migration, even one not swapped yet: refused here too
            unknown = [n for n in applied if n not in KNOWN] + _newer_online(conn)
            if unknown:
                raise FloorError(
                    f"the floor was migrated by a newer Dealer Assist (schema {unknown[0]}); upgrade first"
                )
            done: list[str] = []
            for name, body in MIGRATIONS:
                if name in applied:
                    continue
                if isinstance(body, Online):
                    conn.commit()  # the migrations before it, whole
                    if not run_online(conn, name, body, options, progress or (lambda _line: None)):
                        break
                    done.append(name)
                    continue
                for statement in body:
                    conn.execute(statement)
                conn.execute("INSERT INTO floor.schema_migrations (name) VALUES (%s)", (name,))
                done.append(name)
            # an online migration recorded in schema_migrations by the version before this rule
            # (its record is its swap's step): the name goes, so that stations of the version
            # before 0014 serve the floor again (docs/floor.md, "Versions side by side")
            swapped = _swapped(conn)
            if swapped:
                conn.execute("DELETE FROM floor.schema_migrations WHERE name = ANY(%s)", (swapped,))
            if "0008_monthly_partitions" in (*applied, *done):
                add_months(conn)  # run monthly (cron): the coming months' partitions, made ahead
            dbname = _dbname(conn)
            review = review_role(dbname)
            _ensure_role(conn, review)
            _grant_review(conn, review)
            _bound(conn, review, REVIEW)
            _grant_service(conn, service_role(dbname), review)
            _grant_surveillance(conn, surveillance_role(dbname))
            group = stations_group(dbname)
            _grant_stations_group(conn, group)
            for (role,) in conn.execute("SELECT station_role FROM floor.tables ORDER BY table_name").fetchall():
                _ensure_role(conn, str(role))
                if "0007_one_station_policy" in done:
                    _drop_direct_station_grants(conn, str(role))
                _grant_station(conn, str(role), group)
            conn.commit()
            conn.execute("SELECT pg_advisory_unlock(%s)", (_LOCK_KEY,))
            conn.commit()
        except psycopg.Error as err:
            raise FloorError(f"floor init failed: {describe_error(err)}") from None
    return done


@dataclass(frozen=True)
class StationRole:
    table: str
    pit: str
    role: str
    created: bool


def add_station(url: str, table: str, pit: str) -> StationRole:
    """Register a table (and its pit) and create its station role with its grants and policies."""
    validate_table(table)
    validate_pit(pit)
    with connect(url, timeouts=ADMIN) as conn:
        try:
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK_KEY,))
            check_schema(conn)
            role = station_role(_dbname(conn), table)
            row = conn.execute(
                "SELECT pit, station_role FROM floor.tables WHERE table_name = %s", (table,)
            ).fetchone()
            created = row is None
            if row is not None and str(row[0]) != pit:
                raise FloorError(f"table {table} is already registered in pit {row[0]}, not {pit}")
            if row is None:
                other = conn.execute(
                    "SELECT table_name FROM floor.tables WHERE station_role = %s", (role,)
                ).fetchone()
                if other is not None:
                    raise FloorError(f"table {table} would share the role {role} with table {other[0]}: rename it")
                conn.execute(
                    "INSERT INTO floor.tables (table_name, pit, station_role) VALUES (%s, %s, %s)",
                    (table, pit, role),
                )
                conn.execute("INSERT INTO floor.forward_locks VALUES (%s) ON CONFLICT DO NOTHING", (table,))
            _ensure_role(conn, role)
            group = stations_group(_dbname(conn))
            _grant_stations_group(conn, group)
            _grant_station(conn, role, group)
            conn.commit()
        except psycopg.Error as err:
            raise FloorError(f"cannot add station {table}: {describe_error(err)}") from None
    return StationRole(table, pit, role, created)


@dataclass(frozen=True)
class ClearedAlarm:
    table: str
    raised_at: Any  # datetime (UTC)
    reason: str


def clear_alarm(url: str, table: str, why: str) -> list[ClearedAlarm]:
    """Clear a table's alarm (``dealer-assist floor clear-alarm``), as the administrator, after
    investigating: the alarm moves to ``floor.alarm_clearings`` with who cleared it (the
    database account), when and why, in one transaction. Forwarding resumes at the station's
    next pass — and stops again if its store still does not extend the floor's copy."""
    validate_table(table)
    why = why.strip()
    if not why:
        raise FloorError("say why the alarm is cleared (--why TEXT): it is kept with the alarm")
    with connect(url, timeouts=ADMIN) as conn:
        try:
            check_schema(conn)
            rows = conn.execute(
                "DELETE FROM floor.alarms WHERE table_name = %s RETURNING raised_at, reason", (table,)
            ).fetchall()
            if not rows:
                known = conn.execute("SELECT 1 FROM floor.tables WHERE table_name = %s", (table,)).fetchone()
                raise FloorError(f"table {table} has no alarm" if known else f"no table {table} on the floor")
            with conn.cursor() as cur:
                cur.executemany(
                    "INSERT INTO floor.alarm_clearings (table_name, raised_at, reason, why) VALUES (%s, %s, %s, %s)",
                    [(table, raised, reason, why) for raised, reason in rows],
                )
            conn.commit()
        except psycopg.Error as err:
            raise FloorError(f"cannot clear the alarm of {table}: {describe_error(err)}") from None
    return [ClearedAlarm(table, raised, str(reason)) for raised, reason in rows]
