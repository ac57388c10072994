"""The shortcuts that make `tactical` cheap (issue 30) give the numbers of the long way.

Each check walks a seeded tactical-vs-tactical fight of every rule system and compares, at
each decision, a shortcut with what it replaces: `Ruleset.legal_attacks` with the attacks
of `legal_actions`, `attack_odds_many` with one `attack_odds` per action, the vectorised
`quick_values` (agents/positions.py) with `quick_value` cell by cell, and the memo of
`assess.incoming` with asking again (and the probe dice drawing the same numbers after).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from agents import assess as A
from agents import positions as P
from agents.base import make_policy
from agents.tactical import ATTACKS_PER_TURN, TacticalPolicy
from rules.dice import Dice
from rules.scenario import load_scenario, new_battle
from rules.state import BattleState

SCENARIOS = ["cortex/warehouse", "cortex_hu/magtar", "metalface/scrapyard", "cybergeneration/mall_raid"]


def decisions(scenario: str, n: int = 40, seed: int = 2) -> Iterator[tuple[object, BattleState]]:
    """(ruleset, state) before each of the first `n` decisions of a tactical-vs-tactical fight."""
    spec, src = load_scenario(scenario)
    b = new_battle(spec, Dice(np.random.default_rng(seed)), src, record=False)
    pols = {tm.name: make_policy("tactical", seed) for tm in spec.teams}
    b.start()
    for _ in range(n):
        if b.state.over:
            return
        yield b.ruleset, b.state
        b.step(pols[b.state.actor.team].act(b.state, b.state.actor), check=False)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_legal_attacks_are_the_attacks_of_legal_actions(scenario: str) -> None:
    for rs, s in decisions(scenario):
        want = [a for a in rs.legal_actions(s) if a.kind in ("attack", "grapple")]
        assert rs.legal_attacks(s) == want
        for e in A.foes(s, s.actor):
            s2 = A.as_acting(rs, s, e.id, Dice(0))
            if s2 is not None:
                want = [a for a in rs.legal_actions(s2) if a.kind in ("attack", "grapple")]
                assert rs.legal_attacks(s2) == want
                for c in s2.combatants:
                    assert rs.legal_attacks(s2, c.id) == [a for a in want if a.target == c.id]


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_attack_odds_many_are_attack_odds_one_by_one(scenario: str) -> None:
    seen = 0
    for rs, s in decisions(scenario):
        for state in [s] + [x for e in A.foes(s, s.actor) if (x := A.as_acting(rs, s, e.id, Dice(0)))]:
            acts = rs.legal_attacks(state)
            one = [rs.attack_odds(state, state.actor, a) for a in acts]
            assert rs.attack_odds_many(state, state.actor, acts) == one
            seen += len(acts)
    assert seen > 0


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_quick_values_are_quick_value_cell_by_cell(scenario: str) -> None:
    checked = 0
    for rs, s in decisions(scenario, 25):
        pol = TacticalPolicy(seed=0)
        pol.dice = A.probe_dice(s, s.actor)
        ctx = pol.context(rs, s, s.actor, rs.legal_actions(s))
        if not ctx.enemies:
            continue
        cells = [c for c in range(s.grid.n) if s.grid.passable[c]]
        for charge in (2, pol.charge, 9):
            pol.charge = charge
            ctx.memo = {}
            assert P.quick_values(ctx, cells, charge, ATTACKS_PER_TURN) == [pol.quick_value(ctx, c) for c in cells]
            checked += len(cells)
    assert checked > 0


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_the_threat_memo_answers_as_asking_again(scenario: str) -> None:
    for rs, s in decisions(scenario, 25):
        me = s.actor
        plain, memo_dice = A.probe_dice(s, me), A.probe_dice(s, me)
        memo: dict = {}
        for e in A.foes(s, me):
            t0 = A.best_threat(rs, s, e, plain)
            assert A.best_threat(rs, s, e, memo_dice, memo) == t0
        for _ in range(2):
            for e in A.foes(s, me):
                assert A.incoming(rs, s, e, me.id, memo_dice, memo) == A.incoming(rs, s, e, me.id, plain)
        # whatever the memo spared, the probe dice draw on as they would have
        assert len(memo_dice.record) == len(plain.record)
        assert memo_dice.roll(1000) == plain.roll(1000)


def test_a_cortex_called_shot_rolls_the_plain_attack_pool() -> None:
    """rules/systems/cortex/odds.py asks for the plain attack's pool for a called shot (seed 000,
    Called Shots: the area sets a Difficulty, the pool is the attack's): `attack_dice` agrees."""
    checked = 0
    for rs, s in decisions("cortex/warehouse", 60):
        for state in [s] + [x for e in A.foes(s, s.actor) if (x := A.as_acting(rs, s, e.id, Dice(0)))]:
            me = state.actor
            for act in rs.legal_attacks(state):
                if act.kind != "attack" or not (act.option or "").startswith("called:"):
                    continue
                w = rs.weapon_named(me, act.weapon)
                if w.x("improvised"):
                    continue
                t = state.by_id[act.target]
                assert rs.attack_dice(state, me, t, w, act.option) == rs.attack_dice(state, me, t, w, "")
                checked += 1
    assert checked > 0


def test_probe_dice_draw_as_dice_seeded_the_same_way() -> None:
    """`assess.ProbeDice` makes its generator at the first roll: the same faces, in order, as
    `Dice(np.random.default_rng(entropy))`, and nothing drawn before a roll."""
    entropy = [3, 2, 12345, 1]
    lazy, eager = A.ProbeDice(list(entropy)), Dice(np.random.default_rng(entropy))
    assert lazy.record == [] and lazy._entropy is not None
    sides = [6, 10, 100, 4, 12, 20, 8] * 40
    assert [lazy.roll(s) for s in sides] == [eager.roll(s) for s in sides]
    assert lazy.chance(0.37) == eager.chance(0.37) and lazy.record == eager.record


def test_cybergeneration_mean_hit_is_the_mean_of_each_face_through_armour() -> None:
    """rules/systems/cybergeneration/odds.py: `mean_hit` (armour looked up once) is the mean over
    the ten faces of `after_armour` (armour looked up per face), for every figure and DC."""
    from rules.systems.cybergeneration.odds import after_armour, mean_hit

    rs, s = next(decisions("cybergeneration/mall_raid", 1))
    for t in s.combatants:
        for dc in range(0, 9):
            for mod in (-2, 0, 3):
                for ap in (False, True):
                    for head in (False, True):
                        for bare in (False, True):
                            want = sum(after_armour(rs, t, rs.table.wounds(dc, f + mod), ap, head, bare)
                                       for f in range(1, 11)) / 10.0
                            assert mean_hit(rs, t, dc, mod, ap, head, bare) == want


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_quick_parts_are_offence_and_exposure_cell_by_cell(scenario: str) -> None:
    checked = 0
    for rs, s in decisions(scenario, 25):
        pol = TacticalPolicy(seed=0)
        pol.dice = A.probe_dice(s, s.actor)
        ctx = pol.context(rs, s, s.actor, rs.legal_actions(s))
        if not ctx.enemies:
            continue
        cells = [c for c in range(s.grid.n) if s.grid.passable[c]]
        for charge in (2, 9):
            pol.charge = charge
            vals, off, aims, expo = P.quick_parts(ctx, cells, charge, ATTACKS_PER_TURN)
            want = [(pol.offence_at(ctx, c), pol.exposure(ctx, c)[0]) for c in cells]
            assert off == [o for (o, _), _ in want]
            assert aims == [t is not None for (_, t), _ in want]
            assert expo == [x for _, x in want]
            checked += len(cells)
    assert checked > 0


class _CheckedParts(TacticalPolicy):
    """`tactical` that asks the per-cell methods too wherever `_move_choices` reads `_parts`."""

    calls = 0

    def _parts(self, ctx, cell):
        kept = cell in ctx.parts
        got = super()._parts(ctx, cell)
        off, tgt = self.offence_at(ctx, cell)
        assert got == (off, tgt is not None, self.exposure(ctx, cell)[0])
        _CheckedParts.calls += kept
        return got


def test_move_choices_read_the_parts_the_per_cell_methods_give() -> None:
    _CheckedParts.calls = 0
    for scenario in SCENARIOS:
        spec, src = load_scenario(scenario)
        for seed in (1, 2, 3):
            b = new_battle(spec, Dice(np.random.default_rng(seed)), src, record=False)
            pols = {tm.name: _CheckedParts(seed) for tm in spec.teams}
            b.start()
            for _ in range(150):
                if b.state.over:
                    break
                b.step(pols[b.state.actor.team].act(b.state, b.state.actor), check=False)
    assert _CheckedParts.calls > 1000  # cells whose parts came from `_fill_quick` (2,578 when written)
