"""Conformance of the environments over every registered id and every ruleset.

Gymnasium's and stable-baselines3's env checkers, a same-seed double rollout, pickling,
both render modes, exact masks, illegal actions and the PettingZoo API and seed tests.
"""

from __future__ import annotations

import pickle
import warnings

import gymnasium as gym
import numpy as np
import pytest

import envs  # noqa: F401  (registers the ids)
from envs.encoding import layout_for
from envs.multiagent import SkirmishAEC
from envs.registration import registered_ids
from envs.skirmish import SkirmishEnv
from rules.errors import TacticaError
from rules.ruleset import available_rulesets, get_ruleset
from rules.scenario import bundled_scenarios, load_scenario

IDS = sorted(registered_ids())
OPP = "aggressive"  # a fast opponent keeps the suite short; the default (tactical) is tested once


def first_scenario(ruleset: str) -> str:
    return next(s for s in bundled_scenarios() if load_scenario(s)[0].ruleset == ruleset)


def make(env_id: str, **kw) -> gym.Env:
    kw.setdefault("opponent", OPP)
    if env_id == "tactica/Skirmish-v0":
        kw.setdefault("scenario", "cortex/duel")
    return gym.make(env_id, disable_env_checker=True, **kw).unwrapped


def rollout(env: gym.Env, seed: int, steps: int = 60):
    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    out = [(obs, 0.0)]
    for _ in range(steps):
        legal = np.flatnonzero(env.action_masks())
        obs, r, term, trunc, info = env.step(int(rng.choice(legal)))
        out.append((obs, r))
        if term or trunc:
            obs, info = env.reset()
            out.append((obs, 0.0))
    return out


@pytest.mark.parametrize("env_id", IDS)
def test_gymnasium_and_sb3_env_checkers(env_id):
    from gymnasium.utils.env_checker import check_env as gym_check
    from stable_baselines3.common.env_checker import check_env as sb3_check

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gym_check(make(env_id), skip_render_check=True)
        sb3_check(make(env_id), warn=False)


@pytest.mark.parametrize("env_id", IDS)
def test_same_seed_same_rollout_and_pickle_and_render(env_id):
    a = rollout(make(env_id), 7)
    b = rollout(make(env_id), 7)
    assert len(a) == len(b)
    for (oa, ra), (ob, rb) in zip(a, b):
        assert ra == rb
        for k in oa:
            np.testing.assert_array_equal(oa[k], ob[k])
    env = make(env_id, render_mode="ansi")
    env.reset(seed=3)
    env.step(int(np.flatnonzero(env.action_masks())[-1]))
    clone = pickle.loads(pickle.dumps(env))
    assert clone.render() == env.render()
    assert "round" in env.render()
    img = make(env_id, render_mode="rgb_array")
    img.reset(seed=1)
    frame = img.render()
    assert frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3 and frame.std() > 0


@pytest.mark.parametrize("ruleset", available_rulesets())
def test_every_ruleset_has_an_env_and_a_generic_id(ruleset):
    env = gym.make("tactica/Skirmish-v0", scenario=first_scenario(ruleset), opponent=OPP,
                   disable_env_checker=True).unwrapped
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    assert len(env.economy_names) == len(get_ruleset(ruleset).economy_features[:32])


def test_mask_is_exact():
    """Every masked index stands for a legal action and every expressible legal action is masked."""
    env = SkirmishEnv(scenario="cortex/saloon", opponent=OPP)
    rng = np.random.default_rng(0)
    env.reset(seed=0)
    for _ in range(150):
        s = env.battle.state
        actor = s.actor
        legal = env.rs.legal_actions(s)
        mask = env.action_masks()
        idx = {env.layout.encode(s, actor, a) for a in legal} - {None}
        assert set(np.flatnonzero(mask)) == idx
        for i in np.flatnonzero(mask):
            assert env._legal[int(i)] in legal
            assert env.describe_action(int(i))
        _, _, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        np.testing.assert_array_equal(info["action_mask"].astype(bool), env.action_masks())
        if term or trunc:
            env.reset()


def test_illegal_action_ends_episode_without_corrupting_state_and_step_after_end_fails():
    env = SkirmishEnv(scenario="cortex/duel", opponent=OPP)
    env.reset(seed=0)
    before = repr(env.battle.state.combatants)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    obs, r, term, trunc, info = env.step(illegal)
    assert term and not trunc and r == -1.0 and info["illegal_action"]
    assert repr(env.battle.state.combatants) == before
    with pytest.raises(TacticaError):
        env.step(0)
    with pytest.raises(TacticaError):
        SkirmishEnv(scenario="cortex/duel", opponent=OPP).step(0)


def test_win_reward_and_truncation():
    env = SkirmishEnv(scenario="cortex/duel", opponent="random", reward={"damage_dealt": 0.5})
    rng = np.random.default_rng(1)
    outcomes = set()
    for ep in range(6):
        env.reset(seed=ep)
        done = False
        total = 0.0
        while not done:
            m = env.action_masks()
            attacks = [i for i in np.flatnonzero(m) if i >= env.layout.off_enemy]
            a = int(rng.choice(attacks)) if attacks else int(rng.choice(np.flatnonzero(m)))
            _, r, term, trunc, info = env.step(a)
            total += r
            done = term or trunc
        s = env.battle.state
        if s.winner == env.agent_team:
            assert term and total >= 1.0
        elif s.winner is None:
            assert trunc == (s.end_reason == "round limit")
        else:
            assert term and total <= 0.5 - 1.0 + 1e-9
        outcomes.add(s.winner)
    assert env.agent_team in outcomes


def test_action_layout_is_derived_from_the_ruleset():
    rs = get_ruleset("cortex")
    lay = layout_for(rs, 10, 12, 3, 2)
    assert lay.n_actions == 1 + 120 + 3 * len(lay.enemy_templates) + len(lay.self_templates) \
        + 2 * len(lay.ally_templates) + len(rs.answers)
    assert lay.answer_templates == rs.answers and "leap" in rs.answers
    assert ("attack", 0, "called:head") in lay.enemy_templates
    assert ("defend", -1, "block") in lay.self_templates
    assert lay.describe(0) == "end turn" and lay.describe(1 + 12 * 2 + 5) == "move to (5, 2)"
    assert "enemy slot 2" in lay.describe(lay.off_enemy + 2 * len(lay.enemy_templates))


def test_default_opponent_is_tactical():
    env = gym.make("tactica/CortexDuel-v2", disable_env_checker=True).unwrapped
    env.reset(seed=0)
    assert env._opponent.name == "tactical"


@pytest.mark.parametrize("scenario", ["cortex/duel", "cortex/saloon"])
def test_pettingzoo_api_and_seed(scenario):
    from pettingzoo.test import api_test, seed_test

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(SkirmishAEC(scenario=scenario), num_cycles=60)
        seed_test(lambda: SkirmishAEC(scenario=scenario), num_cycles=30)


def test_fight_over_before_the_agents_first_decision_ends_the_episode_on_the_next_step():
    """The tactical opponent, moving first, drops the whole agent team before it acts:
    reset() cannot report the end, so the first step() ends the episode with the loss
    instead of stepping a finished fight (found by a training run that crashed on it). The
    agent's thug starts one Wound from going down (a starting state, issue 32) and stands
    as an Easy target without being asked (decline_innate: always)."""
    doomed = {"name": "test/doomed", "ruleset": "cortex", "initiative": "fixed", "map": {"rows": ["." * 8] * 3},
              "teams": [{"name": "a", "combatants": [{"id": "shooter", "template": "gunslinger", "at": [0, 1]}]},
                        {"name": "b", "combatants": [{"id": "target", "template": "thug", "at": [3, 1],
                                                      "decline_innate": "always", "state": {"wound": 13}}]}]}
    env = SkirmishEnv(scenario=doomed, opponent="tactical", agent_team="b")
    obs, info = env.reset(seed=62)
    assert env.battle.state.over and env.battle.state.winner != env.agent_team
    assert info["actor"] is None and env.action_masks().sum() == 1
    obs, r, term, trunc, info = env.step(int(env.action_masks().argmax()))
    assert term and not trunc and r == pytest.approx(env.reward_cfg["loss"])
    assert info["winner"] == env.battle.state.winner and "illegal_action" not in info
    # damage shaping is measured against each side's full health, not what the opening left:
    # here that was 0, and a figure recovering later once gave a reward of +8e8
    full = [sum(env.rs.health(c)[1] for c in env.battle.state.combatants if (c.team == env.agent_team) == own)
            for own in (True, False)]
    assert env._start_health == pytest.approx(tuple(full)) and min(full) > 0


def test_random_side_plays_both_teams_of_a_mirrored_map():
    """`agent_team="random"`: each reset draws the agent's team (seeded), the agent only
    ever acts for that team, the finished episode's info names it, and the layout is the
    one a first-team env has (so one policy plays either side)."""
    import collections

    kw = dict(scenario="generated", ruleset="cortex", generator={"mirrored": True}, map_size=(16, 22),
              max_enemies=4, max_allies=3, opponent="aggressive")
    env = SkirmishEnv(agent_team="random", **kw)
    assert env.layout.fingerprint() == SkirmishEnv(**kw).layout.fingerprint()
    teams = collections.Counter()
    rng = np.random.default_rng(0)
    for seed in range(12):
        obs, info = env.reset(seed=seed)
        team = env.agent_team
        teams[team] += 1
        assert info["agent_team"] == team
        done = False
        while not done:
            s = env.battle.state
            assert s.actor is None or s.over or s.actor.team == team
            obs, r, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
            done = term or trunc
        assert info["agent_team"] == team
    assert set(teams) == {"red", "blue"}
    again = SkirmishEnv(agent_team="random", **kw)
    assert [(env.reset(seed=k), env.agent_team)[1] for k in range(6)] == \
        [(again.reset(seed=k), again.agent_team)[1] for k in range(6)]
    with pytest.raises(TacticaError, match="'random'"):
        SkirmishEnv(scenario="cortex/duel", agent_team="green")


@pytest.mark.parametrize("advisor,ruleset", [("tactical", "cortex"), ("bold", "metalface")])
def test_advice_rows_are_tacticals_ranking_and_following_them_plays_tactical(advisor, ruleset):
    """`advice="tactical"` (envs/advice.py): row 0 marks tactical's pick, row 1 its scores
    relative to its best, on legal actions only; an agent that plays the pick plays exactly
    the fight tactical plays from the same seed (the advisor keeps tactical's in-fight memory),
    and the other observation arrays, rewards and outcome are those of an env without advice.
    The same holds for the `bold` advisor and `bold`'s own fight."""
    from agents.tactical import BoldPolicy, TacticalPolicy

    kw = dict(ruleset=ruleset, scenario="generated", generator={"mirrored": True}, map_size=(16, 22),
              max_enemies=4, max_allies=3, agent_team="random", opponent="tactical")
    adv_env, plain = SkirmishEnv(advice=advisor, **kw), SkirmishEnv(**kw)
    assert adv_env.observation_space["advice"].shape == (2, adv_env.layout.n_actions)
    assert adv_env.fingerprint() == {**plain.fingerprint(), "advice": advisor}
    decisions = 0
    for seed in range(3):
        oa, ia = adv_env.reset(seed=seed)
        ob, ib = plain.reset(seed=seed)
        teacher = {"tactical": TacticalPolicy, "bold": BoldPolicy}[advisor]()
        done = False
        while not done:
            adv = oa["advice"]
            legal = ia["action_mask"].astype(bool)
            assert adv_env.observation_space.contains(oa)
            assert adv[0].sum() == 1 and not adv[:, ~legal].any()
            i = int(np.argmax(adv[0]))
            assert adv[1, i] == 1.0 and adv[1].max() == 1.0 and (adv[1][adv[1] > 0] >= 0.05).all()
            s = plain.battle.state
            want = {a: k for k, a in plain._legal.items()}[teacher.act(s, s.actor)]
            assert i == want   # the pick is tactical's decision
            for k in ob:
                np.testing.assert_array_equal(oa[k], ob[k])
            oa, ra, ta, tra, ia = adv_env.step(i)
            ob, rb, tb, trb, ib = plain.step(want)
            assert (ra, ta, tra) == (rb, tb, trb)
            done = ta or tra
            decisions += 1
        assert ia.get("winner") == ib.get("winner")
        assert not oa["advice"].any()   # no decision at the end: no advice
    assert decisions > 20
    with pytest.raises(TacticaError, match="advice"):
        SkirmishEnv(advice="planner", **kw)


def test_a_side_larger_than_the_layout_gives_a_downed_figures_slot_to_a_standing_one():
    """envs/encoding.py, Layout.slots: metalface/foundry has five guards; a layout with four
    enemy slots (the shipped metalface policy's) left the fifth without a slot for the whole
    fight, so a learned policy could never attack it and drew every fight it should have
    won. When a side overflows its slots, downed figures go behind the standing ones
    (scenario order otherwise); a side that fits keeps scenario order."""
    from evaluation.simulate import new_battle
    from rules.dice import Dice

    spec, _ = load_scenario("metalface/foundry")
    b = new_battle(spec, Dice(0))
    b.start()
    s, rs = b.state, get_ruleset("metalface")
    lay = layout_for(rs, 16, 22, 4, 3)
    _, enemies = lay.slots(s, "cell")
    guards = [c for c in s.combatants if c.team == "security"]
    assert len(guards) == 5 and [c.id for c in enemies] == [c.id for c in guards]
    guards[0].conditions.add("unconscious")   # the first guard drops: the fifth takes a slot
    assert guards[0].down
    _, enemies = lay.slots(s, "cell")
    assert [c.id for c in enemies[:4]] == [c.id for c in guards[1:]] and enemies[4] is guards[0]
    big = layout_for(rs, 16, 22, 5, 3)
    _, five = big.slots(s, "cell")
    assert [c.id for c in five] == [c.id for c in guards]   # it fits: scenario order kept
    allies, _ = lay.slots(s, "security")   # five guards for three ally slots and the actor: overflows too
    assert [c.id for c in allies] == [c.id for c in guards[1:] + guards[:1]]


def test_clock_shows_the_rounds_left_and_a_draw_at_the_limit_terminates():
    """With `clock` the last economy slot is rounds left / round limit (1 in round 1, 1/limit in
    the last), and a draw by the round limit is `terminated` (the agent saw it coming), where
    the plain env truncates."""
    from envs.encoding import CLOCK_SLOT

    seen = {}
    for clock in (False, True):
        env = SkirmishEnv(scenario="cortex/duel", opponent="random", clock=clock,
                          reward={"draw": -0.5})
        assert ("clock" in env.fingerprint()) == clock
        for ep in range(20):
            obs, _ = env.reset(seed=ep)
            s = env.battle.state
            s.round_limit = 2   # a short fight: ending every turn, it reaches the limit
            if clock:
                env.layout.set_clock(obs, s)
                assert obs["economy"][CLOCK_SLOT] == pytest.approx((2 - s.round + 1) / 2)
            done = False
            while not done:
                obs, r, term, trunc, _ = env.step(0)
                done = term or trunc
                if clock and not done:
                    assert obs["economy"][CLOCK_SLOT] == pytest.approx((2 - env.battle.state.round + 1) / 2)
                elif not done:
                    assert obs["economy"][CLOCK_SLOT] == 0.0
            if env.battle.state.end_reason == "round limit":
                seen[clock] = (term, trunc, r)
                break
    assert seen[False] == (False, True, -0.5)
    assert seen[True] == (True, False, -0.5)
