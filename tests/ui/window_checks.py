"""The checks the layout walks share (issue 34): the three table screens, what a window, a
button or a control must be to fit the screen and a finger, and the review's own checks. Used by
tests/ui/layout_walk.py (the dealer's screen) and tests/ui_review/review_pit_walk.py (the review
and the pit); neither imports the other."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

SIZES = [(1280, 800), (1366, 768), (1920, 1080)]
TOUCH_PX, TYPE_PX = 48, 16
# a round's layout scaled down in a pane: its 17 px figures 12 px or more
REPLAY_LEAST_SHOWN = 0.7


def screens_config() -> dict[str, Any]:
    """The three table screens side by side (x offsets), for the offscreen platform."""
    screens, x = [], 0
    for w, h in SIZES:
        screens.append({"name": f"{w}x{h}", "x": x, "y": 0, "width": w, "height": h,
                        "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1})
        x += w
    return {"screens": screens}


def font_px(widget: Any) -> float:
    font = widget.font()
    return float(font.pixelSize()) if font.pixelSize() > 0 else font.pointSizeF() * 96 / 72


def top_levels() -> list[Any]:
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication

    # (a widget shown inside a graphics view, as the review's replay pane shows its layout, is
    # no window of its own: it is checked where it is shown, replay_problems)
    return [w for w in QApplication.topLevelWidgets() if w.isVisible() and w.graphicsProxyWidget() is None
            and not (w.windowFlags() & Qt.WindowType.ToolTip) == Qt.WindowType.ToolTip
            and w.metaObject().className() not in ("QMenu", "QComboBoxPrivateContainer")]


def button_problems(top: Any, what: str, skip: Callable[[Any], bool]) -> list[str]:
    from PySide6.QtCore import QRect
    from PySide6.QtWidgets import QAbstractButton, QAbstractItemView, QAbstractScrollArea

    out: list[str] = []
    inside = top.rect()
    for button in top.findChildren(QAbstractButton):
        if button.window() is not top or not button.isVisibleTo(top) or not button.isEnabled() or skip(button):
            continue
        name = f"{type(top).__name__}: {button.text() or button.objectName() or type(button).__name__!r}"
        placed = QRect(button.mapTo(top, button.rect().topLeft()), button.size())
        listed = False
        parent = button.parentWidget()
        while parent is not None and parent is not top:
            if isinstance(parent, QAbstractItemView):
                listed = True  # a button of a list's row: the list scrolls
                break
            if isinstance(parent, QAbstractScrollArea):
                view = parent.viewport()
                seen = QRect(button.mapTo(view, button.rect().topLeft()), button.size())
                if not view.rect().contains(seen):
                    out.append(f"{what}: {name} behind a scroll bar ({seen.getRect()} of {view.rect().getRect()}, "
                               f"in {chain(button)})")
                    break
            parent = parent.parentWidget()
        if listed:
            continue
        if not inside.contains(placed):
            out.append(f"{what}: {name} at {placed.getRect()} outside its window {inside.getRect()}")
        if button.height() < TOUCH_PX:
            out.append(f"{what}: {name} is {button.height()} px high (< {TOUCH_PX})")
        if font_px(button) < TYPE_PX:
            out.append(f"{what}: {name} has {font_px(button):.0f} px type (< {TYPE_PX})")
        out += cut_button_text(button, what, name)
    return out


def cut_button_text(button: Any, what: str, name: str) -> list[str]:
    """A push button narrower than its words (issue 34: "ard 1, face down (" on a half-row
    button): the widest line of its text against the room inside its frame."""
    from PySide6.QtWidgets import QPushButton, QStyle, QStyleOptionButton

    if not isinstance(button, QPushButton) or not button.text():
        return []
    lines = button.text().replace("&&", "\0").replace("&", "").replace("\0", "&").splitlines()
    need = max(button.fontMetrics().horizontalAdvance(line) for line in lines)
    option = QStyleOptionButton()
    button.initStyleOption(option)
    # the room for its words: inside the border and the padding its style sheet gives it
    room = button.style().subElementRect(QStyle.SubElement.SE_PushButtonContents, option, button).width()
    if need > room + 2:  # (a glyph's side bearing: up to 2 px of its advance are blank)
        return [f"{what}: {name}: its words need {need} px, it has {room} px (cut, in {chain(button)})"]
    return []


def cut_combo_text(top: Any, what: str) -> list[str]:
    """A list box (combo box) narrower than the choice it shows (issue 34: "Star Elements
    Blackjack" cut under the set-up's arrow): its text against the room beside the arrow."""
    from PySide6.QtWidgets import QComboBox, QStyle, QStyleOptionComboBox

    out: list[str] = []
    for combo in top.findChildren(QComboBox):
        if combo.window() is not top or not combo.isVisibleTo(top) or combo.isEditable() or not combo.currentText():
            continue
        option = QStyleOptionComboBox()
        combo.initStyleOption(option)
        room = combo.style().subControlRect(QStyle.ComplexControl.CC_ComboBox, option,
                                            QStyle.SubControl.SC_ComboBoxEditField, combo).width()
        need = combo.fontMetrics().horizontalAdvance(combo.currentText())
        if need > room + 2:
            out.append(f"{what}: {type(top).__name__}: list box {combo.currentText()!r} needs {need} px, "
                       f"it has {room} px (cut, in {chain(combo)})")
    return out


def chain(widget: Any) -> str:
    """Where a widget is: its parents' classes (object names), innermost first."""
    names: list[str] = []
    parent = widget.parentWidget()
    while parent is not None and len(names) < 6:
        names.append(type(parent).__name__ + (f"#{parent.objectName()}" if parent.objectName() else ""))
        parent = parent.parentWidget()
    return " < ".join(names)


def window_problems(what: str, skip: Callable[[Any], bool]) -> list[str]:
    out: list[str] = []
    for top in top_levels():
        screen = top.screen().availableGeometry()
        if not screen.contains(top.frameGeometry()):
            out.append(f"{what}: {type(top).__name__} {top.windowTitle()!r} at {top.frameGeometry().getRect()} "
                       f"not inside the screen {screen.getRect()}")
        out += button_problems(top, what, skip) + cut_combo_text(top, what)
    return out


def tag_problems(window: Any, what: str) -> list[str]:
    """A pay tag that overlaps a card's face (its whole rectangle, corner included)."""
    from PySide6.QtCore import QRect

    from ui.common.cards import CardFace
    from ui.common.table_view import HandBox

    out: list[str] = []
    faces = [QRect(f.mapTo(window, f.rect().topLeft()), f.size())
             for f in window.findChildren(CardFace) if f.isVisibleTo(window)]
    for box in window.findChildren(HandBox):
        if not box.isVisibleTo(window) or not box.pay.showing():
            continue
        tag = QRect(box.pay.mapTo(window, box.pay.rect().topLeft()), box.pay.size())
        for face in faces:
            if tag.intersects(face):
                out.append(f"{what}: pay tag {box.pay.text()!r} over a card at {face.getRect()}")
                break
    return out


def cut_labels(top: Any, what: str) -> list[str]:
    """A label whose words do not fit it: a one-line label narrower than its text, a wrapped
    one narrower than its longest word or lower than its lines (rich text aside)."""
    from PySide6.QtWidgets import QLabel

    out: list[str] = []
    for label in top.findChildren(QLabel):
        text = label.text()
        if label.window() is not top or not label.isVisibleTo(top) or not text or "<" in text:
            continue
        metrics, room = label.fontMetrics(), label.contentsRect()
        text = text.replace("&&", "\0").replace("&", "").replace("\0", "&")  # a mnemonic's & is not drawn
        parts = text.split() if label.wordWrap() else text.split("\n")
        need = max(metrics.horizontalAdvance(part) for part in parts)
        high = label.heightForWidth(label.width()) if label.wordWrap() else metrics.height() * len(parts)
        if need > room.width() + 1 or high > label.height() + 1:
            out.append(f"{what}: {type(top).__name__}: label {text[:60]!r} cut ({need}×{high} px in "
                       f"{room.width()}×{label.height()}, in {chain(label)})")
    return out


def control_problems(top: Any, what: str) -> list[str]:
    from PySide6.QtCore import QRect
    from PySide6.QtWidgets import (
        QAbstractButton,
        QAbstractItemView,
        QAbstractSpinBox,
        QComboBox,
        QLineEdit,
        QSlider,
        QTabBar,
        QWidget,
    )

    out: list[str] = []
    inside = top.rect()
    kinds = (QAbstractButton, QComboBox, QLineEdit, QAbstractSpinBox, QSlider, QTabBar)
    for control in top.findChildren(QWidget):
        if not isinstance(control, kinds) or control.window() is not top or not control.isVisibleTo(top):
            continue
        parent, listed = control.parentWidget(), False
        while parent is not None and parent is not top:
            if isinstance(parent, (QAbstractItemView, QAbstractSpinBox, QComboBox)):
                listed = True  # a list's row, a spin box's or combo box's own parts
                break
            parent = parent.parentWidget()
        if listed:
            continue
        if isinstance(control, QLineEdit) and control.isReadOnly():
            continue
        label = control.text() if isinstance(control, (QAbstractButton, QLineEdit)) else ""
        name = f"{type(top).__name__}: {type(control).__name__} {label or control.objectName()!r} in {chain(control)}"
        placed = QRect(control.mapTo(top, control.rect().topLeft()), control.size())
        if not inside.contains(placed):
            out.append(f"{what}: {name} at {placed.getRect()} outside its window {inside.getRect()}")
        if isinstance(control, QTabBar):
            for index in range(control.count()):
                if control.tabRect(index).height() < TOUCH_PX:
                    out.append(f"{what}: {name} tab {control.tabText(index)!r} is "
                               f"{control.tabRect(index).height()} px high (< {TOUCH_PX})")
        elif control.height() < TOUCH_PX:
            out.append(f"{what}: {name} is {control.height()} px high (< {TOUCH_PX})")
        if font_px(control) < TYPE_PX:
            out.append(f"{what}: {name} has {font_px(control):.0f} px type (< {TYPE_PX})")
    return out


def header_problems(top: Any, what: str) -> list[str]:
    """A list's header that is tapped to sort (sorting on, or its section clicks taken): at
    least 48 px high (issue 34: the review's were 24 px)."""
    from PySide6.QtCore import SIGNAL
    from PySide6.QtWidgets import QAbstractItemView, QHeaderView

    out: list[str] = []
    for header in top.findChildren(QHeaderView):
        view = header.parentWidget()
        if header.window() is not top or not header.isVisibleTo(top):
            continue
        sorts = isinstance(view, QAbstractItemView) and getattr(view, "isSortingEnabled", lambda: False)()
        if not (sorts or header.receivers(SIGNAL("sectionClicked(int)")) > 0):
            continue
        if header.height() < TOUCH_PX:
            out.append(f"{what}: {type(top).__name__}: the sorting header of {chain(header)} is "
                       f"{header.height()} px high (< {TOUCH_PX})")
    return out


def replays(top: Any) -> list[tuple[Any, Any, Any]]:
    """The round's layouts shown in ``top``: (layout, what shows it, where on that one's screen
    area the layout lies): a layout in a scroll area (its viewport), one drawn by a graphics view
    (the review's replay pane: its viewport, the layout scaled), or one in the window itself."""
    from PySide6.QtCore import QRect
    from PySide6.QtWidgets import QAbstractScrollArea, QGraphicsView

    from ui.common.table_view import TableView

    out: list[tuple[Any, Any, Any]] = []
    for view in top.findChildren(TableView):
        if view.window() is not top or not view.isVisibleTo(top):
            continue
        holder = view.parentWidget()
        while holder is not None and holder is not top and not isinstance(holder, QAbstractScrollArea):
            holder = holder.parentWidget()
        if isinstance(holder, QAbstractScrollArea):
            out.append((view, holder, QRect(view.mapTo(holder.viewport(), view.rect().topLeft()), view.size())))
        else:
            out.append((view, top, QRect(view.mapTo(top, view.rect().topLeft()), view.size())))
    for pane in top.findChildren(QGraphicsView):
        if pane.window() is not top or not pane.isVisibleTo(top) or pane.scene() is None:
            continue
        for item in pane.scene().items():
            widget = item.widget() if hasattr(item, "widget") else None
            if isinstance(widget, TableView) and item.isVisible():
                shown = pane.viewportTransform().mapRect(item.sceneBoundingRect())  # scene -> viewport
                out.append((widget, pane, QRect(round(shown.x()), round(shown.y()), round(shown.width()),
                                                round(shown.height()))))
    return out


def replay_problems(top: Any, what: str) -> list[str]:
    """The round's layout in a replay (the review's pane, the full-screen replay) readable:
    the whole layout seen, none of it behind a scroll bar or the pane's edge (issue 34: a big
    round's second row of areas under the review pane's edge); the dealer's and the areas'
    boxes inside the layout and none over another; every card's words readable and uncovered,
    every pay tag whole and off the cards and badges, no one-line label's text cut (the checks
    of the dealer's screen, tests/ui/test_fits.py)."""
    from PySide6.QtCore import QRect
    from PySide6.QtWidgets import QAbstractScrollArea, QGraphicsView, QLabel

    from tests.ui.test_fits import _cut_pay_tags, _unreadable_cards

    out: list[str] = []
    for view, holder, seen in replays(top):
        where = f"{what}: {type(top).__name__}: the replay in {chain(view) or type(holder).__name__}"
        if isinstance(holder, (QAbstractScrollArea, QGraphicsView)):
            room = holder.viewport().rect()
            if not room.contains(seen):
                out.append(f"{where}: the layout {seen.getRect()} not whole in its pane {room.getRect()} "
                           f"(scrolled, or under the pane's edge)")
            shown = seen.width() / max(1, view.width())
            if shown < REPLAY_LEAST_SHOWN:
                out.append(f"{where}: the layout shown at {shown:.2f} of its size (< {REPLAY_LEAST_SHOWN})")
        boxes = [("dealer", view.dealer_box), *((f"area {n}", b) for n, b in view.area_boxes.items())]
        placed = [(name, QRect(box.mapTo(view, box.rect().topLeft()), box.size())) for name, box in boxes
                  if box is not None and box.isVisibleTo(view)]
        for n, (name, rect) in enumerate(placed):
            if not view.rect().contains(rect):
                out.append(f"{where}: {name} {rect.getRect()} outside the layout {view.rect().getRect()}")
            for other, rect2 in placed[n + 1:]:
                if rect.intersects(rect2):
                    out.append(f"{where}: {name} {rect.getRect()} over {other} {rect2.getRect()}")
        out += [f"{where}: {p}" for p in _unreadable_cards(view) + _cut_pay_tags(view)]
        for label in view.findChildren(QLabel):
            if not label.isVisibleTo(view) or not label.text() or "<" in label.text():
                continue
            parts = label.text().split() if label.wordWrap() else label.text().split("\n")
            need = max(label.fontMetrics().horizontalAdvance(part) for part in parts)
            if need > label.contentsRect().width() + 1:
                out.append(f"{where}: label {label.text()!r} cut: {need} > {label.contentsRect().width()} px")
    return out


def overlap_problems(top: Any, what: str, skip: Callable[[Any], bool]) -> list[str]:
    """Two things the dealer touches or reads painted over each other (issue 34: a widget over
    another is not seen by the checks above): every visible button, pay tag and card of
    ``top``, each cut to the part its parents show (a scroll area's viewport), against every
    other; a card over the next card of its own hand is the hand's spread (CardRow: each
    corner left visible), and a widget inside another is not over it."""
    from PySide6.QtCore import QRect
    from PySide6.QtWidgets import QAbstractButton

    from ui.common.cards import CardFace
    from ui.common.table_view import PayTag

    def shown(widget: Any) -> Any:
        rect = QRect(widget.mapTo(top, widget.rect().topLeft()), widget.size())
        parent = widget.parentWidget()
        while parent is not None and parent is not top:
            rect &= QRect(parent.mapTo(top, parent.rect().topLeft()), parent.size())
            parent = parent.parentWidget()
        return rect

    things: list[tuple[str, Any, Any]] = []
    for widget in [w for kind in (QAbstractButton, PayTag, CardFace) for w in top.findChildren(kind)]:
        if widget.window() is not top or not widget.isVisibleTo(top) or skip(widget):
            continue
        if isinstance(widget, PayTag) and not widget.lines:
            continue  # (an empty tag paints nothing)
        rect = shown(widget)
        if rect.isEmpty():
            continue
        if isinstance(widget, PayTag):
            name = f"pay tag {widget.text()!r}"
        elif isinstance(widget, CardFace):
            name = f"card {widget.text}"
        else:
            name = f"button {widget.text() or widget.objectName() or type(widget).__name__!r}"
        things.append((name, widget, rect))
    out: list[str] = []
    for n, (name, widget, rect) in enumerate(things):
        for other_name, other, other_rect in things[n + 1:]:
            if not rect.intersects(other_rect) or widget.isAncestorOf(other) or other.isAncestorOf(widget):
                continue
            if isinstance(widget, CardFace) and isinstance(other, CardFace) and widget.parent() is other.parent():
                continue  # a hand's spread
            out.append(f"{what}: {type(top).__name__}: {name} at {rect.getRect()} and {other_name} at "
                       f"{other_rect.getRect()} overlap (in {chain(widget)})")
    return out
