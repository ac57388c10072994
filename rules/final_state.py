"""The state of a fight as JSON: everything the rules track (rules/schema/final_state.schema.json).

`state_summary` is the replay's final state (`tactica replay --json`), the API's fight
summary and what tests compare.
"""

from __future__ import annotations

import json
from typing import Any, Mapping

import numpy as np

from rules.ruleset import Ruleset, get_ruleset
from rules.state import BattleState


def state_summary(state: BattleState, ruleset: Ruleset | None = None) -> dict[str, Any]:
    """Everything a GM or a test checks after a fight, as JSON (rules/schema/final_state.schema.json).

    Per figure: team, position [x, y], conditions, every JSON-able resource (`res`, sets as
    sorted lists) and, under `rules`, what the ruleset tracks beyond that (`Ruleset.tracked`).
    Beside them: round, whether it is over and who won, the acting figure and its turn
    economy, and the objects lying on the map."""
    rs = ruleset if ruleset is not None else get_ruleset(state.ruleset)
    g = state.grid
    acting = state.actor if not state.over else None
    figures: dict[str, Any] = {}
    for c in state.combatants:
        d: dict[str, Any] = {"team": c.team, "pos": list(g.xy(c.pos)), "conditions": sorted(c.conditions)}
        for k, v in c.res.items():
            jv = _to_json(v)
            if jv is not _SKIP and k not in _FIGURE_KEYS:
                d[k] = jv
        d["rules"] = _tracked(rs, state, c)
        figures[c.id] = d
    return {
        "round": state.round,
        "over": state.over,
        "winner": state.winner,
        "end_reason": state.end_reason,
        "actor": acting.id if acting is not None else None,
        "economy": _json_dict(state.economy) if acting is not None else {},
        "objects": [{"at": list(g.xy(cell)), "items": [_named(x) for x in items]}
                    for cell, items in sorted(state.objects.items()) if items],
        "combatants": figures,
    }


_FIGURE_KEYS = frozenset({"team", "pos", "conditions", "rules"})
_SKIP = object()


def _to_json(v: Any) -> Any:
    """`v` as JSON data (tuples and sets as lists, sets sorted), or `_SKIP` when it has no
    JSON form (an object, a dict with keys that are not strings)."""
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, (list, tuple)):
        out = [_to_json(x) for x in v]
        return _SKIP if any(x is _SKIP for x in out) else out
    if isinstance(v, (set, frozenset)):
        out = [_to_json(x) for x in v]
        if any(x is _SKIP for x in out):
            return _SKIP
        return sorted(out, key=lambda x: (type(x).__name__, json.dumps(x, sort_keys=True)))
    if isinstance(v, Mapping):
        if not all(isinstance(k, str) for k in v):
            return _SKIP
        d = {k: _to_json(x) for k, x in v.items()}
        return _SKIP if any(x is _SKIP for x in d.values()) else d
    if isinstance(v, (np.generic, np.ndarray)):
        return _to_json(v.tolist())
    return _SKIP


def _named(item: Any) -> Any:
    """An object on the map as JSON: itself when it is JSON data, else its name (or text)."""
    j = _to_json(item)
    return j if j is not _SKIP else str(getattr(item, "name", item))


def _tracked(rs: Ruleset, state: BattleState, c: Any) -> dict[str, Any]:
    """`rs.tracked(state, c)` as JSON (sets as sorted lists); anything else is the ruleset's bug."""
    d = rs.tracked(state, c)
    jd = _to_json(d)
    if not isinstance(d, Mapping) or jd is _SKIP:
        bad = [k for k, v in d.items() if _to_json(v) is _SKIP] if isinstance(d, Mapping) else ["(not a dict)"]
        raise TypeError(f"{rs.name}: Ruleset.tracked({c.id}) must return a dict of JSON data; "
                        f"not JSON: {', '.join(map(str, bad)) or '(a key that is not a string)'}")
    return jd


def _json_dict(d: Mapping[str, Any]) -> dict[str, Any]:
    """The JSON-able entries of a mapping (others are left out)."""
    out = {}
    for k, v in d.items():
        jv = _to_json(v)
        if jv is not _SKIP and isinstance(k, str):
            out[k] = jv
    return out
