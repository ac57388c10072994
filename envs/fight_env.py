"""What the two PettingZoo envs (`SkirmishAEC`, `SkirmishParallel`) share around their
`MultiFight` core: building it from the options, the per-agent spaces, `battle`, rendering,
and taking a snapshot (envs/snapshot.py)."""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np
from gymnasium import spaces

from agents.base import Policy
from envs.multifight import MultiFight
from envs.render import render_ansi, render_rgb
from rules.battle import Battle
from rules.errors import TacticaError

RENDER_MODES = ["ansi", "rgb_array"]


class FightEnvMixin:
    """The shared half of both PettingZoo envs; the env classes add their own API."""

    def _build(self, scenario: str | Mapping[str, Any] | list, map_size: tuple[int, int] | None,
               render_mode: str | None, ruleset: str | None, generator: Mapping[str, Any] | None,
               opponent: str | Policy | list | None, agent_team: str | None, reward: Mapping[str, float] | None,
               max_enemies: int | None, max_allies: int | None, flat: bool,
               turn_order: bool = False) -> MultiFight:
        """Build the fight core from the options (envs/multifight.py) and the agents' spaces."""
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise TacticaError(f"render mode {render_mode!r}", field="render_mode", expected="ansi or rgb_array")
        self.fight = f = MultiFight(scenario, ruleset, generator, opponent, agent_team, reward, map_size,
                                    max_enemies, max_allies, flat, turn_order)
        self.rs = f.rs
        self.layout = f.layout
        self.reward_cfg = f.reward_cfg
        self.possible_agents = list(f.possible_agents)
        self.observation_spaces = {a: f.observation_space for a in self.possible_agents}
        self.action_spaces = {a: f.action_space for a in self.possible_agents}
        self.render_mode = render_mode
        self._rng = np.random.default_rng()
        return f

    @property
    def battle(self) -> Battle | None:
        return self.fight.battle

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def clone_state(self):
        """A snapshot of the current decision (the fight, its dice and opponent, the agents and
        their bookkeeping, the reset generator): later play leaves it as it is."""
        from envs.snapshot import capture_aec
        return capture_aec(self)

    def render(self):
        if self.render_mode is None or self.battle is None:
            return None
        if self.render_mode == "ansi":
            return render_ansi(self.battle.state, self.rs)
        return render_rgb(self.battle.state, self.rs, None, (self.layout.height, self.layout.width))

    def close(self) -> None:
        pass
