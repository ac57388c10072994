"""`status FIGURE` at the table: the ruleset's own view of a figure (`Ruleset.tracked`, the view
the API serves) in lines a GM reads, not the engine's bookkeeping.

The view is a nested mapping whose shape each ruleset chooses (cortex's stun and wound, metalface's
Status level, facing and posture, cybergeneration's wounds and held action). It is written out
generically: the plain values on one line, each nested block on a line of its own named by its key,
empty and unset entries left out; the turn's economy only for the figure whose turn it is.
"""

from __future__ import annotations

from typing import Any, Mapping

#: the view's keys that the status headline already gives, or that are the map's business
SKIP = frozenset({"pos", "down"})


def _words(key: str) -> str:
    return key.replace("_", " ")


def _empty(v: Any) -> bool:
    return v is None or v is False or (isinstance(v, (list, tuple, dict, set, str)) and not v)


def _value(v: Any, names: frozenset[str] = frozenset()) -> str:
    """One value, compact: a mapping as `k v, k v`, a list as `a, b`; keys in `names` (weapons,
    items) keep their ids, as the commands type them."""
    if v is True:
        return "yes"
    if isinstance(v, float):
        return f"{v:g}"
    if isinstance(v, Mapping):
        parts = []
        for k, x in v.items():
            if _empty(x):
                continue
            key = str(k) if k in names else _words(str(k))
            if isinstance(x, Mapping):
                parts.append(f"{key} ({_value(x, names)})")
            elif x is True:
                parts.append(key)
            else:
                parts.append(f"{key} {_value(x, names)}")
        return ", ".join(parts)
    if isinstance(v, (list, tuple)):
        return ", ".join(f"({_value(x, names)})" if isinstance(x, Mapping) and len(x) > 1 else _value(x, names)
                         for x in v if not _empty(x))
    if isinstance(v, str) and v not in names:   # a condition's or an armour's key as words ("non responsive")
        return _words(v)
    return str(v)


def status_lines(tracked: Mapping[str, Any], acting: bool, names: frozenset[str] = frozenset()) -> list[str]:
    """The lines of `status` under the headline: the plain values, then one line per block; `names`
    (the figure's weapons) are written as ids."""
    plain, blocks = [], []
    for k, v in tracked.items():
        if k in SKIP or _empty(v) or (k == "turn" and not acting):
            continue
        if isinstance(v, (Mapping, list, tuple)):
            text = _value(v, names)
            if text:
                blocks.append(f"{'this turn' if k == 'turn' else _words(k)}: {text}")
        else:
            plain.append(f"{_words(k)} {_value(v)}")
    return ([", ".join(plain)] if plain else []) + blocks
