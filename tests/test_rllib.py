"""RLlib PPO with action masking on SkirmishEnv (training/rllib.py), on a local two-CPU Ray.

The masked env needs only gymnasium; the training run needs the `dist` extra
(`ray[rllib]`) and is skipped without it.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("gymnasium")

from rules.errors import TacticaError  # noqa: E402


def test_masked_env_carries_the_exact_mask():
    from training.rllib import MaskedSkirmish

    env = MaskedSkirmish({"scenario": "cortex/duel", "opponent": "aggressive"})
    obs, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(60):
        assert env.observation_space.contains(obs)
        assert np.array_equal(obs["action_mask"].astype(bool), env.env.action_masks())
        legal = np.flatnonzero(obs["action_mask"])
        obs, _, term, trunc, info = env.step(int(rng.choice(legal)))
        if term or trunc:
            obs, info = env.reset()
    assert env.illegal_actions == 0


def test_strict_masked_env_refuses_an_illegal_action():
    from training.rllib import MaskedSkirmish

    env = MaskedSkirmish({"scenario": "cortex/duel", "opponent": "aggressive", "strict": True})
    obs, _ = env.reset(seed=1)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    with pytest.raises(TacticaError):
        env.step(illegal)


def test_config_file_loads_and_bad_fields_are_named(tmp_path):
    from training.rllib import DEFAULT_CONFIG, load_config

    cfg = load_config(DEFAULT_CONFIG)
    assert cfg.env["scenario"] == "cortex/warehouse" and cfg.ppo.lambda_ == 0.95
    bad = tmp_path / "bad.yaml"
    bad.write_text("ppo: {lr: -1}\n", encoding="utf-8")
    with pytest.raises(TacticaError) as e:
        load_config(bad)
    assert "ppo.lr" in e.value.line() and str(bad) in e.value.line()
    bad.write_text("ppo: {learning_rate: 0.1}\n", encoding="utf-8")
    with pytest.raises(TacticaError) as e:
        load_config(bad)
    assert "ppo.learning_rate" in e.value.line()


def test_ppo_with_action_masking_trains_on_a_local_ray():
    """One short PPO iteration on two CPUs; a strict env makes any unmasked action fail the run."""
    pytest.importorskip("ray.rllib")
    import ray

    from training.rllib import MaskedSkirmish, greedy_actions, load_config, train

    cfg = load_config(overrides={
        "env": {"scenario": "cortex/duel", "opponent": "aggressive", "strict": True, "reward": {}},
        "ray": {"num_cpus": 2, "address": None}, "iterations": 2, "checkpoint_dir": None,
        "ppo": {"train_batch_size_per_learner": 128, "minibatch_size": 64, "num_epochs": 1},
        "model": {"fcnet_hiddens": [32], "head_fcnet_hiddens": [16]},
        "env_runners": {"num_env_runners": 1, "num_envs_per_env_runner": 1}})
    out = train(cfg, log=lambda line: None)
    assert not ray.is_initialized()                       # a Ray it started is shut down
    assert [h["iteration"] for h in out["history"]] == [1, 2]
    assert out["history"][-1]["env_steps"] >= 256
    env = MaskedSkirmish({"scenario": "cortex/duel", "opponent": "aggressive"})
    observations = []
    for seed in range(8):
        obs, _ = env.reset(seed=seed)
        observations.append(obs)
    actions = greedy_actions(out["module"], observations)
    assert all(o["action_mask"][a] == 1 for o, a in zip(observations, actions))
