"""Training runs, resume after a kill, policy export and its numpy twin (short runs)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from agents.learned import NumpyPolicy  # noqa: E402
from envs.skirmish import SkirmishEnv  # noqa: E402
from rules.errors import TacticaError  # noqa: E402
from training.config import load_config  # noqa: E402
from training.train import train  # noqa: E402

BASE = {"ruleset": "cortex", "scenarios": ["cortex/duel"], "opponents": ["aggressive"], "n_envs": 2,
        "total_steps": 512, "ppo": {"n_steps": 128, "batch_size": 128, "n_epochs": 1},
        "eval_interval": 512, "eval_episodes": 3, "eval_opponents": ["aggressive"], "checkpoint_interval": 256,
        "vec_env": "dummy", "map_size": [12, 16], "max_enemies": 1, "max_allies": 0, "net_arch": [32, 32]}


def cfg(tmp_path: Path, **kw):
    return load_config({**BASE, "out_dir": str(tmp_path), **kw})


def duel_env() -> SkirmishEnv:
    return SkirmishEnv(scenario="cortex/duel", opponent="aggressive", map_size=(12, 16), max_enemies=1,
                       max_allies=0)


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("runs")
    return train(cfg(out, run_name="a"), progress=False)


def test_run_folder_holds_config_logs_eval_curve_checkpoint_and_policy(run):
    names = set(os.listdir(run))
    assert {"config.yaml", "eval.csv", "checkpoints", "policy.npz", "tb"} <= names
    rows = (run / "eval.csv").read_text().strip().splitlines()
    assert rows[0] == "step,opponent,win_rate,episodes" and len(rows) >= 2
    meta = json.loads((run / "checkpoints" / "latest.json").read_text())
    assert meta["step"] >= 512 and meta["ruleset"] == "cortex"


def test_same_seed_same_first_actions(tmp_path, run):
    again = train(cfg(tmp_path, run_name="b"), progress=False)
    p1, p2 = NumpyPolicy(run / "policy.npz"), NumpyPolicy(again / "policy.npz")
    env = duel_env()
    obs, _ = env.reset(seed=4)
    for _ in range(30):
        m = env.action_masks()
        b = {k: v[None] for k, v in obs.items()}
        np.testing.assert_array_equal(p1.action_probs(b, m[None]), p2.action_probs(b, m[None]))
        obs, _, t, tr, _ = env.step(int(np.argmax(p1.action_probs(b, m[None])[0])))
        if t or tr:
            obs, _ = env.reset()


def test_export_matches_sb3_probabilities_on_a_thousand_observations(run):
    import torch
    from sb3_contrib import MaskablePPO

    model = MaskablePPO.load(str(run / "checkpoints" / "latest.zip"), device="cpu")
    pol = NumpyPolicy(run / "policy.npz")
    env = duel_env()
    pol.check_env(env.layout)
    obs, _ = env.reset(seed=0)
    rng = np.random.default_rng(0)
    worst = 0.0
    for _ in range(1000):
        mask = env.action_masks()
        t_obs, _ = model.policy.obs_to_tensor(obs)
        with torch.no_grad():
            p_sb3 = model.policy.get_distribution(t_obs, action_masks=mask[None]).distribution.probs.numpy()[0]
        p_np = pol.action_probs({k: v[None] for k, v in obs.items()}, mask[None])[0]
        worst = max(worst, float(np.abs(p_sb3 - p_np).max()))
        obs, _, t, tr, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
        if t or tr:
            obs, _ = env.reset()
    assert worst < 1e-5


def test_numpy_policy_plays_and_explains(run):
    from evaluation.simulate import play_fight
    from rules.scenario import load_scenario

    spec, _ = load_scenario("cortex/duel")
    import agents.base as base
    base.register_policy("test_npz", lambda seed=None: NumpyPolicy(run / "policy.npz", seed=seed))
    res = play_fight(spec, {"crew": "test_npz", "outlaws": "aggressive"}, seed=1, index=0)
    assert res.rounds >= 1
    pol = NumpyPolicy(run / "policy.npz")
    env = duel_env()
    env.reset(seed=0)
    s = env.battle.state
    pol.act(s, s.actor)
    assert "learned policy" in pol.explain(s, s.actor, None) and "%" in pol.last_reason


def test_corrupt_and_mismatched_policy_files_give_clear_errors(tmp_path, run):
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a zip file")
    with pytest.raises(TacticaError, match="cannot read policy"):
        NumpyPolicy(bad)
    data = dict(np.load(run / "policy.npz", allow_pickle=False))
    meta = json.loads(str(data["__meta__"]))
    meta["fingerprint"]["n_actions"] += 1
    data["__meta__"] = np.array(json.dumps(meta))
    forged = tmp_path / "forged.npz"
    np.savez(forged, **data)
    with pytest.raises(TacticaError, match="fingerprint"):
        NumpyPolicy(forged)
    pol = NumpyPolicy(run / "policy.npz")
    with pytest.raises(TacticaError, match="does not match"):
        pol.check_env(SkirmishEnv(scenario="cortex/warehouse", opponent="aggressive").layout)


def test_corrupt_checkpoint_on_resume_is_a_clear_error(tmp_path):
    c = cfg(tmp_path, run_name="c")
    d = train(c, progress=False)
    (d / "checkpoints" / "latest.zip").write_bytes(b"garbage")
    with pytest.raises(TacticaError, match="cannot load checkpoint"):
        train(load_config({**BASE, "out_dir": str(tmp_path), "run_name": "c", "total_steps": 1024}), resume=True,
              progress=False)


def test_resume_after_sigkill_loses_at_most_one_interval(tmp_path):
    code = (
        "from training.config import load_config; from training.train import train; import json,sys;"
        f"c=load_config({json.dumps({**BASE, 'out_dir': str(tmp_path), 'run_name': 'k', 'total_steps': 100000, 'eval_interval': 0})});"
        "train(c, progress=False)"
    )
    proc = subprocess.Popen([sys.executable, "-c", code], cwd=Path(__file__).parents[1])
    meta = tmp_path / "k" / "checkpoints" / "latest.json"
    deadline = time.time() + 240
    try:
        while time.time() < deadline:
            if meta.exists() and json.loads(meta.read_text())["step"] >= 512:
                break
            time.sleep(0.5)
        else:
            pytest.fail("no checkpoint appeared")
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    saved = json.loads(meta.read_text())["step"]
    c = load_config({**BASE, "out_dir": str(tmp_path), "run_name": "k", "total_steps": saved + 256,
                     "eval_interval": 0})
    d = train(c, resume=True, progress=False)
    final = json.loads((d / "checkpoints" / "latest.json").read_text())["step"]
    assert final >= saved + 256 - 1
    assert NumpyPolicy(d / "policy.npz").meta["steps"] == final


@pytest.mark.parametrize("path", sorted(Path("training/configs").glob("*.yaml")) if Path("training/configs").exists() else [],
                         ids=lambda p: p.stem)
def test_every_committed_config_loads(path):
    from training.config import TrainConfig
    if path.stem.startswith("rllib"):
        pytest.skip("RLlib config: loaded by training/rllib.py")
    c = load_config(path)
    assert isinstance(c, TrainConfig)
    assert all(s.until_steps > 0 for s in c.curriculum)


def test_curriculum_stage_errors_name_the_field():
    from rules.errors import ScenarioError
    with pytest.raises(ScenarioError, match=r"curriculum\[0\].*until_steps"):
        load_config({"curriculum": [{"opponents": ["random"]}]})
    with pytest.raises(ScenarioError, match=r"curriculum\[0\]\.until_steps.*a number"):
        load_config({"curriculum": [{"until_steps": "soon"}]})


def test_time_limit_stops_learning_and_still_writes_the_policy(tmp_path):
    """`time_limit_minutes`: learning stops at the first step past the budget; the
    checkpoint (with the time spent) and the exported policy are written all the same."""
    d = train(cfg(tmp_path, run_name="t", total_steps=10**6, eval_interval=0, checkpoint_interval=0,
                  time_limit_minutes=0.002), progress=False)
    meta = json.loads((d / "checkpoints" / "latest.json").read_text())
    assert 0 < meta["step"] < 10**5
    assert meta["elapsed_s"] >= 0.12
    assert (d / "policy.npz").exists()


def test_behaviour_cloning_demos_are_legal_seeded_and_learnable(tmp_path):
    """training/pretrain.py: every recorded teacher action is legal under its recorded mask,
    the same seed gives the same demonstrations, and a few epochs of cloning make the
    policy agree with the teacher far more often than the untrained one."""
    from sb3_contrib import MaskablePPO

    from training.features import SkirmishExtractor
    from training.pretrain import agreement, collect, fit

    c = cfg(tmp_path, opponents=["tactical"])
    d = collect(c, 300, "tactical", workers=1, seed=5)
    assert len(d) >= 300 and d.episodes >= 1
    assert d.masks[np.arange(len(d)), d.actions].all()
    assert np.all(np.abs(d.returns) <= 1.5)
    d2 = collect(c, 300, "tactical", workers=1, seed=5)
    assert np.array_equal(d.actions, d2.actions) and np.allclose(d.returns, d2.returns)
    model = MaskablePPO("MultiInputPolicy", duel_env(), seed=0, device="cpu", n_steps=64, batch_size=64,
                        policy_kwargs={"features_extractor_class": SkirmishExtractor,
                                       "features_extractor_kwargs": {"mode": "cnn"}, "net_arch": [64, 64]})
    before = agreement(model, d)
    stats = fit(model, d, epochs=6, batch_size=64, learning_rate=1e-3)
    after = agreement(model, d)
    assert before < 0.5 < 0.8 < after
    assert stats[-1]["loss"] < stats[0]["loss"]
