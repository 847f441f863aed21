"""The dealer's window: layout, prompt, settlement, rulings, shoe status, betting, reports.

A view of the controller's round; every action becomes a transcript event sent through
the controller, and every refusal is shown with its clause.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QMainWindow,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from dealer_assist.irregularities import shoe_notices
from dealer_assist.store import StoreError
from ui.betting import BettingPanel
from ui.cards import DropTarget
from ui.controller import TableController, TableSetup
from ui.login import PinDialog, ask_supervisor
from ui.prompt import PromptPanel, target_words
from ui.ruling_panel import RulingPanel
from ui.settlement_panel import SettlementPanel
from ui.setup_dialog import SetupDialog
from ui.shoe_status import ShoeStatus
from ui.style import APP_STYLE, signed
from ui.table_view import TableView
from ui.terminals_panel import TerminalsPanel


class PlacementDialog(QDialog):
    """Where a card physically lies: the next card (``to``) or an earlier one (correction)."""

    def __init__(self, cards: list[tuple[int, str]], targets: list[str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Card placed elsewhere")
        layout = QFormLayout(self)
        self.card = QComboBox()
        self.card.addItem("the next card out of the shoe", None)
        for index, text in reversed(cards):
            self.card.addItem(f"{text} (event {index})", index)
        self.target = QComboBox()
        for t in targets:
            self.target.addItem(target_words(t), t)
        layout.addRow("Card", self.card)
        layout.addRow("Lies at", self.target)
        ok = QPushButton("Record")
        ok.setProperty("role", "confirm")
        ok.clicked.connect(self.accept)
        layout.addRow(ok)


class FollowersDialog(QDialog):
    """The other players on a hand the controller splits (match or stay, 3.24) or doubles
    (how much each adds, up to their own wager, 3.26.5)."""

    def __init__(self, action: str, followers: list[dict[str, Any]], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Other players on the hand")
        layout = QFormLayout(self)
        self.choices: dict[str, QComboBox] = {}
        for f in followers:
            box = QComboBox()
            box.setStyleSheet("font-size: 20px; min-height: 40px;")
            if action == "split":
                box.addItem("keep the wager on the first hand", "stay")
                box.addItem(f"match {f['wager']} on the new hand", "match")
            else:
                box.setEditable(True)
                box.addItem("no double", "")
                box.addItem(f"double {f['wager']}", str(f["wager"]))
            self.choices[str(f["player"])] = box
            layout.addRow(str(f["player"]), box)
        ok = QPushButton("Split" if action == "split" else "Double")
        ok.setProperty("role", "confirm")
        ok.clicked.connect(self.accept)
        layout.addRow(ok)

    def followers(self) -> dict[str, str | Decimal]:
        out: dict[str, str | Decimal] = {}
        for player, box in self.choices.items():
            text = box.currentText().strip()
            index = box.findText(text)
            value = box.itemData(index) if index >= 0 else text  # a choice, or an amount typed in
            if value in ("", None):
                continue
            if value in ("match", "stay"):
                out[player] = str(value)
            else:
                try:
                    out[player] = Decimal(str(value))
                except ArithmeticError:
                    continue
        return out


class DealerWindow(QMainWindow):
    def __init__(self, controller: TableController, *, sim_panel: QWidget | None = None) -> None:
        super().__init__()
        self.controller = controller
        self.setWindowTitle("Dealer Assist")
        self.setStyleSheet(APP_STYLE)
        central = QWidget()
        self.setCentralWidget(central)
        outer = QVBoxLayout(central)
        outer.setContentsMargins(6, 6, 6, 6)

        self.shoe_status = ShoeStatus(self._release_hold)
        outer.addWidget(self.shoe_status)
        self.banner = QLabel("")
        self.banner.setWordWrap(True)
        self.banner.setStyleSheet("font-size: 22px; font-weight: bold; background: #ffe082; padding: 6px;")
        self.banner.hide()
        outer.addWidget(self.banner)

        middle = QHBoxLayout()
        outer.addLayout(middle, 1)
        left = QVBoxLayout()
        middle.addLayout(left, 3)
        self.table_view = TableView()
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.table_view)
        left.addWidget(scroll, 3)
        self.terminals = TerminalsPanel(self._terminal_decide, self._terminal_timeout,
                                        controller.setup.decision_seconds)
        left.addWidget(self.terminals, 2)

        right = QVBoxLayout()
        middle.addLayout(right, 2)
        self.refusal = QLabel("")
        self.refusal.setProperty("role", "refusal")
        self.refusal.setWordWrap(True)
        self.refusal.setFixedHeight(60)
        right.addWidget(self.refusal)
        self.prompt = PromptPanel()
        right.addWidget(self.prompt)
        self.ruling_panel = RulingPanel()
        right.addWidget(self.ruling_panel)
        self.settlement = SettlementPanel()
        right.addWidget(self.settlement, 1)
        recall_row = QHBoxLayout()
        self.recall_button = QPushButton("Last 10 rounds [L]")
        self.recall_button.setShortcut(QKeySequence("L"))
        self.recall_button.setCheckable(True)
        self.recall_button.toggled.connect(self._toggle_recall)
        recall_row.addWidget(self.recall_button)
        right.addLayout(recall_row)
        self.recall_list = QListWidget()
        self.recall_list.setMaximumHeight(160)
        self.recall_list.currentRowChanged.connect(self._show_recalled)
        self.recall_view = SettlementPanel()
        right.addWidget(self.recall_list)
        right.addWidget(self.recall_view)
        self.recall_list.hide()
        self.recall_view.hide()

        self.betting = BettingPanel(self._place, controller.remove_wager, controller.change_wager,
                                    controller.claim)
        outer.addWidget(self.betting)
        outer.addWidget(self._reports_bar())
        if sim_panel is not None:
            outer.addWidget(sim_panel)
        self.sim_panel = sim_panel
        from ui.about import add_about_action  # Help > About: version, licence, games

        self.about_action = add_about_action(self)

        DropTarget.dropped = self.card_dropped
        self.setup_dialog: SetupDialog | None = None
        self.setup_saved: Callable[[TableSetup], None] | None = None  # remembers it (the store)
        controller.changed.connect(self.refresh)
        controller.refused.connect(self.show_refusal)
        controller.shoe_changed.connect(self._shoe_changed)
        controller.hold_changed.connect(self._shoe_changed)
        controller.recall_changed.connect(self._recall_changed)
        self._prompt_sig: Any = None
        self._rulings_shown: Any = None
        self._settlement_shown: Any = None
        self._betting_sig: Any = None
        self._report_players: list[str] = []
        self.pin_dialog: PinDialog | None = None
        self.placement_dialog: PlacementDialog | None = None
        self.review_window: QWidget | None = None
        self.followers_dialog: FollowersDialog | None = None
        if controller.rnd is not None:
            self.refresh()

    # ------------------------------------------------------------------ reports menu
    def _reports_bar(self) -> QWidget:
        bar = QWidget()
        rows = QVBoxLayout(bar)
        rows.setContentsMargins(0, 0, 0, 0)
        row = QHBoxLayout()
        second = QHBoxLayout()
        rows.addLayout(row)
        rows.addLayout(second)
        row.addWidget(QLabel("Report:"))
        self.report_buttons: dict[str, QPushButton] = {}
        entries = (
            ("misplaced", "Card elsewhere\u2026 [M]", self.open_placement, "M"),
            ("absent", "Player absent", self._report_absent, None),
            ("withdraw", "Withdraw", self._report_withdraw, None),
            ("power_failure", "Power failure", self._report_power_failure, None),
            ("face_up", "Face-up card", self._report_face_up, None),
            ("refer", "Refer to shift manager", self._report_refer, None),
            ("void", "Void (supervisor)", self.request_void, None),
            ("review", "Review (supervisor)", self.request_review, None),
            ("setup", "Table setup…", self.open_setup, None),
        )
        for key, text, action, shortcut in entries:
            b = QPushButton(text)
            b.setStyleSheet("font-size: 17px; min-height: 36px; padding: 4px 8px;")
            if shortcut:
                b.setShortcut(QKeySequence(shortcut))
            b.clicked.connect(action)
            row.addWidget(b)
            self.report_buttons[key] = b
        discard = DropTarget("discard")
        discard_label = QLabel("DISCARD ← drop a card here", discard)
        discard_label.setStyleSheet("font-size: 17px; font-weight: bold; border: 2px dashed #555; padding: 6px;")
        QVBoxLayout(discard).addWidget(discard_label)
        row.addStretch(1)
        second.addWidget(QLabel("Player (absent / withdraw):"))
        self.report_player = QComboBox()
        self.report_player.setEditable(True)
        self.report_player.setMinimumWidth(160)
        second.addWidget(self.report_player)
        second.addSpacing(20)
        second.addWidget(QLabel("Amount (double / insurance; blank = the full amount):"))
        self.decision_amount = QLineEdit()
        self.decision_amount.setMaximumWidth(110)
        self.decision_amount.setStyleSheet("font-size: 18px;")
        second.addWidget(self.decision_amount)
        second.addSpacing(30)
        second.addWidget(discard)
        self.discard_target = discard
        second.addStretch(1)
        return bar

    def _selected_player(self) -> str | None:
        text = self.report_player.currentText().strip()
        return text or None

    def _report_absent(self) -> None:
        player = self._selected_player()
        if player:
            self.controller.report("absent", player=player)

    def _report_withdraw(self) -> None:
        player = self._selected_player()
        if player:
            self.controller.report("withdraw", player=player)

    def _report_power_failure(self) -> None:
        if self.controller.report("power_failure"):
            self.controller.restored = False

    def _report_face_up(self) -> None:
        clause = self.controller.rules.clause("face_up_card")
        self.controller.face_up_next = True  # the next card out of the shoe carries it (5.5)
        self.show_refusal(f"Face-up card in the shoe: the next card is played as if found face down ({clause})",
                          warn=False)

    def _report_refer(self) -> None:
        clause = self.controller.rules.clause("refer")
        self.show_refusal(f"Referred to the Gaming Shift Manager ({clause}): wait for the decision", warn=False)
        self.controller.audit("referral", {"rule": clause, "reported_by": "dealer"},
                              actor=f"dealer:{self.controller.dealer}")

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

    def request_review(self) -> None:
        """The pit supervisor's review of this table's store, behind the supervisor PIN (issue 9)."""
        store = self.controller.store
        if store is None:
            self.show_refusal("no store is open to review")
            return

        def approved(name: str, approval: int | None) -> None:
            from ui.review_app import open_review  # the review loads only when asked for

            try:
                self.review_window = open_review(store.path, self, supervisor=name)
            except StoreError as exc:
                self.show_refusal(f"the review cannot open the store: {exc}")
                return
            self.review_window.show()

        self.pin_dialog = ask_supervisor(self, self.controller, "review", "Review rounds",
                                         "Supervisor PIN required to open the review", approved)
        self.pin_dialog.open()

    def _resolve(self, ruling: str) -> None:
        def approved(name: str, approval: int | None) -> None:
            self.controller.submit({"type": "resolve", "ruling": ruling, "text": f"Shift manager {name}: {ruling}"},
                                   actor=f"supervisor:{name}", approval=approval)

        self.pin_dialog = ask_supervisor(self, self.controller, "resolve", "Shift manager's decision",
                                         f"Supervisor PIN to record: {ruling}", approved, {"resolve": ruling})
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
        rnd = self.controller.rnd
        targets: list[str] = ["dealer", "discard"]
        if rnd.rules.shared_hand:
            targets = ["player", "dealer", "discard"]
        else:
            for number in range(1, rnd.config.areas + 1):
                area = rnd.areas.get(number)
                hands = len(area.hands) if area is not None and area.hands else 1
                targets.extend(f"area:{number}/{h}" for h in range(1, hands + 1))
        dialog = PlacementDialog(self.controller.card_events(), targets, self)
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

        def accepted() -> None:
            setup = dialog.result_setup()
            if self.controller.apply_setup(setup):
                self.terminals.seconds = setup.decision_seconds
                if self.setup_saved is not None:
                    self.setup_saved(setup)

        dialog.accepted.connect(accepted)
        dialog.open()

    # ------------------------------------------------------------------ actions
    def _place(self, player: str, bet: str, amount: Decimal, area: int | None) -> bool:
        return self.controller.place_wager(player, bet, amount, area)

    def _decide(self, action: str, area: int | None, hand: int | None, player: str | None) -> None:
        amount: Decimal | None = None
        if action in ("double", "insurance") and self.decision_amount.text().strip():
            try:
                amount = Decimal(self.decision_amount.text().strip())
            except ArithmeticError:
                self.show_refusal(f"'{self.decision_amount.text()}' is not an amount")
                return
        exp = self.controller.expectation()
        followers = exp.extra.get("followers") if exp.kind == "decision" and exp.extra else None
        if action in ("split", "double") and followers:
            dialog = FollowersDialog(action, list(followers), self)
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

    def _terminal_decide(self, action: str, player: str, hand: int) -> None:
        self.controller.decide(action, hand=hand, player=player)

    def _terminal_timeout(self, player: str) -> None:
        self.controller.report("timeout", player=player)

    def _pick(self, card: str, by: str, player: str | None) -> None:
        if by != "pit_manager":
            self.controller.report("pick", card=card, by=by, player=player)
            return

        def approved(name: str, approval: int | None) -> None:  # the pit manager's choice: an override
            self.controller.submit({"type": "pick", "card": card, "by": by}, actor=f"supervisor:{name}",
                                   approval=approval)

        self.pin_dialog = ask_supervisor(self, self.controller, "override", "Pit manager's choice (5.23)",
                                         f"Supervisor PIN: {card} goes first", approved, {"card": card})
        self.pin_dialog.open()

    def _withdraw(self, player: str | None, area: int | None) -> None:
        if player:
            self.controller.report("withdraw", player=player, area=area)

    def _release_hold(self, keyed: str | None) -> None:
        self.controller.release_hold(keyed)

    def show_refusal(self, text: str, warn: bool = True) -> None:
        self.refusal.setStyleSheet("" if warn else "color: #0d47a1;")
        self.refusal.setText(text)

    # ------------------------------------------------------------------ drawing
    def refresh(self) -> None:
        c = self.controller
        rnd = c.rnd
        if rnd is None:
            return
        output = c.output()
        exp = rnd.expectation()
        status = output["status"]
        self.table_view.refresh(rnd, output, exp)
        electronic = bool(rnd.rules.shared_hand)
        if self.terminals.isHidden() == electronic:
            self.terminals.setVisible(electronic)
        if electronic:
            self.terminals.refresh(rnd)
        prompt_sig = (exp, status, len(c.slip), c.placement)
        if prompt_sig != self._prompt_sig:  # rebuild the buttons only when the question changed
            self._prompt_sig = prompt_sig
            self.prompt.show_expectation(
                exp, status, decide=self._decide, no_more_bets=c.no_more_bets,
                close_offers=lambda: c.report("close_offers"), confirm=c.confirm_settlement,
                resolve=self._resolve, withdraw=self._withdraw, slip_size=len(c.slip), placement=c.placement,
                pick=self._pick,
            )
        rulings = (output.get("rulings", []), output.get("claims", []))
        if rulings != self._rulings_shown:
            self._rulings_shown = rulings
            self.ruling_panel.show_rulings(*rulings)
        settlement_sig = (output["settlements"], output["net"], status)
        if settlement_sig != self._settlement_shown:
            self._settlement_shown = settlement_sig
            self.settlement.show_output(output)
        if self.betting.isHidden() == c.betting:
            self.betting.setVisible(c.betting)
        if c.betting:
            bets = ["main", *rnd.rules.side_bets]
            betting_sig = (tuple(c.setup.players()), tuple(bets), c.setup.areas, electronic)
            if betting_sig != self._betting_sig:
                self._betting_sig = betting_sig
                self.betting.configure(c.setup.players(), bets, c.setup.areas, electronic)
            self.betting.show_slip(c.slip)
        players = sorted({*c.setup.players(), *(s["player"] for s in output.get("settlements", []))})
        if players != self._report_players:
            self._report_players = players
            current = self.report_player.currentText()
            self.report_player.clear()
            self.report_player.addItems(players)
            self.report_player.setCurrentText(current)
        if c.restored:
            clause = rnd.rules.clause("power_failure")
            self.banner.setText(
                f"Restored after a restart: the open round is back as it was. "
                f"Record the power failure ({clause}) to give the players their options."
            )
            self.banner.show()
        else:
            self.banner.hide()
        if c.last_refusal == "" and self.refusal.text().startswith("Refused"):
            self.refusal.setText("")
        self._shoe_changed()

    def _shoe_changed(self) -> None:
        c = self.controller
        remaining = c.rnd.shoe.remaining if c.rnd is not None else None
        # 5.19 (5.16 in Dueling 8's): the engine says when the shoe will not finish the round.
        notices = [text for _, text in shoe_notices(c.rnd)] if c.rnd is not None else []
        cut = c.rules.clause("cut_card") if c.rnd is not None and c.rules.has("cut_card") else None
        self.shoe_status.show_info(c.shoe, remaining, notices, cut)
        self.shoe_status.show_hold(c.hold_text, len(c.held_cards), c.hold_unread, actions=bool(c.hold_reason))

    def _toggle_recall(self, on: bool) -> None:
        self.recall_list.setVisible(on)
        self.recall_view.setVisible(on)
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

