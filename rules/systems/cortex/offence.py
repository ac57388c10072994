"""Cortex's offence query: the acting figure's attacks with their odds, listed and priced in one
pass (issue #30: `tactical` asks it for every cell it weighs, after each trial move).

`priced_attacks(rs, state, a, plain_only)` answers what `agents.assess.attack_options` finds
the long way: `legal_attacks` lists the attacks, `attack_odds_many` prices each, and the
actions without odds are dropped. It gives, in the same order, each attack-like action with
(p_hit, exp_damage, damage_if_hit) as `attack_options` reads them off the odds dicts. It is
exact because:

- it walks the targets and weapons with the same checks as `listing.attack_actions` (the
  same `AttackPools` decides which attacks have dice), on the same unchanged state, and
  `grapple_actions` lists the grapples as `legal_attacks` does (the grapple options, escape
  and release, have no odds: left out, as `attack_options` drops them);
- each option is priced with `odds._option_odds`' arithmetic: the same weapon (`weapon_named`),
  option spec, pool (`AttackPools` gives `attack_pool`'s dice, tests/test_cortex_pools.py),
  defence (`odds._defence`) and armour, in the same order of operations, so the floats are the
  same bit for bit. The numbers of one (pool, defence, armour, option spec) are a pure
  function of them and are kept in a module-level memo (`_strike`): called shots with equal
  numbers, and the same shot from many cells, are worked out once.

tests/test_offence_query.py compares it with the long way on every decision of seeded fights.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Callable

from rules.actions import Action
from rules.grid import FEET
from rules.state import DOWN_CONDITIONS, BattleState, Combatant
from rules.systems.cortex.listing import _EXPLOSIVE, _MELEE, _RANGED, _plan, melee_options
from rules.systems.cortex.odds import _BLAST, _NO_DAMAGE, _defence, _option_spec
from rules.systems.cortex.pools import AttackPools
from rules.systems.cortex_common.odds import hit_stats, steps_sizes

Priced = tuple[Action, float, float, float]


@lru_cache(maxsize=65536)
def _strike(att: tuple[int, ...], dfn: tuple[int, ...], add: int, floor: int, extra: int, xmargin: int,
            aw: int, as_: int, dtype: str, die_total: int, strikes: int, split: Callable
            ) -> tuple[float, float, float]:
    """(p_hit, exp_damage, damage_if_hit) of a damaging strike, as `odds._option_odds` and
    `assess.attack_options` work them out (a pure function of its arguments)."""
    p_hit, e_margin, _ = hit_stats(att, dfn, add, floor, extra, xmargin)
    stun, wound = split(int(round(e_margin)), dtype, die_total)
    dmg = max(0.0, wound - aw) + max(0.0, stun - as_)
    return p_hit, strikes * p_hit * dmg, float(dmg)


def priced_attacks(rs: Any, state: BattleState, a: Combatant, plain_only: bool = False) -> list[Priced] | None:
    """[(action, p_hit, exp_damage, damage_if_hit)] of each attack-like action `legal_attacks`
    lists that `attack_odds_many` prices (`plain_only`: those without an option), in order;
    None when `a` is not the acting figure, or a question is open (the long way then answers)."""
    if state.pending is not None or a is not state.actor or a is None:
        return None
    e = state.economy
    out: list[Priced] = []
    if a.down or e["ran"] or not (e["actions"] < rs.max_actions and not e["called"] and not e["all_out"]):
        return out  # `legal_attacks` lists at most the grapple release, which has no odds
    rs._pool_cache.clear()  # as `legal_attacks` and `attack_odds_many` start
    ws = rs.usable_weapons(a)
    if ws:
        _attacks(rs, state, a, ws, plain_only, out)
    grapples = rs.grapple_actions(state, a)
    if grapples:
        d = None
        for x in grapples:
            if x.option:
                continue  # the escape: `attack_odds` gives it no odds
            if d is None:
                d = rs.grapple_dice(state, a)
                if d is None:
                    break
            t = state.by_id[x.target]
            dfn, add, floor = _defence(rs, state, a, t, False, False)
            p_hit = hit_stats(steps_sizes(d[:2]), dfn, add, floor, 0, rs.xmargin)[0]
            out.append((x, p_hit, 0.0, 0.0 / p_hit if p_hit > 0 else 0.0))
    return out


#: per ruleset: the priced rows of a target's plain attack and called shots with one weapon
#: (`_row`), by what the numbers depend on; emptied when it grows past `_ROWS_MAX`
_ROWS_MAX = 4096


def _row(rs: Any, rows: dict, tid: str, w: Any, called: tuple[str, ...], ent: tuple, aw: int, as_: int
         ) -> list[Priced]:
    """[(action, p_hit, exp_damage, damage_if_hit)] of the plain attack on `tid` with `w` (not
    improvised: every called shot rolls the plain attack's pool) and of each of the `called`
    shots, priced against `ent` (attack dice sizes, defence dice, flat addition, floor) and
    armour (aw, as_). A pure function of its arguments (the actions are interned by the
    ruleset), so the rows are kept per ruleset: the same shot from many cells, or on many
    copies of a decision's state, is priced once."""
    key = (tid, id(w), called, ent, aw, as_)
    hit = rows.get(key)
    if hit is not None and hit[0] is w:
        return hit[1]
    act = rs.action
    att, dfn, add, floor = ent
    xmargin, split, dtype = rs.xmargin, rs.split, w.dtype
    spec = _option_spec(rs, w, False, "")
    out: list[Priced] = [(act("attack", target=tid, weapon=w.name),
                          *_strike(att, dfn, add, floor, spec[1], xmargin, aw, as_, dtype, spec[3], 1, split))]
    if called:
        ikey = ("called", tid, w.name)  # interned as `attack_actions` interns them
        shots = rs._actions.get(ikey)
        if shots is None:
            shots = rs._actions[ikey] = tuple(act("attack", target=tid, weapon=w.name, option=o)
                                              for o in rs.called_options)
        for x, o in zip(shots, called):
            spec = _option_spec(rs, w, False, o)
            out.append((x, *_strike(att, dfn, add, floor, spec[1], xmargin, aw, as_, dtype, spec[3], 1, split)))
    if len(rows) >= _ROWS_MAX:
        rows.clear()
    rows[key] = (w, out)
    return out


def _attacks(rs: Any, state: BattleState, a: Combatant, ws: list, plain_only: bool, out: list[Priced]) -> None:
    """The `attack` actions of `priced_attacks`, as `listing.attack_actions` lists them."""
    e = state.economy
    act = rs.action
    first = e["actions"] == 0
    holder = a.res["grappled_by"]
    called = rs.called_options if first and not plain_only else ()
    interned = rs._actions
    g = state.grid
    sight = g.los_row(a.pos)
    apos = a.pos
    band_at = rs.band_at
    xmargin = rs.xmargin
    split = rs.split
    dice = AttackPools(rs, state, a)
    rows = rs.__dict__.get("_priced_rows")
    if rows is None:
        rows = rs.__dict__.setdefault("_priced_rows", {})
    # per weapon: its plan, the weapon `attack_odds_many` prices (by name), whether it is
    # improvised, and whether its plain attack and called shots make one row (`_row`)
    plans = []
    for w in ws:
        plan = _plan(rs, state, a, w)
        pw = rs.weapon_named(a, w.name)
        improvised = bool(pw.x("improvised"))
        plans.append((plan, pw, improvised, pw is w and not improvised and plan[1] != _EXPLOSIVE))
    specs: dict[tuple, tuple] = {}

    for t in state.combatants:
        if t.team == a.team or not DOWN_CONDITIONS.isdisjoint(t.conditions):
            continue
        if holder is not None and t.id != holder:
            continue
        tid = t.id
        seen = sight[t.pos]
        adj = g.adjacent(apos, t.pos)
        d_ft = g.distance_m(apos, t.pos) / FEET
        aw = sum(x.W for x in t.armour)
        as_ = sum(x.S for x in t.armour)
        dfns: dict[tuple, tuple] = {}

        def defence(explosive: bool, ranged: bool) -> tuple:
            """`odds._defence` of `t` against the attack, once per kind of attack."""
            df = dfns.get((explosive, ranged))
            if df is None:
                df = dfns[(explosive, ranged)] = _defence(rs, state, a, t, explosive, ranged)
            return df

        def price(pw: Any, improvised: bool, option: str) -> tuple[float, float, float] | None:
            """`_option_odds` of `option` on `t` with `pw`, as (p_hit, exp_damage, damage_if_hit)."""
            okey = (pw.name, option)
            spec = specs.get(okey)
            if spec is None:
                spec = specs[okey] = _option_spec(rs, pw, improvised, option)
            pool_opt, extra, damage, die_total = spec
            band = (band_at(d_ft, 10.0) if pool_opt == "throw" else
                    band_at(d_ft, pw.range_ft) if pw.ranged else 0)  # as `attack_dice` finds it
            dd = dice(pw, pool_opt, band)
            if dd is None:
                return None
            att = steps_sizes((dd[1], dd[3]))
            dfn, add, floor = defence(pw.kind == "explosive", pw.ranged or pool_opt == "throw")
            if damage == _NO_DAMAGE:
                p_hit = hit_stats(att, dfn, add, floor, extra, xmargin)[0]
                return p_hit, 0.0, 0.0 / p_hit if p_hit > 0 else 0.0
            if damage == _BLAST:
                p_hit = hit_stats(att, dfn, add, floor, extra, xmargin)[0]
                n = max(0, int(pw.x("blast_dice", 1)) - g.cover(t.pos, t.pos))
                e_total = n * pw.damage.mean
                return p_hit, float(e_total), float(e_total / p_hit if p_hit > 0 else 0.0)
            return _strike(att, dfn, add, floor, extra, xmargin, aw, as_, pw.dtype, die_total,
                           2 if option == "double" else 1, split)

        def add_priced(x: Action, pw: Any, improvised: bool, option: str) -> None:
            r = price(pw, improvised, option)
            if r is not None:
                out.append((x, *r))

        for (w, kind, ok, throwable, modes), pw, improvised, one_row in plans:
            if kind == _MELEE:
                band = 0
                dd = dice(w, "", 0) if adj else None
            else:
                band = band_at(d_ft, w.range_ft)
                dd = dice(w, "", band) if ok and seen else None
            if dd is None:
                if (not plain_only and throwable and seen and not adj
                        and dice(w, "throw", band_at(d_ft, 10.0)) is not None):
                    add_priced(act("attack", target=tid, weapon=w.name, option="throw"), pw, improvised, "throw")
                continue
            if one_row:  # the plain attack and the called shots: one pool, one defence
                ent = (steps_sizes((dd[1], dd[3])), *defence(False, kind == _RANGED))
                out.extend(_row(rs, rows, tid, w, called, ent, aw, as_))
            else:
                add_priced(act("attack", target=tid, weapon=w.name), pw, improvised, "")
                if kind == _EXPLOSIVE:
                    continue
                if called:
                    key = ("called", tid, w.name)  # interned as `attack_actions` interns them
                    shots = interned.get(key)
                    if shots is None:
                        shots = interned[key] = tuple(act("attack", target=tid, weapon=w.name, option=o)
                                                      for o in rs.called_options)
                    for x, o in zip(shots, called):
                        add_priced(x, pw, improvised, o)
            if plain_only:
                continue
            if kind == _RANGED:
                if modes:
                    for m in modes:
                        if dice(w, m, band) is not None:
                            add_priced(act("attack", target=tid, weapon=w.name, option=m), pw, improvised, m)
                continue
            for o in melee_options(rs, a, t, w):
                if dice(w, o, 0) is not None:
                    add_priced(act("attack", target=tid, weapon=w.name, option=o), pw, improvised, o)


__all__ = ["priced_attacks"]
