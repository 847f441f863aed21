"""Table setup: game (all five), decks, areas, limits per bet kind, who sits where.

Remembered between sessions in the table's own store, as an audited ``table_setup``
entry (who changed the limits is part of the table's history); QSettings keeps only the
window's state. The ranges come from the engine's game data (2.1 decks, Appendix A areas).
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QComboBox,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QSpinBox,
    QStyle,
    QStyleOptionComboBox,
    QVBoxLayout,
    QWidget,
)

from dealer_assist.engine.table_setup import (
    DECISION_SECONDS,
    SetupError,
    TableSetup,
    exact_limits,
    limits_clause,
    setup_problem,
)
from dealer_assist.games import GAMES
from ui.common.dialog_keys import enter_submits
from ui.common.screen_fit import ScreenDialog, fit_to_screen
from ui.common.table_view import BET_NAMES
from ui.common.touch_spin import TouchSpin


class SetupDialog(ScreenDialog):
    def __init__(self, setup: TableSetup, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Table setup")
        layout = QVBoxLayout(self)
        # three columns (the table, who sits where, the limits): the dialog fits a 768 px
        # screen with seven areas and four bet kinds (issue 34)
        columns = QHBoxLayout()
        form = QFormLayout()
        self.game = QComboBox()
        for key, rules in GAMES.items():
            self.game.addItem(rules.name, key)
        self.game.setCurrentIndex(list(GAMES).index(setup.game))
        self.decks = QSpinBox()
        self.areas = QSpinBox()
        # who sits where: one name field per area (the controlling player), no "player=area" text
        self.seats: dict[int, QLineEdit] = {}
        seat_form = QFormLayout()
        most_areas = max(rules.area_range[1] for rules in GAMES.values())
        for area in range(1, most_areas + 1):
            field = QLineEdit(", ".join(p for p, a in setup.seated.items() if a == area))
            field.setPlaceholderText("nobody")
            seat_form.addRow(f"Area {area}", field)
            self.seats[area] = field
        self.terminals = QLineEdit(", ".join(setup.terminals))
        self.seconds = QSpinBox()
        self.seconds.setRange(*DECISION_SECONDS)  # as the service takes it
        self.seconds.setValue(setup.decision_seconds)
        self.chips = QLineEdit(", ".join(str(c) for c in setup.chips))
        self.chips.setPlaceholderText("5, 25, 100, 500, 1000")
        self.limits: dict[str, tuple[QLineEdit, QLineEdit]] = {}
        self._limit_form = QFormLayout()
        form.addRow("Game", self.game)
        self.spins = [TouchSpin(self.decks), TouchSpin(self.areas), TouchSpin(self.seconds)]
        form.addRow("Decks", self.spins[0])
        form.addRow("Playing areas", self.spins[1])
        form.addRow("Terminals", self.terminals)
        # the clause of the game whose players decide at terminals (Electronic's numbering)
        timed = next((r.clause("decision_time") for r in GAMES.values() if r.has("decision_time")), "")
        form.addRow(f"Terminal decision\ntime, s ({timed})", self.spins[2])
        form.addRow("Chips (F1-F8)", self.chips)
        columns.addLayout(form, 1)
        seating = QVBoxLayout()
        seating.addWidget(QLabel("Seated player of each area"))
        seating.addLayout(seat_form)
        seating.addStretch(1)
        columns.addLayout(seating, 1)
        limits = QVBoxLayout()
        limits.addWidget(QLabel("Limits per bet (min / max, blank = none)"))
        self._limit_host = QWidget()
        self._limit_host.setLayout(self._limit_form)
        limits.addWidget(self._limit_host)
        limits.addStretch(1)
        columns.addLayout(limits, 1)
        layout.addLayout(columns)
        self.problem = QLabel("")  # what the engine refuses in the setup, named (issue 24 item 6)
        self.problem.setProperty("role", "refusal")
        self.problem.setWordWrap(True)
        self.problem.hide()
        layout.addWidget(self.problem)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self._initial = setup
        self.areas.valueChanged.connect(self._areas_changed)
        self.game.currentIndexChanged.connect(self._game_changed)
        self._game_changed()
        self.decks.setValue(setup.decks)
        self.areas.setValue(setup.areas)
        ok = buttons.button(QDialogButtonBox.StandardButton.Ok)
        enter_submits(self, ok)  # Enter: OK (checked below), never Cancel

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 (Qt's name)
        """Fitted to the screen; the game's list box never narrower than its longest name at this
        screen's type (issue 34: "Star Elements Blackjack" was cut under its arrow at 1920×1080),
        the dialog fitted again if it had to widen."""
        super().showEvent(event)
        option = QStyleOptionComboBox()
        self.game.initStyleOption(option)
        field = self.game.style().subControlRect(QStyle.ComplexControl.CC_ComboBox, option,
                                                 QStyle.SubControl.SC_ComboBoxEditField, self.game).width()
        longest = max(self.game.fontMetrics().horizontalAdvance(self.game.itemText(i))
                      for i in range(self.game.count()))
        least = self.game.width() - field + longest + 4
        if self.game.minimumWidth() < least:
            self.game.setMinimumWidth(least)
            fit_to_screen(self)

    def accept(self) -> None:
        """OK only with a setup the engine opens a round with; else the reason, in the dialog."""
        problem = self.limits_problem() or setup_problem(self.result_setup())
        if problem is not None:
            self.problem.setText(f"This setup cannot be used: {problem}. Change it, or Cancel.")
            self.problem.show()
            return
        super().accept()

    def _game_changed(self) -> None:
        rules = GAMES[str(self.game.currentData())]
        self.decks.setRange(*rules.deck_range)
        self.areas.setRange(*rules.area_range)
        self.areas.setEnabled(not rules.shared_hand)
        self.seconds.setEnabled(rules.shared_hand)  # the terminals' decision time (3.17 of Electronic)
        for spin in self.spins:
            spin.sync()  # the new ranges' ends
        self._areas_changed()
        while self._limit_form.rowCount():
            self._limit_form.removeRow(0)
        self.limits = {}
        for kind in ("main", *rules.side_bets):
            low, high = QLineEdit(), QLineEdit()
            old = self._initial.limits.get(kind)
            if old:
                low.setText(str(old[0]))
                high.setText(str(old[1]))
            row = QWidget()
            from PySide6.QtWidgets import QHBoxLayout

            h = QHBoxLayout(row)
            h.setContentsMargins(0, 0, 0, 0)
            h.addWidget(low)
            h.addWidget(high)
            self._limit_form.addRow(BET_NAMES.get(kind, kind), row)
            self.limits[kind] = (low, high)

    def _areas_changed(self) -> None:
        shared = GAMES[str(self.game.currentData())].shared_hand
        for area, field in self.seats.items():
            field.setEnabled(not shared and area <= self.areas.value())
        self.terminals.setEnabled(shared)

    def entered_limits(self) -> dict[str, list[Decimal]]:
        """The limits as typed, exact (SetupError naming 3.6 / Electronic 2.2 for a value that
        is not an amount in whole cents, or a min without its max)."""
        game = str(self.game.currentData())
        clause = limits_clause(game)
        raw: dict[str, list[Decimal]] = {}
        for kind, (low, high) in self.limits.items():
            texts = [low.text().strip(), high.text().strip()]
            if not any(texts):
                continue
            name = BET_NAMES.get(kind, kind)
            if not all(texts):
                raise SetupError(f"limits: {name} needs both its minimum and its maximum ({clause})", clause)
            try:
                raw[kind] = [Decimal(t) for t in texts]
            except InvalidOperation:
                raise SetupError(f"limits: {name}: {' / '.join(texts)} is not an amount ({clause})", clause) \
                    from None
        return exact_limits(raw, game)

    def limits_problem(self) -> str | None:
        try:
            self.entered_limits()
        except SetupError as exc:
            return exc.message
        return None

    def result_setup(self) -> TableSetup:
        """The setup as entered (invalid entries are left out, and the engine refuses bad limits)."""
        seated: dict[str, int] = {}
        for area, field in self.seats.items():
            if field.isEnabled():
                for name in field.text().split(","):
                    if name.strip():
                        seated[name.strip()] = area
        try:
            limits = self.entered_limits()
        except SetupError:
            limits = {}  # accept() names the problem and keeps the dialog open
        return TableSetup(
            game=str(self.game.currentData()), decks=self.decks.value(), areas=self.areas.value(),
            limits=limits, seated=seated,
            terminals=[t.strip() for t in self.terminals.text().split(",") if t.strip()],
            decision_seconds=self.seconds.value(),
            chips=[int(c) for c in self.chips.text().replace(",", " ").split() if c.isdigit()],
        )
