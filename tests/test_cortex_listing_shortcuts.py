"""Third speed pass (issue 30): the shortcuts in cortex's listing and economy and the map's
adjacency give what the long way gives.

- `Grid.adjacent` tests the cell's ring of neighbours first (the long way: not the same
  cell, Chebyshev distance 1, no wall between), on every pair of cells of bundled maps,
  generated maps and a map with walls between cells.
- `CortexRuleset.usable_weapons` and the listing's per-weapon plan read a weapon's record
  once (`listing.weapon_static`); `speed_factor` is 1 with no affliction and no impairment;
  `grapple_actions` tests the ring first; `economy`'s `move_left_m` is one `max` unless
  every cell at the largest cost is taken (`_max_cost_off`). Each is compared with the
  code it replaced, kept here, at every decision of seeded fights (every figure as if it
  acted, too).
"""

from __future__ import annotations

import pytest

from envs.generators import generate_scenario
from rules.edges import edges_from_segments
from rules.grid import Grid
from rules.scenario import build_state, load_scenario
from rules.systems.cortex import listing
from rules.systems.cortex.readouts import _max_cost_off
from tests.seeded_states import decisions

SCENARIOS = ["cortex/warehouse", "cortex/ambush", "cortex/duel", "cortex/saloon"]


def old_adjacent(g: Grid, a: int, b: int) -> bool:
    if a == b or g.chebyshev(a, b) != 1:
        return False
    if g.edges is None:
        return True
    ax, ay = g.xy(a)
    bx, by = g.xy(b)
    return not g.edges.separates(ax, ay, bx - ax, by - ay)


def _maps() -> list[Grid]:
    out = [build_state(*load_scenario(n)).grid for n in SCENARIOS]
    out += [build_state(*load_scenario(generate_scenario("cortex", s))).grid for s in (1, 2)]
    rows = ["......", ".#..#.", "......", "......"]
    out.append(Grid(rows, edges=edges_from_segments([[2, 0, 2, 3], [0, 2, 4, 2], [5, 1, 5, 4]], 6, 4)))
    return out


def test_adjacent_is_the_long_way_on_every_pair() -> None:
    walls = 0
    for g in _maps():
        for a in range(g.n):
            for b in range(g.n):
                want = old_adjacent(g, a, b)
                assert g.adjacent(a, b) == want, (a, b)
                walls += g.edges is not None and want != (a != b and g.chebyshev(a, b) == 1)
    assert walls > 0   # the walled map has neighbours a wall separates


def old_usable_weapons(rs, c) -> list:
    arms = rs.arms_usable(c)
    out = []
    for w in rs.weapons_of(c):
        if w.hands > arms or arms == 0:
            continue
        if w.kind == "explosive" and c.res["uses"].get(w.name, 0) <= 0:
            continue
        out.append(w)
    return out


def old_plan(rs, state, a, w) -> tuple:
    e = state.economy
    shots = e["shots"].get(w.name, 0)
    modes: tuple = ()
    if w.kind == "explosive":
        kind = listing._EXPLOSIVE
        ok = not (a.res["uses"].get(w.name, 0) <= 0 or shots >= w.rof)
    elif w.ranged:
        kind = listing._RANGED
        ammo = a.res["ammo"].get(w.name, 0) if w.magazine else 0
        ok = shots < w.rof and not (w.magazine and ammo < rs.rounds_for(a, w, "", shots))
        modes = tuple(m for m in listing._FIRE_MODES if w.x(m)
                      and (shots <= 0 if m == "autofire" else shots < w.rof)
                      and not (w.magazine and ammo < rs.rounds_for(a, w, m, shots)))
    else:
        kind = listing._MELEE
        ok = True
    return w, kind, ok, bool(w.x("throwable")), modes


def old_speed_factor(c) -> float:
    legs = sum(1 for a in c.res["afflictions"] if a["effect"] in ("lose_leg",))
    f = 0.5 ** legs
    if "impaired" in c.conditions:
        f *= 0.5
    return f


def old_grapple_targets(state, a) -> list:
    g = state.grid
    return [t for t in state.combatants
            if (t.team != a.team and not t.down and t.res["grappled_by"] is None
                and t.res["grappling"] is None and old_adjacent(g, a.pos, t.pos))]



@pytest.mark.parametrize("scenario", SCENARIOS)
def test_listing_and_economy_shortcuts_are_the_long_way(scenario: str) -> None:
    seen = {"weapons": 0, "modes": 0, "grapple": 0, "moves": 0, "taken max": 0, "slow": 0}
    for seed, pols in ((1, ("random", "random")), (2, ("aggressive", "random"))):
        for rs, s in decisions(scenario, seed, pols, 120):
            for c in s.combatants:
                assert rs.speed_factor(c) == old_speed_factor(c)
                seen["slow"] += old_speed_factor(c) != 1.0
                assert rs.usable_weapons(c) == old_usable_weapons(rs, c)
                for w in rs.weapons_of(c):
                    plan = listing._plan(rs, s, c, w)
                    assert plan == old_plan(rs, s, c, w)
                    seen["weapons"] += 1
                    seen["modes"] += bool(plan[4])
                if s.pending is None and s.economy and not c.down:
                    if c.res["grappled_by"] is None and c.res["grappling"] is None and rs.arms_usable(c) > 0:
                        near = old_grapple_targets(s, c)
                        got = [x.target for x in rs.grapple_actions(s, c)]
                        assert got == ([t.id for t in near] if near and rs.grapple_dice(s, c) is not None else [])
                        seen["grapple"] += len(got)
            a = s.actor
            if a is None or s.pending is not None or not s.economy:
                continue
            found = rs._reach_now(s, a)
            if found is not None:
                reach, occ = found
                want = max((v for c, v in reach.items() if c not in occ), default=0)
                assert _max_cost_off(reach, occ) == want
                seen["moves"] += 1
                # the same reach with the cells at its largest cost taken: the slow branch
                top = max(reach.values())
                taken = occ | {c for c, v in reach.items() if v == top}
                assert _max_cost_off(reach, taken) == max(
                    (v for c, v in reach.items() if c not in taken), default=0)
                seen["taken max"] += 1
    assert seen["weapons"] > 50 and seen["moves"] > 20, seen
    if scenario == "cortex/warehouse":
        assert seen["modes"] > 0, seen


def test_max_cost_off_edge_cases() -> None:
    assert _max_cost_off({}, set()) == 0
    assert _max_cost_off({5: 0}, {5}) == 0
    assert _max_cost_off({1: 4, 2: 4, 3: 2}, {1}) == 4
    assert _max_cost_off({1: 4, 2: 4, 3: 2}, {1, 2}) == 2
    assert _max_cost_off({1: 4, 2: 4, 3: 2}, {1, 2, 3}) == 0


def test_speed_factor_with_lost_legs_and_impairment() -> None:
    rs, s = next(decisions("cortex/warehouse", 1, ("random", "random"), 120))
    c = s.combatants[0].clone()
    for affl, conds in (([], set()), ([], {"impaired"}), ([{"effect": "lose_arm"}], set()),
                        ([{"effect": "lose_leg"}], set()), ([{"effect": "lose_leg"}] * 2, {"impaired"})):
        c.res["afflictions"] = affl
        c.conditions = set(conds)
        assert rs.speed_factor(c) == old_speed_factor(c)
