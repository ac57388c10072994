"""`selective` searching at more of its decisions: where between the network and the search is the strongest player? (issue 31)

`selective` (agents/selective.py) looks ahead with `planner-bold`'s paired rollouts over the shipped network's three
most likely actions where its two most likely are less than `margin` (0.2) apart (8% of the network's decisions in 12
counted cortex_hu fights against `tactical`), for 2.5 points over the network alone. A wider margin searches more decisions, towards a search over the network's
candidates at every one (`margin` 1). Registered for `tactica evaluate` as `sel35`, `sel50` and `sel100` (margins 0.35,
0.5 and 1.0, the shipped settings otherwise) through a `sitecustomize` module in a scratch folder (as
experiments/tiebreak.py):

    python experiments/selective_margin.py --policies sel35,sel50 --against tactical --ruleset cortex_hu \\
        --generated 100 --episodes 2 --seed 1 --seed 2 --seed 3 --seed 4 --workers 2 --json > OUT.json
    python experiments/player_table.py OUT.json TABLE.json --ruleset cortex_hu --maps 100 --vs selective

(TABLE.json: the player table's call with `selective` on the same fights.) Result: docs/results.md, cortex_hu,
"Searching at more of the network's decisions". `sel50t` and `sel100t` are the same with `tactical` playing this
side in the rollouts, as in `planner`'s: `sel100t` won 68.0% of cortex's first 800 table fights, 8 points above
`planner`, and is cortex's `best` as `planner-net` (docs/results.md, cortex, "The planner's search over the network's
candidates").
"""

from __future__ import annotations

import sys
from pathlib import Path

from agents.selective import SelectivePolicy

ROOT = Path(__file__).resolve().parents[1]
VARIANTS = {"sel35": 0.35, "sel50": 0.5, "sel100": 1.0}
#: the same with `tactical` playing this side in the rollouts, as in `planner`'s (cortex's `best`), not `bold`
TACTICAL = {"sel50t": 0.5, "sel100t": 1.0}


def variant(margin: float, guide: str = "bold"):
    """A factory of the shipped `selective` at `margin` (the registry calls it with `seed=`), its rollouts'
    side played by `guide`."""
    def make(seed=None) -> SelectivePolicy:
        return SelectivePolicy(seed=seed, margin=margin, guide=guide)
    return make


_SITE = """
from agents.base import register_policy
from experiments.selective_margin import TACTICAL, VARIANTS, variant
for name, margin in VARIANTS.items():
    register_policy(name, variant(margin))
for name, margin in TACTICAL.items():
    register_policy(name, variant(margin, "tactical"))
"""


def main(argv: list[str]) -> int:
    sys.path.insert(0, str(ROOT))
    from experiments.tiebreak import evaluate_with
    return evaluate_with(_SITE, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
