"""`tactical` before and after its `ready` fix (2026-12-07), head to head on cybergeneration.

Before, `tactical` scored every `ready` 0.2 while nothing was worth attacking: in cybergeneration
its figures changed weapons and drew the other back in one turn, turn after turn, and steadied
aims no shot used (the move gone). `tactical-1206` is the old scoring, registered here only;
the two play each other on the bundled cybergeneration scenarios and held-out generated maps,
both sides, on the same dice (`tactica evaluate`'s pairing), in this process.

    python experiments/ready_fix.py --generated 100 --seeds 1 2 3 4
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agents.base import register_policy  # noqa: E402
from agents.tactical import TacticalPolicy  # noqa: E402


class Tactical1206(TacticalPolicy):
    """`tactical` with the `ready` scoring it had until 2026-12-07."""

    @staticmethod
    def _ready_score(ctx, a) -> float:
        return 0.2


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--generated", type=int, default=100)
    ap.add_argument("--episodes", type=int, default=2)
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3, 4])
    args = ap.parse_args()
    from envs.generators import heldout_scenarios
    from evaluation.tournament import round_robin
    from rules.scenario import bundled_scenarios, load_scenario

    register_policy("tactical-1206", Tactical1206)
    specs = [load_scenario(s) for s in bundled_scenarios() if s.startswith("cybergeneration/")]
    specs += [(load_scenario(d)[0], d["name"]) for d in heldout_scenarios("cybergeneration", args.generated)]
    res = round_robin(specs, ["tactical", "tactical-1206"], args.episodes, args.seeds)
    whole = next(p for p in res["pairs"] if p["scenario"] == "all")
    print(json.dumps({k: whole[k] for k in ("n", "a_wins", "draws", "a_win_rate", "ci_low", "ci_high", "per_seed")},
                     indent=1))


if __name__ == "__main__":
    main()
