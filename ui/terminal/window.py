"""The player terminal's window (issue 38, build 2; Electronic Blackjack 1.1.10): full screen,
by touch, 1024×768 and up.

Top: the seat and the table, "Place your bets" / "No more bets" as the service says (3.1,
3.2), the credit meter (1.1.10) and a word when it is empty, the last cash-out's voucher, a
supervisor's override (the dealer enters this seat's decisions and wagers this round, 3.17:
its own touches are off). Left: the dealer's cards and the shared hand as they come, this
seat's hands and results, its decisions with the time left (3.9, 3.17). Right: the layout
with every bet and its limits (2.2), the last rounds. Bottom: the chips, clear, repeat bet,
place bet, cash out (1.1.10), the round's net. Everything shown is the seat's view
(dealer_assist/service/seat_view.py); the controller sends the player's touches.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QFont, QResizeEvent
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from ui.common.cards import card_label
from ui.common.labels import sized_label
from ui.common.style import (
    TOUCH,
    app_style,
    base_font_px,
    money,
    px,
    scale,
    scale_for,
    set_scale,
    signed,
)
from ui.terminal.bets import BetsPanel, ChipBar
from ui.terminal.controller import TerminalController
from ui.terminal.hands import HandsPanel

__all__ = ["BETS_CLOSED", "BETS_OPEN", "PAINTED_PAIRS", "TerminalWindow"]

BETS_OPEN = "Place your bets"  # 3.1
BETS_CLOSED = "No more bets"  # 3.2
OPEN_BG, CLOSED_BG = "#1b5e20", "#b00020"  # the banner's backgrounds, white text on each
#: The text this window colours itself, on its background (text, background, what): each
#: at least 4.5:1 (tests/ui_terminal/test_terminal_window.py); the rest is ui.common.style's.
PAINTED_PAIRS: tuple[tuple[str, str, str], ...] = (
    ("#ffffff", OPEN_BG, "Place your bets"), ("#ffffff", CLOSED_BG, "No more bets"),
    ("#111111", "#ffe0b2", "a bet's spot (role place)"), ("#111111", "#ffe082", "a decision (role go)"),
    ("#ffffff", "#1565c0", "the chip held (role toggle, checked)"))
HISTORY_SHOWN = 5


class HistoryLines(QLabel):
    """The last rounds, one line each, newest first, each cut with "…" to the width it is
    given (a line never wraps: ``shown`` rounds always fit the height it asks for)."""

    def __init__(self, shown: int) -> None:
        super().__init__()
        font = QFont(self.font())
        font.setPixelSize(px(15))
        self.setFont(font)
        self.lines: list[str] = []  # the whole lines, before any is cut
        self.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.setFixedHeight(self.fontMetrics().lineSpacing() * shown + px(4))
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)

    def show_lines(self, lines: list[str]) -> None:
        self.lines = list(lines)
        self._fit()

    def _fit(self) -> None:
        metrics, width = self.fontMetrics(), max(self.contentsRect().width(), 1)
        self.setText("\n".join(metrics.elidedText(line, Qt.TextElideMode.ElideRight, width) for line in self.lines))

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt name)
        super().resizeEvent(event)
        self._fit()


class TerminalWindow(QMainWindow):
    def __init__(self, controller: TerminalController, table_name: str = "") -> None:
        super().__init__()
        self.controller = controller
        self.table_name = table_name
        self.setWindowTitle(f"Dealer Assist \u2014 terminal {controller.seat}")
        self._built_scale: float | None = None
        # kept over a rebuild (a resize makes the widgets anew): the link's state, the last refusal
        self.link_text = ""  # "" while connected
        self.refusal_text = ""
        self.countdown_timer = QTimer(self)
        self.countdown_timer.setInterval(250)
        self.countdown_timer.timeout.connect(self._tick)
        controller.changed.connect(self.refresh)
        controller.refused.connect(self._refused)
        controller.link_state.connect(self._link_state)
        self._build()

    # ------------------------------------------------------------------ building
    def _build(self) -> None:
        self._built_scale = None
        set_scale(self._wanted_scale())
        self.setStyleSheet(app_style())
        font = QFont(self.font())
        font.setPixelSize(base_font_px())
        self.setFont(font)
        old = self.centralWidget()
        root = QWidget()
        outer = QVBoxLayout(root)
        outer.setContentsMargins(px(8), px(6), px(8), px(6))
        outer.setSpacing(px(6))

        head = QHBoxLayout()
        self.seat_label = sized_label(20, True)
        self.seat_label.setText(f"Seat {self.controller.seat.upper()}"
                                + (f"  \u00b7  Table {self.table_name}" if self.table_name else ""))
        self.banner = sized_label(26, True)
        self.banner.setMinimumHeight(px(TOUCH))
        self.meter = sized_label(20, True)
        head.addWidget(self.seat_label, 3)
        head.addWidget(self.banner, 4)
        head.addWidget(self.meter, 2)
        outer.addLayout(head)
        self.voucher = sized_label(15)
        self.voucher.hide()
        outer.addWidget(self.voucher)
        self.override_notice = sized_label(17, True)  # 3.17: the dealer decides for this seat this round
        self.override_notice.setProperty("role", "notice")
        self.override_notice.setWordWrap(True)
        self.override_notice.hide()
        outer.addWidget(self.override_notice)
        self.credits_notice = sized_label(17, True)  # 1.1.10: no credits, no wager
        self.credits_notice.setProperty("role", "notice")
        self.credits_notice.setWordWrap(True)
        self.credits_notice.hide()
        outer.addWidget(self.credits_notice)
        self.link_notice = sized_label(17)
        self.link_notice.setProperty("role", "refusal")
        self.link_notice.setWordWrap(True)
        self.link_notice.setText(self.link_text)
        self.link_notice.setVisible(bool(self.link_text))
        outer.addWidget(self.link_notice)

        body = QHBoxLayout()
        body.setSpacing(px(10))
        left = QVBoxLayout()
        self.hands = HandsPanel(self.controller.decide)
        left.addWidget(self.hands, 1)
        self.refusal = sized_label(17)
        self.refusal.setProperty("role", "refusal")
        self.refusal.setWordWrap(True)
        self.refusal.setText(self.refusal_text)
        self.refusal.setVisible(bool(self.refusal_text))
        left.addWidget(self.refusal)
        body.addLayout(left, 3)
        right = QVBoxLayout()
        right.setSpacing(px(6))
        self.bets = BetsPanel(self.controller.add_chip)
        right.addWidget(self.bets, 1)
        self.history_title = sized_label(17, True)
        self.history_title.setText("Last rounds")
        right.addWidget(self.history_title)
        self.history = HistoryLines(HISTORY_SHOWN)  # a round a line, newest first
        right.addWidget(self.history)
        body.addLayout(right, 2)
        outer.addLayout(body, 1)

        foot = QHBoxLayout()
        foot.setSpacing(px(8))
        self.chips = ChipBar(self.controller.choose_chip)
        foot.addWidget(self.chips, 5)
        self.clear_button = self._button("Clear", self.controller.clear, "danger")
        self.repeat_button = self._button("Repeat bet", self.controller.repeat, "")
        self.place_button = self._button("Place bet", self.controller.place, "confirm")
        self.cash_out_button = self._button("Cash out", self.controller.cash_out, "")
        for b in (self.clear_button, self.repeat_button, self.place_button, self.cash_out_button):
            foot.addWidget(b, 2)
        self.net = sized_label(20, True)
        self.net.setMinimumWidth(px(120))
        foot.addWidget(self.net, 2)
        outer.addLayout(foot)
        self.setCentralWidget(root)
        if old is not None:
            old.deleteLater()
        self._built_scale = scale()
        self.refresh()

    @staticmethod
    def _button(text: str, slot: Any, role: str) -> QPushButton:
        b = QPushButton(text)
        b.setProperty("role", role)
        b.setMinimumWidth(px(TOUCH + 24))
        b.setFixedHeight(px(TOUCH + 8))
        b.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        b.clicked.connect(lambda _=False: slot())
        return b

    def _wanted_scale(self) -> float:
        return scale_for(max(self.width(), 1024), max(self.height(), 768))

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt name)
        super().resizeEvent(event)
        if self._built_scale is None:
            return
        set_scale(self._wanted_scale())
        if scale() != self._built_scale:
            self._build()  # type and cards grow with the screen (ui.common.style.set_scale)

    # ------------------------------------------------------------------ showing the view
    def refresh(self) -> None:
        c = self.controller
        view = c.view
        betting = c.betting
        self.banner.setText(BETS_OPEN if betting else BETS_CLOSED)
        bg = OPEN_BG if betting else CLOSED_BG
        self.banner.setStyleSheet(f"color: #ffffff; background: {bg}; border-radius: 8px; padding: 2px {px(10)}px;")
        meter = view.get("meter")
        self.meter.setText("Credits " + (money(meter) if meter is not None else "\u2014"))
        empty = bool(view) and not meter  # none bought (None) or all cashed out or played (0)
        self.credits_notice.setText("No credits on this terminal: ask an attendant to buy credits in "
                                    "(a supervisor's PIN, here or at the dealer's screen)" if empty else "")
        self.credits_notice.setVisible(empty)
        linked = not self.link_text  # the station away: the last view stays, no touch is sent
        self.cash_out_button.setEnabled(linked and bool(view.get("may_cash_out")))  # as the service says (1.1.10)
        voucher = c.voucher
        if voucher is not None:
            self.voucher.setText(f"Voucher {voucher.get('validation')}  \u00b7  {money(voucher.get('amount', 0))}  "
                                 f"\u00b7  seat {str(voucher.get('seat', '')).upper()}  \u00b7  "
                                 f"{_when(voucher.get('at'))}")
        self.voucher.setVisible(voucher is not None)
        pending = c.pending
        override = c.override
        if override is not None:
            self.override_notice.setText(
                f"Supervisor {override.get('supervisor')} has overridden this terminal for this round: the dealer "
                f"enters your decisions and wagers ({override.get('rule')}). Tell the dealer what you choose.")
        self.override_notice.setVisible(override is not None)
        self.hands.show_view(view, pending, by_dealer=override is not None)
        betting = betting and override is None and linked  # overridden: the dealer's wagers this round (3.17)
        for option in self.hands.options.values():
            option.setEnabled(linked)
        results: dict[str, tuple[Decimal, str]] = {}
        for s in view.get("settlements") or []:
            net, result = results.get(str(s["bet"]), (Decimal(0), ""))
            results[str(s["bet"])] = (net + Decimal(str(s.get("net", 0))), str(s.get("result", "")) if not result
                                      or result == s.get("result") else "settled")
        self.bets.show_layout(c.layout, c.placed(), c.building, results, betting)
        self.chips.show_chips(c.chips, c.chip, betting)
        self.clear_button.setEnabled(betting and bool(c.building))
        self.repeat_button.setEnabled(betting and bool(c.last_bet))
        self.place_button.setEnabled(betting and bool(c.building))
        nets = view.get("net") or {}
        self.net.setText(f"Net {signed(Decimal(str(nets[c.seat])))}" if c.seat in nets else "")
        self.history.show_lines(self._history_lines())
        self._tick()
        if pending is not None and c.deadline is not None:
            self.countdown_timer.start()
        else:
            self.countdown_timer.stop()

    def _history_lines(self) -> list[str]:
        """A round a line: its net first (what an elided line keeps), its wagers, the dealer's hand."""
        lines = []
        names = {str(b.get("bet")): str(b.get("name")) for b in self.controller.layout}
        for r in self.controller.history[:HISTORY_SHOWN]:
            wagers = ", ".join(f"{names.get(bet, bet)} {money(amount)}" for bet, amount in r.wagers) or "no wager"
            dealer = " ".join(card_label(card) for card in r.dealer)
            lines.append(f"#{r.round_id}  net {signed(r.net)}  \u00b7  {wagers}  \u00b7  "
                         f"dealer {dealer} ({r.dealer_total})")
        return lines or ["\u2014"]

    def _tick(self) -> None:
        self.hands.show_seconds(self.controller.seconds_left())

    def _refused(self, text: str) -> None:
        self.refusal_text = f"Refused: {text}" if text else ""
        self.refusal.setText(self.refusal_text)
        self.refusal.setVisible(bool(text))

    def _link_state(self, text: str) -> None:
        self.link_text = text if text != "connected" else ""
        self.link_notice.setText(self.link_text)
        self.link_notice.setVisible(bool(self.link_text))
        self.refresh()  # no touch is taken while the station is away


def _when(at: Any) -> str:
    """A voucher's time (ISO UTC from the service) as a person reads it: 30 Nov 2026 06:09:17 UTC."""
    try:
        return datetime.fromisoformat(str(at).replace("Z", "+00:00")).strftime("%d %b %Y %H:%M:%S UTC")
    except ValueError:
        return str(at or "")
