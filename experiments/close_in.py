"""Would `tactical` win more if its figures with no enemy to attack closed in harder? Head to head, measured.

`tactical`'s moves score, where no enemy can be attacked from a cell, a pull towards the enemies of at most 0.3 of
the figure's offence, falling with the distance to the nearest (agents/tactical_moves.py `offence_at`): a figure
that sees no enemy often stands still (docs/baselines.md, "`tactical`'s figures with no enemy in sight").
`tactical-closer` is `tactical` with that pull `--pull` times as strong (registered here only); the two play each
other on a ruleset's bundled scenarios and held-out generated maps, both sides, on the same dice (`tactica
evaluate`'s pairing), in this process.

    python experiments/close_in.py --ruleset metalface --generated 100 --seeds 1 2 3 4 --pull 3
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agents.base import register_policy  # noqa: E402
from agents.tactical import TacticalPolicy  # noqa: E402

PULL = [3.0]


class TacticalCloser(TacticalPolicy):
    """`tactical` whose pull towards the enemies, from a cell with nobody to attack, is `PULL` times as strong."""

    def offence_at(self, ctx, cell):
        v, tgt = super().offence_at(ctx, cell)
        return (v if tgt is not None else v * PULL[0]), tgt


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ruleset", default="metalface")
    ap.add_argument("--generated", type=int, default=100)
    ap.add_argument("--episodes", type=int, default=2)
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3, 4])
    ap.add_argument("--pull", type=float, default=3.0)
    args = ap.parse_args()
    from envs.generators import heldout_scenarios
    from evaluation.tournament import round_robin
    from rules.scenario import bundled_scenarios, load_scenario

    PULL[0] = args.pull
    register_policy("tactical-closer", TacticalCloser)
    specs = [load_scenario(s) for s in bundled_scenarios() if s.startswith(args.ruleset + "/")]
    specs += [(load_scenario(d)[0], d["name"]) for d in heldout_scenarios(args.ruleset, args.generated)]
    res = round_robin(specs, ["tactical-closer", "tactical"], args.episodes, args.seeds)
    out = {}
    for p in res["pairs"]:
        if p["scenario"] == "all" or not p["scenario"].startswith("generated"):
            out[p["scenario"]] = {k: p[k] for k in ("n", "a_wins", "draws", "a_win_rate", "ci_low", "ci_high")}
    whole = next(p for p in res["pairs"] if p["scenario"] == "all")
    out["all"]["per_seed"] = whole.get("per_seed")
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
