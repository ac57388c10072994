"""The GM overrules the engine (issue #33): set a damage track, put a condition on or take it
off, place a figure on any free cell, add a figure from a template, take one out of the fight,
change the initiative order, end the fight.

`apply_override(battle, spec)` checks `spec` whole first (a bad one raises `OverrideError`
naming the field and what was expected, and changes nothing), then changes the fight and logs
it through the battle's own plumbing: one `override` event (`kind`, `figure` or null,
`before`, `after`), then the events of what the rules make of the change (condition, down,
dead, grapples let go, the turn passing on, the fight's end). It returns those events.

```python
apply_override(battle, {"kind": "track", "figure": "mal", "track": "wound", "value": 5})
apply_override(battle, {"kind": "condition", "figure": "mal", "condition": "prone", "on": True})
apply_override(battle, {"kind": "place", "figure": "mal", "cell": [3, 4]})
apply_override(battle, {"kind": "add", "template": "thug", "team": "crew", "cell": [5, 5],
                        "name": "Thug 2", "id": "thug2"})          # name and id optional
apply_override(battle, {"kind": "remove", "figure": "jubal"})
apply_override(battle, {"kind": "order", "order": ["jubal", "mal"]})
apply_override(battle, {"kind": "end", "winner": "crew", "reason": "they surrender"})
```

An override is not a decision: `battle.actions_resolved` does not move, so its events carry
the `step` of the decision before it (0 before the first) and the current `round`; the next
decision's events carry the next step, as without the override.

After every override the fight is in a state the rules can go on from: the end is checked (one
team standing: `battle_end`), and when the figure whose turn it is can no longer act (it went
down, or was taken out) its turn ends as any turn ends and the next figure's starts. A figure
added joins the current round's order at its end (and every later round's order as the
ruleset rolls it). Overrides need a started fight, not over, with no open question.
"""

from __future__ import annotations

import difflib
from typing import Any, Mapping

from rules.battle import Battle
from rules.errors import OverrideError, TacticaError
from rules.events import Event, event
from rules.names import did_you_mean
from rules.limits import MAX_FIGURES, check_name
from rules.state import BattleState, Combatant

#: kind -> (required fields, optional fields) besides `kind`
KINDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "track": (("figure", "track", "value"), ()),
    "condition": (("figure", "condition", "on"), ()),
    "place": (("figure", "cell"), ()),
    "add": (("template", "team", "cell"), ("name", "id")),
    "remove": (("figure",), ()),
    "order": (("order",), ()),
    "end": (("winner",), ("reason",)),
}


def _fail(msg: str, field: str, expected: str) -> OverrideError:
    return OverrideError(msg, field=field, expected=expected)


def _one_of(names: list[str] | tuple[str, ...], wanted: Any, what: str) -> str:
    """'one of a, b, c', led by a 'did you mean' when `wanted` is close to one of them."""
    close = difflib.get_close_matches(str(wanted), list(names), n=1) if isinstance(wanted, str) else []
    head = f"did you mean {close[0]!r}? " if close else ""
    return head + f"one of the {what}: " + (", ".join(names) or "(none)")


def _figure(s: BattleState, spec: Mapping[str, Any]) -> Combatant:
    fid = spec.get("figure")
    if not isinstance(fid, str) or fid not in s.by_id:
        raise _fail(f"there is no figure {fid!r}", "figure", _one_of([c.id for c in s.combatants], fid, "figures"))
    return s.by_id[fid]


def _free_cell(s: BattleState, raw: Any, field: str, me: Combatant | None = None) -> int:
    g = s.grid
    if (not isinstance(raw, (list, tuple)) or len(raw) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in raw)):
        raise _fail(f"cell {raw!r}", field, "[x, y], two whole numbers")
    x, y = raw
    if not g.in_bounds(x, y):
        raise _fail(f"cell {[x, y]} is off the {g.width}x{g.height} map", field,
                    f"0 <= x < {g.width}, 0 <= y < {g.height}")
    cell = g.index(x, y)
    if not g.passable[cell]:
        raise _fail(f"cell {[x, y]} is inside {g.terrain[cell].name}", field, "a cell a figure can stand on")
    for c in s.combatants:
        if c.pos == cell and c is not me:
            raise _fail(f"cell {[x, y]} is taken by {c.id}", field, "a free cell (no figure on it)")
    return cell


def _whole(v: Any, field: str, lo: int, hi: int, what: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise _fail(f"{field} {v!r}", field, f"a whole number from {lo} to {hi} ({what})")
    return v


# -- checking: each returns what applying needs -----------------------------------------------------
def _check(battle: Battle, spec: Any) -> dict[str, Any]:
    s, rs = battle.state, battle.ruleset
    if not isinstance(spec, Mapping):
        raise _fail(f"an override must be a mapping, not {type(spec).__name__}", "kind",
                    "{kind: " + " | ".join(KINDS) + ", ...}")
    from rules.errors import ScenarioError
    from rules.state_check import check_document
    try:   # NaN, infinities, lone surrogates: a name that would break every later read
        check_document(dict(spec))
    except ScenarioError as e:
        raise _fail(e.detail, e.field or "kind", e.expected or "finite numbers and whole text") from None
    kind = spec.get("kind")
    if kind not in KINDS:
        raise _fail(f"unknown override {kind!r}", "kind", _one_of(tuple(KINDS), kind, "overrides"))
    need, may = KINDS[kind]
    bad = sorted(set(spec) - set(need) - set(may) - {"kind"})
    if bad:
        raise _fail(f"unknown field(s) {bad} for {kind}{did_you_mean(bad[0], need + may)}", bad[0],
                    ", ".join(("kind",) + need + may))
    missing = [f for f in need if f not in spec]
    if missing:
        raise _fail(f"{kind} needs {missing[0]}", missing[0], ", ".join(("kind",) + need + may))
    if s.round == 0:
        raise _fail("the fight has not started", "kind", "an override once the fight is under way")
    if s.over:
        raise _fail("the fight is over", "kind", "an override before the fight ends")
    if s.pending is not None:
        q = s.pending.question
        raise _fail(f"{q.figure} must answer {q.key} first", "kind", "an override after the open question")
    plan: dict[str, Any] = {"kind": kind}
    if kind in ("track", "condition", "place", "remove"):
        plan["c"] = _figure(s, spec)
    if kind == "track":
        c = plan["c"]
        tracks = rs.damage_tracks(c)
        name = spec["track"]
        if name not in tracks:
            raise _fail(f"{rs.name} has no track {name!r}", "track", _one_of(tuple(tracks), name, "tracks"))
        plan["track"] = name
        plan["value"] = _whole(spec["value"], "value", 0, tracks[name][1], f"{c.id}'s {name}, at most {tracks[name][1]}")
    elif kind == "condition":
        name, on = spec["condition"], spec["on"]
        follows = rs.track_conditions()
        if name in follows:
            raise _fail(f"{name} follows the {follows[name]} track", "condition",
                        f"a track override of {follows[name]}, or one of: " + ", ".join(rs.gm_conditions()))
        if name not in rs.gm_conditions():
            raise _fail(f"unknown condition {name!r}", "condition",
                        _one_of(rs.gm_conditions(), name, f"conditions a GM sets in {rs.name}"))
        if not isinstance(on, bool):
            raise _fail(f"on {on!r}", "on", "true (put it on) or false (take it off)")
        plan["condition"], plan["on"] = name, on
    elif kind == "place":
        plan["cell"] = _free_cell(s, spec["cell"], "cell", plan["c"])
    elif kind == "add":
        plan.update(_check_add(s, rs, spec))
    elif kind == "order":
        order = spec["order"]
        if (not isinstance(order, list) or not all(isinstance(x, str) for x in order)
                or sorted(order) != sorted(s.order)):
            raise _fail(f"order {order!r}", "order", "the ids of this round's order, each once, in any order: "
                        + ", ".join(s.order))
        plan["order"] = list(order)
    elif kind == "end":
        w = spec["winner"]
        if w is not None and w not in s.teams:
            raise _fail(f"winner {w!r}", "winner", "null (a draw) or " + _one_of(s.teams, w, "teams"))
        reason = spec.get("reason", "")
        if not isinstance(reason, str):
            raise _fail(f"reason {reason!r}", "reason", "words saying why")
        plan["winner"], plan["reason"] = w, reason
    return plan


def _check_add(s: BattleState, rs: Any, spec: Mapping[str, Any]) -> dict[str, Any]:
    tname, team = spec["template"], spec["team"]
    if tname not in rs.templates():
        raise _fail(f"unknown template {tname!r}", "template", _one_of(rs.templates(), tname, f"{rs.name} templates"))
    if team not in s.teams:
        raise _fail(f"team {team!r}", "team", _one_of(s.teams, team, "teams"))
    if len(s.combatants) >= MAX_FIGURES:
        raise _fail(f"the fight has {len(s.combatants)} figures", "template", f"at most {MAX_FIGURES} figures in a fight")
    cell = _free_cell(s, spec["cell"], "cell")
    fid = spec.get("id")
    if fid is None:
        k = 1
        while f"{tname}_{k}" in s.by_id:
            k += 1
        fid = f"{tname}_{k}"
    elif not isinstance(fid, str) or not fid or fid in s.by_id:
        raise _fail(f"id {fid!r}" + (" is taken" if fid in s.by_id else ""), "id", "a new, non-empty id")
    for key in ("id", "name"):
        try:
            check_name(spec.get(key), None, key)
        except TacticaError as e:
            raise OverrideError(e.detail, field=e.field, expected=e.expected) from None
    entry: dict[str, Any] = {"id": fid, "template": tname, "at": list(s.grid.xy(cell))}
    if "name" in spec:
        if not isinstance(spec["name"], str) or not spec["name"]:
            raise _fail(f"name {spec['name']!r}", "name", "a non-empty name")
        entry["name"] = spec["name"]
    try:
        c = rs.build_combatant(entry, id=fid, team=team, pos=cell, order=max((x.order for x in s.combatants),
                                                                              default=-1) + 1,
                               source=None, field="add")
    except TacticaError as e:
        raise OverrideError(e.detail, field=e.field, expected=e.expected) from None
    return {"new": c}


# -- applying --------------------------------------------------------------------------------------
def apply_override(battle: Battle, spec: Mapping[str, Any]) -> list[Event]:
    """Apply one GM override to `battle` (see the module docstring) and return its events."""
    plan = _check(battle, spec)
    s = battle.state
    snapshot = (s.clone(), list(s.combatants), len(battle.events))
    try:
        return _apply(battle, plan)
    except Exception:
        copy, cs, n = snapshot
        s.combatants[:] = cs
        s.by_id = {c.id: c for c in cs}
        s.restore(copy)
        del battle.events[n:]
        raise


def _apply(battle: Battle, plan: dict[str, Any]) -> list[Event]:
    s, rs = battle.state, battle.ruleset
    kind = plan["kind"]
    c: Combatant | None = plan.get("c")
    g = s.grid
    evs: list[Event]
    if kind == "track":
        name = plan["track"]
        before = rs.damage_tracks(c)[name][0]
        rule = rs.set_track(s, c, name, plan["value"])
        evs = [_ev(kind, c.id, before, rs.damage_tracks(c)[name][0], track=name)] + rule
    elif kind == "condition":
        name = plan["condition"]
        before = name in c.conditions
        rule = rs.set_condition(s, c, name, plan["on"])
        evs = [_ev(kind, c.id, before, name in c.conditions, condition=name)] + rule
    elif kind == "place":
        before = list(g.xy(c.pos))
        rule = rs.detach(s, c, "place")
        c.pos = plan["cell"]
        evs = [_ev(kind, c.id, before, list(g.xy(c.pos)))] + rule
    elif kind == "add":
        c = plan["new"]
        s.combatants.append(c)
        s.by_id[c.id] = c
        if not c.down:
            s.order.append(c.id)
        rule = rs.join(s, c)
        evs = [_ev(kind, c.id, None, {"team": c.team, "template": c.template, "name": c.name,
                                      "pos": list(g.xy(c.pos)), "in_order": c.id in s.order},
                   template=c.template, team=c.team)] + rule
    elif kind == "remove":
        return _remove(battle, c)
    elif kind == "order":
        owner = s.turn_owner
        evs = [_ev(kind, None, list(s.order), plan["order"])]
        if owner is not None:      # the same turn of the owner (an id may be listed twice)
            k = s.order[:s.turn_index + 1].count(owner.id)
            s.turn_index = [i for i, x in enumerate(plan["order"]) if x == owner.id][k - 1]
        s.order = plan["order"]
    else:  # end
        s.over, s.winner, s.end_reason = True, plan["winner"], "gm"
        evs = [_ev(kind, None, None, {"winner": plan["winner"], "reason": plan["reason"]}),
               event("battle_end", winner=plan["winner"], rounds=s.round, reason="gm", note=plan["reason"])]
    battle._emit(evs)
    return evs + _settle(battle)


def _remove(battle: Battle, c: Combatant) -> list[Event]:
    """Take `c` out of the fight and the order; on its own turn, the turn ends first."""
    s, rs, g = battle.state, battle.ruleset, battle.state.grid
    evs = [_ev("remove", c.id, {"team": c.team, "pos": list(g.xy(c.pos)), "in_order": c.id in s.order}, None)]
    evs += rs.detach(s, c, "remove")
    battle._emit(evs)
    out = list(evs)
    was_turn = s.turn_owner is c
    if was_turn:
        out += battle._finish_turn()
    s.combatants.remove(c)
    del s.by_id[c.id]
    for i in reversed([i for i, x in enumerate(s.order) if x == c.id]):   # a delayed turn may list it twice
        del s.order[i]
        if i <= s.turn_index:
            s.turn_index -= 1
    out += battle._check_end()
    if was_turn and not s.over:
        out += battle._next_turn()
    return out + _settle(battle)


def _settle(battle: Battle) -> list[Event]:
    """The fight's end, and the turn passing on when the figure whose turn it is cannot act."""
    s = battle.state
    out = battle._check_end()
    owner = s.turn_owner
    if not s.over and owner is not None and owner.down:
        out += battle._finish_turn()
        if not s.over:
            out += battle._next_turn()
    return out


def _ev(kind: str, figure: str | None, before: Any, after: Any, **more: Any) -> Event:
    return event("override", kind=kind, figure=figure, before=before, after=after, **more)


__all__ = ["KINDS", "apply_override"]
