"""The shortcuts that make the env's observation cheap (issue 30) give the numbers of the long way.

`Ruleset.unit_numbers` answers `reach_m` and `ammo_frac` of many figures from one look at
each figure's weapons (each rule system fuses the two loops). Checked at every decision of
seeded fights on every bundled scenario and on generated maps, for every figure, standing or
down, against the two calls.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from agents.base import make_policy, policy_copy
from envs.generators import generate_scenario
from rules.dice import Dice
from rules.ruleset import Ruleset
from rules.scenario import load_scenario, new_battle
from rules.state import BattleState

SCENARIOS = {
    "cortex": ["cortex/warehouse", "cortex/ambush", "cortex/duel", "cortex/saloon"],
    "cortex_hu": ["cortex_hu/csarda", "cortex_hu/les", "cortex_hu/magtar"],
    "metalface": ["metalface/foundry", "metalface/rooftop", "metalface/scrapyard"],
    "cybergeneration": ["cybergeneration/alley_brawl", "cybergeneration/mall_raid",
                        "cybergeneration/rooftop_standoff"],
}


def states(scenario, seed: int, policies: tuple[str, str], n: int = 150) -> Iterator[tuple[Ruleset, BattleState]]:
    """(ruleset, state) before each of the first `n` decisions of a seeded fight."""
    spec, src = load_scenario(scenario)
    b = new_battle(spec, Dice(np.random.default_rng(seed)), src, record=False)
    pols = {tm.name: make_policy(policies[i % 2], seed + i) for i, tm in enumerate(spec.teams)}
    b.start()
    for _ in range(n):
        if b.state.over:
            return
        yield b.ruleset, b.state
        b.step(pols[b.state.actor.team].act(b.state, b.state.actor), check=False)


@pytest.mark.parametrize("ruleset", sorted(SCENARIOS))
def test_unit_numbers_are_reach_and_ammo_one_by_one(ruleset: str) -> None:
    fights = [(sc, seed, pols) for sc in SCENARIOS[ruleset] for seed, pols in
              ((1, ("random", "random")), (2, ("aggressive", "random")))]
    fights += [(generate_scenario(seed=seed, ruleset=ruleset), seed, ("random", "aggressive")) for seed in (3, 4)]
    seen = {"figures": 0, "down": 0, "no reach": 0, "ammo spent": 0}
    for scenario, seed, pols in fights:
        for rs, s in states(scenario, seed, pols):
            figures = list(s.combatants)
            want = [(rs.reach_m(c), rs.ammo_frac(c)) for c in figures]
            assert rs.unit_numbers(figures) == want
            assert Ruleset.unit_numbers(rs, figures) == want     # the default is the long way
            seen["figures"] += len(figures)
            seen["down"] += sum(c.down for c in figures)
            seen["no reach"] += sum(r == 0 for r, _ in want)
            seen["ammo spent"] += sum(a < 1 for _, a in want)
    # the states cover what the fused loops branch on
    assert seen["figures"] > 1000 and seen["down"] > 0 and seen["ammo spent"] > 0, seen


@pytest.mark.parametrize("ruleset,advice", [("cortex", "tactical"), ("cortex_hu", "bold")])
def test_an_advised_decision_lists_its_legal_actions_once(ruleset: str, advice: str, monkeypatch) -> None:
    """The env's mask and its advisor's ranking read one `legal_actions` list a decision (the
    design's "legal actions computed once per decision and shared"), and the ranking given that
    list is the one it makes listing them itself: the same actions, scores and reasons at every
    decision of seeded fights."""
    from agents.tactical import TacticalPolicy
    from envs.skirmish import SkirmishEnv

    env = SkirmishEnv(ruleset=ruleset, scenario=SCENARIOS[ruleset][0], opponent="random", advice=advice,
                      advice_parts=True)
    rs_cls = type(env.rs)
    calls = []
    real = rs_cls.legal_actions

    def counted(self, state, *a, **k):
        calls.append(1)
        return real(self, state, *a, **k)

    rng = np.random.default_rng(3)
    checked = 0
    for episode in range(3):
        env.reset(seed=episode)
        done = False
        n = 0
        while not done:
            s, actor = env.battle.state, env.battle.state.actor
            n += 1
            # every decision of whole fights (2 s: the copies of the advisor are `policy_copy`'s, not deep ones)
            if actor is not None and s.pending is None and not s.over:
                advisor = env._advisor.policy
                assert isinstance(advisor, TacticalPolicy)
                clone = s.clone()
                legal = env.rs.legal_actions(clone)
                own = [(c.action, c.score, c.reason) for c in _fresh(advisor).rank(clone, clone.actor)]
                given = [(c.action, c.score, c.reason) for c in _fresh(advisor).rank(clone, clone.actor, legal)]
                assert given == own
                monkeypatch.setattr(rs_cls, "legal_actions", counted)
                calls.clear()
                env._observe()
                monkeypatch.setattr(rs_cls, "legal_actions", real)
                assert len(calls) == 1
                checked += 1
            a = int(rng.choice(np.flatnonzero(env.action_masks())))
            _, _, term, trunc, _ = env.step(a)
            done = term or trunc
    assert checked >= 40


def _fresh(policy):
    """A copy of an advisor with its fight memory as it is now (ranking twice must not see the first):
    the exact copy the table and env snapshots take (a deep copy also copied the map, the test's time)."""
    return policy_copy(policy)
