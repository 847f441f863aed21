"""Properties of the stored JSON and money text (hypothesis)."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from dealer_assist.store import canonical_json, decimal_text

cents = st.integers(min_value=-(10**9), max_value=10**9).map(lambda n: Decimal(n) / 100)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text() | cents,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


def _same(stored: Any, original: Any) -> bool:
    if isinstance(original, Decimal):
        return not isinstance(stored, bool) and Decimal(repr(stored)) == original
    if isinstance(original, dict):
        return list(stored) == list(original) and all(
            _same(stored[k], v) for k, v in original.items()
        )
    if isinstance(original, list):
        return len(stored) == len(original) and all(map(_same, stored, original))
    return type(stored) is type(original) and stored == original


@settings(max_examples=100, deadline=None)
@given(json_values)
def test_canonical_json_keeps_values_and_key_order(value: Any) -> None:
    text = canonical_json(value)
    assert _same(json.loads(text), value)
    assert canonical_json(json.loads(text)) == text  # stable: storing again changes nothing


@settings(max_examples=200, deadline=None)
@given(cents)
def test_amounts_become_exactdecimal_text(amount: Decimal) -> None:
    assert Decimal(decimal_text(amount)) == amount
    assert Decimal(decimal_text(float(amount))) == amount  # floats parsed from JSON too
    assert Decimal(decimal_text(json.loads(canonical_json(amount)))) == amount
