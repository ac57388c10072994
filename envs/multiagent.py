"""The same skirmish as a PettingZoo AEC env: one agent per figure.

Agents are figure ids; the acting figure is `agent_selection`, in the ruleset's turn
order. Each observation is a dict with `observation` (the single-agent encoding from the
agent's point of view) and `action_mask` (int8; all zeros unless the agent is acting).
At the end every agent of the winning team gets +1, every other agent -1 (0 each for a
draw); all agents terminate together (truncate at the round limit). An illegal action
ends the game with -1 for the agent that took it.
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from envs.encoding import layout_for
from envs.render import render_ansi, render_rgb
from rules.battle import Battle
from rules.dice import Dice
from rules.ruleset import get_ruleset
from rules.choices import ASK
from rules.scenario import load_scenario, new_battle


class SkirmishAEC(AECEnv):
    """Turn-based multi-agent skirmish (see the module docstring)."""

    metadata = {"render_modes": ["ansi", "rgb_array"], "name": "tactica_skirmish_v0", "is_parallelizable": False}

    def __init__(self, scenario: str | Mapping[str, Any] = "cortex/warehouse", map_size: tuple[int, int] | None = None,
                 render_mode: str | None = None) -> None:
        super().__init__()
        spec, _ = load_scenario(scenario)
        self.spec = spec
        self.rs = get_ruleset(spec.ruleset)
        rows = spec.map.rows
        H, W = map_size or (len(rows), len(rows[0]))
        sizes = {t.name: len(t.combatants) for t in spec.teams}
        total = sum(sizes.values())
        n_enemy = max(total - n for n in sizes.values())
        n_ally = max(n - 1 for n in sizes.values())
        self.layout = layout_for(self.rs, H, W, n_enemy, n_ally)
        self.possible_agents = [c["id"] for t in spec.teams for c in t.combatants]
        self.team_of = {c["id"]: t.name for t in spec.teams for c in t.combatants}
        obs_space = spaces.Dict({"observation": self.layout.spaces(),
                                 "action_mask": spaces.Box(0, 1, (self.layout.n_actions,), np.int8)})
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(self.layout.n_actions) for a in self.possible_agents}
        self.render_mode = render_mode
        self.battle: Battle | None = None
        self._rng = np.random.default_rng()

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # -- AEC API --------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        dice = Dice(np.random.default_rng(int(self._rng.integers(0, 2**63 - 1))))
        self.battle = new_battle(self.spec, dice, record=False)
        self.battle.deciders = {t: ASK for t in self.battle.state.teams}   # every figure answers its choices
        self.battle.start()
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._legal: dict = {}
        self._settle()

    def _settle(self) -> None:
        s = self.battle.state
        if s.over:
            self._finish()
            return
        self.agent_selection = s.actor.id
        self._legal = self.layout.legal_map(s, s.actor, self.rs.legal_actions(s))
        self._mask = self.layout.mask(self._legal)   # once a decision: observe() copies it

    def _finish(self, illegal_by: str | None = None) -> None:
        s = self.battle.state
        for a in self.agents:
            if illegal_by is not None:
                r = -1.0 if a == illegal_by else 0.0
            elif s.winner is None:
                r = 0.0
            else:
                r = 1.0 if self.team_of[a] == s.winner else -1.0
            self.rewards[a] = r
            if s.end_reason == "round limit" and illegal_by is None:
                self.truncations[a] = True
            else:
                self.terminations[a] = True
            self.infos[a] = {"winner": s.winner, "illegal_action": a == illegal_by}
        self._legal = {}
        if self.agents:
            self.agent_selection = self.agents[0]

    def observe(self, agent: str) -> dict[str, Any]:
        s = self.battle.state
        c = s.by_id[agent]
        acting = not s.over and s.actor is c
        lay = self.layout
        obs = lay.observe(s, c, c.team, moves=lay.move_block(self._mask) if acting else None)
        mask = self._mask.copy() if acting else np.zeros(lay.n_actions, dtype=np.int8)
        return {"observation": obs, "action_mask": mask}

    def step(self, action) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        for a in self.agents:
            self.rewards[a] = 0.0
        a = int(action)
        if a not in self._legal:
            self._finish(illegal_by=agent)
        else:
            self.battle.step(self._legal[a], check=False)
            self._settle()
        self._accumulate_rewards()

    # -- snapshots (envs/snapshot.py) ---------------------------------------------------
    def clone_state(self):
        """A snapshot of the current decision (the fight, its dice, the agents' rewards, flags
        and infos, the agent selection): later play leaves it as it is."""
        from envs.snapshot import capture_aec
        return capture_aec(self)

    def restore_state(self, snap) -> None:
        """Put the env back at `snap`'s decision (`last()` and `observe` then read it); a
        snapshot of another scenario or layout is refused (`TacticaError`)."""
        from envs.snapshot import restore_aec
        restore_aec(self, snap)

    def render(self):
        if self.render_mode is None or self.battle is None:
            return None
        if self.render_mode == "ansi":
            return render_ansi(self.battle.state, self.rs)
        return render_rgb(self.battle.state, self.rs, None, (self.layout.height, self.layout.width))

    def close(self) -> None:
        pass


def env(**kwargs) -> SkirmishAEC:
    """PettingZoo-style constructor."""
    return SkirmishAEC(**kwargs)
