"""The optional `to_act` observation (`turn_order=True`, issue 31): which figures are yet to take
their turn this round.

The network ranks the same-looking positions the same way, but a figure in the open is in far
more danger while an enemy that can see it is still to act this round than once every enemy has
had its turn (the initiative is rolled anew each round, so after that it is a coin flip who acts
first). `to_act` shows that. The test is the fight itself: the flags at a decision name exactly the
standing figures that then take a turn before the round ends."""

from __future__ import annotations

import numpy as np
import pytest

from envs.encoding import TO_ACT
from envs.skirmish import SkirmishEnv
from rules.errors import TacticaError


def _slot_ids(env: SkirmishEnv) -> list[str | None]:
    """The figure id in each unit slot of the agent's view now (None: an empty slot)."""
    lay, s = env.layout, env.battle.state
    actor = env._agent_actor()
    allies, enemies = lay.slots(s, env.agent_team)
    ids: list[str | None] = [None] * lay.n_units
    if actor is not None:
        ids[0] = actor.id
    for k, c in enumerate([c for c in allies if c is not actor][:lay.n_ally], 1):
        ids[k] = c.id
    for k, c in enumerate(enemies[:lay.n_enemy]):
        ids[1 + lay.n_ally + k] = c.id
    return ids


@pytest.mark.parametrize("scenario", ["cortex/warehouse", "cortex_hu/magtar", "cybergeneration/mall_raid",
                                      "metalface/scrapyard"])
def test_the_flags_name_the_figures_that_take_a_turn_before_the_round_ends(scenario):
    """At each decision of seeded random fights: every figure that starts a turn later this round
    was flagged (a knocked-out one that wakes included); every flagged figure does, or is down at
    the decision or by the round's end (where the fight goes on), or owns the turn in which the
    acting figure answers a question; the acting figure is only where its own turn is still to come. Watched through the battle's `turn_start` events (the opponent's turns included)."""
    env = SkirmishEnv(scenario=scenario, opponent="random", turn_order=True)
    rng = np.random.default_rng(5)
    checked = flagged_any = 0
    for ep in range(6):
        obs, _ = env.reset(seed=100 + ep)
        done = False
        while not done:
            s = env.battle.state
            if env._agent_actor() is None:
                break
            ids = _slot_ids(env)
            flags = obs["to_act"]
            assert flags.shape == (env.layout.n_units,)
            # slot 0, the figure deciding: flagged only where it answers a question in another's turn
            # and its own turn is still to come this round
            assert flags[0] == float(s.actor.id in s.order[s.turn_index + 1:])
            assert set(np.unique(flags)) <= {0.0, 1.0}
            flagged = {ids[k] for k in np.flatnonzero(flags)}
            assert None not in flagged   # an empty slot is never flagged
            flagged_any += bool(flagged)
            down_now = {c.id for c in s.combatants if c.down}
            owner = s.turn_owner
            if owner is not None and owner is not s.actor:   # answering a question in another's turn
                assert owner.id in flagged
            mid_turn = {owner.id} if owner is not None and owner is not s.actor else set()
            # play this decision's round out (random actions) on the env, and see who starts a turn
            me, rnd = s.actor.id, s.round
            probe = env.clone_state()
            acted: set[str] = set()
            env.battle.on_event = lambda e: acted.add(e["actor"]) if (
                e["type"] == "turn_start" and e["round"] == rnd) else None
            while not env.battle.state.over and env.battle.state.round == rnd and env._agent_actor() is not None:
                env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
            down_at_end = down_now | {c.id for c in env.battle.state.combatants if c.down}
            in_view = {i for i in ids if i is not None} - {me}
            assert (acted & in_view) <= flagged, (scenario, ep, acted, flagged)
            if not env.battle.state.over:   # the round was played out
                assert flagged - acted <= down_at_end | mid_turn, (scenario, ep, acted, flagged)
            checked += 1
            obs, _ = env.restore_state(probe)
            obs, _, t, tr, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
            done = t or tr
    assert checked > 40 and flagged_any > 10


def test_without_the_option_there_is_no_key_and_the_fingerprint_differs():
    plain = SkirmishEnv(scenario="cortex/warehouse", opponent="random")
    with_it = SkirmishEnv(scenario="cortex/warehouse", opponent="random", turn_order=True)
    assert "to_act" not in plain.observation_space.spaces
    assert with_it.observation_space["to_act"].shape == (with_it.layout.n_units,)
    assert "to_act" not in plain.fingerprint() and with_it.fingerprint()["to_act"] == TO_ACT
    obs, _ = with_it.reset(seed=3)
    assert with_it.observation_space.contains(obs)


def test_a_policy_trained_with_the_flags_matches_sb3_and_refuses_an_env_without_them(tmp_path):
    """`turn_order: true` in a training config: the export's fingerprint has `to_act`, NumpyPolicy
    builds the flags itself when it plays (its probabilities match SB3's within 1e-5 on the env's
    observations), and an env without them is refused, naming the field."""
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    from agents.learned import NumpyPolicy
    from tests.training_setup import cfg, max_probability_gap, plays_alone_as_in_env
    from training.train import train

    run_dir = train(cfg(tmp_path, run_name="order", turn_order=True, total_steps=256, eval_interval=0,
                        checkpoint_interval=256, features="spatial"), progress=False)
    pol = NumpyPolicy(run_dir / "policy.npz")
    assert pol.turn_order and pol.meta["fingerprint"]["to_act"] == TO_ACT
    env = SkirmishEnv(scenario="cortex/duel", opponent="aggressive", map_size=(12, 16), max_enemies=1,
                      max_allies=0, turn_order=True)
    pol.check_env(env.layout, turn_order=True)
    with pytest.raises(TacticaError, match="to_act") as e:
        pol.check_env(env.layout)
    assert e.value.field == "turn_order"
    model = MaskablePPO.load(str(run_dir / "checkpoints" / "latest.zip"), device="cpu")
    assert max_probability_gap(model, pol, env, 200) < 1e-5
    # the vector branch reads the flags: zeroing them changes the scores somewhere
    obs, _ = env.reset(seed=1)
    rng = np.random.default_rng(1)
    moved = False
    for _ in range(60):
        if obs["to_act"].any():
            blank = {**obs, "to_act": np.zeros_like(obs["to_act"])}
            a = pol.logits({k: v[None] for k, v in obs.items()})
            b = pol.logits({k: v[None] for k, v in blank.items()})
            moved |= not np.array_equal(a, b)
        obs, _, t, tr, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        if t or tr:
            obs, _ = env.reset()
    assert moved
    # on its own (no env) the policy builds the same observation, flags included
    plays_alone_as_in_env(pol, env, run_dir / "policy.npz")


def test_the_pettingzoo_envs_take_the_option_each_agent_with_its_own_flag():
    """`turn_order=True` in the parallel env (self-play, every figure an agent): it passes
    PettingZoo's `parallel_api_test`, and in every agent's view slot 0 (its own figure) is
    flagged exactly while the round's order lists it after the figure whose turn it is, and no
    view flags its empty slots."""
    pytest.importorskip("pettingzoo")
    import warnings

    from pettingzoo.test import parallel_api_test

    from envs.parallel import NO_OP, parallel_env

    gen = {"scenario": "generated", "ruleset": "cortex", "generator": {"size": [10, 12], "team_size": 2},
           "turn_order": True}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        parallel_api_test(parallel_env(**gen), num_cycles=200)
    env = parallel_env(**gen)
    rng = np.random.default_rng(3)
    checked = own_flags = 0
    for seed in range(4):
        obs, infos = env.reset(seed=seed)
        while env.agents:
            s = env.fight.battle.state
            later = s.order[s.turn_index + 1:]
            for a in env.agents:
                flags = obs[a]["observation"]["to_act"]
                units = obs[a]["observation"]["units"]
                assert flags[0] == float(a in later)
                assert not (flags > 0)[units[:, 0] == 0].any()   # an empty slot is never flagged
                own_flags += int(flags[0])
                checked += 1
            actions = {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) if infos[a]["acting"] else NO_OP
                       for a in env.agents}
            obs, _, _, _, infos = env.step(actions)
    assert checked > 100 and own_flags > 20
