"""The one clear prompt: the engine's "next", with only the legal options as large buttons.

The table's rhythm: while the hand in turn may be hit, the next card out of the shoe IS
the hit (the controller records ``hit`` and the ``card``): the prompt says so and offers
a large *Stand / next hand* target; Double is one key before its card or right after it.

Keyboard: H hit, S stand, D double, P split, R surrender, A accept, F refuse,
T act, W withdraw, I insurance, E even money, C close offers, N no more bets,
Enter confirm the settlement. Offers to other players: keys 1-9 in order.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from PySide6.QtWidgets import QGridLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from ui.common.cards import card_label
from ui.common.fit_words import fit_words
from ui.common.keys import bind
from ui.common.labels import OPTION_WORDS
from ui.common.style import px

OPTION_KEYS = {
    "hit": "H", "stand": "S", "double": "D", "split": "P", "surrender": "R", "accept": "A",
    "refuse": "F", "act": "T", "withdraw": "W", "insurance": "I", "even_money": "E",
}
POOL_SIZE = 64  # hidden buttons kept for reuse: the offers of 21 players and the usual options
OFFER_SHORT = {"insurance": "Ins", "surrender": "Sur", "even_money": "EvM"}


def target_words(target: str | None) -> str:
    """``area:3/1`` -> ``Area 3, hand 1``."""
    if not target:
        return ""
    if target.startswith("area:"):
        number, _, hand = target[5:].partition("/")
        return f"Area {number}, hand {hand or 1}"
    return {"dealer": "Dealer", "players": "Player hand (shared)", "player": "Player hand",
            "discard": "Discard"}.get(target, target)


class _Line(QLabel):
    """A prompt's line: the same words again are not set again (``QLabel.setText`` lays the
    label and its ancestors out again even for the same text; the detail is cleared and set
    on every card)."""

    def setText(self, text: str) -> None:  # noqa: N802 (Qt name)
        if text != self.text():
            super().setText(text)


class PromptPanel(QWidget):
    """Shows what the round waits for and offers exactly the legal choices."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(px(4))
        self.headline = _Line("")
        self.headline.setProperty("role", "prompt")
        self.headline.setWordWrap(True)
        self.detail = _Line("")
        self.detail.setWordWrap(True)
        self.detail.setStyleSheet(f"font-size: {px(18)}px;")
        layout.addWidget(self.headline)
        layout.addWidget(self.detail)
        self._grid_host = QWidget()
        self._grid = QGridLayout(self._grid_host)
        self._grid.setContentsMargins(0, 0, 0, 0)
        self._grid.setSpacing(px(5))
        layout.addWidget(self._grid_host)
        self.buttons: dict[str, QPushButton] = {}
        self._actions: dict[str, Callable[[], object]] = {}  # what each shown button's click and key do
        self._pool: dict[tuple[str, str, str, str | None], QPushButton] = {}  # hidden, for reuse
        self._pool_key: dict[QPushButton, tuple[str, str, str, str | None]] = {}
        self._next_cell = 0
        # where each shown button sits (row, column, span); within show_expectation the buttons
        # shown before it, each kept in place when asked again the same (Stand on every hand)
        self._cells: dict[str, tuple[int, int, int]] = {}
        self._before: dict[str, QPushButton] = {}
        self._cells_before: dict[str, tuple[int, int, int]] = {}
        self._tags: list[QLabel] = []
        self.columns = 6  # options take 2 (three a row), offers 1 (an area's block of three: two areas a row)
        self._offer_grid: list[tuple[int, str, str]] = []  # (area, player, option) since the offers opened
        self._offer_taken: set[str] = set()  # offers taken on this screen (marked ✓ once answered)
        self.offers_headline = ""
        self._in_show = False  # within show_expectation
        self._batched = False  # the grid is hidden while its buttons are placed

    def clear_buttons(self) -> None:
        for button in self.buttons.values():
            self._grid.removeWidget(button)
            button.hide()
            self._put_back(button)
        self.buttons = {}
        self._actions = {}
        self._cells = {}
        self._clear_tags()

    def _clear_tags(self) -> None:
        for tag in self._tags:
            self._grid.removeWidget(tag)
            tag.deleteLater()
        self._tags = []
        self._next_cell = 0

    def _begin(self) -> None:
        """A new question: the buttons shown so far stay until the end of show_expectation,
        where those not asked again go (a button shown in a visible window lays the whole
        window out again: a hand's Stand after the last hand's Stand stays as it is)."""
        self._before, self._cells_before = self.buttons, self._cells
        self.buttons, self._actions, self._cells = {}, {}, {}
        self._clear_tags()

    def _end(self) -> None:
        for button in self._before.values():
            self._grid.removeWidget(button)
            button.hide()
            self._put_back(button)
        self._before, self._cells_before = {}, {}

    def _put(self, key: str, text: str, role: str, shortcut: str | None, cell: tuple[int, int, int]) -> QPushButton:
        """The button for ``key`` at ``cell`` (row, column, span): the one shown there already
        with the same words, role and key, or one from the pool put there."""
        button = self._before.get(key)
        if button is not None and self._pool_key.get(button) == (key, text, role, shortcut) \
                and self._cells_before.get(key) == cell:
            del self._before[key]
        else:
            button = self._button(key, text, role, shortcut)
            self._grid.addWidget(button, *cell[:2], 1, cell[2])
            self._place(button)  # at once, not at the next event loop turn: its key works immediately
        self._cells[key] = cell
        self.buttons[key] = button
        return button

    def _put_back(self, button: QPushButton) -> None:
        """Keep a hidden button for the same question later (every round asks the same
        offers of the same players: making and styling twenty buttons again costs a frame)."""
        key = self._pool_key.get(button)
        if key is None:
            button.deleteLater()
            return
        old = self._pool.pop(key, None)
        if old is not None and old is not button:
            self._forget(old)
        self._pool[key] = button
        while len(self._pool) > POOL_SIZE:
            self._forget(self._pool.pop(next(iter(self._pool))))

    def _forget(self, button: QPushButton) -> None:
        self._pool_key.pop(button, None)
        button.deleteLater()

    def _button(self, key: str, text: str, role: str, shortcut: str | None) -> QPushButton:
        """A button for ``key``: the pooled one with the same text, role and key, or a new one.
        Its click and key run whatever :attr:`_actions` holds for ``key`` when pressed."""
        pooled = (key, text, role, shortcut)
        button = self._pool.pop(pooled, None)
        if button is not None:
            return button
        button = fit_words(QPushButton(text))  # its words whole in a third of a row at 1280×800
        button.setProperty("role", role)
        if shortcut:
            bind(button, shortcut, partial(self._press, key))
        button.clicked.connect(partial(self._click, key))
        self._pool_key[button] = pooled
        return button

    def _press(self, key: str) -> None:
        action = self._actions.get(key)
        if action is not None:
            action()

    def _click(self, key: str, _checked: bool = False) -> None:
        self._press(key)

    def add_button(self, key: str, text: str, action: Callable[[], object], *, shortcut: str | None = None,
                   role: str = "option", span: int = 2) -> QPushButton:
        label = f"{text} ({'Enter' if shortcut == 'Return' else shortcut})" if shortcut else text
        span = min(span, self.columns)
        if self._next_cell % self.columns + span > self.columns:
            self._next_cell += self.columns - self._next_cell % self.columns
        button = self._put(key, label, role, shortcut, (self._next_cell // self.columns,
                                                        self._next_cell % self.columns, span))
        self._actions[key] = action
        self._next_cell += span
        return button

    def _offers(self, offers: list[dict[str, Any]], decide: Callable[..., object]) -> None:
        """Every open offer as a button in a fixed grid (issue 34): each area a block of cells
        in its players' order, two areas a row, laid out when the offers open and kept until
        they close. A player who answered keeps the cell, disabled and marked (a second tap
        never lands on the next player), so twenty-one players' insurance fits and never moves."""
        self._new_row()
        current = [(int(o["area"]), str(o["player"]), str(option)) for o in offers for option in o["options"]]
        if not self._offer_grid or not set(current) <= set(self._offer_grid):
            self._offer_grid = list(dict.fromkeys([*self._offer_grid, *current]))
        by_area: dict[int, list[tuple[str, str]]] = {}
        for area, player, option in self._offer_grid:
            by_area.setdefault(area, []).append((player, option))
        open_now = set(current)
        cell = self._next_cell
        for area, entries in sorted(by_area.items()):
            if cell % self.columns and cell % self.columns + len(entries) > self.columns:
                cell += self.columns - cell % self.columns  # an area's block stays on one row
            for player, option in entries:
                key = f"offer:{player}:{area}:{option}"
                short = OFFER_SHORT.get(option, option)
                is_open = (area, player, option) in open_now
                mark = "" if is_open else ("\u2713 " if key in self._offer_taken else "\u2013 ")
                button = self._put(key, f"{player}\n{mark}{short}", "offer", None,
                                   (cell // self.columns, cell % self.columns, 1))
                button.setEnabled(is_open)
                button.setToolTip(f"{player} takes {OPTION_WORDS.get(option, option).lower()} (area {area})"
                                  + ("" if is_open else ": answered"))
                if is_open:
                    self._actions[key] = partial(self._take_offer, key, partial(decide, option, area, 1, player))
                cell += 1
        self._next_cell = cell
        kinds = dict.fromkeys(option for _, _, option in self._offer_grid)
        self.detail.setText(" \u00b7 ".join(f"{OFFER_SHORT.get(k, k)} = {OPTION_WORDS.get(k, k).lower()}"
                                             for k in kinds))  # one line: the prompt never grows past the panel
        words = " / ".join(OPTION_WORDS.get(k, k).lower() for k in kinds)
        self.offers_headline = (f"Offers open ({words}): {len(open_now)} of {len(self._offer_grid)} to answer. "
                                "Tap who takes it, then Close offers")

    def _take_offer(self, key: str, decide: Callable[[], object]) -> None:
        self._offer_taken.add(key)
        decide()

    def _new_row(self) -> None:
        if self._next_cell % self.columns:
            self._next_cell += self.columns - self._next_cell % self.columns

    def show_expectation(self, exp: Any, status: str, **options: Any) -> None:
        """Show what the round waits for (``options``: the actions of :meth:`_show_expectation`).

        A button shown in a visible window lays out every visible ancestor again at once
        (Qt's ``QWidget::setVisible``): twenty-one offers shown one by one laid the whole
        window out twenty-one times. The buttons are placed while their grid is hidden and
        shown together, before this returns (their keys work at once)."""
        self._in_show = True
        self._begin()
        try:
            self._show_expectation(exp, status, **options)
        finally:
            self._end()
            self._in_show = False
            if self._batched:
                self._batched = False
                self._grid_host.show()

    def _place(self, button: QPushButton) -> None:
        """Show a button just put in the grid (within :meth:`show_expectation`: with the grid)."""
        if self._in_show and not self._batched and not self._grid_host.isHidden():
            self._batched = True
            self._grid_host.hide()
        button.show()

    def _show_expectation(self, exp: Any, status: str, *, decide: Callable[..., object],
                         no_more_bets: Callable[[], object], close_offers: Callable[[], object],
                         confirm: Callable[[], object], resolve: Callable[[str], object],
                         withdraw: Callable[[str | None, int | None], object], slip_size: int,
                         pick: Callable[[str, str, str | None], object] = lambda *a: None,
                         placement: str | None, double_after: Callable[[], object] | None = None,
                         unseen_pick: bool = False) -> None:
        self.detail.setText("")
        kind = exp.kind
        if kind != "decision":
            self._offer_grid, self._offer_taken = [], set()
        if status in ("settled", "void") or (status == "in_progress" and kind == "none"):
            self.headline.setText("Round void: return every wager" if status == "void"
                                  else "Round settled: pay and collect" if status == "settled"
                                  else "Round concluded: pay, collect and return")
            self.detail.setText("Pay and collect as the layout shows, from your right; then the next round.")
            self.add_button("confirm", "Next round", confirm, shortcut="Return", role="stand",
                            span=self.columns)
            return
        if kind == "wagers":
            # one line: the betting panel below keeps every control in sight (issue 34)
            self.headline.setText(f"Place wagers: {slip_size} on the layout")
            self.add_button("no_more_bets", "No more bets", no_more_bets, shortcut="N", role="go",
                            span=self.columns)
            return
        if kind == "card":
            where = target_words(exp.target)
            self.headline.setText(f"Next card \u2192 {where}")
            waiting = exp.extra.get("waiting") if exp.extra else None
            if waiting:
                self.detail.setText("for " + ", ".join(waiting))
            if placement:
                self.detail.setText(f"The next card will be recorded at {target_words(placement)} (placed there)")
            if double_after is not None:
                # the last card was an implied hit: it may still be the card of a double
                self.add_button("double", "Double (that card)", double_after, shortcut="D", span=self.columns)
            return
        if kind == "decision":
            if exp.options:
                who = exp.player or "no player"
                self.headline.setText(f"Area {exp.area}, hand {exp.hand}: {who} decides")
                if "hit" in exp.options:
                    self.detail.setText("Deal a card for a hit (no key needed), or Stand.")
                if "stand" in exp.options:
                    self.add_button("stand", OPTION_WORDS["stand"], partial(decide, "stand", exp.area, exp.hand, None),
                                    shortcut="S", role="stand", span=self.columns)
                for option in exp.options:
                    if option == "stand":
                        continue
                    if option == "pick":
                        # 5.23: the player in turn (or the pit manager) picks one of the cards
                        by = str(exp.extra.get("by", "player")) if exp.extra else "player"
                        # cards nobody has seen (5.23.1, 5.23.4.1) stay unseen on the screen too:
                        # the choice is blind, "Card 1", "Card 2" (game protection)
                        for n, card in enumerate(exp.extra.get("cards", []) if exp.extra else [], 1):
                            words = f"Card {n}, face down" if unseen_pick else f"Take {card_label(card)}"
                            self.add_button(f"pick:{card}", words,
                                            partial(pick, card, by, exp.player if by == "player" else None),
                                            shortcut=str(n) if n <= 9 else None, span=self.columns)  # a row each: the words whole
                        if by == "pit_manager":
                            self.headline.setText("The pit manager picks the dealer's card")
                        self.detail.setText(f"{exp.text or ''} ({exp.rule})" if exp.rule else exp.text or "")
                        continue
                    if option == "withdraw":
                        self.add_button(option, OPTION_WORDS[option],
                                        partial(withdraw, exp.player, exp.area),
                                        shortcut=OPTION_KEYS[option])
                        continue
                    self.add_button(option, OPTION_WORDS.get(option, option),
                                    partial(decide, option, exp.area, exp.hand, None),
                                    shortcut=OPTION_KEYS.get(option))
                if double_after is not None and "double" not in exp.options:
                    # the last card was taken for a hit: it may be the card of a double
                    self.add_button("double", "Double (that card)", double_after, shortcut="D")
            if exp.offers:
                self._offers(exp.offers, decide)
                left = self.columns - self._next_cell % self.columns if self._next_cell % self.columns else 0
                # beside the last area's block when it leaves half a row (21 offers and the
                # hand's options fit 1366×768 with the amount row under them)
                self.add_button("close_offers", "Close offers", close_offers, shortcut="C", role="option",
                                span=left if left >= 3 else self.columns)
                if not exp.options:
                    self.headline.setText(self.offers_headline)  # what is asked now
            else:
                self._offer_grid, self._offer_taken = [], set()
            return
        if kind == "decisions":
            players = ", ".join(p["player"] for p in exp.pending)
            self.headline.setText("Terminals deciding")
            self.detail.setText(players)
            return
        if kind == "ruling":
            self.headline.setText(f"Referred to the Gaming Shift Manager ({exp.rule})")
            self.detail.setText(exp.text or "")
            self.add_button("resolve_continue", "Shift manager: continue", lambda: resolve("continue"))
            self.add_button("resolve_void", "Shift manager: void", lambda: resolve("void"), role="danger")
            return
        self.headline.setText("Waiting")
