"""Training throughput: env steps per second while MaskablePPO learns (rollouts + updates).

Runs short training runs of the PPO stage of one ruleset's shipped recipe (training/recipes.py:
`training/configs/<ruleset>.yaml`, or for cortex its first stage), one per features extractor
(and vec-env kind) asked for, in the same process one after the other, and prints the
steps per second of each and their ratio. The opponents are the config's last curriculum stage
(mostly `tactical`), so the figure includes the scripted opponents' turns.

    python benchmarks/bench_training.py --ruleset cortex --steps 8192 --features cnn,mlp
    python benchmarks/bench_training.py --ruleset cortex --steps 8192 --features spatial,spatial+advice
    python benchmarks/bench_training.py --ruleset cortex --steps 8192 --features spatial+advice --minigrid

`--minigrid` adds, in the same run, stable-baselines3's PPO on MiniGrid-DoorKey-8x8 (image
observation flattened, MLP of the config's `net_arch`) with the config's PPO settings,
number of envs and vec-env kind: the reference for issue 30's training-throughput target.

No behaviour-cloning stage (`pretrain.samples: 0`): only the learning is timed.

Each run is also split into its two phases (`--phases`, on by default): `collect` (the
rollouts: envs stepping, the policy acting) and `update` (PPO's epochs over the rollout), each
in wall seconds, CPU seconds of the learner process and, with subproc envs, CPU seconds of the
env processes (Linux /proc); `other` is the rest of the wall time (imports, env start-up).
`--torch-threads N` sets the config's `torch_threads` (the learner's threads in the update).

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
                    help="comma-separated: cnn, mlp, spatial, spatial+advice (with tactical's advice: its "
                         "ranking, over all legal actions, as issue 30 measured), spatial+parts (tactical's "
                         "advice with the parts of its scores, the config's advice_only and gain)")
    ap.add_argument("--n-envs", type=int, default=4)
    ap.add_argument("--vec-env", default="subproc", choices=("subproc", "dummy"))
    ap.add_argument("--minigrid", action="store_true",
                    help="also SB3 PPO on MiniGrid-DoorKey-8x8 with the same settings (the reference)")
    ap.add_argument("--torch-threads", type=int, default=None, help="the config's torch_threads (default: its own)")
    ap.add_argument("--no-phases", dest="phases", action="store_false", help="no collect/update split")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()

    from training.config import load_config
    from training.recipes import ppo_config
    from training.train import train

    base = load_config(ppo_config(args.ruleset))   # the shipped recipe's PPO stage (training/recipes.py)
    tmp = Path(tempfile.mkdtemp(prefix="tactica-bench-train-"))
    rows = []
    try:
        for feat in [f.strip() for f in args.features.split(",") if f.strip()]:
            mode, _, adv = feat.partition("+")   # "spatial+advice": with tactical's advice (envs/advice.py)
            if adv not in ("", "advice", "parts"):
                sys.exit(f"--features: {feat!r} (expected cnn, mlp, spatial, spatial+advice or spatial+parts)")
            # "+advice" is the measurement of issue 30's tables whatever the config ships now: no score
            # parts and every legal action open; "+parts" keeps the config's own advice settings
            advice = {"advice": "tactical" if adv else None, "advice_parts": adv == "parts"}
            if adv != "parts":
                advice["advice_only"] = False
            cfg = load_config({**base.to_dict(), "features": mode, **advice,
                               "n_envs": args.n_envs, "vec_env": args.vec_env, "pretrain": {"samples": 0},
                               "total_steps": args.steps, "curriculum": [], "eval_interval": 0,
                               "checkpoint_interval": 0, "out_dir": str(tmp), "run_name": f"bench-{feat}",
                               **({"torch_threads": args.torch_threads} if args.torch_threads else {})})
            clock = PhaseClock() if args.phases else None
            t0 = time.perf_counter()
            c0 = time.process_time()
            try:
                train(cfg, progress=False)
            finally:
                if clock:
                    clock.stop()
            dt = time.perf_counter() - t0
            row = {"ruleset": args.ruleset, "features": feat, "n_envs": args.n_envs, "vec_env": args.vec_env,
                   "torch_threads": getattr(cfg, "torch_threads", 1), "steps": args.steps, "seconds": round(dt, 1),
                   "cpu_s": round(time.process_time() - c0, 1), "steps_per_s": round(args.steps / dt, 1)}
            if clock:
                row["phases"] = ph = clock.summary(dt)
                learning = ph["collect"]["wall_s"] + ph["update"]["wall_s"]
                ph["learning_steps_per_s"] = round(args.steps / learning, 1) if learning > 0 else 0.0
            rows.append(row)
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
        ph = r.get("phases")
        if ph:
            for name in ("collect", "update"):
                p = ph[name]
                print(f"    {name:8s} {p['wall_s']:7.1f} s wall  {p['cpu_s']:7.1f} s learner CPU  "
                      f"{p['env_cpu_s']:7.1f} s env-process CPU  ({p['calls']} calls)")
            print(f"    other    {ph['other_wall_s']:7.1f} s wall (imports, env start-up, checkpoint)")
            print(f"    learning {ph['learning_steps_per_s']:7.1f} steps/s (collect + update only)")
    if len(rows) > 1:
        print("ratio " + " / ".join(r["features"] for r in rows) + ": "
              + " : ".join(f"{r['steps_per_s'] / rows[0]['steps_per_s']:.2f}" for r in rows))


class PhaseClock:
    """Times MaskablePPO's `collect_rollouts` and `train` (class-level wrappers, removed by `stop`)."""

    def __init__(self) -> None:
        from sb3_contrib import MaskablePPO
        self.cls = MaskablePPO
        self.orig = {"collect": MaskablePPO.collect_rollouts, "update": MaskablePPO.train}
        self.acc = {k: {"wall_s": 0.0, "cpu_s": 0.0, "env_cpu_s": 0.0, "calls": 0} for k in self.orig}
        MaskablePPO.collect_rollouts = self._wrap("collect")
        MaskablePPO.train = self._wrap("update")

    def _wrap(self, name: str):
        fn, acc = self.orig[name], self.acc[name]

        def timed(model, *a, **k):
            pids = _env_pids(model.env)
            w, c, e = time.perf_counter(), time.process_time(), _cpu_of(pids)
            try:
                return fn(model, *a, **k)
            finally:
                acc["wall_s"] += time.perf_counter() - w
                acc["cpu_s"] += time.process_time() - c
                acc["env_cpu_s"] += _cpu_of(pids) - e
                acc["calls"] += 1
        return timed

    def stop(self) -> None:
        self.cls.collect_rollouts = self.orig["collect"]
        self.cls.train = self.orig["update"]

    def summary(self, total_wall: float) -> dict:
        out = {k: {kk: round(v, 2) if isinstance(v, float) else v for kk, v in a.items()} for k, a in self.acc.items()}
        out["other_wall_s"] = round(total_wall - sum(a["wall_s"] for a in self.acc.values()), 2)
        return out


def _env_pids(venv) -> list[int]:
    """The process ids of a SubprocVecEnv's workers (through wrappers such as VecMonitor), else []."""
    while venv is not None and not hasattr(venv, "processes"):
        venv = getattr(venv, "venv", None)
    return [p.pid for p in venv.processes] if venv is not None else []


def _cpu_of(pids: list[int]) -> float:
    """User + system CPU seconds of these processes so far (Linux /proc; 0 where unreadable)."""
    import os
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / tick
        except (OSError, IndexError, ValueError):
            pass
    return total


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
