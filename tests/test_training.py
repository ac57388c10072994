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

from tests.training_setup import BASE, cfg, duel_env, max_probability_gap  # noqa: E402,F401



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


@pytest.fixture(scope="module")
def spatial_run(tmp_path_factory) -> dict:
    """A `spatial` run: a tiny behaviour-cloning warm start, 256 PPO steps, then resumed to 512."""
    out = tmp_path_factory.mktemp("spatial")
    c = cfg(out, run_name="s", features="spatial", total_steps=256, checkpoint_interval=128, eval_interval=0,
            pretrain={"samples": 64, "workers": 1, "epochs": 1, "batch_size": 32})
    d = train(c, progress=False)
    first = {"step": json.loads((d / "checkpoints" / "latest.json").read_text())["step"],
             "meta": NumpyPolicy(d / "policy.npz").meta}
    d2 = train(load_config({**c.to_dict(), "total_steps": 512}), resume=True, progress=False)
    return {"dir": d2, "first": first}


def test_spatial_run_writes_policy_and_resumes_from_its_checkpoint(spatial_run):
    from sb3_contrib import MaskablePPO

    from training.features import SpatialMaskablePolicy

    d, first = spatial_run["dir"], spatial_run["first"]
    assert first["step"] >= 256 and first["meta"]["steps"] == first["step"]
    assert set(first["meta"]["architecture"]) == {"cells", "grid", "vec", "pi", "action", "spatial"}
    assert (d / "pretrain.json").exists()
    final = json.loads((d / "checkpoints" / "latest.json").read_text())["step"]
    assert final >= 512 > first["step"]
    assert NumpyPolicy(d / "policy.npz").meta["steps"] == final
    model = MaskablePPO.load(str(d / "checkpoints" / "latest.zip"), device="cpu")
    assert type(model.policy) is SpatialMaskablePolicy and model.policy.features_extractor.mode == "spatial"
    before = (d / "config.yaml").read_text()
    with pytest.raises(TacticaError, match="spatial features"):   # resuming under another `features`
        train(load_config({**BASE, "out_dir": str(d.parent), "run_name": d.name, "total_steps": 1024,
                           "features": "cnn"}), resume=True, progress=False)
    assert (d / "config.yaml").read_text() == before   # a refused resume leaves the run's config alone


@pytest.mark.parametrize("features", ["cnn", "spatial"])
def test_export_matches_sb3_probabilities_on_a_thousand_observations(features, request):
    from sb3_contrib import MaskablePPO

    run = request.getfixturevalue("run") if features == "cnn" else request.getfixturevalue("spatial_run")["dir"]
    model = MaskablePPO.load(str(run / "checkpoints" / "latest.zip"), device="cpu")
    pol = NumpyPolicy(run / "policy.npz")
    if features == "cnn":  # the file format of cnn / mlp policies is the one of older exports
        assert set(pol.meta["architecture"]) == {"grid", "vec", "trunk"}
    env = duel_env()
    pol.check_env(env.layout)
    assert max_probability_gap(model, pol, env, 1000) < 1e-5


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
    assert "the network" in pol.explain(s, s.actor, None) and "%" in pol.last_reason


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


@pytest.mark.parametrize("path", sorted(Path("training/configs").rglob("*.yaml")) if Path("training/configs").exists() else [],
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
    # 12 epochs: at 6 the fit sometimes still sits on the plateau of the commonest action
    # (0.63 agreement) depending on the initial weights, which the layout's size changes
    stats = fit(model, d, epochs=12, batch_size=64, learning_rate=1e-3)
    after = agreement(model, d)
    assert before < 0.5 < 0.8 < after
    assert stats[-1]["loss"] < stats[0]["loss"]


def test_dagger_round_records_teacher_labels_on_the_students_states(tmp_path, run):
    """DAgger (training/pretrain.py): with a student, the teacher still labels every recorded
    decision (legal under its mask), but the student's actions are played, so the fights
    and the states differ from the teacher's own; with `teacher_share: 1` nothing changes."""
    from training.pretrain import collect

    c = cfg(tmp_path, opponents=["tactical"])
    student = run / "policy.npz"
    teacher = collect(c, 200, "tactical", workers=1, seed=9)
    same = collect(c, 200, "tactical", workers=1, seed=9, learner=student, teacher_share=1.0)
    assert np.array_equal(teacher.actions, same.actions)
    dag = collect(c, 200, "tactical", workers=1, seed=9, learner=student, teacher_share=0.0)
    assert len(dag) >= 200 and dag.masks[np.arange(len(dag)), dag.actions].all()
    n = min(len(dag), len(teacher))
    assert not np.array_equal(dag.obs["grid"][:n], teacher.obs["grid"][:n])
    # the barely trained student wins far less often than its teacher on the same fights
    assert dag.wins / dag.episodes < teacher.wins / teacher.episodes


def test_dagger_rounds_in_a_run_are_logged(tmp_path):
    d = train(cfg(tmp_path, run_name="dag", total_steps=0, eval_interval=0, opponents=["tactical"],
                  pretrain={"samples": 150, "epochs": 1, "workers": 1, "dagger_rounds": 1, "dagger_samples": 100}),
              progress=False)
    info = json.loads((d / "pretrain.json").read_text())
    assert info["samples"] >= 150 and len(info["dagger"]) == 1
    assert info["dagger"][0]["samples"] >= 100 and info["dagger"][0]["episodes"] >= 1
    assert not (d / "dagger-student.npz").exists()
    from rules.errors import ScenarioError
    with pytest.raises(ScenarioError, match=r"pretrain.dagger_teacher_share.*0.0 to 1.0"):
        load_config({"pretrain": {"dagger_teacher_share": 1.5}})


def test_spatial_move_logits_follow_the_grid():
    """`spatial`: the move logits are a convolution of the grid: a feature moved on the map
    moves the move-logit map with it (with the global grid branch switched off, so the
    latent is the same for both maps); the `cnn` policy's are not. The move head is trained
    (in the optimizer, reached by the gradient)."""
    import torch
    from sb3_contrib.common.maskable.policies import MaskableMultiInputActorCriticPolicy

    from training.features import SkirmishExtractor, SpatialMaskablePolicy

    env = duel_env()
    H, W = env.layout.height, env.layout.width
    torch.manual_seed(0)
    spatial = SpatialMaskablePolicy(env.observation_space, env.action_space, lambda _: 3e-4, net_arch=[32, 32])
    cnn = MaskableMultiInputActorCriticPolicy(env.observation_space, env.action_space, lambda _: 3e-4,
                                              net_arch=[32, 32], features_extractor_class=SkirmishExtractor,
                                              features_extractor_kwargs={"mode": "cnn"})
    with torch.no_grad():
        spatial.features_extractor.grid_fc[0].weight.zero_()

    def obs_with_enemy_at(x: int, y: int) -> dict:
        o = {k: torch.zeros((1, *sp.shape)) for k, sp in env.observation_space.items()}
        o["grid"][0, env.grid_channels.index("enemies"), y, x] = 1.0
        return o

    def move_map(policy, obs) -> np.ndarray:
        with torch.no_grad():
            latent = policy.mlp_extractor.forward_actor(policy.extract_features(obs))
            lg = policy.action_logits(latent) if policy is spatial else policy.action_net(latent)
        return lg[0, 1:1 + H * W].reshape(H, W).numpy()

    a, b = obs_with_enemy_at(5, 4), obs_with_enemy_at(8, 6)   # moved by (+3, +2)
    win_a, win_b = np.s_[2:H - 4, 2:W - 5], np.s_[4:H - 2, 5:W - 2]  # 2 cells off the map edges
    m_a, m_b = move_map(spatial, a), move_map(spatial, b)
    assert np.ptp(m_a[win_a]) > 1e-6                     # the feature shows in the move logits
    np.testing.assert_allclose(m_a[win_a], m_b[win_b], atol=1e-6)   # (so the argmax moves along too)
    assert not np.allclose(move_map(cnn, a)[win_a], move_map(cnn, b)[win_b], atol=1e-6)

    in_opt = {id(p) for g in spatial.optimizer.param_groups for p in g["params"]}
    assert all(id(p) in in_opt for p in spatial.parameters())
    obs, _ = env.reset(seed=0)
    mask = env.action_masks()
    move = int(np.flatnonzero(mask[1:1 + H * W])[0]) + 1
    spatial.zero_grad()
    _, logp, _ = spatial.evaluate_actions(spatial.obs_to_tensor(obs)[0], torch.tensor([move]), action_masks=mask[None])
    logp.sum().backward()
    for mod in (spatial.move_head, spatial.to_cells, spatial.features_extractor.cells_net[0]):
        assert mod.weight.grad is not None and mod.weight.grad.abs().sum() > 0
    with pytest.raises(RuntimeError, match="extract_features"):   # the cells of a pass are used once
        spatial.action_logits(torch.zeros(1, 32))


def test_unknown_features_mode_names_the_field_and_the_choices():
    from rules.errors import ScenarioError
    with pytest.raises(ScenarioError, match=r"features.*cnn, mlp or spatial"):
        load_config({"features": "conv"})
    with pytest.raises(ScenarioError, match=r"side.*first or random"):
        load_config({"side": "left"})


def test_random_side_run_collects_demos_for_both_teams(tmp_path):
    """`side: random`: the demonstrations (and the env the run trains on) put the agent on
    either team; the layout does not change, so the policy file is the same kind."""
    from training.pretrain import collect

    c = cfg(tmp_path, opponents=["tactical"], scenarios=["generated"], generator={"mirrored": True, "size": [10, 12]},
            map_size=[12, 16], max_enemies=4, max_allies=3, side="random")
    d = collect(c, 300, "tactical", workers=1, seed=3)
    assert len(d) >= 300 and d.masks[np.arange(len(d)), d.actions].all()
    first = collect(load_config({**c.to_dict(), "side": "first"}), 300, "tactical", workers=1, seed=3)
    n = min(len(d), len(first))
    assert not np.array_equal(d.obs["units"][:n], first.obs["units"][:n])
    # the env the run trains on draws its team per fight: both teams occur
    from training.train import make_env_fn
    env = make_env_fn(c, tmp_path, ["tactical"])()
    seen = {env.reset(seed=k)[1]["agent_team"] for k in range(10)}
    assert seen == {"red", "blue"}
