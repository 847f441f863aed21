"""The layout: the dealer's hand on top, then every playing area in its physical order.

Each area box shows who controls it, its hands (up to four split hands, each with its
cards, total, badges in words and its stakes), and a small table of its wagers: one
column per position (player), one row per bet. Once a wager is settled (interim or
final) its cell shows, in large type, what the dealer does: ``+120`` pay, ``−100``
collect, ``=100`` return. Everything comes from the engine's round and
``round_output`` through :mod:`ui.common.round_view`; nothing here decides a rule.

Electronic: the dealer, the shared Player hand and the terminals (``ui.common.terminals_panel``).
The same widget draws the review's replay (``ui.review.detail``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QSize, Qt, QTimer
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPaintEvent, QPen, QRegion
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from dealer_assist.base.cards import ELEMENT_SUITS, parse_card
from dealer_assist.games.names import BetNames
from ui.common.cards import PERMANENT_BADGE, CardDropMixin, CardRow, DropTarget, tiles_height
from ui.common.round_view import AreaView, HandView, WagerCell, area_view, dealer_view
from ui.common.style import BADGE, HAND_TURN, LEAST_TYPE_PX, PAY_COLOURS, px

BET_NAMES = BetNames({  # a bet no entry names takes its game's name (games/names.py)
    "main": "Main", "pair": "Pair", "ace_race": "Ace Race", "lucky8": "Lucky 8",
    "super_sevens": "Super Star 7s", "three_stars": "3 Stars", "superb8": "Superb 8's",
    "tie18": "Tie on 18", "plus21": "21+", "bet_the_set": "Bet the Set 21",
    "royal_match": "Royal Match 21", "kings_bounty": "Kings Bounty", "insurance": "Insurance",
    "bonus678": "6-7-8 bonus", "even_money": "Even money",
})
# the row labels of an area's wager table (narrow)
SHORT_BET_NAMES = BetNames({
    "main": "Main", "pair": "Pair", "ace_race": "ARace", "lucky8": "Lck8", "super_sevens": "SS7s",
    "three_stars": "3Star", "superb8": "Sup8", "tie18": "Tie18", "plus21": "21+", "bet_the_set": "BtSet",
    "royal_match": "RMtch", "kings_bounty": "KBnty", "insurance": "Insur", "bonus678": "678",
    "even_money": "EvenM",
})


_METRICS: dict[tuple[str, int], tuple[QFontMetrics, dict[str, int]]] = {}
_ADVANCES_KEPT = 2048  # texts remembered per type size (amounts and names of a shift's rounds)


def type_metrics(base: QFont, size: int) -> tuple[QFontMetrics, Callable[[str], int]]:
    """The metrics of ``base`` at ``size`` px and a remembered ``horizontalAdvance``: a
    settlement measures the same lines at the same sizes for every tag, twice (each hand's
    own fit, then the layout's one size)."""
    key = (base.key(), size)
    kept = _METRICS.get(key)
    if kept is None:
        font = QFont(base)
        font.setPixelSize(size)
        kept = _METRICS[key] = (QFontMetrics(font), {})
    metrics, widths = kept

    def advance(text: str) -> int:
        width = widths.get(text)
        if width is None:
            if len(widths) >= _ADVANCES_KEPT:
                widths.clear()
            width = widths[text] = metrics.horizontalAdvance(text)
        return width

    return metrics, advance


_INK: dict[tuple[str, int, str], tuple[int, int]] = {}
_MEASURED: dict[tuple[str, int, bool, tuple[str, ...]], tuple[int, int]] = {}  # HandBox._measure


def stacked_lines(base: QFont, size: int, texts: list[str]) -> tuple[int, int, int]:
    """(ink above the baseline, ink height, baseline to baseline) of ``texts`` one under the
    other in ``base`` at ``size`` px: the lines stacked by their letters' own height and a gap
    of an eighth of the type (2 px at 16 px), not by the font's line box, which leaves a
    quarter of the type empty (issue 34: three named lines of a split hand's tag in 49 px)."""
    key = (base.key(), size, "\n".join(texts))
    kept = _INK.get(key)
    if kept is None:
        if len(_INK) >= _ADVANCES_KEPT:
            _INK.clear()
        metrics, _ = type_metrics(base, size)
        ink = metrics.tightBoundingRect("".join(texts))  # (relative to the baseline: top < 0)
        kept = _INK[key] = (-ink.top(), ink.height())
    top, high = kept
    return top, high, high + max(2, size // 8)



def short_names(players: tuple[str, ...]) -> dict[str, str]:
    """Each player's name cut to its first letters, as few as tell the players apart (one
    length for all: ``ann, bob, cat`` → ``a, b, c``; ``alice, albert`` → ``ali, alb``): a
    split hand's pay tag, under the wager table whose column heads have the whole names."""
    for length in range(1, max((len(p) for p in players), default=1) + 1):
        cut = {p: p[:length] for p in players}
        if len(set(cut.values())) == len(players):
            return cut
    return {p: p for p in players}


def total_text(total: int, soft: bool, cards: int) -> str:
    """``soft 17`` / ``hard 17``."""
    if cards == 0:
        return ""
    return f"{'soft' if soft else 'hard'} {total}" if total <= 21 else f"{total}"


def _label(text: str, *, size: float = 18, bold: bool = False, colour: str | None = None) -> QLabel:
    label = QLabel(text)
    font = QFont(label.font())  # a font, not a style sheet: cheap to build on every card
    font.setPixelSize(max(LEAST_TYPE_PX, px(size)))  # read across the table (issue 34)
    font.setBold(bold)
    label.setFont(font)
    if colour:
        label.setStyleSheet(f"color: {colour};")
    return label


def _set_text(label: QLabel, text: str) -> None:
    """Only a changed text: ``setText`` lays the label out again even for the same text."""
    if label.text() != text:
        label.setText(text)


PAY_MOST_PX = 30  # a pay tag's largest type at scale 1 (42 px at 1920×1080)
PAY_FLOOR_PX = 14  # its smallest
TALL_ROW_PX = 28  # the most a row of three or four split hands takes from the dealer's row
DEALER_LEAST_PX = 60  # the dealer's row then: its cards 50 px high, their rank 15 px
ELEMENT_DEALER_LEAST_PX = 84  # with element cards: 74 px high, the element's name 14 px (cards.name_font_px)
PAY_NET_PX = 17  # a hand's net alone (split hands): a tag of 22 px or more (issue 34: ~4 mm at 2 m)


def title_px(label_size: int) -> int:
    """A hand's title (``H2 18``) in px: ``label_size`` scaled, never under LEAST_TYPE_PX."""
    return max(LEAST_TYPE_PX, px(label_size))


def badge_px(label_size: int, numbered: bool) -> int:
    """A hand's badges (DOUBLED, BUST ...) in px: a little under its title, never under LEAST_TYPE_PX."""
    return max(LEAST_TYPE_PX, px(label_size - 2 - (3 if numbered else 0)))


def area_rows(hands: list[int]) -> list[list[int]]:
    """The areas' rows (0-based indices, in the areas' order): one row of up to four; of more,
    areas 1-4 on the first row and the rest on the second, or 1-3 and the rest when one of
    areas 1-4 holds three or four split hands (``hands``: each area's count). Its hands take
    more of the row (AreaView.width_share), and the row's other areas keep their wager
    tables in type of 16 px (issue 34): four areas beside four split hands left each
    neighbour 183 px at 1280×800, its table needing 207."""
    count = len(hands)
    if count <= 4:
        return [list(range(count))] if count else []
    first = 3 if any(n > 2 for n in hands[:4]) and count - 3 <= 4 else 4
    return [list(range(first)), list(range(first, count))]


class HandBox(DropTarget):
    """One hand: its cards, total and badges; a card dragged here lies in this hand.

    A card dealt to the hand, or the turn moving, updates the box in place (no rebuild)."""

    def __init__(self, hand: HandView, *, card_size: QSize, label_size: int, printed_first: bool = False,
                 numbered: bool = True, target: str = "dealer", room: int | None = None,
                 players: tuple[str, ...] = (), pay_band: int = 0, pay_column: int = 0) -> None:
        super().__init__(target)
        self.hand = hand
        self.players = players  # the area's, in position order (the wager table's columns)
        self.numbered = numbered
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.setSpacing(1)
        self.title = _label(self._head(hand), size=label_size, bold=True)
        # as tall before the first card as with the total it brings (an empty label is 1 px
        # lower: the whole area was laid out and painted again after that card)
        head = self.title.text()
        self.title.setText("H4 soft 21")
        self.title.setMinimumHeight(self.title.sizeHint().height())
        self.title.setText(head)
        self.badges = _label(" ".join(hand.badges), bold=True, colour=BADGE)
        font = QFont(self.badges.font())
        font.setPixelSize(badge_px(label_size, numbered))
        self.badges.setFont(font)
        self.badges.setWordWrap(True)
        self.badges.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        layout.addWidget(self.title)
        # room: the height the cards may take; small cards become tiles with words (cards.CardRow)
        # tiles take half the hand's width: the pay tag goes beside them (issue 34)
        self.cards = CardRow(list(hand.cards), printed_first=printed_first, card_size=card_size, room=room,
                             tile_share=0.5 if not numbered else 1.0)
        self._pay_column = pay_column
        if pay_column:
            self._keep_corners()
            beside = QHBoxLayout()
            beside.setContentsMargins(0, 0, 0, 0)
            beside.addWidget(self.cards, 1)
            beside.addSpacing(pay_column)  # the pay tag's column
            layout.addLayout(beside)
        else:
            layout.addWidget(self.cards)
        # the pay tag's room under the cards; once the hand is settled the badges go under
        # that room, so the tag has the whole of it in one piece (issue 34: the net of four
        # split hands was squeezed to 10 px between the tiles and their DOUBLED)
        if pay_band and hand.pay:
            layout.addSpacing(pay_band)
        layout.addWidget(self.badges)
        # the badges' line keeps its room, empty or not (_build_hands reserves it): a badge that
        # comes or goes (IN TURN moves with every card of the deal) changes a text, never a
        # visibility, which in a visible window lays every ancestor out again at once
        self.badges.setMinimumHeight(self.badges.fontMetrics().height())
        if pay_band and not hand.pay:
            layout.addSpacing(pay_band)
        # what to pay or collect on this hand, beside or under its cards (never over one):
        # large type, read from two metres; no re-layout when it appears
        self.pay = PayTag(self)
        self._pay_type_kept: tuple[str, QFont.Weight, QFont, str] | None = None  # (_pay_type)
        # within one fitting (_fitting): the tag's type and the rooms beside and under the cards
        self._type_now: tuple[QFont, str] = (QFont(), "")
        self._rooms_now: list[tuple[str, int, int]] = []
        # placed again once a resize has laid out the cards and badges (their geometry then
        # is final; in the resize itself they may still be the old size's)
        self._pay_again = QTimer(self)
        self._pay_again.setSingleShot(True)
        self._pay_again.setInterval(0)
        self._pay_again.timeout.connect(self._place_pay)
        self.cards.on_placed = self._cards_placed
        self._pay_lines: list[str] = []
        # the tag's last place: what it was worked out from (_room_key), the largest type it was
        # fitted in, and the named form's fit found (None: none fits, the net shown)
        self._placed: tuple[tuple[Any, ...], int, tuple[str, int, int, int] | None] | None = None
        self._pay_px = px(PAY_MOST_PX)  # the largest; smaller only where the box is small
        self.pay_cap = self._pay_px  # the layout's one size (TableView.equal_pay)
        font = QFont(self.pay.font())
        font.setPixelSize(self._pay_px)
        font.setBold(True)
        self.pay.setFont(font)
        self._show_pay(hand.pay)

    def _keep_corners(self) -> None:
        """Beside the pay column the cards keep the width of every card's corner and the last
        card whole (CardRow overlaps them down to a third of a card): a narrower box than the
        area planned (its row's real width) takes it from the column, never from a card."""
        w = self.cards.card_size.width()
        self.cards.setMinimumWidth(w + int(w * 0.34 + 1) * max(0, len(self.cards.faces) - 1))

    def _head(self, hand: HandView) -> str:
        total = total_text(hand.total, hand.soft, len(hand.cards))
        if self.numbered and not hand.soft:
            total = str(hand.total) if hand.cards else ""  # four hands side by side: "H2 18"
        return ("\u25b6 " if hand.in_turn else "") + (f"H{hand.number} " if self.numbered else "") + total

    def update_hand(self, hand: HandView) -> bool:
        """Show ``hand`` in place if it only gained cards or changed turn; False: rebuild."""
        old = self.hand
        if hand.number != old.number or hand.cards[: len(old.cards)] != old.cards:  # (stakes: not shown)
            return False
        for text in hand.cards[len(old.cards):]:
            self.cards.add(text)
        if self._pay_column and len(hand.cards) != len(old.cards):
            self._keep_corners()
        if hand != old:
            _set_text(self.title, self._head(hand))
            self.hand = hand  # (what the badges and the pay tag show: badge_words, pay_forms)
            self._show_badges()
            if hand.in_turn != old.in_turn:
                self.update()
            if hand.pay != old.pay:
                self._show_pay(hand.pay)
        self.hand = hand
        return True

    def _show_pay(self, pay: tuple[tuple[str, str, str], ...]) -> None:
        # the tag is never hidden or shown (in a visible window a show lays out every visible
        # ancestor: ~1 ms a hand, 21+ hands at a settlement): an empty tag paints nothing
        if not pay:
            self._pay_lines = []
            self._placed = None
            self.pay.set_lines([])
            return
        self._pay_lines = [f"{name} {amount}" for name, amount, _ in pay]  # names on split hands too
        self._place_pay()
        self.pay.raise_()

    def pay_text(self) -> list[str]:
        """What the hand's spot says to pay or collect, one line a player (tests, review)."""
        return [f"{name} {amount}" for name, amount, _ in self.hand.pay]

    def pay_forms(self) -> list[tuple[list[tuple[str, str]], bool, bool]]:
        """What the tag may show, most first, each the hand's whole settlement: (lines,
        side by side, the net): every player's line under its name; the same with each
        name cut to the letters that tell the area's players apart (the wager table's
        column heads below have the whole names: four split hands side by side); the
        hand's net, marked ▾, only where no named form fits at the floor. Never one
        player's line alone, never amounts without names (issue 34)."""
        pay = self.hand.pay
        forms = [form for group in self.named_forms() for form in group]
        if len(pay) > 1 and self.hand.net[0]:
            colour = PAY_COLOURS.get(self.hand.net[1], "#333")
            # the net stacked ("net ▾" over the amount) before the net on one line: four split
            # hands side by side are too narrow for one line in readable type (issue 34: the tag
            # of 10 px at 1280×800); stacked, it takes the height under the tiles instead
            forms.append(([("net\u2009\u25be", colour), (self.hand.net[0], colour)], False, True))
            forms.append(([(f"net\u2009{self.hand.net[0]}\u2009\u25be", colour)], True, True))
            # the narrowest: the hand's amount and ▾ (each player's figure in the wager table under it)
            forms.append(([(f"{self.hand.net[0]}\u2009\u25be", colour)], True, True))
        return forms

    def named_forms(self) -> list[list[tuple[list[tuple[str, str]], bool, bool]]]:
        """The forms of :meth:`pay_forms` that name each player, in two groups: whole names
        (stacked, side by side); the names cut to :func:`short_names` of the area's players
        (only where the whole names have no room at the floor)."""
        pay = self.hand.pay
        named = [(f"{name} {amount}", PAY_COLOURS.get(action, "#333")) for name, amount, action in pay]
        groups = [[(named, False, False), (named, True, False)]]
        short = short_names(tuple(dict.fromkeys((*self.players, *(name for name, _, _ in pay)))))
        cut = [(f"{short[name]} {amount}", PAY_COLOURS.get(action, "#333")) for name, amount, action in pay]
        if cut != named:
            groups.append([(cut, False, False), (cut, True, False)])
        return groups

    def _measure(self, texts: list[str], single: bool, size: int) -> tuple[int, int]:
        """(width, height) of a tag showing ``texts`` at ``size`` px (as PayTag paints them),
        remembered for the tag's type (a settlement's 21+ tags measure the same lines at the
        same sizes, round after round)."""
        base, base_key = self._type_now
        key = (base_key, size, single, tuple(texts))
        found = _MEASURED.get(key)
        if found is None:
            metrics, advance = type_metrics(base, size)
            if single:
                found = (sum(advance(t) for t in texts) + advance("  ") * (len(texts) - 1) + 6, metrics.height() + 2)
            else:
                _, high, step = stacked_lines(base, size, texts)
                found = (max(advance(t) for t in texts) + 6, step * (len(texts) - 1) + high + 6)
            if len(_MEASURED) >= _ADVANCES_KEPT * 4:
                _MEASURED.clear()
            _MEASURED[key] = found
        return found

    @property
    def _pay_type(self) -> tuple[QFont, str]:
        """The tag's type, its size aside (what :meth:`_measure` is remembered by)."""
        font = self.pay.font()
        kept = self._pay_type_kept
        if kept is None or kept[0] != font.family() or kept[1] != font.weight():
            base = QFont(font)
            base.setPixelSize(16)
            kept = self._pay_type_kept = (font.family(), font.weight(), base, base.key())
        return kept[2], kept[3]

    def _fit(self, texts: list[str], single: bool, room_w: int, room_h: int, largest: int,
             smallest: int) -> tuple[int, int, int] | None:
        """(type size, width, height) of the largest type from ``largest`` down to
        ``smallest`` at which ``texts`` fit ``room_w`` × ``room_h``; None if none does.
        A tag only grows with its type, so the sizes are halved, not walked one by one (a
        settlement fits 21+ tags, each in up to three rooms and several forms)."""
        found: tuple[int, int, int] | None = None
        low, high = smallest, largest
        while low <= high:
            size = (low + high) // 2
            width, height = self._measure(texts, single, size)
            if height <= room_h and width <= room_w:
                found, low = (size, width, height), size + 1
            else:
                high = size - 1
        return found

    def faces_right(self) -> int:
        """Where the hand's cards end, left to right (box coordinates)."""
        return self.cards.x() + max((f.x() + f.width() for f in self.cards.faces), default=0)

    def faces_bottom(self) -> int:
        return self.cards.y() + self.cards.used_height()

    def _rooms(self) -> list[tuple[str, int, int]]:
        """(where, width, height) of the free space beside the cards (to their right, down to
        the badges where their words reach that far), under them (down to the badges) and
        under the badges."""
        right = self.faces_right()
        beside_w = self.width() - right - 4
        shown = self.badges.isVisibleTo(self) and bool(self.badges.text())
        bottom = self.height()
        if shown:
            words = self.badges.x() + self.badges.fontMetrics().horizontalAdvance(self.badges.text())
            bottom = self.badges.y() if words > right else bottom
        rooms = [("beside", beside_w, bottom - self.cards.y() - 2)] if beside_w > 0 else []
        rooms.append(("under", self.width() - 2, (self.badges.y() if shown else self.height()) - self._top("under")))
        if shown:
            rooms.append(("below", self.width() - 2, self.height() - self._top("below") - 2))
        return rooms

    def _top(self, where: str) -> int:
        """Where a tag ``where`` (beside, under the cards, below the badges) begins."""
        if where == "beside":
            return self.cards.y()
        if where == "below":
            return self.badges.y() + self.badges.height()
        return self.faces_bottom()  # (touching the last card's edge, never over it)

    def _fitting(self) -> None:
        """What every form's fit in one placement reads, read once (:meth:`_best`, :meth:`_measure`)."""
        self._type_now = self._pay_type
        self._rooms_now = self._rooms()

    def _best(self, texts: list[str], single: bool, largest: int, smallest: int) -> tuple[str, int, int, int] | None:
        best: tuple[str, int, int, int] | None = None
        for where, room_w, room_h in self._rooms_now:
            fit = self._fit(texts, single, room_w, room_h, largest, smallest)
            if fit is not None and (best is None or fit[0] > best[1]):
                best = (where, *fit)
        return best

    def pay_fit(self, cap: int | None = None) -> tuple[str, int, int, int] | None:
        """Where a tag naming every player goes and its largest type up to ``cap`` (whole
        names, stacked or side by side; where they have no room at the floor
        (:data:`PAY_FLOOR_PX`), the names cut: :meth:`named_forms`): beside the cards (to
        their right) or under them, never over a card's face or corner (issue 34); None
        when no named form has room at the floor."""
        placed = self._placed
        if placed is not None and placed[2] is not None and self._still_placed(self._room_key(), self._largest(cap)):
            return placed[2]
        return self._named_fit(cap)[1]

    def _still_placed(self, room: tuple[Any, ...], largest: int) -> bool:
        """Whether the tag's last place holds for ``room`` in type up to ``largest``: placed
        for this room in this size, or found below that size and this one (a tag only grows with
        its type: the largest it takes at all, whatever the cap above)."""
        placed = self._placed
        if placed is None or placed[0] != room:
            return False
        found = placed[2]
        return placed[1] == largest or (found is not None and found[1] < placed[1] and found[1] <= largest)

    def _largest(self, cap: int | None) -> int:
        """The largest type a tag is fitted in under ``cap`` (:meth:`_named_fit`)."""
        return self._pay_px if cap is None else max(px(PAY_FLOOR_PX), min(self._pay_px, cap))

    def _room_key(self) -> tuple[Any, ...]:
        """What a tag's form, size and place are worked out from (:meth:`_place_pay`,
        :meth:`pay_fit`): the hand's settlement and players, the box's size, where its cards
        end and its badges are. The same again (the layout's one size set to the size the tag
        has, a resize that moved nothing, the second placement after a card): nothing measured again."""
        badges = self.badges
        return (self.hand.pay, self.hand.net, self.players, self._pay_px, self.width(), self.height(),
                self.cards.x(), self.cards.y(), self.faces_right(), self.faces_bottom(),
                badges.isVisibleTo(self), badges.text(), badges.x(), badges.y(), badges.height())

    def _named_fit(self, cap: int | None = None) -> tuple[tuple[list[tuple[str, str]], bool, bool] | None,
                                                        tuple[str, int, int, int] | None]:
        largest = self._largest(cap)
        self._fitting()
        for group in self.named_forms() if self._pay_lines else [[([("", "")], False, False)]]:
            best: tuple[tuple[list[tuple[str, str]], bool, bool] | None, tuple[str, int, int, int] | None] = (None, None)
            for form in group:
                found = self._best([t for t, _ in form[0]], form[1], largest, px(PAY_FLOOR_PX))
                if found is not None and (best[1] is None or found[1] > best[1][1]):
                    best = (form, found)
            if best[1] is not None:
                return best
        return None, None

    def badge_words(self) -> str:
        """The hand's badges in words; PERMANENT 8 (1.1.4) where its printed 8 has no room for
        its own word (overlapped by the next card, or a tile: issue 34, it was cut to "PRI")."""
        words = list(self.hand.badges)
        if self.cards.printed_word_hidden():
            words.insert(0, PERMANENT_BADGE)
        return " ".join(words)

    def _show_badges(self) -> None:
        _set_text(self.badges, self.badge_words())  # (an empty line paints nothing: __init__)

    def _cards_placed(self) -> None:
        if self.cards.printed_word_hidden() != (PERMANENT_BADGE in self.badges.text()):
            self._show_badges()
        if self.pay.lines:
            self._place_pay()
            self._pay_again.start()

    def set_pay_cap(self, cap: int) -> None:
        """The layout's one tag size (:meth:`TableView.equal_pay`)."""
        self.pay_cap = cap
        self._place_pay()

    def _place_pay(self) -> None:
        # Every player's line in the layout's one size (:attr:`pay_cap`: the table view sets
        # the largest that every hand's free space takes, so that neighbours match), beside or
        # under the cards: whole names where they have room at the floor, else the names cut
        # (:meth:`named_forms`); with no room for those, the first of :meth:`pay_forms` that
        # fits whole in type of 10 px or more (the hand's net). Measured with font metrics,
        # the font set only when it changes (a settlement shows 21+ tags).
        if not self._pay_lines:
            return
        room, largest = self._room_key(), self._largest(self.pay_cap)
        if self._still_placed(room, largest):
            return
        form, found = self._named_fit(self.pay_cap)
        self._placed = (room, largest, found)
        if form is not None and found is not None:
            (lines, single, net), (where, size, width, height) = form, found
        else:  # no room even for the cut names at the floor: the row band keeps the net (AreaBox._build_hands)
            forms = self.pay_forms()
            self._fitting()
            where, size = "below" if self.badges.isVisibleTo(self) and self.badges.text() else "under", 10
            lines, single, net = forms[-1]
            width, height = self._measure([t for t, _ in lines], single, size)
            # the first that fits at the floor (the net: at PAY_NET_PX, a tag of 22 px or more;
            # one figure, so it may be larger than its neighbours' lines); else the one of the
            # largest type
            best = 0
            small = max(10, min(self._pay_px, self.pay_cap))
            net_cap = min(self._pay_px, max(small, px(PAY_NET_PX)))
            for form in forms:
                found = self._best([t for t, _ in form[0]], form[1], net_cap if form[2] else small, 10)
                if found is not None and found[1] > best:
                    where, size, width, height = found
                    lines, single, net = form
                    best = size
                    if size >= px(PAY_NET_PX if form[2] else PAY_FLOOR_PX):
                        break
        if self.pay.font().pixelSize() != size:
            font = QFont(self.pay.font())
            font.setPixelSize(size)
            self.pay.setFont(font)
        self.pay.single_line = single
        self.pay.net = net
        self.pay.set_lines(lines)
        if where == "beside":
            left = self.faces_right() + 3
            self.pay.setGeometry(left, self.cards.y(), min(width, self.width() - left - 1),
                                 min(height, self.height() - self.cards.y()))
        else:  # under the cards, or under their badges
            top = self._top(where)
            width = min(width, self.width() - 2)
            self.pay.setGeometry((self.width() - width) // 2, top, width, max(1, min(height, self.height() - top)))

    def resizeEvent(self, event: Any) -> None:  # noqa: N802 (Qt name)
        super().resizeEvent(event)
        if self.pay.showing():
            self._place_pay()
            self._pay_again.start()

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 (Qt name)
        if self.hand.in_turn:  # the hand in turn: a lighter field behind it (seen from two metres)
            p = QPainter(self)
            p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(QColor(HAND_TURN))
            p.drawRoundedRect(self.rect(), 6, 6)
            p.end()


class PayTag(QWidget):
    """What to pay or collect on a hand, painted (no rich-text layout: a settlement shows 21+
    of these at once, each reused from round to round): coloured lines on a dark tag."""

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.setObjectName("hand_pay")
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)  # a card under it stays droppable
        self.lines: list[tuple[str, str]] = []
        self.single_line = False  # the lines side by side (under tiles with little room)
        self.net = False  # one line: the hand's net, every player's figure in the wager table

    def set_lines(self, lines: list[tuple[str, str]]) -> None:
        if lines != self.lines:
            self.lines = lines
            self.update()

    def text(self) -> str:
        return "\n".join(line for line, _ in self.lines)

    def showing(self) -> bool:
        """Whether the tag shows amounts (it is never hidden: empty, it paints nothing)."""
        return bool(self.lines) and self.isVisible()

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 (Qt name)
        if not self.lines:
            return
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(QColor(0, 0, 0, 215))
        p.drawRoundedRect(self.rect(), 6, 6)
        p.setFont(self.font())
        metrics = QFontMetrics(self.font())
        if self.single_line:
            parts = self.lines
            total = sum(metrics.horizontalAdvance(t) for t, _ in parts) + metrics.horizontalAdvance("  ") * (len(parts) - 1)
            x = (self.width() - total) // 2
            y = (self.height() - metrics.height()) // 2 + metrics.ascent()
            for text, colour in parts:
                p.setPen(QColor(colour))
                p.drawText(x, y, text)
                x += metrics.horizontalAdvance(text + "  ")
        else:
            for (text, colour), (x, y) in zip(self.lines, self.baselines(), strict=True):
                p.setPen(QColor(colour))
                p.drawText(x, y, text)
        p.end()

    def baselines(self) -> list[tuple[int, int]]:
        """Where each stacked line is drawn: (left, baseline), centred in the tag."""
        texts = [t for t, _ in self.lines]
        size = self.font().pixelSize()
        top, high, step = stacked_lines(self.font(), size, texts)
        metrics = QFontMetrics(self.font())
        y = (self.height() - step * (len(texts) - 1) - high) // 2 + top
        return [((self.width() - metrics.horizontalAdvance(t)) // 2, y + n * step) for n, t in enumerate(texts)]


def turn_ring_px() -> int:
    """The width of the yellow ring round the area in turn (the felt's own border is 3 px)."""
    return max(3, px(3))


def _dealer_total(view: HandView) -> str:
    if not view.cards:
        return ""
    return total_text(view.total, view.soft, len(view.cards)) + "".join(f"  {b}" for b in view.badges)


class DealerBox(QFrame):
    def __init__(self, layout: Any, height: int) -> None:
        super().__init__()
        self.setProperty("role", "dealer")
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.setFixedHeight(height)
        view = dealer_view(layout)
        row = QHBoxLayout(self)
        row.setSizeConstraint(QHBoxLayout.SizeConstraint.SetNoConstraint)
        row.setContentsMargins(px(8), 4, px(8), 4)
        title = QVBoxLayout()
        title.addWidget(_label("DEALER", size=22, bold=True))
        self.total = _label(_dealer_total(view), size=22, bold=True)
        title.addWidget(self.total)
        title.addStretch(1)
        row.addLayout(title)
        card_h = height - 10
        size = QSize(int(card_h * 0.71), card_h)
        self.hand = HandBox(view, card_size=size, label_size=1, printed_first=view.printed_first,
                            numbered=False, target="dealer")
        self.hand.title.hide()
        self.hand.badges.hide()
        row.addWidget(self.hand, 1)

    def update_dealer(self, layout: Any) -> bool:
        view = dealer_view(layout)
        if not self.hand.update_hand(view):
            return False
        if not self.hand.badges.isHidden():
            self.hand.badges.hide()  # the dealer's badges are in the total's line
        _set_text(self.total, _dealer_total(view))
        return True


class AreaBox(CardDropMixin, QFrame):
    """One playing area; a card dropped on it (outside a hand) lies in its first hand."""

    def __init__(self, view: AreaView, *, height: int, width: int) -> None:
        super().__init__()
        self.drop_target = f"area:{view.number}/1"
        self.setAcceptDrops(True)
        self.view = view
        self.number = view.number
        self.setProperty("role", "area")
        # the area in turn (view.in_turn): a yellow ring painted over the felt's border
        # (paintEvent), so a turn that moves repaints two rings, not two whole areas (issue 33)
        # the row's share of the view, whatever the content: a new card re-lays out this box only
        # its row's height exactly (every row the same), its width whatever the row gives
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.setFixedHeight(height)
        layout = QVBoxLayout(self)
        layout.setSizeConstraint(QVBoxLayout.SizeConstraint.SetNoConstraint)
        layout.setContentsMargins(px(4), px(2), px(4), px(2))
        layout.setSpacing(px(2))
        who = f"  \u25b8 {view.controller}" if view.controller else (f"  seat {view.seated}" if view.seated else "")
        self.title = _label(f"AREA {view.number}{who}", size=18, bold=True)
        self.title.setToolTip(f"controlling player: {view.controller}" if view.controller else "")
        self.title.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        layout.addWidget(self.title)
        if not view.occupied:
            empty = DropTarget(f"area:{view.number}/1")  # a card can still land here (5.15)
            inner = QVBoxLayout(empty)
            inner.addWidget(_label("no wager", size=15))
            layout.addWidget(empty)
            layout.addStretch(1)
            return
        # the hands: up to four (split), side by side; cards overlap to fit in what the
        # title and the wager table leave
        # three or four split hands: their tiles, badges and pay tags take more height, the
        # wager table a little less (issue 34: a tag shows its hand's whole settlement)
        wide = len(view.hands) > 2
        # its wagers a row per player where that saves rows and fits the width
        across = (wide and len(view.wager_rows) > len(view.players)
                  and width - px(14) >= wager_table_need(len(view.wager_rows)))
        table = WagerTable(view, width, most=0.85 if wide and not across else 1.0, across=across)
        fixed = self.title.sizeHint().height() + table.sizeHint().height() + px(4) * 2 + px(2) * 4
        if view.surrendered:
            fixed += px(20)
        self._hands_h = max(px(50), height - fixed)
        self.band_short = 0  # (AreaBox._build_hands)
        self._width = width
        self.hands_row = QHBoxLayout()
        self.hands_row.setSpacing(px(3))
        self.hand_boxes: list[HandBox] = []
        self._retired: list[HandBox] = []
        self._build_hands(view)
        layout.addLayout(self.hands_row)
        if view.surrendered:
            layout.addWidget(_label("SURRENDERED: " + ", ".join(view.surrendered), size=14, bold=True))
        layout.addStretch(1)
        layout.addWidget(table)
        self.table = table

    def _build_hands(self, view: AreaView) -> None:
        """The hand boxes of ``view`` in the hands row. Before the deal (wagers, no hand yet)
        one empty box for hand 1: the deal then fills it in place, nothing is rebuilt on
        the round's first card (a whole area costs about 3 ms to build and as much to paint)."""
        hands = view.hands or (HandView(1, (), 0, False),)
        label = 15 if len(hands) <= 2 else 13
        font = QFont(self.font())
        font.setBold(True)
        font.setPixelSize(title_px(label))
        title_h = QFontMetrics(font).height()
        font.setPixelSize(badge_px(label, len(hands) > 1))
        badge_h = QFontMetrics(font).height()  # always: a badge (IN TURN, BUST ...) may appear in place later
        # the hand box's margins (2 + 2) and spacing (1 a gap)
        card_h = max(px(34), self._hands_h - title_h - badge_h - 4 - 2)
        hand_w = (self._width - px(14)) // max(1, len(hands)) - px(4)
        card_w = min(int(card_h * 0.71), int(hand_w * 0.6))
        # the pay tag's own room, kept from the start (issue 34: never over a card): a column
        # beside the cards (they overlap to leave it, corners visible), or where the hand is
        # too narrow for that (split hands) a band under them
        band = column = 0
        for size_px in (px(20), px(PAY_FLOOR_PX)):
            font = QFont(self.font())
            font.setPixelSize(size_px)
            font.setBold(True)
            metrics = QFontMetrics(font)
            widest = max((metrics.horizontalAdvance(f"{p} \u22121,000") for p in view.players), default=0) + 12
            # a card and the corner of the next beside it; for the floor's column the cards
            # smaller (down to 40 px wide, a rank of 17 px) rather than the column lost for a
            # band that takes their height (1.5: the box's margins and spacing)
            least = card_w * 1.4 if size_px > px(PAY_FLOOR_PX) else min(card_w, px(40)) * 1.5
            if hand_w - widest >= least:
                column = widest
                card_w = min(card_w, int((hand_w - widest) / 1.5))
                break
        if not column:
            band = metrics.lineSpacing() * max(1, len(view.players)) + 6
            # never at the cost of the cards: the row keeps room for four cards a hand (a split
            # hand hit or doubled; more if one holds more) as tiles of the lines they take, one
            # under the other, none covering the next; the tag takes what is left under them
            # (HandBox.pay_forms: what fits there whole), one line at least
            # once every hand is settled no card comes: only the cards they hold
            most = max(len(h.cards) for h in hands) if self._settled(hands) else max(4, *(len(h.cards) for h in hands))
            # the cards' room measured: the hand box's margins (2 + 2), spacing (1 a gap), title, badges
            card_h = max(card_h, self._hands_h - 4 - title_h - badge_h - 4 - 2)
            need = max(tiles_height(h.cards, hand_w - 4, most) for h in hands)  # the box's margins: 2 + 2
            font.setPixelSize(10)  # at least one line at 10 px: the hand's net (HandBox.pay_forms)
            # what the tag of every player's line at the floor misses once settled (the table
            # view gives it from the dealer's row: TableView.heights)
            self.band_short = max(0, band - (card_h - need)) if self._settled(hands) else 0
            band = max(QFontMetrics(font).height() + 6, min(band, card_h - need))
            card_h = max(px(30), card_h - band)
            card_w = min(int(card_h * 0.71), int(hand_w * 0.6))
        self._band_for = self._settled(hands) if band else None
        size = QSize(card_w, int(card_w / 0.71))
        for hand in hands:
            box = HandBox(hand, card_size=size, label_size=label, printed_first=view.printed_first and hand.number == 1,
                          numbered=len(hands) > 1, target=f"area:{view.number}/{hand.number}", room=card_h,
                          players=view.players, pay_band=band, pay_column=column)
            self.hands_row.addWidget(box, 1)
            self.hand_boxes.append(box)

    @staticmethod
    def _settled(hands: tuple[HandView, ...]) -> bool:
        return all(h.pay for h in hands)

    def _rebuild_hands(self, view: AreaView) -> None:
        """A split (or a round's hands gone): the hands row again, the rest of the box kept."""
        # the old boxes leave the area at once (what it shows is its children) and are
        # deleted by Qt later (a drop on one of them may be what changed the round); kept
        # referenced until the next rebuild, by when Qt has deleted them
        self._retired = self.hand_boxes
        for box in self._retired:
            self.hands_row.removeWidget(box)
            box.hide()
            box.setParent(None)
            box.deleteLater()
        self.hand_boxes = []
        self._build_hands(view)

    def update_view(self, view: AreaView) -> bool:
        """Show ``view`` in place when only cards, totals, badges, the hands (a split) or the
        turn changed; False: the box is to be built again."""
        old = self.view
        if (view.number, view.occupied, view.controller, view.seated, view.players,
                view.wager_rows, set(view.cells), view.surrendered) != (
                old.number, old.occupied, old.controller, old.seated, old.players,
                old.wager_rows, set(old.cells), old.surrendered) or not view.occupied:
            return False
        if view.width_share != old.width_share:  # three or four hands: a wider box
            return False
        boxes = self.hand_boxes
        hands = view.hands or (HandView(1, (), 0, False),)
        if (view.printed_first != old.printed_first or len(boxes) != len(hands)
                or self._band_for not in (None, self._settled(hands))  # the band's room: _build_hands
                or not all(b.update_hand(h) for b, h in zip(boxes, hands, strict=True))):
            self._rebuild_hands(view)
        if view.cells != old.cells:  # a settlement: the same wagers, now with what to pay or collect
            self.table.update_cells(view)
        if (view.in_turn is None) != (old.in_turn is None):
            self.update(self._ring())
        self.view = view
        return True

    def _ring(self) -> QRegion:
        """The border the turn's ring is painted on: the layout's margins keep every child out of it."""
        w = turn_ring_px()
        return QRegion(self.rect()).subtracted(QRegion(self.rect().adjusted(w, w, -w, -w)))

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 (Qt name)
        super().paintEvent(event)  # the felt, from the style sheet
        if self.view.in_turn is not None:
            w = turn_ring_px()
            p = QPainter(self)
            p.setRenderHint(QPainter.RenderHint.Antialiasing)
            p.setPen(QPen(QColor(BADGE), w))
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.drawRoundedRect(self.rect().adjusted(w // 2, w // 2, -((w + 1) // 2), -((w + 1) // 2)), 10, 10)
            p.end()


def wager_table_need(columns: int) -> int:
    """The width an area's wager table of ``columns`` amount columns takes at full size: the
    row heads and each column's amount (``+110`` in bold, 16-17 px at scale 1)."""
    return px(52) + max(1, columns) * px(50)


class WagerTable(QWidget):
    """An area's wagers: a column per player (position order), a row per bet; a settled
    wager's cell shows what to do with its chips. ``across``: a row per player and a column
    per bet (an area of three or four split hands, as wide as that: it has more bets than
    players, and the rows it saves go to its hands' cards and pay tags, issue 34)."""

    def __init__(self, view: AreaView, width: int = 0, most: float = 1.0, across: bool = False) -> None:
        super().__init__()
        # the type shrinks when the area is narrower than its amounts need (the review's
        # replay pane at scale > 1): never cut, never under 16 px (the floor of _label and
        # _cell_font); ``most``: its largest share of the full size
        need = wager_table_need(len(view.wager_rows) if across else len(view.players))
        self.fit = min(most, max(0.6, (width - px(10)) / need)) if width else most
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setHorizontalSpacing(px(3))
        grid.setVerticalSpacing(0)
        self.cells: dict[tuple[str, str], WagerCellLabel] = {}
        for col, player in enumerate(view.players, start=1):
            name = _label(player, size=14 * self.fit, bold=True)
            if across:
                grid.addWidget(name, col, 0)
            else:
                name.setAlignment(Qt.AlignmentFlag.AlignRight)
                grid.addWidget(name, 0, col)
        for row, bet in enumerate(view.wager_rows, start=1):
            bet_name = _label(SHORT_BET_NAMES.get(bet, bet), size=13 * self.fit)
            if across:
                bet_name.setAlignment(Qt.AlignmentFlag.AlignRight)
                grid.addWidget(bet_name, 0, row)
            else:
                grid.addWidget(bet_name, row, 0)
            for col, player in enumerate(view.players, start=1):
                cell = view.cells.get((player, bet))
                if cell is None:
                    continue
                label = WagerCellLabel(cell, self.fit)
                grid.addWidget(label, *((col, row) if across else (row, col)))
                self.cells[(player, bet)] = label
        grid.setColumnStretch(0, 0)
        for col in range(1, (len(view.wager_rows) if across else len(view.players)) + 1):
            grid.setColumnStretch(col, 1)

    def update_cells(self, view: AreaView) -> None:
        """The same wagers, now (some) settled: each changed cell in place."""
        for key, cell in view.cells.items():
            label = self.cells.get(key)
            if label is not None:
                label.show_cell(cell)


class WagerCellLabel(QLabel):
    """One wager cell. It paints its own text in its own colour (white, or once settled
    green to pay, red to collect, grey to return) instead of taking a style sheet: a
    settlement changes every wager cell of the table in one event (63 of them with seven
    areas of three players and two side bets), and a style sheet per label costs a restyle
    of each (about 0.1 ms apiece); the text, the font and the colour change in place."""

    def __init__(self, cell: WagerCell, fit: float = 1.0) -> None:
        super().__init__()
        self.setAlignment(Qt.AlignmentFlag.AlignRight)
        self.fit = fit
        self.cell: WagerCell | None = None
        self.colour = QColor(PAY_COLOURS[""])
        # as tall from the start as once settled (larger type): a settlement does not take
        # height from the hands above (AreaBox reserves the hands' room once)
        self.setMinimumHeight(QFontMetrics(_cell_font(self.font(), True, fit)).height())
        self.show_cell(cell)

    def show_cell(self, cell: WagerCell) -> None:
        """Show ``cell``, touching only what differs from the cell shown."""
        old = self.cell
        if old == cell:
            return
        if old is None or bool(old.action) != bool(cell.action):
            self.setFont(_cell_font(self.font(), bool(cell.action), self.fit))
        if old is None or old.action != cell.action:
            self.colour = QColor(PAY_COLOURS[cell.action])
            self.update()
        if old is None or old.text != cell.text:
            self.setText(cell.text)
        if old is None or old.detail != cell.detail:
            self.setToolTip(cell.detail)
        self.cell = cell

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 (Qt name)
        p = QPainter(self)
        p.setFont(self.font())
        p.setPen(self.colour)
        p.drawText(self.contentsRect(), int(self.alignment().value), self.text())
        p.end()


def _cell_font(base: QFont, settled: bool, fit: float) -> QFont:
    font = QFont(base)
    font.setPixelSize(max(LEAST_TYPE_PX + (1 if settled else 0), px((17 if settled else 15) * fit)))
    font.setBold(settled)
    return font


class TableView(QWidget):
    """The dealer and the areas (tables); the dealer and the shared Player hand (Electronic).

    Boxes are rebuilt only when what they show changed, so a card repaints one area.
    Areas 1–4 on the first row, 5–7 on the second (1 = the dealer's left); an area with
    three or four split hands takes more of its row's width, and where it is one of areas
    1–4 the rows are 1–3 and 4–7 (:func:`area_rows`).
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._layout.setSpacing(px(6))
        self.area_boxes: dict[int, AreaBox] = {}
        self.dealer_box: QWidget | None = None
        self.shared_box: QWidget | None = None
        self._rows: list[QHBoxLayout] = []
        self._dealer_sig: Any = None
        self._shared_sig: Any = None
        self._area_sigs: dict[int, Any] = {}
        self._area_shown: dict[int, AreaView] = {}  # the view each area box shows (its object)
        # each area's view with what it was read from (the engine's area, its turn, its
        # settlement entries): an area a card did not touch keeps its view object
        self._area_read: dict[int, tuple[tuple[Any, ...], AreaView]] = {}
        self._shape: Any = None
        self.extra: QWidget | None = None  # Electronic: the terminals, under the shared hand
        self._tag_extra = 0  # what a row of three or four settled split hands wants from the dealer's row
        self._dealer_least = px(DEALER_LEAST_PX)  # the dealer's row with its cards readable

    def reset(self) -> None:
        """Forget every box (the scale changed): the next refresh builds them again."""
        self._shape = None

    def _clear(self) -> None:
        for w in [self.dealer_box, self.shared_box, *self.area_boxes.values()]:
            if w is not None:
                w.hide()
                w.deleteLater()
        # the terminals (Electronic) stay this view's child, out of the layout until added again:
        # taken from it and back, their hundreds of widgets were restyled, 0.1 s a resize
        while self._layout.count():
            self._layout.takeAt(0)
        self.dealer_box = self.shared_box = None
        self.area_boxes = {}
        self._rows = []
        self._dealer_sig = self._shared_sig = None
        self._area_sigs = {}
        self._area_shown = {}

    def heights(self, shared: bool, rows: int, tall: int | None = None) -> tuple[int, int, int]:
        """(dealer row, area row, extra) heights for the space this view has; ``tall``: the
        row (from 0) holding an area of three or four split hands, which takes ``extra`` px
        from the dealer's row for the pay tags under its hands' tiles once settled (every
        player's line named, issue 34), as far as the dealer's cards stay readable."""
        total = max(self.height(), px(420))
        dealer = max(px(80), int(total * 0.14))
        if shared:
            # the shared hand's row: the terminals' boxes under it have the rest (issue 34: their
            # type of 16 px)
            return dealer, max(px(110), int(total * 0.18)), 0
        spacing = self._layout.spacing() * rows  # between the dealer and each row
        area = max(px(150), (total - dealer - spacing) // max(1, rows))
        extra = 0 if tall is None else max(0, min(self._tag_extra, dealer - self._dealer_least))
        return dealer - extra, area, extra

    def refresh(self, rnd: Any, output: dict[str, Any], expectation: Any) -> None:
        layout = rnd.view()  # the engine's typed picture of the round: all this view reads of it
        shared = layout.shared_hand
        count = 0 if shared else len(layout.areas)
        views = self._area_views(layout, output, count)
        members = area_rows([len(v.hands) for v in views])
        row_of = {i: r for r, row in enumerate(members) for i in row}
        rows = len(members)
        tall = next((row_of[i] for i, v in enumerate(views) if len(v.hands) > 2), None)
        if tall is None:
            self._tag_extra = 0
        # the least dealer's row: its cards' rank, and an element's name, in type of READABLE_PX
        elements = any(parse_card(c).suit in ELEMENT_SUITS for c in layout.dealer.cards)
        self._dealer_least = max(px(DEALER_LEAST_PX), ELEMENT_DEALER_LEAST_PX if elements else 0)
        shape = (shared, count, layout.game, self.height(), tall, self._tag_extra, tuple(map(len, members)))
        if shape != self._shape:
            self._clear()
            self._shape = shape
            for _ in range(rows):
                row = QHBoxLayout()
                row.setSpacing(px(6))
                self._rows.append(row)
            self.setMinimumHeight(px(420))
        dealer_h, area_h, extra = self.heights(shared, rows, tall)
        dealer_sig = (tuple(output.get("dealer", {}).get("cards", [])),)
        if (dealer_sig != self._dealer_sig and isinstance(self.dealer_box, DealerBox)
                and self.dealer_box.update_dealer(layout)):
            self._dealer_sig = dealer_sig
        if dealer_sig != self._dealer_sig:
            dealer_box = DealerBox(layout, dealer_h)
            if self.dealer_box is not None:
                self._layout.replaceWidget(self.dealer_box, dealer_box)
                self.dealer_box.hide()
                self.dealer_box.deleteLater()
            else:
                self._layout.insertWidget(0, dealer_box)
                if shared:
                    pass
                else:
                    for row in self._rows:
                        self._layout.addLayout(row)
                    self._layout.addStretch(1)
            self.dealer_box = dealer_box
            self._dealer_sig = dealer_sig
        if shared:
            self._refresh_shared(output, area_h)
            return
        built: list[AreaBox] = []
        for view in views:
            number = view.number
            if view is self._area_shown.get(number):
                continue  # the area a card did not touch: not compared again
            signature = view.signature
            if signature == self._area_sigs.get(number):
                self._area_shown[number] = view
                continue
            current = self.area_boxes.get(number)
            if current is not None and current.update_view(view):
                self._area_sigs[number], self._area_shown[number] = signature, view
                continue
            members_here = members[row_of[number - 1]]
            shares = sum(views[i].width_share for i in members_here)
            width = (max(self.width(), px(600)) - px(6) * (len(members_here) - 1)) * view.width_share // max(1, shares)
            box = AreaBox(view, height=area_h + (extra if row_of[number - 1] == tall else 0), width=width)
            row = self._rows[row_of[number - 1]]
            old = self.area_boxes.get(number)
            if old is not None:
                index = row.indexOf(old)
                row.insertWidget(index, box, view.width_share)
                row.removeWidget(old)
                old.hide()
                old.deleteLater()
            else:
                row.addWidget(box, view.width_share)
            row.setStretchFactor(box, view.width_share)
            self.area_boxes[number] = box
            self._area_sigs[number], self._area_shown[number] = signature, view
            built.append(box)
        if len(built) > 1 and self.isVisible():
            # the new boxes shown together: each box shown in a visible window lays its ancestors
            # out at once (Qt's QWidget::setVisible), and a row's boxes shown one by one took the
            # whole row, then half of it, a third ... (seven layouts of every box, the wagers
            # recorded at *no more bets* under the round's first card)
            self.hide()
            for box in built:
                box.show()
            self.show()
        if tall is not None:  # the tall row's tags: the room they miss, from the dealer's row
            short = max((getattr(b, "band_short", 0) for n, b in self.area_boxes.items() if row_of[n - 1] == tall),
                        default=0)
            want = max(0, min(self._tag_extra + short, dealer_h + extra - self._dealer_least))
            if want != self._tag_extra:
                self._tag_extra = want
                self.refresh(rnd, output, expectation)  # built again (once: the same want then)
                return
        QTimer.singleShot(0, self.equal_pay)  # once the boxes are laid out

    def _area_views(self, layout: Any, output: dict[str, Any], count: int) -> list[AreaView]:
        """Each area's view (round_view.area_view). An area whose engine view (the same object
        when the service's picture wrote it the same), turn and settlement entries are those of
        the last refresh keeps its view: a card changes one area, the others are not read again."""
        entries: dict[Any, list[dict[str, Any]]] = {}
        for e in output.get("settlements", []):
            entries.setdefault(e.get("area"), []).append(e)
        in_turn = layout.in_turn
        views = []
        for number in range(1, count + 1):
            area = layout.area(number)
            read = (layout.game, in_turn[1] if in_turn is not None and in_turn[0] == number else None,
                    entries.get(number, []))
            known = self._area_read.get(number)
            if known is not None and (known[0][0] is area or known[0][0] == area) and known[0][1:] == read:
                views.append(known[1])
                continue
            view = area_view(layout, read[2], number)
            self._area_read[number] = ((area, *read), view)
            views.append(view)
        return views

    def equal_pay(self) -> None:
        """One pay tag size for every hand of the layout (issue 34: neighbours match): the
        largest that every hand's free space takes, never under the floor."""
        boxes = [b for area in self.area_boxes.values() for b in getattr(area, "hand_boxes", [])
                 if b.pay.lines]
        if not boxes:
            return
        fits = [box.pay_fit() for box in boxes]  # (each at most its own largest size)
        cap = min((f[1] for f in fits if f is not None), default=px(PAY_FLOOR_PX))
        for box in boxes:
            box.set_pay_cap(cap)

    def _refresh_shared(self, output: dict[str, Any], height: int) -> None:
        cards = list(output.get("player_cards", []))
        if (tuple(cards),) == self._shared_sig:
            return
        frame = QFrame()
        frame.setProperty("role", "area")
        frame.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        frame.setFixedHeight(height)
        inner = QHBoxLayout(frame)
        inner.setContentsMargins(px(8), 4, px(8), 4)
        inner.addWidget(_label("PLAYER HAND\n(shared)", size=20, bold=True))
        card_h = height - 12
        inner.addWidget(CardRow(cards, card_size=QSize(int(card_h * 0.71), card_h)), 1)
        if self.shared_box is not None:
            self._layout.replaceWidget(self.shared_box, frame)
            self.shared_box.hide()
            self.shared_box.deleteLater()
        else:
            self._layout.insertWidget(1, frame)
            if self.extra is not None:
                self._layout.addWidget(self.extra, 1)
            else:  # a replay (no terminals): the two rows at the top, not spread over the height
                self._layout.addStretch(1)
        self.shared_box = frame
        self._shared_sig = (tuple(cards),)
