"""Electronic Blackjack: the terminals, each with its hands, its state and its countdown.

Every terminal is a box in a grid (four a row: twelve terminals fit a 1280×768 screen),
with its wagers, its own hands (split hands with their cards), its state (deciding with
the seconds left, standing, played by the default strategy) and, once settled, what to
pay or collect. The terminal whose decision is shown in the action bar below the grid
is outlined; touching another deciding terminal shows its choices there.

A seat paired to a Player Terminal (the station service's ``paired``) is shown read-only:
its player decides at the terminal (1.1.10, 3.9, 3.17), so its box shows the terminal's
state (waiting, deciding with the service's countdown, done, down) and no choice of it
reaches the action bar. Its box offers a supervisor's override (the PIN, then op
``terminal_override``) for a terminal that cannot be used; once the service says a seat is
overridden (``overrides``) the dealer chooses for it here, as for a seat with no terminal.
Which seats those are is the service's word; this panel only shows it.

The decision time (3.18) is counted here; when it runs out the controller sends a
``timeout`` event and the engine plays that terminal by the default strategy. That is the
only clock of a screen with its own store (no station service); on a station the service
counts every seat's time itself (dealer_assist/service/decision_clock.py) and records the
time-out once: a ``timeout`` from this panel changes nothing there while the service's
clock still counts or once the default strategy plays the seat.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from ui.common.cards import card_label
from ui.common.labels import OPTION_WORDS, sized_label
from ui.common.round_view import settled_cell
from ui.common.style import TOUCH, money, pay_words, px
from ui.common.table_view import SHORT_BET_NAMES, TableView, total_text

COLUMNS = 4
TYPE_PX = 16  # the least type of a terminal's box, at scale 1 (issue 34: every text the dealer reads)
TERMINAL_BET_NAMES = {"bet_the_set": "BtS", "royal_match": "RM", "kings_bounty": "KB"}


@dataclass(frozen=True)
class TerminalLinks:
    """The Player Terminals as the station service's state has them: the seats ``paired`` to
    one, those ``linked`` (connected now) and the ``overrides`` of this round (seat ->
    supervisor)."""

    paired: frozenset[str] = frozenset()
    linked: frozenset[str] = frozenset()
    overrides: Mapping[str, str] = field(default_factory=dict)

    def read_only(self, seat: str) -> bool:
        """Its player decides at the terminal (3.17): the dealer's panel only shows it."""
        return seat in self.paired and seat not in self.overrides


def _label(text: str, size: int, bold: bool = False) -> QLabel:
    return sized_label(size, bold, text)


class TerminalBox(QFrame):
    """One terminal; a touch selects it for the action bar."""

    def __init__(self, name: str, select: Callable[[str], None]) -> None:
        super().__init__()
        self.name = name
        self._select = select
        self.setProperty("role", "area")
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Ignored)

    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802 (Qt name)
        self._select(self.name)


FIXED_OPTIONS = ("hit", "stand", "double", "split", "surrender")  # the bar's places, in this order


class TerminalsPanel(QWidget):
    def __init__(self, decide: Callable[[str, str, int], None], timeout: Callable[[str], None],
                 seconds: int = 20, parent: QWidget | None = None,
                 override: Callable[[str], None] | None = None, replay: bool = False) -> None:
        super().__init__(parent)
        # a replay (the review's, the pit's): what each terminal held at that step, read only:
        # no clock, no choices, no override
        self.replay = replay
        self._decide = decide
        self._timeout = timeout
        self._override = override or (lambda seat: None)
        self.links = TerminalLinks()
        self.override_buttons: dict[str, QPushButton] = {}  # read-only terminals' supervisor's override
        self.states: dict[str, QLabel] = {}  # each paired terminal's state line
        self.tags: dict[str, QLabel] = {}  # each paired terminal's TERMINAL / OVERRIDE tag
        self.seconds = seconds
        self.deadlines: dict[str, int] = {}  # terminal -> seconds left
        self.buttons: dict[tuple[str, str], QPushButton] = {}  # the open choices of the chosen terminal
        self.slots: dict[str, QPushButton] = {}  # every choice's fixed place in the bar
        self._pending_hand: int | None = None
        self.countdowns: dict[str, QLabel] = {}
        self.selected: str | None = None
        self._rnd: Any = None
        self._clocks: dict[str, int] | None = None  # the service's clocks last shown (None: this panel's own)
        self._on_hand: dict[tuple[str, int], list[dict[str, Any]]] = {}
        self._shared_count = 0  # the shared Player cards (a terminal's own cards come after them)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.setSpacing(px(4))
        self._grid_host = QWidget()
        self._grid = QGridLayout(self._grid_host)
        self._grid.setContentsMargins(0, 0, 0, 0)
        self._grid.setSpacing(px(4))
        outer.addWidget(self._grid_host, 1)
        self.action_bar = QWidget()
        self._actions = QHBoxLayout(self.action_bar)
        self._actions.setContentsMargins(0, 0, 0, 0)
        self.action_title = _label("", 18, True)
        outer.addWidget(self.action_bar)
        self._boxes: list[QWidget] = []
        self._timer = QTimer(self)
        self._timer.setInterval(1000)
        self._timer.timeout.connect(self._tick)

    def select(self, name: str) -> None:
        if self.links.read_only(name) or self.replay:
            return  # its player decides at the terminal (3.17)
        self.selected = name
        if self._rnd is not None:
            self.refresh(self._rnd, self._output, self._clocks, self.links)

    def refresh(self, rnd: Any, output: dict[str, Any] | None = None, clocks: dict[str, int] | None = None,
                links: TerminalLinks | None = None) -> None:
        """The terminals as the round has them; ``clocks``: the station service's decision
        clocks (seconds left per pending seat), which decide the time-outs (this panel only
        counts down between the service's words); None: this panel's own clock. ``links``:
        the service's Player Terminals (a paired seat is shown read-only)."""
        self._rnd = rnd
        self._clocks = clocks
        self._output = output or {}
        self.links = links or TerminalLinks()
        for box in self._boxes:
            self._grid.removeWidget(box)
            box.hide()
            box.deleteLater()
        self._boxes = []
        self.countdowns = {}
        self.override_buttons = {}
        self.states = {}
        self.tags = {}
        exp = rnd.expectation()
        pending = {p["player"]: p for p in exp.pending} if exp.kind == "decisions" else {}
        for name in list(self.deadlines):
            if name not in pending:
                del self.deadlines[name]
        for name in pending if not self.replay else ():
            if clocks is not None and name in clocks:
                self.deadlines[name] = clocks[name]
            else:
                self.deadlines.setdefault(name, self.seconds)
        choosable = {name: p for name, p in pending.items() if not self.links.read_only(name) and not self.replay}
        if self.selected not in choosable:
            self.selected = next(iter(choosable), None)
        nets: dict[str, Decimal] = {}
        self._on_hand = {}  # each hand's own settlement
        for s in self._output.get("settlements", []):
            nets[s["player"]] = nets.get(s["player"], Decimal(0)) + Decimal(str(s["net"]))
            if s["bet"] == "main" and s.get("hand") is not None:
                self._on_hand.setdefault((str(s["player"]), int(s["hand"])), []).append(s)
        view = rnd.view()
        self._shared_count = len(view.player_cards)
        terminals = list(view.terminals)  # the engine's typed views (round_api.TerminalView)
        rows = max(1, (len(terminals) + COLUMNS - 1) // COLUMNS)
        box_h = max(px(90), (self._grid_host.height() - px(4) * (rows - 1)) // rows)
        in_play = view.status == "in_progress" and not view.betting
        for n, terminal in enumerate(terminals):
            box = self._terminal_box(terminal, pending.get(terminal.player), nets.get(terminal.player), box_h,
                                     in_play)
            self._grid.addWidget(box, n // COLUMNS, n % COLUMNS)
            self._boxes.append(box)
        for r in range(rows):
            self._grid.setRowStretch(r, 1)
        if self.replay:
            self.action_bar.hide()
        else:
            self._show_actions(choosable.get(self.selected) if self.selected else None)
        if self.deadlines and not self._timer.isActive():
            self._timer.start()
        elif not self.deadlines:
            self._timer.stop()

    def _terminal_box(self, terminal: Any, pending: dict[str, Any] | None, net: Decimal | None,
                      height: int, in_play: bool) -> QWidget:
        seat = terminal.player
        paired = seat in self.links.paired
        read_only = self.links.read_only(seat)
        box = TerminalBox(terminal.player, self.select)
        box.setProperty("read_only", "true" if read_only else "false")
        box.setProperty("turn", "true" if terminal.player == self.selected else "false")
        layout = QVBoxLayout(box)
        layout.setSizeConstraint(QVBoxLayout.SizeConstraint.SetNoConstraint)
        layout.setContentsMargins(px(4), px(2), px(4), px(2))
        layout.setSpacing(0)
        wagers = [*terminal.sides, *([terminal.insurance] if terminal.insurance is not None else [])]
        sides = " ".join(f"{TERMINAL_BET_NAMES.get(w.bet, SHORT_BET_NAMES.get(w.bet, w.bet))} {money(w.amount)}"
                         for w in wagers)
        if terminal.even_money:
            sides = f"{sides} EVEN MONEY".strip()
        title = QHBoxLayout()
        title.setContentsMargins(0, 0, 0, 0)
        title.setSpacing(px(4))
        name = _label(f"{terminal.player.upper()}  {money(terminal.main)}", TYPE_PX, True)
        # its own width; the terminal's tag (or the result) beside it has the rest (16 px type:
        # "OVERRIDE · sue" was cut to "RRIDE · sue" at 1280×800)
        name.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        title.addWidget(name, 0)
        if paired:  # whose decisions these are: the terminal's, or the dealer's on a supervisor's word
            who = self.links.overrides.get(seat)
            up = seat in self.links.linked
            tag = _label(f"OVERRIDE \u00b7 {who}" if who else "TERMINAL" if up
                         else f"DOWN ({self._clause('power_failure')})", TYPE_PX, True)
            tag.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            tag.setStyleSheet(f"color: {'#b3e5fc' if up and not who else '#ff8a80'};")
            tag.setToolTip(f"supervisor {who} overrode this terminal: the dealer enters its decisions this round"
                           if who else f"its player decides at the terminal ({self._clause('decision_time')})")
            self.tags[seat] = tag
            title.addWidget(tag, 1)
        layout.addLayout(title)
        if sides:
            layout.addWidget(_label(sides, TYPE_PX))
        hands = list(terminal.hands)
        for i, hand in enumerate(hands, start=1):
            total, soft = hand.total, hand.soft
            badges = [b for b, on in (("BLACKJACK", hand.blackjack), ("BUST", hand.bust),
                                      ("DOUBLED", hand.doubled)) if on]
            text = f"H{i} " if len(hands) > 1 else ""
            if len(hands) > 1:  # split: each hand's own cards (one hand: the shared hand above)
                text += " ".join(card_label(c) for c in hand.cards) + " = "
                # a hard total as its figure ("H2 8♦ 8♠ = 16"): a split hand's line in 16 px type
                text += total_text(total, soft, len(hand.cards)) if soft else str(total)
            else:
                if len(hand.cards) > self._shared_count:  # its own cards drawn after the shared ones
                    text += "+ " + " ".join(card_label(c) for c in hand.cards[self._shared_count:]) + " = "
                text += total_text(total, soft, len(hand.cards))
            text += ("  " + " ".join(badges)) if badges else ""
            settled = self._on_hand.get((terminal.player, i))
            if settled:  # what to pay or collect on this hand (issue 24 item 3)
                text += "  " + settled_cell(settled).text
            if pending is not None and pending["hand"] == i:
                text = "\u25b6 " + text
            hand_label = _label(text, 17 if len(hands) == 1 else TYPE_PX, True)
            hand_label.setToolTip(text)
            layout.addWidget(hand_label)
        layout.addStretch(1)
        status: QLabel
        if pending is not None and self.replay:
            status = _label(f"H{pending['hand']}: deciding", TYPE_PX, True)
            status.setStyleSheet("color: #ffd600;")
        elif pending is not None:
            where = "terminal: " if read_only else ""
            countdown = _label(self._countdown_text(pending["hand"], self.deadlines[terminal.player], where), TYPE_PX, True)
            countdown.setStyleSheet("color: #ffd600;")
            countdown.setProperty("hand", pending["hand"])
            countdown.setProperty("where", where)
            self.countdowns[terminal.player] = countdown
            status = countdown
        else:
            status = _label(self._terminal_state(terminal, paired, net), TYPE_PX, paired)
        if paired:
            self.states[seat] = status
        if status.text():
            layout.addWidget(status)
        # a terminal that cannot be used while its hands are still to decide: a supervisor's override (3.17)
        if read_only and in_play and not terminal.resolved and not terminal.default_strategy:
            button = QPushButton("Override (PIN)")
            button.setProperty("role", "danger")
            # a touch target (48 px, issue 34), as every control of the dealer's screen
            button.setStyleSheet(f"font-size: {px(TYPE_PX)}px; min-height: {px(TOUCH)}px; padding: 0px {px(8)}px;")
            button.setToolTip(f"{seat}'s terminal cannot be used: with a supervisor's PIN the dealer enters "
                              f"its decisions this round ({self._clause('decision_time')})")
            button.clicked.connect(lambda _=False, s=seat: self._override(s))
            self.override_buttons[seat] = button
            layout.addWidget(button, 0, Qt.AlignmentFlag.AlignRight)
        if net is not None and (pending is None):
            words = pay_words(net, "push") if net else "RETURN / even"
            result = _label(words, 17, True)
            result.setStyleSheet(f"color: {'#b9f6ca' if net > 0 else '#ff8a80' if net < 0 else '#e0e0e0'};")
            # beside the name where the box has the width (twelve boxes of three split hands in
            # 16 px type fit 1366×768 so); a paired terminal's tag is there, or a long amount: under
            width = (self._grid_host.width() - px(4) * (COLUMNS - 1)) // COLUMNS - px(4) * 2 - px(12)
            need = name.fontMetrics().horizontalAdvance(name.text()) + result.fontMetrics().horizontalAdvance(words)
            if paired or need > width:
                layout.addWidget(result)
            else:
                result.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                title.addWidget(result, 1)
        return box

    def _show_actions(self, pending: dict[str, Any] | None) -> None:
        """The chosen terminal's choices in fixed places (issue 24: they reflowed under the
        finger): every usual option always there, the ones not open now disabled."""
        options = list(pending["options"]) if pending is not None and self.selected is not None else []
        wanted = [*FIXED_OPTIONS, *(o for o in options if o not in FIXED_OPTIONS)]
        if list(self.slots) != wanted:
            for button in self.slots.values():
                self._actions.removeWidget(button)
                button.hide()  # never laid out again: not left on screen until deleted
                button.deleteLater()
            self.slots = {}
            if self._actions.indexOf(self.action_title) < 0:
                self._actions.addWidget(self.action_title, 1)
            for option in wanted:
                b = QPushButton(OPTION_WORDS.get(option, option).replace(" / next hand", ""))
                b.setProperty("role", "option")
                b.clicked.connect(lambda _=False, o=option: self._slot_pressed(o))
                self._actions.addWidget(b, 1)
                self.slots[option] = b
        self.buttons = {}
        self._pending_hand = pending["hand"] if pending is not None else None
        hand = pending["hand"] if pending is not None else None
        self.action_title.setText(f"{self.selected}, hand {hand}:" if options else "")
        for option, b in self.slots.items():
            b.setEnabled(option in options)
            if option in options:
                self.buttons[(str(self.selected), option)] = b
        if self.action_bar.isHidden():
            self.action_bar.show()

    def _slot_pressed(self, option: str) -> None:
        if self.selected is not None and self._pending_hand is not None:
            self._decide(option, self.selected, self._pending_hand)

    def _terminal_state(self, terminal: Any, paired: bool, net: Decimal | None) -> str:
        """A terminal not deciding now: played by the default strategy, or (a paired one) its
        terminal down (5.9), done, or waiting."""
        if terminal.default_strategy:
            return f"default strategy ({self._clause('no_selection')})"
        if not paired:
            return ""
        if terminal.player not in self.links.linked:
            return f"terminal down ({self._clause('power_failure')})"
        if net is not None or terminal.resolved:
            return "done"
        return "waiting"

    def _clause(self, concept: str) -> str:
        """The round's game's clause for ``concept`` (its rule document's numbering)."""
        rules = getattr(self._rnd, "rules", None)
        return rules.clause(concept) if rules is not None and rules.has(concept) else "?"

    @staticmethod
    def _countdown_text(hand: int, seconds: int, where: str = "") -> str:
        return f"H{hand} {where}{seconds} s left" if where else f"H{hand}: {seconds} s left"

    def _tick(self) -> None:
        expired = []
        for name in list(self.deadlines):
            self.deadlines[name] = max(0, self.deadlines[name] - 1)
            label = self.countdowns.get(name)
            if label is not None:
                label.setText(self._countdown_text(int(label.property("hand")), self.deadlines[name],
                                                   str(label.property("where") or "")))
            if self.deadlines[name] <= 0:
                expired.append(name)
        if self._clocks is not None:  # the service's clock records the time-out (3.18)
            return
        for name in expired:
            del self.deadlines[name]
            self._timeout(name)


def replay_terminals(view: TableView) -> TerminalsPanel:
    """A read-only terminals panel under ``view``'s shared hand (Electronic's replay: each
    terminal's wagers, hands and results at the step, as the dealer's screen shows them)."""
    panel = TerminalsPanel(lambda option, seat, hand: None, lambda seat: None, replay=True)
    panel.hide()  # (shown once the view holds it: a replay of Electronic)
    view.extra = panel
    return panel


def show_terminals(panel: TerminalsPanel, rnd: Any, output: dict[str, Any]) -> None:
    """The step's terminals on ``panel`` (after the view's own refresh), for Electronic only."""
    if not rnd.view().shared_hand:
        return
    panel.refresh(rnd, output)
    if panel.parent() is not None and panel.isHidden():
        panel.show()
