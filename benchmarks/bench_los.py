"""A map's tables on generated maps: numpy against the compiled kernels (rules/kernels.py).

    python benchmarks/bench_los.py --steps 3000 --rounds 3

Two measurements, CPU seconds (`time.process_time()`), in one process:

1. One block of 32 line-of-sight rows (`geometry.los_table`), numpy against the compiled
   walk, on a generated map of each ruleset at the training size (16 x 22 cells).
2. The training env of each ruleset's config (`training/configs/<ruleset>.yaml`: generated
   maps, a new one every fight, its opponents and advice), random masked actions, env steps
   per CPU second with each way of building the tables (line of sight, cover rows, path
   costs). Each round plays the same seeded
   fights both ways (the tables are equal, so the play is), with the map caches emptied
   before each, and the order alternates between rounds, so both see the same machine load.

Prints Markdown rows; the ratio is the figure to compare between runs.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

RULESETS = ("cortex", "cortex_hu", "metalface", "cybergeneration")


def use_compiled(on: bool) -> None:
    """Switch this process's tables to the compiled walk (True) or to numpy (False)."""
    from rules import kernels
    kernels._state.update(kernel=kernels.compile_kernel() if on else None, tried=True)


def block_times(ruleset: str, reps: int) -> tuple[float, float]:
    """(numpy, compiled) CPU seconds of one 32-row block on a generated map of `ruleset`."""
    from envs.generators import generate_scenario
    from rules.geometry import los_table_numpy
    from rules.kernels import compile_kernel
    from rules.scenario import build_state, load_scenario

    spec, src = load_scenario(generate_scenario(ruleset, 1, width=22, height=16))
    g = build_state(spec, src).grid
    srcs = np.arange(0, 32, dtype=np.int64)
    fn = compile_kernel().los_block
    empty = np.zeros(0, dtype=bool)
    t = time.process_time()
    for _ in range(reps):
        los_table_numpy(g._opaque_np, g.width, srcs)
    a = (time.process_time() - t) / reps
    t = time.process_time()
    for _ in range(reps * 10):
        fn(g._opaque_np, g.width, srcs, empty, empty, False)
    return a, (time.process_time() - t) / (reps * 10)


def env_steps(env, steps: int, seed: int) -> tuple[int, float, int]:
    """(steps, CPU seconds, fights) of random masked play from `env.reset(seed=seed)`, with
    the rules' map caches emptied first: the same seed plays the same fights on maps whose
    tables are built afresh, whichever way builds them."""
    import rules.grid as grid
    import rules.scenario as scenario

    scenario._GRID_CACHE.clear()
    grid._VARIANTS.clear()
    rng = np.random.default_rng(seed)
    _, info = env.reset(seed=seed)
    fights = 0
    t = time.process_time()
    for _ in range(steps):
        a = int(rng.choice(np.flatnonzero(info["action_mask"])))
        _, _, term, trunc, info = env.step(a)
        if term or trunc:
            fights += 1
            _, info = env.reset()
    return steps, time.process_time() - t, fights


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=3000, help="env steps per block")
    ap.add_argument("--rounds", type=int, default=3, help="alternating blocks of each way")
    ap.add_argument("--rulesets", default=",".join(RULESETS))
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    from rules.kernels import compile_kernel
    if compile_kernel() is None:
        sys.exit("bench_los: numba is not installed or cannot compile here (pip install numba); "
                 "there is nothing to compare numpy with")
    from training.config import load_config
    from training.recipes import ppo_config
    from training.train import make_env_fn

    rulesets = [r for r in args.rulesets.split(",") if r]
    print("| ruleset | one 32-row block, numpy (ms) | compiled (ms) | ratio |")
    print("|---|---:|---:|---:|")
    for rs in rulesets:
        a, b = block_times(rs, 20)
        print(f"| {rs} | {1000 * a:.2f} | {1000 * b:.3f} | x{a / b:.1f} |")
    print()
    print("| ruleset (training config, random masked actions) | numpy: steps/CPU s | compiled: steps/CPU s | ratio | fights |")
    print("|---|---:|---:|---:|---:|")
    for rs in rulesets:
        cfg = load_config(ppo_config(rs))   # the env PPO trains in (training/recipes.py)
        env = make_env_fn(cfg, Path("."), list(cfg.opponents), seed=args.seed + 1)()
        tot = {False: [0, 0.0, 0], True: [0, 0.0, 0]}
        for k in range(args.rounds):
            for on in ((False, True) if k % 2 == 0 else (True, False)):
                use_compiled(on)
                n, s, f = env_steps(env, args.steps, args.seed * 1000 + k)
                tot[on][0] += n
                tot[on][1] += s
                tot[on][2] += f
        env.close()
        r0, r1 = tot[False][0] / tot[False][1], tot[True][0] / tot[True][1]
        print(f"| {rs} | {r0:.0f} | {r1:.0f} | x{r1 / r0:.2f} | {tot[False][2]} / {tot[True][2]} |")


if __name__ == "__main__":
    main()
