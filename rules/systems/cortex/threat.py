"""Cortex's threat query: the largest expected damage of the acting figure's attacks on each of
some figures (issue #30: `assess.incoming` and `best_threat` ask it for every enemy, cell and
stance that `tactical` weighs).

`best_expected_damage` answers what listing `legal_attacks` (its grapple options left out)
and pricing each with `attack_odds_many` would give as the maximum `exp_damage`, without
building actions or result dicts. It is exact because:

- it walks the targets and weapons with the same checks as `listing.attack_actions`, on the
  same unchanged state, and prices only options that listing would list;
- each priced option's number is worked out with the same arithmetic as `odds._option_odds`
  (the same pool, defence, armour and damage die, in the same order of operations), so the
  floats are the same bit for bit; equal floats make `max` order-free;
- options whose `exp_damage` is always 0.0 (trip, disarm, takedown, plain grapples) are
  skipped: the maximum starts at 0.0 as `incoming`'s does. Options with the same numbers
  (called shots at the same Difficulty and damage die) are priced once.

`threat_profile` splits it (issue #30, third pass): the weapons, options and pools once per
attacker, then a function of the victim figure, which `agents/threat_memo.py` keeps per enemy
over a fight. That function reads nothing of the state but the attacker, its fresh turn's
economy and the map (`_defence`'s pools memo is the victim's, cleared for each victim).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Callable

from rules.dice import Step
from rules.grid import FEET
from rules.state import DOWN_CONDITIONS, BattleState, Combatant
from rules.systems.cortex.listing import _EXPLOSIVE, _MELEE, _RANGED, _plan
from rules.systems.cortex.odds import _BLAST, _NO_DAMAGE, _defence, _option_spec
from rules.systems.cortex.pools import AttackPools
from rules.systems.cortex_common.odds import hit_stats, steps_sizes


@lru_cache(maxsize=65536)
def _best_strike(att: tuple[int, ...], dfn: tuple[int, ...], add: int, floor: int, aw: int, as_: int,
                 specs: tuple[tuple[int, int, int], ...], xmargin: int, dtype: str, split: Callable
                 ) -> float:
    """max(0.0, `exp_damage` of each (Difficulty added, damage die's rounded mean, strikes) in
    `specs`) against one pool and defence: `odds._option_odds`' strike arithmetic (a pure
    function of its arguments, so a module-level memo is safe)."""
    best = 0.0
    for extra, die_total, strikes in specs:
        p_hit, e_margin, _ = hit_stats(att, dfn, add, floor, extra, xmargin)
        stun, wound = split(int(round(e_margin)), dtype, die_total)
        dmg = max(0.0, wound - aw) + max(0.0, stun - as_)
        ed = strikes * p_hit * dmg
        if ed > best:
            best = ed
    return best


@lru_cache(maxsize=4096)
def _plain_pool_specs(steps: tuple[tuple[int, int, int], ...], damage: Step, dtype: str
                      ) -> tuple[tuple[int, int, int], ...]:
    """(Difficulty added, damage die's rounded mean, strikes) of the plain attack and of each
    called shot (`steps`: see `best_expected_damage`) of a weapon that is not improvised, as
    `odds._option_spec` works them out; repeats left out (the same numbers, the same float)."""
    out = [(0, int(round(damage.mean)), 1)]
    for extra, wound_steps, stun_steps in steps:
        die = damage + (wound_steps if dtype == "W" else stun_steps)
        spec = (extra, int(round(die.mean)), 1)
        if spec not in out:
            out.append(spec)
    return tuple(out)


def _nothing(t: Combatant) -> float:
    return 0.0


def threat_profile(rs: Any, state: BattleState, a: Combatant) -> Callable[[Combatant], float] | None:
    """`best_expected_damage` in two parts (`Ruleset.threat_profile`): what does not depend on
    the victim (the weapons, their options and pools) once, and a function of the victim
    figure. That function reads of `state` only the attacker, the turn economy (which a fresh
    turn start sets from the attacker alone but for `no_move`, which no attack reads) and the
    map; None when `a` is not the acting figure."""
    if a is not state.actor:
        return None
    e = state.economy
    if (state.pending is not None or a is None or a.down or e["ran"]
            or not (e["actions"] < rs.max_actions and not e["called"] and not e["all_out"])):
        return _nothing  # `legal_attacks` lists no attack (at most grapples: 0.0)
    ws = rs.usable_weapons(a)
    if not ws:
        return _nothing
    first = e["actions"] == 0
    holder = a.res["grappled_by"]
    called = rs.called_options if first else ()
    g = state.grid
    sight = g.los_row(a.pos)
    apos = a.pos
    band_at = rs.band_at
    xmargin = rs.xmargin
    split = rs.split
    dice = AttackPools(rs, state, a)  # `attack_pool`, each once per (weapon, option, band)

    # what the called shots change, as `_option_spec` reads it: (Difficulty, the damage steps
    # of a Wound weapon, of any other), in `called_options` order
    areas = rs.called["areas"]
    steps = tuple([(int(v["difficulty"]), int(v["wound"].get("damage_steps", 0)),
                    int(v["stun_basic"].get("damage_steps", 0))) for v in [areas[o[7:]] for o in called]])
    # per weapon, once: the plan, the weapon `attack_odds_many` prices (looked up by name)
    # and the specs of the plain attack and the called shots, by the pool they roll
    weapons = []
    for plan in (_plan(rs, state, a, w) for w in ws):
        w = plan[0]
        pw = rs.weapon_named(a, w.name)
        improvised = bool(pw.x("improvised"))
        if plan[1] == _EXPLOSIVE:
            groups: tuple = ()  # priced as a blast, below
        elif not improvised:  # every called shot rolls the plain attack's pool
            groups = (("", _plain_pool_specs(steps, pw.damage, pw.dtype)),)
        else:  # an improvised weapon may roll another pool for a called shot: option by option
            by_pool: dict[str, list[tuple[int, int, int]]] = {}
            for option in ("", *called):
                pool_opt, extra, _, die_total = _option_spec(rs, pw, improvised, option)
                by_pool.setdefault(pool_opt, []).append((extra, die_total, 1))
            groups = tuple((k, tuple(v)) for k, v in by_pool.items())
        weapons.append((plan, pw, improvised, groups))

    def damage(t: Combatant) -> float:
        """max(0.0, `exp_damage` of each attack on `t`)."""
        # the defence pools `_defence` memoises are the victim's: start afresh for each one, as
        # `legal_attacks` and `attack_odds_many` start (the victim may have changed since)
        rs._pool_cache.clear()
        if t.team == a.team or not DOWN_CONDITIONS.isdisjoint(t.conditions):
            return 0.0
        if holder is not None and t.id != holder:
            return 0.0
        seen = sight[t.pos]
        adj = g.adjacent(apos, t.pos)
        d_ft = g.distance_m(apos, t.pos) / FEET
        aw = sum(x.W for x in t.armour)
        as_ = sum(x.S for x in t.armour)
        dfns: dict[tuple[bool, bool], tuple] = {}
        best = 0.0

        def strike(pw: Any, pool_opt: str, specs: tuple | None) -> float | None:
            """`_best_strike` of `specs` rolled with `pool_opt`'s pool (None: no pool, so no
            odds; `specs` None: only whether there is one)."""
            band = (band_at(d_ft, 10.0) if pool_opt == "throw" else
                    band_at(d_ft, pw.range_ft) if pw.ranged else 0)  # as `attack_dice` finds it
            dd = dice(pw, pool_opt, band)
            if dd is None or specs is None:
                return None if dd is None else 0.0
            ranged = pw.ranged or pool_opt == "throw"
            dk = (pw.kind == "explosive", ranged)
            df = dfns.get(dk)
            if df is None:
                df = dfns[dk] = _defence(rs, state, a, t, dk[0], ranged)
            return _best_strike(steps_sizes((dd[1], dd[3])), *df, aw, as_, specs, xmargin, pw.dtype, split)

        for (w, kind, ok, throwable, modes), pw, improvised, groups in weapons:
            if kind == _MELEE:
                can = adj and dice(w, "", 0) is not None
            else:
                can = ok and seen and dice(w, "", band_at(d_ft, w.range_ft)) is not None
            if not can:
                if (throwable and seen and not adj
                        and dice(w, "throw", band_at(d_ft, 10.0)) is not None):
                    ed = _priced(rs, state, pw, improvised, t, "throw", strike)
                    best = ed if ed > best else best
                continue
            if kind == _EXPLOSIVE:
                ed = _priced(rs, state, pw, improvised, t, "", strike)
                best = ed if ed > best else best
                continue
            for pool_opt, specs in groups:  # the plain attack and the called shots
                ed = strike(pw, pool_opt, specs)
                if ed is not None and ed > best:
                    best = ed
            if kind == _RANGED:
                if modes:
                    band = band_at(d_ft, w.range_ft)
                    for m in modes:
                        if dice(w, m, band) is not None:
                            ed = _priced(rs, state, pw, improvised, t, m, strike)
                            best = ed if ed > best else best
                continue
            # melee: of trip, double, disarm and takedown only the double strike does damage
            if w.name == "unarmed" and (rs.has_style(a, "offensive_martial_arts") or rs.has_style(a, "wrestling")):
                if dice(w, "double", 0) is not None:
                    ed = _priced(rs, state, pw, improvised, t, "double", strike)
                    best = ed if ed > best else best
        return best

    return damage


def _priced(rs: Any, state: BattleState, pw: Any, improvised: bool, t: Combatant, option: str,
            strike: Callable) -> float:
    """`exp_damage` of one listed option (0.0 where `_option_odds` gives no odds)."""
    pool_opt, extra, damage, die_total = _option_spec(rs, pw, improvised, option)
    if damage == _NO_DAMAGE:
        return 0.0
    if damage == _BLAST:
        if strike(pw, pool_opt, None) is None:
            return 0.0
        n = max(0, int(pw.x("blast_dice", 1)) - state.grid.cover(t.pos, t.pos))
        return n * pw.damage.mean
    ed = strike(pw, pool_opt, ((extra, die_total, 2 if option == "double" else 1),))
    return 0.0 if ed is None else ed


def start_turn_rolls(rs: Any, state: BattleState, a: Combatant) -> bool:
    """Whether `start_turn` may roll for `a`: only its called-shot recovery roll does
    (`recovery_roll`: an affliction lasting until an Endurance roll, on a figure neither dead,
    unconscious nor dying)."""
    aff = a.res["afflictions"]
    if not aff or not any(x["until"] == "endurance" for x in aff):
        return False
    return not (a.dead or a.conditions & {"unconscious", "dying"})


__all__ = ["start_turn_rolls", "threat_profile"]
