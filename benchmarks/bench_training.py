"""Training throughput: env steps per second while MaskablePPO learns (rollouts + updates).

Runs short training runs of one ruleset's committed config, one per features extractor
(and vec-env kind) asked for, in the same process one after the other, and prints the
steps per second of each and their ratio. The opponents are the config's last stage
(mostly `tactical`), so the figure includes the scripted opponents' turns.

    python benchmarks/bench_training.py --ruleset cortex --steps 8192 --features cnn,mlp
    python benchmarks/bench_training.py --ruleset cortex --steps 8192 --features spatial,spatial+advice
    python benchmarks/bench_training.py --ruleset cortex --steps 8192 --features spatial+advice --minigrid

`--minigrid` adds, in the same run, stable-baselines3's PPO on MiniGrid-DoorKey-8x8 (image
observation flattened, MLP of the config's `net_arch`) with the config's PPO settings,
number of envs and vec-env kind: the reference for issue 30's training-throughput target.

No behaviour-cloning stage (`pretrain.samples: 0`): only the learning is timed.

Writes nothing but a temporary run folder (deleted afterwards).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ruleset", default="cortex")
    ap.add_argument("--steps", type=int, default=8192, help="env steps per measured run")
    ap.add_argument("--features", default="cnn,mlp",
                    help="comma-separated: cnn, mlp, spatial, spatial+advice (with tactical's advice)")
    ap.add_argument("--n-envs", type=int, default=4)
    ap.add_argument("--vec-env", default="subproc", choices=("subproc", "dummy"))
    ap.add_argument("--minigrid", action="store_true",
                    help="also SB3 PPO on MiniGrid-DoorKey-8x8 with the same settings (the reference)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()

    from training.config import load_config
    from training.train import train

    base = load_config(Path(__file__).resolve().parents[1] / "training" / "configs" / f"{args.ruleset}.yaml")
    tmp = Path(tempfile.mkdtemp(prefix="tactica-bench-train-"))
    rows = []
    try:
        for feat in [f.strip() for f in args.features.split(",") if f.strip()]:
            mode, _, adv = feat.partition("+")   # "spatial+advice": with tactical's advice (envs/advice.py)
            cfg = load_config({**base.to_dict(), "features": mode, "advice": "tactical" if adv else None,
                               "n_envs": args.n_envs, "vec_env": args.vec_env, "pretrain": {"samples": 0},
                               "total_steps": args.steps, "curriculum": [], "eval_interval": 0,
                               "checkpoint_interval": 0, "out_dir": str(tmp), "run_name": f"bench-{feat}"})
            t0 = time.perf_counter()
            train(cfg, progress=False)
            dt = time.perf_counter() - t0
            rows.append({"ruleset": args.ruleset, "features": feat, "n_envs": args.n_envs, "vec_env": args.vec_env,
                         "steps": args.steps, "seconds": round(dt, 1), "steps_per_s": round(args.steps / dt, 1)})
        if args.minigrid:
            t0 = time.perf_counter()
            minigrid_ppo(base, args.steps, args.n_envs, args.vec_env)
            dt = time.perf_counter() - t0
            rows.append({"ruleset": "MiniGrid-DoorKey-8x8", "features": "sb3-ppo-mlp", "n_envs": args.n_envs,
                         "vec_env": args.vec_env, "steps": args.steps, "seconds": round(dt, 1),
                         "steps_per_s": round(args.steps / dt, 1)})
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    for r in rows:
        print(f"{r['ruleset']:16s} {r['features']:14s} {r['n_envs']} envs ({r['vec_env']}): "
              f"{r['steps_per_s']:7.1f} steps/s  ({r['steps']} steps in {r['seconds']} s, start-up included)")
    if len(rows) > 1:
        print("ratio " + " / ".join(r["features"] for r in rows) + ": "
              + " : ".join(f"{r['steps_per_s'] / rows[0]['steps_per_s']:.2f}" for r in rows))


def _minigrid_env():
    import gymnasium as gym
    import minigrid  # noqa: F401  (registers the ids)
    from minigrid.wrappers import ImgObsWrapper
    return gym.wrappers.FlattenObservation(ImgObsWrapper(gym.make("MiniGrid-DoorKey-8x8-v0")))


def minigrid_ppo(cfg, steps: int, n_envs: int, vec_env: str) -> None:
    """SB3 PPO on MiniGrid-DoorKey-8x8 with `cfg`'s PPO settings, `n_envs` envs, one torch thread."""
    import torch
    from stable_baselines3 import PPO
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv
    torch.set_num_threads(1)
    fns = [_minigrid_env for _ in range(n_envs)]
    venv = SubprocVecEnv(fns, start_method="spawn") if vec_env == "subproc" and n_envs > 1 else DummyVecEnv(fns)
    p = cfg.ppo
    model = PPO("MlpPolicy", venv, learning_rate=p.learning_rate, n_steps=p.n_steps, batch_size=p.batch_size,
                n_epochs=p.n_epochs, gamma=p.gamma, ent_coef=p.ent_coef, seed=cfg.seed, device="cpu",
                policy_kwargs={"net_arch": {"pi": list(cfg.net_arch), "vf": list(cfg.net_arch)}})
    model.learn(total_timesteps=steps)
    venv.close()


if __name__ == "__main__":
    main()
