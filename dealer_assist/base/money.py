"""Exact money: amounts are Decimals of whole cents; winnings round down to the cent."""

from __future__ import annotations

from decimal import ROUND_DOWN, Decimal, InvalidOperation
from fractions import Fraction
from typing import Final

CENT: Final = Decimal("0.01")
ZERO: Final = Decimal(0)
# The largest amount (a wager, a limit) a transcript may hold. Every sum the rules make of
# such amounts (8000 to 1 is the highest odds) stays exact in Decimal arithmetic (28
# digits) and prints exactly as a JSON number (15 significant digits at most).
MAX_AMOUNT: Final = Decimal(1_000_000_000)


class AmountError(ValueError):
    """An amount that is not a positive multiple of 0.01, or one above MAX_AMOUNT."""


def shown_number(value: object) -> str:
    """A number as an error line quotes it: as written in JSON (``25.5``, not
    ``Decimal('25.5')``), at most 40 characters."""
    text = str(value) if isinstance(value, Decimal | int) and not isinstance(value, bool) else repr(value)
    return text if len(text) <= 40 else f"{text[:20]}…{text[-8:]} ({len(text)} characters)"


def parse_amount(value: object) -> Decimal:
    """A transcript amount (JSON number) as an exact Decimal; refuses floats' noise and sub-cents."""
    if isinstance(value, bool) or not isinstance(value, int | float | str | Decimal):
        raise AmountError(f"amount {shown_number(value)} is not a number")
    try:
        amount = Decimal(str(value)) if not isinstance(value, Decimal) else value
    except InvalidOperation:
        raise AmountError(f"amount {shown_number(value)} is not a number") from None
    if not amount.is_finite() or amount <= 0:
        raise AmountError(f"amount {shown_number(value)} must be greater than 0")
    if amount > MAX_AMOUNT:  # before quantize, which cannot hold 10^26 and more to the cent
        raise AmountError(f"amount {shown_number(value)} is more than the largest amount, {MAX_AMOUNT}")
    if amount != amount.quantize(CENT, rounding=ROUND_DOWN):
        raise AmountError(f"amount {shown_number(value)} is not a multiple of 0.01")
    return amount


def winnings(stake: Decimal, odds: Fraction) -> Decimal:
    """What a winning ``stake`` is paid at ``odds`` (e.g. 6 to 5), rounded down to the cent."""
    # (The rounding passed by position: a keyword doubles what quantize costs.)
    denominator = odds.denominator
    raw = stake * odds.numerator if denominator == 1 else stake * odds.numerator / denominator
    return raw.quantize(CENT, ROUND_DOWN)


def half_kept(stake: Decimal) -> Decimal:
    """Surrender (1.1.17): the player keeps half, rounded down to the cent; the rest is lost."""
    return (stake / 2).quantize(CENT, ROUND_DOWN)


def to_json_number(amount: Decimal) -> int | float:
    """Whole amounts print as integers (30), others with at most two decimals (37.5)."""
    numerator, denominator = amount.as_integer_ratio()  # the cheapest exact test for a whole amount
    if denominator == 1:
        return numerator
    return float(amount.quantize(CENT))
