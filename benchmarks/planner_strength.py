"""Planner settings against `tactical`: win rates of variants on development maps.

    python benchmarks/planner_strength.py --ruleset cortex --maps 8 --fights 6 \
        --variant base='{}' --variant wide='{"confidence": 0.5, "close": 0.5}'

Each variant plays `tactical` on `--maps` generated maps of the ruleset (training seeds
from `--map-seed` on, never the held-out ones the baselines use, so tuning here does not
leak into the reported numbers) plus the ruleset's bundled scenarios with `--bundled`,
`--fights` fights a map, sides alternating. Every variant meets the same fights (same
seeds, same maps), so the variants are compared on the same luck as far as their
choices allow. Prints wins, losses, draws, the win rate with its Wilson 95% interval,
and the planner's CPU seconds per fight.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import sys
import time
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

_VARIANTS: dict[str, dict] = {}  # variant name -> planner keyword arguments
_SPECS: list = []                 # the maps, loaded before the workers fork


def _make(kwargs: dict, seed=None):
    from agents.planner import PlannerPolicy
    return PlannerPolicy(seed, **kwargs)


def _play(job: tuple) -> tuple[str, int, str | None, float]:
    from agents.base import register_policy
    from evaluation.simulate import play_fight
    name, spec_idx, k, seed = job
    register_policy(name, partial(_make, _VARIANTS[name]))
    spec = _SPECS[spec_idx]
    teams = [t.name for t in spec.teams]
    me = k % 2
    pols = {teams[me]: name, teams[1 - me]: "tactical"}
    t0 = time.process_time()
    r = play_fight(spec, pols, seed, k)
    won = None if r.winner is None else ("win" if r.winner == teams[me] else "loss")
    return name, spec_idx, won, time.process_time() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ruleset", default="cortex")
    ap.add_argument("--maps", type=int, default=8)
    ap.add_argument("--map-seed", type=int, default=5000)
    ap.add_argument("--bundled", action="store_true", help="also the ruleset's bundled scenarios")
    ap.add_argument("--fights", type=int, default=6, help="fights per map (sides alternate)")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--variant", action="append", default=[], help="NAME=JSON planner keyword arguments")
    args = ap.parse_args()

    from envs.generators import generate_scenario
    from evaluation.stats import wilson
    from rules.scenario import bundled_scenarios, load_scenario

    for v in args.variant or ["planner={}"]:
        name, _, kw = v.partition("=")
        _VARIANTS[name] = json.loads(kw or "{}")
    _SPECS.extend(load_scenario(generate_scenario(args.ruleset, args.map_seed + i, mirrored=True))[0]
                  for i in range(args.maps))
    if args.bundled:
        _SPECS.extend(load_scenario(n)[0] for n in bundled_scenarios() if n.startswith(args.ruleset + "/"))
    jobs = [(name, i, k, args.seed) for name in _VARIANTS for i in range(len(_SPECS)) for k in range(args.fights)]
    tally = {name: {"win": 0, "loss": 0, None: 0, "cpu": 0.0} for name in _VARIANTS}
    t0 = time.time()
    with mp.get_context("fork").Pool(args.workers) as pool:
        for name, _, won, cpu in pool.imap_unordered(_play, jobs, chunksize=1):
            tally[name][won] += 1
            tally[name]["cpu"] += cpu
    print(f"{args.ruleset}: {len(_SPECS)} maps x {args.fights} fights, seed {args.seed}, {time.time() - t0:.0f} s")
    for name, t in tally.items():
        n = t["win"] + t["loss"] + t[None]
        lo, hi = wilson(t["win"], n)
        print(f"  {name:>14}: {t['win']:4d}-{t['loss']:4d} ({t[None]} draws)  win {t['win'] / n:.1%} "
              f"[{lo:.1%}, {hi:.1%}]  {t['cpu'] / n:.2f} CPU s/fight  {_VARIANTS[name]}")


if __name__ == "__main__":
    main()
