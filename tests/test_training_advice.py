"""Training with an advisor in the observation, cloning a teacher, demonstrations and their
weights (split from tests/test_training.py): exports that match SB3, advice gains, the
advisor's candidates, the clock, overrules, mirrored demos, held-out demos, soft targets."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from agents.learned import NumpyPolicy  # noqa: E402
from envs.skirmish import SkirmishEnv  # noqa: E402
from rules.errors import TacticaError  # noqa: E402
from training.config import load_config  # noqa: E402
from training.train import train  # noqa: E402

from tests.training_setup import BASE, cfg, duel_env, max_probability_gap, plays_alone_as_in_env  # noqa: E402,F401


@pytest.fixture(scope="module")
def advice_run(tmp_path_factory) -> Path:
    """A `spatial` run with `advice: tactical`: a tiny cloning warm start and 256 PPO steps."""
    out = tmp_path_factory.mktemp("advice")
    return train(cfg(out, run_name="adv", features="spatial", advice="tactical", total_steps=256, eval_interval=0,
                     checkpoint_interval=256, pretrain={"samples": 64, "workers": 1, "epochs": 1, "batch_size": 32}),
                 progress=False)


def advice_env(advisor: str = "tactical") -> SkirmishEnv:
    return SkirmishEnv(scenario="cortex/duel", opponent="aggressive", map_size=(12, 16), max_enemies=1,
                       max_allies=0, advice=advisor)


def bold_advice_model(net_arch: int = 32, advice_only: bool = False):
    """A fresh spatial policy on the duel with bold's advice, for the cloning tests."""
    from sb3_contrib import MaskablePPO

    from training.features import SpatialMaskablePolicy
    return MaskablePPO(SpatialMaskablePolicy, advice_env("bold"), n_steps=64, seed=0, device="cpu",
                       policy_kwargs={"advice_gain": [5.0, 2.0], "advice_only": advice_only, "net_arch": [net_arch]})


def test_advice_policy_exports_matches_sb3_and_plays_on_its_advisor(advice_run):
    """An `advice` policy: the export records the advisor (fingerprint) and the two learnt
    gains; NumpyPolicy's probabilities match SB3's within 1e-5 on 300 observations; it
    rebuilds the advice itself when it plays (no env), says whether it followed it, and
    refuses an env without advice."""
    from sb3_contrib import MaskablePPO

    from evaluation.simulate import play_fight
    from rules.scenario import load_scenario

    pol = NumpyPolicy(advice_run / "policy.npz")
    assert pol.meta["fingerprint"]["advice"] == "tactical" and pol.meta["architecture"]["advice"]
    model = MaskablePPO.load(str(advice_run / "checkpoints" / "latest.zip"), device="cpu")
    np.testing.assert_allclose(pol.w["advice.gain"], model.policy.advice_gain.detach().numpy())
    env = advice_env()
    pol.check_env(env.layout, "tactical")
    with pytest.raises(TacticaError, match="does not match"):
        pol.check_env(env.layout)
    assert max_probability_gap(model, pol, env, 300) < 1e-5
    # playing without an env: the policy's own advisor gives the same rows as the env's
    env.reset(seed=3)
    s = env.battle.state
    own = NumpyPolicy(advice_run / "policy.npz")
    a = own.act(s, s.actor)
    assert "tactical advised" in own.last_reason and a in env._legal.values()
    p_env = pol.action_probs({k: v[None] for k, v in env._observe().items()}, env.action_masks()[None])[0]
    assert env._legal[int(np.argmax(p_env))] == a
    spec, _ = load_scenario("cortex/duel")
    import agents.base as base
    base.register_policy("test_adv_npz", lambda seed=None: NumpyPolicy(advice_run / "policy.npz", seed=seed))
    assert play_fight(spec, {"crew": "test_adv_npz", "outlaws": "aggressive"}, seed=1, index=0).rounds >= 1


def test_advice_config_errors_name_the_field():
    from rules.errors import ScenarioError
    with pytest.raises(ScenarioError, match=r"features.*spatial"):
        load_config({"advice": "tactical", "features": "cnn"})
    with pytest.raises(ScenarioError, match=r"advice.*null, tactical or bold"):
        load_config({"advice": "planner", "features": "spatial"})
    with pytest.raises(ScenarioError, match=r"advice_gain.*two numbers"):
        load_config({"advice": "tactical", "features": "spatial", "advice_gain": [1.0]})


def test_advice_gain_sets_where_the_policy_starts():
    """`advice_gain`: the starting weights of the advisor's pick and scores in the logits, so
    the untrained policy already puts that much more probability on the advisor's pick."""
    from sb3_contrib import MaskablePPO

    from training.features import SpatialMaskablePolicy

    env = advice_env()
    obs, _ = env.reset(seed=0)
    mask = env.action_masks()
    for gain in ([5.0, 2.0], [0.0, 0.0]):
        model = MaskablePPO(SpatialMaskablePolicy, env, n_steps=64, seed=0, device="cpu",
                            policy_kwargs={"advice_gain": gain, "net_arch": [16]})
        np.testing.assert_allclose(model.policy.advice_gain.detach().numpy(), gain)
        t_obs, _ = model.policy.obs_to_tensor(obs)
        p = model.policy.get_distribution(t_obs, action_masks=mask[None]).distribution.probs.detach().numpy()[0]
        pick = int(np.argmax(obs["advice"][0]))
        if gain[0]:   # e^7 against the near-zero logits of an untrained network
            assert p[pick] > 0.5 and np.argmax(p) == pick
        else:
            assert p[pick] < 2.0 / mask.sum()


def test_advice_only_chooses_among_the_advisors_candidates(tmp_path):
    """`advice_only`: the actions the advisor did not rank get no probability (in SB3 and in
    the exported NumpyPolicy alike), even with no weight on the advice, while every ranked
    legal action keeps some."""
    import torch
    from sb3_contrib import MaskablePPO

    from training.export import export_model
    from training.features import SpatialMaskablePolicy

    env = advice_env()
    model = MaskablePPO(SpatialMaskablePolicy, env, n_steps=64, seed=0, device="cpu",
                        policy_kwargs={"advice_gain": [0.0, 0.0], "advice_only": True, "net_arch": [16]})
    pol = NumpyPolicy(export_model(model, tmp_path / "only.npz", env.fingerprint(), "test"))
    assert pol.meta["architecture"]["advice"]["only"] is True
    obs, _ = env.reset(seed=1)
    seen = 0
    for _ in range(40):
        mask = env.action_masks()
        ranked = obs["advice"][1] > 0
        t_obs, _ = model.policy.obs_to_tensor(obs)
        with torch.no_grad():
            p = model.policy.get_distribution(t_obs, action_masks=mask[None]).distribution.probs.numpy()[0]
        p_np = pol.action_probs({k: v[None] for k, v in obs.items()}, mask[None])[0]
        np.testing.assert_allclose(p, p_np, atol=1e-5)
        assert p[~ranked].sum() < 1e-6 and (p[ranked & mask] > 0.01 / ranked.sum()).all()
        seen += int((mask & ~ranked).any())
        obs, _, t, tr, _ = env.step(int(np.argmax(p)))
        if t or tr:
            obs, _ = env.reset()
    assert seen > 10   # most decisions had legal actions the advisor did not rank


def test_clock_policy_exports_matches_sb3_and_refuses_an_env_without_the_clock(tmp_path):
    """`clock: true` trains on the rounds-left observation: the export's fingerprint says so,
    NumpyPolicy fills the clock itself when it plays (its probabilities match SB3's on the
    env's observations within 1e-5), and an env without the clock is refused."""
    from sb3_contrib import MaskablePPO

    run_dir = train(cfg(tmp_path, run_name="clock", clock=True, total_steps=256, eval_interval=0,
                        checkpoint_interval=256), progress=False)
    pol = NumpyPolicy(run_dir / "policy.npz")
    assert pol.clock and "clock" in pol.meta["fingerprint"]
    env = SkirmishEnv(scenario="cortex/duel", opponent="aggressive", map_size=(12, 16), max_enemies=1,
                      max_allies=0, clock=True)
    pol.check_env(env.layout, None, True)
    with pytest.raises(TacticaError, match="does not match"):
        pol.check_env(env.layout)
    model = MaskablePPO.load(str(run_dir / "checkpoints" / "latest.zip"), device="cpu")
    assert max_probability_gap(model, pol, env, 200) < 1e-5
    # on its own (no env) the policy builds the same observation, clock included
    plays_alone_as_in_env(pol, env, run_dir / "policy.npz")


def test_overrule_weight_teaches_the_departures_from_the_advisor(tmp_path):
    """`pretrain.overrule_weight`: tactical taught with bold's advice in the observation
    departs from bold's pick on some decisions (`overrules`); weighing those 8 times makes
    the clone copy more of them than plain cloning does from the same start and data."""
    from training.pretrain import collect, fit, overrules

    c = cfg(tmp_path, opponents=["tactical"], advice="bold", features="spatial")
    d = collect(c, 400, "tactical", workers=1, seed=5)
    over = overrules(d)
    assert 5 <= over.sum() < len(d) // 2
    assert (d.obs["advice"][over, 0, :].argmax(axis=1) != d.actions[over]).all()
    acc = {}
    for w in (1.0, 8.0):
        model = bold_advice_model()
        stats = fit(model, d, epochs=6, batch_size=64, learning_rate=1e-3, overrule_weight=w)
        assert stats[-1]["overrules"] == int(over.sum())
        acc[w] = stats[-1]["overrule_accuracy"]
    assert acc[8.0] > acc[1.0] + 0.1, acc
    from rules.errors import ScenarioError
    with pytest.raises(ScenarioError, match="overrule_weight"):
        load_config({"pretrain": {"overrule_weight": 0.5}})


def test_cloning_leaves_out_what_the_policy_cannot_choose_and_demos_round_trip(tmp_path):
    """With `advice_only`, a teacher's action the advisor did not rank has probability 0
    under the policy: fitting leaves it out (counted) instead of letting its ~1e8 loss drown
    the others (a first cortex_hu clone of planner-bold lost its whole fit that way); and
    demonstrations saved to `.npz` load back unchanged."""
    from dataclasses import replace

    from training.pretrain import Demos, collect, fit

    c = cfg(tmp_path, opponents=["tactical"], advice="bold", features="spatial", advice_only=True)
    d = collect(c, 120, "bold", workers=1, seed=2)
    free = d.masks & ~(d.obs["advice"][:, 1, :] > 0)
    i = int(np.flatnonzero(free.any(axis=1))[0])
    acts = d.actions.copy()
    acts[i] = int(np.flatnonzero(free[i])[0])
    bad = replace(d, actions=acts)
    model = bold_advice_model(16, advice_only=True)
    stats = fit(model, bad, epochs=2, batch_size=64)
    assert stats[-1]["unreachable"] == 1
    assert stats[-1]["loss"] < 10.0
    bad.save(tmp_path / "demos.npz")
    back = Demos.load(tmp_path / "demos.npz")
    assert np.array_equal(back.actions, bad.actions) and np.array_equal(back.masks, bad.masks)
    assert all(np.array_equal(back.obs[k], bad.obs[k]) for k in bad.obs)
    assert (back.episodes, back.wins, back.skipped) == (bad.episodes, bad.wins, bad.skipped)


def _reflected_duel(tmp_path: Path, fx: bool, fy: bool) -> str:
    """cortex/duel reflected left-right (`fx`) and/or up-down (`fy`), as a scenario file."""
    import yaml

    from rules.scenario import bundled_dir

    doc = yaml.safe_load((bundled_dir() / "cortex" / "duel.yaml").read_text())
    rows = doc["map"]["rows"]
    h, w = len(rows), len(rows[0])
    doc["map"]["rows"] = [r[::-1] if fx else r for r in (rows[::-1] if fy else rows)]
    for team in doc["teams"]:
        for c in team["combatants"]:
            x, y = c["at"]
            c["at"] = [w - 1 - x if fx else x, h - 1 - y if fy else y]
    p = tmp_path / f"duel-{int(fx)}{int(fy)}.yaml"
    p.write_text(yaml.safe_dump(doc))
    return str(p)


def test_mirrored_demos_are_the_decisions_of_the_reflected_fights(tmp_path):
    """`pretrain.mirror` (training/pretrain.py `mirrored`): the mirror image of a decision is
    the decision the env itself encodes on the reflected map, padded the same way (a 12x16
    map in a 14x20 layout stays in its corner): grid, units, cover, economy and mask equal
    exactly; the advisor scores every action but the moves alike and its best move as well
    (which of several equally good cells it ranks depends on cell order), and the reflected
    pick is legal there and the best of the reflected advice."""
    from training.pretrain import Demos, mirrored

    def first(path):
        env = SkirmishEnv(scenario=path, opponent="aggressive", map_size=(14, 20), max_enemies=1,
                          max_allies=0, advice="bold")
        obs, info = env.reset(seed=3)
        return env, obs, info["action_mask"].astype(bool)

    env, o, m = first(_reflected_duel(tmp_path, False, False))
    pick = int(o["advice"][0].argmax())
    d = Demos(obs={k: v[None] for k, v in o.items()}, masks=m[None], actions=np.array([pick]),
              returns=np.zeros(1, np.float32), episodes=1, wins=0, skipped=0, episode=np.zeros(1, np.int64))
    mm = mirrored(d, env.layout)
    assert len(mm) == 4 and np.array_equal(mm.episode, np.zeros(4))
    for i, (fx, fy) in enumerate([(True, False), (False, True), (True, True)], start=1):
        _, o2, m2 = first(_reflected_duel(tmp_path, fx, fy))
        for k in ("grid", "units", "cover", "economy"):
            assert np.array_equal(mm.obs[k][i], o2[k]), (fx, fy, k)
        assert np.array_equal(mm.masks[i], m2)
        a, b = mm.obs["advice"][i, 1], o2["advice"][1]
        moves = slice(1, 1 + env.layout.n_move)
        assert np.array_equal(np.delete(a, np.r_[moves]), np.delete(b, np.r_[moves]))  # end turn, attacks ...
        assert a[moves].max() == b[moves].max()
        assert a[mm.actions[i]] == a.max() == b.max() and m2[mm.actions[i]]
        assert mm.actions[i] != pick   # a move: the reflected cell is another index
    twice = mirrored(mm.subset(np.array([1])), env.layout)   # reflecting twice gives the decision back
    assert np.array_equal(twice.obs["grid"][1], o["grid"]) and twice.actions[1] == pick


def test_holdout_and_saved_demos_tell_learning_from_memorising(tmp_path):
    """`pretrain.holdout` keeps whole fights out of the fit and reports the clone's agreement
    on them each epoch; `pretrain.demos` refits saved demonstrations without collecting (a
    file from another layout, or no file, gets an error naming the field)."""
    from training.pretrain import collect

    c = cfg(tmp_path, opponents=["tactical"], advice="bold", features="spatial")
    d = collect(c, 240, "tactical", workers=2, seed=4)
    assert d.episode is not None and 0 <= d.episode.min() and d.episode.max() < d.episodes   # some fights end before the agent acts
    fit_d, held = d.split(0.3, seed=0)
    assert len(fit_d) + len(held) == len(d) and len(held) > 0
    assert not set(fit_d.episode) & set(held.episode)
    d.save(tmp_path / "saved.npz")
    out = train(cfg(tmp_path, run_name="ho", total_steps=0, eval_interval=0, advice="bold", features="spatial",
                    pretrain={"demos": str(tmp_path / "saved.npz"), "holdout": 0.3, "mirror": True, "epochs": 2,
                              "batch_size": 64}), progress=False)
    info = json.loads((out / "pretrain.json").read_text())
    assert info["samples"] == len(d) and info["held_out"] == len(held) and info["mirror"] is True
    assert info["collect_s"] < 5.0   # nothing was collected
    last = info["epochs"][-1]
    for k in ("held_out_accuracy", "held_out_advisor_accuracy", "held_out_overrules", "held_out_departures"):
        assert k in last
    assert 0.0 <= last["held_out_accuracy"] <= 1.0
    # experiments/demo_overrules.py reads the run folder: the same overrules, grouped by kind
    import importlib.util

    from training.pretrain import overrules
    spec = importlib.util.spec_from_file_location("demo_overrules", Path(__file__).resolve().parents[1]
                                                  / "experiments" / "demo_overrules.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    got = mod.main([str(out)])
    assert got["decisions"] == len(d) and got["overrules"] == int(overrules(d).sum()) > 0
    assert sum(got["groups"].values()) == got["overrules"]
    from rules.errors import ScenarioError
    with pytest.raises(TacticaError, match="pretrain.demos"):
        train(cfg(tmp_path, run_name="nofile", total_steps=0, eval_interval=0,
                  pretrain={"demos": str(tmp_path / "missing.npz")}), progress=False)
    with pytest.raises(TacticaError, match="pretrain.demos.*ruleset, map size"):
        train(cfg(tmp_path, run_name="other", total_steps=0, eval_interval=0,    # no advice: other shapes
                  pretrain={"demos": str(tmp_path / "saved.npz")}), progress=False)
    with pytest.raises(ScenarioError, match=r"pretrain.holdout.*0.0 to 0.9"):
        load_config({"pretrain": {"holdout": 0.95}})
    with pytest.raises(ScenarioError, match=r"pretrain.demos"):
        load_config({"pretrain": {"demos": 3}})


def test_soft_targets_pull_the_policy_towards_the_teachers_values(tmp_path):
    """`pretrain.value_weight`: where the teacher weighed several actions (`Demos.values`)
    and found them unequal, the policy is also pulled towards softmax(values / temperature).
    With values that always favour the advisor's second-ranked action, the clone picks that
    action far more often than one fitted on the picks alone, from the same start and data;
    decisions whose values are all equal teach nothing (counted out); a planner teacher's
    collection records its rollout values for the actions it weighed."""
    from dataclasses import replace

    from training.pretrain import collect, fit, predict

    c = cfg(tmp_path, opponents=["tactical"], advice="bold", features="spatial")
    d = collect(c, 200, "tactical", workers=1, seed=5)
    assert d.values is None                       # a scripted teacher weighs nothing
    scores = np.where(d.masks.astype(bool), d.obs["advice"][:, 1, :], 0.0)
    second = np.argsort(-scores, axis=1)[:, 1]
    ok = scores[np.arange(len(d)), second] > 0     # decisions with a second ranked action
    vals = np.full(d.masks.shape, np.nan, np.float32)
    rows = np.flatnonzero(ok)
    vals[rows, scores[rows].argmax(axis=1)] = 0.0
    vals[rows, second[rows]] = 0.2
    vals[rows[::3], second[rows[::3]]] = 0.0      # equal values (the planner saw no difference): left out
    taught = np.setdiff1d(rows, rows[::3])
    d = replace(d, values=vals)
    share = {}
    for w in (0.0, 2.0):
        model = bold_advice_model()
        stats = fit(model, d, epochs=12, batch_size=64, learning_rate=3e-3, value_weight=w, value_temperature=0.05)
        share[w] = float((predict(model, d)[taught] == second[taught]).mean())
        if w:
            # all the taught decisions but a tie or two in the advisor's float scores (CPU-dependent)
            assert len(taught) - 3 <= stats[-1]["weighed"] <= len(taught) and stats[-1]["value_loss"] < stats[0]["value_loss"]
    assert len(taught) >= 50 and share[2.0] > share[0.0] + 0.3, share
    p = collect(cfg(tmp_path, opponents=["tactical"], advice="tactical", features="spatial"), 30, "planner",
                workers=1, seed=4)
    weighed = np.isfinite(p.values).sum(axis=1)
    assert weighed.max() >= 2 and set(weighed) <= {0} | set(range(2, 10))
    took = np.isfinite(p.values[np.arange(len(p)), p.actions])
    assert took[weighed > 0].all()                # the action played is one of those weighed


def test_a_run_starts_from_an_exported_policy(advice_run, tmp_path):
    """`init_from`: a new run's network starts as the file's actor, so with no learning its own
    export has the file's weights exactly and plays as it does."""
    src = advice_run / "policy.npz"
    run = train(cfg(tmp_path, run_name="init", features="spatial", advice="tactical", total_steps=0, eval_interval=0,
                    init_from=str(src)), progress=False)
    a, b = np.load(src), np.load(run / "policy.npz")
    assert sorted(a.files) == sorted(b.files)
    for k in a.files:
        if k != "__meta__":
            np.testing.assert_array_equal(a[k], b[k], err_msg=k)
    # a fresh run (no init_from) has other weights: the check above can fail
    fresh = train(cfg(tmp_path, run_name="fresh", features="spatial", advice="tactical", total_steps=0,
                      eval_interval=0), progress=False)
    assert not np.array_equal(np.load(fresh / "policy.npz")["action.0.w"], a["action.0.w"])


@pytest.mark.parametrize("change,says", [({"advice": "bold"}, "another ruleset or observation layout"),
                                         ({"net_arch": [16, 16]}, "architecture differs"),
                                         ({"init_from": "nowhere.npz"}, "cannot read the policy file")])
def test_init_from_a_policy_that_does_not_fit_names_the_file_and_field(advice_run, tmp_path, change, says):
    c = cfg(tmp_path, **{"run_name": "bad", "features": "spatial", "advice": "tactical", "total_steps": 0,
                         "eval_interval": 0, "init_from": str(advice_run / "policy.npz"), **change})
    with pytest.raises(TacticaError) as e:
        train(c, progress=False)
    assert says in str(e.value) and "init_from" in str(e.value)
    assert not (tmp_path / "bad" / "checkpoints" / "latest.zip").exists()
