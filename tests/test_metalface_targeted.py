"""metalface `legal_attacks(state, target)` tests only that target (issue 30): the same
list as the full listing filtered to it, for every figure as target at every decision of
seeded fights (and for every enemy acting, as `assess.incoming` asks it on a copy)."""

from __future__ import annotations

from agents import assess as A
from envs.generators import generate_scenario
from tests.test_metalface_moving import decisions


def test_targeted_attacks_are_the_filtered_listing() -> None:
    found = 0
    fights = [("metalface/scrapyard", ("tactical", "bold"), 3), ("metalface/foundry", ("random", "tactical"), 4),
              ("metalface/rooftop", ("cautious", "aggressive"), 5),
              (generate_scenario("metalface", 3100), ("tactical", "bold"), 8)]
    for scen, pols, seed in fights:
        for rs, s in decisions(scen, pols, seed, n=60):
            states = [s] + [v for v in (A.as_acting(rs, s, c.id, A.probe_dice(s, c)) for c in s.combatants)
                            if v is not None]
            for v in states:
                full = rs.legal_attacks(v)
                for t in v.combatants:
                    got = rs.legal_attacks(v, t.id)
                    assert got == [x for x in full if x.target == t.id], (scen, seed, v.actor.id, t.id)
                    found += len(got)
    assert found > 500, found
