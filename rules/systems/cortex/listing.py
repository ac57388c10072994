"""Cortex's legal attacks, listed in one pass (issue #30: the hot path of every decision).

`attack_actions` gives what `CombatMixin._can_attack` and `attack_dice` would allow for
each standing enemy and usable weapon, in the same order, but works out once per call
what does not depend on the target (each weapon's shots, ammunition and options), once
per target what does not depend on the weapon (sight, adjacency, distance), and each
attack pool once per (weapon, option, range band) by step arithmetic (`AttackPools`). It is
exact because within one call the state does not change: a pool depends on the target only
through its range band.
"""

from __future__ import annotations

from typing import Any

from rules.actions import Action
from rules.grid import FEET
from rules.state import DOWN_CONDITIONS, BattleState, Combatant
from rules.systems.cortex.pools import AttackPools

_FIRE_MODES = ("burst", "autofire")
_EXPLOSIVE, _RANGED, _MELEE = 0, 1, 2


#: id(weapon) -> (weapon, kind, hands, throwable, the fire modes it has): what a weapon's
#: record says, read once (weapons are frozen; the weapon is kept so an id is never reused)
_STATIC: dict[int, tuple] = {}


def weapon_static(w: Any) -> tuple:
    """(w, kind, hands, throwable, fire modes) of weapon `w`, as its record gives them."""
    st = _STATIC.get(id(w))
    if st is None or st[0] is not w:
        if len(_STATIC) > 4096:   # inline weapons of many loaded scenarios: keep it bounded
            _STATIC.clear()
        kind = _EXPLOSIVE if w.kind == "explosive" else _RANGED if w.ranged else _MELEE
        st = _STATIC[id(w)] = (w, kind, w.hands, bool(w.x("throwable")),
                               tuple(m for m in _FIRE_MODES if w.x(m)))
    return st


def _plan(rs: Any, state: BattleState, a: Combatant, w: Any) -> tuple:
    """What `_can_attack` decides for `w` whatever the target: (weapon, kind, whether the
    plain attack passes its shots, uses and ammunition checks, throwable, the fire modes
    that pass theirs)."""
    e = state.economy
    shots = e["shots"].get(w.name, 0)
    modes: tuple[str, ...] = ()
    _, kind, _, throwable, wmodes = weapon_static(w)
    if kind == _EXPLOSIVE:
        ok = not (a.res["uses"].get(w.name, 0) <= 0 or shots >= w.rof)
    elif kind == _RANGED:
        ammo = a.res["ammo"].get(w.name, 0) if w.magazine else 0
        ok = shots < w.rof and not (w.magazine and ammo < rs.rounds_needed(w, ""))
        if wmodes:
            modes = tuple(m for m in wmodes
                          if (shots <= 0 if m == "autofire" else shots < w.rof)
                          and not (w.magazine and ammo < rs.rounds_needed(w, m)))
    else:
        ok = True
    return w, kind, ok, throwable, modes


def attack_actions(rs: Any, state: BattleState, a: Combatant, only: str | None = None) -> list[Action]:
    """The actor's legal attacks (`only`: on that figure alone), as `CombatMixin` lists them."""
    e = state.economy
    out: list[Action] = []
    ws = rs.usable_weapons(a)
    if not ws:
        return out
    A = rs.action
    first = e["actions"] == 0
    holder = a.res["grappled_by"]
    called = rs.called_options
    interned = rs._actions
    g = state.grid
    sight = g.los_row(a.pos)
    apos = a.pos
    band_at = rs.band_at
    plans = [_plan(rs, state, a, w) for w in ws]
    dice = AttackPools(rs, state, a)  # each pool once per (weapon, option, band), for this call

    for t in state.combatants if only is None else [state.by_id[only]]:
        if t.team == a.team or not DOWN_CONDITIONS.isdisjoint(t.conditions):
            continue
        if holder is not None and t.id != holder:
            continue
        seen = sight[t.pos]
        adj = g.adjacent(apos, t.pos)
        d_ft = g.distance_m(apos, t.pos) / FEET  # as `_ranged_band` works it out
        for w, kind, ok, throwable, modes in plans:
            if kind == _MELEE:
                can = adj and dice(w, "", 0) is not None
            else:
                can = ok and seen and dice(w, "", band_at(d_ft, w.range_ft)) is not None
            if not can:
                if (throwable and seen and not adj
                        and dice(w, "throw", band_at(d_ft, 10.0)) is not None):
                    out.append(A("attack", target=t.id, weapon=w.name, option="throw"))
                continue
            out.append(A("attack", target=t.id, weapon=w.name))
            if kind == _EXPLOSIVE:
                continue
            if first:
                key = ("called", t.id, w.name)  # the called shots, interned with the other actions
                shots = interned.get(key)
                if shots is None:
                    shots = interned[key] = tuple(A("attack", target=t.id, weapon=w.name, option=o)
                                                  for o in called)
                out.extend(shots)
            if kind == _RANGED:
                if modes:
                    band = band_at(d_ft, w.range_ft)
                    out.extend(A("attack", target=t.id, weapon=w.name, option=m) for m in modes
                               if dice(w, m, band) is not None)
                continue
            # an option rolls its own pool (a trip rolls Agility): legal only if that pool has dice
            out.extend(A("attack", target=t.id, weapon=w.name, option=o) for o in melee_options(rs, a, t, w)
                       if dice(w, o, 0) is not None)
    return out


def melee_options(rs: Any, a: Combatant, t: Combatant, w: Any) -> list[str]:
    """The options of a hand-to-hand attack by `a` on `t` with `w`, in listing order, before the
    check that each option's own pool has dice."""
    extra: list[str] = []
    if w.name == "unarmed" or w.x("trip"):
        extra.append("trip")
    if w.name == "unarmed":
        if rs.has_style(a, "offensive_martial_arts") or rs.has_style(a, "wrestling"):
            extra.append("double")
        if rs.has_style(a, "wrestling") and a.res["grappling"] == t.id:
            if rs.held_weapon(t) is not None:
                extra.append("disarm")
            if "prone" not in t.conditions:
                extra.append("takedown")
    return extra


__all__ = ["attack_actions", "melee_options"]
