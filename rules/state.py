"""Battle state: figures (`Combatant`) and the whole fight (`BattleState`).

Both are cheap to copy (`clone`) so planners can try moves on copies. Static parts (stat
blocks, weapons, the map) are shared between copies; everything a fight changes
(position, conditions, resources, the turn economy) is copied.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rules.grid import Grid

DOWN_CONDITIONS = frozenset({"unconscious", "dying", "dead", "incapacitated", "knocked_out"})


@dataclass(slots=True)
class Combatant:
    """One figure on the map."""

    id: str
    name: str
    team: str
    template: str
    pos: int
    stats: dict[str, Any]            # ruleset-specific stat block (read-only in a fight)
    weapons: dict[str, Any]          # weapon name -> ruleset weapon record (read-only)
    armour: Any = None               # ruleset armour record (read-only)
    traits: tuple = ()
    conditions: set[str] = field(default_factory=set)
    res: dict[str, Any] = field(default_factory=dict)   # damage, ammo, per-fight counters
    order: int = 0                   # position in the scenario (tie-breaks, slots)

    @property
    def down(self) -> bool:
        """Out of the fight for now: cannot act."""
        return not DOWN_CONDITIONS.isdisjoint(self.conditions)

    @property
    def dead(self) -> bool:
        return "dead" in self.conditions

    def clone(self) -> "Combatant":
        c = Combatant(self.id, self.name, self.team, self.template, self.pos, self.stats,
                      self.weapons, self.armour, self.traits, set(self.conditions),
                      {k: (v.copy() if isinstance(v, (dict, list, set)) else v) for k, v in self.res.items()},
                      self.order)
        return c


@dataclass(slots=True)
class BattleState:
    """The whole fight at one moment."""

    ruleset: str
    scenario: str
    grid: Grid
    combatants: list[Combatant]
    teams: list[str]
    round: int = 0
    round_limit: int = 20
    order: list[str] = field(default_factory=list)   # initiative order of this round
    turn_index: int = -1
    economy: dict[str, Any] = field(default_factory=dict)  # the acting figure's turn so far
    settings: dict[str, Any] = field(default_factory=dict)  # scenario settings for the ruleset
    objects: dict[int, list] = field(default_factory=dict)  # items lying on cells
    over: bool = False
    winner: str | None = None
    end_reason: str = ""
    by_id: dict[str, Combatant] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.by_id:
            self.by_id = {c.id: c for c in self.combatants}

    @property
    def actor(self) -> Combatant | None:
        """The figure whose turn it is, or None between turns."""
        if 0 <= self.turn_index < len(self.order):
            return self.by_id[self.order[self.turn_index]]
        return None

    def occupant(self, cell: int) -> Combatant | None:
        for c in self.combatants:
            if c.pos == cell and not c.down:
                return c
        return None

    def occupied(self) -> set[int]:
        """Cells that hold a standing figure (down figures may be stepped over)."""
        return {c.pos for c in self.combatants if DOWN_CONDITIONS.isdisjoint(c.conditions)}

    def enemies(self, c: Combatant) -> list[Combatant]:
        return [o for o in self.combatants if o.team != c.team]

    def allies(self, c: Combatant) -> list[Combatant]:
        return [o for o in self.combatants if o.team == c.team and o.id != c.id]

    def standing_teams(self) -> list[str]:
        """Teams with a figure still standing, in the order of `teams`."""
        up = {c.team for c in self.combatants if DOWN_CONDITIONS.isdisjoint(c.conditions)}
        return [t for t in self.teams if t in up]

    def clone(self) -> "BattleState":
        cs = [c.clone() for c in self.combatants]
        s = BattleState(self.ruleset, self.scenario, self.grid, cs, self.teams, self.round,
                        self.round_limit, list(self.order), self.turn_index,
                        {k: (v.copy() if isinstance(v, (dict, list, set)) else v) for k, v in self.economy.items()},
                        self.settings, {k: list(v) for k, v in self.objects.items()},
                        self.over, self.winner, self.end_reason, {c.id: c for c in cs})
        return s
