"""`SkirmishEnv`: a tabletop skirmish under real rules as a single-agent Gymnasium env."""

from __future__ import annotations

from typing import Any, Mapping

import gymnasium as gym
import numpy as np

from agents.base import Policy, make_policy
from envs import snapshot
from envs.encoding import GRID_CHANNELS, Layout, layout_for
from envs.snapshot import EnvSnapshot
from rules.actions import END_TURN, Action
from rules.battle import Battle
from rules.choices import ASK, decider_for
from rules.dice import Dice
from rules.errors import TacticaError
from rules.ruleset import get_ruleset
from rules.scenario import ScenarioSpec, new_battle
from rules.state import BattleState, Combatant

# the options every env takes the same way (envs/options.py); names kept here for importers
from envs.options import (DEFAULT_REWARD, RANDOM_SIDE, ScenarioPool, reward_config, shaping,  # noqa: F401
                          slot_counts, team_health)


class SkirmishEnv(gym.Env):
    """A tabletop-RPG skirmish: one team is the agent, the other teams are played by a policy.

    ## Description
    Two or more teams fight on a square-grid battle map under one rule system (`cortex` ...)
    until one team is left standing or the round limit passes. Each step is one decision of
    the agent team's acting figure; the opponents' turns are played inside `step` by the
    opponent policy (a registry name such as `tactical`, or a `Policy` object).

    ## Action space
    One flat `Discrete(n)`, laid out from the ruleset's declared actions (see
    `envs.encoding`): 0 ends the turn; `1 + y * W + x` moves to padded cell (x, y); then each
    (kind, weapon slot, option) template against each enemy slot; then options on oneself;
    then options towards each ally slot; then the answers to a question the rules ask the
    acting figure (rules/choices.py). `describe_action(i)` says what an index means. The
    mask is exact: `action_masks()` (for sb3-contrib MaskablePPO) and `info["action_mask"]`
    (int8) mark the indices that stand for a legal action now.

    ## Observation space
    A `Dict`: `grid` (channels x H x W: map, cover, figures, health, prone, down, reachable
    cells, line of sight, threat, objects), `cover` (per enemy slot, its cover against the
    acting figure and the acting figure's against it), `economy` (the ruleset's named
    action-economy numbers, `economy_names`), `units` (slot 0 the acting figure, then allies,
    then enemies: position relative to the acting figure, health, conditions, reach, ammo,
    line of sight). Maps smaller than `map_size` are padded. With `advice`, also `advice`
    (2 x n actions: the advisor's pick, and its scores relative to its best; envs/advice.py),
    and with `advice_parts` too, `advice_parts` (3 x n actions: the hit odds, expected damage
    and exposure its scores are made of).
    With `clock`, the last economy slot holds the rounds left before the round limit, as a
    share of the limit (envs/encoding.py, `CLOCK_SLOT`). Every channel, feature and field with
    its meaning, scaling and range: docs/observations.md (`python -m envs.describe`).

    ## Rewards
    +1 when the agent team wins, -1 when it loses, 0 for a draw (the `reward` argument
    changes them); optional shaping per step: `damage_dealt` x (enemy health lost / the enemy
    team's full health) and `damage_taken` x (own health lost / own team's full health),
    both 0 by default. An illegal action gives `reward["illegal"]` (-1) and ends the episode.
    The shaping sums to the fight's final damage difference, so it is not neutral: in a
    ruleset where many fights are drawn, `damage_taken` pays for keeping health in a fight
    that ends drawn anyway, and a learner turns passive (cybergeneration, docs/results.md);
    use `damage_dealt` alone there, with `clock`, so a draw is not bootstrapped past.

    ## Episode end
    Terminated when a side is out (or after an illegal action, with `info["illegal_action"]`);
    truncated when the fight reaches its round limit, unless the env has the `clock`: then the
    agent sees the limit coming, the draw at the limit is part of the task, and the episode
    is terminated (learners then do not bootstrap past it). Stepping after the end raises an
    error.

    ## Arguments
    `ruleset` (default: the scenario's), `scenario` (a bundled name, a file, or "generated"
    with `generator` settings), `opponent` (policy name or object, default `tactical`),
    `agent_team` (default: the first team; `"random"`: a team drawn at each reset, so a
    policy learns both sides of a mirrored map), `reward` (a dict updating `DEFAULT_REWARD`),
    `map_size` ((H, W) to pad to), `max_enemies` / `max_allies` (unit slots),
    `render_mode` (`ansi` or `rgb_array`), `advice` (a scripted policy, `tactical` or `bold`, whose
    ranking of each decision's options the observation then carries as `advice`,
    envs/advice.py), `advice_parts` (with `advice`: also the parts of its scores, `advice_parts`),
    `clock` (observe the rounds left; a draw at the round limit terminates), `turn_order` (observe
    `to_act`: which figures are yet to take their turn this round, one flag per unit slot).

    ## Snapshots
    `clone_state()` returns an opaque snapshot of everything that decides what the env does
    next (the fight, its dice, the opponent and the advisor with their memories, the env's
    bookkeeping); `restore_state(snapshot)` puts the env back there, as often as wanted, and
    returns that decision's observation and info: the same actions then give the same
    results, bit for bit. For search and expert iteration (envs/snapshot.py).

    ## Registered configurations
    `tactica/Skirmish-v{N}` (generic: pass `ruleset` and `scenario`) and one id per bundled
    scenario, e.g. `tactica/CortexWarehouse-v{N}`, where N is the ruleset's version.

    ## Version history
    - v1: first release (each ruleset's version 1).
    - v2 (issue 32, every ruleset's version 2): the rules follow the seeds more exactly
      (docs/<ruleset>.md, "Changes in version 2"); roll events name their check and
      modifiers; the choices a seed gives a figure are decisions: when the rules ask one of
      the agent's figures, the decision is its answer, from the answer block at the end of
      the action space (`Ruleset.answers`: every ruleset's layout grows by its answers; a
      policy exported under v1 keeps its layout and answers with the defaults).
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 4}

    def __init__(self, ruleset: str | None = None, scenario: str | Mapping[str, Any] | list = "cortex/warehouse",
                 opponent: str | Policy | list = "tactical", agent_team: str | None = None,
                 reward: Mapping[str, float] | None = None, map_size: tuple[int, int] | None = None,
                 max_enemies: int | None = None, max_allies: int | None = None,
                 generator: Mapping[str, Any] | None = None, render_mode: str | None = None,
                 advice: str | None = None, clock: bool = False, advice_parts: bool = False,
                 turn_order: bool = False) -> None:
        super().__init__()
        self.pool = ScenarioPool(scenario, ruleset, generator)
        self.scenarios = self.pool.scenarios
        self.scenario_arg = self.scenarios[0]
        self.generator_args = self.pool.generator_args
        spec = self.pool.specs[0]
        self.ruleset_name = self.pool.ruleset
        self.rs = get_ruleset(spec.ruleset)
        self.spec0 = spec
        self._random_side = agent_team == RANDOM_SIDE
        if self._random_side:
            agent_team = None   # the team is drawn at each reset
        self._agent_team_arg = agent_team
        if agent_team is not None:
            self.pool.check_team(agent_team)
        self.agent_team = agent_team or spec.teams[0].name
        self.pool.check_rulesets()
        if map_size is None:
            map_size = self.pool.map_size()
        self.map_size = (int(map_size[0]), int(map_size[1]))
        def owns(sp: ScenarioSpec) -> list[str]:   # the teams the agent may play
            return [t.name for t in sp.teams] if self._random_side else [agent_team or sp.teams[0].name]

        n_enemy, n_ally = slot_counts(list(self.pool.specs.values()), owns, max_enemies, max_allies)
        self.layout: Layout = layout_for(self.rs, self.map_size[0], self.map_size[1], n_enemy, n_ally)
        if advice is not None or advice_parts:
            from envs.advice import check_advisor
            check_advisor(advice, bool(advice_parts))
        self.advice = advice
        self.advice_parts = bool(advice_parts)
        self.clock = bool(clock)
        self.turn_order = bool(turn_order)
        self._advisor = None
        self.observation_space = self.layout.spaces(advice=advice is not None, parts=self.advice_parts,
                                                    to_act=self.turn_order)
        self.action_space = gym.spaces.Discrete(self.layout.n_actions)
        self.opponents = list(opponent) if isinstance(opponent, (list, tuple)) else [opponent]
        self.opponent_arg = self.opponents[0]
        self.reward_cfg = reward_config(reward)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise TacticaError(f"render mode {render_mode!r}", field="render_mode", expected="ansi or rgb_array")
        self.render_mode = render_mode
        self.battle: Battle | None = None
        self._done = True
        self._legal: dict[int, Action] = {0: END_TURN}
        self._mask = self.layout.mask(self._legal)   # the int8 mask of `_legal`, set with it
        self._opponent: Policy | None = None
        #: the current decision's advice keys (`advice`, `advice_parts`: copies)
        self._advice_rows: dict[str, np.ndarray] | None = None

    @classmethod
    def for_policy(cls, policy, **kwargs) -> "SkirmishEnv":
        """The env an exported policy (`agents.learned.NumpyPolicy`) was trained on: its ruleset on
        generated maps of its size and slot counts, with its advisor, clock and score parts
        (`kwargs`, e.g. `opponent`, go to the env as well)."""
        fp = policy.meta["fingerprint"]
        return cls(ruleset=fp["ruleset"], scenario="generated", map_size=(fp["height"], fp["width"]),
                   max_enemies=fp["n_enemy"], max_allies=fp["n_ally"], advice=policy.advice, clock=policy.clock,
                   advice_parts=policy.advice_parts, turn_order=policy.turn_order, **kwargs)

    # -- helpers --------------------------------------------------------------------
    def fingerprint(self) -> dict[str, Any]:
        """What a policy trained on this env must match (the layout's, with the advisor)."""
        return self.layout.fingerprint(self.advice, self.clock, self.advice_parts, self.turn_order)

    @property
    def advice_pick(self) -> Action | None:
        """The advisor's pick for the current decision (None without advice)."""
        return self._advisor.pick if self._advisor is not None else None

    @property
    def economy_names(self) -> tuple[str, ...]:
        return self.layout.econ_names

    @property
    def grid_channels(self) -> tuple[str, ...]:
        return GRID_CHANNELS

    def describe_action(self, index: int) -> str:
        return self.layout.describe(int(index))

    def _healths(self, state: BattleState) -> dict[str, tuple[float, float]]:
        """figure id -> `Ruleset.health`: read once a decision, by the reward and the observation."""
        health = self.rs.health
        return {c.id: health(c) for c in state.combatants}

    def _team_health(self, state: BattleState, full: bool = False,
                     health: dict[str, tuple[float, float]] | None = None) -> tuple[float, float]:
        """(agent team's health, the others'): `options.team_health` of the agent team."""
        return team_health(state, self.agent_team, self._healths(state) if health is None else health, full)

    def _advance_opponents(self) -> None:
        b = self.battle
        s = b.state
        while not s.over and s.actor is not None and s.actor.team != self.agent_team:
            b.step(self._opponent.act(s, s.actor), check=False)

    def _agent_actor(self) -> Combatant | None:
        """The agent team's figure that decides now (None when the fight is over or waits on no one of it)."""
        s = self.battle.state
        return s.actor if (not s.over and s.actor is not None and s.actor.team == self.agent_team) else None

    def _observe(self, health: dict[str, tuple[float, float]] | None = None) -> dict[str, np.ndarray]:
        """The observation of the current decision; sets its legal map and mask (once a decision).
        `health`: `_healths` of the current state, when the caller has it."""
        s = self.battle.state
        lay = self.layout
        actor = self._agent_actor()
        legal = None
        if actor is not None:
            legal = self.rs.legal_actions(s)   # the mask's, and the advisor's below
            self._legal = lay.legal_map(s, actor, legal)
        else:
            self._legal = {0: END_TURN}
        self._mask = lay.mask(self._legal)
        obs = self._observation(actor, health)
        if self.advice is not None:
            if actor is not None:
                rows = self._advisor.advise(s, actor, self._legal, legal)
            else:
                rows = self._advisor.blank()
                self._advisor.pick = None
            obs.update(rows)
            self._advice_rows = {k: v.copy() for k, v in rows.items()}   # the env's own: a snapshot keeps it
        return obs

    def _observation(self, actor: Combatant | None, health: dict[str, tuple[float, float]] | None = None
                     ) -> dict[str, np.ndarray]:
        """The observation arrays of the current decision but the advice, from its mask."""
        s = self.battle.state
        lay = self.layout
        if actor is not None:
            obs = lay.observe(s, actor, self.agent_team, moves=lay.move_block(self._mask), health=health,
                              to_act=self.turn_order)
        else:
            obs = lay.observe(s, None, self.agent_team, health=health, to_act=self.turn_order)
        if self.clock:
            lay.set_clock(obs, s)
        return obs

    def _info(self) -> dict[str, Any]:
        s = self.battle.state
        return {"action_mask": self._mask.copy(), "round": s.round, "agent_team": self.agent_team,
                "actor": s.actor.id if s.actor is not None and not s.over else None}

    # -- gymnasium API ----------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        rng = self.np_random
        spec = self.pool.draw(rng)
        dice = Dice(np.random.default_rng(int(rng.integers(0, 2**63 - 1))))
        self.agent_team = self._agent_team_arg or spec.teams[0].name
        self.battle = new_battle(spec, dice, record=False)
        opp = self.opponents[int(rng.integers(0, len(self.opponents)))] if len(self.opponents) > 1 else self.opponents[0]
        pseed = int(rng.integers(0, 2**63 - 1))
        if self._random_side:   # drawn last: the other draws stay those of a first-team env
            self.agent_team = spec.teams[int(rng.integers(0, len(spec.teams)))].name
        if self.advice is not None:   # after that: an env without advice draws the same
            from envs.advice import Advisor
            self._advisor = Advisor(self.layout, self.advice, int(rng.integers(0, 2**63 - 1)), self.advice_parts)
        if isinstance(opp, Policy):
            self._opponent = opp
        else:
            self._opponent = make_policy(opp, pseed)
        # the agent answers its figures' choices as decisions (the answer block); the
        # opponent answers its own at once, or as its next decision when it is a network
        # that answers through its own answer block (rules/choices.py, decider_for)
        opp_decider = decider_for(self._opponent, self.battle.state) or self._opponent
        self.battle.deciders = {t.name: ASK if t.name == self.agent_team else opp_decider for t in spec.teams}
        self.battle.start()
        self._advance_opponents()
        s = self.battle.state
        # damage rewards are shares of each side's full health: a stable scale (the health
        # left after the opponents' opening turns can be 0, and recovery can raise it later)
        health = self._healths(s)
        self._start_health = self._team_health(s, full=True, health=health)
        self._last_health = self._team_health(s, health=health)
        self._done = False
        obs = self._observe(health)
        return obs, self._info()

    def step(self, action):
        if self.battle is None or self._done:
            raise TacticaError("step() called on a finished episode", field="action",
                               expected="reset() before stepping again")
        a = int(action)
        if not 0 <= a < self.layout.n_actions:
            raise TacticaError(f"action {action!r} is outside the action space", field="action",
                               expected=f"0 <= action < {self.layout.n_actions}")
        s = self.battle.state
        ended_early = s.over  # the opponents ended the fight before the agent's first decision
        if a not in self._legal and not ended_early:
            self._done = True
            info = self._info()
            info["illegal_action"] = True
            info["illegal_reason"] = f"{self.describe_action(a)} is not legal now"
            return self._observe(), float(self.reward_cfg["illegal"]), True, False, info
        if not ended_early:
            if self._advisor is not None:
                self._advisor.commit(s, s.actor, self._legal[a])
            self.battle.step(self._legal[a], check=False)
            self._advance_opponents()
        health = self._healths(s)   # this state's, for the reward and the observation below
        now = self._team_health(s, health=health)
        reward = shaping(self.reward_cfg, self._last_health, now, self._start_health)
        self._last_health = now
        terminated = truncated = False
        if s.over:
            self._done = True
            if s.winner == self.agent_team:
                reward += self.reward_cfg["win"]
                terminated = True
            elif s.winner is None:
                reward += self.reward_cfg["draw"]
                if s.end_reason == "round limit" and not self.clock:
                    truncated = True
                else:
                    terminated = True
            else:
                reward += self.reward_cfg["loss"]
                terminated = True
        obs = self._observe(health)
        info = self._info()
        if s.over:
            info["winner"] = s.winner
        return obs, float(reward), terminated, truncated, info

    def set_opponents(self, opponents: list) -> None:
        """Change the opponent pool (used by training curricula); takes effect at the next reset."""
        self.opponents = list(opponents)

    def action_masks(self) -> np.ndarray:
        """The legal-action mask as booleans (sb3-contrib MaskablePPO)."""
        return self._mask.astype(bool)

    # -- snapshots (envs/snapshot.py) ---------------------------------------------------
    def clone_state(self) -> EnvSnapshot:
        """A snapshot of the current decision, as OpenSpiel's `state.clone()`: the fight, its
        dice, the opponent policy and the advisor with their memories, and the env's own
        bookkeeping, copied (envs/snapshot.py). Later play leaves it as it is; restore it
        with `restore_state`, as often as wanted. Costs 0.13-0.3 ms on cortex/warehouse mid-fight
        (random or tactical opponent, with advice the most; docs/benchmarks.md)."""
        return snapshot.capture(self)

    def restore_state(self, snap: EnvSnapshot) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """Put the env back at `snap`'s decision: the same actions then give the same
        observations, rewards, flags and infos, bit for bit. Returns the observation and info
        of that decision, as `reset` does (`info["winner"]` too when the fight is over). A
        snapshot of an env configured otherwise is refused (`TacticaError`). Costs 0.27-0.41 ms
        on cortex/warehouse mid-fight, about 0.1 ms of it the observation (docs/benchmarks.md)."""
        return snapshot.restore(self, snap)

    # -- rendering ------------------------------------------------------------------
    def render(self):
        if self.render_mode is None or self.battle is None:
            return None
        from envs.render import render_ansi, render_rgb
        if self.render_mode == "ansi":
            return render_ansi(self.battle.state, self.rs, self.agent_team)
        return render_rgb(self.battle.state, self.rs, self.agent_team, self.map_size)
