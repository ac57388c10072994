"""Exact odds of seed 004 attacks for policies (no dice are rolled, nothing changes).

`attack_odds` mirrors the resolution in `combat.py` and `grapple.py` in expectation: the
chance to hit (d10 with criticals: a natural 10 adds a d10, a natural 1 subtracts one) and
the expected Wounds after armour, in the health units of `health()` (Wounds).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Callable

from rules.actions import Action
from rules.state import BattleState, Combatant
from rules.systems.cybergeneration.checks import crit_pmf, p_at_least, p_beat


def after_armour(rs: Any, t: Combatant, raw: int, ap: bool, head: bool = False, no_armour: bool = False) -> int:
    piece = None if no_armour else (rs.head_armour(t) if head else rs.body_armour(t))
    return _through(rs, piece, raw, ap)


def _through(rs: Any, piece: Any, raw: int, ap: bool) -> int:
    """Wounds of a hit of `raw` through armour `piece` (None: no armour)."""
    return _through_sp(rs.stop_all_sp, piece, raw, ap)


def _through_sp(stop_all_sp: int, piece: Any, raw: int, ap: bool) -> int:
    """`_through` with the ruleset's `stop_all_sp` given."""
    sp = piece.sp if piece is not None else 0
    if ap:
        sp //= 2
    after = max(0, raw - sp)
    if raw > 0 and after == 0 and piece is not None and piece.sp < stop_all_sp:
        after = 1
    return after


@lru_cache(maxsize=8192)
def burst(wounds: Callable[[int, int], int], stop_all_sp: int, piece: Any, dc: int, ap: bool, k: int
          ) -> tuple[float, float]:
    """(P(hit), expected Wounds) of a full-auto burst of DC `dc` through armour `piece` (None:
    none) by an attack whose base exceeds the difficulty by `k`, before the preliminary factor:
    the loop `attack_odds` ran, in the same order (a pure function of immutable inputs, so a
    module-level memo is safe: the table's `wounds` is fixed once the ruleset is built)."""
    p = 0.0
    total_d = 0.0
    for v, q in crit_pmf():
        margin = k + v
        if margin < 0:
            continue
        p += q
        for f in range(1, 11):
            val = f + margin
            hits = []
            while val > 10:
                hits.append(10)
                val -= 10
            hits.append(val)
            total_d += q * 0.1 * sum(_through_sp(stop_all_sp, piece, wounds(dc, h), ap) for h in hits)
    return p, total_d


def mean_hit(rs: Any, t: Combatant, dc: int, mod: int, ap: bool, head: bool = False, no_armour: bool = False) -> float:
    piece = None if no_armour else (rs.head_armour(t) if head else rs.body_armour(t))
    return mean_through(rs.table.wounds, rs.stop_all_sp, piece, dc, mod, ap)


@lru_cache(maxsize=16384)
def mean_through(wounds: Callable[[int, int], int], stop_all_sp: int, piece: Any, dc: int, mod: int, ap: bool
                 ) -> float:
    """The mean Wounds over the ten damage faces of a hit of DC `dc` + `mod` through armour `piece`
    (None: none): `mean_hit`'s sum, in the same order (a pure function of immutable inputs: armour
    pieces are frozen, the table's `wounds` fixed once the ruleset is built; so, like `burst`, a
    module-level memo is safe and gives the same float)."""
    return sum(_through_sp(stop_all_sp, piece, wounds(dc, f + mod), ap) for f in range(1, 11)) / 10.0


def _mean(shared: dict | None, rs: Any, t: Combatant, dc: int, mod: int, ap: bool, head: bool = False) -> float:
    """`mean_hit`, kept in `shared` (a target's armour does not change within one state)."""
    if shared is None:
        return mean_hit(rs, t, dc, mod, ap, head)
    key = (t.id, dc, mod, ap, head)
    v = shared.get(key)
    if v is None:
        v = shared[key] = mean_hit(rs, t, dc, mod, ap, head)
    return v


def attack_odds(rs: Any, state: BattleState, a: Combatant, action: Action,
                shared: dict | None = None) -> dict[str, float] | None:
    """Chance to hit and expected Wounds of an attack or grapple now (`shared`: a dict kept over
    several actions of the same figure on the same state, `attack_odds_many`)."""
    if action.kind not in ("attack", "grapple") or action.target is None:
        return None
    t = state.by_id.get(action.target)
    if t is None or t.dead:
        return None
    turn = rs.turn_mods(state) if state.actor is a and state.economy else {}
    option = action.option or ""
    if action.kind == "grapple":
        return grapple_odds(rs, state, a, t, option, turn, shared)
    w = rs.has_weapon(a, action.weapon)
    if w is None:
        return None
    return weapon_odds(rs, state, a, t, w, option, turn, shared)


def weapon_odds(rs: Any, state: BattleState, a: Combatant, t: Combatant, w: Any, option: str, turn: dict,
                shared: dict | None = None) -> dict[str, float] | None:
    """`attack_odds` of an attack with weapon `w` (option `option`) on the figure `t`, which is not
    dead; `turn`: `rs.turn_mods` of the acting figure `a` ({} for another)."""
    pre = 1.0
    if rs.in_grapple(a) and rs.needs_preliminary(state, a, t, w, option):
        p = rs.partners(state, a)
        if p:
            pre = opposed_p(rs, state, a, p[0], turn)
    if turn.get("two") and rs.rollless(w, t, option):  # the hurried REF check (assumption two_actions)
        ref = rs.stat(a, "ref")
        pre *= sum(1 for f in range(1, 11) if ref + f >= rs.chk["hurried_stat"]) / 10.0
    if w.no_roll:
        d = _mean(shared, rs, t, w.dc, 0, w.ap)
        return _out(pre, d)
    if w.kind in ("melee", "special") and option != "throw":
        mod = rs.melee_mod(a, w)
        if t.down:
            d = after_armour(rs, t, rs.table.wounds(w.dc, 10 + mod), w.ap)
            return _out(pre, float(d))
        ref = rs.stat(a, "ref")
        _, sk = rs.attack_skill(a, w, t)
        parts = rs.attack_parts(state, a, t, w, option, turn, melee=True) + rs.opposed_bonus(state, a, t, knocked=False)
        base = ref + sk + w.accuracy + sum(v for _, v in parts)
        dbase = rs.defence_base(state, t, a)[0]
        p = p_beat(base, dbase)
        if option in ("knockdown", "stun"):
            d = _mean(shared, rs, t, 1, 0, False)
        elif option == "disarm":
            d = 0.0
        elif option == "called:gap":
            d = _mean(shared, rs, t, w.dc, mod, w.ap)  # the spot roll is not weighed
        else:
            d = _mean(shared, rs, t, w.dc, mod, w.ap, head=option == "called:head")
        return _out(pre * p, d)
    g = state.grid
    throw = option == "throw"
    if w.kind == "grenade":
        dd = rs.difficulty(state, a, t, w, throw=True)
        if dd is None:
            return None
        diff = dd[0]
        parts = rs.attack_parts(state, a, t, w, "", turn, melee=False, throw=True)
        base = rs.stat(a, "ref") + rs.skill(a, "athletics") + sum(v for _, v in parts)
        p = p_at_least(base, diff)
        return _out(pre * p, _mean(shared, rs, t, w.dc, 0, w.ap))
    dd = rs.difficulty(state, a, t, w, throw=throw)
    if dd is None:
        return None
    diff = dd[0]
    if w.kind == "genius":
        skill = int(w.x("missile_skill", 15))
        p = sum(1 for f in range(1, 11) if skill + f >= diff) / 10.0
        if option == "scribble":
            dc = int(w.x("scribble_dc", 5))
            radius = float(w.x("scribble_radius_m", 3))
            n = 1 + sum(1 for o in state.combatants if o is not t and not o.down
                        and g.distance_m(o.pos, t.pos) <= radius + 1e-6 and g.los(t.pos, o.pos))
            d = sum(after_armour(rs, t, rs.table.wounds(dc, f) // n + rs.table.wounds(dc, f) % n, w.ap)
                    for f in range(1, 11)) / 10.0
        else:
            d = _mean(shared, rs, t, int(option.split(":")[1]), 0, w.ap)
        return _out(pre * p, d)
    _, sk = rs.attack_skill(a, w, t, throw)
    parts = rs.attack_parts(state, a, t, w, option, turn, melee=False, throw=throw)
    base = rs.stat(a, "ref") + sk + (0 if throw else w.accuracy) + sum(v for _, v in parts)
    head = option == "called:head"
    if option == "full_auto":
        piece = rs.head_armour(t) if head else rs.body_armour(t)
        p, total_d = burst(rs.table.wounds, rs.stop_all_sp, piece, w.dc, w.ap, base - diff)
        p *= pre
        return {"p_hit": p, "exp_damage": pre * total_d, "damage_if_hit": total_d * pre / p if p > 0 else 0.0}
    p = p_at_least(base, diff)
    mod = rs.body_mod(a) if w.bow else 0
    return _out(pre * p, _mean(shared, rs, t, w.dc, mod, w.ap, head))


def opposed_p(rs: Any, state: BattleState, x: Combatant, y: Combatant, turn: dict, extra: int = 0) -> float:
    sf = rs.skill(x, "streetfighting")
    if rs.kid_vs_adult(x, y):
        sf //= 2
    if turn.get("two"):
        extra += rs.mod["two_actions"]
    base = rs.stat(x, "ref") + sf + extra + sum(v for _, v in rs.opposed_bonus(state, x, y))
    dbase = rs.defence_base(state, y, x, dodge=False)[0]
    return p_beat(base, dbase)


def grapple_odds(rs: Any, state: BattleState, a: Combatant, t: Combatant, option: str, turn: dict,
                 shared: dict | None = None) -> dict[str, float] | None:
    if option in ("break", "escape"):
        return {"p_hit": opposed_p(rs, state, a, t, turn), "exp_damage": 0.0, "damage_if_hit": 0.0}
    if option == "":
        p = opposed_p(rs, state, a, t, turn, extra=-int(t.res["dodge"]))
        return _out(p, _mean(shared, rs, t, 1, 0, False))
    p = opposed_p(rs, state, a, t, turn)
    hand = next((w for w in rs.weapons_of(a) if w.special == "cybercrush"), None)
    d = _mean(shared, rs, t, hand.dc, rs.melee_mod(a, hand), hand.ap) if hand else _mean(shared, rs, t, 2, rs.body_mod(a), False)
    return _out(p, d)


def _out(p: float, d: float) -> dict[str, float]:
    return {"p_hit": p, "exp_damage": p * d, "damage_if_hit": d}
