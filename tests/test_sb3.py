"""stable-baselines3 / sb3-contrib and gymnasium vector envs run on SkirmishEnv (short runs)."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import envs  # noqa: F401

pytest.importorskip("sb3_contrib")


def _make():
    from envs.skirmish import SkirmishEnv
    return SkirmishEnv(scenario="cortex/duel", opponent="aggressive")


def test_maskable_ppo_on_subproc_vec_env():
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import SubprocVecEnv

    venv = SubprocVecEnv([_make, _make], start_method="spawn")
    try:
        model = MaskablePPO("MultiInputPolicy", venv, n_steps=128, batch_size=64, n_epochs=1, seed=0,
                            policy_kwargs={"net_arch": [64, 64]}, device="cpu")
        model.learn(total_timesteps=1024)
        obs = venv.reset()
        masks = np.stack(venv.env_method("action_masks"))
        actions, _ = model.predict(obs, action_masks=masks)
        assert all(masks[i, a] for i, a in enumerate(actions))
    finally:
        venv.close()


def test_gymnasium_vector_env_with_masks_from_info():
    venv = gym.vector.SyncVectorEnv([_make, _make])
    obs, info = venv.reset(seed=0)
    rng = np.random.default_rng(0)
    episodes = 0
    for _ in range(2000):
        masks = info["action_mask"]
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, rew, term, trunc, info = venv.step(actions)
        episodes += int(np.sum(term | trunc))
        assert obs["grid"].shape[0] == 2
    assert episodes > 0
    venv.close()
