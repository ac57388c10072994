"""Cybergeneration's threat query: the largest expected Wounds of the acting figure's attacks on
each of some figures (issue #30: `assess.incoming` and `best_threat` ask it for every enemy,
cell and stance that `tactical` weighs).

`best_expected_damage` answers what listing `legal_attacks(state, victim)` (grapple options
left out) and pricing each with `attack_odds_many` would give as the maximum `exp_damage`,
without building actions or result dicts. It is exact because:

- it walks the victim's weapons and options with the same checks as `combat.attack_actions`
  and `grapple.grapple_start_actions`, on the same unchanged state, so it prices what that
  listing lists (on that victim only: the listing's other targets change nothing);
- each option is priced with `odds.weapon_odds`' arithmetic: the attack's base is the same
  integer sum (the option's own modifier added to the option-free sum: integers, so the order
  does not matter) and its `exp_damage` the same float product, so the floats are the same
  bit for bit, and equal floats make `max` order-free;
- options that `weapon_odds` prices exactly as another listed one are priced once: a melee
  called shot at a gap (the plain attack's roll and damage).

A figure in a grapple or a hold lists other attacks (`grapple_round_actions`, `held_actions`),
each behind a preliminary opposed roll: rare, so the query answers None there and the caller
lists and prices them the long way.
"""

from __future__ import annotations

from typing import Any, Iterable

from rules.state import BattleState, Combatant
from rules.systems.cybergeneration.checks import p_at_least, p_beat
from rules.systems.cybergeneration.odds import _mean, burst, grapple_odds, weapon_odds


def best_expected_damage(rs: Any, state: BattleState, a: Combatant, victims: Iterable[str]
                         ) -> dict[str, float] | None:
    """For each figure id in `victims`: max(0.0, `exp_damage` of every attack `legal_attacks`
    lists on it, grapple options left out); None when `a` is not the acting figure or grapples."""
    if a is not state.actor:
        return None
    out = dict.fromkeys(victims, 0.0)
    if state.pending is not None or a is None or a.down or state.over:
        return out  # `legal_attacks` lists nothing
    e = state.economy
    can_act = e["actions"] < e["max_actions"] and e["suppress"] != "fail"
    if a.res["held_by"] is not None or (can_act and rs.in_grapple(a)):
        return None  # attacks from a grapple or a hold: the long way (see the module's docstring)
    if not can_act:
        return out
    turn = rs.turn_mods(state) if e else {}  # as `attack_odds` finds it for the acting figure
    g = state.grid
    ws = [w for w in rs.weapons_of(a) if rs.in_hand(a, w) and not w.grapple_only]
    shared: dict = {}  # `_mean`'s memo, as `attack_odds_many` keeps one
    ref = rs.stat(a, "ref")
    m = rs.mod
    for vid in out:
        t = state.by_id[vid]
        if t.team == a.team or t.dead:
            continue
        adj = g.adjacent(a.pos, t.pos)
        best = 0.0
        if adj and not t.down:  # the plain grapple (`grapple_start_actions`)
            ed = grapple_odds(rs, state, a, t, "", turn, shared)["exp_damage"]
            best = ed if ed > best else best
        for w in ws:
            if w.melee:
                if adj:
                    ed = _melee(rs, state, a, t, w, turn, shared, ref, m)
                elif w.throwable and rs.difficulty(state, a, t, w, throw=True) is not None:
                    ed = _ranged(rs, state, a, t, w, "throw", turn, shared, ref, m)
                else:
                    continue
            elif not rs.loaded(a, w) or rs.difficulty(state, a, t, w) is None:
                continue
            elif w.kind == "ranged":
                ed = _ranged(rs, state, a, t, w, "", turn, shared, ref, m)
            elif w.kind == "grenade":
                ed = _priced(rs, state, a, t, w, "", turn, shared)
            elif w.kind == "genius":
                charge = a.res["ammo"].get(w.name, 0)
                ed = 0.0
                for n in range(int(w.x("blast_min", 3)), int(w.x("blast_max", 7)) + 1):
                    if charge >= n:
                        x = _priced(rs, state, a, t, w, f"blast:{n}", turn, shared)
                        ed = x if x > ed else ed
                if charge >= int(w.x("scribble_dc", 5)):
                    x = _priced(rs, state, a, t, w, "scribble", turn, shared)
                    ed = x if x > ed else ed
            else:
                continue
            best = ed if ed > best else best
        out[vid] = best
    return out


def _priced(rs: Any, state: BattleState, a: Combatant, t: Combatant, w: Any, option: str, turn: dict,
            shared: dict) -> float:
    """`exp_damage` of one listed option, priced by `weapon_odds` itself (0.0 for no odds)."""
    o = weapon_odds(rs, state, a, t, w, option, turn, shared)
    return float(o.get("exp_damage", 0.0)) if o else 0.0


def _melee(rs: Any, state: BattleState, a: Combatant, t: Combatant, w: Any, turn: dict, shared: dict,
           ref: int, m: dict) -> float:
    """The best `exp_damage` of the melee attacks `attack_actions` lists for a melee weapon on an
    adjacent target: the plain attack, and on a standing one the called shots at the head and
    (armoured) at a gap, knockdown and (blunt) stun."""
    if w.no_roll or t.down:
        # priced by `weapon_odds` (no roll or the automatic hit on a fallen figure: the only melee
        # attacks `rollless`, so the only ones with the hurried check of two actions)
        best = _priced(rs, state, a, t, w, "", turn, shared)
        if not t.down:
            for option in ("called:head", "called:gap", "knockdown", "stun"):
                if _listed(rs, t, w, option):
                    x = _priced(rs, state, a, t, w, option, turn, shared)
                    best = x if x > best else best
        return best
    # `weapon_odds`' melee branch: pre is 1.0 (no grapple, no hurried check), so pre * p is p
    mod = rs.melee_mod(a, w)
    _, sk = rs.attack_skill(a, w, t)
    parts = rs.attack_parts(state, a, t, w, "", turn, melee=True) + rs.opposed_bonus(state, a, t)
    base = ref + sk + w.accuracy + sum(v for _, v in parts)
    dbase = rs.defence_base(state, t, a)[0]
    # the plain attack (a called shot at a gap rolls and hurts the same: the same float)
    best = p_beat(base, dbase) * _mean(shared, rs, t, w.dc, mod, w.ap)
    x = p_beat(base + m["called_shot"], dbase) * _mean(shared, rs, t, w.dc, mod, w.ap, head=True)
    best = x if x > best else best
    x = p_beat(base, dbase) * _mean(shared, rs, t, 1, 0, False)  # knockdown
    best = x if x > best else best
    if w.blunt:
        x = p_beat(base + m["stun_attack"], dbase) * _mean(shared, rs, t, 1, 0, False)
        best = x if x > best else best
    return best


def _listed(rs: Any, t: Combatant, w: Any, option: str) -> bool:
    """Whether `attack_actions` lists this melee option on a standing adjacent target."""
    if option == "called:gap":
        return rs.body_armour(t) is not None
    if option == "stun":
        return bool(w.blunt)
    return True


def _ranged(rs: Any, state: BattleState, a: Combatant, t: Combatant, w: Any, option: str, turn: dict,
            shared: dict, ref: int, m: dict) -> float:
    """The best `exp_damage` of a ranged weapon's plain shot, called shot at the head and (when
    listed) full auto; or (`option` "throw") of throwing a melee weapon."""
    if w.no_roll:
        # priced by `weapon_odds` (a ranged shot or a throw `rollless` only without a roll, so only
        # then with the hurried check of two actions)
        best = _priced(rs, state, a, t, w, option, turn, shared)
        if option == "":
            for o in ("called:head", "full_auto"):
                if o == "called:head" or _full_auto_listed(rs, a, w):
                    x = _priced(rs, state, a, t, w, o, turn, shared)
                    best = x if x > best else best
        return best
    # `weapon_odds`' ranged branch: pre is 1.0 (no grapple, no hurried check), so pre * p is p
    throw = option == "throw"
    diff = rs.difficulty(state, a, t, w, throw=throw)[0]
    _, sk = rs.attack_skill(a, w, t, throw)
    parts = rs.attack_parts(state, a, t, w, option, turn, melee=False, throw=throw)
    base = ref + sk + (0 if throw else w.accuracy) + sum(v for _, v in parts)
    mod = rs.body_mod(a) if w.bow else 0
    best = p_at_least(base, diff) * _mean(shared, rs, t, w.dc, mod, w.ap)
    if throw:
        return best
    x = p_at_least(base + m["called_shot"], diff) * _mean(shared, rs, t, w.dc, mod, w.ap, head=True)
    best = x if x > best else best
    if _full_auto_listed(rs, a, w):
        # `exp_damage` is pre * total_d, and pre is 1.0
        x = burst(rs.table.wounds, rs.stop_all_sp, rs.body_armour(t), w.dc, w.ap, base + m["full_auto"] - diff)[1]
        best = x if x > best else best
    return best


def _full_auto_listed(rs: Any, a: Combatant, w: Any) -> bool:
    return w.full_auto and rs.loaded(a, w, int(rs.data["full_auto"]["rounds"]))


__all__ = ["best_expected_damage"]
