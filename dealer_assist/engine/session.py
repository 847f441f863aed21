"""The table session: what lasts from one round to the next at one table, and the
table's rhythm that no single round decides.

- **The shoe across rounds (5.1)**: a round starts with every card the shoe delivered
  since its last shuffle (``shoe_dealt``), so a copy too many is seen whichever round
  it falls in; a freshly loaded shoe, or another game or deck count, starts empty.
- **The shoe on record** (spec/round-script.md ``shoe``): every round's header names the
  shoe it is dealt from (an id that changes at every shuffle) and how many cards (burns
  included) left it since that shuffle before the round's first card. A shuffle while a
  round is being dealt (the shoe's LOADED frame) loads the new shoe before the round's
  remaining cards: those came out of the new shoe, so the next round's ``dealt`` counts
  them (and 5.1 counts them as the new shoe's); the old shoe ends with the cards before it.
- **Bets closed by the first card (5.3)**: a card, burn or double feed out of the shoe
  while wagers are still on the slip closes them (``no_more_bets``) before it is applied.
- **Under-minimum history (5.26)**: the players whose under-minimum wager was settled
  normally once at this table; each round is configured with them, and a finished round
  adds its own (``Round.under_minimum_first_time``): nothing is replayed to learn it.
- **The implied hit**: a card while the hand in turn may be hit is a hit (``hit`` then
  ``card``). When that hand could also double, the two events are *tentative*: applied
  and shown, but not final until the next input, so that Double right after the card
  makes them ``double`` + ``card``.
- **Cards in flight**: every card the shoe delivered, by its sequence number, until an
  event records it; a restart reports those not recorded so the dealer can key them in.
- **Unread cards (5.1)**: a card the shoe could not read (``noread``, a double feed's
  unread cards) is keyed in only with a supervisor's approval: a card not accounted for
  voids the round (5.1), so the dealer's word alone does not account for it.
- **Double feeds**: cards that left the shoe together in one frame, some unread, stay
  in flight together (``feeds``: one place per card, :data:`UNREAD` until keyed in); the
  read ones are never dealt on their own (spec/shoe-protocol.md): once every card is
  known the caller applies them as one ``multi`` (5.23; 5.7/5.8 in Electronic).

The session uses only the public :class:`~dealer_assist.engine.round_api.Round` contract
and the transcript's ``new_round``; it does no I/O. Each input returns a :class:`Step`:
the events to record (in one transaction, in order) before anything is shown.
"""

from __future__ import annotations

import datetime as _dt
import secrets
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import Any

from dealer_assist.base.errors import RuleRefusal, TranscriptError
from dealer_assist.engine.events import Burn, CardDrawn, Decision, Event, Multi, NoMoreBets, Wager
from dealer_assist.engine.retraction import Retraction, retraction
from dealer_assist.engine.round_api import Round
from dealer_assist.engine.transcript import new_round

# Inputs that come out of the shoe: the first of them closes the bets (5.3).
SHOE_KINDS = ("card", "burn", "multi")
# Inputs taken on the betting slip (before the bets close): changed freely until then.
SLIP_KINDS = ("wager", "claim")
# A card in flight the shoe could not read (its face is known only when keyed in).
UNREAD = "?"


def new_shoe_id() -> str:
    """A new shoe's id: the UTC time of the shuffle and a random tail (unique per station)."""
    return f"S-{_dt.datetime.now(_dt.UTC):%Y-%m-%d-%H%M%S}-{secrets.token_hex(3)}"


def cards_out(events: Iterable[Event]) -> int:
    """How many cards the shoe delivered for these events: each card and burn, each card of
    a double feed (``multi``); a correction moves a card and takes none."""
    return sum(len(e.cards) if isinstance(e, Multi) else 1
               for e in events if isinstance(e, (CardDrawn, Burn, Multi)))


def shoe_cards(events: Iterable[Event]) -> list[str]:
    """The cards the shoe delivered for these events, in the order recorded (as :func:`cards_out`
    counts them)."""
    out: list[str] = []
    for e in events:
        if isinstance(e, Multi):
            out.extend(str(c) for c in e.cards)
        elif isinstance(e, (CardDrawn, Burn)):
            out.append(str(e.card))
    return out


@dataclass(frozen=True)
class Step:
    """What one input did. ``record``: events accepted and to be written, in this order and
    in one transaction, before the screen shows them; ``begins``: they are the round's first
    (its slip and ``no_more_bets``, or a void or burn before the bets closed);
    ``tentative``: events applied and shown but not final (an implied hit that Double may
    still claim; to be kept durably apart from the round's events); ``held``: the refusal of
    a shoe card that fits no reading (the card is kept in flight, never dropped)."""

    record: tuple[Event, ...] = ()
    begins: bool = False
    tentative: tuple[Event, ...] = ()
    held: str = ""
    concluded: bool = False
    under_min: tuple[str, ...] = field(default=())  # 5.26 names this round adds (when it concluded)


class TableSession:
    """One table's rounds in order. ``table`` is the transcript header of the next round
    (game, decks, areas, limits, seated) without ``shoe_dealt`` or ``under_min_history``,
    which the session supplies."""

    def __init__(self, table: Mapping[str, Any], under_min: Iterable[str] = (),
                 shoe_ids: Callable[[], str] = new_shoe_id) -> None:
        self.table: dict[str, Any] = _header(table)
        self.shoe_ids = shoe_ids
        self.shoe_id = ""  # the shoe in play ("" until the first round names one)
        self.shoe_before = 0  # cards out of it since its shuffle before this round
        self.under_min: set[str] = set(under_min)
        self.shoe_reloaded = False
        # a shuffle during the round in play: the new shoe's id, and how many of the round's
        # cards (in the order recorded) had left the old shoe before it (None: not known);
        # ``reloads`` every shuffle during the round in order, the last one's in the two fields
        self.next_shoe = ""
        self.reloaded_at: int | None = None
        self.reloads: list[tuple[str, int | None]] = []
        self.begun = False
        self.tentative: tuple[Event, ...] = ()
        # the tentative events came back after a restart: the dealer says Hit or Double first
        self.tentative_held = False
        self.in_flight: dict[int, str] = {}  # shoe sequence number -> card, not yet recorded
        self.unread_unnumbered = 0  # unread cards from a shoe that sends no frame numbers
        self.feeds: dict[int, list[str]] = {}  # frame -> the cards of a double feed ("?" unread)
        self.discarded: list[str] = []  # cards removed from the shoe between rounds and discarded (5.1)
        self.config: dict[str, Any] = {}
        self.round: Round = self._fresh(None)

    # ------------------------------------------------------------------ rounds
    def _fresh(self, previous: Round | None) -> Round:
        config = dict(self.table)
        if self.under_min:
            config["under_min_history"] = sorted(self.under_min)
        # 5.1 counts copies over the whole shoe since its last shuffle, not one round.
        same = previous is not None and (previous.shoe.decks == config["decks"]
                                         and previous.rules.key == config["game"])
        if (previous is not None and not self.shoe_reloaded and (previous.shoe.dealt or self.discarded)
                and same):
            config["shoe_dealt"] = [*(str(c) for c in previous.shoe.dealt), *self.discarded]
        if not self.shoe_id or previous is not None and not same:
            self.shoe_id, self.shoe_before = self.shoe_ids(), 0  # another shoe: counted from 0
        elif self.shoe_reloaded and previous is not None:
            # shuffled during the last round: its cards after the shuffle (and any set aside
            # since) left the new shoe before this round's first card (5.1 counts them too)
            done = shoe_cards(previous.events)
            carried = [*done[min(len(done), self.reloaded_at if self.reloaded_at is not None else len(done)):],
                       *self.discarded]
            self.shoe_id, self.shoe_before = self.next_shoe or self.shoe_ids(), len(carried)
            if carried:
                config["shoe_dealt"] = carried
        elif previous is not None:
            # the last round's cards and those set aside since (a supervisor's discard) left the shoe
            self.shoe_before += cards_out(previous.events) + len(self.discarded)
            if self.shoe_before > len(previous.shoe.composition) * previous.shoe.decks:  # a shuffle that was never seen
                self.shoe_id, self.shoe_before = self.shoe_ids(), 0
        config["shoe"] = {"id": self.shoe_id, "dealt": self.shoe_before}
        self.discarded = []
        rnd = new_round(config)  # TranscriptError on a header the rules refuse
        self.config = config
        self.shoe_reloaded, self.next_shoe, self.reloaded_at, self.reloads = False, "", None, []
        self.begun = False
        self.tentative = ()
        self.tentative_held = False
        return rnd

    def new_round(self) -> Round:
        """The next round, in betting. A concluded round's 5.26 names are kept first."""
        if self.concluded:
            self.under_min.update(self.round.under_minimum_first_time())
        self.round = self._fresh(self.round)
        return self.round

    def set_table(self, table: Mapping[str, Any]) -> None:
        """Another setup from the next round on (checked now: TranscriptError if refused)."""
        header = _header(table)
        new_round({**header, **({"under_min_history": sorted(self.under_min)} if self.under_min else {})})
        self.table = header

    def shoe_loaded(self, shoe: str | None = None) -> None:
        """A freshly shuffled shoe (id ``shoe``, a new one if None) was loaded: a round still
        taking bets deals from it (its slip kept), else the round goes on from it and the
        next round is dealt from it after the cards that finish this one (5.1: copies count
        from the shuffle)."""
        shoe = shoe or self.shoe_ids()
        if not self.betting:
            # the cards out so far (recorded or in flight) were the old shoe's, those after
            # are the new one's
            self.reloaded(shoe, self.cards_out_now())
            self.discarded = []  # set aside before the shuffle: the old shoe's
            return
        slip = list(self.round.events)
        self.shoe_id, self.shoe_before = shoe, 0
        config = {k: v for k, v in self.config.items() if k != "shoe_dealt"}
        config["shoe"] = {"id": self.shoe_id, "dealt": 0}
        rnd = new_round(config)
        rnd.apply_all(slip)  # the same wagers on the same table: accepted again
        self.config, self.round = config, rnd

    def reloaded(self, shoe: str, at: int | None) -> None:
        """A shuffle during the round in play (:meth:`shoe_loaded`, or on record before a
        restart): the next round is dealt from shoe ``shoe``, after this round's cards past
        the first ``at`` (None: not known, none counted). A second shuffle in the round ends
        the shoe the first one loaded: its cards are the round's between the two ``at``."""
        self.shoe_reloaded, self.next_shoe, self.reloaded_at = True, shoe, at
        self.reloads.append((shoe, at))

    @property
    def shoe_in_play(self) -> str:
        """The shoe the cards come out of now: the last one loaded during the round in play,
        else the round's own (its header's)."""
        return self.next_shoe if self.shoe_reloaded and self.next_shoe else self.shoe_id

    def cards_out_now(self) -> int:
        """The round's cards out of the shoe so far: recorded (tentative ones too) and in flight."""
        numbered = {e.shoe_seq for e in self.round.events if isinstance(e, CardDrawn) and e.shoe_seq is not None}
        flying = sum(1 for seq, _ in self.unrecorded() if seq not in numbered)
        return cards_out(self.round.events) + flying + self.unread_unnumbered

    def continue_shoe(self, last: Mapping[str, Any], taken: int, cards: Sequence[str] | None = None) -> None:
        """After a restart with no open round: the shoe of the last recorded round (``last``,
        its header) goes on, ``taken`` cards (its cards out) later, unless a shuffle was seen
        since or the next round is dealt from another game's or deck count's shoe. ``cards``:
        the faces of all the cards out of the shoe since its shuffle, when known: the next
        round's ``shoe_dealt`` (5.1 counts them), kept only when they are all of them."""
        shoe = last.get("shoe")
        if (not isinstance(shoe, Mapping) or not self.betting or self.shoe_reloaded or self.round.events
                or last.get("game") != self.config.get("game") or last.get("decks") != self.config.get("decks")):
            return
        dealt = int(shoe["dealt"]) + taken
        if dealt > len(self.round.shoe.composition) * self.round.shoe.decks:
            return  # more than the shoe holds: it was shuffled since (the round's own new shoe stands)
        self.shoe_id, self.shoe_before = str(shoe["id"]), dealt
        self.config["shoe"] = {"id": self.shoe_id, "dealt": self.shoe_before}
        if cards is not None and len(cards) == dealt and dealt > 0:
            config = {**self.config, "shoe_dealt": list(cards)}
            try:
                self.config, self.round = config, new_round(config)
            except (TranscriptError, RuleRefusal):
                self.config.pop("shoe_dealt", None)  # a list that fits no count of this shoe: not kept

    def discard(self, card: str) -> None:
        """A card removed from the shoe between rounds and discarded (a supervisor set it
        aside): one of the shoe's cards since its shuffle, so 5.1 counts it (a copy too many
        later is seen) and the shoe's record counts it out. A round still taking bets deals
        after it (its slip kept)."""
        if not self.betting:
            self.discarded.append(card)  # the next round's shoe_dealt
            return
        slip = list(self.round.events)
        dealt = self.shoe_before + 1
        config = {**self.config, "shoe_dealt": [*self.config.get("shoe_dealt", []), card],
                  "shoe": {"id": self.shoe_id, "dealt": dealt}}
        try:
            rnd = new_round(config)
            rnd.apply_all(slip)
        except (TranscriptError, RuleRefusal):
            return  # a card that fits no count of this shoe (5.1 voids the round it comes out in)
        self.config, self.round, self.shoe_before = config, rnd, dealt

    def restore(self, config: Mapping[str, Any], events: Iterable[Event],
                tentative: Sequence[Event] = ()) -> Round:
        """The open round after a restart: its recorded events replayed (a restart is the one
        place a round is rebuilt from its events), then the tentative implied hit, if one was
        kept, held until the dealer says Hit or Double. RuleRefusal/TranscriptError if the
        recorded events cannot be replayed; the session is then unchanged."""
        rnd = new_round(dict(config))
        rnd.apply_all(events)
        held = False
        if tentative:
            trial = rnd.fresh()
            try:
                trial.apply_all([*rnd.events, *tentative])
                rnd, held = trial, True
            except RuleRefusal:
                held = False  # it fits no reading now: the caller holds the card
        self.config = dict(config)
        self.round = rnd
        shoe = config.get("shoe")
        if isinstance(shoe, Mapping):  # the open round's shoe goes on after it
            self.shoe_id, self.shoe_before = str(shoe["id"]), int(shoe["dealt"])
        self.begun = True
        self.tentative = tuple(tentative) if held else ()
        self.tentative_held = held
        return rnd

    # ------------------------------------------------------------------ state
    @property
    def betting(self) -> bool:
        return not self.begun and self.round.phase == "betting"

    @property
    def slip(self) -> tuple[Event, ...]:
        """The wagers (and claims) on the slip while bets are open."""
        return tuple(self.round.events) if not self.begun else ()

    @property
    def concluded(self) -> bool:
        """Nothing more to play: settled, void, or ruled to a close with nothing expected."""
        if not self.begun:
            return False
        status = self.round.status()
        return status in ("settled", "void") or (
            status == "in_progress" and self.round.expectation().kind == "none")

    @property
    def recorded(self) -> tuple[Event, ...]:
        """The round's events that are final (the tentative ones excluded)."""
        events = tuple(self.round.events)
        return events[:len(events) - len(self.tentative)] if self.tentative else events

    # ------------------------------------------------------------------ the slip
    def set_slip(self, slip: Sequence[Event]) -> Step:
        """Replace the betting slip; each wager checked as placed (RuleRefusal, unchanged).
        The slip is rebuilt: a wager taken back or changed is a new slip, not an event."""
        if not self.betting:
            raise RuleRefusal("the bets are closed (5.3)")
        rnd = self.round.fresh()
        for event in slip:
            rnd.apply(event)
        self.round = rnd
        return Step()

    # ------------------------------------------------------------------ input
    def apply(self, event: Event) -> Step:
        """One input other than a card from the shoe (wagers, decisions, rulings, keyed cards
        with a place). RuleRefusal leaves the session exactly as it was (the engine applies
        an event wholly or not at all)."""
        if self.tentative_held and event.type != "void":
            raise RuleRefusal("first say whether the card read before the restart was a hit or a "
                              f"double (H / D) ({self.round.rules.clause('power_failure')})")
        if self.betting and (event.type == "claim" or isinstance(event, Wager)):
            return self.set_slip([*self.round.events, event])
        if self.betting and event.type in SHOE_KINDS and self.round.events:
            return self._close_then(event)
        self.round.apply(event)
        return self._commit((event,))

    def close_bets(self) -> Step:
        """``no_more_bets`` (5.3): the slip and the event are the round's first events."""
        if not self.betting:
            raise RuleRefusal("the bets are already closed (5.3)")
        return self.apply(NoMoreBets())

    def _close_then(self, event: Event) -> Step:
        """5.3: the first card out of the shoe closes the bets, then it is applied; a card
        refused then leaves the bets closed (they were closed by its coming out)."""
        close = NoMoreBets()
        self.round.apply(close)
        try:
            self.round.apply(event)
        except RuleRefusal as exc:
            return replace(self._commit((close,)), held=str(exc))
        return self._commit((close, event))

    def card(self, card: CardDrawn) -> Step:
        """A card out of the shoe (or keyed in for one). A card while the hand in turn may be
        hit is a hit; tentative when it could also be a double. A card that fits no reading
        is held (``Step.held``), never dropped: it stays in flight."""
        if card.shoe_seq is not None:
            self.in_flight[card.shoe_seq] = str(card.card)
        if self.tentative_held:
            return Step(held="the card read before the restart waits for Hit or Double "
                             f"({self.round.rules.clause('power_failure')})")
        if self.betting and self.round.events:
            return self._close_then(card)
        implied = self._implied(card)
        if implied is not None:
            hit, may_double = implied
            before = list(self.round.events)
            self.round.apply(hit)  # listed among the hand's options: the round takes it
            try:
                self.round.apply(card)
            except RuleRefusal:
                self.round = self._rebuilt(before)  # not a hit after all: the ordinary path
            else:
                if may_double:
                    return self._commit((), keep_tentative=(hit, card))
                return self._commit((hit, card))
        try:
            self.round.apply(card)
        except RuleRefusal as exc:
            return Step(record=self._flush(), held=str(exc))
        return self._commit((card,))

    def _implied(self, card: CardDrawn) -> tuple[Decision, bool] | None:
        if card.to is not None or self.betting:
            return None
        exp = self.round.expectation()
        if exp.kind != "decision" or "hit" not in exp.options:
            return None
        hit = Decision("hit", None if self.round.rules.shared_hand else exp.area, exp.hand, exp.player or None)
        return hit, "double" in exp.options

    def double_tentative(self, amount: Decimal | None = None) -> Step:
        """Double pressed right after its card: the tentative hit was a double (RuleRefusal,
        unchanged, if the rules refuse the double)."""
        hit = self.tentative[0] if len(self.tentative) == 2 else None
        if not isinstance(hit, Decision):
            raise RuleRefusal("no card waits for Hit or Double", self.round.rules.clause("double"))
        card = self.tentative[1]
        double = replace(hit, action="double", amount=amount)
        rnd = self._rebuilt([*self.recorded, double, card])
        self.round = rnd
        self.tentative = ()
        self.tentative_held = False
        return self._commit((double, card))

    def confirm_tentative(self) -> Step:
        """The tentative hit stays a hit (the next input came, or the dealer said Hit)."""
        return self._commit(())

    def take_back_refusal(self, *, supervisor: bool = False) -> str:
        """Why an undo (the dealer's, or a supervisor's) would be refused now; "" if it would not."""
        try:
            self._retraction(supervisor, asking=True)
        except RuleRefusal as exc:
            return str(exc)
        return ""

    def _retraction(self, supervisor: bool, asking: bool = False) -> Retraction:
        if not self.begun:
            raise RuleRefusal("the bets are still open: change the slip instead (5.3)")
        if self.tentative and supervisor and not asking:  # the caller makes it final first
            # the card is the one card of a double, or a hit's (3.26.4; Electronic 3.15.4)
            raise RuleRefusal("first say whether the last card was a hit or a double (H / D)",
                              self.round.rules.clause("double.one_card"))
        # a tentative implied hit counts: its card is the next card, out of the shoe
        return retraction(self.round, tuple(self.round.events), supervisor=supervisor)

    def take_back(self, *, supervisor: bool = False) -> Retraction:
        """Undo: the last input leaves the round (see :mod:`~dealer_assist.engine.retraction`
        for what may be taken back and by whom); RuleRefusal, unchanged, when it may not.
        A shoe card taken back is in flight again (the caller holds it to be placed)."""
        taken = self._retraction(supervisor)
        self.round = self._rebuilt(taken.remaining)
        for card in taken.cards:
            if card.shoe_seq is not None:
                self.in_flight[card.shoe_seq] = str(card.card)
        return taken

    # ------------------------------------------------------------------ unread cards (5.1)
    def came_out_unread(self, seq: int | None, count: int = 1) -> None:
        """The shoe delivered ``count`` card(s) it could not read: in flight as :data:`UNREAD`
        (frame ``seq``; a double feed's unread cards, or a shoe without frame numbers, counted)."""
        if seq is not None and count == 1:
            self.in_flight[seq] = UNREAD
        else:
            self.unread_unnumbered += count

    @property
    def unread(self) -> int:
        """How many cards came out of the shoe unread and are not accounted for yet."""
        return (self.unread_unnumbered + sum(1 for card in self.in_flight.values() if card == UNREAD)
                + sum(cards.count(UNREAD) for cards in self.feeds.values()))

    def first_unread(self) -> int | None:
        """The frame number of the first unread card in flight (alone or in a double feed)."""
        return min((seq for seq in (*self.in_flight, *self.feeds) if self._unread_at(seq)), default=None)

    def _unread_at(self, seq: int) -> bool:
        return self.in_flight.get(seq) == UNREAD or UNREAD in self.feeds.get(seq, ())

    def double_feed(self, seq: int, read: Sequence[str], count: int) -> None:
        """Frame ``seq`` delivered ``count`` cards together, ``read`` those the shoe could
        read: in flight together, the others :data:`UNREAD` until keyed in."""
        self.in_flight.pop(seq, None)
        self.feeds[seq] = [*read, *[UNREAD] * max(0, count - len(read))]

    def key_in_feed(self, seq: int, card: str, *, approved: bool) -> tuple[str, ...]:
        """A card keyed in for an unread card of the double feed of frame ``seq``: it takes
        the first unread place (RuleRefusal, unchanged, without a supervisor's approval,
        5.1, or when none of its cards is unread). Returns the feed's cards now; once none
        is :data:`UNREAD` the caller deals them together (its ``multi``), in their turn."""
        cards = self.feeds.get(seq)
        if cards is None or UNREAD not in cards:
            read = ", ".join(cards or ())
            # a card keyed in for a frame read in full would be an extra card (5.1)
            raise RuleRefusal(f"the shoe read every card of frame {seq}" + (f" ({read})" if read else ""),
                              self.round.rules.clause("void.foreign_card"))
        refused = self.key_in_refused(seq, approved=approved)
        if refused is not None:
            raise refused
        cards[cards.index(UNREAD)] = card
        return tuple(cards)

    def key_in_refusal(self, seq: int | None = None, *, approved: bool) -> str:
        """Why keying in a card now would be refused ("" if it would not): the card for frame
        ``seq`` (any unread card when ``seq`` is None) came out unread, and no supervisor
        approved keying it in (5.1: a card not accounted for voids the round)."""
        refused = self.key_in_refused(seq, approved=approved)
        return str(refused) if refused is not None else ""

    def key_in_refused(self, seq: int | None = None, *, approved: bool) -> RuleRefusal | None:
        """:meth:`key_in_refusal` as the refusal to raise (None: keying in is allowed)."""
        unread = self._unread_at(seq) if seq is not None else self.unread > 0
        if not unread or approved:
            return None
        return RuleRefusal("keying in a card the shoe could not read needs a supervisor's PIN "
                           "(a card not accounted for voids the round)", self.round.rules.clause("void.foreign_card"))

    def no_card_missed_refusal(self) -> str:
        """Why "no card is missing" would be refused now ("" if it would not): a card came out
        unread, so it must be keyed in (a supervisor's approval) or the round voided (5.1)."""
        if not self.unread:
            return ""
        return ("a card came out of the shoe and could not be read: key it in (supervisor) or void the round "
                f"({self.round.rules.clause('void.foreign_card')})")

    def key_in(self, card: CardDrawn, *, approved: bool, missing: bool = False) -> Step:
        """A card keyed in by the dealer for one the shoe delivered (its frame ``shoe_seq``, or
        the first unread card; ``missing``: a card whose frame was lost or damaged, which came
        out before any unread card still waiting). RuleRefusal, unchanged, if an unread card
        lacks a supervisor's approval (:meth:`key_in_refusal`); else as :meth:`card`."""
        seq = card.shoe_seq
        if seq is None and self.unread_unnumbered == 0 and not missing:
            seq = self.first_unread()
            card = replace(card, shoe_seq=seq) if seq is not None else card
        refused = None if missing and seq is None else self.key_in_refused(seq, approved=approved)
        if refused is not None:
            raise refused
        was_unread = self.in_flight.get(seq) == UNREAD if seq is not None else self.unread_unnumbered > 0
        tentative, tentative_held, in_flight = self.tentative, self.tentative_held, dict(self.in_flight)
        step = self.card(card)  # its face known now: recorded, or held to be placed
        if step.held and tentative and step.record == tentative:
            # a keyed card no reading takes is refused: the implied hit before it stays tentative
            # (made final here, nobody would record it: the round would be left open behind it)
            self.tentative, self.tentative_held, self.in_flight = tentative, tentative_held, in_flight
            return replace(step, record=())
        if was_unread and seq is None:
            self.unread_unnumbered -= 1
        return step

    def read_again(self, card: CardDrawn) -> Step:
        """The unread card of frame ``card.shoe_seq`` put through the shoe's reader again and
        read: the shoe's reading accounts for it (5.1), so no supervisor's approval is needed;
        it goes where a card keyed in for it would go (:meth:`key_in`)."""
        return self.key_in(card, approved=True)

    def unread_accounted(self, count: int | None = None) -> None:
        """Unread cards accounted for otherwise (keyed in together as a double feed, read
        again): ``count`` of them, or all when None."""
        if count is None:
            self.unread_unnumbered = 0
            for seq in [s for s, c in self.in_flight.items() if c == UNREAD]:
                del self.in_flight[seq]
            self.feeds.clear()
            return
        taken = min(count, self.unread_unnumbered)
        self.unread_unnumbered -= taken
        for seq in [s for s, c in sorted(self.in_flight.items()) if c == UNREAD][:count - taken]:
            del self.in_flight[seq]

    def _flush(self) -> tuple[Event, ...]:
        events, self.tentative = self.tentative, ()
        self.tentative_held = False
        self._forget_in_flight(events)
        return events

    def _rebuilt(self, events: Sequence[Event]) -> Round:
        """The round with ``events`` only: an implied hit taken back (or made a double)."""
        rnd = self.round.fresh()
        rnd.apply_all(events)
        return rnd

    def _commit(self, events: tuple[Event, ...], keep_tentative: tuple[Event, ...] = ()) -> Step:
        begins = not self.begun and any(e.type not in SLIP_KINDS for e in events)
        record = (*self._flush(), *events)
        if begins:  # the slip goes with them: the round's first events
            record = (*self._slip_before(events), *record)
            self.begun = True
        self.tentative = keep_tentative
        self._forget_in_flight(record)
        if self.unread and self.round.status() == "void":
            self.unread_accounted()  # 5.1: the void accounts for the unread cards
        done = self.concluded and not keep_tentative
        return Step(record=record, begins=begins, tentative=keep_tentative, concluded=done,
                    under_min=tuple(self.round.under_minimum_first_time()) if done else ())

    def _slip_before(self, events: tuple[Event, ...]) -> tuple[Event, ...]:
        """The wagers and claims applied before ``events`` (the slip, at the round's start)."""
        applied = tuple(self.round.events)
        return applied[:len(applied) - len(events)]

    # ------------------------------------------------------------------ cards in flight
    def _forget_in_flight(self, events: Iterable[Event]) -> None:
        for e in events:
            if isinstance(e, CardDrawn) and e.shoe_seq is not None:
                self.in_flight.pop(e.shoe_seq, None)
                self.feeds.pop(e.shoe_seq, None)

    def delivered(self, seq: int, card: str) -> None:
        """The shoe delivered ``card`` as frame ``seq`` (recorded by the caller before use)."""
        self.in_flight[seq] = card

    def unrecorded(self) -> list[tuple[int, str]]:
        """(sequence number, card) of every delivered card no event records yet, in order
        (a double feed's cards under its one frame number)."""
        feeds = [(seq, card) for seq, cards in self.feeds.items() for card in cards]
        return sorted([*self.in_flight.items(), *feeds], key=lambda item: item[0])

    def settle_in_flight(self, seq: int) -> None:
        """A card in flight (or a double feed) was recorded, or its round voided by a supervisor."""
        self.in_flight.pop(seq, None)
        self.feeds.pop(seq, None)


def _header(table: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in table.items() if k not in ("shoe_dealt", "under_min_history", "events", "shoe")}


__all__ = ["SHOE_KINDS", "SLIP_KINDS", "UNREAD", "Step", "TableSession", "cards_out", "shoe_cards"]
