"""The records `tactical` works with: a scored candidate (`Choice`), the turn so far
(`TurnMemory`) and one decision's view of the fight (`Ctx`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from rules.actions import Action
from rules.ruleset import Ruleset
from rules.state import BattleState, Combatant

from agents import assess as A


class ScoreParts(NamedTuple):
    """Parts of a `Choice`'s score, as the ranking pass computed them (envs/advice.py shows them).

    `hit`, `damage`: the attack's chance to hit and expected damage as a fraction of the
    target's health left (`assess.hp_left`); for a move before attacking, those of the best
    attack the ranking found from the end cell this turn (0 when none). `exposure`: the
    expected share of the figure's own health a turn of the enemies' fire costs at the action's
    end cell (`exposure` / `exact_value`, unweighted by `caution`); None: the figure's own
    cell, or not computed (`TacticalPolicy.want_parts` fills it in)."""

    hit: float = 0.0
    damage: float = 0.0
    exposure: float | None = None


@dataclass(slots=True)
class Choice:
    """A candidate action with its score and the one line that explains it (and, where the
    ranking has them, the parts of the score: `ScoreParts`)."""

    action: Action
    score: float
    reason: str
    parts: ScoreParts | None = None


@dataclass(slots=True)
class TurnMemory:
    """What the figure did so far this turn (policies are per fight and per team)."""

    key: tuple = ()
    moves: int = 0
    attacks: int = 0
    actions: int = 0


@dataclass(slots=True)
class Ctx:
    """One decision's view of the fight."""

    rs: Ruleset
    state: BattleState
    me: Combatant
    legal: list[Action]
    enemies: list[Combatant]
    allies: list[Combatant]
    hp: float
    frac: float
    reach: float
    melee: bool
    danger: dict[str, float]
    prio: dict[str, float]
    offence: float
    def_weight: float
    odds: list[A.Odds] = field(default_factory=list)
    aggression: float = 1.3
    ereach: dict[str, float] = field(default_factory=dict)
    #: what a shot from a cell counts for when it must wait for the next turn
    later: float = 0.3
    memo: dict[int, float] = field(default_factory=dict)
    #: cell -> (offence_at(cell)[0], whether it names a target, exposure(cell)[0]), from `_fill_quick`
    parts: dict[int, tuple[float, bool, float]] = field(default_factory=dict)
    shots: dict[int, A.Odds] = field(default_factory=dict)  # the best attack from a cell (exact)
    #: per enemy: (figure, cell, x, y, reach in metres, danger, priority), for the hot loops
    table: list[tuple] = field(default_factory=list)
    #: the exposure of the figure's own cell where the move choices computed it (`ScoreParts`)
    expo_here: float | None = None

    def sub(self, state: BattleState, me: Combatant, enemies: list[Combatant] | None = None) -> "Ctx":
        """This decision's view carried to a copy of the fight (after a trial action): the
        same weights, fresh caches, no legal actions or odds of its own."""
        return Ctx(self.rs, state, me, [], self.enemies if enemies is None else enemies, self.allies, self.hp,
                   self.frac, self.reach, self.melee, self.danger, self.prio, self.offence, self.def_weight, [],
                   self.aggression, self.ereach, later=self.later)
