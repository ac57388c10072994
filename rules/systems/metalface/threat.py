"""Metalface's threat query: the largest expected damage of the acting figure's attacks on each
of some figures (issue #30: `assess.incoming` and `best_threat` ask it for every enemy, cell
and stance that `tactical` weighs).

`best_expected_damage` answers what listing `legal_attacks(state, victim)` and pricing each
attack with `attack_odds_many` would give as the maximum `exp_damage` (0.0 when none), without
building actions, plans or result dicts. It is exact because:

- it walks the victims and the ready weapons with the same tests as `combat.attack_actions`
  (a down victim only with Status left, half turns, the turn to face the target, too close,
  sight, full cover, reach), on the same
  unchanged state, so it prices what that listing lists (on that victim only: the listing's
  other targets change nothing);
- a ranged attack is priced with `odds.attack_odds_many`' arithmetic and a body attack with
  `attack_odds`' (`body_plan`'s numbers): the same whole-number modifiers, the same memoised
  `p_at_least` / `p_beats`, the same float product `p * dmg`, so the floats are the same bit
  for bit, and equal floats make `max` order-free. The numbers that depend on the target only
  (bearing, range band, cover, movement) are worked out once per target, not per weapon: they
  are the same calls on the same state, so the same numbers.

tests/test_metalface_threat.py holds it to the long way on every decision of seeded fights.

`threat_profile` splits it (issue #30, seventh pass), as cortex's: the attacker's part once,
then a function of the victim, which agents/threat_memo.py keeps per enemy over a fight. A
metalface turn start rolls nothing (`start_turn_rolls`), so `tactical` skips starting it on a copy.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

from rules.state import DOWN_CONDITIONS, BattleState, Combatant
from rules.systems.metalface.combat import in_reach
from rules.systems.metalface.geometry import STEPS, bearing_dxdy
from rules.systems.metalface.model import mean_total, p_at_least, p_beats

EPS = 1e-6


def best_expected_damage(rs: Any, state: BattleState, a: Combatant, victims: Iterable[str]
                         ) -> dict[str, float] | None:
    """For each figure id in `victims`: max(0.0, `exp_damage` of every attack `legal_attacks`
    lists on it); None when `a` is not the acting figure."""
    if a is not state.actor:
        return None
    out = dict.fromkeys(victims, 0.0)
    prep = _prepared(rs, state, a)
    if prep is None:
        return out  # `legal_attacks` lists nothing
    by_id = state.by_id
    for vid in out:
        t = by_id.get(vid)
        if t is not None:
            out[vid] = _on(rs, state, a, prep, t)
    return out


def _prepared(rs: Any, state: BattleState, a: Combatant) -> tuple | None:
    """What of the query depends on the acting figure `a` and its turn alone; None where it
    lists no attack."""
    e = state.economy
    if a is None or a.down or not e or e.get("turn_over"):
        return None
    h = e["halves"]
    if h >= 2:
        return None
    weapons = a.weapons
    ready = [w for w in weapons.values() if not w.ranged or rs.weapon_ready(a, w)]
    if not ready:
        return None
    g = state.grid
    # (ranged, reach in squares, the weapon `attack_odds_many` looks up by the listed name)
    wl = [(w.ranged, 0 if w.ranged else rs.reach_cells(g, w), weapons.get(w.name)) for w in ready]
    skills = a.stats["skills"]
    # the attacker's numbers of a shot (PER, skills, movement modifiers) and of a body attack
    # (STR, lying, melee): pure functions of the figure, worked out once
    shot = (rs.val(a, "per"), skills, rs.movement_mods)
    body = (rs.val(a, "str"), 1 if a.res["posture"] == "lie" else 0, int(skills.get("melee", 0)))
    return h, wl, rs.walk_m(a), e["move_m"], e["flew"], a.res["facing"], rs.close_squares(g), shot, body


def _on(rs: Any, state: BattleState, a: Combatant, prep: tuple, t: Combatant) -> float:
    """The query's answer for one victim `t` (`prep`: `_prepared`'s); of `state` it reads the map."""
    # `targetable`: up, or down with Status left (assumption down_targets)
    if t.team == a.team or (not DOWN_CONDITIONS.isdisjoint(t.conditions) and t.res["damage"] >= t.stats["status"]):
        return 0.0
    h, wl, walk, moved, flew, facing, close, shot, body = prep
    g = state.grid
    gw = g.width
    ax, ay = a.pos % gw, a.pos // gw
    tx, ty = t.pos % gw, t.pos // gw
    b = bearing_dxdy(tx - ax, ty - ay)
    st = STEPS[facing][b] if b >= 0 else 0
    total = moved + (st * rs.turn_m_per_45 if st > 2 else 0.0)
    mh = 0 if total <= EPS else (1 if total <= walk + EPS else 2)
    if h + mh + 1 > 2:
        return 0.0
    d = max(abs(tx - ax), abs(ty - ay))
    ranged_base = None   # (dice, modifier without the weapon's skill) of a shot at t
    left = None          # `t`'s Status left (the damage is capped by it)
    best = 0.0
    for _, _, w in in_reach(g, a.pos, t.pos, d, close, wl):  # what `attack_actions` lists
        if w is None:
            continue  # `attack_odds` prices an unknown weapon None
        if left is None:
            left = max(0, t.stats["status"] - t.res["damage"])
        if w.ranged:
            # `attack_odds_many`: face_plan, moved_status, band, partial_cover, damage_vs
            per, skills, mm = shot
            if ranged_base is None:
                turn_m = rs.turn_cost(facing, b) if b >= 0 and st > 2 else 0.0   # `face_plan`
                amove = rs.moved_status(a, moved + turn_m, flew)
                _, bmod = rs.band(g.distance_m(a.pos, t.pos), max(1, per))
                fewer = 1 if rs.partial_cover(state, t, a) else 0
                ranged_base = (per - fewer, bmod + int(mm[amove]) + int(mm[t.res["moved"]]))
            # the plan's "mod": skill, range, attacker's and target's movement, in that order
            mod = int(skills.get(w.skill, 0)) + ranged_base[1]
            p = p_at_least(ranged_base[0], mod, rs.target_difficulty)
            dmg = float(min(rs.damage_vs(t, int(w.damage), rs.ranged_min_damage), left))
        else:
            p, dmg_value = _body(rs, g, a, t, w, *body)
            dmg = float(min(dmg_value, left))
        x = p * dmg
        if x > best:
            best = x
    return best


def threat_profile(rs: Any, state: BattleState, a: Combatant) -> Callable[[Combatant], float] | None:
    """`best_expected_damage` in two parts (`Ruleset.threat_profile`; issue #30, seventh pass):
    what depends on the acting figure and its fresh turn (`_prepared`) once, then a function of
    the victim figure, which agents/threat_memo.py keeps per enemy over a fight. The query reads
    nothing of the state but the attacker, the turn economy, the map and the victim, so the
    function answers for the victim in any state where a fresh turn of the same attacker starts.
    Answers are kept per victim as `_on` reads it."""
    if a is not state.actor:
        return None
    prep = _prepared(rs, state, a)
    if prep is None:
        return _nothing
    known: dict[tuple, tuple] = {}

    def damage(t: Combatant) -> float:
        r = t.res
        key = (t.id, t.team, t.pos, frozenset(t.conditions), r["damage"], r["level"], r["posture"], r["shield"],
               r["moved"], r["facing"])
        hit = known.get(key)
        if hit is not None and hit[0] is t.stats:
            return hit[1]
        best = _on(rs, state, a, prep, t)
        if len(known) >= _KNOWN:
            known.clear()
        known[key] = (t.stats, best)
        return best

    return damage


#: answers a profile keeps before starting afresh
_KNOWN = 4096


def _nothing(t: Combatant) -> float:
    return 0.0


def _body(rs: Any, g: Any, a: Combatant, t: Combatant, w: Any, a_str: int, a_fewer: int, a_melee: int
          ) -> tuple[float, int]:
    """(P(hit), damage value) of `body_plan`'s numbers, as `attack_odds` reads them."""
    a_value = a_str - a_fewer
    a_mod = a_melee + int(w.damage)
    rear = not rs.in_front(g, t, a.pos)
    d_fewer = (1 if t.res["posture"] == "lie" else 0) + (1 if rear else 0)
    sk = t.stats["skills"]
    block = (rs.val(t, "str") - d_fewer, int(sk.get("melee", 0)))
    dodge = (rs.val(t, "agl") - d_fewer, int(sk.get("dodge", 0)))
    d_value, d_mod = block if mean_total(*block) > mean_total(*dodge) else dodge
    return p_beats(a_value, a_mod, d_value, d_mod), rs.damage_vs(t, a_str + int(w.damage))


__all__ = ["best_expected_damage", "threat_profile"]
