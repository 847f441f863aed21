"""The table's set-up: game, decks, playing areas, limits, seated players, Electronic's
terminals. What the dealer chose in setup, remembered between sessions (an audit entry
of kind ``table_setup``) and written into each round's transcript header
(spec/round-script.md "Input")."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from dealer_assist.base.errors import TranscriptError
from dealer_assist.base.money import AmountError, parse_amount
from dealer_assist.engine.transcript import new_round
from dealer_assist.games import GAMES, GameRules

DEFAULT_CHIPS = (5, 25, 100, 500, 1000)
MAX_CHIPS = 8  # one row of chip buttons (keys F1-F8)


def chip_problem(chips: list[int]) -> str | None:
    """Why a table's chip values cannot be used, or None: whole amounts, each once, at most
    eight (one row of buttons, keys F1-F8)."""
    if not chips:
        return "at least one chip value is needed"
    if len(chips) > MAX_CHIPS:
        return f"at most {MAX_CHIPS} chip values (F1-F{MAX_CHIPS}); {len(chips)} given"
    bad = [c for c in chips if isinstance(c, bool) or not isinstance(c, int) or c <= 0]
    if bad:
        return f"chip values are whole positive amounts; not {', '.join(map(str, bad))}"
    if len(set(chips)) != len(chips):
        return "each chip value once"
    return None


class SetupError(ValueError):
    """A set-up value that cannot be kept (e.g. a limit in fractions of a cent); ``clause``
    names the rule (limits: 3.6, Electronic 2.2)."""

    def __init__(self, message: str, clause: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.clause = clause


def limits_clause(game: str) -> str | None:
    """The clause of the table's limits in ``game`` (3.6; Electronic 2.2)."""
    rules = GAMES.get(game)
    return rules.clauses.get("limits") if rules is not None else None


def exact_limits(raw: Any, game: str) -> dict[str, list[Decimal]]:
    """Limits per bet kind as exact amounts ``[min, max]``: ints, Decimals, text, and the floats
    of a set-up remembered by an older version (read through their shortest text, so 12.5
    stays 12.5); a value that is not a whole number of cents is refused naming the clause of
    limits (SetupError). Whether the game has the wager is the engine's check (setup_problem)."""
    clause = limits_clause(game)
    where = f" ({clause})" if clause else ""
    if not isinstance(raw, dict):
        raise SetupError(f"limits map a bet kind to [min, max]{where}", clause)
    out: dict[str, list[Decimal]] = {}
    for kind, pair in raw.items():
        if not isinstance(pair, (list, tuple)) or len(pair) != 2:
            raise SetupError(f"limits: {kind} is [min, max]{where}", clause)
        try:
            out[str(kind)] = [parse_amount(Decimal(str(v)) if isinstance(v, float) else v) for v in pair]
        except AmountError as exc:
            raise SetupError(f"limits: {kind}: {exc}{where}", clause) from None
    return out


@dataclass
class TableSetup:
    """What the dealer chose in the setup dialog (remembered between sessions)."""

    game: str = "lucky8"
    decks: int = 6
    areas: int = 7
    limits: dict[str, list[Decimal]] = field(default_factory=dict)  # exact amounts (3.6 / 2.2)
    seated: dict[str, int] = field(default_factory=dict)  # player -> area (tables)
    terminals: list[str] = field(default_factory=list)  # electronic: terminal names
    decision_seconds: int = 20  # electronic: a terminal's decision time (3.18)
    chips: list[int] = field(default_factory=lambda: list(DEFAULT_CHIPS))  # the table's chip values

    def __post_init__(self) -> None:
        # exact money whatever the caller gave (ints, text, an old remembered file's floats)
        self.limits = exact_limits(self.limits, self.game)

    @property
    def rules(self) -> GameRules:
        return GAMES[self.game]

    @property
    def electronic(self) -> bool:
        return self.rules.shared_hand

    def config(self, under_min: list[str]) -> dict[str, Any]:
        """The transcript header (spec/round-script.md "Input")."""
        out: dict[str, Any] = {"game": self.game, "decks": self.decks}
        if not self.electronic:
            out["areas"] = self.areas
        if self.limits:
            out["limits"] = {k: list(v) for k, v in self.limits.items()}
        if self.seated and not self.electronic:
            out["seated"] = dict(self.seated)
        if under_min:
            out["under_min_history"] = list(under_min)
        return out

    def players(self) -> list[str]:
        return list(self.terminals) if self.electronic else list(self.seated)


SETUP_AUDIT_KIND = "table_setup"
# Electronic's decision time a table may be set up with, seconds (the terminal's countdown,
# 3.17; the default strategy after it, 3.18): the station service refuses any other
DECISION_SECONDS = (5, 120)


def default_setup() -> TableSetup:
    return TableSetup(seated={"p1": 1, "p2": 2, "p3": 3}, terminals=["t1", "t2", "t3"])


def setup_to_json(setup: TableSetup) -> dict[str, Any]:
    return {
        "game": setup.game, "decks": setup.decks, "areas": setup.areas,
        "limits": {k: list(v) for k, v in setup.limits.items()},  # Decimals: JSON numbers when written
        "seated": setup.seated, "terminals": setup.terminals, "decision_seconds": setup.decision_seconds,
        "chips": list(setup.chips),
    }


def setup_from_json(data: Any) -> TableSetup:
    """A remembered setup, or the default one if it is not a valid setup any more. An older
    version's floats are read exactly (12.5 stays 12.5); see :func:`read_setup`."""
    return read_setup(data)[0]


def read_setup(data: Any) -> tuple[TableSetup, list[str]]:
    """A remembered setup and what could not be kept of it, in words: a limit that is no
    amount in whole cents is left out, naming the clause of limits (3.6; Electronic 2.2);
    a record that is no setup at all gives the default setup."""
    dropped: list[str] = []
    try:
        if not isinstance(data, dict):
            raise TypeError(type(data).__name__)
        fields = dict(data)
        raw_limits = fields.get("limits")
        if isinstance(raw_limits, dict):
            kept: dict[str, Any] = {}
            for kind, pair in raw_limits.items():
                try:
                    exact_limits({kind: pair}, str(fields.get("game")))
                    kept[kind] = pair
                except SetupError as exc:
                    dropped.append(f"{exc.message}: the remembered {kind} limits left out")
            fields["limits"] = kept
        setup = TableSetup(**fields)
        if setup.game not in GAMES:
            raise ValueError(setup.game)
        if chip_problem(setup.chips) is not None:
            setup.chips = list(DEFAULT_CHIPS)
        return setup, dropped
    except (TypeError, ValueError) as exc:
        return default_setup(), [f"the remembered setup cannot be read ({exc}): the default setup"]


def setup_problem(setup: TableSetup) -> str | None:
    """Why the engine cannot open a round with ``setup`` (its own message, naming the
    setting: limits, seats, decks ...), or None."""
    problem = chip_problem(list(setup.chips))
    if problem is not None:
        return f"chips: {problem}"
    try:
        new_round(setup.config([]))
    except TranscriptError as exc:
        return exc.message
    return None


def usable_setup(setup: TableSetup) -> tuple[TableSetup, list[str]]:
    """A setup a round can open with, and what had to change (in words) — for a start with a
    saved setup that no longer fits, e.g. ``--game`` with another game's limits: limits of
    wagers the game does not have are dropped, a reversed limit and a second player on a
    seat are left out, decks and areas are brought into the game's ranges (2.1, Appendix A).
    If it still cannot open, the game's defaults with no limits."""
    rules = setup.rules
    changed: list[str] = []
    limits: dict[str, list[Decimal]] = {}
    for bet, pair in setup.limits.items():
        if bet != "main" and bet not in rules.side_bets:
            changed.append(f"limits for {bet!r} dropped: {rules.name} has no such wager")
        elif len(pair) != 2 or pair[0] > pair[1]:
            changed.append(f"the {bet} limits {'-'.join(map(str, pair))} dropped: the minimum is above the maximum")
        else:
            limits[bet] = list(pair)
    seated: dict[str, int] = {}
    for player, area in setup.seated.items():
        if area in seated.values():
            changed.append(f"{player} not seated: area {area} has its seated player already")
        else:
            seated[player] = area
    low, high = rules.deck_range
    decks = min(max(setup.decks, low), high)
    if decks != setup.decks:
        changed.append(f"decks {setup.decks} -> {decks} ({rules.name}: {low}-{high})")
    a_low, a_high = rules.area_range
    areas = min(max(setup.areas, a_low), a_high)
    if areas != setup.areas:
        changed.append(f"areas {setup.areas} -> {areas} ({rules.name}: {a_low}-{a_high})")
    chips = list(setup.chips) if chip_problem(list(setup.chips)) is None else list(DEFAULT_CHIPS)
    if chips != list(setup.chips):
        changed.append(f"chip values {setup.chips} -> {chips}")
    fixed = TableSetup(game=setup.game, decks=decks, areas=areas, limits=limits,
                       seated={p: a for p, a in seated.items() if a <= areas},
                       terminals=list(setup.terminals), decision_seconds=setup.decision_seconds, chips=chips)
    problem = setup_problem(fixed)
    if problem is not None:
        changed.append(f"the saved setup cannot be used ({problem}): {rules.name} with no limits")
        fixed = TableSetup(game=setup.game, decks=decks, areas=areas, terminals=list(setup.terminals),
                           decision_seconds=setup.decision_seconds)
    return fixed, changed
