"""`cortex_hu`'s threat query: the largest expected damage of the acting figure's attacks on
each of some figures (issue #30: `assess.incoming` and `best_threat` ask it for every enemy,
cell and stance that `tactical` weighs).

`best_expected_damage` answers what listing `legal_attacks` (grapple options left out) and
pricing each with `attack_odds_many` would give as the maximum `exp_damage`, without building
the list. It is exact because it is the offence query's walk (`offence.priced_on`, kept
equal to `attack_actions` and `attack_odds` by tests/test_cortex_hu_offence.py) on the one
target: the same attacks listed (by the same K sums, `offence._listed`) and priced with the
same pool dice, the same `expected_defence`, the same damage die mean and the same float
operations, so the floats are the same bit for bit; equal floats make `max` order-free.
Plain grapples and disarms (`exp_damage` always 0.0) change nothing: the maximum starts at 0.0
as `incoming`'s does. Its rows, and their maximum, are kept per ruleset on what they are a
function of (`offence._PRICED`): the same attacks on the same defence are priced once.

`threat_profile` splits it (issue #30, third pass): the attacker's weapons and its walk
(`offence._Walk`: its ladder, stance, aim and dice) once, then a function of the victim
figure, which `agents/threat_memo.py` keeps per enemy over a fight. That function reads
nothing of the state but the attacker, its fresh turn's economy and the map.
"""

from __future__ import annotations

from typing import Any, Callable

from rules.state import BattleState, Combatant
from rules.systems.cortex_hu.defence import defender
from rules.systems.cortex_hu.offence import _listed, _Walk, priced_rows

#: answers a profile keeps before starting afresh
_KNOWN = 4096


def _nothing(t: Combatant) -> float:
    return 0.0


def threat_profile(rs: Any, state: BattleState, a: Combatant) -> Callable[[Combatant], float] | None:
    """`best_expected_damage` in two parts (`Ruleset.threat_profile`): what does not depend on
    the victim (the weapons and the attacker's walk) once, and a function of the victim
    figure. That function reads of `state` only the attacker, the turn economy (which a
    fresh turn start sets from the attacker alone) and the map; None when `a` is not the
    acting figure, or where two weapons share a name (the listing prices those)."""
    if a is not state.actor:
        return None  # `attack_odds_many` would price another figure's attacks on this state
    if a is None or a.down:
        return _nothing
    e = state.economy
    if e["aimed"] or e["full_defence"]:
        return _nothing  # `legal_attacks` lists at most a release (a grapple option)
    ws = rs.usable_weapons(a)
    for w in ws:
        if rs.weapon_named(a, w.name) is not w:  # as `attack_odds` looks the weapon up
            return None  # a name shared by two weapons: not answered here (the listing prices it)
    if not ws:
        return _nothing
    g = state.grid
    walk = _Walk(rs, state, a)
    holder = a.res["grappled_by"]
    grappling = a.res["grappling"]
    apos = a.pos
    places: dict[tuple, list] = {}  # (victim id, cell) -> [(weapon, `_listed`'s key, rows)]
    known: dict[tuple, tuple] = {}  # (victim id, team, cell, id of its version) -> (version, answer)

    def damage(t: Combatant) -> float:
        """max(0.0, `exp_damage` of each attack on `t`), kept per victim version and cell."""
        f = defender(rs, t)
        if f is None:
            return _damage(t)
        key = (t.id, t.team, t.pos, id(f))
        hit = known.get(key)
        if hit is not None and hit[0] is f:
            return hit[1]
        best = _damage(t)
        if len(known) >= _KNOWN:
            known.clear()
        known[key] = (f, best)
        return best

    def _damage(t: Combatant) -> float:
        """max(0.0, `exp_damage` of each attack on `t`), the walk."""
        if t.team == a.team or t.down:
            return 0.0
        if holder is not None and t.id != holder:
            return 0.0  # a held figure fights only its holder
        feinted = t.res["feinted_by"] is not None
        dfns: dict[tuple, tuple] = {}

        def defence(t: Combatant, w: Any, ranged: bool, option: str) -> tuple:
            key = (w.name, ranged)
            hit = dfns.get(key)
            if hit is None:
                hit = dfns[key] = rs.sorted_defence(state, a, t, w, option, innate_only=feinted)
            return hit

        got = places.get((t.id, t.pos))
        if got is None:  # the attacks listed on a figure there (but disarms: no damage)
            los, adj, throw_band = g.los(apos, t.pos), g.adjacent(apos, t.pos), []
            got = []
            for w in ws:
                x = _listed(rs, walk, t, w, los, adj, holder, grappling, throw_band, disarm=False)
                if x is not None:
                    got.append((w, *x))
            if len(places) >= _KNOWN:
                places.clear()
            places[(t.id, t.pos)] = got
        best = 0.0
        if got:
            aw = sum(x.W for x in t.armour)
            as_ = sum(x.S for x in t.armour)
            for w, lkey, rows in got:
                ed = priced_rows(rs, walk, t, w, lkey, rows, defence, aw, as_)[2]
                if ed > best:
                    best = ed
        return best

    return damage


__all__ = ["threat_profile"]
