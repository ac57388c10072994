"""The same skirmish as a PettingZoo AEC env: one agent per figure.

Agents are figure ids; the acting figure is `agent_selection`, in the ruleset's turn
order. Each observation is a dict with `observation` (the single-agent encoding from the
agent's point of view; with `flat=True` one float32 vector, envs/flat.py) and
`action_mask` (int8; all zeros unless the agent is acting). At the end every agent of the
winning team gets +1, every other agent -1 (0 each for a draw); all agents terminate
together (truncate at the round limit). An illegal action ends the game with -1 for the
agent that took it. (The `reward` option changes these numbers and adds damage shaping.)

Options (the same as the parallel env's, envs/parallel.py; envs/multifight.py says what
each means): `scenario`, `ruleset`, `generator` (generated maps), `opponent` and
`agent_team` (scripted teams played inside `step`; default None: self-play, every figure
an agent), `reward` (end rewards, illegal penalty, damage shaping as `SkirmishEnv`'s),
`map_size`, `max_enemies`, `max_allies`, `flat`, `render_mode`. `env(**kwargs)` builds one;
`parallel_env(**kwargs)` (envs/parallel.py, re-exported here) builds the parallel env.
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np
from pettingzoo import AECEnv

from envs.fight_env import RENDER_MODES, FightEnvMixin
from envs.parallel import SkirmishParallel, parallel_env  # noqa: F401  (PettingZoo-style: env and parallel_env here)
from agents.base import Policy


class SkirmishAEC(FightEnvMixin, AECEnv):
    """Turn-based multi-agent skirmish (see the module docstring)."""

    metadata = {"render_modes": RENDER_MODES, "name": "tactica_skirmish_v0", "is_parallelizable": False}

    def __init__(self, scenario: str | Mapping[str, Any] | list = "cortex/warehouse",
                 map_size: tuple[int, int] | None = None, render_mode: str | None = None, *,
                 ruleset: str | None = None, generator: Mapping[str, Any] | None = None,
                 opponent: str | Policy | list | None = None, agent_team: str | None = None,
                 reward: Mapping[str, float] | None = None, max_enemies: int | None = None,
                 max_allies: int | None = None, flat: bool = False,
                 turn_order: bool = False) -> None:
        super().__init__()
        f = self._build(scenario, map_size, render_mode, ruleset, generator, opponent, agent_team, reward,
                        max_enemies, max_allies, flat, turn_order)
        self.spec = f.spec
        self.team_of = f.team_of

    # -- AEC API --------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.agents = self.fight.reset(self._rng)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        if self.battle.state.over:   # the opponents ended the fight before an agent acted
            self.rewards = self.fight.rewards(self.agents)
            self._finish()
            self._accumulate_rewards()
        else:
            self.agent_selection = self.fight.actor

    def _finish(self, illegal_by: str | None = None) -> None:
        s = self.battle.state
        for a in self.agents:
            if self.fight.truncated and illegal_by is None:
                self.truncations[a] = True
            else:
                self.terminations[a] = True
            self.infos[a] = {"winner": s.winner, "illegal_action": a == illegal_by}
        self.fight.legal = {}
        if self.agents:
            self.agent_selection = self.agents[0]

    def observe(self, agent: str) -> dict[str, Any]:
        f = self.fight
        mask = f.mask.copy() if agent == f.actor else np.zeros(f.layout.n_actions, dtype=np.int8)
        return f.observation(agent, mask)

    def step(self, action) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        if not self.fight.play(int(action)):
            self.rewards = self.fight.illegal_rewards(self.agents, agent)
            self._finish(illegal_by=agent)
        else:
            self.rewards = self.fight.rewards(self.agents)
            if self.battle.state.over:
                self._finish()
            else:
                self.agent_selection = self.fight.actor
        self._accumulate_rewards()

    # -- snapshots (envs/snapshot.py; clone_state: envs/fight_env.py) ---------------------
    def restore_state(self, snap) -> None:
        """Put the env back at `snap`'s decision (`last()` and `observe` then read it); a
        snapshot of another scenario or layout is refused (`TacticaError`)."""
        from envs.snapshot import restore_aec
        restore_aec(self, snap)


def env(**kwargs) -> SkirmishAEC:
    """PettingZoo-style constructor of the AEC env (options: the module docstring)."""
    return SkirmishAEC(**kwargs)
