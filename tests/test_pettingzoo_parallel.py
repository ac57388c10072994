"""The PettingZoo envs' research options (issue 31): the parallel API beside AEC, generated
maps, ruleset, opponents, rewards, seeding and the flat observation, played as self-play."""

from __future__ import annotations

import hashlib
import warnings

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from gymnasium import spaces  # noqa: E402
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, seed_test  # noqa: E402

from envs.flat import flat_order, flatten_observation  # noqa: E402
from envs.multiagent import SkirmishAEC, env as aec_env  # noqa: E402
from envs.options import team_health  # noqa: E402
from envs.parallel import NO_OP, SkirmishParallel, parallel_env  # noqa: E402
from rules.errors import TacticaError  # noqa: E402

GEN = {"scenario": "generated", "ruleset": "cortex", "generator": {"size": [10, 12], "team_size": 2}}


def _quiet(fn, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kw)


def play(env: SkirmishParallel, seed: int, rng_seed: int, noise: bool = False, max_steps: int = 5000):
    """One episode with random masked actions for every agent (`noise`: the waiting agents
    send random actions, which must be ignored); (digest of everything seen, per-agent
    reward totals, steps, the last infos)."""
    rng = np.random.default_rng(rng_seed)
    noise_rng = np.random.default_rng(rng_seed + 1)   # its own stream: the actor's picks stay the same
    h = hashlib.sha256()
    obs, infos = env.reset(seed=seed)
    totals = dict.fromkeys(env.agents, 0.0)
    for steps in range(1, max_steps + 1):
        acting = [a for a in env.agents if infos[a]["acting"]]
        assert len(acting) <= 1
        actions = {}
        for a in env.agents:
            mask = obs[a]["action_mask"]
            if a in acting:
                actions[a] = int(rng.choice(np.flatnonzero(mask)))
            else:   # a waiting agent may only pass
                assert mask[NO_OP] == 1 and mask.sum() == 1
                actions[a] = int(noise_rng.integers(env.layout.n_actions)) if noise else NO_OP
        if acting:
            h.update(str(actions[acting[0]]).encode())
        obs, rewards, terms, truncs, infos = env.step(actions)
        for a in sorted(obs):
            for k in sorted(obs[a]["observation"]):
                h.update(obs[a]["observation"][k].tobytes())
            h.update(obs[a]["action_mask"].tobytes())
            h.update(repr((a, rewards[a], terms[a], truncs[a])).encode())
            totals[a] += rewards[a]
        if not env.agents:
            return h.hexdigest(), totals, steps, infos
    raise AssertionError(f"episode of seed {seed} did not end in {max_steps} steps")


def test_parallel_api_test_passes_on_a_bundled_scenario_and_on_generated_maps():
    _quiet(parallel_api_test, parallel_env(scenario="cortex/duel"), num_cycles=300)
    _quiet(parallel_api_test, parallel_env(**GEN), num_cycles=300)
    _quiet(parallel_api_test, parallel_env(scenario="metalface/scrapyard", opponent="tactical", flat=True),
           num_cycles=100)
    _quiet(parallel_seed_test, lambda: parallel_env(**GEN), num_cycles=100)


def test_aec_api_test_passes_with_the_new_options():
    _quiet(api_test, aec_env(**GEN, flat=True, reward={"damage_dealt": 0.3}), num_cycles=80)
    _quiet(api_test, aec_env(scenario="cortex/warehouse", opponent="tactical", agent_team="random"), num_cycles=80)
    _quiet(seed_test, lambda: aec_env(**GEN, opponent=["tactical", "aggressive"]), num_cycles=60)


def test_self_play_on_generated_maps_ends_and_pays_the_documented_rewards():
    """Mirrored generated maps: equal teams, so the end rewards sum to 0 over the agents."""
    env = parallel_env(**GEN)
    assert set(env.possible_agents) == {"red1", "red2", "blue1", "blue2"}
    for seed in range(4):
        _, totals, steps, infos = play(env, seed, 100 + seed)
        winner = infos["red1"]["winner"]
        assert steps > 1 and set(totals) == set(env.possible_agents)
        for a, r in totals.items():
            assert r == (0.0 if winner is None else 1.0 if env.fight.team_of[a] == winner else -1.0)
        assert sum(totals.values()) == 0.0


def test_same_seed_same_episode_and_waiting_agents_actions_are_ignored():
    env = parallel_env(**GEN)
    first = play(env, 7, 1)
    again = play(parallel_env(**GEN), 7, 1, noise=True)   # a fresh env; the waiting agents send noise
    assert first[0] == again[0] and first[1:3] == again[1:3]
    assert play(env, 8, 1)[0] != first[0]


def test_aec_and_parallel_play_the_same_fight_from_one_seed():
    par = parallel_env(scenario="cortex/saloon")
    aec = SkirmishAEC(scenario="cortex/saloon")
    obs, infos = par.reset(seed=3)
    aec.reset(seed=3)
    rng = np.random.default_rng(0)
    par_rewards: dict = {}
    par_terms: dict = {}
    for agent in aec.agent_iter(5000):
        o, r, term, trunc, _ = aec.last()
        if term or trunc:
            assert r == par_rewards[agent] and par_terms[agent] == term
            aec.step(None)
            continue
        assert infos[agent]["acting"]
        assert np.array_equal(o["action_mask"], obs[agent]["action_mask"])
        a = int(rng.choice(np.flatnonzero(o["action_mask"])))
        aec.step(a)
        obs, par_rewards, par_terms, _, infos = par.step({x: a if x == agent else NO_OP for x in par.agents})
    assert not par.agents


def test_flat_observation_is_the_dict_encoding_in_the_documented_order():
    env, flat_env = parallel_env(**GEN), parallel_env(**GEN, flat=True)
    dict_space = env.observation_space("red1")["observation"]
    order = flat_order(dict_space)
    assert [p.key for p in order] == ["cover", "economy", "grid", "units"]
    assert order[0].start == 0 and all(p.stop == q.start for p, q in zip(order, order[1:]))
    box = flat_env.observation_space("red1")["observation"]
    assert isinstance(box, spaces.Box) and box.dtype == np.float32 and box.shape == (order[-1].stop,)
    obs, infos = env.reset(seed=2)
    fobs, _ = flat_env.reset(seed=2)
    rng = np.random.default_rng(0)
    for _ in range(30):
        for a in env.agents:
            d, f = obs[a]["observation"], fobs[a]["observation"]
            assert box.contains(f)
            assert np.array_equal(f, np.concatenate([d[k].ravel() for k in ("cover", "economy", "grid", "units")]))
            assert np.array_equal(f, spaces.flatten(dict_space, d))
            for p in order:
                assert np.array_equal(f[p.start:p.stop].reshape(p.shape), d[p.key])
            assert np.array_equal(flatten_observation(d, order), f)
            assert np.array_equal(obs[a]["action_mask"], fobs[a]["action_mask"])
        actor = infos[env.agents[0]]["actor"]
        act = int(rng.choice(np.flatnonzero(obs[actor]["action_mask"])))
        obs, _, _, _, infos = env.step({actor: act})
        fobs, *_ = flat_env.step({actor: act})
        if not env.agents:
            break


def test_damage_shaping_sums_to_the_final_damage_shares():
    cfg = {"damage_dealt": 0.5, "damage_taken": 0.25, "win": 2.0, "loss": -3.0, "draw": 0.5}
    env = parallel_env(**GEN, reward=cfg)
    for seed in range(2):
        env.reset(seed=seed)
        s = env.battle.state
        health = {c.id: env.rs.health(c) for c in s.combatants}
        start = {t: team_health(s, t, health, full=True) for t in ("red", "blue")}
        _, totals, _, infos = play(env, seed, 5)
        s = env.battle.state
        health = {c.id: env.rs.health(c) for c in s.combatants}
        winner = infos["red1"]["winner"]
        for a, r in totals.items():
            t = env.fight.team_of[a]
            own, other = team_health(s, t, health)
            so, st = start[t]
            end = cfg["draw"] if winner is None else cfg["win"] if t == winner else cfg["loss"]
            want = end + 0.5 * (st - other) / st - 0.25 * (so - own) / so
            assert r == pytest.approx(want, abs=1e-9)


def test_an_opponent_plays_the_other_team_inside_step():
    team = "locals"   # the second team; the crew is the tactical policy's
    env = parallel_env(scenario="cortex/saloon", opponent="tactical", agent_team=team, render_mode="ansi")
    assert env.possible_agents == ["stick", "bruiser", "dancer", "drunk"]
    for seed in range(2):
        obs, infos = env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        while env.agents:
            actor = infos[env.agents[0]]["actor"]
            if actor is not None:   # only the learning team's figures act
                assert env.fight.team_of[actor] == team and actor in env.agents
                assert env.battle.state.actor.team == team
            acts = {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in env.agents}
            obs, rewards, terms, truncs, infos = env.step(acts)
        assert set(rewards) == set(env.possible_agents) and all(terms.values()) != all(truncs.values())
        assert env.battle.state.over and len(env.battle.state.teams) == 2
        assert isinstance(env.render(), str)


def test_an_illegal_action_ends_the_fight_with_the_penalty_for_its_agent():
    env = parallel_env(scenario="cortex/duel")
    obs, infos = env.reset(seed=0)
    actor = next(a for a in env.agents if infos[a]["acting"])
    bad = int(np.flatnonzero(obs[actor]["action_mask"] == 0)[0])
    obs, rewards, terms, truncs, infos = env.step({a: bad if a == actor else NO_OP for a in env.agents})
    assert all(terms.values()) and not any(truncs.values()) and env.agents == []
    assert rewards == {a: (-1.0 if a == actor else 0.0) for a in rewards}
    assert infos[actor]["illegal_action"] and not any(infos[a]["illegal_action"] for a in infos if a != actor)
    with pytest.raises(TacticaError):
        env.step({})


def test_bad_options_and_missing_actions_are_named():
    with pytest.raises(TacticaError) as e:
        parallel_env(scenario="cortex/duel", agent_team="a")
    assert e.value.field == "agent_team"
    with pytest.raises(TacticaError) as e:
        aec_env(scenario="cortex/duel", reward={"damage_delt": 1.0})
    assert e.value.field == "reward"
    with pytest.raises(TacticaError) as e:
        parallel_env(scenario="generated")
    assert e.value.field == "ruleset"
    env = parallel_env(scenario="cortex/duel")
    env.reset(seed=0)
    with pytest.raises(TacticaError) as e:
        env.step({})
    assert e.value.field == "actions"


def test_possible_agents_cover_every_generated_team_size():
    """Team sizes drawn per map (1-4, unmirrored: each side its own): `possible_agents` holds
    every figure a generated map can field, not only those of the map seen when built."""
    env = parallel_env(scenario="generated", ruleset="metalface", generator={"mirrored": False},
                       map_size=(16, 22), max_enemies=4, max_allies=3)
    assert env.possible_agents == ["red1", "red2", "red3", "red4", "blue1", "blue2", "blue3", "blue4"]
    sizes = set()
    for seed in range(8):
        env.reset(seed=seed)
        assert set(env.agents) <= set(env.possible_agents)
        sizes.add(len(env.agents))
    assert max(sizes) > 4 and len(sizes) > 2
