"""Shoe status, always visible: connected or lost, model, cards remaining, cut card, last event,
warnings (also that the shoe's checksum is the weaker one, da1-xor); and the hold banner
when a card may have been missed (checksum error, sequence gap, unreadable card, a double
feed with unread cards): no card is assigned until the dealer confirms or keys the missed
card(s) in."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QPushButton, QVBoxLayout, QWidget

from ui.dealer.controller import ShoeInfo


class ShoeStatus(QWidget):
    def __init__(self, release: Callable[[str | None], None], parent: QWidget | None = None, *,
                 reread: Callable[[], object] | None = None, void: Callable[[], object] | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 2, 4, 2)
        self.line = QLabel("Shoe: not connected")
        self.line.setProperty("role", "header")
        layout.addWidget(self.line)
        self.hold_box = QWidget()
        hold = QHBoxLayout(self.hold_box)
        self.hold_text = QLabel("")
        self.hold_text.setStyleSheet("font-size: 22px; font-weight: bold; color: white; background: #b00020; padding: 6px;")
        self.hold_text.setWordWrap(True)
        hold.addWidget(self.hold_text, 1)
        self.key_in = QLineEdit()
        self.key_in.setPlaceholderText("missed card, e.g. 10H")
        self.key_in.setMaximumWidth(220)
        hold.addWidget(self.key_in)
        self.key_button = QPushButton("Key in card")
        self.key_button.clicked.connect(lambda: release(self.key_in.text() or None))
        hold.addWidget(self.key_button)
        self.confirm_button = QPushButton("No card missed")
        self.confirm_button.setProperty("role", "confirm")
        self.confirm_button.clicked.connect(lambda: release(None))
        hold.addWidget(self.confirm_button)
        # an unread card's other ways forward: through the reader again, or a supervisor's void (5.1)
        self.reread_button = QPushButton("Re-read")
        self.reread_button.clicked.connect(lambda: reread() if reread is not None else None)
        hold.addWidget(self.reread_button)
        self.void_button = QPushButton("Void")
        self.void_button.clicked.connect(lambda: void() if void is not None else None)
        hold.addWidget(self.void_button)
        layout.addWidget(self.hold_box)
        self.hold_box.hide()
        # lost / jammed / faulted: a full-width banner saying what to do (it replaces the prompt)
        self.state_box = QWidget()
        state = QHBoxLayout(self.state_box)
        state.setContentsMargins(0, 0, 0, 0)
        self.state_text = QLabel("")
        self.state_text.setStyleSheet("font-size: 22px; font-weight: bold; color: white; background: #b00020; padding: 6px;")
        self.state_text.setWordWrap(True)
        state.addWidget(self.state_text, 1)
        self.fault_button = QPushButton("Fault cleared")
        self.fault_button.setProperty("role", "confirm")
        self.fault_button.clicked.connect(self._fault_cleared)
        state.addWidget(self.fault_button)
        layout.addWidget(self.state_box)
        self.state_box.hide()
        self._info: ShoeInfo | None = None
        self.faults_cleared = 0  # the service's fault count when the dealer last said "Fault cleared"

    def banner_shown(self) -> bool:
        return not self.hold_box.isHidden() or not self.state_box.isHidden()

    def _fault_cleared(self) -> None:
        if self._info is not None:
            self.faults_cleared = self._info.faults  # until the shoe reports another fault
            self.state_box.hide()

    def show_state(self, info: ShoeInfo) -> None:
        """The shoe lost or faulted: what happened and what to do, full width."""
        self._info = info
        if not info.connected and info.ever_connected:
            why = f" ({info.reason})" if info.reason else ""
            text = (f"SHOE LOST{why}: no card is read. Do not deal: check the shoe's cable and power; "
                    "play goes on when the shoe is back.")
            self.fault_button.hide()
        elif info.fault and info.faults > self.faults_cleared:
            text = (f"SHOE FAULT: {info.fault}. Stop dealing, clear the shoe (a jammed card: take it out "
                    "and check it), then press Fault cleared.")
            self.fault_button.show()
        else:
            self.state_box.hide()
            return
        self.state_text.setText(text)
        self.state_box.show()

    def show_info(self, info: ShoeInfo, remaining: int | None, notices: list[str] | None = None) -> None:
        """The status line; ``notices``: the engine's sentences about the shoe (5.19; the cutting
        card out, 5.20), with the game's clauses."""
        state = "OK" if info.connected else "LOST"
        colour = "#1b5e20" if info.connected else "#b00020"
        parts = [f"<span style='color:{colour}'>Shoe {state}</span>"]
        if info.weak_checksum:
            # spec/shoe-protocol.md: the screen says that this shoe's checksum is the weaker one
            parts.append(f"<span style='color:#b00020'>\u26a0 weak checksum ({info.codec}): "
                         "a damaged card frame may read as another card</span>")
        if info.connected and not info.guaranteed:
            # spec/shoe-protocol.md: a format with no sequence numbers, no checksum and no
            # heartbeat; the dealer screen must say that this shoe gives no such guarantee
            parts.append(f"<span style='color:#b00020'>\u26a0 this shoe's format ({info.codec}) cannot show a "
                         "lost card or a silent shoe: count the cards on the table</span>")
        if info.warning:
            parts.append(f"<span style='color:#b00020'>\u26a0 shoe warning {info.warning}</span>")
        if info.empty:
            parts.append("<span style='color:#b00020'>\u26a0 the shoe is empty</span>")
        if remaining is not None:
            parts.append(f"{remaining} cards")
        for text in notices or []:
            parts.append(f"<span style='color:#b00020'>\u26a0 {text}</span>")
        self.line.setText(" \u2022 ".join(parts))
        self.show_state(info)

    def show_hold(self, reason: str, held: int, unread: int = 0, actions: bool = True) -> None:
        """``unread``: cards that came out unread, which the dealer must key in (no "No card missed");
        ``actions`` False: cards wait for something else (a pick), the buttons are off."""
        if not reason:
            self.hold_box.hide()
            self.key_in.clear()
            return
        text = f"STOP: {reason}. Check the cards on the table."
        if held:
            text += f" ({held} card(s) waiting)"
        self.hold_text.setText(text)
        self.key_in.setPlaceholderText(
            f"the {unread} unread cards, e.g. 10H 5D" if unread > 1
            else "the unread card, e.g. 10H" if unread else "missed card, e.g. 10H")
        self.key_button.setText(("Key in cards" if unread > 1 else "Key in card") + (" (PIN)" if unread else ""))
        self.reread_button.setVisible(unread == 1 and actions)
        self.void_button.setVisible(bool(unread) and actions)
        self.confirm_button.setEnabled(actions and not unread)  # cards did come out: name them
        self.key_button.setEnabled(actions)
        self.key_in.setEnabled(actions)
        self.hold_box.show()
