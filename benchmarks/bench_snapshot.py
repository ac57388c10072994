"""The cost of one env snapshot: `clone_state()` and `restore_state()`, beside one `step`.

    python benchmarks/bench_snapshot.py --repeat 2000

On each ruleset's default env (`bench_env.DEFAULT_SCENARIOS`, or `--scenarios`), mid-fight
(a seeded random agent plays `--steps` decisions first), with the `tactical` opponent, the
`random` one, and `tactical` with `advice`: the median wall time of a clone, of a restore
(which also builds the decision's observation), and of a step from the snapshot (ending the
turn where that is legal; restored before each, not counted). Prints Markdown rows, in microseconds.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from benchmarks.bench_env import DEFAULT_SCENARIOS  # noqa: E402

SETTINGS = (("tactical", None), ("random", None), ("tactical", "tactical"))


def median_us(f, repeat: int, before=None) -> float:
    times = []
    for _ in range(repeat):
        if before is not None:
            before()
        t0 = time.perf_counter()
        f()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e6


def measure(scenario: str, opponent: str, advice: str | None, steps: int, repeat: int) -> tuple[float, ...]:
    from envs.skirmish import SkirmishEnv
    env = SkirmishEnv(scenario=scenario, opponent=opponent, advice=advice)
    for seed in range(20):   # the first seed whose fight lasts `steps` decisions
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        for _ in range(steps):
            *_, term, trunc, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
            if term or trunc:
                break
        else:
            break
    snap = env.clone_state()
    legal = np.flatnonzero(env.action_masks())
    a = 0 if legal[0] == 0 else int(legal[-1])   # end the turn: the opponents' turns follow
    return (median_us(env.clone_state, repeat), median_us(lambda: env.restore_state(snap), repeat),
            median_us(lambda: env.step(a), max(1, repeat // 10), before=lambda: env.restore_state(snap)))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--scenarios", default=",".join(DEFAULT_SCENARIOS.values()))
    p.add_argument("--steps", type=int, default=8, help="decisions played before the snapshot")
    p.add_argument("--repeat", type=int, default=2000)
    args = p.parse_args(argv)
    print("| scenario | opponent | advice | clone (µs) | restore (µs) | step (µs) |")
    print("|---|---|---|---:|---:|---:|")
    for sc in args.scenarios.split(","):
        for opp, adv in SETTINGS:
            c, r, s = measure(sc, opp, adv, args.steps, args.repeat)
            print(f"| {sc} | {opp} | {adv or '-'} | {c:.0f} | {r:.0f} | {s:.0f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
