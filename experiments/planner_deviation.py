"""How often `planner` departs from `tactical`'s first choice, and how often it looks ahead.

    python benchmarks/planner_deviation.py --fights 2

Plays planner against tactical (both sides) on cortex/warehouse, cortex/saloon and two
held-out generated cortex maps and counts, over the planner's decisions: how many ran
the lookahead (tactical's top candidates were close) and how many ended on another action
than tactical's first choice.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fights", type=int, default=2, help="fights per scenario (sides alternate)")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()

    from agents.planner import PlannerPolicy
    from envs.generators import heldout_scenarios
    from evaluation.simulate import play_fight
    from rules.scenario import load_scenario

    stats = {"decisions": 0, "lookahead": 0, "departed": 0}
    plain_act = PlannerPolicy.act

    def counting_act(self, state, actor):
        first = self.guide.rank(state, actor)[0].action
        a = plain_act(self, state, actor)
        stats["decisions"] += 1
        stats["lookahead"] += bool(self.last_values)
        stats["departed"] += a != first
        return a

    PlannerPolicy.act = counting_act
    specs = [load_scenario(n)[0] for n in ("cortex/warehouse", "cortex/saloon")]
    specs += [load_scenario(d)[0] for d in heldout_scenarios("cortex", 2)]
    for spec in specs:
        teams = [t.name for t in spec.teams]
        for k in range(args.fights):
            first, second = ("planner", "tactical") if k % 2 == 0 else ("tactical", "planner")
            play_fight(spec, {teams[0]: first, teams[1]: second}, args.seed, k)
    n = max(1, stats["decisions"])
    print(f"{stats['decisions']} planner decisions: lookahead on {stats['lookahead']} ({stats['lookahead'] / n:.1%}), "
          f"another action than tactical's first choice on {stats['departed']} ({stats['departed'] / n:.1%})")


if __name__ == "__main__":
    main()
