"""Networks trained apart, asked together: an ensemble of independent runs (issue 31).

An ensemble of four networks of one lineage (rounds of rollout policy iteration from one PPO stage, sharing their
start and their labels' states) played 1.2 points below the shipped cortex_hu network (docs/results.md, cortex_hu,
Against `bold`, and an ensemble): averaging networks that learned the same thing does not average away what they
got wrong. Networks trained apart (another PPO run, another recipe, other inputs) err apart, which is where an
ensemble pays in supervised learning. `Ensemble` plays the action with the largest mean probability over its
members, each member asked about the fight as it was trained to see it (its own observation, advisor and clock),
and tells every member's advisor the action played. Questions the rules ask (`state.pending`) are the first
member's to answer. No rollouts: each decision costs the members' forward passes and advisors.

Registered for `tactica evaluate` through a `sitecustomize` module in a scratch folder (as experiments/tiebreak.py)
from `TACTICA_ENSEMBLES=NAME=A.npz+B.npz[+...],NAME2=...` (paths relative to the checkout or absolute; the first
member answers the rules' questions; `runs/cortex-cyber`: the PPO stage of
`training/configs/experiments/cortex-advice-parts-cyber.yaml`):

    TACTICA_ENSEMBLES=ens2=tactica/policies/cortex.npz+runs/cortex-cyber/policy.npz \\
    python experiments/ensemble.py --policies ppo,ens2 --against tactical --ruleset cortex \\
        --generated 100 --episodes 2 --seed 1 --seed 2 --seed 3 --seed 4 --workers 2 --json > OUT.json
    python experiments/player_table.py OUT.json --ruleset cortex --vs ppo

Result: docs/results.md, cortex, "Networks trained apart, asked together".
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from agents.learned import NumpyPolicy
from rules.actions import END_TURN, Action
from rules.state import BattleState, Combatant

ROOT = Path(__file__).resolve().parents[1]


class Ensemble(NumpyPolicy):
    """The action with the largest mean probability over the member networks (the first is this policy)."""

    def __init__(self, paths: list[str], seed=None) -> None:
        if len(paths) < 2:
            raise ValueError(f"an ensemble needs at least two networks, got {paths!r}")
        super().__init__(paths[0], seed=seed)
        self.members = [NumpyPolicy(p, seed=int(self.rng.integers(1 << 62))) for p in paths[1:]]

    def mean_probs(self, state: BattleState, actor: Combatant) -> dict[Action, float]:
        """Action -> the members' mean probability (an action a member does not list counts 0 there)."""
        views = [self.scores(state, actor)] + [m.scores(state, actor) for m in self.members]
        out: dict[Action, float] = {}
        for lmap, p in views:
            for i, a in sorted(lmap.items()):   # by index: ties go to the lowest, as the network's argmax
                out[a] = out.get(a, 0.0) + float(p[i]) / len(views)
        return out

    def act(self, state: BattleState, actor: Combatant) -> Action:
        if state.pending is not None:
            return super().act(state, actor)
        mean = self.mean_probs(state, actor)
        # the largest mean; ties to the first member's lowest index (dicts keep insertion order)
        action = max(mean, key=mean.__getitem__) if mean else END_TURN
        self.last_reason = f"ensemble of {1 + len(self.members)} networks: {action} {mean.get(action, 0.0):.0%}"
        self.commit(state, actor, action)
        for m in self.members:
            m.commit(state, actor, action)
        return action


def parse(spec: str) -> dict[str, list[str]]:
    """`NAME=A.npz+B.npz,NAME2=...` -> {name: [paths]} (relative paths against the checkout)."""
    out: dict[str, list[str]] = {}
    for part in filter(None, (x.strip() for x in spec.split(","))):
        name, sep, paths = part.partition("=")
        if not sep or not name or "+" not in paths:
            raise SystemExit(f"TACTICA_ENSEMBLES: {part!r} is not NAME=A.npz+B.npz[+...]")
        out[name] = [p if os.path.isabs(p) else str(ROOT / p) for p in paths.split("+")]
    return out


def factory(paths: list[str]):
    def make(seed=None) -> Ensemble:
        return Ensemble(paths, seed=seed)
    return make


_SITE = """
import os
from agents.base import register_policy
from experiments.ensemble import factory, parse
for name, paths in parse(os.environ.get("TACTICA_ENSEMBLES", "")).items():
    register_policy(name, factory(paths))
"""


def main(argv: list[str]) -> int:
    sys.path.insert(0, str(ROOT))
    parse(os.environ.get("TACTICA_ENSEMBLES", ""))   # refuse a bad spec before any work
    from experiments.tiebreak import evaluate_with
    return evaluate_with(_SITE, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
