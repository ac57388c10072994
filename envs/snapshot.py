"""Env snapshots: `SkirmishEnv.clone_state()` / `restore_state()`, as OpenSpiel's `state.clone()`.

Search and expert iteration try actions from one decision many times over. A snapshot holds
everything that decides what the env does next, copied, so later play changes nothing in it
and one snapshot can be restored any number of times:

- the fight: `Battle.clone()` (the battle state; the dice's generator state and the numbers
  drawn but not yet used; the event log and its `record` flag; the deciders; the decision
  counters);
- the players: the opponent policy and the advisor (with `advice`), deep copies of them
  (generators, turn memories, in-fight memos such as `tactical`'s threat estimates);
- the env's own: `agent_team`, whether the episode is over, the team healths the damage
  rewards are measured from, the legal-action map and mask, the advice rows (and parts) of the current
  decision, and `np_random`'s state (what the next `reset` draws).

The copies share with the env only what never changes in a fight (the ruleset, the map, the
stat blocks, weapons, armour and traits, the action layout) and the memos a policy declares
safe to share (`Policy.shared_memos`: memos of pure functions and per-decision scratch,
which change no decision), but those a later decision may have filled differently
(`Policy.history_memos`, copied: agents/base.py `seed_copy_memo`). A snapshot lives in memory
only (it holds such functions).

After `restore_state`, the same actions give the same observations, rewards, terminations,
truncations and infos, bit for bit (tests/test_env_snapshot.py). A snapshot is tied to the
configuration of the env that took it (ruleset, scenarios, generator settings, layout with
advice and clock, agent team, rewards): restoring it on an env configured otherwise raises a
`TacticaError` naming the field. The opponent pool (`set_opponents`) is not part of it: as
ever, it takes effect at the next `reset` (an opponent given as a `Policy` object plays on,
after a restore, as the snapshot's copy of it; the next `reset` takes the pool's object again).

The PettingZoo envs, `SkirmishAEC` (envs/multiagent.py) and `SkirmishParallel`
(envs/parallel.py), have the same pair, `AECSnapshot` below: the fight with its opponent and
bookkeeping (`envs.multifight.MultiFight`), the agents (and the AEC dicts, infos and agent
selection) and the reset generator; `restore_state` returns nothing there (`last()`/`observe`,
or the next `step`, read the restored decision).

Cost (`benchmarks/bench_snapshot.py`, medians, cortex/warehouse after 8 decisions, this 2-core
machine under load): a clone 0.14 ms (random opponent), 0.18 ms (tactical), 0.28 ms (tactical
with tactical's advice); a restore 0.27, 0.32 and 0.41 ms (it also builds the observation);
a step there 0.5-0.6 ms. A full deep copy of a tactical policy took 50 ms (it copied the map):
the copies share the static parts and declared memos instead.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

import numpy as np

from agents.base import seed_copy_memo
from rules.battle import Battle
from rules.errors import TacticaError

if TYPE_CHECKING:
    from envs.skirmish import SkirmishEnv


class EnvSnapshot:
    """One decision of a `SkirmishEnv`, to restore with `restore_state` (opaque: its parts
    are private)."""

    __slots__ = ("_config", "_layout", "_battle", "_players", "_book", "_legal", "_mask", "_advice",
                 "_np_random")

    def __repr__(self) -> str:
        s = self._battle.state
        return (f"<EnvSnapshot {s.scenario} round {s.round} actor "
                f"{s.actor.id if s.actor is not None and not s.over else None} team {self._book[0]}>")


def env_config(env: SkirmishEnv) -> dict[str, Any]:
    """What a snapshot must match in the env it is restored on (made once per env)."""
    cfg = env.__dict__.get("_snapshot_config")
    if cfg is None:
        from envs.skirmish import RANDOM_SIDE
        cfg = {"ruleset": env.ruleset_name, "scenario": copy.deepcopy(env.scenarios),
               "generator": copy.deepcopy(env.generator_args), "layout": env.fingerprint(),
               "agent_team": RANDOM_SIDE if env._random_side else env._agent_team_arg,
               "reward": dict(env.reward_cfg)}
        env._snapshot_config = cfg
    return cfg


def _check(env: SkirmishEnv, snap: Any) -> None:
    if not isinstance(snap, EnvSnapshot):
        raise TacticaError(f"not a snapshot: {type(snap).__name__}", field="snapshot",
                           expected="what clone_state() returned")
    mine = env_config(env)
    if snap._config is mine:
        return
    for key, want in mine.items():
        got = snap._config[key]
        if got != want:
            raise TacticaError(f"the snapshot is of another env: its {key} is {_short(got)}",
                               field=f"snapshot.{key}", expected=f"{_short(want)}, as in this env")


def _short(v: Any, n: int = 120) -> str:
    text = repr(v)
    return text if len(text) <= n else text[:n - 3] + "..."


def _copy_fight(env: SkirmishEnv, battle: Battle, players: tuple, layout: Any) -> tuple[Battle, tuple]:
    """A copy of the fight and its players (opponent, advisor) that shares no changing part with
    them; references from the players to the fight's figures lead to the copy's figures."""
    nb = battle.clone()
    old, new = battle.state, nb.state
    memo: dict[int, Any] = {id(env.rs): env.rs, id(layout): env.layout, id(old.grid): old.grid,
                            id(old.settings): old.settings, id(old.teams): old.teams, id(old): new}
    for c, d in zip(old.combatants, new.combatants):
        memo[id(c)] = d
        for v in (c.stats, c.weapons, c.armour, c.traits):
            memo[id(v)] = v
    for p in players:
        seed_copy_memo(p, memo)
    players = copy.deepcopy(players, memo)
    nb.deciders = copy.deepcopy(battle.deciders, memo)   # the copied opponent answers its figures
    return nb, players


def capture(env: SkirmishEnv) -> EnvSnapshot:
    """The snapshot of `env`'s current decision (`SkirmishEnv.clone_state`)."""
    if env.battle is None:
        raise TacticaError("no fight to snapshot", field="clone_state", expected="reset() before clone_state()")
    snap = EnvSnapshot()
    snap._config = env_config(env)
    snap._layout = env.layout
    snap._battle, snap._players = _copy_fight(env, env.battle, (env._opponent, env._advisor), env.layout)
    snap._book = (env.agent_team, env._done, env._start_health, env._last_health)
    snap._legal = dict(env._legal)
    snap._mask = env._mask.copy()
    snap._advice = None if env._advice_rows is None else {k: v.copy() for k, v in env._advice_rows.items()}
    snap._np_random = (env.np_random.bit_generator.state, env._np_random_seed)
    return snap


def restore(env: SkirmishEnv, snap: EnvSnapshot) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """Put `env` back at the snapshot's decision; its observation and info (`restore_state`)."""
    _check(env, snap)
    env.battle, (env._opponent, env._advisor) = _copy_fight(env, snap._battle, snap._players, snap._layout)
    env.agent_team, env._done, env._start_health, env._last_health = snap._book
    env._legal = dict(snap._legal)
    env._mask = snap._mask.copy()
    env._advice_rows = None if snap._advice is None else {k: v.copy() for k, v in snap._advice.items()}
    state, seed = snap._np_random
    env.np_random.bit_generator.state = state
    env._np_random_seed = seed
    obs = env._observation(env._agent_actor())
    if env._advice_rows is not None:
        obs.update({k: v.copy() for k, v in env._advice_rows.items()})
    info = env._info()
    s = env.battle.state
    if s.over:
        info["winner"] = s.winner
    return obs, info


# -- the PettingZoo envs ------------------------------------------------------------------
#: the AEC env's per-agent dicts (`infos` holds a dict per agent: copied one level deeper)
_AEC_DICTS = ("rewards", "_cumulative_rewards", "terminations", "truncations")


class AECSnapshot:
    """One decision of a PettingZoo env, `SkirmishAEC` or `SkirmishParallel` (opaque): the fight
    and its opponent (`envs.multifight.MultiFight`: the learning teams, the team healths the
    damage rewards are measured from, the legal map and mask), the agents (with the AEC env
    their reward, flag and info dicts and the agent selection) and the reset generator."""

    __slots__ = ("_config", "_battle", "_players", "_fight", "_book")


def _multi_config(env: Any) -> dict[str, Any]:
    f = env.fight
    return {"env": type(env).__name__, "scenario": repr(f.pool.scenarios),
            "generator": repr(sorted(f.pool.generator_args.items())), "layout": f.layout.fingerprint(None, False, False, f.turn_order),
            "reward": repr(sorted(f.reward_cfg.items())), "flat": f.flat}


def _multi_book(env: Any) -> dict[str, Any]:
    book: dict[str, Any] = {"agents": list(env.agents), "_rng": env._rng.bit_generator.state}
    if hasattr(env, "agent_selection"):   # the AEC env
        book.update({k: dict(getattr(env, k)) for k in _AEC_DICTS})
        book["infos"] = {a: dict(i) for a, i in env.infos.items()}
        book["agent_selection"] = env.agent_selection
        book["_skip_agent_selection"] = getattr(env, "_skip_agent_selection", None)
    return book


def capture_aec(env: Any) -> AECSnapshot:
    """The snapshot of a PettingZoo env's current decision (`clone_state`)."""
    f = env.fight
    if f.battle is None:
        raise TacticaError("no fight to snapshot", field="clone_state", expected="reset() before clone_state()")
    snap = AECSnapshot()
    snap._config = _multi_config(env)
    snap._battle, snap._players = _copy_fight(f, f.battle, (f.opponent,), f.layout)
    snap._fight = (list(f.learning), dict(f._start), dict(f._last), dict(f.legal), f.mask.copy(), dict(f.team_of))
    snap._book = _multi_book(env)
    return snap


def restore_aec(env: Any, snap: Any) -> None:
    """Put a PettingZoo env back at the snapshot's decision (`restore_state`)."""
    if not isinstance(snap, AECSnapshot):
        raise TacticaError(f"not a snapshot: {type(snap).__name__}", field="snapshot",
                           expected="what clone_state() returned")
    for key, want in _multi_config(env).items():
        if snap._config[key] != want:
            raise TacticaError(f"the snapshot is of another env: its {key} is {_short(snap._config[key])}",
                               field=f"snapshot.{key}", expected=f"{_short(want)}, as in this env")
    f = env.fight
    f.battle, (f.opponent,) = _copy_fight(f, snap._battle, snap._players, f.layout)
    learning, start, last, legal, mask, team_of = snap._fight
    f.learning, f._start, f._last, f.legal, f.mask = list(learning), dict(start), dict(last), dict(legal), mask.copy()
    f.team_of.clear()
    f.team_of.update(team_of)
    b = snap._book
    env.agents = list(b["agents"])
    env._rng.bit_generator.state = b["_rng"]
    if "agent_selection" in b:
        for k in _AEC_DICTS:
            setattr(env, k, dict(b[k]))
        env.infos = {a: dict(i) for a, i in b["infos"].items()}
        env.agent_selection = b["agent_selection"]
        env._skip_agent_selection = b["_skip_agent_selection"]


__all__ = ["AECSnapshot", "EnvSnapshot", "capture", "capture_aec", "restore", "restore_aec"]
