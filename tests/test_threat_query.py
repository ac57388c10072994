"""`Ruleset.best_expected_damage` (the threat query, issue 30) gives the long way's number.

The long way is what `assess.incoming` did before the query: list the attacks of the acting
figure on the victim (`legal_attacks`, grapple options left out), price them with
`attack_odds_many` and keep the largest `exp_damage` (0.0 when none). Seeded fights of each
ruleset that provides the query, on bundled and generated maps, with random, aggressive and
tactical teams, are walked decision by decision; at each, every standing figure is started
on a fresh turn (as `incoming` asks) and the query is compared, bit for bit, with the long
way for every figure as the victim. The acting figure's own mid-turn state is checked too.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from agents import assess as A
from agents.base import make_policy
from rules.dice import Dice
from rules.ruleset import get_ruleset
from rules.scenario import bundled_scenarios, load_scenario, new_battle
from rules.state import BattleState

PROVIDERS = ["cortex"]
POLICIES = ("random", "aggressive", "tactical")


def long_way(rs, state: BattleState, victim: str) -> float:
    """The largest `exp_damage` of the listed attacks on `victim`, priced (0.0 when none)."""
    acts = [a for a in rs.legal_attacks(state, victim) if not (a.option and a.kind == "grapple")]
    best = 0.0
    for o in rs.attack_odds_many(state, state.actor, acts) if acts else ():
        if o:
            best = max(best, float(o.get("exp_damage", 0.0)))
    return best


def fights(ruleset: str, n: int) -> Iterator[tuple[str | dict, str, int]]:
    """(scenario, policy, seed) of n fights: bundled and generated maps in turn."""
    from envs.generators import generate_scenario
    bundled = [s for s in bundled_scenarios() if s.split("/")[0] == ruleset]
    for k in range(n):
        scen = bundled[(k // 2) % len(bundled)] if k % 2 == 0 else generate_scenario(ruleset, 300 + k)
        yield scen, POLICIES[k % len(POLICIES)], k


def states(ruleset: str, n_fights: int, n_decisions: int) -> Iterator[tuple[object, BattleState]]:
    """(ruleset, state) at each decision of the fights, and each figure's fresh turn there."""
    for scen, policy, seed in fights(ruleset, n_fights):
        spec, src = load_scenario(scen)
        b = new_battle(spec, Dice(np.random.default_rng(seed)), src, record=False)
        pols = {tm.name: make_policy(policy, seed) for tm in spec.teams}
        b.start()
        for _ in range(n_decisions):
            s = b.state
            if s.over:
                break
            if s.pending is None:
                yield b.ruleset, s
                for c in s.combatants:
                    s2 = A.as_acting(b.ruleset, s, c.id, Dice(np.random.default_rng(seed)))
                    if s2 is not None:
                        yield b.ruleset, s2
            b.step(pols[s.actor.team].act(s, s.actor), check=False)


@pytest.mark.parametrize("ruleset", PROVIDERS)
def test_threat_query_is_the_largest_priced_attack(ruleset: str) -> None:
    checked = nonzero = 0
    for rs, s in states(ruleset, 24, 60):
        ids = [c.id for c in s.combatants]
        got = rs.best_expected_damage(s, s.actor, ids)
        assert got is not None and list(got) == ids
        for vid in ids:
            want = long_way(rs, s, vid)
            assert got[vid].hex() == want.hex(), (s.round, s.actor.id, vid, got[vid], want)
            # asked for one victim alone: the same number
            assert rs.best_expected_damage(s, s.actor, (vid,))[vid].hex() == want.hex()
            checked += 1
            nonzero += want > 0
    assert nonzero > 200 and checked > 2 * nonzero


def test_threat_query_is_optional(monkeypatch: pytest.MonkeyPatch) -> None:
    """The base class's query asks the ruleset's `threat_profile`: without one (None) it answers
    None, and `incoming` lists and prices instead; where the profile declines a victim (None) the
    whole answer is None; else it gives the profile's numbers (every bundled ruleset provides a
    profile now: metalface's, checked here against its own query)."""
    from rules.ruleset import Ruleset
    rs = get_ruleset("metalface")
    spec, src = load_scenario([s for s in bundled_scenarios() if s.startswith("metalface")][0])
    b = new_battle(spec, Dice(np.random.default_rng(0)), src, record=False)
    b.start()
    s, ids = b.state, [c.id for c in b.state.combatants]
    got = Ruleset.best_expected_damage(rs, s, s.actor, ids)
    assert got == rs.best_expected_damage(s, s.actor, ids) and any(got.values())
    monkeypatch.setattr(rs, "threat_profile", lambda state, attacker: (lambda t: None if t.id == ids[-1] else 0.0))
    assert Ruleset.best_expected_damage(rs, s, s.actor, ids) is None
    assert Ruleset.best_expected_damage(rs, s, s.actor, ids[:-1]) == dict.fromkeys(ids[:-1], 0.0)
    monkeypatch.setattr(rs, "threat_profile", lambda state, attacker: None)
    assert Ruleset.best_expected_damage(rs, s, s.actor, ids) is None


# -- cortex_hu (issue 30, wave 3): its own block, the same walk ---------------------------
HU_FIGHTS, HU_DECISIONS = 24, 60


def test_threat_query_cortex_hu_is_the_largest_priced_attack() -> None:
    checked = nonzero = 0
    for rs, s in states("cortex_hu", HU_FIGHTS, HU_DECISIONS):
        ids = [c.id for c in s.combatants]
        got = rs.best_expected_damage(s, s.actor, ids)
        assert got is not None and list(got) == ids
        for vid in ids:
            want = long_way(rs, s, vid)
            assert got[vid].hex() == want.hex(), (s.round, s.actor.id, vid, got[vid], want)
            assert rs.best_expected_damage(s, s.actor, (vid,))[vid].hex() == want.hex()
            checked += 1
            nonzero += want > 0
    assert nonzero > 200 and checked > 2 * nonzero


def _hu_variants(s: BattleState) -> Iterator[BattleState]:
    """Copies of `s` with what the fights seldom show: every enemy feinted by the actor, the
    actor held by an adjacent enemy (or holding it), the actor aiming (the numbers are set by
    hand; both ways read the same copy)."""
    a = s.actor
    foes = [c for c in s.combatants if c.team != a.team and not c.down]
    s2 = s.clone()
    for c in s2.combatants:
        if c.team != a.team:
            c.res["feinted_by"] = a.id
    yield s2
    for c in foes:
        if s.grid.adjacent(a.pos, c.pos) and a.res["grappled_by"] is None and a.res["grappling"] is None:
            for held in (True, False):
                s2 = s.clone()
                a2, c2 = s2.actor, s2.by_id[c.id]
                if held:
                    a2.res["grappled_by"], c2.res["grappling"] = c.id, a.id
                else:
                    a2.res["grappling"], c2.res["grappled_by"] = c.id, a.id
                yield s2
            break
    for n in (1, 2):
        s2 = s.clone()
        s2.actor.res["aim"] = n
        yield s2


def test_threat_query_cortex_hu_on_staged_states() -> None:
    """Feints, holds and aim set on copies of the fights' states: the same number."""
    checked = nonzero = 0
    for k, (rs, s) in enumerate(states("cortex_hu", 8, 40)):
        if k % 3:
            continue
        for s2 in _hu_variants(s):
            ids = [c.id for c in s2.combatants]
            got = rs.best_expected_damage(s2, s2.actor, ids)
            for vid in ids:
                want = long_way(rs, s2, vid)
                assert got[vid].hex() == want.hex(), (s2.round, s2.actor.id, vid, got[vid], want)
                checked += 1
                nonzero += want > 0
    assert nonzero > 100 and checked > 2 * nonzero


# -- cybergeneration (issue 30, wave 3) --------------------------------------------------------
#: kits for every figure of some fights, the first drawn (no bundled cybergeneration figure carries a
#: grenade or a longbow)
CYBER_KITS = (["frag_grenade", "stun_grenade", "knife", "brick", "computer"],
              ["stun_grenade", "knife", "brick", "computer"], ["longbow", "crossbow", "brick"])


def cyber_states(n_fights: int, n_decisions: int) -> Iterator[tuple[object, BattleState]]:
    """`states` of cybergeneration fights, fights whose figures carry grenades, bows, things to throw,
    and at each decision where the acting figure may take two actions, the state after it chose
    to (the hurried check and the two-action penalty)."""
    from envs.generators import generate_scenario
    from rules.actions import Action
    thrown = []
    for k in range(n_fights // 3):
        scen = generate_scenario("cybergeneration", 500 + k)
        for team in scen["teams"]:
            for c in team["combatants"]:
                c["weapons"] = CYBER_KITS[k % 3]
                c["drawn"] = CYBER_KITS[k % 3][0]
        thrown.append(scen)
    two = Action("use", option="two_actions")
    walks = [states("cybergeneration", n_fights, n_decisions)]
    for k, scen in enumerate(thrown):
        walks.append(_walk(scen, POLICIES[1 + k % 2], k, n_decisions))
    for walk in walks:
        for rs, s in walk:
            yield rs, s
            if two in rs.legal_actions(s):
                s2 = s.clone()
                rs.apply(s2, two, Dice(np.random.default_rng(0)))
                yield rs, s2


def _walk(scen: dict, policy: str, seed: int, n_decisions: int) -> Iterator[tuple[object, BattleState]]:
    """`states` of one fight."""
    spec, src = load_scenario(scen)
    b = new_battle(spec, Dice(np.random.default_rng(seed)), src, record=False)
    pols = {tm.name: make_policy(policy, seed) for tm in spec.teams}
    b.start()
    for _ in range(n_decisions):
        s = b.state
        if s.over:
            break
        if s.pending is None:
            yield b.ruleset, s
            for c in s.combatants:
                s2 = A.as_acting(b.ruleset, s, c.id, Dice(np.random.default_rng(seed)))
                if s2 is not None:
                    yield b.ruleset, s2
        b.step(pols[s.actor.team].act(s, s.actor), check=False)


def test_threat_query_cybergeneration() -> None:
    """The query, where it answers, is the long way's number bit for bit, for every figure as the
    victim; it answers None only for a figure in a grapple or a hold (the long way then)."""
    checked = nonzero = passed = 0
    for rs, s in cyber_states(24, 60):
        ids = [c.id for c in s.combatants]
        got = rs.best_expected_damage(s, s.actor, ids)
        if got is None:
            a = s.actor
            assert a.res["held_by"] is not None or rs.in_grapple(a)
            passed += 1
            continue
        assert list(got) == ids
        for vid in ids:
            want = long_way(rs, s, vid)
            assert got[vid].hex() == want.hex(), (s.round, s.actor.id, vid, got[vid], want)
            assert rs.best_expected_damage(s, s.actor, (vid,))[vid].hex() == want.hex()
            checked += 1
            nonzero += want > 0
    assert nonzero > 200 and checked > 2 * nonzero, (checked, nonzero, passed)
