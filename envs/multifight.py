"""`MultiFight`: the fight behind both PettingZoo envs (AEC and parallel), and their options.

Both envs (envs/multiagent.py `SkirmishAEC`, envs/parallel.py `SkirmishParallel`) take
the same keyword options, with `SkirmishEnv`'s names and meanings (envs/options.py):

- `scenario`: a bundled name, a file, a mapping, `"generated"` (with `ruleset` and
  `generator` settings: `size` [H, W], `team_size`, `mirrored`, `round_limit`, `held_out`),
  or a list of them, one drawn at each reset. `ruleset`: checked against the scenarios
  (needed for `"generated"`). `map_size` (H, W), `max_enemies`, `max_allies`: the padded
  map and unit slots (default: the largest the known scenarios need; a generated pool
  knows only its seed-0 map when built, so give `generator` a `size`, or these three).
- `opponent`: None (default, unlike `SkirmishEnv`'s `tactical`; self-play: every figure
  of every team is an agent), or a
  policy name (`tactical` ...), a `Policy`, or a list drawn from at each reset: it plays
  every team but the learning one inside `step` (and `reset`). `agent_team` (only with an
  opponent): the learning team, default the first; `"random"`: drawn at each reset.
- `reward`: a dict updating `DEFAULT_REWARD`. At the end every agent of the winning team
  gets `win` (+1), every other agent `loss` (-1), `draw` (0) each for a draw; an illegal
  action ends the fight with `illegal` (-1) for the agent that took it and 0 for the others.
  Optional damage shaping after each decision, to every agent of a learning team alike:
  `damage_dealt` x (health the other teams lost / their full health) - `damage_taken` x
  (health its team lost / its full health); both 0 by default. Over an episode an agent's
  shaping sums to its team's final damage shares (the sum telescopes). With the default
  rewards and equal teams (mirrored generated maps), an episode's rewards sum to 0 over
  all agents.
- `flat`: the observation's `observation` is one float32 `Box` vector instead of the dict
  encoding: the dict's keys in `flat_order` (envs/flat.py: `cover`, `economy`, `grid`,
  `to_act` with `turn_order`, `units`, each row-major).
- `turn_order`: also observe `to_act` (envs/encoding.py `Layout.to_act`), one flag per unit
  slot for the figures yet to take their turn this round, slot 0 the agent's own figure.
- seeding: `reset(seed=...)` seeds the env's generator; a reset without a seed draws on.
  The scenario, generated map, dice, opponent and side come from it, in `SkirmishEnv`'s order.

Agents are figure ids (`possible_agents`: every figure of a learning team in any of the
scenarios; for generated maps, `red1`... and `blue1`..., `generators.figure_ids`). A
figure stays an agent until the fight ends, when every agent ends together (terminated,
or truncated at the round limit): a downed figure may be revived, and it shares its team's
end reward.
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np
from gymnasium import spaces

from agents.base import Policy, make_policy
from envs.encoding import Layout, layout_for
from envs.flat import flat_order, flat_space, flatten_observation
from envs.options import GENERATED, RANDOM_SIDE, ScenarioPool, reward_config, shaping, slot_counts, team_health
from rules.actions import Action
from rules.battle import Battle
from rules.choices import ASK, decider_for
from rules.dice import Dice
from rules.errors import TacticaError
from rules.ruleset import get_ruleset
from rules.scenario import ScenarioSpec, new_battle


class MultiFight:
    """A fight whose learning teams' figures are agents (see the module docstring)."""

    def __init__(self, scenario: str | Mapping[str, Any] | list = "cortex/warehouse", ruleset: str | None = None,
                 generator: Mapping[str, Any] | None = None, opponent: str | Policy | list | None = None,
                 agent_team: str | None = None, reward: Mapping[str, float] | None = None,
                 map_size: tuple[int, int] | None = None, max_enemies: int | None = None,
                 max_allies: int | None = None, flat: bool = False,
                 turn_order: bool = False) -> None:
        self.pool = ScenarioPool(scenario, ruleset, generator)
        self.pool.check_rulesets()
        self.spec: ScenarioSpec = self.pool.specs[0]
        self.rs = get_ruleset(self.pool.ruleset)
        if opponent is None:
            self.opponents: list | None = None
            if agent_team is not None:
                raise TacticaError(f"agent_team {agent_team!r} without an opponent", field="agent_team",
                                   expected="None in self-play (every team learns), or an opponent for the others")
        else:
            self.opponents = list(opponent) if isinstance(opponent, (list, tuple)) else [opponent]
            if not self.opponents:
                raise TacticaError("no opponent", field="opponent", expected="a policy, a list of them, or None")
        self._random_side = agent_team == RANDOM_SIDE
        self._agent_team_arg = None if self._random_side else agent_team
        if self._agent_team_arg is not None:
            self.pool.check_team(self._agent_team_arg)
        self.reward_cfg = reward_config(reward)
        self.flat = bool(flat)
        self.turn_order = bool(turn_order)
        H, W = map_size or self.pool.map_size()
        n_enemy, n_ally = slot_counts(list(self.pool.specs.values()), self.learners, max_enemies, max_allies)
        self.layout: Layout = layout_for(self.rs, int(H), int(W), n_enemy, n_ally)
        self.team_of: dict[str, str] = {}   # figure id -> team, of every possible agent (and more later)
        for i, sp in self.pool.specs.items():
            teams = self.learners(sp)
            if self.pool.scenarios[i] == GENERATED:   # every figure a generated map can field
                from envs.generators import figure_ids
                ids = figure_ids(self.pool.generator_args.get("team_size")).items()
            else:
                ids = ((c["id"], t.name) for t in sp.teams for c in t.combatants)
            self.team_of.update((a, t) for a, t in ids if t in teams and a not in self.team_of)
        self.possible_agents = list(self.team_of)
        dict_space = self.layout.spaces(to_act=self.turn_order)
        self.order = flat_order(dict_space)
        self.observation_space = spaces.Dict({"observation": flat_space(dict_space) if self.flat else dict_space,
                                              "action_mask": spaces.Box(0, 1, (self.layout.n_actions,), np.int8)})
        self.action_space = spaces.Discrete(self.layout.n_actions)
        self.battle: Battle | None = None
        self.learning: list[str] = []
        self.legal: dict[int, Action] = {}
        self.mask = np.zeros(self.layout.n_actions, dtype=np.int8)

    def learners(self, spec: ScenarioSpec) -> list[str]:
        """The teams of `spec` whose figures may be agents."""
        if self.opponents is None or self._random_side:
            return [t.name for t in spec.teams]
        return [self._agent_team_arg or spec.teams[0].name]

    # -- an episode -----------------------------------------------------------------
    def reset(self, rng: np.random.Generator) -> list[str]:
        """Start a fight drawn from `rng`; the agents, in scenario order."""
        spec = self.pool.draw(rng)
        dice = Dice(np.random.default_rng(int(rng.integers(0, 2**63 - 1))))
        self.battle = b = new_battle(spec, dice, record=False)
        self.learning = [t.name for t in spec.teams]
        opponent = None
        if self.opponents is not None:
            opp = self.opponents[int(rng.integers(0, len(self.opponents)))] if len(self.opponents) > 1 \
                else self.opponents[0]
            pseed = int(rng.integers(0, 2**63 - 1))
            team = self._agent_team_arg or spec.teams[0].name
            if self._random_side:   # drawn last, as in SkirmishEnv
                team = spec.teams[int(rng.integers(0, len(spec.teams)))].name
            self.learning = [team]
            opponent = opp if isinstance(opp, Policy) else make_policy(opp, pseed)
        # the agents answer their figures' choices as decisions; an opponent answers at once,
        # or as its next decision when it is a network with an answer block (decider_for)
        opp_decider = (decider_for(opponent, b.state) or opponent) if opponent is not None else None
        b.deciders = {t: ASK if t in self.learning else opp_decider for t in b.state.teams}
        b.start()
        self.opponent = opponent
        self._advance_opponents()
        agents = [c["id"] for t in spec.teams if t.name in self.learning for c in t.combatants]
        self.team_of.update({c["id"]: t.name for t in spec.teams for c in t.combatants})
        health = self._healths()
        self._start = {t: team_health(b.state, t, health, full=True) for t in self.learning}
        self._last = {t: team_health(b.state, t, health) for t in self.learning}
        self.settle()
        return agents

    def _advance_opponents(self) -> None:
        b = self.battle
        s = b.state
        while not s.over and s.actor is not None and s.actor.team not in self.learning:
            b.step(self.opponent.act(s, s.actor), check=False)

    def _healths(self) -> dict[str, tuple[float, float]]:
        health = self.rs.health
        return {c.id: health(c) for c in self.battle.state.combatants}

    def settle(self) -> None:
        """The legal map and mask of the acting agent's decision (empty when the fight is over)."""
        s = self.battle.state
        if s.over or s.actor is None:
            self.legal = {}
            return
        self.legal = self.layout.legal_map(s, s.actor, self.rs.legal_actions(s))
        self.mask = self.layout.mask(self.legal)   # once a decision: observations copy it

    @property
    def actor(self) -> str | None:
        """The acting agent, None once the fight is over."""
        s = self.battle.state
        return None if s.over or s.actor is None else s.actor.id

    def play(self, action: int) -> bool:
        """Play the acting agent's action and the opponents' turns after it; False (and
        nothing played) when the action is not legal now."""
        a = int(action)
        if a not in self.legal:
            return False
        self.battle.step(self.legal[a], check=False)
        self._advance_opponents()
        self.settle()
        return True

    def rewards(self, agents: list[str]) -> dict[str, float]:
        """Each agent's reward for the decision just played: its team's damage shaping, and
        the end reward when the fight is over."""
        s = self.battle.state
        cfg = self.reward_cfg
        team_r = dict.fromkeys(self.learning, 0.0)
        if cfg["damage_dealt"] or cfg["damage_taken"]:
            health = self._healths()
            for t in self.learning:
                now = team_health(s, t, health)
                team_r[t] = shaping(cfg, self._last[t], now, self._start[t])
                self._last[t] = now
        if s.over:
            for t in team_r:
                end = "draw" if s.winner is None else "win" if s.winner == t else "loss"
                team_r[t] += cfg[end]
        return {a: team_r[self.team_of[a]] for a in agents}

    def illegal_rewards(self, agents: list[str], by: str) -> dict[str, float]:
        """The rewards when `by` took an illegal action: the penalty to it, 0 to the others."""
        return {a: float(self.reward_cfg["illegal"]) if a == by else 0.0 for a in agents}

    @property
    def truncated(self) -> bool:
        """Whether the fight ended at its round limit (a truncation, not a termination)."""
        return self.battle.state.end_reason == "round limit"

    def observation(self, agent: str, mask: np.ndarray) -> dict[str, Any]:
        """`agent`'s observation, from its own point of view, with `mask` as its action mask."""
        s = self.battle.state
        c = s.by_id[agent]
        lay = self.layout
        acting = not s.over and s.actor is c
        # with `turn_order`, slot 0 of the flags is this agent's figure, acting or not
        obs = lay.observe(s, c, c.team, moves=lay.move_block(self.mask) if acting else None, to_act=self.turn_order)
        if self.flat:
            obs = flatten_observation(obs, self.order)
        return {"observation": obs, "action_mask": mask}
