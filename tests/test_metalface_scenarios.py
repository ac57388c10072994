"""Rule tests for the `metalface` ruleset (seed 003, METALFACE: RPG), with forced dice:
the bundled scenarios, and random-against-random fights over them with the invariants
checked.

Strict forced-dice replays through `rules.replay.run_replay`. The helpers, how many dice a
roll takes, the sources cited ("seed 003, <heading>", "RULES-NOTES metalface", "assumption
<key>") and the geometry are in tests/metalface_setup.py; the other topics in
tests/test_metalface_*.py.
"""

from __future__ import annotations

import os
from collections import Counter
from functools import lru_cache

import numpy as np
import pytest

from agents.base import make_policy
from rules.dice import Dice
from rules.scenario import load_scenario, new_battle
from tests.metalface_setup import MY_SCENARIOS, RS


# ---------------------------------------------------------------------------------------
# bundled scenarios

def test_at_least_three_bundled_scenarios_use_the_rules():
    """seed 003 (Move, Ranged Weapon Attacks, Targeting Modifiers, Repairing / Healing); The issue:
    three `metalface/...` scenarios (1 m cells) that use facing, charged weapons, movement modifiers
    (fliers) and repairs."""
    assert len(MY_SCENARIOS) >= 3
    uses = Counter()
    for name in MY_SCENARIOS:
        spec, src = load_scenario(name)
        assert spec.ruleset == "metalface" and (spec.map.cell_m or 1.0) == 1.0
        battle = new_battle(spec, Dice(0), src)
        battle.start()
        cs = battle.state.combatants
        if any(c.stats["facing"] for c in cs) or any(c.res["facing"] != cs[0].res["facing"] for c in cs):
            uses["facing"] += 1
        if any(w.kind == "beam" for c in cs for w in c.weapons.values()):
            uses["charged"] += 1
        if any(c.stats["flies"] for c in cs):
            uses["flying"] += 1
        if any(RS.heal_method(h, p)[0] > 0 for h in cs for p in cs if h.team == p.team):
            uses["repairs"] += 1
    assert uses["facing"] >= 3 and uses["charged"] >= 3 and uses["repairs"] >= 3 and uses["flying"] >= 2


# ---------------------------------------------------------------------------------------
# robustness: random against random over the bundled scenarios

ROBUST_FIGHTS = int(os.environ.get("TACTICA_METALFACE_FIGHTS", "1000"))


@lru_cache(maxsize=None)
def _spec(scenario: str):
    return load_scenario(scenario)


def _fight(scenario: str, index: int, seed: int = 3003) -> int:
    """One random-vs-random fight with the invariants checked after every action:
    no two standing figures share a cell, every figure on a passable cell of the map,
    nobody acts while down, damage bookkeeping adds up (damage - healing), the fight ends by
    its round limit with `battle_end` last (tests/test_robustness.py also validates every
    event of these scenarios)."""
    spec, src = _spec(scenario)
    ss = np.random.SeedSequence([seed, index]).spawn(1 + len(spec.teams))
    battle = new_battle(spec, Dice(np.random.default_rng(ss[0])), src, record=False)
    log: list[dict] = []
    battle.on_event = log.append
    pols = {t.name: make_policy("random", ss[1 + i]) for i, t in enumerate(spec.teams)}
    s = battle.state
    g = s.grid
    dealt: Counter = Counter()
    battle.start()
    n = 0
    cap = (s.round_limit + 1) * len(s.combatants) * 41
    where = f"{scenario} fight {index}"
    while not s.over:
        assert n < cap, f"{where}: no end after {n} actions"
        actor = s.actor
        assert actor is not None and not actor.down, f"{where}: {actor and actor.id} asked to act while down"
        action = pols[actor.team].act(s, actor)
        battle.step(action, check=False)
        n += 1
        for e in log:
            if e["type"] == "damage":
                dealt[e["target"]] += e["wound"]
            elif e["type"] == "effect" and "healed" in e:
                dealt[e["target"]] -= e["healed"]
            elif e["type"] in ("attack", "move"):
                assert e["actor"] == actor.id, f"{where}: {e}"
        ends = [e for e in log if e["type"] == "battle_end"]
        assert not ends or ends[-1] is log[-1], f"{where}: events after battle_end"
        log.clear()
        seen: set[int] = set()
        for c in s.combatants:
            assert 0 <= c.pos < g.n and g.passable[c.pos], f"{where}: {c.id} off the map or in a wall"
            if not c.down:
                assert c.pos not in seen, f"{where}: two standing figures share {g.xy(c.pos)}"
                seen.add(c.pos)
            assert dealt[c.id] + c.stats["damage"] == c.res["damage"], f"{where}: {c.id} damage bookkeeping"
            assert 0 <= c.res["damage"] <= c.stats["status"]
    assert 1 <= s.round <= s.round_limit
    return n


def _run_chunk(args: tuple[list[str], range]) -> int:
    scenarios, idx = args
    return sum(_fight(scenarios[i % len(scenarios)], i) for i in idx)


def _run_fights(fights: int) -> None:
    import concurrent.futures as cf
    import multiprocessing as mp

    workers = max(1, min(8, os.cpu_count() or 1))
    if "fork" not in mp.get_all_start_methods():
        workers = 1
    chunks = [(MY_SCENARIOS, range(k, fights, workers)) for k in range(workers)]
    if workers == 1:
        total = sum(_run_chunk(c) for c in chunks)
    else:
        with cf.ProcessPoolExecutor(workers, mp_context=mp.get_context("fork")) as ex:
            total = sum(ex.map(_run_chunk, chunks))
    assert total > fights


def test_random_fights_keep_the_invariants():
    """seed 003, Combat (rounds end, down figures do not act): 300 random-against-random fights
    over the bundled metalface scenarios, split over worker processes (the short form of the
    next test)."""
    _run_fights(min(300, ROBUST_FIGHTS))


@pytest.mark.slow
def test_random_fights_keep_the_invariants_full():
    """The same over 1,000 fights (set TACTICA_METALFACE_FIGHTS to change the count)."""
    _run_fights(ROBUST_FIGHTS)


def test_legal_attacks_agree_with_can_attack():
    """seed 003, Body Attacks and Ranged Weapon Attacks: `legal_actions` (the env mask) lists
    exactly the attacks `can_attack` allows, in random fights (the fast path and the rule agree)."""
    spec, src = load_scenario(MY_SCENARIOS[0])
    for i in range(3):
        battle = new_battle(spec, Dice(i), src, record=False)
        battle.start()
        pol = make_policy("random", i)
        s = battle.state
        k = 0
        while not s.over and k < 400:
            a = s.actor
            got = {(x.target, x.weapon) for x in battle.legal_actions() if x.kind == "attack"}
            want = {(t.id, w.name) for t in s.combatants for w in a.weapons.values()
                    if RS.can_attack(s, a, t, w)}
            assert got == want
            battle.step(pol.act(s, a), check=False)
            k += 1
