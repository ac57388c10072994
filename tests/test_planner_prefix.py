"""The planner's rollouts share their start (issue 30, ninth pass; agents/planner.py `_Prefix`).

A candidate's rollouts differ only in their dice, so everything before the first roll (the
candidate's own move, the decisions after it, turns that roll nothing) is the same for every
seed: it is played once and each rollout goes on from a copy of the fight and of the players
(`TacticalPolicy.fork`). These tests hold it to the plain path: every rollout's score, for
every candidate, in every ruleset, with both guides."""

from __future__ import annotations

import numpy as np
import pytest

from agents import planner as PL
from agents.base import make_policy
from agents.planner import PlannerPolicy
from agents.tactical import BoldPolicy, TacticalPolicy
from rules.actions import END_TURN
from rules.dice import Dice
from rules.scenario import load_scenario, new_battle

SCENARIOS = ["cortex/warehouse", "cortex_hu/csarda", "cybergeneration/alley_brawl", "metalface/scrapyard"]


def _states(scenario: str, n: int, every: int = 3) -> list:
    """Every `every`-th state of seeded tactical-vs-tactical fights, `n` of them."""
    spec, src = load_scenario(scenario)
    out, fight = [], 5
    while len(out) < n * every:
        b = new_battle(spec, Dice(np.random.default_rng(fight)), src, record=False)
        pols = {tm.name: make_policy("tactical", fight) for tm in spec.teams}
        b.start()
        while not b.state.over and len(out) < n * every:
            out.append(b.state.clone())
            b.step(pols[b.state.actor.team].act(b.state, b.state.actor), check=False)
        fight += 1
    return out[::every][:n]


def _decide(states: list, guide: str, share: bool, monkeypatch) -> list:
    """(action, every candidate's rollout scores) of a fresh planner at each state."""
    monkeypatch.setattr(PlannerPolicy, "_shares_prefix", lambda self: share)
    out = []
    for s in states:
        p = PlannerPolicy(seed=3, budget=8, top_k=3, close=10.0, guide=guide)   # always looks ahead
        a = p.act(s, s.actor)
        out.append((a, {k: list(v) for k, v in p._samples.items()}))
    return out


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_shared_prefix_scores_every_rollout_as_the_plain_path(scenario: str, monkeypatch) -> None:
    states = _states(scenario, 5)
    for guide in ("tactical", "bold"):
        plain = _decide(states, guide, False, monkeypatch)
        shared = _decide(states, guide, True, monkeypatch)
        assert shared == plain, f"{scenario}, guide {guide}: the rollouts' scores differ"
        assert any(len(v) > 1 for _, d in plain for v in d.values()), "no candidate had several rollouts"


def test_the_prefix_is_played_once_per_candidate(monkeypatch) -> None:
    """Each candidate's start is played once a decision, and every rollout of it is scored."""
    calls: list = []
    real = PlannerPolicy._prefix

    def spy(self, rs, state, actor, first, seed):
        calls.append(first)
        return real(self, rs, state, actor, first, seed)

    monkeypatch.setattr(PlannerPolicy, "_prefix", spy)
    s = _states("cortex/warehouse", 4)[2]
    p = PlannerPolicy(seed=3, budget=16, top_k=3, close=10.0)   # two rollouts each in the first round
    p.act(s, s.actor)
    assert len(calls) == len(set(calls)) == len(p._samples) >= 2
    assert all(len(v) >= 2 for v in p._samples.values())


def test_a_rollout_that_ends_before_any_roll_scores_alike_for_every_seed(monkeypatch) -> None:
    """In the last round, with every rollout player ending its turns, the fight ends at the round
    limit before any die is rolled (for a candidate that rolls none itself): the start is the whole
    rollout, and its score is every seed's, the plain path's."""
    s = _states("cortex/warehouse", 1)[0].clone()   # the first turn: its moves roll nothing
    s.round_limit = s.round
    real_act = TacticalPolicy.act

    def passive(self, state, actor):
        return END_TURN if self is not guide[0] else real_act(self, state, actor)

    guide: list = [None]
    kept: list = []
    real = PlannerPolicy._prefix

    def spy(self, *a):
        p = real(self, *a)
        kept.append(p)
        return p

    monkeypatch.setattr(TacticalPolicy, "act", passive)
    monkeypatch.setattr(PlannerPolicy, "_prefix", spy)
    out = {}
    for share in (False, True):
        monkeypatch.setattr(PlannerPolicy, "_shares_prefix", lambda self, share=share: share)
        p = PlannerPolicy(seed=3, budget=16, top_k=3, close=10.0)   # two rollouts each in the first round
        guide[0] = p.guide
        p.act(s.clone(), s.actor)
        out[share] = {k: list(v) for k, v in p._samples.items()}
    ended = [k for k in kept if k.value is not None]
    assert ended, "no rollout ended before a roll"
    assert out[True] == out[False]
    assert any(len(v) > 1 and len(set(v)) == 1 and v[0] == k.value for v in out[True].values() for k in ended)


def test_a_player_that_draws_from_its_generator_gets_no_shared_prefix(monkeypatch) -> None:
    """`seed_free = False`: its rollouts each play from the start (their seeds may matter)."""

    class Drawing(BoldPolicy):
        seed_free = False

    monkeypatch.setitem(PL.GUIDES, "bold", Drawing)
    p = PlannerPolicy(seed=3, budget=6, close=10.0, guide="bold")
    assert not p._shares_prefix()
    monkeypatch.setattr(PlannerPolicy, "_prefix", lambda *a, **k: pytest.fail("a prefix was shared"))
    s = _states("cortex/warehouse", 3)[1]
    p.act(s, s.actor)
    assert PlannerPolicy(seed=3)._shares_prefix()   # tactical's own rollouts still share


def test_a_fork_decides_as_its_original_on_a_memory_of_its_own() -> None:
    """`TacticalPolicy.fork`: the copy and the original pick the same actions from the same
    states, and what one of them remembers (the turn memory, the enemies' threat) is not the
    other's."""
    states = _states("cortex/ambush", 6, every=1)
    a = TacticalPolicy(seed=1)
    for s in states[:3]:
        a.act(s, s.actor)
    b = a.fork()
    assert b.mem == a.mem and b.mem is not a.mem
    assert b.seen_threat == a.seen_threat and b.seen_threat is not a.seen_threat
    assert b.threat_memo is a.threat_memo   # an exact memo: shared
    for s in states[3:]:
        s1, s2 = s.clone(), s.clone()
        assert b.act(s1, s1.actor) == a.act(s2, s2.actor)
    before = (a.mem.actions, dict(a.seen_threat))
    s = states[-1]
    b.commit(s, s.actor, b.last_action)
    b.seen_threat["nobody"] = 1.0
    assert (a.mem.actions, a.seen_threat) == before
