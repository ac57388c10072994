"""`agents.base.policy_copy`: the exact, cheap copy of a policy mid-fight that the table's undo,
its plans and an env snapshot take (a plain deep copy of `tactical` copied its threat memo's
map and ruleset: 45 ms a copy, four copies a table decision)."""

from __future__ import annotations

import copy

import pytest

from agents.base import make_policy, policy_copy
from rules.dice import Dice
from rules.scenario import load_scenario, new_battle
from tactica.table import Session


def _mid_fight(scenario: str, policy: str, decisions: int, seed: int = 3):
    """A fight `decisions` decisions in, both teams played by one `policy` object each."""
    spec, src = load_scenario(scenario)
    b = new_battle(spec, Dice(seed), src)
    pols = {t.name: make_policy(policy, seed) for t in spec.teams}
    b.start()
    for _ in range(decisions):
        s = b.state
        if s.over:
            break
        b.step(pols[s.actor.team].act(s, s.actor))
    return b, pols


@pytest.mark.parametrize("scenario", ["cortex/warehouse", "cortex_hu/csarda", "metalface/scrapyard",
                                      "cybergeneration/alley_brawl"])
def test_a_copy_decides_on_as_the_original_would(scenario):
    """The copy and a plain deep copy decide alike from here, decision by decision, on copies of
    the fight; the copy shares what never changes (the ruleset, the map, the threat memo) and
    has its own turn memory and move tiers."""
    b, pols = _mid_fight(scenario, "tactical", 14)
    rs, grid = b.ruleset, b.state.grid
    cheap = policy_copy(pols, keep=(rs, grid))
    deep = copy.deepcopy(pols)
    for name, p in pols.items():
        c = cheap[name]
        assert c is not p and c.mem is not p.mem
        assert c.threat_memo is p.threat_memo                 # a declared exact memo: shared
        assert c._tier_cache == p._tier_cache and c._tier_cache is not p._tier_cache   # history: copied
        assert deep[name].threat_memo.grid is not grid        # what a deep copy did
    b1, b2 = b.clone(), b.clone()
    for _ in range(30):
        s1, s2 = b1.state, b2.state
        if s1.over:
            break
        a1 = cheap[s1.actor.team].act(s1, s1.actor)
        a2 = deep[s2.actor.team].act(s2, s2.actor)
        assert a1 == a2
        b1.step(a1)
        b2.step(a2)


def test_history_memos_are_the_copys_own():
    """An entry a copy's later decision puts in its move tiers is not in the original's (the
    original then decides as before the copy was taken: the table's undo)."""
    _, pols = _mid_fight("cortex_hu/csarda", "tactical", 6)
    p = next(iter(pols.values()))
    c = policy_copy(p)
    before = dict(p._tier_cache)
    c._tier_cache[("x", (), ())] = (0, 0, 0.0, 0.0)
    assert p._tier_cache == before


def test_nested_policies_share_their_memos_at_depth():
    """`best` holds a network policy whose advisor holds a `tactical`, and a planner whose guide
    is one: the copy shares each one's declared memos (so no map is copied), and their
    generators are the copy's own, in the same state."""
    s = Session.new("cortex_hu/csarda", seed=0)
    s.begin(None)
    for _ in range(6):
        s.resolve(s.plan().action)
    pol = next(p for p in s.policies.values() if p is not None)
    c = s._policy_copy(pol)
    adv, adv_c = pol.delegate.net._advisor.policy, c.delegate.net._advisor.policy
    assert adv_c is not adv and adv_c.threat_memo is adv.threat_memo
    guide, guide_c = pol.delegate.planner.guide, c.delegate.planner.guide
    assert guide_c._tier_cache is not guide._tier_cache and guide_c._tier_cache == guide._tier_cache
    assert c.rng is not pol.rng and c.rng.bit_generator.state == pol.rng.bit_generator.state


def test_undo_then_plan_gives_the_plan_of_before():
    """At the table: resolve a plan, undo it, and the plan shown again is the same, with the
    same reason, decision after decision (the policies' copies are exact)."""
    for scenario in ("cortex_hu/csarda", "cortex/warehouse"):
        s = Session.new(scenario, seed=2, npc=[] if scenario.startswith("cortex_hu") else ["syndicate=tactical"])
        s.begin(None)
        for _ in range(12):
            if s.state.over:
                break
            p = s.plan()
            s.resolve(p.action)
            s.undo()
            again = s.plan()
            assert (again.action, again.reason) == (p.action, p.reason)
            s.resolve(again.action)


def _plans(scenario: str, npc: str, deep: bool, monkeypatch, decisions: int = 10) -> list:
    """The plans, alternatives and plans after an undo of a table fight's first decisions, the
    policies copied by `policy_copy` or (`deep`) by a plain deep copy."""
    with monkeypatch.context() as m:
        if deep:
            m.setattr(Session, "_policy_copy", lambda self, pol: copy.deepcopy(pol))
        spec, _ = load_scenario(scenario)
        team = next(t.name for t in spec.teams if not t.pc)
        s = Session.new(scenario, seed=4, npc=[f"{team}={npc}"])
        s.begin(None)
        out = []
        for i in range(decisions):
            if s.state.over:
                break
            p = s.plan()
            out.append((p.action, p.reason, [a.action for a in p.alternatives]))
            s.resolve(p.action)
            if i % 3 == 0:
                s.undo()
                p2 = s.plan()
                out.append((p2.action, p2.reason))
                s.resolve(p2.action)
        return out


CASES = [("cortex/saloon", "tactical"), ("metalface/rooftop", "ppo")]
MORE = [(sc, pol) for sc in ("cortex/saloon", "cortex_hu/magtar", "metalface/rooftop", "cybergeneration/mall_raid")
        for pol in ("tactical", "cautious", "planner-bold", "selective", "ppo", "best")]


@pytest.mark.parametrize("scenario,npc", CASES)
def test_the_table_plans_as_with_deep_copies(scenario, npc, monkeypatch):
    """Plans, their alternatives and the plans after an undo are those the table made when it
    deep-copied its policies (a learned policy's advisor and a planner's guide included)."""
    assert _plans(scenario, npc, False, monkeypatch) == _plans(scenario, npc, True, monkeypatch)


@pytest.mark.slow
@pytest.mark.parametrize("scenario,npc", [c for c in MORE if c not in CASES])
def test_the_table_plans_as_with_deep_copies_every_policy(scenario, npc, monkeypatch):
    assert _plans(scenario, npc, False, monkeypatch) == _plans(scenario, npc, True, monkeypatch)
