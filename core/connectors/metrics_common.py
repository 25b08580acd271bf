"""What the connectors' metrics readings share (docs/analytics.md, "Each platform"): a platform's
fields mapped to the vocabulary (contract/analytics.py), each a count or absent, never a zero made
up for a field the answer did not carry."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from core.connectors.common import as_int


def count(value: Any) -> int | None:
    """A count from an answer (an integer, or a string of one as YouTube sends); None when it is
    missing, negative or not a number."""
    number = as_int(value)
    return number if number is not None and number >= 0 else None


def mapped(fields: Any, names: Mapping[str, str]) -> dict[str, int]:
    """`fields`' counts under our names (`names`: their field → ours); a field the answer does
    not carry stays absent."""
    out: dict[str, int] = {}
    if not isinstance(fields, Mapping):
        return out
    for theirs, ours in names.items():
        number = count(fields.get(theirs))
        if number is not None:
            out[ours] = number
    return out
