"""The shipped network, deferring to its advisor where it hesitates: a search-free `selective`? (issue 31)

`selective` looks ahead with rollouts where the network's two most likely actions are less than `margin`
apart. The network's input already holds its advisor's ranking (`bold` in cortex_hu and cybergeneration,
`tactical` in cortex and metalface), so a player with no rollouts could settle those close calls with the
advisor's pick instead: `TieBreak` plays the network's most likely action unless the top two are closer
than `margin` and the advisor's pick is among the network's `top_k`, and then plays the advisor's pick.

Registered for `tactica evaluate` as `tb10`, `tb20` and `tb35` (margins 0.10, 0.20 and 0.35, top 3) through a
`sitecustomize` module in a scratch folder, so the spawned evaluation workers register them too:

    python experiments/tiebreak.py --policies ppo,tb10,tb20,tb35 --against tactical --ruleset cortex_hu \\
        --generated 100 --episodes 2 --seed 1 --seed 2 --seed 3 --seed 4 --workers 2 --json > OUT.json
    python experiments/player_table.py OUT.json --ruleset cortex_hu --vs ppo

(every argument after the script's name goes to `tactica evaluate`). Result: docs/results.md, cortex_hu,
"The advisor at the network's close calls, and the half-turned fight".
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from agents.learned import NumpyPolicy
from agents.selective import ranked

ROOT = Path(__file__).resolve().parents[1]
VARIANTS = {"tb10": 0.10, "tb20": 0.20, "tb35": 0.35}


class TieBreak(NumpyPolicy):
    """The shipped network; at its close calls, its advisor's pick where that is among its top actions."""

    margin = 0.2
    top_k = 3

    def act(self, state, actor):
        if state.pending is not None:
            return super().act(state, actor)
        lmap, _, order, action, gap = ranked(self, state, actor)
        if gap < self.margin and self._advisor is not None:
            pick = self._advisor.pick
            if pick is not None and pick in [lmap[i] for i in order[:self.top_k]]:
                action = pick
        self.last_reason = f"network, advisor at close calls: {action}"
        self.commit(state, actor, action)
        return action


def variant(margin: float):
    """A factory of `TieBreak` at `margin` (the registry calls it with `seed=`)."""
    def make(seed=None) -> TieBreak:
        p = TieBreak(seed=seed)
        p.margin = margin
        return p
    return make


_SITE = """
from agents.base import register_policy
from experiments.tiebreak import VARIANTS, variant
for name, margin in VARIANTS.items():
    register_policy(name, variant(margin))
"""


def evaluate_with(site: str, argv: list[str]) -> int:
    """Run `tactica evaluate ARGV` with `site` as the `sitecustomize` module of every process it starts (its
    spawned workers included), so that the players `site` registers are known there too."""
    with tempfile.TemporaryDirectory(prefix="tactica-experiment-") as tmp:
        Path(tmp, "sitecustomize.py").write_text(site)
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([tmp, str(ROOT), os.environ.get("PYTHONPATH", "")]))
        return subprocess.run([sys.executable, "-m", "tactica", "evaluate", *argv], cwd=ROOT, env=env).returncode


if __name__ == "__main__":
    sys.exit(evaluate_with(_SITE, sys.argv[1:]))
