"""The shipped network asked twice, about the fight and about its half-turn: test-time symmetry (issue 31).

A generated map is point-symmetric (envs/generators.py, `mirrored`): turned by half a turn, it is the same map.
So the fight with every figure and object turned with it (cell p to n - 1 - p) is a fight the network has seen
the like of (it trains on both sides), and its rules are the same. Board-game networks are often asked about
every symmetric copy of a position and their answers averaged; a network not built to be symmetric answers the
copies differently, and the average can be the stronger player, with no rollouts and twice the (small) cost of
the network.

`Turned` plays the network's choice on the mean of its action probabilities for the fight and for the turned
fight (the turned fight's actions turned back: a move's cell; targets, weapons and options stay), each view with
its own advisor, told the action played in its own frame. Where the map is not point-symmetric, the map has
walls between cells, or a question is open (its answers may name directions), it plays the network alone.
`TurnedOnly` plays on the turned fight's probabilities alone: a check that the network plays the turned
fights about as well.

Registered for `tactica evaluate` as `turned` and `turned-only` through a `sitecustomize` module in a scratch
folder (as experiments/tiebreak.py), so the spawned workers register them too:

    python experiments/symmetry.py --policies ppo,turned,turned-only --against tactical --ruleset cortex_hu \\
        --generated 100 --episodes 2 --seed 1 --seed 2 --seed 3 --seed 4 --workers 2 --json > OUT.json
    python experiments/player_table.py OUT.json --ruleset cortex_hu --vs ppo

Result: docs/results.md, cortex_hu, "The advisor at the network's close calls, and the half-turned fight".
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

from agents.learned import NumpyPolicy
from rules.actions import END_TURN, Action
from rules.state import BattleState, Combatant

ROOT = Path(__file__).resolve().parents[1]


def point_symmetric(state: BattleState) -> bool:
    """The map is the same turned by half a turn, and has no walls between cells."""
    g = state.grid
    return g.edges is None and g.rows == [r[::-1] for r in g.rows[::-1]]


def turned(state: BattleState) -> BattleState:
    """A copy of `state` with every figure and object turned by half a turn (cell p to n - 1 - p)."""
    n = state.grid.n
    s = state.clone()
    for c in s.combatants:
        c.pos = n - 1 - c.pos
    s.objects = {n - 1 - k: v for k, v in s.objects.items()}
    return s


def turn_action(a: Action, n: int) -> Action:
    return a if a.cell is None else replace(a, cell=n - 1 - a.cell)


class Turned(NumpyPolicy):
    """The shipped network on the mean of its probabilities for the fight and for the half-turned fight."""

    weight = 0.5   # of the turned view

    def __init__(self, seed=None) -> None:
        super().__init__(seed=seed)
        self.view = NumpyPolicy(seed=int(self.rng.integers(1 << 62)))

    def act(self, state: BattleState, actor: Combatant) -> Action:
        if state.pending is not None or not point_symmetric(state):
            return super().act(state, actor)
        n = state.grid.n
        lmap, p = self.scores(state, actor)
        s2 = turned(state)
        a2 = s2.by_id[actor.id]
        lmap2, p2 = self.view.scores(s2, a2)
        index = {act: i for i, act in lmap.items()}
        mean = (1.0 - self.weight) * p
        for i2, act2 in lmap2.items():
            i = index.get(turn_action(act2, n))
            if i is not None:
                mean[i] += self.weight * p2[i2]
        legal = [i for i in np.argsort(-mean, kind="stable") if int(i) in lmap]
        action = lmap[int(legal[0])] if legal else END_TURN
        self.last_reason = f"network, with the half-turned fight: {action}"
        self.commit(state, actor, action)
        self.view.commit(s2, a2, turn_action(action, n))
        return action


class TurnedOnly(Turned):
    """The shipped network on the half-turned fight's probabilities alone."""

    weight = 1.0


_SITE = """
from agents.base import register_policy
from experiments.symmetry import Turned, TurnedOnly
register_policy("turned", Turned)
register_policy("turned-only", TurnedOnly)
"""


def main(argv: list[str]) -> int:
    sys.path.insert(0, str(ROOT))
    from experiments.tiebreak import evaluate_with
    return evaluate_with(_SITE, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
