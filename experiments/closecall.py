"""A second network for the close calls: the rollouts' labels learnt where the network hesitates, and used only there.

Rollout policy iteration's refits learnt one overrule in twenty; refitted to learn three in four, the network played
worse (docs/results.md, cortex_hu, Does the refit listen to the rollouts?), and a refit moves the network everywhere,
its sure decisions too. `selective` gains 2.5 points by searching only at the network's close calls (its two most
likely actions less than 0.2 apart). This player keeps the shipped network for every decision it is sure of and asks
a second network, refitted hard on rollout labels gathered at close calls only (`expert.close_calls`), at the others:
there it plays the second network's most likely action among the first network's `top_k` (3), as `selective` plays
its search's pick among them. Numpy only, no rollouts: the kind of player issue 31's goal asks for.

The second networks (refits from the shipped network, so of its layout: `experiments/refit_strength.py
--out`) come from the environment variable `TACTICA_CLOSE_NETS` (`name=path.npz,...`) and are registered
for `tactica evaluate` as `cc-<name>` through a scratch `sitecustomize`, so the spawned workers see them too:

    TACTICA_CLOSE_NETS=hard=refits/8-0.001-v1.npz python experiments/closecall.py --policies ppo,cc-hard \\
        --against tactical --ruleset cortex_hu --generated 100 --episodes 2 --seed 1 --seed 2 --seed 3 --seed 4 \\
        --workers 2 --json > OUT.json
    python experiments/player_table.py OUT.json --ruleset cortex_hu --vs ppo

Result: docs/results.md, cortex_hu, "A second network for the close calls".
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from agents.learned import NumpyPolicy
from agents.selective import ranked
from rules.actions import Action
from rules.state import BattleState, Combatant

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


class CloseCall(NumpyPolicy):
    """The shipped network, and a second network at its close calls (among its `top_k` actions)."""

    margin = 0.2
    top_k = 3
    second: str = ""

    def __init__(self, seed=None) -> None:
        super().__init__(seed=seed)
        self.other = NumpyPolicy(self.second)   # its network only: it reads this policy's observation
        self.seen: tuple | None = None

    def action_probs(self, obs, mask):
        """The network's probabilities; the observation is kept for the second network (the two share the
        layout and the advisor, so one observation, with one advisor's memory, serves both)."""
        self.seen = (obs, mask)
        return super().action_probs(obs, mask)

    def act(self, state: BattleState, actor: Combatant) -> Action:
        if state.pending is not None:
            return super().act(state, actor)
        lmap, _, order, action, gap = ranked(self, state, actor)
        if gap < self.margin:
            p2 = self.other.action_probs(*self.seen)[0]
            top = order[:self.top_k]
            action = lmap[max(top, key=lambda i: (p2[i], -top.index(i)))]
        self.last_reason = f"network, a second one at close calls: {action}"
        self.commit(state, actor, action)
        return action


def factory(path: str):
    """A registry factory of `CloseCall` with `path` as its second network."""
    def make(seed=None) -> CloseCall:
        cls = type("CloseCallAt", (CloseCall,), {"second": path})
        return cls(seed=seed)
    return make


def nets() -> dict[str, str]:
    """`TACTICA_CLOSE_NETS` as {name: path}."""
    out = {}
    for item in filter(None, os.environ.get("TACTICA_CLOSE_NETS", "").split(",")):
        name, _, path = item.partition("=")
        if not path or not Path(path).is_file():
            sys.exit(f"TACTICA_CLOSE_NETS: {item!r}: expected name=path.npz of an existing file")
        out[name] = str(Path(path).resolve())
    return out


_SITE = """
from agents.base import register_policy
from experiments.closecall import factory, nets
for name, path in nets().items():
    register_policy("cc-" + name, factory(path))
"""


def main(argv: list[str]) -> int:
    nets()   # a bad setting stops here, with its name
    from experiments.tiebreak import evaluate_with
    return evaluate_with(_SITE, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
