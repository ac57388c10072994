"""The shortcuts in cortex's hot paths (issue #30) give what the long way gives.

Each check walks seeded fights of the bundled cortex scenarios (random, aggressive and
tactical policies; at each decision also every foe as if it acted) and compares a shortcut
with the code it replaced, kept here as the reference: the one-pass attack listing
(rules/systems/cortex/listing.py) with the per-target, per-weapon `_can_attack` walk.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from agents import assess as AS
from agents.base import make_policy
from rules.dice import Dice, Step, _dice_of
from rules.scenario import load_scenario, new_battle
from rules.state import BattleState, Combatant

SCENARIOS = ["cortex/warehouse", "cortex/ambush", "cortex/duel", "cortex/saloon"]


def old_attack_actions(rs, state: BattleState, a: Combatant, only: str | None = None) -> list:
    """`CombatMixin.attack_actions` before issue #30's one-pass listing (the long way)."""
    e = state.economy
    A = rs.action
    out: list = []
    ws = rs.usable_weapons(a)
    if not ws:
        return out
    first = e["actions"] == 0
    holder = a.res["grappled_by"]
    g = state.grid
    sight = g.los_row(a.pos)
    can = rs._can_attack
    for t in state.combatants if only is None else [state.by_id[only]]:
        if t.team == a.team or t.down:
            continue
        if holder is not None and t.id != holder:
            continue
        seen = sight[t.pos]
        adj = g.adjacent(a.pos, t.pos)
        for w in ws:
            if not can(state, a, t, w, "", seen, adj):
                if w.x("throwable") and can(state, a, t, w, "throw", seen, adj):
                    out.append(A("attack", target=t.id, weapon=w.name, option="throw"))
                continue
            out.append(A("attack", target=t.id, weapon=w.name))
            if w.kind == "explosive":
                continue
            if first:
                out.extend(A("attack", target=t.id, weapon=w.name, option=o) for o in rs.called_options)
            if w.ranged:
                for mode in ("burst", "autofire"):
                    if w.x(mode) and can(state, a, t, w, mode, seen, adj):
                        out.append(A("attack", target=t.id, weapon=w.name, option=mode))
                continue
            extra: list[str] = []
            if w.name == "unarmed" or w.x("trip"):
                extra.append("trip")
            if w.name == "unarmed":
                if rs.has_style(a, "offensive_martial_arts") or rs.has_style(a, "wrestling"):
                    extra.append("double")
                if rs.has_style(a, "wrestling") and a.res["grappling"] == t.id:
                    if rs.held_weapon(t) is not None:
                        extra.append("disarm")
                    if "prone" not in t.conditions:
                        extra.append("takedown")
            out.extend(A("attack", target=t.id, weapon=w.name, option=o) for o in extra
                       if rs.attack_dice(state, a, t, w, o) is not None)
    return out


def states(scenario: str, policy: str, seed: int, n: int = 60) -> Iterator[tuple[object, BattleState]]:
    """(ruleset, state) before each of the first `n` decisions, and each foe acting there."""
    spec, src = load_scenario(scenario)
    b = new_battle(spec, Dice(np.random.default_rng(seed)), src, record=False)
    pols = {tm.name: make_policy(policy, seed) for tm in spec.teams}
    b.start()
    for _ in range(n):
        if b.state.over:
            return
        s = b.state
        yield b.ruleset, s
        if s.pending is None and s.actor is not None:
            for f in AS.foes(s, s.actor):
                s2 = AS.as_acting(b.ruleset, s, f.id, Dice(0))
                if s2 is not None:
                    yield b.ruleset, s2
        b.step(pols[s.actor.team].act(s, s.actor), check=False)


@pytest.mark.parametrize("scenario", SCENARIOS)
@pytest.mark.parametrize("policy", ["random", "aggressive", "tactical"])
def test_one_pass_attack_listing_is_the_long_way(scenario: str, policy: str) -> None:
    seen = 0
    for seed in (1, 2):
        for rs, s in states(scenario, policy, seed):
            a = s.actor
            if a is None or s.pending is not None or not s.economy:
                continue
            rs._pool_cache.clear()
            want = old_attack_actions(rs, s, a)
            rs._pool_cache.clear()
            assert rs.attack_actions(s, a) == want
            for c in s.combatants:
                rs._pool_cache.clear()
                assert rs.attack_actions(s, a, c.id) == old_attack_actions(rs, s, a, c.id)
            seen += len(want)
    assert seen > 0


def test_tabled_steps_are_the_computed_ones() -> None:
    for i in range(100):
        s = Step(i)
        assert s.dice == _dice_of(i)
        assert s.mean == sum((x + 1) / 2 for x in _dice_of(i))
        for n in range(-15, 15):
            assert s + n == Step(max(0, i + n)) and s - n == Step(max(0, i - n))
