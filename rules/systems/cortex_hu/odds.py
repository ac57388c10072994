"""Exact odds of `cortex_hu` attacks for policies (no dice are rolled).

It mirrors `CombatHu.resolve_attack` in expectation: the attack pool on the ladder against
the defence `expected_defence` says the target would use now (a prepared defence, a
reaction, innate defence or Easy 3, plus cover), with the common Cortex odds
(rules/systems/cortex_common/odds.py). Damage is the expected margin as Basic plus the
damage die's mean (stepped up by a called shot unless waived), split and less armour.
Plot Points the defender might add are left out.
"""

from __future__ import annotations

from typing import Any

from rules.actions import Action
from rules.state import BattleState, Combatant
from rules.systems.cortex_common.odds import hit_stats

NO_EXTRAORDINARY = 1 << 20  # seed 002 has no extraordinary successes


def attack_odds(rs: Any, state: BattleState, a: Combatant, action: Action,
                shared: dict | None = None) -> dict[str, float] | None:
    """{'p_hit', 'exp_damage', 'damage_if_hit', 'exp_margin'} of an attack or grapple now.

    `shared`: a dict kept over several actions of the same figure on the same state
    (`attack_odds_many`): a target's expected defence, which reads the option only through
    whether the attack is ranged and whether it can be parried, is worked out once."""
    if action.kind not in ("attack", "grapple") or action.target is None:
        return None
    t = state.by_id.get(action.target)
    if t is None:
        return None
    if action.kind == "grapple":
        if action.option:
            return None
        p = rs.grapple_pool(state, a)
        if p is None:
            return None
        att = p[0].dice + p[1].dice
        w = rs.weapons["unarmed"]
        option = "grapple"
    else:
        w = rs.weapon_named(a, action.weapon)
        option = action.option or ""
        dd = rs.attack_dice(state, a, t, w, option)
        if dd is None:
            return None
        att = dd[1].dice + dd[3].dice
    feinted = t.res["feinted_by"] is not None
    dkey = (t.id, w.name, rs.ranged_attack(w, option), rs.can_parry(w, option), feinted)
    hit = None if shared is None else shared.get(dkey)
    if hit is None:
        hit = rs.expected_defence(state, a, t, w, option, innate_only=feinted)
        if shared is not None:
            shared[dkey] = hit
    dfn, add = hit
    p_hit, e_margin, _ = hit_stats(tuple(sorted(att)), tuple(sorted(dfn)), add, 0, 0, NO_EXTRAORDINARY)
    if option in ("grapple", "disarm"):
        return {"p_hit": p_hit, "exp_damage": 0.0, "damage_if_hit": 0.0, "exp_margin": e_margin}
    die = w.damage
    if option.startswith("called:") and not option.endswith("_waive"):
        die = die + int(rs.called["areas"][rs.area_of(option)]["damage_steps"])
    mean = die.mean
    basic = e_margin
    if option == "choke":
        stun, wound = basic + mean, 0.0
    else:
        stun, wound = basic / 2, basic / 2
        if w.dtype == "S":
            stun += mean
        elif w.dtype == "W":
            wound += mean
        else:
            stun += mean / 2
            wound += mean / 2
    aw = sum(x.W for x in t.armour)
    as_ = sum(x.S for x in t.armour)
    dmg = max(0.0, wound - aw) + max(0.0, stun - as_)
    return {"p_hit": p_hit, "exp_damage": p_hit * dmg, "damage_if_hit": dmg, "exp_margin": e_margin}


__all__ = ["attack_odds"]
