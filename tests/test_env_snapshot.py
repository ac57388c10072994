"""Env snapshots (issue #31): `clone_state()` / `restore_state()` give back the same episode.

After a restore the same actions must give the same observations, rewards, flags and infos
(masks included), bit for bit; a snapshot stays as it was whatever is played after it, and
one from an env configured otherwise is refused with a `TacticaError`.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import envs  # noqa: F401  (registers the ids)
from benchmarks.bench_env import DEFAULT_SCENARIOS
from envs.multiagent import SkirmishAEC
from envs.skirmish import SkirmishEnv
from rules.errors import TacticaError

GEN = {"size": [10, 12], "team_size": 2}


def play(env, rng: np.random.Generator | None, steps: int, actions: list[int] | None = None):
    """(the steps' outputs, the actions taken): random masked actions, or `actions` again."""
    out, taken = [], []
    for i in range(steps):
        a = actions[i] if actions is not None else int(rng.choice(np.flatnonzero(env.unwrapped.action_masks())))
        taken.append(a)
        out.append(env.step(a))
        if out[-1][2] or out[-1][3]:
            break
    return out, taken


def assert_same_obs(a: dict, b: dict) -> None:
    assert a.keys() == b.keys()
    for k in a:
        assert a[k].dtype == b[k].dtype and np.array_equal(a[k], b[k]), k


def assert_same_info(a: dict, b: dict) -> None:
    assert a.keys() == b.keys()
    for k in a:
        if isinstance(a[k], np.ndarray):
            assert a[k].dtype == b[k].dtype and np.array_equal(a[k], b[k]), k
        else:
            assert a[k] == b[k], k


def assert_same(run_a: list, run_b: list) -> None:
    assert len(run_a) == len(run_b)
    for (o1, r1, t1, u1, i1), (o2, r2, t2, u2, i2) in zip(run_a, run_b):
        assert_same_obs(o1, o2)
        assert (r1, t1, u1) == (r2, t2, u2)
        assert_same_info(i1, i2)


def mid_fight(env, seed: int, steps: int = 5):
    """Reset and play `steps` random decisions (from a fresh reset if the fight ended); the
    last observation and info."""
    rng = np.random.default_rng(seed)
    for k in range(5):
        obs, info = env.reset(seed=seed + k)
        out, _ = play(env, rng, steps)
        if out and not (out[-1][2] or out[-1][3]):
            return out[-1][0], out[-1][4], rng
    raise AssertionError("no fight lasted")


def round_trip(env, seed: int, k: int = 12, refill: bool = False, before: int = 5) -> None:
    """Clone mid-fight; play on; restore and replay; branch; restore and replay again.
    `refill`: the opponent's next number comes from its generator (its buffer is used up);
    `before`: the decisions played before the clone."""
    obs0, info0, rng = mid_fight(env, seed, before)
    if refill:
        opp = env.unwrapped._opponent
        opp._pos = len(opp._buf)
    snap = env.unwrapped.clone_state()
    first, actions = play(env, rng, k)
    obs, info = env.unwrapped.restore_state(snap)
    assert_same_obs(obs, obs0)      # the restored decision is the one cloned
    assert_same_info(info, info0)
    again, _ = play(env, None, len(actions), actions)
    assert_same(first, again)
    env.unwrapped.restore_state(snap)   # a branch with other actions ...
    play(env, np.random.default_rng(seed + 99), k)
    env.unwrapped.restore_state(snap)   # ... leaves the snapshot as it was
    third, _ = play(env, None, len(actions), actions)
    assert_same(first, third)


@pytest.mark.parametrize("ruleset", sorted(DEFAULT_SCENARIOS))
def test_default_env_round_trip(ruleset):
    env = SkirmishEnv(scenario=DEFAULT_SCENARIOS[ruleset])   # the default opponent: tactical
    round_trip(env, seed=3)


def test_through_wrappers_with_shaping_and_random_opponent():
    env = gym.make("tactica/CortexWarehouse-v2", opponent="random",
                   reward={"damage_dealt": 0.3, "damage_taken": 0.2})
    round_trip(env, seed=5, k=20, refill=True)


@pytest.mark.parametrize("ruleset,advice", [("cortex", "tactical"), ("metalface", "bold")])
def test_generated_maps_with_advice(ruleset, advice):
    env = SkirmishEnv(ruleset=ruleset, scenario="generated", generator=GEN, advice=advice,
                      agent_team="random", clock=True)
    round_trip(env, seed=7)
    obs, _ = env.restore_state(env.clone_state())
    assert obs["advice"].any()    # the advisor's rows of the decision come back


def test_learned_opponent():
    env = SkirmishEnv(scenario="metalface/foundry", opponent="ppo")   # tactica/policies/metalface.npz
    round_trip(env, seed=11, k=3, before=2)   # a few: its decisions take ~0.1 s


def test_a_snapshot_restores_on_another_env_of_the_same_configuration():
    env, twin = (SkirmishEnv(scenario="metalface/foundry", advice="tactical") for _ in range(2))
    _, _, rng = mid_fight(env, seed=2)
    snap = env.clone_state()
    first, actions = play(env, rng, 10)
    twin.restore_state(snap)
    again, _ = play(twin, None, len(actions), actions)
    assert_same(first, again)


def test_resets_after_a_restore_draw_as_before():
    env = SkirmishEnv(ruleset="cortex", scenario="generated", generator=GEN, opponent="random")
    mid_fight(env, seed=4)
    snap = env.clone_state()
    a = env.reset()[0]
    env.restore_state(snap)
    assert_same_obs(env.reset()[0], a)   # np_random came back too: the same next map and dice


def test_a_finished_episode_stays_finished():
    env = SkirmishEnv(scenario="cortex/duel", opponent="random")
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    while True:
        *_, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        if term or trunc:
            break
    _, info2 = env.restore_state(env.clone_state())
    assert info2["winner"] == info["winner"]
    with pytest.raises(TacticaError, match="finished episode"):
        env.step(0)


def test_snapshots_of_other_envs_are_refused():
    env = SkirmishEnv(scenario="cortex/warehouse", opponent="random")
    with pytest.raises(TacticaError, match="reset"):
        env.clone_state()
    env.reset(seed=0)
    cases = [(SkirmishEnv(scenario="cortex/ambush", opponent="random"), "snapshot.scenario"),
             (SkirmishEnv(scenario="cortex/warehouse", advice="tactical"), "snapshot.layout"),
             (SkirmishEnv(scenario="cortex/warehouse", reward={"draw": -0.5}), "snapshot.reward"),
             (SkirmishEnv(scenario="metalface/foundry"), "snapshot.ruleset")]
    for other, field in cases:
        other.reset(seed=0)
        snap = other.clone_state()
        before = env.battle
        with pytest.raises(TacticaError) as e:
            env.restore_state(snap)
        assert e.value.field == field and "expected" in str(e.value)
        assert env.battle is before     # nothing was changed
    with pytest.raises(TacticaError, match="not a snapshot"):
        env.restore_state({"battle": None})


def test_aec_round_trip_to_the_end():
    """Through the end of the game, where the agents leave one by one (dead steps)."""
    env = SkirmishAEC(scenario="cortex/duel")
    env.reset(seed=5)
    rng = np.random.default_rng(5)
    env.step(int(rng.choice(np.flatnonzero(env.last()[0]["action_mask"]))))
    snap = env.clone_state()

    def run(actions=None):
        out, taken = [], []
        for i, agent in enumerate(env.agent_iter(2000)):
            obs, rew, term, trunc, info = env.last()
            if term or trunc:
                a = None
            else:
                a = actions[i] if actions is not None else int(rng.choice(np.flatnonzero(obs["action_mask"])))
            taken.append(a)
            env.step(a)
            out.append((agent, rew, term, trunc, info, obs["observation"]["units"].tobytes(), list(env.agents)))
        return out, taken

    first, actions = run()
    assert not env.agents and len(first) > 10
    for _ in range(2):
        env.restore_state(snap)
        assert run(actions)[0] == first


def test_aec_round_trip():
    env = SkirmishAEC(scenario="cybergeneration/alley_brawl")
    env.reset(seed=3)
    rng = np.random.default_rng(3)

    def run(actions=None):
        out, taken = [], []
        for i in range(15):
            obs, rew, term, trunc, info = env.last()
            if term or trunc:
                break
            a = actions[i] if actions is not None else int(rng.choice(np.flatnonzero(obs["action_mask"])))
            taken.append(a)
            env.step(a)
            out.append((env.agent_selection, env.last()))
        return out, taken

    run()
    snap = env.clone_state()
    first, actions = run()
    for _ in range(2):
        env.restore_state(snap)
        again, _ = run(actions)
        assert len(again) == len(first)
        for (ag1, (o1, r1, t1, u1, i1)), (ag2, (o2, r2, t2, u2, i2)) in zip(first, again):
            assert ag1 == ag2 and (r1, t1, u1, i1) == (r2, t2, u2, i2)
            assert_same_obs(o1["observation"], o2["observation"])
            assert np.array_equal(o1["action_mask"], o2["action_mask"])
    with pytest.raises(TacticaError) as e:
        SkirmishAEC(scenario="cortex/duel").restore_state(snap)
    assert e.value.field == "snapshot.scenario"


@pytest.mark.parametrize("opponent", [None, "tactical"])
def test_parallel_round_trip_with_and_without_an_opponent(opponent):
    """The parallel env's snapshot: the fight, its opponent (with its memories) and the agents;
    the same joint actions then give the same observations, rewards, flags and infos."""
    from envs.parallel import SkirmishParallel
    kw = {"opponent": opponent, "reward": {"damage_dealt": 0.5, "damage_taken": 0.5}} if opponent else {}
    env = SkirmishParallel(scenario="generated", ruleset="cortex", generator={"size": [10, 10]}, **kw)
    obs, infos = env.reset(seed=13)
    rng = np.random.default_rng(13)

    def run(script=None, n=12):
        out, taken = [], []
        for i in range(n):
            if not env.agents:
                break
            if script is not None:
                acts = script[i]
            else:
                acts = {a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in run.obs.items()}
            taken.append(acts)
            run.obs, rew, term, trunc, info = env.step(acts)
            out.append((run.obs, rew, term, trunc, info))
        return out, taken

    run.obs = obs
    run(n=4)
    snap = env.clone_state()
    at = run.obs
    first, script = run()
    assert first
    for _ in range(2):
        o, i = env.restore_state(snap)
        assert o.keys() == at.keys()
        for a in o:
            assert_same_obs(o[a]["observation"], at[a]["observation"])
        again, _ = run(script)
        assert len(again) == len(first)
        for (o1, r1, t1, u1, i1), (o2, r2, t2, u2, i2) in zip(first, again):
            assert (r1, t1, u1, i1) == (r2, t2, u2, i2)
            for a in o1:
                assert_same_obs(o1[a]["observation"], o2[a]["observation"])
                assert np.array_equal(o1[a]["action_mask"], o2[a]["action_mask"])
    with pytest.raises(TacticaError) as e:
        SkirmishParallel(scenario="cortex/duel").restore_state(snap)
    assert e.value.field.startswith("snapshot.")


@pytest.mark.parametrize("scenario,player", [("metalface/foundry", "planner-net-bold"), ("cortex/duel", "planner-net")])
def test_best_opponent(scenario, player):
    """`best` (agents/best.py) as the opponent: its copy holds a copy of the player it chose."""
    env = SkirmishEnv(scenario=scenario, opponent="best")
    env.reset(seed=11)
    rng = np.random.default_rng(11)
    for _ in range(200):   # until the opponent has played (its player chosen) in a fight still going
        opp = env.unwrapped._opponent
        if opp.delegate is not None:
            break
        if play(env, rng, 1)[0][-1][2]:
            env.reset()
    assert opp.player == player
    snap = env.unwrapped.clone_state()
    first, actions = play(env, rng, 3)
    env.unwrapped.restore_state(snap)
    assert_same(first, play(env, None, len(actions), actions)[0])
    opp = env.unwrapped._opponent
    snap = env.unwrapped.clone_state()
    copied = snap._players[0]
    assert copied is not opp and copied.delegate is not opp.delegate and copied.player == player
