"""Rollout policy iteration (training/expert.py): the significance test, paired rollouts over
the env's clone and restore, labelling that does not depend on the number of workers, and
rounds that checkpoint and resume."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from agents.learned import NumpyPolicy  # noqa: E402
from rules.errors import TacticaError  # noqa: E402
from training import expert  # noqa: E402
from training.train import train  # noqa: E402

from tests.training_setup import cfg, duel_env  # noqa: E402

EXPERT = {"iterations": 1, "states": 6, "top_k": 3, "rollouts": 3, "workers": 1, "eval_episodes": 2, "mirror": False}


def tiny(tmp_path, **kw):
    return cfg(tmp_path, total_steps=0, eval_interval=0, run_name="ex", expert={**EXPERT, **kw.pop("expert", {})}, **kw)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """A finished one-round run (its exported policy is the student of the other tests)."""
    tmp = tmp_path_factory.mktemp("expert")
    return train(tiny(tmp), progress=False)


def test_only_a_paired_gap_beyond_z_standard_errors_overrules_the_networks_pick():
    # the first row is the network's pick; the second beats it by 0.2 on every paired rollout
    clear = np.array([[0.3, -0.1, 0.7, 0.1], [0.5, 0.1, 0.9, 0.3]])
    keep, label, values = expert.judge(clear, z=2.0)
    assert keep and label == 1 and values[1] > values[0]
    # a higher mean whose differences swing in sign is a tie with the pick; a candidate clearly
    # worse than the pick makes the decision worth keeping, as a confirmation of the pick
    noisy = np.array([[0.0, 0.0, 0.0, 0.0], [1.0, -0.6, 1.2, -0.8], [-0.5, -0.4, -0.6, -0.5]])
    assert noisy[1].mean() > noisy[0].mean()
    keep, label, values = expert.judge(noisy, z=2.0)
    assert keep and label == 0 and values[1] == values[0] and values[2] < values[0]
    assert expert.judge(noisy, z=0.0)[1] == 1   # at z = 0 any gap counts
    # nothing differs from the pick beyond noise: not kept
    assert not expert.judge(noisy[:2], z=2.0)[0]
    assert not expert.judge(np.zeros((3, 5)), z=0.0)[0]


def test_candidates_are_the_networks_top_k_and_with_the_option_its_advisors_pick():
    """The network's `top_k` legal actions by probability, its pick first, never ending the turn
    but for the pick; `advisor_candidate` adds the advisor's pick where it is not among them and
    is legal, ending the turn included (as the planner weighs its guide's pick)."""
    p = np.array([0.05, 0.5, 0.3, 0.1, 0.05])
    mask = np.array([True, True, True, True, False])
    ends = lambda i: i == 0   # noqa: E731 - action 0 ends the turn
    one_hot = lambda i: np.eye(5)[i]   # noqa: E731 - the advice's row 0
    assert expert.candidates(p, mask, 1, ends, 2) == [1, 2]
    assert expert.candidates(p, mask, 1, ends, 2, one_hot(3)) == [1, 2, 3]
    assert expert.candidates(p, mask, 1, ends, 2, one_hot(2)) == [1, 2]         # already a candidate
    assert expert.candidates(p, mask, 1, ends, 2, one_hot(0)) == [1, 2, 0]      # the advisor would end the turn
    assert expert.candidates(p, mask, 1, ends, 2, one_hot(4)) == [1, 2]         # not legal
    assert expert.candidates(p, mask, 1, ends, 2, np.zeros(5)) == [1, 2]        # no advice at this decision
    assert expert.candidates(p, mask, 1, ends, 3) == [1, 2, 3]                  # end turn is not an alternative
    assert expert.candidates(np.array([0.6, 0.3, 0.1, 0.0, 0.0]), mask, 0, ends, 2) == [0, 1]   # but the pick may end it


def test_rollouts_are_paired_and_leave_the_decision_as_it_was(run):
    env = duel_env()
    net = NumpyPolicy(run / "policy.npz")
    obs, info = env.reset(seed=5)
    legal = np.flatnonzero(info["action_mask"])
    a, b = int(legal[0]), int(legal[-1])
    before = env.clone_state()
    sv = expert.rollout_values(env, net, [a, a, b], 4, (7, 1), horizon=2)
    assert sv is not None and sv.shape == (3, 4)
    # the same action twice meets the same dice in every rollout: identical scores, while the
    # rollouts themselves differ (the dice differ from one rollout to the next)
    assert np.array_equal(sv[0], sv[1]) and len(set(sv[0])) > 1
    # and the same seed gives the same scores again
    assert np.array_equal(sv, expert.rollout_values(env, net, [a, a, b], 4, (7, 1), horizon=2))
    # the env is back at the decision: the next step plays exactly as from the snapshot
    o1, r1, *_ = env.step(b)
    env.restore_state(before)
    o2, r2, *_ = env.step(b)
    assert r1 == r2 and all(np.array_equal(o1[k], o2[k]) for k in o1)



def test_a_rollout_can_be_scored_by_the_rewards_training_pays(run):
    """`reward_weight`: the env's rewards summed from the candidate's step to the rollout's end
    (here damage shaping and the fight's result), added to `position_weight` x the planner's
    estimate; the defaults score by the estimate alone."""
    from envs.skirmish import SkirmishEnv

    from agents.planner import TurnDice, evaluate

    env = SkirmishEnv(scenario="cortex/duel", opponent="aggressive", map_size=(12, 16), max_enemies=1, max_allies=0,
                      reward={"damage_dealt": 0.5, "damage_taken": 0.25, "draw": -1.0})
    net = NumpyPolicy(run / "policy.npz")
    obs, info = env.reset(seed=3)
    legal = [int(i) for i in np.flatnonzero(info["action_mask"])]
    cands = [legal[0], legal[-1]]
    snap = env.clone_state()
    pos = expert.rollout_values(env, net, cands, 3, (9, 2), horizon=3)
    rew = expert.rollout_values(env, net, cands, 3, (9, 2), horizon=3, position_weight=0.0, reward_weight=1.0)
    both = expert.rollout_values(env, net, cands, 3, (9, 2), horizon=3, position_weight=0.5, reward_weight=2.0)
    assert np.allclose(both, 0.5 * pos + 2.0 * rew)
    assert not np.allclose(rew, pos) and np.any(rew != 0)
    # the same rollout replayed by hand: rewards summed, and the estimate at its end
    s0 = env.battle.state
    stop = (s0.round + 3, s0.turn_index)
    for i, c in enumerate(cands):
        env.restore_state(snap)
        env.battle.dice = TurnDice(env.battle.state, (9, 2, 1))
        obs, total, term, trunc, info = env.step(c)
        while not (term or trunc) and (env.battle.state.round, env.battle.state.turn_index) < stop:
            p = net.action_probs({k: v[None] for k, v in obs.items()}, info["action_mask"][None])[0]
            obs, r, term, trunc, info = env.step(int(np.argmax(p)))
            total += r
        assert rew[i, 1] == pytest.approx(total)
        assert pos[i, 1] == pytest.approx(evaluate(env.battle.ruleset, env.battle.state, env.agent_team))

def test_labels_keep_only_significant_decisions_with_their_values(run, monkeypatch):
    c = tiny(run.parent / "lab", expert={"states": 4, "rollouts": 4, "horizon": 2})
    monkeypatch.setattr(expert, "CHUNK", 2)
    demos, counts = expert.label(c, str(run / "policy.npz"), 0)
    assert counts["examined"] == 4
    assert counts["kept"] + counts["equal"] <= 4
    assert demos is not None and len(demos) == counts["kept"] >= 1
    v = demos.values
    for i, act in enumerate(demos.actions):
        weighed = np.flatnonzero(np.isfinite(v[i]))
        assert 2 <= len(weighed) <= 3 and demos.masks[i, weighed].all()
        assert v[i, act] == v[i, weighed].max()   # the label has the best value (the pick on a tie)
    # two workers give the same labels: each chunk is seeded by (seed, round, chunk)
    c2 = tiny(run.parent / "lab2", expert={"states": 4, "rollouts": 4, "horizon": 2, "workers": 2})
    demos2, counts2 = expert.label(c2, str(run / "policy.npz"), 0)
    assert counts2 == counts
    assert np.array_equal(demos.actions, demos2.actions)
    assert np.array_equal(demos.values, demos2.values, equal_nan=True)


def test_close_calls_examine_only_the_decisions_where_the_network_hesitates(run, monkeypatch):
    """`expert.close_calls`: only decisions whose two most likely legal actions are less than it apart in
    probability are looked at (where `selective` would search); the others are played and not counted."""
    p = np.array([0.5, 0.35, 0.15, 0.0])
    mask = np.array([True, True, True, False])
    assert expert.close_call(p, mask, 0.2) and not expert.close_call(p, mask, 0.1)
    assert expert.close_call(p, mask, 0.0)                         # 0: every decision
    assert not expert.close_call(p, np.array([True, False, False, False]), 0.9)   # one legal action: no call
    assert not expert.close_call(np.array([0.3, 0.7]), np.array([False, True]), 0.9)   # masked actions do not count
    gaps: list[float] = []
    looked: list[float] = []
    real = expert.close_call

    def spy(p, mask, below):
        top = np.sort(p[mask])[::-1]
        gap = float(top[0] - top[1]) if len(top) >= 2 else 1.0
        gaps.append(gap)
        ok = real(p, mask, below)
        if ok:
            looked.append(gap)
        return ok

    monkeypatch.setattr(expert, "close_call", spy)
    monkeypatch.setattr(expert, "rollout_values", lambda *a, **k: None)   # every look a tie: counted, not kept
    # every decision looked at (close_calls 1): the gaps of the first decisions, in order of play
    expert.label(tiny(run.parent / "all", expert={"states": 3, "rollouts": 2, "close_calls": 1.0}), str(run / "policy.npz"), 0)
    below = max(gaps[:3])   # the widest of the first three decisions is not a close call at this bar
    gaps.clear()
    looked.clear()
    c = tiny(run.parent / "close", expert={"states": 3, "rollouts": 2, "close_calls": below})
    demos, counts = expert.label(c, str(run / "policy.npz"), 0)
    assert demos is None and counts["examined"] == counts["equal"] == 3 == len(looked)
    assert all(g < below for g in looked)
    assert any(g >= below for g in gaps)   # the decisions it was surer of were passed over


def test_an_overrule_is_confirmed_only_by_the_same_winner_on_fresh_dice(monkeypatch):
    """`expert.confirm`: the overrule's candidate must beat the pick by more than `z` standard
    errors again on `confirm` fresh rollouts (seeded apart from the first test's); its values are
    then those rollouts' means."""
    again = {"samples": None}
    seen = []

    def fake(env, net, cands, rollouts, seed, horizon, *a):
        seen.append((rollouts, seed))
        return again["samples"]

    monkeypatch.setattr(expert, "rollout_values", fake)
    ex = {"confirm": 5, "horizon": 1, "position_weight": 1.0, "reward_weight": 0.0, "z": 2.0}
    pick, worse, better = [0.0, 0.1, 0.0, 0.1, 0.0], [-0.5, -0.4, -0.5, -0.4, -0.5], [0.3, 0.4, 0.3, 0.4, 0.3]
    again["samples"] = np.array([pick, worse, better])
    values, played = expert.confirmed(None, None, [7, 8, 9], 2, ex, (11, 3, 1))
    assert seen == [(5, (11, 3, 1))] and played == 15
    assert values is not None and values[2] == pytest.approx(0.34) and values[0] == pytest.approx(0.04)
    # another candidate wins the second test, or none beats the pick beyond noise: not confirmed
    assert expert.confirmed(None, None, [7, 8, 9], 1, ex, (11, 3, 1))[0] is None
    again["samples"] = np.array([pick, worse, [0.5, -0.3, 0.4, -0.2, 0.1]])
    assert expert.confirmed(None, None, [7, 8, 9], 2, ex, (11, 3, 1))[0] is None
    # the first two rollouts alike for every candidate: not confirmed, 2 rollouts each played
    again["samples"] = None
    assert expert.confirmed(None, None, [7, 8, 9], 2, ex, (11, 3, 1)) == (None, 6)


def test_labels_drop_the_overrules_fresh_dice_do_not_confirm(run, monkeypatch):
    """With `expert.confirm`, a decision whose first test overrules the pick is kept only when
    the second agrees; decisions where the pick wins are kept without one. Rollouts are faked: the
    first test (a 2-part seed) says the second candidate beats the pick, and the second test (a
    3-part seed) says so at even decisions only."""
    def fake(env, net, cands, rollouts, seed, horizon, *a):
        k = len(cands)
        base = np.tile(np.linspace(0.0, 0.1, rollouts), (k, 1))
        if len(seed) == 2 or seed[1] % 2 == 0:
            base[1] += 0.5
        return base

    monkeypatch.setattr(expert, "rollout_values", fake)
    c = tiny(run.parent / "conf0", expert={"states": 6, "rollouts": 4})
    demos0, counts0 = expert.label(c, str(run / "policy.npz"), 0)
    assert counts0["kept"] == counts0["overruled"] == 6 and counts0["unconfirmed"] == 0
    c = tiny(run.parent / "conf1", expert={"states": 6, "rollouts": 4, "confirm": 3})
    demos, counts = expert.label(c, str(run / "policy.npz"), 0)
    assert counts["examined"] == 6 and counts["kept"] == counts["overruled"] == 3 and counts["unconfirmed"] == 3
    assert len(demos) == 3
    assert counts["rollouts"] == counts0["rollouts"] + sum(3 * int((demos0.masks[i] & np.isfinite(demos0.values[i])).sum())
                                                           for i in range(6))
    for i, act in enumerate(demos.actions):
        assert demos.values[i, act] == pytest.approx(0.55)   # the second test's mean (3 rollouts: 0.5 + 0.05)


def test_a_round_writes_its_row_and_checkpoint_and_resume_goes_on(run):
    rows = list(csv.DictReader(open(run / "expert.csv")))
    assert [r["round"] for r in rows] == ["1"]
    assert int(rows[0]["examined"]) == EXPERT["states"]
    assert 0.0 <= float(rows[0]["win_rate_vs_aggressive"]) <= 1.0
    meta = json.loads((run / "checkpoints" / "latest.json").read_text())
    assert meta["expert_iteration"] == 1 and meta["step"] == 0
    # --resume with more rounds plays only the new one
    from training.config import load_config
    from training.overrides import apply_sets

    c = apply_sets(load_config(run / "config.yaml"), ["expert.iterations=2"], resume=True)
    train(c, resume=True, progress=False)
    rows = list(csv.DictReader(open(run / "expert.csv")))
    assert [r["round"] for r in rows] == ["1", "2"]
    assert json.loads((run / "checkpoints" / "latest.json").read_text())["expert_iteration"] == 2


def test_the_advisor_can_play_the_rollouts_as_in_the_planners_search():
    """`rollout_player: advisor`: after the candidate, the agent's side plays the env's advisor's
    picks (the advice's row 0: here `tactical`, the model inside `planner`'s rollouts), not the
    network's; the network is not asked where the advisor has a pick. Replayed by hand, step by
    step, the advisor's picks give the same scores."""
    from envs.skirmish import SkirmishEnv

    from agents.planner import TurnDice, evaluate

    env = SkirmishEnv(scenario="cortex/duel", opponent="tactical", map_size=(12, 16), max_enemies=1, max_allies=0,
                      advice="tactical")

    class Refuses:
        def action_probs(self, obs, mask):
            raise AssertionError("the network was asked")

    obs, info = env.reset(seed=4)
    legal = [int(i) for i in np.flatnonzero(info["action_mask"])]
    cands = [legal[0], legal[-1]]
    snap = env.clone_state()
    sv = expert.rollout_values(env, Refuses(), cands, 3, (5, 1), horizon=2, advisor=True)
    assert sv is not None and sv.shape == (2, 3) and len(set(sv.ravel())) > 1
    s0 = env.battle.state
    stop = (s0.round + 2, s0.turn_index)
    for i, c in enumerate(cands):
        for j in range(3):
            env.restore_state(snap)
            env.battle.dice = TurnDice(env.battle.state, (5, 1, j))
            obs, _, term, trunc, info = env.step(c)
            plays = 0
            while not (term or trunc) and (env.battle.state.round, env.battle.state.turn_index) < stop:
                pick = env.advice_pick
                a = [k for k, x in env._legal.items() if x == pick][0]
                assert obs["advice"][0][a] == 1.0
                obs, _, term, trunc, info = env.step(a)
                plays += 1
            assert sv[i, j] == evaluate(env.battle.ruleset, env.battle.state, env.agent_team)
        assert plays > 0
    # without the option the network plays them
    env.restore_state(snap)
    with pytest.raises(AssertionError, match="network was asked"):
        expert.rollout_values(env, Refuses(), cands, 3, (5, 1), horizon=2)


@pytest.mark.parametrize("key,value", [("top_k", 1), ("rollouts", 1), ("explore", 1.5), ("z", -1.0), ("confirm", -1),
                                       ("rollout_player", "planner"), ("close_calls", 1.5)])
def test_bad_expert_settings_name_the_field(tmp_path, key, value):
    with pytest.raises(TacticaError) as e:
        tiny(tmp_path, expert={key: value})
    assert f"expert.{key}" in str(e.value)


@pytest.mark.parametrize("settings,field", [({"anchor_soft": True}, "anchor_soft"), ({"confirm": 1}, "confirm"),
                                            ({"anchor": True, "anchor_soft": True, "value_weight": 0.0}, "anchor_soft"),
                                            ({"position_weight": 0.0}, "position_weight"),
                                            ({"reward_weight": -1.0}, "reward_weight"),
                                            ({"advisor_candidate": True}, "advisor_candidate"),
                                            ({"rollout_player": "advisor"}, "rollout_player"),
                                            ({"soft_labels": True, "value_weight": 0.0}, "soft_labels")])
def test_settings_that_would_do_nothing_are_refused(tmp_path, settings, field):
    """A soft anchor without the anchor, or without the soft targets' weight, would fit nothing on
    the anchor's decisions, nor would soft labels without that weight on the kept ones; rollouts scored with both weights 0 would all tie; the advisor's pick
    as a candidate needs an advisor (this env has none); one rollout cannot confirm an overrule."""
    with pytest.raises(TacticaError) as e:
        tiny(tmp_path, expert=settings)
    assert f"expert.{field}" in str(e.value)
    tiny(tmp_path, expert={"anchor": True, "anchor_soft": True, "position_weight": 0.0, "reward_weight": 1.0})


def record_fits(monkeypatch, key: str) -> list[tuple]:
    """Every `training.pretrain.fit` call from here on, as (demonstrations, the keyword `key`)."""
    import training.pretrain as pretrain

    calls = []
    real_fit = pretrain.fit

    def recording_fit(model, demos, **kw):
        calls.append((len(demos), kw.get(key)))
        return real_fit(model, demos, **kw)

    monkeypatch.setattr(pretrain, "fit", recording_fit)
    return calls


def test_anchor_refits_on_the_warm_starts_demonstrations_too(tmp_path, monkeypatch):
    from training.pretrain import Demos

    sizes = record_fits(monkeypatch, "overrule_weight")
    c = tiny(tmp_path, pretrain={"samples": 30, "teacher": "aggressive", "epochs": 1, "workers": 1},
             expert={"states": 12, "rollouts": 4, "horizon": 2, "anchor": True, "overrule_weight": 3.0})
    run = train(c, progress=False)
    warm, kept = Demos.load(run / "demos.npz"), Demos.load(run / "expert-demos.npz")
    assert len(kept) >= 1
    # the warm start's fit, then the round's refit on both sets, overrules weighted
    assert sizes[-1] == (len(warm) + len(kept), 3.0)


def test_a_soft_anchor_pulls_towards_the_networks_own_distribution_not_its_picks(tmp_path, monkeypatch):
    """`anchor_soft`: the warm start's decisions are fitted towards the network's probabilities as
    they were before the first refit (kept in expert-anchor.npz), with no cross-entropy on its
    picks. Fitting a network on such rows alone leaves it where it is (its gradient is zero
    there); fitting it on its own picks (the hard anchor) sharpens it and moves it."""
    from training.pretrain import Demos, fit, probabilities

    calls = record_fits(monkeypatch, "soft_only")
    c = tiny(tmp_path, pretrain={"samples": 30, "teacher": "aggressive", "epochs": 0, "workers": 1},
             expert={"states": 12, "rollouts": 4, "horizon": 2, "anchor": True, "anchor_soft": True,
                     "temperature": 0.1})
    run = train(c, progress=False)
    warm, anchor = Demos.load(run / "demos.npz"), Demos.load(run / "expert-anchor.npz")
    kept = Demos.load(run / "expert-demos.npz")
    assert len(anchor) == len(warm) and np.array_equal(anchor.actions, warm.actions)
    # the refit: the anchor rows first, flagged soft only; the kept decisions keep their picks
    n, soft_only = calls[-1]
    assert n == len(warm) + len(kept)
    assert soft_only.sum() == len(warm) and soft_only[:len(warm)].all() and not soft_only[len(warm):].any()

    # the anchor's soft targets are the start network's probabilities: with `epochs: 0` that is
    # the run's first network, which the model rebuilt from the checkpoint is not (it was refitted),
    # so rebuild the start: a fresh run of the same config with no expert rounds
    c0 = tiny(tmp_path / "start", pretrain={"samples": 30, "teacher": "aggressive", "epochs": 0, "workers": 1},
              expert={"iterations": 0})
    from sb3_contrib import MaskablePPO
    start = train(c0, progress=False)
    model = MaskablePPO.load(start / "checkpoints" / "latest.zip", device="cpu")
    p = probabilities(model, anchor)
    target = np.where(np.isfinite(anchor.values), np.exp(anchor.values / 0.1), 0.0)
    assert np.allclose(target, np.where(np.isfinite(anchor.values), p, 0.0), atol=1e-4)
    assert np.all(np.isnan(anchor.values[~anchor.masks]))

    # soft-only rows whose targets are the network's own distribution leave it unmoved; the
    # same rows fitted on their picks move it
    # (plain gradient steps here: Adam would scale even a float-rounding gradient up to a step of
    # the learning rate)
    import copy

    import torch
    monkeypatch.setattr(torch.optim, "Adam", torch.optim.SGD)

    from training.expert import soft_anchor
    own = soft_anchor(model, warm, 0.1)
    before = probabilities(model, own)
    hard = copy.deepcopy(model)
    fit(model, own, epochs=2, batch_size=16, learning_rate=0.1, vf_coef=0.0, value_weight=1.0,
        value_temperature=0.1, soft_only=np.ones(len(own), dtype=bool))
    fit(hard, own, epochs=2, batch_size=16, learning_rate=0.1, vf_coef=0.0)
    moved_soft = np.abs(probabilities(model, own) - before).max()
    moved_hard = np.abs(probabilities(hard, own) - before).max()
    assert moved_soft < 1e-4 < 1e-2 < moved_hard


def test_soft_labels_fit_every_weighed_decision_by_its_values_alone(tmp_path, monkeypatch):
    """`soft_labels` with `z: 0`: every decision whose candidates' rollouts differ at all is kept
    at its raw means (no candidate is given the pick's value), and the refit pulls it towards
    softmax(values / temperature) only: no cross-entropy on the best candidate. Beside a hard
    anchor, the anchor's rows keep their picks."""
    from training.pretrain import Demos

    calls = record_fits(monkeypatch, "soft_only")
    c = tiny(tmp_path, pretrain={"samples": 30, "teacher": "aggressive", "epochs": 0, "workers": 1},
             expert={"states": 12, "rollouts": 4, "horizon": 2, "z": 0.0, "soft_labels": True, "anchor": True})
    run = train(c, progress=False)
    warm, kept = Demos.load(run / "demos.npz"), Demos.load(run / "expert-demos.npz")
    rows = list(csv.DictReader((run / "expert.csv").open()))
    # at z = 0 every examined decision the first two rollouts do not tie is kept
    assert int(rows[0]["kept"]) == int(rows[0]["examined"]) - int(rows[0]["equal"]) == len(kept) >= 1
    # raw means: every kept decision's candidates have values and they are not all one
    for v in kept.values:
        w = v[np.isfinite(v)]
        assert len(w) >= 2 and w.max() > w.min()
    n, soft_only = calls[-1]
    assert n == len(warm) + len(kept)
    assert not soft_only[:len(warm)].any() and soft_only[len(warm):].all()
