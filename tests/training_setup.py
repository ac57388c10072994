"""What the training tests share: a tiny duel config (cortex/duel against `aggressive`, 512
steps, a 12x16 layout with one enemy slot), its env, and how far an export's action
probabilities are from SB3's."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from agents.learned import NumpyPolicy
from envs.skirmish import SkirmishEnv
from training.config import load_config

BASE = {"ruleset": "cortex", "scenarios": ["cortex/duel"], "opponents": ["aggressive"], "n_envs": 2,
        "total_steps": 512, "ppo": {"n_steps": 128, "batch_size": 128, "n_epochs": 1},
        "eval_interval": 512, "eval_episodes": 3, "eval_opponents": ["aggressive"], "checkpoint_interval": 256,
        "vec_env": "dummy", "map_size": [12, 16], "max_enemies": 1, "max_allies": 0, "net_arch": [32, 32]}


def cfg(tmp_path: Path, **kw):
    return load_config({**BASE, "out_dir": str(tmp_path), **kw})


def duel_env() -> SkirmishEnv:
    return SkirmishEnv(scenario="cortex/duel", opponent="aggressive", map_size=(12, 16), max_enemies=1,
                       max_allies=0)


def max_probability_gap(model, pol: NumpyPolicy, env: SkirmishEnv, n: int) -> float:
    """The largest difference between SB3's and NumpyPolicy's action probabilities over `n`
    observations of random legal play."""
    import torch

    obs, _ = env.reset(seed=0)
    rng = np.random.default_rng(0)
    worst = 0.0
    for _ in range(n):
        mask = env.action_masks()
        t_obs, _ = model.policy.obs_to_tensor(obs)
        with torch.no_grad():
            p_sb3 = model.policy.get_distribution(t_obs, action_masks=mask[None]).distribution.probs.numpy()[0]
        p_np = pol.action_probs({k: v[None] for k, v in obs.items()}, mask[None])[0]
        worst = max(worst, float(np.abs(p_sb3 - p_np).max()))
        obs, _, t, tr, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
        if t or tr:
            obs, _ = env.reset()
    return worst


def plays_alone_as_in_env(pol: NumpyPolicy, env: SkirmishEnv, path: Path) -> None:
    """On its own (no env) the policy builds the env's observation (its optional keys included):
    its most likely action's probability at a fresh decision is the env's; and the exported file
    plays a duel against `aggressive` to the end."""
    import pytest

    from evaluation.simulate import play_fight
    from rules.scenario import load_scenario

    env.reset(seed=2)
    s = env.battle.state
    p_env = pol.action_probs({k: v[None] for k, v in env._observe().items()}, env.action_masks()[None])[0]
    pol.act(s, s.actor)
    assert max(p for p, _ in pol.last_probs) == pytest.approx(float(p_env.max()), abs=1e-6)
    spec = load_scenario("cortex/duel")[0]
    a, b = (t.name for t in spec.teams)
    assert play_fight(spec, {a: str(path), b: "aggressive"}, 1, 0).actions > 0
