"""The options every Tactica env takes the same way: scenarios, rewards, unit slots.

`SkirmishEnv` (envs/skirmish.py) and the PettingZoo envs (envs/multiagent.py,
envs/parallel.py) read their `scenario`, `ruleset`, `generator`, `reward`, `map_size`,
`max_enemies` and `max_allies` arguments through these helpers, so the option names and
what they mean are one thing:

- `ScenarioPool(scenario, ruleset, generator)`: a bundled name, a file, a mapping, or
  `"generated"` (maps from envs/generators.py, with `generator` settings: `size` [H, W],
  `team_size`, `mirrored`, `round_limit`, `held_out`), or a list of them, one drawn at
  each reset (`draw`).
- `DEFAULT_REWARD` and `reward_config(reward)`: end rewards (`win`, `loss`, `draw`), the
  `illegal` penalty and the damage shaping weights (`damage_dealt`, `damage_taken`).
- `team_health`, `shaping`: a team's health and the damage shaping reward between two
  decisions, as shares of each side's full health.
- `slot_counts`: the unit slots a layout needs for the teams that learn.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

import numpy as np

from envs.generators import HELDOUT_SEED
from rules.errors import TacticaError
from rules.scenario import ScenarioSpec, load_scenario
from rules.state import BattleState

#: `agent_team` value for a side drawn at each reset
RANDOM_SIDE = "random"
DEFAULT_REWARD = {"win": 1.0, "loss": -1.0, "draw": 0.0, "damage_dealt": 0.0, "damage_taken": 0.0,
                  "illegal": -1.0}
GENERATED = "generated"


def reward_config(reward: Mapping[str, float] | None) -> dict[str, float]:
    """`DEFAULT_REWARD` updated with `reward` (an unknown key is an error)."""
    extra = sorted(set(reward or {}) - set(DEFAULT_REWARD))
    if extra:
        raise TacticaError(f"unknown reward key(s) {', '.join(map(repr, extra))}", field="reward",
                           expected=" / ".join(DEFAULT_REWARD))
    return {**DEFAULT_REWARD, **(reward or {})}


class ScenarioPool:
    """The scenarios an env draws from at each reset (see the module docstring)."""

    def __init__(self, scenario: str | Mapping[str, Any] | list, ruleset: str | None = None,
                 generator: Mapping[str, Any] | None = None) -> None:
        self.scenarios = list(scenario) if isinstance(scenario, (list, tuple)) else [scenario]
        if not self.scenarios:
            raise TacticaError("no scenario", field="scenario", expected="a scenario or a list of them")
        self.generator_args = dict(generator or {})
        self.ruleset = ruleset
        self.specs: dict[int, ScenarioSpec] = {}
        for i, sc in enumerate(self.scenarios):
            if sc == GENERATED:
                if ruleset is None:
                    raise TacticaError("a generated scenario needs a ruleset", field="ruleset",
                                       expected="a ruleset name")
                self.specs[i] = self.generate(0)
            else:
                self.specs[i] = load_scenario(sc)[0]
        spec = self.specs[0]
        if ruleset is not None and ruleset != spec.ruleset:
            raise TacticaError(f"scenario {spec.name} is a {spec.ruleset} scenario, not {ruleset}",
                               field="ruleset", expected=spec.ruleset)
        self.ruleset = spec.ruleset

    def check_rulesets(self) -> None:
        """Raise unless every scenario is of the pool's ruleset."""
        for sp in self.specs.values():
            if sp.ruleset != self.ruleset:
                raise TacticaError(f"scenario {sp.name} is a {sp.ruleset} scenario", field="scenario",
                                   expected=f"{self.ruleset} scenarios only")

    def check_team(self, team: str) -> None:
        """Raise unless every scenario has a team named `team`."""
        for sp in self.specs.values():
            teams = [t.name for t in sp.teams]
            if team not in teams:
                raise TacticaError(f"no team {team!r} in {sp.name}", field="agent_team",
                                   expected=" or ".join(teams + [repr(RANDOM_SIDE)]))

    @property
    def generated(self) -> bool:
        return GENERATED in self.scenarios

    def generate(self, seed: int) -> ScenarioSpec:
        """The generated scenario of `seed` under the pool's generator settings."""
        from envs.generators import generate_scenario
        args = {k: v for k, v in self.generator_args.items() if k not in ("held_out", "size")}
        if "size" in self.generator_args:  # [H, W]
            args["height"], args["width"] = (int(v) for v in self.generator_args["size"])
        args.setdefault("ruleset", self.ruleset)
        spec, _ = load_scenario(generate_scenario(seed=seed, **{k: v for k, v in args.items() if v is not None}))
        return spec

    def draw(self, rng: np.random.Generator) -> ScenarioSpec:
        """The scenario of the next episode: one of the list (a draw only when there are
        several), a generated one from a training seed (held-out seeds with `held_out`)."""
        k = int(rng.integers(0, len(self.scenarios))) if len(self.scenarios) > 1 else 0
        if self.scenarios[k] == GENERATED:
            lo = HELDOUT_SEED if self.generator_args.get("held_out") else 0
            return self.generate(int(rng.integers(lo, lo + HELDOUT_SEED)))
        return self.specs[k]

    def map_size(self) -> tuple[int, int]:
        """(H, W): the largest of the known maps and the generator's `size`."""
        gs = self.generator_args.get("size", (0, 0))
        return (max([len(sp.map.rows) for sp in self.specs.values()] + [int(gs[0])]),
                max([len(sp.map.rows[0]) for sp in self.specs.values()] + [int(gs[1])]))


def slot_counts(specs: list[ScenarioSpec], owns: Callable[[ScenarioSpec], list[str]],
                max_enemies: int | None = None, max_allies: int | None = None) -> tuple[int, int]:
    """(enemy slots, ally slots) for the teams `owns(spec)` of each scenario, unless given."""
    n_enemy = max_enemies or max(sum(len(t.combatants) for t in sp.teams if t.name != own)
                                 for sp in specs for own in owns(sp))
    n_ally = max_allies if max_allies is not None else max(
        max(0, sum(len(t.combatants) for t in sp.teams if t.name == own) - 1)
        for sp in specs for own in owns(sp))
    return n_enemy, n_ally


def team_health(state: BattleState, team: str, health: dict[str, tuple[float, float]],
                full: bool = False) -> tuple[float, float]:
    """(`team`'s health, every other team's), summed in figure order: what is left, or with
    `full` the most there is (`health`: figure id -> `Ruleset.health`)."""
    own = other = 0.0
    k = 1 if full else 0
    for c in state.combatants:
        h = health[c.id][k]
        if c.team == team:
            own += h
        else:
            other += h
    return own, other


def shaping(cfg: Mapping[str, float], last: tuple[float, float], now: tuple[float, float],
            start: tuple[float, float]) -> float:
    """The damage shaping between two decisions: `damage_dealt` x (others' health lost / their
    full health) - `damage_taken` x (own health lost / own full health)."""
    own, other = now
    lo, lt = last
    so, st = start
    reward = 0.0
    if cfg["damage_dealt"]:
        reward += cfg["damage_dealt"] * (lt - other) / max(1e-9, st)
    if cfg["damage_taken"]:
        reward -= cfg["damage_taken"] * (lo - own) / max(1e-9, so)
    return reward
