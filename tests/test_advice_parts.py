"""`advice_parts` (issue 31, method item 3): the parts of the scripted advisor's score -- hit odds,
expected damage, exposure -- per ranked action, in the observation (envs/advice.py).

The parts are the advisor's own numbers: an attack's equal the ruleset's `attack_odds` for it;
the exposure is 0 where no enemy sees or reaches the figure and above 0 in an enemy's line of
fire; actions the advisor did not rank get zeros; the option needs `advice`, leaves the advice
and every decision as they were, is part of the layout fingerprint, and an exported policy
rebuilds the same observation when it plays."""

from __future__ import annotations

import numpy as np
import pytest

from agents.base import Policy
from envs.describe import encoding_fingerprint
from envs.encoding import ADVICE_PARTS
from envs.skirmish import SkirmishEnv
from rules.actions import END_TURN
from rules.errors import TacticaError
from rules.ruleset import get_ruleset

SCENARIOS = {"metalface": "metalface/foundry", "cybergeneration": "cybergeneration/alley_brawl"}
HIT, DAMAGE, EXPOSURE = (ADVICE_PARTS.index(n) for n in ("hit", "damage", "exposure"))


def parts_env(ruleset: str, advisor: str = "tactical", **kw) -> SkirmishEnv:
    return SkirmishEnv(scenario=SCENARIOS[ruleset], opponent="tactical", advice=advisor, advice_parts=True, **kw)


def _ranked_attacks(env: SkirmishEnv, obs) -> list[int]:
    return [i for i in np.flatnonzero(obs["advice"][1] > 0) if env._legal[int(i)].kind == "attack"]


@pytest.mark.parametrize("ruleset", sorted(SCENARIOS))
def test_an_attacks_parts_are_the_rulesets_odds(ruleset):
    """At seeded decisions with attacks ranked, each ranked attack's `hit` is the ruleset's
    `attack_odds` p_hit for it and its `damage` min(1, exp_damage / the target's health left)."""
    rs = get_ruleset(ruleset)
    env = parts_env(ruleset, "bold")
    checked = 0
    for seed in range(6):
        obs, _ = env.reset(seed=seed)
        for _ in range(30):
            s = env.battle.state
            for i in _ranked_attacks(env, obs):
                a = env._legal[int(i)]
                odds = rs.attack_odds(s, s.actor, a)
                hp = max(1.0, rs.health(s.by_id[a.target])[0])
                assert obs["advice_parts"][HIT, i] == pytest.approx(odds["p_hit"], abs=1e-6), a
                assert obs["advice_parts"][DAMAGE, i] == pytest.approx(min(1.0, odds["exp_damage"] / hp), abs=1e-6), a
                checked += 1
            obs, _, t, tr, _ = env.step(int(obs["advice"][0].argmax()))
            if t or tr:
                break
        if checked >= 8:
            break
    assert checked >= 8, checked


class Idle(Policy):
    """An opponent that only ends its turns (its fire is still what the advisor weighs)."""

    name = "idle"

    def act(self, state, actor):
        return END_TURN


def _walled(ruleset: str, wall: bool) -> dict:
    """A two-figure map: the agent's ranged figure and a ranged enemy 6 cells apart, with a
    full wall between them (no sight, no path) or without (in its line of fire, no cover)."""
    mid = "#" if wall else "."
    rows = ["#" * 12] + [f"#....{mid}.....#" for _ in range(3)] + ["#" * 12]
    if ruleset == "metalface":
        me = {"id": "me", "name": "Me", "template": "metalface_trooper", "at": [2, 2]}
        foe = {"id": "foe", "name": "Foe", "template": "soldier", "at": [8, 2]}
    else:
        me = {"id": "me", "name": "Me", "template": "juve", "at": [2, 2], "weapons": ["dart_gun"],
              "drawn": "dart_gun"}
        foe = {"id": "foe", "name": "Foe", "template": "solo", "at": [8, 2]}
    return {"name": f"test/{ruleset}-wall-{wall}", "ruleset": ruleset, "round_limit": 5,
            "map": {"cell_m": 1.0, "rows": rows},
            "teams": [{"name": "us", "pc": True, "combatants": [me]}, {"name": "them", "combatants": [foe]}]}


@pytest.mark.parametrize("ruleset", sorted(SCENARIOS))
def test_exposure_is_zero_out_of_sight_and_positive_in_the_line_of_fire(ruleset):
    """The exposure of ending the turn where the figure stands (index 0) and of every move the
    advisor ranked: 0 behind a full wall the enemy cannot see through or pass; above 0 (and the
    same cell's on the open map) when the enemy has it in its line of fire."""
    def first_move(wall: bool):   # the figure's first decision (the enemy only ends its turns)
        env = SkirmishEnv(scenario=_walled(ruleset, wall), opponent=Idle(), advice="tactical", advice_parts=True)
        obs, _ = env.reset(seed=0)
        return env, obs

    hidden, obs = first_move(True)
    assert hidden.battle.state.actor.id == "me"
    ranked = obs["advice"][1] > 0
    assert ranked[0] and ranked.sum() >= 2
    assert (obs["advice_parts"][EXPOSURE] == 0).all()
    open_, obs = first_move(False)
    s = open_.battle.state
    assert s.actor.id == "me" and s.grid.los(s.by_id["foe"].pos, s.actor.pos)
    assert obs["advice"][1, 0] > 0 and obs["advice_parts"][EXPOSURE, 0] > 0


@pytest.mark.parametrize("ruleset", sorted(SCENARIOS))
def test_parts_are_zero_where_the_advisor_ranked_nothing_and_change_no_advice(ruleset):
    """Over a seeded fight: every part is 0 at an action the advisor did not rank (illegal ones
    included); the `advice` rows, masks, rewards and the rest of the observation equal an env
    without parts step by step (the parts come from the same ranking: no decision changes)."""
    with_parts, plain = parts_env(ruleset), SkirmishEnv(scenario=SCENARIOS[ruleset], opponent="tactical",
                                                        advice="tactical")
    a_obs, _ = with_parts.reset(seed=4)
    b_obs, _ = plain.reset(seed=4)
    nonzero = 0
    for _ in range(60):
        assert set(a_obs) == set(b_obs) | {"advice_parts"}
        for k in b_obs:
            assert np.array_equal(a_obs[k], b_obs[k]), k
        assert np.array_equal(with_parts.action_masks(), plain.action_masks())
        p = a_obs["advice_parts"]
        assert p.shape == (len(ADVICE_PARTS), with_parts.action_space.n) and p.dtype == np.float32
        assert (p[:, a_obs["advice"][1] == 0] == 0).all() and (p[:, ~with_parts.action_masks()] == 0).all()
        nonzero += int(p.any())
        act = int(a_obs["advice"][0].argmax())
        a_obs, ra, ta, tra, _ = with_parts.step(act)
        b_obs, rb, tb, trb, _ = plain.step(act)
        assert (ra, ta, tra) == (rb, tb, trb)
        if ta or tra:
            break
    assert nonzero >= 3


def test_parts_need_an_advisor_and_are_in_the_fingerprint():
    with pytest.raises(TacticaError, match="advice_parts"):
        SkirmishEnv(scenario="metalface/foundry", advice_parts=True)
    from rules.errors import ScenarioError
    from training.config import load_config
    with pytest.raises(ScenarioError, match="advice_parts"):
        load_config({"ruleset": "metalface", "features": "spatial", "advice_parts": True})
    assert load_config({"ruleset": "metalface", "features": "spatial", "advice": "bold",
                        "advice_parts": True}).advice_parts
    env = parts_env("metalface")
    plain = SkirmishEnv(scenario="metalface/foundry", opponent="tactical", advice="tactical")
    assert env.fingerprint()["advice_parts"] == list(ADVICE_PARTS) and "advice_parts" not in plain.fingerprint()
    assert encoding_fingerprint(env) != encoding_fingerprint(plain)
    assert env.observation_space["advice_parts"].shape == (3, env.action_space.n)


def test_a_snapshot_restores_the_parts():
    env = parts_env("cybergeneration")
    obs, _ = env.reset(seed=2)
    snap = env.clone_state()
    env.step(int(obs["advice"][0].argmax()))
    back, _ = env.restore_state(snap)
    assert np.array_equal(back["advice_parts"], obs["advice_parts"])


def test_an_exported_policy_with_parts_acts_on_the_envs_observation(tmp_path):
    """A tiny untrained spatial policy on an env with parts (gains on the parts set non-zero):
    the export records the parts; NumpyPolicy's probabilities match SB3's; when it plays on its
    own it builds the env's observation, parts included, and acts in a fight; an env without
    parts is refused naming `advice_parts` (and a policy without parts refuses an env with them)."""
    pytest.importorskip("sb3_contrib")
    import torch
    from sb3_contrib import MaskablePPO

    from agents.learned import NumpyPolicy
    from evaluation.simulate import play_fight
    from rules.scenario import load_scenario
    from tests.training_setup import max_probability_gap
    from training.export import export_model
    from training.features import SpatialMaskablePolicy

    env = SkirmishEnv(scenario="cybergeneration/alley_brawl", opponent="aggressive", advice="bold", advice_parts=True)
    model = MaskablePPO(SpatialMaskablePolicy, env, n_steps=64, seed=0, device="cpu",
                        policy_kwargs={"advice_gain": [5.0, 2.0], "net_arch": [16]})
    gain = model.policy.advice_gain
    assert np.allclose(gain.detach().numpy(), [5.0, 2.0, 0.0, 0.0, 0.0])
    with torch.no_grad():
        gain[2:] = torch.tensor([3.0, 4.0, -6.0])
    pol = NumpyPolicy(export_model(model, tmp_path / "parts.npz", env.fingerprint(), "test"))
    assert pol.advice_parts and pol.meta["architecture"]["advice"]["parts"] is True
    assert pol.w["advice.gain"].shape == (5,)
    assert max_probability_gap(model, pol, env, 40) < 1e-5
    # on its own (no env) at the env's first decision: the very observation the env made
    obs, _ = env.reset(seed=5)
    s = env.battle.state
    own = NumpyPolicy(tmp_path / "parts.npz")
    seen = {}
    probs = own.action_probs
    own.action_probs = lambda batch, mask: seen.update(obs=batch, mask=mask) or probs(batch, mask)
    a = own.act(s, s.actor)
    assert set(seen["obs"]) == set(obs)
    for k in obs:
        assert np.array_equal(seen["obs"][k][0], obs[k]), k
    assert obs["advice_parts"].any() and a in env._legal.values()
    pol.check_env(env.layout, "bold", False, True)
    with pytest.raises(TacticaError, match="advice_parts"):
        pol.check_env(env.layout, "bold")
    spec, _ = load_scenario("cybergeneration/alley_brawl")
    teams = [t.name for t in spec.teams]
    assert play_fight(spec, {teams[0]: str(tmp_path / "parts.npz"), teams[1]: "aggressive"}, 1, 0).actions > 0
    plain = SkirmishEnv(scenario="cybergeneration/alley_brawl", opponent="aggressive", advice="bold")
    no_parts = NumpyPolicy(export_model(MaskablePPO(SpatialMaskablePolicy, plain, n_steps=64, seed=0, device="cpu",
                                                    policy_kwargs={"net_arch": [16]}),
                                        tmp_path / "plain.npz", plain.fingerprint(), "test"))
    assert "parts" not in no_parts.meta["architecture"]["advice"]
    with pytest.raises(TacticaError, match="advice_parts"):
        no_parts.check_env(env.layout, "bold", False, True)


def test_a_training_run_with_parts_learns_their_gains(tmp_path):
    """`advice_parts: true` in a training config: cloning (with mirror images) and PPO run on the
    parts, and the exported policy carries them and the gains learnt for them (moved from 0)."""
    pytest.importorskip("sb3_contrib")
    from agents.learned import NumpyPolicy
    from tests.training_setup import cfg
    from training.train import train

    run = train(cfg(tmp_path, run_name="parts", ruleset="cybergeneration", scenarios=["cybergeneration/alley_brawl"],
                    map_size=[9, 14], max_enemies=2, max_allies=3, features="spatial", advice="bold",
                    advice_parts=True, total_steps=256, eval_interval=0, checkpoint_interval=256,
                    pretrain={"samples": 64, "workers": 1, "epochs": 1, "batch_size": 32, "mirror": True}),
                progress=False)
    pol = NumpyPolicy(run / "policy.npz")
    assert pol.advice_parts and pol.meta["fingerprint"]["advice_parts"] == list(ADVICE_PARTS)
    gain = pol.w["advice.gain"]
    assert gain.shape == (5,) and (gain[2:] != 0).all()
