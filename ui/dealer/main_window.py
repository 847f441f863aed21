"""The dealer's window: layout, prompt, settlement, rulings, shoe status, betting, reports.

A view of the controller's round; every action becomes a transcript event sent through
the controller, and every refusal is shown with its clause.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QDoubleValidator, QFont, QFontMetrics, QResizeEvent
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QMainWindow,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from dealer_assist.base.cards import parse_card
from dealer_assist.engine.events import (
    Absent,
    CardDrawn,
    CloseOffers,
    Decision,
    Pick,
    PowerFailure,
    Timeout,
    Withdraw,
)
from dealer_assist.engine.power_failure import players_with_wagers
from dealer_assist.engine.table_setup import TableSetup
from ui.common.amount_keypad import AmountKeypad
from ui.common.cards import DropTarget, card_label
from ui.common.collector import collect_now
from ui.common.dialog_keys import enter_submits
from ui.common.keys import LetterKeys, bind
from ui.common.login import PinDialog, ask_supervisor
from ui.common.qtfix import AfterPaint
from ui.common.screen_fit import ScreenDialog, fill_screen, keep_size
from ui.common.style import TOUCH, app_style, base_font_px, money, px, scale_for, set_scale, signed
from ui.common.table_view import SHORT_BET_NAMES, TableView
from ui.common.terminals_panel import TerminalLinks, TerminalsPanel
from ui.dealer.betting import BettingPanel, TextDialog
from ui.dealer.controller import TableController
from ui.dealer.held_panels import PowerFailurePanel, StrayCardPanel
from ui.dealer.prompt import PromptPanel, target_words
from ui.dealer.ruling_panel import RulingPanel
from ui.dealer.settlement_panel import SettlementPanel
from ui.dealer.setup_dialog import SetupDialog
from ui.dealer.shoe_status import ShoeStatus


class ChoiceDialog(ScreenDialog):
    """A question in words, the clause it comes from, one large button per answer, and Cancel.

    Nothing is chosen by default: Enter does not pick an answer."""

    def __init__(self, title: str, question: str, clause: str | None, answers: list[tuple[str, str]],
                 parent: QWidget | None = None, *, columns: int = 2) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.answer: str | None = None
        layout = QVBoxLayout(self)
        ask = QLabel(question + (f"  ({clause})" if clause else ""))
        ask.setWordWrap(True)
        ask.setProperty("role", "title")
        ask.setMinimumWidth(px(420))
        layout.addWidget(ask)
        grid = QGridLayout()
        self.buttons: dict[str, QPushButton] = {}
        for i, (key, text) in enumerate(answers):
            b = QPushButton(text)
            b.setAutoDefault(False)
            b.setMinimumHeight(px(56))
            b.clicked.connect(lambda _=False, k=key: self.choose(k))
            grid.addWidget(b, i // columns, i % columns)
            self.buttons[key] = b
        layout.addLayout(grid)
        cancel = QPushButton("Cancel")
        cancel.setAutoDefault(False)
        cancel.clicked.connect(self.reject)
        self.cancel_button = cancel
        layout.addWidget(cancel)
        enter_submits(self, None)  # nothing is chosen by Enter

    def choose(self, key: str) -> None:
        self.answer = key
        self.accept()


class PlacementDialog(ScreenDialog):
    """Where a card physically lies: the next card (``to``) or an earlier one (correction).

    Large buttons: first the card, then where it lies; Cancel changes nothing."""

    def __init__(self, cards: list[tuple[int, str]], targets: list[str], rules: Any,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Card placed elsewhere")
        layout = QVBoxLayout(self)
        # the game's own numbering (Dueling 8's and Electronic number these otherwise)
        # (Electronic has one clause for a card dealt incorrectly: the cards are reconstructed)
        concepts = ("misdeal", "one_card.reconstruct") if rules.has("misdeal") else ("misdeal.reconstruct",)
        cited = ", ".join(rules.clause(c) for c in concepts if rules.has(c))
        error = f"; {rules.clause('card_in_error')} for a card dealt in error" if rules.has("card_in_error") else ""
        ask = QLabel("Which card lies somewhere else than recorded, and where does it lie? "
                     f"The rules decide what follows ({cited}{error}).")
        ask.setWordWrap(True)
        ask.setProperty("role", "title")
        layout.addWidget(ask)
        self.card = QComboBox()
        self.card.addItem("the next card out of the shoe", None)
        for index, text in reversed(cards):
            self.card.addItem(f"{card_label(text)} (event {index})", index)
        layout.addWidget(QLabel("Card:"))
        layout.addWidget(self.card)
        layout.addWidget(QLabel("Lies at:"))
        self.target = QComboBox()  # kept for the keyboard; the buttons below do the same
        for t in targets:
            self.target.addItem(target_words(t), t)
        grid = QGridLayout()
        self.target_buttons: dict[str, QPushButton] = {}
        for i, t in enumerate(targets):
            b = QPushButton(target_words(t))
            b.setAutoDefault(False)
            b.setCheckable(True)
            b.setAutoExclusive(True)
            b.clicked.connect(lambda _=False, t=t: self.target.setCurrentIndex(self.target.findData(t)))
            grid.addWidget(b, i // 4, i % 4)
            self.target_buttons[t] = b
        layout.addLayout(grid)
        row = QHBoxLayout()
        cancel = QPushButton("Cancel")
        cancel.setAutoDefault(False)
        cancel.clicked.connect(self.reject)
        ok = QPushButton("Record")
        ok.setAutoDefault(False)
        ok.setProperty("role", "confirm")
        ok.clicked.connect(self.accept)
        row.addWidget(cancel)
        row.addWidget(ok)
        layout.addLayout(row)
        enter_submits(self, ok)  # Enter records the chosen place


class FollowersDialog(ScreenDialog):
    """The other players on a hand the controller splits (match or stay, 3.24) or doubles
    (how much each adds, up to their own wager, 3.26.5). Each player's answer is asked in
    words; nothing is chosen for a player, and the decision is recorded only when every
    player has answered."""

    def __init__(self, action: str, followers: list[dict[str, Any]], parent: QWidget | None = None,
                 clause: str = "") -> None:
        super().__init__(parent)
        self.action = action
        self.setWindowTitle("Other players on the hand")
        layout = QVBoxLayout(self)
        if action == "split":
            question = ("The controlling player splits. Each other player on the hand: match the wager "
                        "on the new hand, or keep it on the first hand?")
        else:
            question = ("The controlling player doubles. Each other player on the hand: double too "
                        "(up to their own wager), or not?")
        self.question = QLabel(question + (f"  ({clause})" if clause else ""))
        self.question.setWordWrap(True)
        self.question.setProperty("role", "title")
        layout.addWidget(self.question)
        self.answers: dict[str, str | Decimal | None] = {}
        self.buttons: dict[tuple[str, str], QPushButton] = {}
        grid = QGridLayout()
        for row, f in enumerate(followers):
            player = str(f["player"])
            self.answers[player] = None
            grid.addWidget(QLabel(f"{player} ({money(f['wager'])})"), row, 0)
            if action == "split":
                options = [("match", f"Match {money(f['wager'])}"), ("stay", "Keep on first hand")]
            else:
                options = [(str(f["wager"]), f"Double {money(f['wager'])}"), ("amount", "Less…"),
                           ("", "No double")]
            for col, (key, text) in enumerate(options, start=1):
                b = QPushButton(text)
                b.setAutoDefault(False)
                b.setCheckable(True)
                b.clicked.connect(lambda _=False, p=player, k=key: self.answer(p, k))
                grid.addWidget(b, row, col)
                self.buttons[(player, key)] = b
        layout.addLayout(grid)
        row2 = QHBoxLayout()
        cancel = QPushButton("Cancel")
        cancel.setAutoDefault(False)
        cancel.clicked.connect(self.reject)
        self.ok = QPushButton("Split" if action == "split" else "Double")
        self.ok.setAutoDefault(False)
        self.ok.setProperty("role", "confirm")
        self.ok.setEnabled(False)
        self.ok.clicked.connect(self.accept)
        row2.addWidget(cancel)
        row2.addWidget(self.ok)
        layout.addLayout(row2)
        enter_submits(self, self.ok)  # Enter: once every player has answered (the button is off until then)
        self.keypad: AmountKeypad | None = None

    def answer(self, player: str, key: str) -> None:
        for (p, k), b in self.buttons.items():
            if p == player:
                b.setChecked(k == key)
        if key == "amount":
            keypad = AmountKeypad(f"How much does {player} double?", self)
            self.keypad = keypad

            def typed() -> None:
                value = keypad.amount()
                self.answers[player] = value if value is not None else None
                self._update()

            keypad.accepted.connect(typed)
            keypad.open()
            return
        self.answers[player] = key if key in ("match", "stay", "") else Decimal(key)
        self._update()

    def _update(self) -> None:
        self.ok.setEnabled(all(v is not None for v in self.answers.values()))

    def followers(self) -> dict[str, str | Decimal]:
        out: dict[str, str | Decimal] = {}
        for player, value in self.answers.items():
            if value is None or value == "":
                continue
            out[player] = value
        return out


class SplitWagerDialog(ScreenDialog):
    """A side bet on a split hand (Ace Race wager on split Aces 3.21.1; Tie on 18 on a split
    hand 3.23.1, 3.25): the hand, the player, the bet as large toggles and the amount in
    chips; the engine accepts or refuses it with its clause. Enter places it."""

    def __init__(self, hands: list[tuple[int, int, list[str]]], bets: list[tuple[str, str]], chips: list[int],
                 clause: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Wager on a split hand")
        layout = QVBoxLayout(self)
        ask = QLabel(f"Which hand, which player, which bet, how much? ({clause})")
        ask.setWordWrap(True)
        ask.setProperty("role", "title")
        layout.addWidget(ask)
        self.hand: tuple[int, int] | None = None
        self.player: str | None = None
        self.bet: str | None = bets[0][0] if len(bets) == 1 else None
        self.amount = Decimal(0)
        self._players = {(a, h): names for a, h, names in hands}
        self.hand_buttons: dict[tuple[int, int], QPushButton] = {}
        grid = QGridLayout()
        for i, (area, hand, _) in enumerate(hands):
            b = self._toggle(f"Area {area}, hand {hand}", lambda _=False, k=(area, hand): self._choose_hand(k))
            grid.addWidget(b, i // 3, i % 3)
            self.hand_buttons[(area, hand)] = b
        layout.addLayout(grid)
        self.player_row = QGridLayout()
        self.player_buttons: dict[str, QPushButton] = {}
        layout.addLayout(self.player_row)
        row = QHBoxLayout()
        self.bet_buttons: dict[str, QPushButton] = {}
        for key, name in bets:
            b = self._toggle(name, lambda _=False, k=key: self._choose_bet(k))
            b.setChecked(key == self.bet)
            row.addWidget(b)
            self.bet_buttons[key] = b
        layout.addLayout(row)
        chip_row = QHBoxLayout()
        self.amount_label = QLabel("0")
        self.amount_label.setStyleSheet(f"font-size: {px(26)}px; font-weight: bold; background: white;")
        chip_row.addWidget(self.amount_label, 1)
        self.chip_buttons: list[QPushButton] = []
        for value in chips:
            b = QPushButton(f"+{money(value)}")
            b.clicked.connect(lambda _=False, v=value: self._add(v))
            chip_row.addWidget(b)
            self.chip_buttons.append(b)
        layout.addLayout(chip_row)
        buttons = QHBoxLayout()
        cancel = QPushButton("Cancel")
        cancel.clicked.connect(self.reject)
        self.ok = QPushButton("Place wager")
        self.ok.setProperty("role", "confirm")
        self.ok.clicked.connect(self.accept)
        buttons.addWidget(cancel)
        buttons.addWidget(self.ok)
        layout.addLayout(buttons)
        enter_submits(self, self.ok)
        if len(hands) == 1:
            self._choose_hand((hands[0][0], hands[0][1]))
        self._update()

    @staticmethod
    def _toggle(text: str, action: Callable[..., object]) -> QPushButton:
        b = QPushButton(text)
        b.setCheckable(True)
        b.setProperty("role", "toggle")
        b.clicked.connect(action)
        return b

    def _choose_hand(self, key: tuple[int, int]) -> None:
        self.hand = key
        for k, b in self.hand_buttons.items():
            b.setChecked(k == key)
        for b in self.player_buttons.values():
            self.player_row.removeWidget(b)
            b.deleteLater()
        self.player_buttons = {}
        names = self._players.get(key, [])
        for i, name in enumerate(names):
            b = self._toggle(name, lambda _=False, n=name: self._choose_player(n))
            self.player_row.addWidget(b, 0, i)
            self.player_buttons[name] = b
        self._choose_player(names[0] if len(names) == 1 else None)

    def _choose_player(self, name: str | None) -> None:
        self.player = name
        for n, b in self.player_buttons.items():
            b.setChecked(n == name)
        self._update()

    def _choose_bet(self, key: str) -> None:
        self.bet = key
        for k, b in self.bet_buttons.items():
            b.setChecked(k == key)
        self._update()

    def _add(self, value: int) -> None:
        self.amount += value
        self.amount_label.setText(money(self.amount))
        self._update()

    def _update(self) -> None:
        self.ok.setEnabled(self.hand is not None and self.player is not None and self.bet is not None
                           and self.amount > 0)


class DealerWindow(QMainWindow):
    def __init__(self, controller: TableController) -> None:
        super().__init__()
        self.controller = controller
        self.setWindowTitle("Dealer Assist")
        self._apply_style()
        self.letter_keys = LetterKeys(self)  # on the number fields and lists (below), not on every widget
        central = QWidget()
        self.setCentralWidget(central)
        outer = QVBoxLayout(central)
        outer.setContentsMargins(4, 2, 4, 2)
        outer.setSpacing(3)

        head = QHBoxLayout()
        self.game_line = QLabel("")  # the game, its deck count and the table's limits: always visible
        self.game_line.setProperty("role", "header")
        self.game_line.setWordWrap(True)
        self.game_line.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        head.addWidget(self.game_line, 1)
        self.shoe_status = ShoeStatus(self._release_hold, reread=self.controller.reread, void=self.request_void)
        head.addWidget(self.shoe_status.line)
        outer.addLayout(head)
        self.banner = QLabel("")
        self.banner.setWordWrap(True)
        self.banner.setStyleSheet("font-weight: bold; background: #ffe082; padding: 4px;")
        self.banner.hide()
        outer.addWidget(self.shoe_status)  # the shoe banner: full width, replaces the prompt

        middle = QHBoxLayout()
        middle.setSpacing(6)
        outer.addLayout(middle, 1)
        left = QVBoxLayout()
        middle.addLayout(left, 7)
        self.table_view = TableView()
        left.addWidget(self.table_view, 1)
        self.terminals = TerminalsPanel(self._terminal_decide, self._terminal_timeout,
                                        controller.setup.decision_seconds, override=self._override_terminal)
        self.table_view.extra = self.terminals
        self.terminals.hide()

        # The right-hand panel: the prompt and what stands in for it (a held card, a power
        # failure) at a fixed place on top; below, whatever else there is (betting, rulings,
        # the settlement) in a scroll area of its own, so that nothing there moves the prompt
        # or grows the window (issue 24 item 1).
        self.right_panel = QWidget()
        right_outer = QVBoxLayout(self.right_panel)
        right_outer.setContentsMargins(0, 0, 0, 0)
        right_outer.setSpacing(4)
        middle.addWidget(self.right_panel, 3)
        self.prompt = PromptPanel()
        right_outer.addWidget(self.prompt)
        self.stray = StrayCardPanel(self._place_stray)
        right_outer.addWidget(self.stray)
        self.power_panel = PowerFailurePanel(self._withdraw, self._stays)
        right_outer.addWidget(self.power_panel)
        self.amount_row = QWidget()
        amount = QHBoxLayout(self.amount_row)
        amount.setContentsMargins(0, 0, 0, 0)
        less = QLabel("Double / insurance\nfor less than full:")
        less.setStyleSheet(f"font-size: {px(16)}px;")  # read by the dealer: 16 px at least (issue 34)
        amount.addWidget(less)
        self.decision_amount = QLineEdit()
        self.decision_amount.setValidator(QDoubleValidator(0, 10**9, 2))
        self.decision_amount.setPlaceholderText("full")
        self.decision_amount.setMaximumWidth(px(110))
        amount.addWidget(self.decision_amount)
        keypad = QPushButton("Keypad")
        keypad.clicked.connect(self._amount_keypad)
        amount.addWidget(keypad)
        right_outer.addWidget(self.banner)  # under the prompt: never moves it
        self.right_scroll = QScrollArea()
        self.right_scroll.setWidgetResizable(True)
        self.right_scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.right_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        # what is left under the prompt, however little: it never takes the prompt's room
        self.right_scroll.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Ignored)
        right_outer.addWidget(self.right_scroll, 1)
        below = QWidget()
        below.setObjectName("right_below")
        self.right_scroll.setWidget(below)
        right = QVBoxLayout(below)
        right.setContentsMargins(0, 0, 0, 0)
        right.setSpacing(4)
        right.addWidget(self.amount_row)  # under the prompt's buttons, never pressing on them
        self.betting = BettingPanel(self._place, controller.remove_wager, controller.change_wager,
                                    controller.claim, place_many=controller.place_wagers)
        right.addWidget(self.betting, 100)
        self.refusal = QLabel("")  # refusals only: red, the whole message with its clause
        self.refusal.setProperty("role", "refusal")
        self.refusal.setWordWrap(True)
        self.refusal.hide()
        right.addWidget(self.refusal)
        self.notice = QLabel("")  # notices: what the dealer reported, in blue; never a refusal
        self.notice.setProperty("role", "notice")
        self.notice.setWordWrap(True)
        self.notice.hide()
        right.addWidget(self.notice)
        self.ruling_panel = RulingPanel()
        right.addWidget(self.ruling_panel)
        self.pages = QStackedWidget()  # the settlement, or the last ten rounds (L)
        self.settlement = SettlementPanel()
        self.pages.addWidget(self.settlement)
        recall = QWidget()
        recall_layout = QVBoxLayout(recall)
        recall_layout.setContentsMargins(0, 0, 0, 0)
        self.recall_list = QListWidget()
        self.recall_list.setMaximumHeight(px(150))
        self.recall_list.currentRowChanged.connect(self._show_recalled)
        self.recall_view = SettlementPanel()
        recall_layout.addWidget(self.recall_list)
        recall_layout.addWidget(self.recall_view, 1)
        self.pages.addWidget(recall)
        right.addWidget(self.pages, 200)
        right.addStretch(1)  # with no settlement or betting shown, the panels stay at the top
        for hidden in (self.amount_row, self.pages, self.ruling_panel):
            hidden.hide()  # shown when there is something to show: the window never opens too tall

        outer.addWidget(self._reports_bar())
        from ui.common.about import add_about_action  # Help > About: version, licence, games

        self.about_action = add_about_action(self)

        self.decision_amount.installEventFilter(self.letter_keys)
        DropTarget.dropped = self.card_dropped
        self.setup_dialog: SetupDialog | None = None
        self.setup_saved: Callable[[TableSetup], None] | None = None  # remembers it (the store)
        controller.changed.connect(self.refresh)
        controller.refused.connect(self.show_refusal)
        controller.accepted.connect(self._accepted)
        controller.shoe_changed.connect(self._shoe_changed)
        controller.hold_changed.connect(self._shoe_changed)
        controller.hold_changed.connect(self.refresh)
        controller.recall_changed.connect(self._recall_changed)
        self._prompt_sig: Any = None
        self._rulings_shown: Any = None
        self._settlement_shown: Any = None
        self._cells_settled = 0  # the settlement entries the table's wager cells show
        self._after_paint = AfterPaint(self)
        self._betting_sig: Any = None
        self._report_players: list[str] = []
        self.pin_dialog: PinDialog | None = None
        self.placement_dialog: PlacementDialog | None = None
        self.review_window: QWidget | None = None
        self.followers_dialog: FollowersDialog | None = None
        self.choice_dialog: ChoiceDialog | None = None
        self.split_wager_dialog: SplitWagerDialog | None = None
        self.keypad: AmountKeypad | None = None
        keep_size(self)  # the screen's size, never the content's (issue 24 item 1)
        if controller.rnd is not None:
            self.refresh()

    def show_on_screen(self, *, kiosk: bool) -> None:
        """Cover the screen: full screen at a station (``kiosk``), maximised in development."""
        fill_screen(self, kiosk=kiosk)

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt name)
        """A larger screen: larger type and cards (not more empty space)."""
        super().resizeEvent(event)
        if set_scale(scale_for(event.size().width(), event.size().height())):
            self._apply_style()
            self._fit_reports()
        self.table_view.reset()
        self._prompt_sig = None
        self._settlement_shown = None
        self._rulings_shown = None
        if self.controller.rnd is not None:
            QTimer.singleShot(0, self.refresh)

    def _apply_style(self) -> None:
        font = QFont(self.font())
        font.setPixelSize(base_font_px())
        self.setFont(font)
        self.setStyleSheet(app_style())

    # ------------------------------------------------------------------ reports menu
    def _reports_bar(self) -> QWidget:
        bar = QWidget()
        row = QHBoxLayout(bar)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(4)
        self.report_buttons: dict[str, QPushButton] = {}
        entries = (
            ("undo", "Undo (Z)", self.request_undo, "Z"),
            ("misplaced", "Elsewhere (M)", self.open_placement, "M"),
            ("absent", "Absent", self._report_absent, None),
            ("withdraw", "Withdraw", self._report_withdraw, None),
            ("power_failure", "Power fail", self._report_power_failure, None),
            ("face_up", "Face up", self._report_face_up, None),
            ("refer", "Refer", self._report_refer, None),
            ("void", "Void", self.request_void, None),
            ("review", "Review", self.request_review, None),
            ("setup", "Setup", self.open_setup, None),
        )
        # the report buttons' type (style.py, role "report"): each button at least as wide as
        # its words and its frame, so a long label is never cut by an equal share of the bar
        def fitted(b: QPushButton) -> QPushButton:
            b.setProperty("role", "report")
            self._fitted_reports.append(b)
            return b

        self._fitted_reports: list[QPushButton] = []

        for key, text, action, shortcut in entries:
            b = fitted(QPushButton(text))
            if shortcut:
                bind(b, shortcut, action)
            b.clicked.connect(action)
            row.addWidget(b, 1)
            self.report_buttons[key] = b
        bind(self.report_buttons["undo"], "Ctrl+Z", self.request_undo)
        self.recall_button = fitted(QPushButton("Last 10 (L)"))
        self.recall_button.setCheckable(True)
        bind(self.recall_button, "L", self.recall_button.toggle)
        self.recall_button.toggled.connect(self._toggle_recall)
        row.addWidget(self.recall_button, 1)
        self._fit_reports()
        discard = DropTarget("discard")
        discard_label = QLabel("DISCARD", discard)
        discard_label.setStyleSheet(f"font-size: {px(16)}px; font-weight: bold; border: 2px dashed #555; padding: 4px;")
        discard_layout = QVBoxLayout(discard)
        discard_layout.setContentsMargins(0, 0, 0, 0)
        discard_layout.addWidget(discard_label)
        row.addWidget(discard)
        self.discard_target = discard
        return bar

    def _fit_reports(self) -> None:
        """Each report button at least as wide as its words and frame at the current scale (its
        type is style.py's role "report"), so an equal share of the bar never cuts a label."""
        font = QFont(self.font())
        font.setPixelSize(px(15))
        font.setBold(True)
        metrics = QFontMetrics(font)
        for b in self._fitted_reports:
            # in the button's own style sheet: the window's (min-width for every button) would
            # replace a minimum set in code when the button is polished
            b.setStyleSheet(f"min-width: {max(TOUCH, metrics.horizontalAdvance(b.text()) + px(14))}px;")

    def _players_in_round(self) -> list[str]:
        c = self.controller
        output = c.output() if c.rnd is not None else {}
        names = [*c.setup.players(), *(s["player"] for s in output.get("settlements", []))]
        if c.rnd is not None:
            names += players_with_wagers(c.rnd.view())
        return list(dict.fromkeys(names))

    def _ask(self, key: str, title: str, question: str, clause: str | None, answers: list[tuple[str, str]],
             then: Callable[[str], object]) -> ChoiceDialog:
        dialog = ChoiceDialog(title, question, clause, answers, self)
        self.choice_dialog = dialog
        dialog.setObjectName(key)
        dialog.accepted.connect(lambda: dialog.answer is not None and then(dialog.answer))
        dialog.open()
        return dialog

    def _report_absent(self) -> None:
        clause = self.controller.rules.clause("absent") if self.controller.rules.has("absent") else None
        self._ask("absent", "Player absent", "Which player is not present to decide?", clause,
                  [(p, p) for p in self._players_in_round()],
                  lambda p: self.controller.submit(Absent(p)))

    def _report_withdraw(self) -> None:
        clause = self.controller.rules.clause("withdraw") if self.controller.rules.has("withdraw") else None
        self._ask("withdraw", "Withdraw", "Which player withdraws their remaining wagers?", clause,
                  [(p, p) for p in self._players_in_round()],
                  lambda p: self.controller.submit(Withdraw(p)))

    def _report_power_failure(self) -> None:
        clause = self.controller.rules.clause("power_failure")
        self._ask("power_failure", "Power failure",
                  "Record a power failure (technical interruption) in this round? Each player concerned "
                  "then chooses to withdraw or to stay.", clause,
                  [("yes", "Record the power failure")], lambda _: self._power_failure())

    def _power_failure(self) -> None:
        if self.controller.submit(PowerFailure()):
            self.controller.restored = False

    def _report_face_up(self) -> None:
        clause = self.controller.rules.clause("face_up_card")

        def reported(_: str) -> None:
            self.controller.report_face_up()
            self.show_notice(f"Face-up card in the shoe: the next card is played as if found face down ({clause}).")

        self._ask("face_up", "Face-up card", "Is the next card in the shoe face up?", clause,
                  [("yes", "Yes: record it with the next card")], reported)

    REFER_REASONS = (  # the dealer's short list (issue 34); "Other" is typed
        ("dispute", "A player disputes the round"),
        ("irregularity", "An irregularity the screen does not cover"),
        ("suspicion", "Suspected cheating or collusion"),
        ("cards", "Cards or shoe in doubt"),
        ("other", "Other (type the reason)"),
    )

    def _report_refer(self) -> None:
        clause = self.controller.rules.clause("refer")

        def refer(reason: str) -> None:
            self.controller.refer(f"the dealer referred the round to the Gaming Shift Manager ({clause}): {reason}")

        def chosen(key: str) -> None:
            if key != "other":
                refer(dict(self.REFER_REASONS)[key])
                return
            typed = TextDialog("Refer: the reason", "Why is the round referred to the shift manager?",
                               "the reason", self)
            self.refer_text_dialog = typed
            typed.accepted.connect(lambda: refer(typed.text() or "no reason given"))
            typed.open()

        self._ask("refer", "Refer to the shift manager",
                  "Refer this round to the Gaming Shift Manager: why? No card is assigned and nothing is "
                  "paid until the shift manager decides (supervisor PIN).", clause,
                  list(self.REFER_REASONS), chosen)

    def request_void(self) -> None:
        """A void needs a supervisor's PIN (5.1 / 5.2); the store writes it only with the approval."""
        rules = self.controller.rules
        reasons = [("extra, missing or foreign cards", rules.clause("void.foreign_card"))]
        if rules.has("void.cannot_reconstruct"):
            reasons.append(("dealt incorrectly, cannot be reconstructed", rules.clause("void.cannot_reconstruct")))
        reason_box = QComboBox()
        reason_box.setMinimumHeight(48)
        for text, clause in reasons:
            reason_box.addItem(f"{text} ({clause})", (text, clause))

        def detail() -> dict[str, Any]:
            text, clause = reason_box.currentData()
            return {"reason": text, "rule": clause}

        def approved(name: str, approval: int | None) -> None:
            text, clause = reason_box.currentData()
            self.controller.void(text, clause, name, approval)

        self.pin_dialog = ask_supervisor(self, self.controller, "void", "Void the round",
                                         "Supervisor PIN required to void the round", approved,
                                         extra=reason_box, detail_of=detail)
        self.pin_dialog.open()

    def request_undo(self) -> None:
        """Undo: the dealer takes back the last decision or card assignment before the next card;
        when only a supervisor may take it back (the engine says), their PIN is asked for."""
        c = self.controller
        why = c.undo_refusal()
        if not why:
            if c.undo():
                self.show_notice(c.last_undo)
            return
        beyond = c.undo_refusal(supervisor=True)
        if beyond:  # nobody may: the refusal says why
            self.show_refusal(f"nothing taken back: {beyond}")
            return

        def approved(name: str, approval: int | None) -> None:
            if c.undo(name, approval):
                self.show_notice(c.last_undo)

        self.pin_dialog = ask_supervisor(self, c, "undo", "Take back (supervisor)",
                                         f"The dealer may not take this back: {why}. "
                                         "Supervisor name and PIN to take back the last event:", approved)
        self.pin_dialog.open()

    def request_review(self) -> None:
        """The pit supervisor's review of this table's store, behind the supervisor PIN (issue 9)."""
        self._review_from_service(self.controller.review_socket)  # the service's copy of its store

    def _review_from_service(self, socket: Path) -> None:
        """The review of the station's store: the supervisor's PIN goes to the service, which
        hands over a copy (op snapshot, audited ``review``)."""
        from ui.review.app import open_review
        from ui.review.from_service import review_from_service

        def show(copy: Path, supervisor: str) -> QWidget:
            window = open_review(copy, self, supervisor=supervisor)
            self.review_window = window
            fill_screen(window)
            return window

        dialog, self.review_copy = review_from_service(socket, show, lambda: None)
        self.pin_dialog = dialog
        dialog.open()

    def _resolve(self, ruling: str) -> None:
        """The shift manager's decision on a referred round (6.1), behind a supervisor PIN."""
        c = self.controller

        def approved(name: str, approval: int | None) -> None:
            c.resolve_referral(ruling, name, approval)

        words = "continue the round" if ruling == "continue" else "void the round"
        self.pin_dialog = ask_supervisor(self, c, "resolve", "Shift manager's decision",
                                         f"The Gaming Shift Manager decides to {words} "
                                         f"({c.rules.clause('refer')}). Supervisor name and PIN:",
                                         approved, {"resolve": ruling, "rule": c.rules.clause("refer")})
        self.pin_dialog.open()

    def _correct(self, index: int, target: str) -> None:
        """A correction is written only with a supervisor's approval (issue 15 item 8)."""
        card = dict(self.controller.card_events()).get(index, "?")

        def approved(name: str, approval: int | None) -> None:
            self.controller.correct(index, target, approval)

        self.pin_dialog = ask_supervisor(self, self.controller, "correction", "Correct a card",
                                         f"Supervisor PIN to record that {card} (event {index}) lies at {target}",
                                         approved, {"index": index, "to": target})
        self.pin_dialog.open()

    def open_placement(self) -> None:
        targets = self.controller.stray_targets()  # every hand, the dealer, the discard (engine's view)
        dialog = PlacementDialog(self.controller.card_events(), targets, self.controller.rules, self)
        self.placement_dialog = dialog

        def accepted() -> None:
            index = dialog.card.currentData()
            target = str(dialog.target.currentData())
            if index is None:
                self.controller.place_next_card(target)
            else:
                self._correct(int(index), target)

        dialog.accepted.connect(accepted)
        dialog.open()

    def card_dropped(self, card: str, target: str) -> None:
        """The dealer dragged a card to where it physically lies: a correction of its event."""
        matches = [i for i, text in self.controller.card_events() if text == card]
        if not matches:
            self.show_refusal(f"{card} is not a card of this round")
            return
        self._correct(matches[-1], target)

    def open_setup(self) -> None:
        dialog = SetupDialog(self.controller.setup, self)
        self.setup_dialog = dialog

        def apply(setup: TableSetup, approval: int | None) -> None:
            if self.controller.apply_setup(setup, approval):
                self.terminals.seconds = setup.decision_seconds
                if self.setup_saved is not None:
                    self.setup_saved(setup)

        def accepted() -> None:
            setup = dialog.result_setup()
            kind = self.controller.setup_approval
            if kind is None:
                apply(setup, None)
                return
            # the station service changes the set-up only after a supervisor's PIN
            self.pin_dialog = ask_supervisor(self, self.controller, kind, "Table setup",
                                             "Supervisor PIN required to change the table's set-up",
                                             lambda _name, approval: apply(setup, approval),
                                             detail={"game": setup.game})
            self.pin_dialog.open()

        dialog.accepted.connect(accepted)
        dialog.open()

    # ------------------------------------------------------------------ actions
    def _place(self, player: str, bet: str, amount: Decimal, area: int | None) -> bool:
        return self.controller.place_wager(player, bet, amount, area)

    def _decision_amount(self) -> tuple[bool, Decimal | None]:
        text = self.decision_amount.text().strip()
        if not text:
            return True, None
        try:
            return True, Decimal(text)
        except ArithmeticError:
            self.show_refusal(f"'{text}' is not an amount")
            return False, None

    def _amount_keypad(self) -> None:
        dialog = AmountKeypad("Amount of the double or insurance (less than the full amount):", self)
        self.keypad = dialog
        dialog.accepted.connect(lambda: self.decision_amount.setText(str(dialog.amount() or "")))
        dialog.open()

    def _decide(self, action: str, area: int | None, hand: int | None, player: str | None) -> None:
        amount: Decimal | None = None
        if action in ("double", "insurance"):
            ok, amount = self._decision_amount()
            if not ok:
                return
        exp = self.controller.expectation()
        followers = exp.extra.get("followers") if exp.kind == "decision" and exp.extra else None
        if action in ("split", "double") and followers:
            rules = self.controller.rules
            concept = f"{action}.followers"  # the game's own clause (Dueling 8's: 3.26.4)
            clause = rules.clause(concept) if rules.has(concept) else ""
            dialog = FollowersDialog(action, list(followers), self, clause=clause)
            self.followers_dialog = dialog

            def accepted() -> None:
                if self.controller.decide(action, area=area, hand=hand, player=player, amount=amount,
                                          followers=dict(dialog.followers())):
                    self.decision_amount.clear()

            dialog.accepted.connect(accepted)
            dialog.open()
            return
        if self.controller.decide(action, area=area, hand=hand, player=player, amount=amount):
            self.decision_amount.clear()

    def _double_after(self) -> None:
        """Double pressed right after its card (an implied hit): that card is the double's."""
        ok, amount = self._decision_amount()
        if ok and self.controller.double_last_card(amount):
            self.decision_amount.clear()

    def _ask_hit_or_double(self) -> None:
        """After a restart: the implied hit's card, read before the stop, is on its hand; it
        stays held until the dealer says whether the player hit or doubled for it."""
        c = self.controller
        hit, card = c.implied
        if not isinstance(hit, Decision) or not isinstance(card, CardDrawn):
            return
        where = target_words(f"area:{hit.area}/{hit.hand or 1}")
        who = hit.player or "the player"
        self.prompt.clear_buttons()
        self.prompt.headline.setText(f"HELD after the restart: {card_label(str(card.card))} on {where}")
        self.prompt.detail.setText(f"It came out of the shoe before the stop. Did {who} hit or double for it? "
                                   "No other card is assigned until you answer.")
        columns = self.prompt.columns
        self.prompt.add_button("hit_held", "It was a hit", c.confirm_implied_hit, shortcut="H", role="stand",
                               span=columns)
        self.prompt.add_button("double", "It was a double", self._double_after, shortcut="D", span=columns)

    def _terminal_decide(self, action: str, player: str, hand: int) -> None:
        self.controller.decide(action, hand=hand, player=player)

    def _override_terminal(self, seat: str) -> None:
        """A Player Terminal that cannot be used (a broken screen): a supervisor's PIN (approval
        ``override``), then the service lets the dealer enter its seat's decisions this round
        (op terminal_override, audited)."""

        def approved(name: str, approval: int | None) -> None:
            self.controller.override_terminal(seat, approval)

        rule = self.controller.rules.clause("decision_time")  # Electronic's: a player decides at the terminal
        self.pin_dialog = ask_supervisor(self, self.controller, "override", f"Override {seat}'s terminal",
                                         f"{seat}'s player decides at its own terminal ({rule}). If that terminal "
                                         "cannot be used, a supervisor's name and PIN let the dealer enter its "
                                         "decisions for this round:", approved, {"seat": seat, "rule": rule})
        self.pin_dialog.open()

    def _terminal_timeout(self, player: str) -> None:
        self.controller.submit(Timeout(player))

    def _pick(self, card: str, by: str, player: str | None) -> None:
        if by != "pit_manager":
            self.controller.submit(Pick(parse_card(card), by, player))
            return

        def approved(name: str, approval: int | None) -> None:  # the pit manager's choice: an override
            self.controller.submit(Pick(parse_card(card), by), actor=f"supervisor:{name}",
                                   approval=approval)

        self.pin_dialog = ask_supervisor(self, self.controller, "override",
                                         f"Pit manager's choice ({self.controller.rules.clause('multi')})",
                                         f"Supervisor PIN: {card} goes first", approved, {"card": card})
        self.pin_dialog.open()

    def _withdraw(self, player: str | None, area: int | None) -> None:
        if player:
            self.controller.submit(Withdraw(player, area))

    def _stays(self, player: str) -> None:
        self.controller.stays(player)

    def _place_stray(self, target: str) -> None:
        self.controller.place_stray(target)

    def _release_hold(self, keyed: str | None) -> None:
        """A card the shoe could not read is keyed in with a supervisor's PIN (the other ways
        forward: re-read, void); a card that may be missing (damaged frame, gap) by the dealer."""
        c = self.controller
        if not keyed or not c.hold_unread:
            c.release_hold(keyed)
            return

        def approved(name: str, approval: int | None) -> None:
            c.release_hold(keyed, approval, name)

        self.pin_dialog = ask_supervisor(self, c, "key_card", "Key in an unread card",
                                         f"The shoe could not read the card(s): {keyed} keyed in. "
                                         "Supervisor name and PIN:", approved,
                                         {"cards": keyed, "hold": c.hold_reason})
        self.pin_dialog.open()

    def show_refusal(self, text: str, warn: bool = True) -> None:
        """A refusal (red, with its clause) until the next accepted event; ``warn=False``: a notice."""
        if not warn:
            self.show_notice(text)
            return
        self.refusal.setText(text)
        self.refusal.setVisible(bool(text))

    def show_notice(self, text: str) -> None:
        self.notice.setText(text)
        self.notice.setVisible(bool(text))

    def _accepted(self) -> None:
        """An event was accepted: the last refusal is stale."""
        self.refusal.setText("")
        self.refusal.hide()

    # ------------------------------------------------------------------ drawing
    def _game_line(self) -> str:
        c = self.controller
        rules = c.rules
        decks = c.config.get("decks", c.setup.decks)
        limits = c.config.get("limits") or c.setup.limits
        parts = [f"{rules.name.upper()}  ·  {decks} decks"]
        if not rules.shared_hand:
            parts.append(f"{c.config.get('areas', c.setup.areas)} areas")
        if limits:
            shown = []
            for bet, (low, high) in limits.items():
                shown.append(f"{SHORT_BET_NAMES.get(bet, bet)} {money(low)}–{money(high)}")
            parts.append("limits: " + ", ".join(shown))
        else:
            parts.append("no table limits set")
        return "  ·  ".join(parts)

    def _round_now(self) -> tuple[Any, dict[str, Any], Any, str] | None:
        """(the round, its settle output, what it expects, its status) as the service told them."""
        rnd = self.controller.rnd
        if rnd is None:
            return None
        output = self.controller.output()
        return rnd, output, rnd.expectation(), output["status"]

    def refresh(self) -> None:
        c = self.controller
        now = self._round_now()
        if now is None:
            return
        rnd, output, exp, status = now
        self.game_line.setText(self._game_line())
        settled = output["settlements"]
        if len(settled) > self._cells_settled and self.isVisible():
            # a card that brings a settlement is painted first, its wager cells settled one
            # paint later (as the settlement list and the Next round): the card is what the
            # dealer waits for
            self.table_view.refresh(rnd, {**output, "settlements": settled[:self._cells_settled]}, exp)
            self._after_paint.later("cells", self._settle_cells)
        else:
            self.table_view.refresh(rnd, output, exp)
            self._cells_settled = len(settled)
        electronic = bool(rnd.rules.shared_hand)
        if self.terminals.isHidden() == electronic:
            self.terminals.setVisible(electronic)
        if electronic:
            self.terminals.refresh(rnd, output, c.clocks,
                                   TerminalLinks(frozenset(c.paired), frozenset(c.linked), dict(c.overrides)))
        stray = c.stray_card
        ended = status in ("settled", "void") and self._prompt_sig is not None and self._prompt_sig[1] == "in_progress"
        if ended and self.isVisible():
            # the card that ended the round is painted first; its Next round one paint later
            # (a whole window's layout: the prompt grows by its row)
            self._after_paint.later("prompt", self.show_prompt)
        else:
            self.show_prompt()
        self.stray.show_card(stray, c.held_targets() if stray else [], c.stray_reason)
        self.prompt.setVisible(stray is None and not self.shoe_status.banner_shown())
        self.power_panel.show_players(c.power_failure_players())
        self.amount_row.setVisible(exp.kind == "decision" and not c.betting and any(
            o in ("double", "insurance") for o in [*exp.options, *(x for f in exp.offers for x in f["options"])]))
        rulings = (output.get("rulings", []), output.get("claims", []))
        if rulings != self._rulings_shown:
            self._rulings_shown = rulings
            self.ruling_panel.show_rulings(*rulings)
        settlement_sig = (output["settlements"], output["net"], status)
        if settlement_sig != self._settlement_shown:
            self._settlement_shown = settlement_sig
            self.settlement.show_output(output, defer=True)  # after the card is painted
        self._refresh_rest()

    def _settle_cells(self) -> None:
        """The wager cells with every settlement entry of the round (one paint after the card)."""
        now = self._round_now()
        if now is None:
            return
        rnd, output, exp, _ = now
        self.table_view.refresh(rnd, output, exp)
        self._cells_settled = len(output["settlements"])

    def show_prompt(self) -> None:
        """The prompt's question and buttons for the round as it is now, rebuilt only when the
        question changed (:meth:`refresh`; one paint after the card that ended the round)."""
        c = self.controller
        now = self._round_now()
        if now is None:
            return
        rnd, _, exp, status = now
        stray = c.stray_card
        double_after = self._double_after if c.can_double_last_card() else None
        split_hands = self._split_hands(rnd) if status == "in_progress" and not c.betting else []
        prompt_sig = (exp, status, len(c.slip), c.placement, c.referred, stray, double_after is not None,
                      c.implied_held, tuple((a, h) for a, h, _ in split_hands))
        if prompt_sig != self._prompt_sig:  # rebuild the buttons only when the question changed
            self._prompt_sig = prompt_sig
            if c.implied_held:
                self._ask_hit_or_double()
            elif c.referred:
                self.prompt.clear_buttons()
                self.prompt.headline.setText(f"Referred to the Gaming Shift Manager ({c.rules.clause('refer')})")
                self.prompt.detail.setText(c.referred + ". No card is assigned until the shift manager decides.")
                self.prompt.add_button("resolve_continue", "Shift manager: continue", lambda: self._resolve("continue"))
                self.prompt.add_button("resolve_void", "Shift manager: void", lambda: self._resolve("void"),
                                       role="danger")
            else:
                self.prompt.show_expectation(
                    exp, status, decide=self._decide, no_more_bets=c.no_more_bets,
                    close_offers=lambda: c.submit(CloseOffers()), confirm=c.confirm_settlement,
                    resolve=self._resolve, withdraw=self._withdraw, slip_size=len(c.slip), placement=c.placement,
                    pick=self._pick, double_after=double_after, unseen_pick=self._unseen_pick(exp),
                )
                if split_hands:
                    self.prompt.add_button("split_wager", "Side bet on a split hand\u2026",
                                           lambda: self.open_split_wager(split_hands), span=self.prompt.columns)

    def _refresh_rest(self) -> None:
        c = self.controller
        rnd = c.rnd
        assert rnd is not None
        electronic = bool(rnd.rules.shared_hand)
        if self._pages_wanted():
            if self.pages.isHidden():  # revealed with the table, after the card is painted
                self._after_paint.later("pages", lambda: self.pages.setVisible(self._pages_wanted()))
        elif not self.pages.isHidden():
            self.pages.hide()
        if self.betting.isHidden() == c.betting:
            self.betting.setVisible(c.betting)
            if c.betting:  # a new round: no card is due; collect garbage once it is painted
                self._after_paint.later("collect", collect_now)
            else:  # the round began: its wagers are what "Repeat" places next round
                self.betting.remember_round(c.events)
        if c.betting:
            bets = ["main", *rnd.rules.side_bets]
            betting_sig = (tuple(c.setup.players()), tuple(bets), c.setup.areas, electronic,
                           tuple(c.setup.chips), tuple(c.setup.seated.items()))
            if betting_sig != self._betting_sig:
                self._betting_sig = betting_sig
                self.betting.configure(c.setup.players(), bets, c.setup.areas, electronic,
                                       chips=c.setup.chips, seated=c.setup.seated,
                                       claim_clause=c.rules.clause("claim") if c.rules.has("claim") else "")
            self.betting.show_slip(c.slip)
        if c.restored:
            clause = rnd.rules.clause("power_failure")
            self.banner.setText(
                f"Restored after a restart: the open round is back as it was. "
                f"Record the power failure ({clause}) to give the players their options."
            )
            self.banner.show()
        else:
            self.banner.hide()
        if c.last_refusal == "" and self.refusal.isVisible() and self.refusal.text().startswith("Refused"):
            self._accepted()
        self._shoe_changed()

    def _split_hands(self, rnd: Any) -> list[tuple[int, int, list[str]]]:
        """(area, hand, players on it) of every split hand, when the game has a side bet that
        may be placed on one (its spec says so; the engine rules on each wager)."""
        if rnd.rules.shared_hand or not any(s.split_hand for s in rnd.rules.specs):
            return []
        out: list[tuple[int, int, list[str]]] = []
        for area in rnd.view().areas:
            if len(area.hands) > 1:
                players = [w.player for w in area.wagers]
                out += [(area.number, h.number, players) for h in area.hands]
        return out

    def open_split_wager(self, hands: list[tuple[int, int, list[str]]]) -> None:
        rules = self.controller.rules
        specs = [s for s in rules.specs if s.split_hand]
        clause = ", ".join(rules.clause(s.split_concept) for s in specs if s.split_concept)
        dialog = SplitWagerDialog(hands, [(s.key, s.name) for s in specs], list(self.controller.setup.chips),
                                  clause, self)
        self.split_wager_dialog = dialog

        def accepted() -> None:
            if dialog.hand is not None and dialog.player is not None and dialog.bet is not None:
                area, hand = dialog.hand
                self.controller.place_wager(dialog.player, dialog.bet, dialog.amount, area, hand)

        dialog.accepted.connect(accepted)
        dialog.open()

    def _unseen_pick(self, exp: Any) -> bool:
        """A 5.23 choice among cards nobody has seen (the engine says so): faces not shown."""
        rnd = self.controller.rnd
        return exp.kind == "decision" and "pick" in exp.options and rnd is not None and rnd.view().pick_unseen

    def _pages_wanted(self) -> bool:
        c = self.controller
        return bool(self.settlement.rows) or c.concluded or self.recall_button.isChecked()

    def _shoe_changed(self) -> None:
        c = self.controller
        remaining = c.rnd.shoe.remaining if c.rnd is not None else None
        # 5.19 (5.16 in Dueling 8's): the engine says when the shoe will not finish the round.
        notices = [text for _, text in c.rnd.shoe_notices] if c.rnd is not None else []
        self.shoe_status.show_info(c.shoe, remaining, notices)
        self.shoe_status.show_hold(c.hold_text, c.queued, c.hold_unread, actions=bool(c.hold_reason))
        self.prompt.setVisible(c.stray_card is None and not self.shoe_status.banner_shown())

    def _toggle_recall(self, on: bool) -> None:
        self.pages.setCurrentIndex(1 if on else 0)
        self.pages.setVisible(on or bool(self.settlement.rows) or self.controller.concluded)
        self._recall_changed()

    def _recall_changed(self) -> None:
        self.recall_list.clear()
        for entry in self.controller.recall:
            net = ", ".join(f"{p} {signed(v)}" for p, v in entry.get("net", {}).items())
            self.recall_list.addItem(f"Round {entry.get('round')}: {entry.get('status')}  {net}")

    def _show_recalled(self, row: int) -> None:
        if 0 <= row < len(self.controller.recall):
            entry = self.controller.recall[row]
            self.recall_view.show_output(entry, heading=f"Round {entry.get('round')} (recall)")

    def closeEvent(self, event: Any) -> None:  # noqa: N802 (Qt name)
        super().closeEvent(event)

