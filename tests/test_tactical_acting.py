"""`agents.acting.acting_view` (issue 30) answers as `assess.as_acting`, the full copy, and never
changes the fight it looks at.

The view copies only the figures the ruleset says its `start_turn` may change
(`Ruleset.start_turn_touches`); the other figures are the original's own objects. These
checks play seeded fights of every rule system, with `tactical` against `bold` and the other
scripted policies, and at each decision start every standing figure's turn both ways: the
same turn start, attacks, odds and dice, and the original state unchanged to the last value.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Iterator

import numpy as np
import pytest

from agents import assess as A
from agents.acting import acting_view
from agents.base import make_policy
from rules.dice import Dice
from rules.scenario import build_state, bundled_scenarios, load_scenario, new_battle
from rules.state import BattleState, Combatant

RULESETS = ["cortex", "cortex_hu", "metalface", "cybergeneration"]
PAIRS = [("tactical", "bold"), ("random", "tactical"), ("bold", "cautious"), ("random", "aggressive")]


def decisions(scenario: str, pair: tuple[str, str], seed: int, n: int = 60) -> Iterator[tuple[object, BattleState]]:
    """(ruleset, state) before each of the first `n` decisions of a seeded fight."""
    spec, src = load_scenario(scenario)
    b = new_battle(spec, Dice(np.random.default_rng(seed)), src, record=False)
    pols = {tm.name: make_policy(pair[i % 2], seed) for i, tm in enumerate(spec.teams)}
    b.start()
    for _ in range(n):
        if b.state.over:
            return
        yield b.ruleset, b.state
        b.step(pols[b.state.actor.team].act(b.state, b.state.actor), check=False)


def fights(ruleset: str) -> Iterator[tuple[object, tuple[str, str], int]]:
    """(scenario, policies, seed) of the fights played: three bundled scenarios with each pair;
    in cybergeneration also a generated map where suppression is laid and ended (seed 1039)."""
    scenarios = [s for s in bundled_scenarios() if s.split("/")[0] == ruleset]
    for k, scen in enumerate(scenarios[:3]):
        for seed, pair in enumerate(PAIRS):
            yield scen, pair, 10 * k + seed
    if ruleset == "cybergeneration":
        from envs.generators import generate_scenario
        yield generate_scenario("cybergeneration", 1039), ("random", "random"), 39


def snapshot(s: BattleState) -> tuple:
    """Everything a fight can change, deep-copied, for comparing before and after a look."""
    figs = tuple((c.id, c.pos, copy.deepcopy(c.conditions), copy.deepcopy(c.res)) for c in s.combatants)
    return (figs, copy.deepcopy(s.economy), copy.deepcopy(s.objects), list(s.order), s.turn_index, s.round,
            s.over, s.winner, s.pending, s.asking, s.grid)


def look(rs, s: BattleState, who: str, view) -> tuple:
    """What `incoming` and `best_threat` read from a fresh turn of `who`, and the dice it rolled."""
    dice = Dice(np.random.default_rng(7))
    s2 = view(rs, s, who, dice)
    if s2 is None:
        return None, len(dice.record)
    acts = rs.legal_attacks(s2)
    odds = rs.attack_odds_many(s2, s2.by_id[who], acts) if acts else []
    return (acts, odds, snapshot(s2)[1:], s2.by_id[who].res, s2.by_id[who].conditions), dice.record


@pytest.mark.parametrize("ruleset", RULESETS)
def test_the_view_answers_as_the_full_copy_and_changes_nothing(ruleset: str) -> None:
    looked = 0
    for scen, pair, seed in fights(ruleset):
        for rs, s in decisions(scen, pair, seed):
            for c in s.combatants:
                before = snapshot(s)
                full = look(rs, s, c.id, A.as_acting)
                light = look(rs, s, c.id, acting_view)
                assert light == full, (scen, c.id)
                assert snapshot(s) == before, (scen, c.id)
                looked += 1
    assert looked > 100


def figures(s: BattleState) -> dict[str, tuple]:
    return {c.id: (c.pos, copy.deepcopy(c.conditions), copy.deepcopy(c.res)) for c in s.combatants}


@pytest.mark.parametrize("ruleset", RULESETS)
def test_start_turn_changes_only_the_figures_the_ruleset_names(ruleset: str) -> None:
    """Every rule system names them (none answers None), and a turn started on a full copy
    changes no other figure; in cybergeneration the names go beyond the actor (suppression)."""
    beyond = 0
    for scen, pair, seed in fights(ruleset):
        for rs, s in decisions(scen, pair, seed):
            before = figures(s)
            for c in s.combatants:
                if c.down:
                    continue
                ids = rs.start_turn_touches(s, c)
                assert ids is not None and c.id in ids
                beyond += len(ids) > 1
                s2 = s.clone()  # as_acting's turn start, looked at even where it answers None
                s2.order, s2.turn_index = [c.id], 0
                rs.start_turn(s2, s2.by_id[c.id], Dice(np.random.default_rng(7)))
                after = figures(s2)
                assert {i for i in before if after[i] != before[i]} <= ids, (scen, c.id)
    if ruleset == "cybergeneration":
        assert beyond > 0


def test_cybergeneration_copies_the_suppressed(monkeypatch: pytest.MonkeyPatch) -> None:
    """A suppressing figure's turn start frees the figures it suppressed: a view sharing them
    (naming the actor alone) would change the fight; the view copying them does not. Found in a
    random fight on a generated map; the checks above catch it."""
    from envs.generators import generate_scenario
    spec, src = load_scenario(generate_scenario("cybergeneration", 1039))
    b = new_battle(spec, Dice(np.random.default_rng(39)), src, record=False)
    pols = {tm.name: make_policy("random", 39) for tm in spec.teams}
    b.start()
    leaks = 0
    for _ in range(40):
        s = b.state
        for c in s.combatants:
            if c.res["zone"] is None:
                continue
            before = snapshot(s)
            look(b.ruleset, s, c.id, acting_view)
            assert snapshot(s) == before
            with monkeypatch.context() as m:
                m.setattr(type(b.ruleset), "start_turn_touches", lambda self, st, a: {a.id})
                look(b.ruleset, s, c.id, acting_view)
            leaks += snapshot(s) != before
            s.restore(_restored(s, before))
        b.step(pols[s.actor.team].act(s, s.actor), check=False)
    assert leaks > 0


def _restored(s: BattleState, snap: tuple) -> BattleState:
    """A clone of `s` with its figures' positions, conditions and resources as in `snap`."""
    c = s.clone()
    for (id_, pos, conds, res) in snap[0]:
        f = c.by_id[id_]
        f.pos, f.conditions, f.res = pos, copy.deepcopy(conds), copy.deepcopy(res)
    return c


def test_a_partial_clone_sets_every_field_as_clone_does() -> None:
    spec, src = load_scenario("cortex/warehouse")
    s = build_state(spec, src)
    s.objects[3] = ["knife"]
    s.economy = {"actions": 1, "shots": {"pistol": 1}}
    who = s.combatants[1].id
    full, light = s.clone(), s.clone({who})
    for f in dataclasses.fields(BattleState):
        if f.name not in ("combatants", "by_id"):
            assert getattr(light, f.name) == getattr(full, f.name), f.name
    for a, b in zip(full.combatants, light.combatants):
        for f in dataclasses.fields(Combatant):
            assert getattr(a, f.name) == getattr(b, f.name), f.name
    assert all(light.by_id[x.id] is x for x in light.combatants)
    # its own: the figure `who`, the economy, objects and order; shared: the other figures
    assert light.by_id[who] is not s.by_id[who] and light.by_id[who].res is not s.by_id[who].res
    assert all(light.by_id[c.id] is c for c in s.combatants if c.id != who)
    assert light.economy["shots"] is not s.economy["shots"] and light.objects[3] is not s.objects[3]
    assert light.order is not s.order
