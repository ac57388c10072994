"""Exact odds of Cortex rolls, for policies that weigh their options (no dice are rolled).

`pmf`, `steps_sizes` and `hit_stats` are the common Cortex odds
(rules/systems/cortex_common/odds.py); `attack_odds` mirrors the ruleset's
attack resolution in expectation: the chance to hit (a botch always misses), to hit
extraordinarily, and the expected damage after armour.
"""

from __future__ import annotations

from typing import Any

from rules.actions import Action
from rules.dice import Step
from rules.state import BattleState, Combatant
from rules.systems.cortex_common.odds import hit_stats, pmf, steps_sizes  # noqa: F401  (shared)


def attack_odds(rs: Any, state: BattleState, a: Combatant, action: Action,
                shared: dict | None = None) -> dict[str, float] | None:
    """Chance to hit and expected damage of an attack action for the acting figure now.

    `shared`: a dict kept over several actions of the same figure on the same state
    (`attack_odds_many`): each target's attack pool, defence and armour per weapon, and
    each damage die, are worked out once."""
    if action.kind not in ("attack", "grapple") or action.target is None:
        return None
    if shared is None:
        shared = {}
    t = state.by_id[action.target]
    if action.kind == "grapple":
        if action.option:
            return None
        d = rs.grapple_dice(state, a)
        if d is None:
            return None
        w = rs.weapons["unarmed"]
        dfn, add, floor = _defence(rs, state, a, t, False, False)
        p_hit, e_margin, p_x = hit_stats(steps_sizes(d[:2]), dfn, add, floor, 0, rs.xmargin)
        return {"p_hit": p_hit, "p_extraordinary": p_x, "exp_damage": 0.0, "exp_margin": e_margin}
    wi = shared.get(action.weapon)
    if wi is None:
        w = rs.weapon_named(a, action.weapon)
        wi = shared[action.weapon] = (w, bool(w.x("improvised")))
    return _option_odds(rs, state, a, t, wi, action.option or "", shared)


def attack_odds_many(rs: Any, state: BattleState, a: Combatant, actions: list[Action]
                     ) -> list[dict[str, float] | None]:
    """`attack_odds` of each action (one state, one attacker): the target and weapon are
    looked up once for a run of actions on the same pair (as `legal_attacks` lists them)."""
    shared: dict = {}
    out: list[dict[str, float] | None] = []
    last = None
    t = wi = None
    for act in actions:
        if act.kind != "attack" or act.target is None:
            out.append(attack_odds(rs, state, a, act, shared))
            continue
        pair = (act.target, act.weapon)
        if pair != last:  # the same lookups `attack_odds` makes, once for the run
            last = pair
            t = state.by_id[act.target]
            wi = shared.get(act.weapon)
            if wi is None:
                w = rs.weapon_named(a, act.weapon)
                wi = shared[act.weapon] = (w, bool(w.x("improvised")))
        out.append(_option_odds(rs, state, a, t, wi, act.option or "", shared))
    return out


def _option_odds(rs: Any, state: BattleState, a: Combatant, t: Combatant, wi: tuple, option: str,
                 shared: dict) -> dict[str, float] | None:
    """`attack_odds` of an attack on `t` with weapon `wi` (the weapon, whether improvised)
    and `option`."""
    w = wi[0]
    okey = (w.name, option)
    spec = shared.get(okey)
    if spec is None:  # what the option changes, whoever the target (once per weapon and option)
        spec = shared[okey] = _option_spec(rs, w, wi[1], option)
    pool_opt, extra, damage, die_total = spec
    key = (t.id, w.name, pool_opt)
    ent = shared.get(key)
    if ent is None:
        dd = rs.attack_dice(state, a, t, w, pool_opt)
        if dd is None:
            ent = shared[key] = ()
        else:
            ranged = w.ranged or pool_opt == "throw"
            ent = shared[key] = (steps_sizes((dd[1], dd[3])),
                                 *_defence(rs, state, a, t, w.kind == "explosive", ranged),
                                 sum(x.W for x in t.armour), sum(x.S for x in t.armour))
    if not ent:
        return None
    att, dfn, add, floor, aw, as_ = ent
    p_hit, e_margin, p_x = hit_stats(att, dfn, add, floor, extra, rs.xmargin)
    if damage == _NO_DAMAGE:
        return {"p_hit": p_hit, "p_extraordinary": p_x, "exp_damage": 0.0, "exp_margin": e_margin}
    if damage == _BLAST:
        n = max(0, int(w.x("blast_dice", 1)) - state.grid.cover(t.pos, t.pos))
        e_total = n * w.damage.mean
        return {"p_hit": p_hit, "p_extraordinary": 0.0, "exp_damage": e_total, "exp_margin": 0.0}
    stun, wound = rs.split(int(round(e_margin)), w.dtype, die_total)
    dmg = max(0.0, wound - aw) + max(0.0, stun - as_)
    strikes = 2 if option == "double" else 1
    return {"p_hit": p_hit, "p_extraordinary": p_x, "exp_damage": strikes * p_hit * dmg, "exp_margin": e_margin,
            "damage_if_hit": dmg}


_NO_DAMAGE, _BLAST, _STRIKE = 0, 1, 2


def _option_spec(rs: Any, w: Any, improvised: bool, option: str) -> tuple[str, int, int, int]:
    """(the option whose pool the attack rolls, the Difficulty it adds, how it does damage,
    the damage die's rounded mean) of an attack option with weapon `w`."""
    called = option.startswith("called:")
    # a called shot rolls the plain attack's pool (its Difficulty and damage are what
    # change), unless an improvised weapon suits one option better than another
    pool_opt = "" if called and not improvised else option
    extra = int(rs.called["areas"][option[7:]]["difficulty"]) if called else 0
    if option in ("trip", "disarm", "takedown"):
        return pool_opt, extra, _NO_DAMAGE, 0
    if w.kind == "explosive":
        return pool_opt, extra, _BLAST, 0
    die = w.damage
    if option in ("burst", "autofire"):
        die = die + int(rs.modes[option]["damage_steps"])
    if called:
        col = rs.called["areas"][option[7:]]["wound" if w.dtype == "W" else "stun_basic"]
        die = die + int(col.get("damage_steps", 0))
    return pool_opt, extra, _STRIKE, int(round(die.mean))


def _defence(rs: Any, state: BattleState, a: Combatant, t: Combatant, explosive: bool, ranged: bool
             ) -> tuple[tuple[int, ...], int, int]:
    """(defence dice sides, flat addition, least defence roll) of `t` against `a`'s attack now."""
    g = state.grid
    cover = g.cover(t.pos, a.pos)
    dfn: tuple[int, ...] = ()
    add = 0
    floor = 0
    st = t.res["stance"]
    if explosive:
        dfn, add = (), int(rs.expl["throw_difficulty"])
    elif "incapacitated" in t.conditions:
        add = rs.diff["easy"] + (rs.cover_table[cover] if ranged or not t.res["attacked_last"] else 0)
    elif ranged:
        cb = rs.cover_table[cover]
        if "prone" in t.conditions:
            add = rs.diff["easy"] + max(rs.cover_table[1], cb)
        elif st is not None and st["mode"] == "dodge" and (
                cover > 0 if t.res["grappled_by"] is not None else g.cover_near(t.pos)):
            # a held figure dodges only in the cover it stands in (it cannot dive: asked.dodge_cover)
            p = rs.defence_pool(state, t, "dodge", rs.stance_steps(t))
            dfn = steps_sizes(p[:2]) if p else ()
        elif rs.declines_innate(t):
            add = rs.diff["easy"] + cb
        else:
            agi = Step(max(1, t.stats["attributes"]["agility"].index + rs.attr_steps(t, "agility")))
            dfn, add = tuple(agi.dice), cb
    else:
        cb = rs.cover_table[g.cover(t.pos, a.pos, melee=True)] if not t.res["attacked_last"] else 0
        if t.res["grappled_by"] == a.id:
            add = int(rs.data["grapple"]["held_difficulty"])
        elif st is not None and (p := rs.defence_pool(state, t, st["mode"], rs.stance_steps(t))) is not None:
            dfn, add = steps_sizes(p[:2]), cb
        else:
            if rs.has_style(t, "capoeira"):  # seed 000, Capoeira: innate defence 5 against melee
                add = int(rs.data["capoeira"]["innate_melee"]) + cb
            elif rs.declines_innate(t):
                add = rs.diff["easy"] + cb
            else:
                agi = Step(max(1, t.stats["attributes"]["agility"].index + rs.attr_steps(t, "agility")))
                dfn, add = tuple(agi.dice), cb
    return dfn, add, floor
