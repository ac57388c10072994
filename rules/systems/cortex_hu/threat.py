"""`cortex_hu`'s threat query: the largest expected damage of the acting figure's attacks on
each of some figures (issue #30: `assess.incoming` and `best_threat` ask it for every enemy,
cell and stance that `tactical` weighs).

`best_expected_damage` answers what listing `legal_attacks` (grapple options left out) and
pricing each with `attack_odds_many` would give as the maximum `exp_damage`, without building
actions or result dicts. It is exact because:

- it walks the targets, weapons and options with the same checks and the same step sums as
  `CombatHu.attack_actions`, on the same unchanged state, and prices only what that lists;
- each priced attack's number is worked out as `odds.attack_odds` does (the same pool dice,
  the same `expected_defence`, the same damage die mean and the same float operations in
  the same order), so the floats are the same bit for bit; equal floats make `max` order-free;
- plain grapples and disarms (`exp_damage` always 0.0) are skipped: the maximum starts at 0.0
  as `incoming`'s does; attacks with the same numbers (pool, defence, damage) are priced once.

`threat_profile` splits it (issue #30, third pass): the weapons, options and pools once per
attacker, then a function of the victim figure, which `agents/threat_memo.py` keeps per enemy
over a fight. That function reads nothing of the state but the attacker, its fresh turn's
economy and the map.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Callable, Iterable

from rules.dice import Step

from rules.state import BattleState, Combatant
from rules.systems.cortex_common.odds import hit_stats
from rules.systems.cortex_hu.ladder import ladder_pool
from rules.systems.cortex_hu.odds import NO_EXTRAORDINARY


def _weapon_plans(rs: Any, state: BattleState, a: Combatant) -> list[tuple] | None:
    """Per usable weapon, what does not depend on the target: (weapon, whether its plain
    attack can reach at all (rate of fire, ammunition), [(option, steps added to the ladder
    and the range band, damage die mean, choke)]) in `attack_options` order, disarm left
    out (no damage). None when `attack_odds` would look up another weapon of the same name
    (then it would price what the listing did not check)."""
    e = state.economy
    held = a.res["grappled_by"] is not None
    base = rs.turn_steps(state, a)
    all_out_now = bool(e["all_out"])
    all_out_ok = not (e["acted"] or e["carried"] or e["full_defence"] or e["all_out"])
    aim = a.res["aim"] * int(rs.aim_rules["steps_per_round"])
    rows = _option_rows(rs)
    ao_steps = rs.all_out_steps
    plans = []
    for w in rs.usable_weapons(a):
        if rs.weapon_named(a, w.name) is not w:  # as `attack_odds` looks the weapon up
            return None
        shoots = not w.ranged or (not held and e["shots"].get(w.name, 0) < w.rof
                                  and not (w.magazine and a.res["ammo"].get(w.name, 0) <= 0))
        # `attack_actions`' sum less the band: whole numbers, so any order gives the same
        opts = [(opt, base + st + (ao_steps if ao or all_out_now else 0) + (aim if aimed else 0), mean, choke)
                for opt, st, mean, choke, ao, aimed, throw in _weapon_options(
                    w.damage, w.ranged, w.kind == "melee" and w.name != "unarmed", w.name == "unarmed", rows)
                if not (ao and not all_out_ok) and not (throw and held)]
        plans.append((w, shoots, opts))
    return plans


def _option_rows(rs: Any) -> tuple[tuple[str, int, int | None], ...]:
    """(option, `option_steps`, damage steps a hit adds or None) of each attack option but
    disarm, in `attack_options` order (a called shot's steps do not depend on the weapon)."""
    areas = rs.called["areas"]
    out = []
    for opt in rs.attack_options:
        if opt.startswith("called:"):
            spec = areas[rs.area_of(opt)]
            waived = opt.endswith("_waive")
            out.append((opt, int(spec["attack_steps"]), None if waived else int(spec["damage_steps"])))
        elif opt != "disarm":
            out.append((opt, 0, None))
    return tuple(out)


@lru_cache(maxsize=1024)
def _weapon_options(damage: Step, ranged: bool, throwable: bool, unarmed: bool,
                    rows: tuple[tuple[str, int, int | None], ...]) -> tuple[tuple, ...]:
    """(option, `option_steps`, damage die mean as `attack_odds` steps it, choke, all-out,
    aimed, thrown) of each option of `rows` a weapon like this has: a pure function of its
    arguments (immutable values), so a module-level memo is safe."""
    out = []
    for opt, st, dsteps in rows:
        if (opt == "throw" and not throwable) or (opt == "choke" and not unarmed):
            continue
        die = damage if dsteps is None else damage + dsteps
        out.append((opt, st, die.mean, opt == "choke", opt == "all_out", ranged or opt == "throw", opt == "throw"))
    return tuple(out)


def best_expected_damage(rs: Any, state: BattleState, a: Combatant, victims: Iterable[str]
                         ) -> dict[str, float] | None:
    """For each figure id in `victims`: max(0.0, `exp_damage` of every attack `legal_attacks`
    lists on it, grapple options left out); None when `a` is not the acting figure."""
    damage = threat_profile(rs, state, a)
    if damage is None:
        return None
    return {vid: damage(state.by_id[vid]) for vid in dict.fromkeys(victims)}


def _nothing(t: Combatant) -> float:
    return 0.0


def threat_profile(rs: Any, state: BattleState, a: Combatant) -> Callable[[Combatant], float] | None:
    """`best_expected_damage` in two parts (`Ruleset.threat_profile`): what does not depend on
    the victim (the weapons, their options, the attack pools) once, and a function of the
    victim figure. That function reads of `state` only the attacker, the turn economy (which a
    fresh turn start sets from the attacker alone) and the map; None when `a` is not the
    acting figure, or where two weapons share a name (the listing prices those)."""
    if a is not state.actor:
        return None  # `attack_odds_many` would price another figure's attacks on this state
    if a is None or a.down:
        return _nothing
    e = state.economy
    if e["aimed"] or e["full_defence"]:
        return _nothing  # `legal_attacks` lists at most a release (a grapple option)
    plans = _weapon_plans(rs, state, a)
    if plans is None:
        return None  # a name shared by two weapons: not answered here (the listing prices it)
    if not plans:
        return _nothing
    g = state.grid
    holder = a.res["grappled_by"]
    grappling = a.res["grappling"]
    pools: dict[tuple, tuple | None] = {}  # (weapon, thrown, steps) -> sorted pool dice or None

    def pool(w: Any, throw: bool, steps: int) -> tuple | None:
        key = (w.name, throw, steps)
        res = pools.get(key, pools)
        if res is pools:  # `attack_dice`'s pool: `attack_actions` lists the attack iff it is not None
            sk = rs.weapon_skill(a, w, "throw" if throw else "")[1]
            attr = "agility" if throw else w.attribute
            p = ladder_pool(a, attr, sk, steps, rs.attr_steps(a, attr))
            res = pools[key] = None if p is None else tuple(sorted(p[0].dice + p[1].dice))
        return res

    def damage(t: Combatant) -> float:
        """max(0.0, `exp_damage` of each attack on `t`)."""
        if t.team == a.team or t.down:
            return 0.0
        if holder is not None and t.id != holder:
            return 0.0  # a held figure fights only its holder
        los = g.los(a.pos, t.pos)
        adj = g.adjacent(a.pos, t.pos)
        feinted = t.res["feinted_by"] is not None
        aw = sum(x.W for x in t.armour)
        as_ = sum(x.S for x in t.armour)
        dfns: dict[tuple, tuple] = {}
        priced: dict[tuple, float] = {}
        best = 0.0
        throw_band: int | None | bool = False  # False: not worked out yet
        for w, shoots, opts in plans:
            reach = (los and shoots) if w.ranged else adj
            band = rs.range_steps(state, a, t, w, "") if reach else None
            for opt, add, mean, choke in opts:
                throw = opt == "throw"
                if choke:
                    if grappling != t.id:
                        continue
                    b = rs.range_steps(state, a, t, w, opt)  # held fast: no reach check
                elif throw:
                    if not los:
                        continue
                    if throw_band is False:
                        throw_band = rs.range_steps(state, a, t, w, "throw")
                    b = throw_band
                else:
                    b = band
                if b is None:
                    continue
                att = pool(w, throw, add + b)
                if att is None:
                    continue
                ranged = rs.ranged_attack(w, opt)
                dkey = (w.name, ranged, rs.can_parry(w, opt))  # `attack_odds`' key for this target
                key = (att, dkey, mean, choke)
                ed = priced.get(key)
                if ed is None:
                    hit = dfns.get(dkey)
                    if hit is None:
                        hit = dfns[dkey] = rs.expected_defence(state, a, t, w, opt, innate_only=feinted)
                    dfn, add = hit
                    p_hit, e_margin, _ = hit_stats(att, tuple(sorted(dfn)), add, 0, 0, NO_EXTRAORDINARY)
                    ed = priced[key] = p_hit * _damage(e_margin, mean, choke, w.dtype, aw, as_)
                if ed > best:
                    best = ed
        return best

    return damage


def _damage(basic: float, mean: float, choke: bool, dtype: str, aw: int, as_: int) -> float:
    """`attack_odds`' damage if hit, the same operations in the same order."""
    if choke:
        stun, wound = basic + mean, 0.0
    else:
        stun, wound = basic / 2, basic / 2
        if dtype == "S":
            stun += mean
        elif dtype == "W":
            wound += mean
        else:
            stun += mean / 2
            wound += mean / 2
    return max(0.0, wound - aw) + max(0.0, stun - as_)


__all__ = ["best_expected_damage", "threat_profile"]
