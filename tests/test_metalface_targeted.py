"""metalface shortcuts for `tactical`'s pricing (issue 30), against the long way at every
decision of seeded fights, for the acting figure and for every figure made to act on a copy
(as `assess.incoming` asks):

- `legal_attacks(state, target)` tests only that target: the full listing filtered to it;
- `attack_odds_many` (odds.py): bit for bit `attack_odds` of each action, legal or not
  (every figure x weapon, ranged and body attacks, and non-attacks)."""

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


def hexed(odds):
    return None if odds is None else {k: float.hex(float(v)) for k, v in odds.items()}


def test_attack_odds_many_is_attack_odds() -> None:
    ranged = 0
    fights = [("metalface/scrapyard", ("tactical", "bold"), 3), ("metalface/foundry", ("random", "tactical"), 4),
              ("metalface/rooftop", ("aggressive", "cautious"), 6),
              (generate_scenario("metalface", 3200), ("tactical", "bold"), 9)]
    for scen, pols, seed in fights:
        for rs, s in decisions(scen, pols, seed, n=60):
            states = [s] + [v for v in (A.as_acting(rs, s, c.id, A.probe_dice(s, c)) for c in s.combatants)
                            if v is not None]
            for v in states:
                a = v.actor
                acts = [rs.action("attack", target=t.id, weapon=w) for t in v.combatants for w in a.weapons]
                acts += rs.legal_actions(v)
                got = rs.attack_odds_many(v, a, acts)
                assert [hexed(x) for x in got] == [hexed(rs.attack_odds(v, a, x)) for x in acts], (scen, seed)
                ranged += sum(1 for x in acts if x.kind == "attack" and a.weapons[x.weapon].ranged)
    assert ranged > 2000, ranged


def test_attack_listing_is_can_attack() -> None:
    """`legal_attacks` lists exactly what the rule `can_attack` allows, target by target in
    scenario order, weapon by weapon in the figure's order."""
    listed = 0
    for scen, pols, seed in [("metalface/scrapyard", ("tactical", "bold"), 3),
                             ("metalface/foundry", ("random", "tactical"), 4),
                             (generate_scenario("metalface", 3300), ("aggressive", "cautious"), 10)]:
        for rs, s in decisions(scen, pols, seed, n=60):
            states = [s] + [v for v in (A.as_acting(rs, s, c.id, A.probe_dice(s, c)) for c in s.combatants)
                            if v is not None]
            for v in states:
                a = v.actor
                if v.economy.get("turn_over"):
                    continue
                want = [rs.action("attack", target=t.id, weapon=w.name) for t in v.combatants
                        for w in a.weapons.values() if rs.can_attack(v, a, t, w)]
                assert rs.legal_attacks(v) == want, (scen, seed, a.id)
                listed += len(want)
    assert listed > 500, listed
