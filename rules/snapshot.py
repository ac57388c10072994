"""A deep copy of a figure's plain data, to tell later whether it changed.

Memos keyed on a figure's *version* (agents/threat_memo.py, cortex_hu's defence) keep such
a copy and compare the live figure with it: equal means nothing the memo read has changed.
Only plain values are copied; anything else (an object whose equality says nothing about its
contents) makes the copy `NOT_PLAIN`, and the memo then goes the long way."""

from __future__ import annotations

from typing import Any

#: what `plain_copy` returns when `v` holds anything but plain values
NOT_PLAIN = object()
#: the leaf types of plain data: immutable, compared by value
PLAIN = frozenset({int, str, bool, float, type(None)})


def plain_copy(v: Any, leaf: frozenset = PLAIN) -> Any:
    """A deep copy of `v` (dicts, lists, tuples, sets and frozensets of `leaf` values), equal to
    `v` until `v` changes; `NOT_PLAIN` when anything else is in it (dict keys included)."""
    t = type(v)
    if t in leaf:
        return v
    if t is dict:
        out = {}
        for k, x in v.items():
            if type(k) not in leaf:
                return NOT_PLAIN
            y = plain_copy(x, leaf)
            if y is NOT_PLAIN:
                return NOT_PLAIN
            out[k] = y
        return out
    if t in (list, tuple, set, frozenset):
        items = [plain_copy(x, leaf) for x in v]
        if any(y is NOT_PLAIN for y in items):
            return NOT_PLAIN
        return t(items)
    return NOT_PLAIN
