"""`AttackPools` (rules/systems/cortex/pools.py) gives `attack_pool`'s dice (issue #30).

At every decision of seeded cortex fights (and each foe as if it acted), for every figure,
each of its weapons, every attack option and range band, one `AttackPools` per state and
figure is compared with `CombatMixin.attack_pool`, the long way. Copies of each state are
staged where the band-free part moves: a second and third action, the rise penalty,
impaired and wounded figures, and a trait whose attribute steps apply to the attack roll.
"""

from __future__ import annotations

import pytest

from rules.state import BattleState
from rules.systems.cortex.pools import AttackPools
from tests.test_cortex_speed import SCENARIOS, states


def staged(rs, s: BattleState) -> list[BattleState]:
    """`s` and copies where an attack's steps or attribute dice differ."""
    out = [s]
    if not s.economy:
        return out
    for actions, rise in ((1, False), (2, True)):
        c = s.clone()
        c.economy["actions"], c.economy["rise_penalty"] = actions, rise
        out.append(c)
    c = s.clone()
    f, g = c.combatants[0], c.combatants[-1]
    f.conditions.add("impaired")
    g.res["wound"] = max(g.res["wound"], (g.stats["life"] + 1) // 2)  # wounded: -2 on every attribute
    # clumsy's "graceful" steps (agility, -2) apply when the context holds it: conditions join it
    f.traits = rs.traitbook.normalise(["clumsy"], None, "traits")
    f.conditions.add("graceful")
    out.append(c)
    return out


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_attack_pools_are_attack_pool(scenario: str) -> None:
    checked = differ = 0
    for policy in ("random", "tactical"):
        for rs, s0 in states(scenario, policy, 5, n=25):
            options = rs.supported_actions["attack"]
            bands = sorted({int(b["steps"]) for b in rs.bands} | {0})
            for s in staged(rs, s0):
                for a in s.combatants:
                    pools = AttackPools(rs, s, a)
                    for w in rs.weapons_of(a):
                        for option in options:
                            for band in bands:
                                rs._pool_cache.clear()
                                want = rs.attack_pool(s, a, w, option, band)
                                assert pools(w, option, band) == want, (a.id, w.name, option, band)
                                rs._pool_cache.clear()  # its key leaves out conditions and wounds
                                differ += want != rs.attack_pool(s0, s0.by_id[a.id], w, option, band)
                                checked += 1
                            assert pools(w, option, None) is None
    assert checked > 0 and differ > 0  # the staged copies do move the pools
