"""The skirmish as a PettingZoo `ParallelEnv`: every figure of the learning teams is an agent.

Tactica is turn-based, so one figure acts at a time. At each parallel step:

- `agents` are the figures of the learning teams (every team in self-play, the default;
  the `agent_team` when an `opponent` plays the others), all of them until the fight ends.
- Each observation is a dict: `observation` (the single-agent encoding from the agent's
  point of view, or with `flat=True` one float32 vector, envs/flat.py `flat_order`) and
  `action_mask` (int8). The acting agent's mask is its exact legal mask; every other
  agent's mask allows only `NO_OP` (action 0), and its action is ignored, whatever it is.
  `infos[agent]["acting"]` says which agent acts (also `infos[agent]["actor"]`, its id).
- `step(actions)` plays the acting agent's action (it must be in `actions`), then the
  opponents' turns, and returns every agent's observation, reward, terminated, truncated
  and info. An illegal action ends the fight: `illegal` (-1) for the agent that took it,
  0 for the others, and `infos[agent]["illegal_action"]`.
- Rewards (`reward` option, `SkirmishEnv`'s names): at the end `win` (+1) to every agent
  of the winning team, `loss` (-1) to every other agent, `draw` (0) to each for a draw,
  plus optional damage shaping to every agent of a team alike (envs/multifight.py).
- The fight ends for every agent at once (terminated; truncated at the round limit); the
  last step reports them all, with `infos[agent]["winner"]`, and `agents` is then empty.

Options are the AEC env's (envs/multiagent.py; envs/multifight.py says what each means):
`scenario` (a name, a file, a list, or `"generated"` with `ruleset` and `generator`),
`ruleset`, `generator`, `opponent`, `agent_team`, `reward`, `map_size`, `max_enemies`,
`max_allies`, `flat`, `render_mode`. Seeding: `reset(seed=...)`; the same seed and actions
give the same episode.

    from envs.parallel import parallel_env
    env = parallel_env(scenario="generated", ruleset="cortex", generator={"size": [12, 12]})
    obs, infos = env.reset(seed=0)
    while env.agents:
        actions = {a: env.action_space(a).sample(mask=obs[a]["action_mask"]) for a in env.agents}
        obs, rewards, terms, truncs, infos = env.step(actions)
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np
from pettingzoo import ParallelEnv

from agents.base import Policy
from envs.fight_env import RENDER_MODES, FightEnvMixin
from rules.errors import TacticaError

#: the action a waiting agent's mask allows (ignored when taken)
NO_OP = 0


class SkirmishParallel(FightEnvMixin, ParallelEnv):
    """Turn-based multi-agent skirmish under the parallel API (see the module docstring)."""

    metadata = {"render_modes": RENDER_MODES, "name": "tactica_skirmish_v0"}

    def __init__(self, scenario: str | Mapping[str, Any] | list = "cortex/warehouse",
                 map_size: tuple[int, int] | None = None, render_mode: str | None = None, *,
                 ruleset: str | None = None, generator: Mapping[str, Any] | None = None,
                 opponent: str | Policy | list | None = None, agent_team: str | None = None,
                 reward: Mapping[str, float] | None = None, max_enemies: int | None = None,
                 max_allies: int | None = None, flat: bool = False,
                 turn_order: bool = False) -> None:
        self._build(scenario, map_size, render_mode, ruleset, generator, opponent, agent_team, reward,
                    max_enemies, max_allies, flat, turn_order)
        self.agents: list[str] = []
        self._no_op = np.zeros(self.layout.n_actions, dtype=np.int8)
        self._no_op[NO_OP] = 1

    # -- parallel API ------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.agents = self.fight.reset(self._rng)
        return self._observations(), self._infos()

    def _observations(self) -> dict[str, dict[str, Any]]:
        f = self.fight
        actor = f.actor
        return {a: f.observation(a, f.mask.copy() if a == actor else self._no_op.copy()) for a in self.agents}

    def _infos(self) -> dict[str, dict[str, Any]]:
        actor = self.fight.actor
        rnd = self.battle.state.round
        return {a: {"acting": a == actor, "actor": actor, "round": rnd} for a in self.agents}

    # -- snapshots (envs/snapshot.py; clone_state: envs/fight_env.py) ---------------------
    def restore_state(self, snap) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]]]:
        """Put the env back at `snap`'s decision; its observations and infos, as `reset` gives
        them (the fight must not be over). A snapshot of another env is refused (`TacticaError`)."""
        from envs.snapshot import restore_aec
        restore_aec(self, snap)
        return (self._observations(), self._infos()) if self.agents else ({}, {})

    def step(self, actions: Mapping[str, Any]):
        if not self.agents:
            raise TacticaError("step() called on a finished episode", field="actions",
                               expected="reset() before stepping again")
        f = self.fight
        agents = self.agents
        actor = f.actor
        illegal = False
        if actor is not None:   # None: the opponents ended the fight before an agent acted
            if actor not in actions:
                raise TacticaError(f"no action for the acting agent {actor!r}", field="actions",
                                   expected=f"a dict with an action for {actor!r}")
            illegal = not f.play(int(actions[actor]))
        rewards = f.illegal_rewards(agents, actor) if illegal else f.rewards(agents)
        over = illegal or self.battle.state.over
        trunc = over and not illegal and f.truncated
        obs = self._observations()
        infos = self._infos()
        if over:
            f.legal = {}
            winner = self.battle.state.winner
            for a in agents:
                obs[a]["action_mask"] = self._no_op.copy()
                infos[a].update(acting=False, actor=None, winner=winner, illegal_action=illegal and a == actor)
        terminations = {a: over and not trunc for a in agents}
        truncations = {a: trunc for a in agents}
        if over:
            self.agents = []
        return obs, rewards, terminations, truncations, infos


def parallel_env(**kwargs) -> SkirmishParallel:
    """PettingZoo-style constructor of the parallel env (options: the module docstring)."""
    return SkirmishParallel(**kwargs)
