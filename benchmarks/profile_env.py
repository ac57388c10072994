"""Profile one training env: SkirmishEnv built from a training config, random legal actions.

Prints the env's steps per second (one process) and the top of a cProfile, by cumulative time.

    python benchmarks/profile_env.py training/configs/metalface.yaml --steps 1500
"""
from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # runnable from a checkout not installed

from training.config import load_config
from training.train import make_env_fn


def main(argv: list[str] | None = None) -> float:
    """Run the profile; returns the env's steps per second without the profiler."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("config", help="training config YAML (training/configs/...)")
    ap.add_argument("--steps", type=int, default=600, help="env steps to profile")
    ap.add_argument("--top", type=int, default=30, help="functions to list")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    cfg = load_config(args.config)
    env = make_env_fn(cfg, Path("."), list(cfg.opponents), seed=args.seed + 1)()
    rng = np.random.default_rng(args.seed)
    env.reset(seed=args.seed + 3)

    def run(n: int) -> None:
        for _ in range(n):
            a = rng.choice(np.flatnonzero(env.action_masks()))
            _, _, term, trunc, _ = env.step(a)
            if term or trunc:
                env.reset()

    t = time.perf_counter()
    run(args.steps)
    rate = args.steps / (time.perf_counter() - t)
    print(f"{cfg.ruleset}: {rate:.1f} env steps/s (one process, no profiler)")
    prof = cProfile.Profile()
    prof.runcall(run, args.steps)
    pstats.Stats(prof).sort_stats("cumulative").print_stats(args.top)
    env.close()
    return rate


if __name__ == "__main__":
    main()
