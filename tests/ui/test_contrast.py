"""Every text on its background in the dealer's style sheet and the painted layout reads
at least 4.5:1 (WCAG 2.x AA; 3:1 for type of 24 px and more in bold) — issue 34, item 8.

The pairs are read from the style sheet itself (``ui.common.style.app_style``): a rule with
a background pairs with its own ``color``, or with the ``color`` of a rule for the labels
inside it ("X QLabel"), or else with the window's text colour; the layout's painted text
(pay amounts, badges) comes from ``style.PAINTED_PAIRS``."""

from __future__ import annotations

import re
from typing import Any

import pytest

from ui.common import style

RULE = re.compile(r"([^{}]+)\{\{?([^{}]*)\}")


def luminance(colour: str) -> float:
    """Relative luminance (WCAG 2.x) of ``#rgb`` / ``#rrggbb``."""
    hexa = colour.lstrip("#")
    if len(hexa) == 3:
        hexa = "".join(c * 2 for c in hexa)
    channels = [int(hexa[i:i + 2], 16) / 255 for i in (0, 2, 4)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a: str, b: str) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def rules() -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {}
    for selectors, body in RULE.findall(style.app_style()):
        props = dict((k.strip(), v.strip()) for k, _, v in (p.partition(":") for p in body.split(";")) if v.strip())
        for selector in selectors.split(","):
            out.setdefault(" ".join(selector.split()), {}).update(props)
    return out


def colour_of(value: str) -> str | None:
    found = re.search(r"#[0-9a-fA-F]{6}\b|#[0-9a-fA-F]{3}\b", value)
    return found.group(0) if found else None


def pairs() -> list[tuple[str, str, str, bool]]:
    """(text, background, where, large bold) of the style sheet and the painted layout."""
    sheet = rules()
    default = colour_of(sheet["QWidget"]["color"])
    assert default is not None
    out: list[tuple[str, str, str, bool]] = []
    for selector, props in sheet.items():
        background = colour_of(props.get("background", ""))
        if background is None:
            continue
        text = colour_of(props.get("color", "")) or colour_of(sheet.get(f"{selector} QLabel", {}).get("color", ""))
        base = selector
        while text is None and base != (base := re.sub(r"(\[[^]]*\]|:[a-z-]+)$", "", base)):
            # a state rule (…[turn="true"], :checked) keeps its base rule's text colour
            text = (colour_of(sheet.get(base, {}).get("color", ""))
                    or colour_of(sheet.get(f"{base} QLabel", {}).get("color", "")))
        size = re.search(r"(\d+)px", props.get("font-size", ""))
        large = bool(size and int(size.group(1)) >= 24 and "bold" in props.get("font-weight", ""))
        out.append((text or default, background, selector, large))
    out += [(text, bg, where, False) for text, bg, where in style.PAINTED_PAIRS]
    return out


def test_the_pairs_are_found() -> None:
    found = {where for _, _, where, _ in pairs()}
    # the felt, the terminal selected, disabled buttons and the collect amounts are among them
    assert {'QFrame[role="area"]', 'QFrame[role="area"][turn="true"]', "QPushButton:disabled",
            "collect on the terminal selected", "collect on the felt"} <= found


@pytest.mark.parametrize("text,background,where,large", pairs(), ids=lambda v: v if isinstance(v, str) else "")
def test_every_text_reads_against_its_background(text: str, background: str, where: str, large: bool) -> None:
    need = 3.0 if large else 4.5
    assert contrast(text, background) >= need, f"{where}: {text} on {background} is {contrast(text, background):.2f}:1"


def test_the_formula() -> None:  # WCAG's own end points and a known pair
    assert contrast("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)


def drawn_disabled(qtbot: Any, sheet: str, role: str | None, checked: bool = False) -> tuple[str, str, float, bool]:
    """A disabled button of ``role`` drawn under ``sheet``: (its ground, its type's colour
    measured from the pixels, their contrast, whether its top frame is dashed)."""
    from PySide6.QtGui import QColor
    from PySide6.QtWidgets import QPushButton, QVBoxLayout, QWidget

    top = QWidget()
    top.setStyleSheet(sheet)
    button = QPushButton("WWW MMM")
    if role:
        button.setProperty("role", role)
    button.setCheckable(checked)
    button.setChecked(checked)
    button.setEnabled(False)
    QVBoxLayout(top).addWidget(button)
    qtbot.addWidget(top)
    top.resize(400, 140)
    top.show()
    qtbot.waitExposed(top)
    image = button.grab().toImage()
    w, h = image.width(), image.height()

    def lum(c: QColor) -> float:
        return luminance(c.name())

    ground = image.pixelColor(w // 2, 6)  # inside the frame, above the words
    # the words: the pixel of the middle band furthest in luminance from the ground
    ink = max((image.pixelColor(x, y) for x in range(w // 4, 3 * w // 4) for y in range(h // 3, 2 * h // 3)),
              key=lambda c: abs(lum(c) - lum(ground)))
    # the frame's top edge (row 1, the corners' curves left out): a dashed one has gaps of ground
    edge = {image.pixelColor(x, 1).name() for x in range(16, w - 16)}
    return ground.name(), ink.name(), contrast(ink.name(), ground.name()), ground.name() in edge


@pytest.mark.parametrize("sheet", ["dealer", "review"])
def test_a_disabled_button_reads_and_looks_disabled_in_every_role(qtbot: Any, sheet: str) -> None:
    """Issue 34 item 8: a greyed-out button's words ≥ 4.5:1 on its ground, measured on the drawn
    button (not only the sheet's pair); it looks disabled by more than colour — the same pale
    ground in every role (a disabled Stand is not yellow, a checked toggle not blue) and a
    dashed frame (an enabled button's is solid: checked the same way, so the check can fail)."""
    text = style.app_style() if sheet == "dealer" else style.review_style()
    problems = []
    for role, checked in [(None, False), *((r, False) for r in style.BUTTON_ROLES), ("toggle", True)]:
        ground, ink, ratio, dashed = drawn_disabled(qtbot, text, role, checked)
        where = f"{role or 'plain'}{' checked' if checked else ''}"
        if ratio < 4.5:
            problems.append(f"{where}: {ink} on {ground} is {ratio:.2f}:1")
        if ground != style.DISABLED_BACKGROUND:
            problems.append(f"{where}: drawn on {ground}, not the disabled ground {style.DISABLED_BACKGROUND}")
        if not dashed:
            problems.append(f"{where}: its frame is not dashed")
    assert problems == []


def test_an_enabled_button_has_a_solid_frame(qtbot: Any) -> None:
    """The dashed-frame check above tells a solid frame from a dashed one."""
    from PySide6.QtWidgets import QPushButton, QVBoxLayout, QWidget

    top = QWidget()
    top.setStyleSheet(style.app_style())
    button = QPushButton("WWW MMM")
    QVBoxLayout(top).addWidget(button)
    qtbot.addWidget(top)
    top.resize(400, 140)
    top.show()
    qtbot.waitExposed(top)
    image = button.grab().toImage()
    ground = image.pixelColor(image.width() // 2, 6).name()
    assert ground == "#ffffff"  # QPushButton's ground in the sheet
    assert ground not in {image.pixelColor(x, 1).name() for x in range(16, image.width() - 16)}
